"""What the time stepper advances: a mechanical system's mass, forces and contacts at a state.

A system gives, at time ``t`` and state ``(q, v)``:

* ``M(q)`` (symmetric positive definite) and ``f(t, q, v)``, the generalised forces besides the
  contacts (:meth:`dynamics`);
* its contacts (:meth:`contacts`, a :class:`StepContacts`): for each a key that names the same
  contact from one step to the next, the gap ``g_j``, the columns ``H_j`` that map ``v`` to the
  contact-frame relative velocity ``u_j = H_j^T v`` (normal first), ``mu_j`` and Newton's
  coefficient of restitution ``e_j``;
* :meth:`integrate` (the configuration reached from ``q`` along a velocity increment: a Lie-group
  step for free bodies), :meth:`energy` (kinetic plus gravitational potential) and the world poses
  of its bodies (:meth:`poses`) for the trajectory.

:class:`SceneSystem` is a :class:`~contactcp.models.scene.Scene` (pinocchio's CRBA and RNEA, coal's
contact detection, three-dimensional contacts with Coulomb friction); :class:`LinearSystem` is a
linear time-invariant system with frictionless linear constraints ``y = H^T q + b`` (Siconos'
``LagrangianLinearTIDS`` with a ``LagrangianLinearTIR``), the model of the bouncing-ball reference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pinocchio as pin

from contactcp._validate import matrix, number, vector
from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.models.scene.detect import DEFAULT_MARGIN, joint_sources
from contactcp.models.scene.detect_kernels import free_placements
from contactcp.models.scene.detect_step import step_contacts
from contactcp.models.scene.scene import WORLD, Scene, restitution_coefficient
from contactcp.simulate.stepping.free_motion import (
    integrate_free,
    integrate_joints,
    step_dynamics,
    step_forces,
    transported,
    vector_coordinates,
)
from contactcp.simulate.stepping.pose_kernels import frame_poses

__all__ = ["StepContacts", "SceneSystem", "LinearSystem", "Efforts"]

#: joint efforts: an array (nv), or a callable ``(t, q, v) -> array``
Efforts = Any


@dataclass
class StepContacts:
    """The contacts of a system at one state (``dim`` = 3: normal and two tangents; 1: normal only)."""

    keys: list[str]
    bodies: list[tuple[str, str]]
    points: np.ndarray  # (n_c, 3) world; zeros for a LinearSystem
    frames: np.ndarray  # (n_c, 3, 3) columns n, t, o (world); identity for a LinearSystem
    gap: np.ndarray  # (n_c,)
    H: np.ndarray  # (nv, dim * n_c)
    mu: np.ndarray  # (n_c,)
    e: np.ndarray  # (n_c,)
    dim: int
    #: (n_c, 2) when known: the first of the 6 velocity rows of each side's free body (-1: a fixed
    #: side), the only rows a contact's columns of H fill (detect_step.step_contacts); else None
    blocks: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.keys)


def _efforts(efforts: Efforts, nv: int) -> Callable[[float, np.ndarray, np.ndarray], np.ndarray] | None:
    if efforts is None:
        return None
    if callable(efforts):
        return efforts
    tau = np.asarray(vector(efforts, "efforts", nv))
    return lambda t, q, v: tau


class SceneSystem:
    """A scene for the time stepper (see the module docstring).

    ``efforts`` replace the scene's ``tau`` when given: an array, or a callable ``(t, q, v) -> tau``
    (PD control, trajectories; :func:`pd_efforts`).  ``restitution`` is the coefficient of pairs
    the scene sets none for.  Contacts are detected within ``margin`` plus the distance the scene's
    fastest point can cover in a step (so that a contact is found before it closes).
    """

    dim = 3

    def __init__(self, scene: Scene, margin: float = DEFAULT_MARGIN, restitution: float = 0.0, efforts: Efforts = None):
        if not isinstance(scene, Scene):
            raise InvalidProblemError("scene", f"must be a contactcp Scene, got {type(scene).__name__}")
        scene.check_state()
        self.scene = scene
        self.margin = number(margin, "margin")
        if not self.margin >= 0:
            raise InvalidOptionError("margin", f"must be >= 0 (metres), got {margin!r}")
        self.restitution = restitution_coefficient(restitution, "restitution")
        self._e = np.zeros(0)  # the last contacts' coefficients, when the scene sets one for all
        model = scene.model
        self.nq, self.nv = model.nq, model.nv
        self._efforts = _efforts(efforts, self.nv)
        self._free = [j.v for j in scene.joints if j.free]
        self._free_q = [j.q for j in scene.joints if j.free]
        self._spherical = [
            j.v for j in scene.joints if model.joints[j.index].shortname().startswith("JointModelSpherical")
        ]
        self.body_names = [b for b in scene.bodies if b != WORLD]
        self._poses = _pose_data(model, [model.getFrameId(b) for b in self.body_names])
        gm = scene.collision
        self._radius = np.array([_radius(g.geometry) for g in gm.geometryObjects])
        # the farthest a geometry's points reach from its joint's origin (its box's centre may be off it)
        self._reach = np.array(
            [
                float(np.linalg.norm(g.placement.act(np.asarray(g.geometry.aabb_center, dtype=float))))
                if r > 0
                else 0.0
                for g, r in zip(gm.geometryObjects, self._radius)
            ]
        )
        self._gjoint = [int(g.parentJoint) for g in gm.geometryObjects]
        # compiled free-body motion (free_motion): each free body's first q and v entry
        self._qpos = np.array([s.start for s in self._free_q], dtype=np.int64)
        self._vpos = np.array([s.start for s in self._free], dtype=np.int64)
        self._only_free = model.nq == 7 * len(self._free)
        # the robot joints that add their step (revolute, prismatic): with the free bodies all the
        # joints there are, a step is integrated compiled (free_motion.integrate_joints)
        self._vq, self._vv, others = vector_coordinates(model)
        self._compiled_motion = others == len(self._free)
        #: what the local step's compiled call integrates with, or None (pinocchio's integration)
        self.motion_indices = (self._qpos, self._vpos, self._vq, self._vv) if self._compiled_motion else None
        #: free bodies only: M is constant (each body's velocity in its own axes), factored once (mass.py)
        self.constant_mass = self._only_free
        self._M: np.ndarray | None = None  # M, when constant
        # the geometries on free bodies (their speed bound from v directly: a free body's twist is
        # in its own axes, as pinocchio's joint velocity), and the others
        first_v = {j.index: j.v.start for j in scene.joints if j.free}
        g_free = np.array([first_v.get(j, -1) for j in self._gjoint], dtype=np.int64)
        on_free = g_free >= 0
        self._g_first = np.ascontiguousarray(g_free[on_free], dtype=np.int64)  # their first velocity
        self._g_arm = (self._reach + self._radius)[on_free]
        # the other geometries (on robot links), their joints and how far each reaches from its
        # joint's origin
        self._other = np.array([g for g, j in enumerate(self._gjoint) if j and not on_free[g]], dtype=np.int64)
        self._other_joints = np.array([self._gjoint[g] for g in self._other], dtype=np.int64)
        self._other_arms = np.array([self._reach[g] + self._radius[g] for g in self._other], dtype=float)

    def initial_state(self) -> tuple[np.ndarray, np.ndarray]:
        return self.scene.q.copy(), self.scene.v.copy()

    def _set(self, q: np.ndarray, v: np.ndarray) -> None:
        self.scene.q, self.scene.v = q, v

    def dynamics(self, t: float, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(M(q), f)`` with ``f = tau(t, q, v) + applied wrenches - nle(q, v)``."""
        scene = self.scene
        self._set(q, v)
        if self._efforts is not None:
            tau = np.asarray(vector(self._efforts(t, q.copy(), v.copy()), "efforts", self.nv), dtype=float)
            for s in self._free:
                if np.abs(tau[s]).max(initial=0.0) > 0:
                    raise InvalidProblemError("efforts", "a free body takes no joint effort (set a wrench instead)")
            scene.tau = tau
        model, data = scene.model, scene._data
        g, nle, v = scene.generalized_forces(), pin.nonLinearEffects(model, data, q, v), _f64(v)
        # f = g - nle (+ M (w x v) for the free bodies: a free body's velocity is taken in the axes it
        # has at q_k for the whole step (carried to q_{k+1} by :meth:`transport`): its origin's
        # acceleration there is the classical one, so the rate of the turning axes, w x v, leaves
        # pinocchio's bias), compiled (free_motion.step_dynamics, step_forces)
        M = self._M
        if M is not None:
            return M, step_forces(M, g, nle, v, self._vpos)
        M, f = step_dynamics(pin.crba(model, data, q), g, nle, v, self._vpos)
        if self.constant_mass:  # free bodies only: M is the same at every q (kept, read-only)
            M.setflags(write=False)
            self._M = M
        return M, f

    def contacts(self, q: np.ndarray, v: np.ndarray, h: float) -> StepContacts:
        self._set(q, v)
        # the stepper's state is checked (the scene's at the start, then finite steps): detected
        # without detect_set's checks, within the margin plus twice what the fastest point covers
        speed = (self._g_first, self._g_arm, self._other_joints, self._other_arms)
        names, bodies, points, frames, gap, mu, H, blocks = step_contacts(
            self.scene, _f64(v), float(h), self.margin, speed
        )
        return StepContacts(names, bodies, points, frames, gap, H, mu, self._restitutions(bodies), 3, blocks)

    def _restitutions(self, bodies: list[tuple[str, str]]) -> np.ndarray:
        """Each contact's coefficient of restitution (the scene's pairs, else its default, else the
        system's)."""
        scene = self.scene
        if not scene.pair_restitution:  # one value for all (kept, read-only, while it and n stay)
            e = float(self.restitution if scene.default_restitution is None else scene.default_restitution)
            kept = self._e
            if kept.size != len(bodies) or (kept.size and kept[0] != e):
                kept = np.full(len(bodies), e)
                kept.setflags(write=False)
                self._e = kept
            return kept
        e = {b: scene.restitution(b, self.restitution) for b in set(bodies)}
        return np.array([e[b] for b in bodies], dtype=float)

    def integrate(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """``q (+) dq``: pinocchio's integration, but a free body's origin moves along its own
        velocity and its orientation turns about its angular velocity separately
        (``p + R dp``, ``R exp(dw)``; exact for a ball rolling on a plane and for free flight, where
        the screw motion of ``exp6`` moves the centre on an arc about the contact point).  Compiled
        when the other joints are revolute or prismatic (``q + dq``, pinocchio's integration of them:
        :func:`~contactcp.simulate.stepping.free_motion.integrate_joints`)."""
        q, dq = _f64(q), _f64(dq)
        if self._compiled_motion:
            return integrate_joints(q, dq, self._qpos, self._vpos, self._vq, self._vv)
        out = np.array(pin.integrate(self.scene.model, q, dq))
        integrate_free(q, dq, self._qpos, self._vpos, out)
        return out

    def mass_hint(self, M: np.ndarray) -> str:
        """Why the mass matrix is singular, when joints move no mass."""
        from contactcp.models.scene.dynamics import _weak_joints

        return _weak_joints(self.scene, M)

    def transport(self, dq: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``v`` (a velocity in the tangent space at ``q``) in the tangent space at ``q (+) dq``: a free
        body's velocity and a ball joint's angular velocity are in the body's own axes, which the step
        turned (without this a rolling ball's velocity turns with it)."""
        out = transported(_f64(dq), _f64(v), self._vpos)
        for s in self._spherical:
            out[s] = pin.exp3(dq[s]).T @ out[s]
        return out

    def energy(self, q: np.ndarray, v: np.ndarray) -> float:
        model, data = self.scene.model, self.scene._data
        kinetic = pin.computeKineticEnergy(model, data, q, v)
        return float(kinetic + pin.computePotentialEnergy(model, data, q))

    def poses(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World positions ``(nb, 3)`` and quaternions ``(nb, 4: w, x, y, z)`` of the body frames: their
        joints' placements, a free body's from ``q`` and the others' by pinocchio's forward
        kinematics, then each frame's, compiled
        (:func:`~contactcp.simulate.stepping.pose_kernels.frame_poses`)."""
        parent, local_R, local_p, free_q, joint_R, joint_p, read = self._poses
        R, O = np.empty(joint_R.shape), np.empty(joint_p.shape)
        free_placements(_f64(q), free_q, joint_R, joint_p, R, O)
        if read:
            data = self.scene._data
            pin.forwardKinematics(self.scene.model, data, q)
            for j in read:
                M = data.oMi[j]
                R[j], O[j] = M.rotation, M.translation
        pos, quat = np.empty((parent.size, 3)), np.zeros((parent.size, 4))
        frame_poses(R, O, parent, local_R, local_p, pos, quat)
        return pos, quat


def _pose_data(model: Any, frames: list[int]) -> tuple:
    """What :meth:`SceneSystem.poses` reads of the model: the frames' parent joints and placements on
    them, then how those joints are placed (:func:`~contactcp.models.scene.detect.joint_sources`)."""
    parent = np.array([model.frames[f].parentJoint for f in frames], dtype=np.int64)
    local_R = np.array([model.frames[f].placement.rotation for f in frames], dtype=float).reshape(-1, 3, 3)
    local_p = np.array([model.frames[f].placement.translation for f in frames], dtype=float).reshape(-1, 3)
    free_q, joint_R, joint_p, read = joint_sources(model, parent.tolist())
    return parent, local_R, local_p, free_q, joint_R, joint_p, read


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _radius(geometry: Any) -> float:
    geometry.computeLocalAABB()
    r = float(geometry.aabb_radius)
    return r if np.isfinite(r) else 0.0


class LinearSystem:
    """``M dv/dt = f(t)`` with frictionless constraints ``y = H^T q + b >= 0`` (module docstring).

    ``M`` (n x n, symmetric positive definite), ``f`` an array (n) or a callable ``t -> f``, ``H``
    (n x m), ``b`` (m), ``e`` one coefficient of restitution or one per constraint, ``q0``, ``v0``
    the initial state.  The potential energy is ``-f . q`` (constant forces).
    """

    dim = 1
    body_names: list[str] = []

    def __init__(self, M: Any, f: Any, H: Any, q0: Any, v0: Any = None, b: Any = None, e: Any = 0.0):
        self.M = np.array(matrix(M, "M"), dtype=float)
        n = self.M.shape[0]
        if n == 0 or self.M.shape != (n, n) or np.abs(self.M - self.M.T).max() > 0:
            raise InvalidProblemError("M", "must be a symmetric square matrix")
        try:
            np.linalg.cholesky(self.M)
        except np.linalg.LinAlgError:
            raise InvalidProblemError("M", "must be positive definite (a singular mass matrix)") from None
        self.nq = self.nv = n
        self._f = f if callable(f) else (lambda t, _f=np.asarray(vector(f, "f", n)): _f)
        self.H = np.array(matrix(H, "H"), dtype=float)
        if self.H.shape[0] != n:
            raise InvalidProblemError(
                "H", f"must have one row per coordinate ({n}), one column per constraint; got {self.H.shape}"
            )
        m = self.H.shape[1]
        self.b = np.zeros(m) if b is None else np.asarray(vector(b, "b", m), dtype=float)
        e = [e] * m if np.ndim(e) == 0 else list(vector(e, "e", m))
        self.e = np.array([restitution_coefficient(x, f"e[{i}]") for i, x in enumerate(e)])
        self.q0 = np.asarray(vector(q0, "q0", n), dtype=float).copy()
        self.v0 = np.zeros(n) if v0 is None else np.asarray(vector(v0, "v0", n), dtype=float).copy()

    def initial_state(self) -> tuple[np.ndarray, np.ndarray]:
        return self.q0.copy(), self.v0.copy()

    def dynamics(self, t: float, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.M, np.asarray(vector(self._f(t), "f", self.nv), dtype=float)

    def contacts(self, q: np.ndarray, v: np.ndarray, h: float) -> StepContacts:
        m = self.H.shape[1]
        return StepContacts(
            keys=[f"y{i}" for i in range(m)],
            bodies=[("system", WORLD)] * m,
            points=np.zeros((m, 3)),
            frames=np.broadcast_to(np.eye(3), (m, 3, 3)).copy(),
            gap=self.H.T @ q + self.b,
            H=self.H,
            mu=np.zeros(m),
            e=self.e,
            dim=1,
        )

    def integrate(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        return q + dq

    def transport(self, dq: np.ndarray, v: np.ndarray) -> np.ndarray:
        return v

    def energy(self, q: np.ndarray, v: np.ndarray) -> float:
        return float(0.5 * v @ self.M @ v - self._f(0.0) @ q)

    def poses(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((0, 3)), np.zeros((0, 4))

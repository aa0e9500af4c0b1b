"""A scene: one kinematic tree (robots, free bodies, fixed geometry) with collision shapes and a state.

The whole scene is one ``pinocchio.Model``: a robot read from URDF or MJCF keeps its joints, each
free body is a free-flyer joint on the world, fixed geometry hangs on the world (the ``universe``
joint).  Its collision shapes are one ``pinocchio.GeometryModel`` of coal geometries, each with a
sliding-friction coefficient.  The state is pinocchio's ``(q, v)`` and the joint efforts ``tau``
(free bodies have zero effort; their applied load is gravity).  Nothing here parses files: URDF
and MJCF go through pinocchio's parsers (:mod:`contactcp.models.scene.load`).

Body names are the names of the frames geometries hang on (URDF links, MJCF bodies); geometry on
the world is on body ``"world"``.  Units are SI: metres, kilograms, seconds, newtons, radians.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pinocchio as pin

from contactcp._validate import _all_finite, matrix, number, vector
from contactcp.errors import InvalidProblemError
from contactcp.models.scene.shapes import make_shape, solid_inertia

__all__ = ["Scene", "pose", "friction_coefficient", "restitution_coefficient", "DEFAULT_FRICTION", "WORLD"]

#: sliding friction of a geometry that names none (MuJoCo's default)
DEFAULT_FRICTION = 1.0
#: the name of the fixed world body
WORLD = "world"


def _rotation(R: np.ndarray, where: str) -> np.ndarray:
    if np.abs(R.T @ R - np.eye(3)).max() > 1e-9 or np.linalg.det(R) < 0:
        raise InvalidProblemError(where, "must be a rotation matrix (orthonormal, det +1)")
    return R


def pose(value: Any, where: str = "pose") -> pin.SE3:
    """A rigid placement from ``{"p": [x, y, z], "R": 3x3 | "rpy": [r, p, y] | "quat": [w, x, y, z]}``
    (MuJoCo's quaternion order; ``rpy`` is URDF's fixed-axis roll, pitch, yaw), a 4x4 transform,
    or None (the identity)."""
    if value is None:
        return pin.SE3.Identity()
    if isinstance(value, pin.SE3):
        return pin.SE3(value)
    if not isinstance(value, dict):
        T = np.asarray(matrix(value, where, (4, 4)))
        if np.abs(T[3] - [0, 0, 0, 1]).max() > 1e-12:
            raise InvalidProblemError(where, "last row must be [0, 0, 0, 1]")
        return pin.SE3(_rotation(T[:3, :3].copy(), where), T[:3, 3].copy())
    extra = set(value) - {"p", "R", "rpy", "quat"}
    if extra:
        raise InvalidProblemError(where, f"unknown key(s) {sorted(extra)}; allowed: p, R, rpy, quat")
    if sum(k in value for k in ("R", "rpy", "quat")) > 1:
        raise InvalidProblemError(where, 'give at most one of "R", "rpy", "quat"')
    p = np.asarray(vector(value.get("p", [0.0, 0.0, 0.0]), f"{where}.p", 3))
    R = np.eye(3)
    if "R" in value:
        R = _rotation(np.array(matrix(value["R"], f"{where}.R", (3, 3))), f"{where}.R")
    elif "rpy" in value:
        R = pin.rpy.rpyToMatrix(*vector(value["rpy"], f"{where}.rpy", 3))
    elif "quat" in value:
        w, x, y, z = vector(value["quat"], f"{where}.quat", 4)
        nrm = float(np.linalg.norm([w, x, y, z]))
        if not nrm > 0:
            raise InvalidProblemError(f"{where}.quat", "must be nonzero")
        R = pin.Quaternion(w / nrm, x / nrm, y / nrm, z / nrm).toRotationMatrix()
    return pin.SE3(np.array(R), p.copy())


def restitution_coefficient(value: Any, where: str) -> float:
    """A coefficient of restitution: a number in ``[0, 1]`` (InvalidProblemError naming ``where``)."""
    e = number(value, where)
    if not 0.0 <= e <= 1.0:
        raise InvalidProblemError(where, f"coefficient of restitution must be in [0, 1], got {value!r}")
    return e


def friction_coefficient(value: Any, where: str) -> float:
    """A friction coefficient: a finite number >= 0 (InvalidProblemError naming ``where``)."""
    mu = number(value, where)
    if mu < 0:
        raise InvalidProblemError(where, f"friction coefficient must be >= 0 and finite, got {value!r}")
    return mu


@dataclass(frozen=True)
class Joint:
    """A joint of the scene: its name, pinocchio index, slices of ``q`` and ``v``, and whether it is
    a free body's joint (its effort is always zero)."""

    name: str
    index: int
    q: slice
    v: slice
    free: bool


class Scene:
    """Robots, free bodies and fixed geometry in one pinocchio model; see the module docstring.

    Build with :meth:`from_urdf`, :meth:`from_mjcf` (:mod:`contactcp.models.scene.load`), or empty
    (``Scene()``) and add :meth:`add_body` / :meth:`add_fixed`.  Set the state with :meth:`set_joint`,
    :meth:`set_body`, or the ``q``, ``v``, ``tau`` arrays (pinocchio's layout).
    """

    def __init__(self, model: pin.Model | None = None, collision: pin.GeometryModel | None = None, name: str = "scene"):
        self.model = pin.Model() if model is None else model
        self.collision = pin.GeometryModel() if collision is None else collision
        self.name = str(name)
        #: sliding friction per geometry name (MJCF's ``friction``; else :data:`DEFAULT_FRICTION`)
        self.friction: dict[str, float] = {}
        #: friction of a geometry missing from :attr:`friction`
        self.default_friction: float = DEFAULT_FRICTION
        #: friction of a pair of bodies, overriding the geometries' rule: ``{frozenset((a, b)): mu}``
        self.pair_friction: dict[frozenset, float] = {}
        #: coefficient of restitution (Newton's impact law) of a pair of bodies: ``{frozenset((a, b)): e}``
        self.pair_restitution: dict[frozenset, float] = {}
        #: restitution of a pair missing from :attr:`pair_restitution` (None: not set, the time stepper's
        #: ``restitution`` argument or 0 applies)
        self.default_restitution: float | None = None
        #: pairs of bodies never checked for contact (besides a body and its parent or child)
        self.excluded: set[frozenset] = set()
        #: applied wrenches on free bodies, world frame: ``{body: (force, torque about the body origin)}``
        self.wrenches: dict[str, np.ndarray] = {}
        self._reset_state()

    @classmethod
    def from_urdf(
        cls, source: Any, package_dirs: Any = None, floating: bool = False, base: Any = None, name: str | None = None
    ) -> Scene:
        """A scene holding the robot of a URDF file or text (:func:`~contactcp.models.scene.load.scene_from_urdf`)."""
        from contactcp.models.scene.load import scene_from_urdf

        return scene_from_urdf(source, package_dirs, floating, base, name)

    @classmethod
    def from_mjcf(cls, path: Any, name: str | None = None) -> Scene:
        """A scene from an MJCF file (:func:`~contactcp.models.scene.load.scene_from_mjcf`)."""
        from contactcp.models.scene.load import scene_from_mjcf

        return scene_from_mjcf(path, name)

    # -------------------------------------------------------------------- structure
    def _reset_state(self) -> None:
        q0 = np.array(pin.neutral(self.model), dtype=float)
        if "qpos0" in self.model.referenceConfigurations:  # MJCF's initial pose (of the joints it had)
            ref = np.asarray(self.model.referenceConfigurations["qpos0"], dtype=float)
            q0[: ref.size] = ref[: q0.size]
        self.q = q0
        self.v = np.zeros(self.model.nv)
        self.tau = np.zeros(self.model.nv)
        self._data = self.model.createData()

    @property
    def gravity(self) -> np.ndarray:
        """The world-frame gravitational acceleration (default ``(0, 0, -9.81)``)."""
        return np.array(self.model.gravity.linear)

    @gravity.setter
    def gravity(self, g: Any) -> None:
        self.model.gravity = pin.Motion(np.asarray(vector(g, "gravity", 3)).copy(), np.zeros(3))

    @property
    def joints(self) -> list[Joint]:
        """Every joint but the world's, in pinocchio's order (built again only when joints are added)."""
        m = self.model
        if getattr(self, "_joints_n", None) == m.njoints:
            return self._joints
        self._joints_n = m.njoints
        self._joints = [
            Joint(
                m.names[j],
                j,
                slice(m.idx_qs[j], m.idx_qs[j] + m.nqs[j]),
                slice(m.idx_vs[j], m.idx_vs[j] + m.nvs[j]),
                m.joints[j].shortname() == "JointModelFreeFlyer",
            )
            for j in range(1, m.njoints)
        ]
        return self._joints

    def joint(self, name: str) -> Joint:
        for j in self.joints:
            if j.name == name:
                return j
        raise InvalidProblemError("joint", f"no joint named {name!r}; the scene has {[j.name for j in self.joints]}")

    def body_of(self, geometry_index: int) -> str:
        """The name of the body a geometry hangs on (``"world"`` for the world)."""
        g = self.collision.geometryObjects[geometry_index]
        name = self.model.frames[g.parentFrame].name
        return WORLD if g.parentJoint == 0 and name == "universe" else name

    @property
    def bodies(self) -> list[str]:
        """The names of the bodies that carry geometry."""
        return sorted({self.body_of(i) for i in range(self.collision.ngeoms)})

    def restitution(self, bodies: tuple[str, str], default: float = 0.0) -> float:
        """The coefficient of restitution of a pair of bodies: the pair's own, else the scene's
        default, else ``default``."""
        e = self.pair_restitution.get(frozenset(bodies))
        if e is None:
            e = self.default_restitution
        return default if e is None else e

    def geometry_friction(self, geometry_index: int) -> float:
        return self.friction.get(self.collision.geometryObjects[geometry_index].name, self.default_friction)

    def add_body(
        self,
        name: str,
        shape: dict,
        mass: float,
        placement: Any = None,
        v: Any = (0.0, 0.0, 0.0),
        omega: Any = (0.0, 0.0, 0.0),
        friction: float | None = None,
    ) -> Joint:
        """A free rigid body of uniform density with one shape (:mod:`~contactcp.models.scene.shapes`):
        a free-flyer joint named ``name`` on the world, the body frame at ``placement`` (:func:`pose`),
        moving with velocity ``v`` (of the body frame's origin) and angular velocity ``omega`` (world)."""
        self._new_name(name)
        geom = make_shape(shape, f"{name}.shape")
        m = number(mass, f"{name}.mass")
        if not m > 0:
            raise InvalidProblemError(f"{name}.mass", f"must be positive, got {mass!r}")
        com, I = solid_inertia(geom, m, f"{name}.shape")
        jid = self.model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), name)
        self.model.appendBodyToJoint(jid, pin.Inertia(m, com, I), pin.SE3.Identity())
        fid = self.model.addFrame(pin.Frame(name, jid, pin.SE3.Identity(), pin.FrameType.BODY))
        self.collision.addGeometryObject(pin.GeometryObject(name, jid, fid, pin.SE3.Identity(), geom))
        if friction is not None:
            self.friction[name] = friction_coefficient(friction, f"{name}.friction")
        q, v_, tau = self.q, self.v, self.tau
        self._reset_state()
        nq, nv = q.size, v_.size
        self.q[:nq], self.v[:nv], self.tau[:nv] = q, v_, tau
        self.set_body(name, placement, v, omega)
        return self.joint(name)

    def add_fixed(self, name: str, shape: dict, placement: Any = None, friction: float | None = None) -> None:
        """Fixed geometry (a floor, a slope, a wall) on the world, at ``placement``."""
        self._new_name(name)
        geom = make_shape(shape, f"{name}.shape")
        self.collision.addGeometryObject(pin.GeometryObject(name, 0, 0, pose(placement, f"{name}.pose"), geom))
        if friction is not None:
            self.friction[name] = friction_coefficient(friction, f"{name}.friction")

    def _new_name(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise InvalidProblemError("name", f"must be a non-empty string, got {name!r}")
        taken = {g.name for g in self.collision.geometryObjects} | {f.name for f in self.model.frames}
        if name in taken or name == WORLD:
            raise InvalidProblemError("name", f"{name!r} is already a body, frame or geometry of the scene")

    # -------------------------------------------------------------------- state
    def set_body(
        self, name: str, placement: Any = None, v: Any = (0.0, 0.0, 0.0), omega: Any = (0.0, 0.0, 0.0)
    ) -> None:
        """Place a free body (:func:`pose`) and give its world-frame velocity and angular velocity."""
        j = self.joint(name)
        if not j.free:
            raise InvalidProblemError(name, "is not a free body")
        M = pose(placement, f"{name}.pose")
        self.q[j.q] = pin.SE3ToXYZQUAT(M)
        R = M.rotation
        self.v[j.v] = np.concatenate(
            [R.T @ np.asarray(vector(v, f"{name}.v", 3)), R.T @ np.asarray(vector(omega, f"{name}.omega", 3))]
        )

    def set_joint(self, name: str, position: Any = None, velocity: Any = None, effort: Any = None) -> None:
        """A robot joint's position (angle or displacement), velocity and effort (torque or force)."""
        j = self.joint(name)
        if j.free:
            raise InvalidProblemError(name, "is a free body: use set_body")
        nv = j.v.stop - j.v.start
        if position is not None:
            x = np.atleast_1d(vector(np.atleast_1d(position), f"{name}.position", nv))
            dv = np.zeros(self.model.nv)
            dv[j.v] = x
            self.q[j.q] = pin.integrate(self.model, pin.neutral(self.model), dv)[j.q]
        if velocity is not None:
            self.v[j.v] = vector(np.atleast_1d(velocity), f"{name}.velocity", nv)
        if effort is not None:
            self.tau[j.v] = vector(np.atleast_1d(effort), f"{name}.effort", nv)

    def set_wrench(self, name: str, force: Any = (0.0, 0.0, 0.0), torque: Any = (0.0, 0.0, 0.0)) -> None:
        """An applied force (N) on a free body's origin and a torque (N m), world frame, besides gravity."""
        if not self.joint(name).free:
            raise InvalidProblemError(name, "is not a free body (robot joints take efforts)")
        F = np.asarray(vector(force, f"{name}.force", 3))
        T = np.asarray(vector(torque, f"{name}.torque", 3))
        self.wrenches[name] = np.concatenate([F, T])

    def generalized_forces(self) -> np.ndarray:
        """``tau`` plus the applied wrenches as generalised forces (a free-flyer's velocity, hence its
        force, is in the body frame: ``(R^T F, R^T T)``)."""
        f = np.array(self.tau, dtype=float)
        if self.wrenches:
            pin.forwardKinematics(self.model, self._data, self.q)
        for name, w in self.wrenches.items():
            j = self.joint(name)
            R = self._data.oMi[j.index].rotation
            f[j.v] += np.concatenate([R.T @ w[:3], R.T @ w[3:]])
        return f

    def check_state(self) -> None:
        """Raise InvalidProblemError unless ``q``, ``v``, ``tau`` have the model's sizes and are finite."""
        state = (("q", self.q, self.model.nq), ("v", self.v, self.model.nv), ("tau", self.tau, self.model.nv))
        plain = all(type(x) is np.ndarray and x.dtype == np.float64 and x.shape == (n,) for _, x, n in state)
        if not (plain and all(_all_finite(x) for _, x, _n in state)):  # else each checked, the field named
            for field, x, n in state:
                vector(x, field, n)
        quat, vel, free = self._free_indices()
        if free:  # every free body at once: no effort, a unit quaternion
            no_effort = np.abs(self.tau[vel]).max(axis=1) > 0
            not_unit = np.abs(np.sqrt((self.q[quat] ** 2).sum(axis=1)) - 1.0) > 1e-9
            for k in np.flatnonzero(no_effort | not_unit)[:1].tolist():
                if no_effort[k]:
                    raise InvalidProblemError(f"tau[{free[k].name}]", "a free body takes no joint effort")
                why = "a free body's quaternion (x, y, z, w) must have norm 1"
                raise InvalidProblemError(f"q[{free[k].name}]", why)

    def _free_indices(self) -> tuple[np.ndarray, np.ndarray, list[Joint]]:
        """The free bodies' quaternion entries of ``q`` (nf, 4), velocity entries (nf, 6), joints."""
        joints = self.joints
        if getattr(self, "_free_n", None) != self._joints_n:
            free = [j for j in joints if j.free]
            quat = np.array([np.arange(j.q.start + 3, j.q.stop) for j in free], dtype=np.intp).reshape(-1, 4)
            vel = np.array([np.arange(j.v.start, j.v.stop) for j in free], dtype=np.intp).reshape(-1, 6)
            self._free, self._free_n = (quat, vel, free), self._joints_n
        return self._free

    def gravity_torques(self) -> np.ndarray:
        """The efforts that hold every robot joint still against gravity at ``q`` (zero on free
        bodies): ``tau = gravity_torques()`` is gravity compensation."""
        g = np.array(pin.computeGeneralizedGravity(self.model, self._data, self.q))
        for j in self.joints:
            if j.free:
                g[j.v] = 0.0
        return g

    def placement(self, body: str) -> pin.SE3:
        """The world placement of a body frame at ``q``."""
        if body == WORLD:
            return pin.SE3.Identity()
        if not self.model.existFrame(body):
            raise InvalidProblemError("body", f"no body named {body!r}; the scene has {self.bodies}")
        pin.framesForwardKinematics(self.model, self._data, self.q)
        return pin.SE3(self._data.oMf[self.model.getFrameId(body)])

    def __repr__(self) -> str:
        return (
            f"Scene({self.name!r}, joints={len(self.joints)}, nv={self.model.nv}, "
            f"geometries={self.collision.ngeoms}, bodies={self.bodies})"
        )

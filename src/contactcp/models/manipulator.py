"""Serial manipulators whose kinematics and dynamics come from pinocchio.

A :class:`Manipulator` is a serial chain of ``n`` one-degree-of-freedom joints
(revolute or prismatic).  It is built from a Denavit–Hartenberg table
(:meth:`Manipulator.from_dh`) or from URDF text (:meth:`Manipulator.from_urdf`);
either way a ``pinocchio.Model`` does the rigid-body algebra (CRBA, RNEA, ABA,
joint Jacobians), nothing here is hand-written dynamics.

Sign convention (Buffo & Maciel 2006, eq. (9)): the joint-space equation of
motion is ::

    M(q) qdd = tau - g_man(q) - h_man(q, qdot) - J^T c

so :meth:`gravity_torques` is the torque a motor must supply to hold the arm
still (``rnea(q, 0, 0)``) and :meth:`coriolis_torques` is the velocity-product
term ``rnea(q, qdot, 0) - g_man``.  Gravity is a world-frame acceleration
vector, ``(0, 0, -9.81)`` by default (world ``z`` up).

Link frames.  For a DH chain link ``i`` (0-based) carries DH frame ``i + 1`` of
the usual 1-based numbering: with the standard (distal) convention the frame at
the far end of link ``i`` whose ``z`` axis is the axis of joint ``i + 1``; with
the modified (proximal, Craig) convention the frame on joint ``i``'s own axis.
Centres of mass and inertias of link ``i`` are given in that frame.  For a URDF
chain link ``i`` is the child link of the ``i``-th movable joint (whose frame is
the joint frame).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

from contactcp._validate import matrix, real_array, vector
from contactcp.errors import InvalidProblemError, InverseKinematicsError

__all__ = ["Manipulator", "InverseKinematicsError", "point_terms", "mass_matrix"]

_RIGID_TOL = 1e-9


# --------------------------------------------------------------------------- input checks


def _transform(value: Any, field: str) -> pin.SE3:
    """A 4x4 homogeneous rigid transform (None = identity) as a pinocchio SE3."""
    if value is None:
        return pin.SE3.Identity()
    T = np.asarray(matrix(value, field, (4, 4)))
    if np.abs(T[3] - [0.0, 0.0, 0.0, 1.0]).max() > _RIGID_TOL:
        raise InvalidProblemError(field, f"last row must be [0, 0, 0, 1], got {T[3].tolist()}")
    R = T[:3, :3]
    if np.abs(R.T @ R - np.eye(3)).max() > _RIGID_TOL or np.linalg.det(R) < 0:
        raise InvalidProblemError(field, "upper-left 3x3 block must be a rotation matrix (orthonormal, det +1)")
    return pin.SE3(R.copy(), T[:3, 3].copy())


def _joint_types(value: Any, n: int) -> str:
    if value is None:
        return "R" * n
    if not isinstance(value, str):
        try:
            value = "".join(str(v) for v in value)
        except TypeError:
            raise InvalidProblemError("joint_types", "must be a string such as 'RRP'") from None
    types = value.upper()
    if len(types) != n:
        raise InvalidProblemError("joint_types", f"must have one letter per joint ({n}), got {len(types)}")
    bad = [c for c in types if c not in "RP"]
    if bad:
        raise InvalidProblemError(
            "joint_types", f"unknown joint type {bad[0]!r}; use 'R' (revolute) or 'P' (prismatic)"
        )
    return types


def _inertias(value: Any, n: int) -> np.ndarray:
    """(n, 3, 3) symmetric PSD inertia tensors from (n, 3, 3) or (n, 6) [Ixx Iyy Izz Ixy Iyz Ixz]."""
    if value is None:
        return np.zeros((n, 3, 3))
    arr = real_array(value, "inertias")
    if arr.shape == (n, 6):
        xx, yy, zz, xy, yz, xz = arr.T
        arr = np.stack([np.stack([xx, xy, xz], -1), np.stack([xy, yy, yz], -1), np.stack([xz, yz, zz], -1)], 1)
    elif arr.shape != (n, 3, 3):
        raise InvalidProblemError("inertias", f"must have shape ({n}, 3, 3) or ({n}, 6), got {arr.shape}")
    for i, I in enumerate(arr):
        field = f"inertias[{i}]"
        if not np.isfinite(I).all():
            raise InvalidProblemError(field, "contains NaN or inf")
        scale = max(1.0, float(np.abs(I).max()))
        if np.abs(I - I.T).max() > 1e-12 * scale:
            raise InvalidProblemError(field, "must be symmetric")
        lam = np.linalg.eigvalsh(I).min()
        if lam < -1e-12 * scale:
            raise InvalidProblemError(field, f"must be positive semidefinite, has eigenvalue {lam:.6g}")
    return arr


def _nonnegative(value: Any, field: str, n: int) -> np.ndarray:
    arr = np.zeros(n) if value is None else np.asarray(vector(value, field, n))
    neg = np.flatnonzero(arr < 0)
    if neg.size:
        raise InvalidProblemError(f"{field}[{neg[0]}]", f"must be >= 0, got {arr[neg[0]]}")
    return arr


def _rot_x(a: float) -> pin.SE3:
    c, s = np.cos(a), np.sin(a)
    return pin.SE3(np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]]), np.zeros(3))


def _rot_z(a: float) -> pin.SE3:
    c, s = np.cos(a), np.sin(a)
    return pin.SE3(np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]), np.zeros(3))


def _trans(x: float, y: float, z: float) -> pin.SE3:
    return pin.SE3(np.eye(3), np.array([x, y, z], dtype=float))


# --------------------------------------------------------------------------- shared pinocchio pieces

_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def point_terms(model: pin.Model, data: pin.Data, joint: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 3 x nv world Jacobian of the world point ``x`` taken as fixed to joint ``joint``, and its
    classical bias acceleration ``Jdot qdot`` (``data`` after ``forwardKinematics(q, v, 0)`` and
    ``computeJointJacobians``).  In LOCAL_WORLD_ALIGNED axes neither depends on the orientation of
    the frame at ``x``, so the frame is the joint's axes moved to the point."""
    placement = pin.SE3(np.eye(3), data.oMi[joint].actInv(np.asarray(x, dtype=float)))
    J = np.asarray(pin.getFrameJacobian(model, data, joint, placement, _LWA))[:3].reshape(3, model.nv)
    acc = np.asarray(pin.getFrameClassicalAcceleration(model, data, joint, placement, _LWA).linear)
    return J, acc


def mass_matrix(model: pin.Model, data: pin.Data, q: np.ndarray) -> np.ndarray:
    """``M(q)`` by CRBA, with the lower triangle filled in (CRBA fills the upper one)."""
    M = np.triu(pin.crba(model, data, q))
    M += np.triu(M, 1).T
    return M


# --------------------------------------------------------------------------- the chain


class Manipulator:
    """A serial chain of ``n`` revolute/prismatic joints backed by a pinocchio model.

    Build one with :meth:`from_dh` or :meth:`from_urdf`.  Every method takes
    ``q`` (and ``qdot``) as length-``n`` vectors and validates them.  Dynamics
    follow Buffo–Maciel eq. (9): ``M qdd = tau - g_man - h_man - J^T c``.
    """

    def __init__(
        self,
        model: pin.Model,
        links: Sequence[tuple[int, pin.SE3]],
        tool: tuple[int, pin.SE3],
        name: str,
        joint_types: str,
    ):
        self._model = model
        self._data = model.createData()
        self._links = [(int(j), pin.SE3(M)) for j, M in links]
        self._tool = (int(tool[0]), pin.SE3(tool[1]))
        self._name = str(name)
        self._types = joint_types

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_dh(
        cls,
        dh: Any,
        joint_types: str | Sequence[str] | None = None,
        masses: Any = None,
        coms: Any = None,
        inertias: Any = None,
        base: Any = None,
        tool: Any = None,
        gravity: Any = (0.0, 0.0, -9.81),
        convention: str = "standard",
        name: str = "arm",
        armature: Any = None,
    ) -> Manipulator:
        """A chain from an ``(n, 4)`` DH table of rows ``[theta_offset, d, a, alpha]``.

        ``convention="standard"`` (distal, as in Corke's toolbox):
        ``A_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)``, the joint axis being
        the ``z`` of the previous frame; ``"modified"`` (proximal, Craig):
        ``A_i = Rx(alpha_i) Tx(a_i) Rz(theta_i) Tz(d_i)`` with ``a, alpha`` the
        row's ``a_{i-1}, alpha_{i-1}``.  Joint ``i`` adds ``q_i`` to ``theta_i``
        ('R') or to ``d_i`` ('P'); ``joint_types`` defaults to all revolute.
        ``masses`` (n,), ``coms`` (n, 3) and ``inertias`` about the COM
        ((n, 3, 3) or (n, 6) as ``[Ixx, Iyy, Izz, Ixy, Iyz, Ixz]``) are in the
        link frames; missing ones are zero (a kinematics-only chain).
        ``armature`` (n,) is a reflected rotor inertia added to ``M``'s
        diagonal.  ``base`` places the chain in the world, ``tool`` is the end
        frame relative to the last link frame (4x4 transforms).
        """
        table = np.asarray(matrix(dh, "dh", (None, 4)))
        n = table.shape[0]
        if n == 0:
            raise InvalidProblemError("dh", "must have at least one row")
        types = _joint_types(joint_types, n)
        m = _nonnegative(masses, "masses", n)
        c = np.zeros((n, 3)) if coms is None else np.asarray(matrix(coms, "coms", (n, 3)))
        inertia = _inertias(inertias, n)
        arm = _nonnegative(armature, "armature", n)
        base_M = _transform(base, "base")
        tool_M = _transform(tool, "tool")
        g = vector(gravity, "gravity", 3)
        if not isinstance(convention, str) or convention not in ("standard", "modified"):
            raise InvalidProblemError("convention", f"must be 'standard' or 'modified', got {convention!r}")
        if not isinstance(name, str):
            raise InvalidProblemError("name", f"must be a string, got {type(name).__name__}")

        model = pin.Model()
        model.name = name
        model.gravity = pin.Motion(np.asarray(g, dtype=float).copy(), np.zeros(3))
        links: list[tuple[int, pin.SE3]] = []
        parent, placement = 0, base_M
        for i, (theta, d, a, alpha) in enumerate(table):
            # Joint i moves about/along the z axis of its joint frame; q adds to theta (Rz) or d (Tz),
            # both of which commute with the other z-factor, so the joint can sit between fixed parts.
            if convention == "standard":
                joint_placement, body = placement, _rot_z(theta) * _trans(0, 0, d) * _trans(a, 0, 0) * _rot_x(alpha)
            else:
                joint_placement = placement * _rot_x(alpha) * _trans(a, 0, 0) * _rot_z(theta) * _trans(0, 0, d)
                body = pin.SE3.Identity()
            jmodel = pin.JointModelRZ() if types[i] == "R" else pin.JointModelPZ()
            jid = model.addJoint(parent, jmodel, joint_placement, f"joint{i + 1}")
            model.appendBodyToJoint(jid, pin.Inertia(float(m[i]), c[i].copy(), inertia[i].copy()), body)
            model.addFrame(pin.Frame(f"link{i + 1}", jid, body, pin.FrameType.OP_FRAME))
            links.append((jid, body))
            parent, placement = jid, body
        model.armature = arm.copy()
        last_joint, last_body = links[-1]
        model.addFrame(pin.Frame("tool", last_joint, last_body * tool_M, pin.FrameType.OP_FRAME))
        return cls(model, links, (last_joint, last_body * tool_M), name, types)

    @classmethod
    def from_urdf(
        cls,
        text: str | os.PathLike,
        tip: str | None = None,
        base: Any = None,
        tool: Any = None,
        gravity: Any = (0.0, 0.0, -9.81),
        name: str | None = None,
        armature: Any = None,
    ) -> Manipulator:
        """A chain from a URDF file path or URDF text (``pinocchio.buildModelFromXML``).

        The URDF must describe one serial chain of revolute/prismatic joints
        (continuous and multi-dof joints are rejected); kinematic trees (hands,
        arms with grippers) are scenes: :meth:`contactcp.models.scene.Scene.from_urdf`.  Link ``i`` is the child
        link of the ``i``-th movable joint.  The tool frame is ``tool`` relative
        to the URDF link named ``tip`` (default: the last movable joint's child
        link).  ``base`` is prepended to the root of the chain.
        """
        if isinstance(text, os.PathLike) or (isinstance(text, str) and not text.lstrip().startswith("<")):
            path = Path(text)
            if not path.is_file():
                raise InvalidProblemError("text", f"is neither URDF text nor an existing file: {str(text)[:80]!r}")
            text = path.read_text(encoding="utf-8", errors="replace")
        if not isinstance(text, str):
            raise InvalidProblemError("text", f"must be URDF text or a file path, got {type(text).__name__}")
        try:
            model = pin.buildModelFromXML(text)
        except Exception as exc:  # pinocchio raises ValueError/RuntimeError on bad XML
            raise InvalidProblemError("text", f"could not be parsed as URDF ({exc})") from None
        n = model.njoints - 1
        if n == 0:
            raise InvalidProblemError("text", "the URDF has no movable joint")
        if model.nq != n or model.nv != n:
            raise InvalidProblemError(
                "text",
                "every joint must be a 1-dof revolute or prismatic joint "
                f"(got nq={model.nq}, nv={model.nv} for {n} joints)",
            )
        types = []
        for j in range(1, model.njoints):
            if model.parents[j] != j - 1:
                raise InvalidProblemError(
                    "text",
                    f"joint {model.names[j]!r} breaks the serial chain (a kinematic tree: load it with "
                    "contactcp.models.scene.Scene.from_urdf)",
                )
            short = model.joints[j].shortname()
            if short.startswith("JointModelR") and "UB" not in short:
                types.append("R")
            elif short.startswith("JointModelP") and "lanar" not in short:
                types.append("P")
            else:
                raise InvalidProblemError("text", f"joint {model.names[j]!r} has unsupported type {short}")
        base_M = _transform(base, "base")
        tool_M = _transform(tool, "tool")
        g = vector(gravity, "gravity", 3)
        model.gravity = pin.Motion(np.asarray(g, dtype=float).copy(), np.zeros(3))
        model.jointPlacements[1] = base_M * model.jointPlacements[1]
        model.armature = _nonnegative(armature, "armature", n).copy()
        if tip is None:
            tip_joint, tip_M = n, pin.SE3.Identity()
        else:
            if not model.existFrame(tip):
                raise InvalidProblemError("tip", f"no URDF link or frame named {tip!r}")
            frame = model.frames[model.getFrameId(tip)]
            tip_joint, tip_M = frame.parentJoint, pin.SE3(frame.placement)
        if name is None:
            name = model.name or "arm"
        links = [(j, pin.SE3.Identity()) for j in range(1, n + 1)]
        return cls(model, links, (tip_joint, tip_M * tool_M), name, "".join(types))

    # ------------------------------------------------------------------ properties
    @property
    def n(self) -> int:
        """Number of joints (degrees of freedom)."""
        return self._model.nv

    @property
    def name(self) -> str:
        return self._name

    @property
    def gravity(self) -> np.ndarray:
        """The world-frame gravity acceleration vector (3,)."""
        return np.array(self._model.gravity.linear, dtype=float)

    @property
    def joint_types(self) -> str:
        """One letter per joint: 'R' revolute, 'P' prismatic."""
        return self._types

    @property
    def model(self) -> pin.Model:
        """The underlying ``pinocchio.Model`` (treat as read-only)."""
        return self._model

    def __repr__(self) -> str:
        return f"Manipulator(name={self._name!r}, n={self.n}, joints={self._types!r})"

    # ------------------------------------------------------------------ helpers
    def _q(self, q: Any, field: str = "q") -> np.ndarray:
        return vector(q, field, self.n)

    def _ref(self, link: Any) -> tuple[int, pin.SE3]:
        if isinstance(link, str):
            if link == "tool":
                return self._tool
            raise InvalidProblemError("link", f"must be a joint index or 'tool', got {link!r}")
        if isinstance(link, bool) or not isinstance(link, (int, np.integer)):
            raise InvalidProblemError("link", f"must be an integer index or 'tool', got {type(link).__name__}")
        if link == -1:
            return self._tool
        if not 0 <= link < self.n:
            raise InvalidProblemError("link", f"must lie in 0..{self.n - 1} (or -1/'tool'), got {link}")
        return self._links[int(link)]

    def _point_ref(self, link: Any, point: Any) -> tuple[int, pin.SE3]:
        jid, M = self._ref(link)
        p = vector(point, "point", 3)
        return jid, M * _trans(*p)

    # ------------------------------------------------------------------ dynamics
    def mass_matrix(self, q: Any) -> np.ndarray:
        """The joint-space inertia matrix ``M(q)`` (n x n, symmetric), by CRBA."""
        M = np.array(pin.crba(self._model, self._data, self._q(q)))
        return np.triu(M) + np.triu(M, 1).T

    def gravity_torques(self, q: Any) -> np.ndarray:
        """``g_man(q) = rnea(q, 0, 0)``: the torque holding the arm still (Buffo–Maciel eq. (9))."""
        return np.array(pin.computeGeneralizedGravity(self._model, self._data, self._q(q)))

    def coriolis_torques(self, q: Any, qdot: Any) -> np.ndarray:
        """``h_man(q, qdot) = rnea(q, qdot, 0) - g_man(q)``: Coriolis and centrifugal torques."""
        q, v = self._q(q), self._q(qdot, "qdot")
        return np.array(pin.nonLinearEffects(self._model, self._data, q, v)) - self.gravity_torques(q)

    def forward_dynamics(self, q: Any, qdot: Any, tau: Any) -> np.ndarray:
        """``qdd`` solving ``M qdd = tau - g_man - h_man`` (no contact), by ABA."""
        q, v, t = self._q(q), self._q(qdot, "qdot"), self._q(tau, "tau")
        return np.array(pin.aba(self._model, self._data, q, v, t))

    # ------------------------------------------------------------------ kinematics
    def link_pose(self, q: Any, link: Any = -1) -> np.ndarray:
        """The 4x4 world pose of link frame ``link`` (0-based; -1 or 'tool': the tool frame)."""
        jid, M = self._ref(link)
        pin.forwardKinematics(self._model, self._data, self._q(q))
        return np.array((self._data.oMi[jid] * M).homogeneous)

    def point_position(self, q: Any, link: Any = -1, point: Any = (0.0, 0.0, 0.0)) -> np.ndarray:
        """World position of ``point`` (given in link ``link``'s frame)."""
        jid, M = self._point_ref(link, point)
        pin.forwardKinematics(self._model, self._data, self._q(q))
        return np.array((self._data.oMi[jid] * M).translation)

    def point_jacobian(self, q: Any, link: Any = -1, point: Any = (0.0, 0.0, 0.0)) -> np.ndarray:
        """3 x n Jacobian of the world-frame velocity of ``point`` fixed to ``link`` (point in link frame)."""
        jid, M = self._point_ref(link, point)
        pin.computeJointJacobians(self._model, self._data, self._q(q))
        J = pin.getFrameJacobian(self._model, self._data, jid, M, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        return np.array(J[:3]).reshape(3, self.n)  # eigenpy returns a 6 x 1 Jacobian as a vector

    def point_bias_acceleration(self, q: Any, qdot: Any, link: Any = -1, point: Any = (0.0, 0.0, 0.0)) -> np.ndarray:
        """``Jdot qdot``: the classical world-frame acceleration of the point when ``qdd = 0``."""
        jid, M = self._point_ref(link, point)
        q, v = self._q(q), self._q(qdot, "qdot")
        pin.forwardKinematics(self._model, self._data, q, v, np.zeros(self.n))
        acc = pin.getFrameClassicalAcceleration(self._model, self._data, jid, M, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        return np.array(acc.linear)

    def contact_terms(
        self, q: Any, qdot: Any, tau: Any, points: Sequence[tuple[Any, Any]] = ()
    ) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
        """Everything the contact model needs from one arm state, in one kinematics pass.

        Returns ``(M, f, terms)``: the mass matrix ``M(q)``, the free joint
        force ``f = tau - g_man - h_man`` (Buffo–Maciel eq. (9)) and, for each
        ``(link, x)`` in ``points`` (``x`` a *world* position, taken as fixed to
        the link), the 3 x n world Jacobian of that point and its bias
        acceleration ``Jdot qdot``.  Equal to :meth:`mass_matrix`,
        ``tau - gravity_torques - coriolis_torques``, :meth:`point_jacobian` and
        :meth:`point_bias_acceleration`, but with one forward-kinematics pass
        and one input check instead of one per call (the grasp is assembled
        this way on every solve).
        """
        q, v, t = self._q(q), self._q(qdot, "qdot"), self._q(tau, "tau")
        model, data = self._model, self._data
        terms = []
        if points:
            pin.forwardKinematics(model, data, q, v, np.zeros(self.n))
            pin.computeJointJacobians(model, data)
            for link, x in points:
                terms.append(point_terms(model, data, self._ref(link)[0], vector(x, "point", 3)))
        Mq = mass_matrix(model, data, q)
        f = t - np.array(pin.nonLinearEffects(model, data, q, v))
        return Mq, f, terms

    def inverse_kinematics(
        self,
        target: Any,
        link: Any = -1,
        point: Any = (0.0, 0.0, 0.0),
        q0: Any = None,
        tol: float = 1e-10,
        max_iter: int = 200,
    ) -> np.ndarray:
        """Joint values putting ``point`` (in link ``link``'s frame) at the world position ``target``.

        Damped least squares, ``dq = J^T (J J^T + lambda^2 I)^{-1} e`` with
        ``lambda^2 = |e|^2 / 2 + 1e-12`` (the damping vanishes at a solution, so
        convergence is fast near one; it keeps steps bounded near singularities).
        Steps are capped at 0.5 in norm.  Raises :class:`InverseKinematicsError`
        if ``|e| <= tol`` is not reached in ``max_iter`` iterations (e.g. for an
        unreachable target).  Only the position is matched; with ``n > 3`` the
        remaining freedom is left where the iteration puts it.
        """
        x = np.asarray(vector(target, "target", 3))
        jid, M = self._point_ref(link, point)
        q = np.zeros(self.n) if q0 is None else np.array(self._q(q0, "q0"))
        if not (isinstance(tol, (int, float)) and tol > 0):
            raise InvalidProblemError("tol", f"must be a positive number, got {tol!r}")
        model, data = self._model, self._data
        best_q, best_err = q.copy(), np.inf
        for _ in range(int(max_iter) + 1):
            pin.computeJointJacobians(model, data, q)  # also runs forward kinematics
            e = x - (data.oMi[jid] * M).translation
            err = float(np.linalg.norm(e))
            if err < best_err:
                best_q, best_err = q.copy(), err
            if err <= tol:
                return q
            J = pin.getFrameJacobian(model, data, jid, M, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)[:3]
            dq = J.T @ np.linalg.solve(J @ J.T + (0.5 * err * err + 1e-12) * np.eye(3), e)
            step = np.linalg.norm(dq)
            if step > 0.5:
                dq *= 0.5 / step
            q = q + dq
        raise InverseKinematicsError(
            f"inverse kinematics did not converge in {max_iter} iterations: closest distance to the "
            f"target {best_err:.3g} > tol {tol:g} (target unreachable, or try another q0)",
            best_q,
            best_err,
        )

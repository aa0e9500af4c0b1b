"""Objects, manipulators and contacts assembled into the map ``a = A c + b``.

Generalised velocities ``V = (twists of the objects, joint velocities of the
arms)``.  With the contact forces ``c`` (per contact ``(c_n, c_t, c_o)`` in
the contact frame) the equations of motion (Buffo–Maciel (7), (9)) read

    ``M dV/dt = f + H c``,    ``f = (g_obj + h_obj ; tau - g_man - h_man)``,

where the columns of ``H`` for contact ``j`` are ``W_ij = [C; [r]_x C]`` on the
object (eq. (5)), ``-W`` on a second object and ``-J^T C`` on a manipulator
(``J`` the linear-velocity Jacobian of the contact point on the link).  The
relative velocity in the contact frame is ``v = H^T V`` (eq. (10)) and the
relative acceleration (eq. (11))

    ``a = H^T dV/dt + k = A c + b``,  ``A = H^T M^-1 H``,  ``b = H^T M^-1 f + k``

(eqs. (21)–(24)); ``k`` holds the velocity-product terms ``dW/dt qdot -
dJ/dt thetadot``: the centripetal accelerations ``omega x (omega x r)`` of
object points and ``dJ/dt thetadot`` of link points, expressed in the contact
frame, which is taken as fixed in the world at this instant (curvature terms of
the contact kinematics are not modelled).

A planar system keeps ``(v_x, v_y, omega_z)`` of each object and the normal
and one tangent per contact (the plane is ``z = 0``; default tangent
``t = z x n``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla

from contactcp._validate import check_memory, vector
from contactcp.errors import InvalidProblemError
from contactcp.models.bodies import RigidBody
from contactcp.models.contacts import Body, Contact, Link, contact_frame, cross3

__all__ = ["Arm", "MultibodySystem", "ContactDynamics", "dense_bytes"]


@dataclass(frozen=True)
class Arm:
    """A manipulator (see :mod:`contactcp.models.manipulator`) in a given state."""

    manipulator: Any
    q: Any
    qdot: Any = None
    tau: Any = None

    def __post_init__(self) -> None:
        n = self.manipulator.n
        name = getattr(self.manipulator, "name", "arm")
        s = object.__setattr__
        s(self, "q", vector(self.q, f"{name}.q", n))
        s(self, "qdot", np.zeros(n) if self.qdot is None else vector(self.qdot, f"{name}.qdot", n))
        s(self, "tau", np.zeros(n) if self.tau is None else vector(self.tau, f"{name}.tau", n))


def skew(r: np.ndarray) -> np.ndarray:
    """The cross-product matrix: ``skew(r) @ x = r x x``."""
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])


@dataclass
class ContactDynamics:
    """``a = A c + b`` with everything needed to interpret a solution.

    ``A``, ``b`` are ordered contact by contact (``(n, t, o)`` or ``(n, t)``);
    ``sliding[i]`` says whether contact ``i`` slides, with tangential relative
    velocity ``v_t[i]``.  ``H``, ``M``, ``f``, ``k`` reproduce the equations of
    motion so that answers can be checked against them directly.
    """

    A: np.ndarray
    b: np.ndarray
    mu: np.ndarray
    dim: int
    sliding: np.ndarray
    v_t: np.ndarray
    H: np.ndarray
    M: np.ndarray
    f: np.ndarray
    k: np.ndarray
    names: list[str] = field(default_factory=list)
    #: Cholesky factor of ``M`` (``scipy.linalg.cho_factor``), kept from the assembly;
    #: not an init field, so ``dataclasses.replace`` with a new ``M`` does not carry it over
    cho_M: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def n_c(self) -> int:
        return self.mu.shape[0]

    def sliding_friction(self, j: int) -> np.ndarray:
        """``mu~_j = -mu_j v_T / ||v_T||``: a sliding contact's friction per unit normal force
        (Buffo–Maciel (19), (28); Yashima–Yamaguchi (5))."""
        return -self.mu[j] * self.v_t[j] / np.linalg.norm(self.v_t[j])

    @classmethod
    def assemble(
        cls,
        H: np.ndarray,
        M: np.ndarray,
        f: np.ndarray,
        k: np.ndarray,
        mu: np.ndarray,
        dim: int,
        sliding: np.ndarray,
        v_t: np.ndarray,
        names: list[str],
        why: Any = None,
    ) -> ContactDynamics:
        """``A = H^T M^-1 H`` (symmetrised) and ``b = H^T M^-1 f + k`` (Buffo–Maciel (21)–(24)) from
        the equations of motion, with the Cholesky factor of ``M`` kept.  A mass matrix that is not
        positive definite raises InvalidProblemError naming ``mass matrix``, with ``why()`` (if given)
        appended to the message."""
        try:
            L = sla.cho_factor(M)
        except (np.linalg.LinAlgError, ValueError):
            reason = why() if why is not None else ""
            raise InvalidProblemError("mass matrix", f"is singular or not positive definite{reason}") from None
        MiHf = sla.cho_solve(L, np.column_stack([H, f]), check_finite=False)
        A = H.T @ MiHf[:, :-1]
        A = 0.5 * (A + A.T)
        b = H.T @ MiHf[:, -1] + k
        cd = cls(A, b, mu, dim, sliding, v_t, H, M, f, k, names)
        cd.cho_M = L
        return cd

    def accelerations(self, c: np.ndarray) -> np.ndarray:
        """``dV/dt = M^-1 (f + H c)`` (with the Cholesky factor of ``M``; the check of the
        equations of motion multiplies by ``M`` itself, so it does not rely on the factor)."""
        if self.cho_M is None:
            self.cho_M = sla.cho_factor(self.M)
        return sla.cho_solve(self.cho_M, self.f + self.H @ c, check_finite=False)


def dense_bytes(n_dof: int, n_c: int, dim: int = 3) -> int:
    """Bytes of the dense arrays that assembling ``a = A c + b`` and solving its contact problem need,
    at least: ``M`` and its Cholesky factor, ``H`` and ``M^-1 H``, ``A`` (three copies) and the
    friction-pyramid LCP (up to ``(2 dim - 1) n_c`` unknowns: its matrix, the maps to forces and
    Lemke's tableau, about four such matrices)."""
    m = dim * n_c
    nz = (2 * dim - 1) * n_c
    return 8 * (2 * n_dof * n_dof + 2 * n_dof * m + 3 * m * m + 4 * nz * nz)


def check_size(n_dof: int, n_c: int, dim: int, field: str, what: str) -> None:
    """Refuse (InvalidProblemError naming ``field``) a system whose dense arrays cannot fit in memory."""
    check_memory(dense_bytes(n_dof, n_c, dim), field, what)


class MultibodySystem:
    """Objects, arms and contacts; :meth:`dynamics` builds ``a = A c + b``.

    Parameters
    ----------
    bodies : sequence of :class:`RigidBody`
    contacts : sequence of :class:`Contact`
    arms : sequence of :class:`Arm`
    planar : keep the motion in the plane ``z = 0`` (3 DOF per object, one tangent)
    """

    def __init__(
        self, bodies: Sequence[RigidBody], contacts: Sequence[Contact], arms: Sequence[Arm] = (), planar: bool = False
    ):
        self.bodies = list(bodies)
        self.arms = list(arms)
        self.contacts = list(contacts)
        self.planar = bool(planar)
        if not self.contacts:
            raise InvalidProblemError("contacts", "at least one contact is needed")
        nb = len(self.bodies)
        for j, c in enumerate(self.contacts):
            label = c.name or f"contacts[{j}]"
            if not 0 <= c.body < nb:
                raise InvalidProblemError(f"{label}.body", f"index {c.body} out of range (0..{nb - 1})")
            if isinstance(c.other, Body) and not (0 <= c.other.index < nb and c.other.index != c.body):
                raise InvalidProblemError(f"{label}.other", f"body index {c.other.index} invalid")
            if isinstance(c.other, Link):
                if not 0 <= c.other.arm < len(self.arms):
                    raise InvalidProblemError(f"{label}.other", f"arm index {c.other.arm} out of range")
                if not 0 <= c.other.link < self.arms[c.other.arm].manipulator.n:
                    raise InvalidProblemError(f"{label}.other", f"link index {c.other.link} out of range")
            if self.planar and (abs(c.normal[2]) > 1e-9 or abs(c.point[2]) > 1e-9):
                raise InvalidProblemError(f"{label}.normal", "a planar system needs normals and points in z = 0")
        self.dim = 2 if self.planar else 3
        self._bdof = 3 if self.planar else 6
        self._arm_offsets = np.cumsum([0] + [a.manipulator.n for a in self.arms])
        self.n_dof = nb * self._bdof + int(self._arm_offsets[-1])

    # -- generalised coordinates -------------------------------------------------
    def _body_sel(self) -> np.ndarray:
        return np.array([0, 1, 5]) if self.planar else np.arange(6)

    def _frame(self, c: Contact) -> np.ndarray:
        if self.planar:
            t = cross3([0.0, 0.0, 1.0], c.normal) if c.tangent is None else c.tangent
            return contact_frame(c.normal, t)[:, :2]
        return c.frame

    def velocities(self) -> np.ndarray:
        sel = self._body_sel()
        parts = [b.twist[sel] for b in self.bodies] + [a.qdot for a in self.arms]
        return np.concatenate(parts)

    def _arm_terms(self) -> list[tuple[np.ndarray, np.ndarray, dict[int, tuple[np.ndarray, np.ndarray]]]]:
        """Per arm ``(M_man, tau - g_man - h_man, {contact j: (J, Jdot thetadot)})`` from one
        kinematics pass (:meth:`Manipulator.contact_terms`)."""
        out = []
        for a, arm in enumerate(self.arms):
            idx = [j for j, c in enumerate(self.contacts) if isinstance(c.other, Link) and c.other.arm == a]
            M, f, terms = arm.manipulator.contact_terms(
                arm.q, arm.qdot, arm.tau, [(self.contacts[j].other.link, self.contacts[j].point) for j in idx]
            )
            out.append((np.asarray(M), np.asarray(f), dict(zip(idx, terms))))
        return out

    def mass_matrix(self, _arm_terms: list | None = None) -> np.ndarray:
        """The block-diagonal generalised mass matrix (objects, then arms)."""
        arm_terms = self._arm_terms() if _arm_terms is None else _arm_terms
        sel = self._body_sel()
        blocks = [b.mass_matrix()[np.ix_(sel, sel)] for b in self.bodies] + [t[0] for t in arm_terms]
        M = np.zeros((self.n_dof, self.n_dof))
        k = 0
        for B in blocks:
            m = B.shape[0]
            M[k : k + m, k : k + m] = B
            k += m
        return M

    def forces(self, _arm_terms: list | None = None) -> np.ndarray:
        """``f = (g_obj + h_obj ; tau - g_man - h_man)`` (Buffo–Maciel (7), (9))."""
        arm_terms = self._arm_terms() if _arm_terms is None else _arm_terms
        sel = self._body_sel()
        parts = [(b.external_wrench + b.velocity_product())[sel] for b in self.bodies] + [t[1] for t in arm_terms]
        return np.concatenate(parts)

    def contact_jacobian(self, _arm_terms: list | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``H`` (n_dof x d n_c) and the velocity-product accelerations ``k`` (d n_c)."""
        arm_terms = self._arm_terms() if _arm_terms is None else _arm_terms
        d, bd = self.dim, self._bdof
        sel = self._body_sel()
        H = np.zeros((self.n_dof, d * len(self.contacts)))
        k = np.zeros(d * len(self.contacts))
        for j, c in enumerate(self.contacts):
            C = self._frame(c)
            cols = slice(d * j, d * j + d)
            body = self.bodies[c.body]
            r = c.point - body.p
            Wfull = np.vstack([C, skew(r) @ C])
            H[c.body * bd : (c.body + 1) * bd, cols] += Wfull[sel]
            acc = cross3(body.omega, cross3(body.omega, r))
            if isinstance(c.other, Body):
                ob = self.bodies[c.other.index]
                ro = c.point - ob.p
                H[c.other.index * bd : (c.other.index + 1) * bd, cols] -= np.vstack([C, skew(ro) @ C])[sel]
                acc = acc - cross3(ob.omega, cross3(ob.omega, ro))
            elif isinstance(c.other, Link):
                J, bias = arm_terms[c.other.arm][2][j]
                off = len(self.bodies) * bd + int(self._arm_offsets[c.other.arm])
                H[off : off + J.shape[1], cols] -= J.T @ C
                acc = acc - bias
            k[cols] = C.T @ acc
        return H, k

    def dynamics(self) -> ContactDynamics:
        """Assemble ``a = A c + b`` (Buffo–Maciel (21)–(24))."""
        check_size(
            self.n_dof,
            len(self.contacts),
            self.dim,
            "contacts",
            f"a system of {len(self.contacts)} contacts and {self.n_dof} degrees of freedom",
        )
        arm_terms = self._arm_terms()
        H, k = self.contact_jacobian(arm_terms)
        M = self.mass_matrix(arm_terms)
        f = self.forces(arm_terms)
        d = self.dim
        v = (H.T @ self.velocities()).reshape(-1, d)
        mu = np.array([c.mu for c in self.contacts])
        sliding = np.array([c.state == "sliding" for c in self.contacts])
        v_t = np.zeros((len(self.contacts), d - 1))
        for j, c in enumerate(self.contacts):
            if c.state != "sliding":
                continue
            vt = v[j, 1:] if c.v_t is None else c.v_t
            if vt.size != d - 1:
                raise InvalidProblemError(f"{c.name or f'contacts[{j}]'}.v_t", f"needs {d - 1} component(s)")
            if not np.linalg.norm(vt) > 0:
                raise InvalidProblemError(
                    f"{c.name or f'contacts[{j}]'}.v_t", "a sliding contact needs a nonzero tangential velocity"
                )
            v_t[j] = vt
        names = [c.name or f"C{j + 1}" for j, c in enumerate(self.contacts)]
        return ContactDynamics.assemble(H, M, f, k, mu, d, sliding, v_t, names)

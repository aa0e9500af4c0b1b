"""The planar quasistatic contact model of Pang, Trinkle & Lo (1994), Section 2.

A passive workpiece (``n_q = 3`` velocity components: x, y, rotation about z,
at the world origin) touches active bodies at ``n_c`` frictional point
contacts.  Contact ``i`` has an inward normal ``n_i`` and a tangent ``t_i`` with
``n_i x t_i`` out of the plane.  Joints in ``alpha`` are velocity controlled
(``theta_dot`` given); the others are effort controlled (``tau`` given).  The
unknowns are ``c_n, c_t, v_n, v_t, qdot`` and the unknown halves of
``theta_dot`` and ``tau``; they satisfy eqs. (2)-(10).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from contactcp._validate import index_mask, matrix, real_array, vector
from contactcp.errors import InvalidProblemError

__all__ = ["PlanarQuasistaticProblem", "planar_wrench", "prismatic_fingers", "revolute_chain_jacobian"]

_NORMAL_TOL = 1e-6


def _cross2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The paper's ``a ⊗ b = a_1 b_2 - a_2 b_1`` (row-wise for arrays of 2-vectors)."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def planar_wrench(points: Any, normals: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``W_n, W_t`` (each ``3 x n_c``) of eq. (1), and the tangents ``t_i = (-n_iy, n_ix)``.

    ``w_in = [n_i; r_i ⊗ n_i]``, ``w_it = [t_i; r_i ⊗ t_i]``; the tangent makes
    ``n_i ⊗ t_i = +1`` (out of the plane).  Normals must be unit vectors.
    """
    r = np.asarray(matrix(points, "points", (None, 2)))
    n = np.asarray(matrix(normals, "normals", (r.shape[0], 2)))
    norms = np.linalg.norm(n, axis=1)
    bad = np.flatnonzero(np.abs(norms - 1.0) > _NORMAL_TOL)
    if bad.size:
        raise InvalidProblemError(f"normals[{bad[0]}]", f"must be a unit vector, has length {norms[bad[0]]:.6g}")
    t = np.column_stack([-n[:, 1], n[:, 0]])
    W_n = np.vstack([n.T, _cross2(r, n)])
    W_t = np.vstack([t.T, _cross2(r, t)])
    return W_n, W_t, t


def prismatic_fingers(normals: Any) -> tuple[np.ndarray, np.ndarray]:
    """``J_n, J_t`` of point fingers, one per contact, each with a prismatic joint along
    ``n_i`` (joint ``2i``) and one along ``t_i`` (joint ``2i+1``), as in the paper's
    random problems: the finger point moves with ``theta_dot_2i n_i + theta_dot_2i+1 t_i``.
    """
    n_c = np.asarray(normals).shape[0]
    J_n = np.zeros((n_c, 2 * n_c))
    J_t = np.zeros((n_c, 2 * n_c))
    J_n[np.arange(n_c), 2 * np.arange(n_c)] = 1.0
    J_t[np.arange(n_c), 2 * np.arange(n_c) + 1] = 1.0
    return J_n, J_t


def revolute_chain_jacobian(
    base: Any, lengths: Any, angles: Any, link: int, point: Any, normal: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``J_n`` and ``J_t`` for a contact on link ``link`` of a planar revolute chain.

    The chain starts at ``base``; joint ``j`` rotates link ``j`` (absolute angle
    ``sum(angles[:j+1])``).  The velocity of the material point at ``point`` on
    link ``link`` is ``sum_{j<=link} theta_dot_j z x (point - o_j)``, with ``o_j``
    the position of joint ``j``; its components along ``n`` and ``t`` are the rows.
    """
    base = vector(base, "base", 2)
    L = vector(lengths, "lengths")
    q = vector(angles, "angles", L.size)
    p = vector(point, "point", 2)
    nrm = vector(normal, "normal", 2)
    if not 0 <= link < L.size:
        raise InvalidProblemError("link", f"must lie in 0..{L.size - 1}, got {link}")
    t = np.array([-nrm[1], nrm[0]])
    origins = [np.array(base)]
    phi = 0.0
    for j in range(L.size - 1):
        phi += q[j]
        origins.append(origins[-1] + L[j] * np.array([np.cos(phi), np.sin(phi)]))
    jn = np.zeros(L.size)
    jt = np.zeros(L.size)
    for j in range(link + 1):
        r = p - origins[j]
        v = np.array([-r[1], r[0]])  # z x r
        jn[j] = nrm @ v
        jt[j] = t @ v
    return jn, jt


class PlanarQuasistaticProblem:
    """A workpiece in quasistatic frictional contact with position/effort-controlled joints.

    Build it with :meth:`from_paper` (the paper's data form) or
    :meth:`from_geometry`.  Attributes use the paper's notation: ``W_n, W_t``
    (``n_q x n_c``), ``J_n, J_t`` (``n_c x n_theta``), ``theta_dot``, ``mu``,
    ``alpha`` (boolean mask of velocity-controlled joints), ``g_obj`` and
    ``gman_minus_tau`` (``g_man - tau``, used on the effort-controlled joints).
    """

    def __init__(
        self,
        W_n: Any,
        W_t: Any,
        J_n: Any,
        J_t: Any,
        theta_dot: Any,
        mu: Any,
        g_obj: Any,
        alpha: Any = None,
        gman_minus_tau: Any = None,
        *,
        points: Any = None,
        name: str = "",
    ):
        self.W_n = matrix(W_n, "W_n")
        n_q, n_c = self.W_n.shape
        self.W_t = matrix(W_t, "W_t", (n_q, n_c))
        self.J_n = matrix(J_n, "J_n", (n_c, None))
        n_th = self.J_n.shape[1]
        self.J_t = matrix(J_t, "J_t", (n_c, n_th))
        self.mu = vector(mu, "mu", n_c)
        neg = np.flatnonzero(self.mu < 0)
        if neg.size:
            raise InvalidProblemError(f"mu[{neg[0]}]", f"friction coefficients must be >= 0, got {self.mu[neg[0]]}")
        self.g_obj = vector(g_obj, "g_obj", n_q)
        self.alpha = index_mask(np.arange(n_th) if alpha is None else alpha, "alpha", n_th)
        # entries outside alpha (effort-controlled joints) are unknown: stored as 0 and never used
        self.theta_dot = vector(np.where(self.alpha, _length(theta_dot, "theta_dot", n_th), 0.0), "theta_dot")
        if gman_minus_tau is None:
            if (~self.alpha).any():
                raise InvalidProblemError("gman_minus_tau", "needed for the effort-controlled joints (not in alpha)")
            gm = np.zeros(n_th)
        else:
            gm = np.where(~self.alpha, _length(gman_minus_tau, "gman_minus_tau", n_th), 0.0)
        self.gman_minus_tau = vector(gm, "gman_minus_tau")
        self.points = None if points is None else matrix(points, "points", (n_c, 2))
        self.name = name

    # ---- sizes ----
    @property
    def n_c(self) -> int:
        return self.W_n.shape[1]

    @property
    def n_q(self) -> int:
        return self.W_n.shape[0]

    @property
    def n_theta(self) -> int:
        return self.J_n.shape[1]

    @property
    def abar(self) -> np.ndarray:
        """Indices of the effort-controlled joints."""
        return np.flatnonzero(~self.alpha)

    @property
    def P(self) -> np.ndarray:
        """``P = [W^T  J_abar]`` (rows: normals then tangents)."""
        WT = np.vstack([self.W_n.T, self.W_t.T])
        J = np.vstack([self.J_n, self.J_t])
        return np.hstack([WT, J[:, self.abar]])

    @property
    def d(self) -> np.ndarray:
        """``d = [0; g_obj; (g_man - tau)_abar]``."""
        return np.concatenate([np.zeros(self.n_c), self.g_obj, self.gman_minus_tau[self.abar]])

    # ---- builders ----
    @classmethod
    def from_paper(
        cls, P: Any, J_n: Any, J_t: Any, theta_dot: Any, d: Any, mu: Any, alpha: Any = None, name: str = ""
    ) -> PlanarQuasistaticProblem:
        """The paper's data form (Section 5): ``P = [W^T J_abar]``, ``d = [0; g_obj; (g_man - tau)_abar]``.

        ``alpha``: 0-based indices (or a mask) of the velocity-controlled joints,
        default all; entries of ``theta_dot`` outside ``alpha`` are ignored.
        """
        J_n = matrix(J_n, "J_n")
        n_c, n_th = J_n.shape
        J_t = matrix(J_t, "J_t", (n_c, n_th))
        a = index_mask(np.arange(n_th) if alpha is None else alpha, "alpha", n_th)
        abar = np.flatnonzero(~a)
        P = matrix(P, "P", (2 * n_c, None))
        n_q = P.shape[1] - abar.size
        if n_q < 1:
            raise InvalidProblemError(
                "P",
                f"has {P.shape[1]} columns but there are {abar.size} effort-controlled "
                "joints; P must have n_q + |abar| columns",
            )
        J = np.vstack([J_n, J_t])
        scale = max(1.0, float(np.abs(J).max(initial=0)))
        if abar.size and np.abs(P[:, n_q:] - J[:, abar]).max() > 1e-9 * scale:
            raise InvalidProblemError("P", "columns after W^T must equal the columns abar of [J_n; J_t]")
        d = vector(d, "d", n_c + n_q + abar.size)
        if np.abs(d[:n_c]).max(initial=0) > 0:
            raise InvalidProblemError("d", f"the first n_c = {n_c} entries (friction rows) must be zero")
        gm = np.zeros(n_th)
        gm[abar] = d[n_c + n_q :]
        return cls(
            P[:n_c, :n_q].T,
            P[n_c:, :n_q].T,
            J_n,
            J_t,
            theta_dot,
            mu,
            d[n_c : n_c + n_q],
            a,
            gm if abar.size else None,
            points=_points_from_wrench(P[:n_c, :n_q].T, P[n_c:, :n_q].T),
            name=name,
        )

    @classmethod
    def from_geometry(
        cls,
        points: Any,
        normals: Any,
        mu: Any,
        g_obj: Any,
        J_n: Any = None,
        J_t: Any = None,
        theta_dot: Any = None,
        alpha: Any = None,
        tau: Any = None,
        g_man: Any = None,
        name: str = "",
    ) -> PlanarQuasistaticProblem:
        """From contact geometry: points ``r_i`` and inward unit normals ``n_i`` (world frame,
        origin at the workpiece's reference point), friction, external wrench ``g_obj``
        and the manipulator Jacobians (default: :func:`prismatic_fingers`)."""
        W_n, W_t, _ = planar_wrench(points, normals)
        if J_n is None and J_t is None:
            J_n, J_t = prismatic_fingers(np.asarray(normals))
        elif J_n is None or J_t is None:
            raise InvalidProblemError("J_n" if J_n is None else "J_t", "give both J_n and J_t, or neither")
        n_th = np.shape(J_n)[1]
        a = index_mask(np.arange(n_th) if alpha is None else alpha, "alpha", n_th)
        if theta_dot is None:
            if a.any():
                raise InvalidProblemError("theta_dot", "needed for the velocity-controlled joints (alpha)")
            theta_dot = np.zeros(n_th)
        gm = None
        if (~a).any():
            if tau is None:
                raise InvalidProblemError("tau", "needed for the effort-controlled joints (not in alpha)")
            tau_v = vector(tau, "tau", n_th)
            gman = np.zeros(n_th) if g_man is None else vector(g_man, "g_man", n_th)
            gm = gman - tau_v
        return cls(W_n, W_t, J_n, J_t, theta_dot, mu, g_obj, a, gm, points=points, name=name)

    def to_dict(self) -> dict[str, Any]:
        """The paper form, JSON-ready (``alpha`` 0-based)."""
        return {
            "P": self.P.tolist(),
            "J_n": self.J_n.tolist(),
            "J_t": self.J_t.tolist(),
            "theta_dot": self.theta_dot.tolist(),
            "d": self.d.tolist(),
            "mu": self.mu.tolist(),
            "alpha": np.flatnonzero(self.alpha).tolist(),
        }

    def with_mu(self, mu: Any) -> PlanarQuasistaticProblem:
        """The same problem with other friction coefficients."""
        return PlanarQuasistaticProblem(
            self.W_n,
            self.W_t,
            self.J_n,
            self.J_t,
            self.theta_dot,
            mu,
            self.g_obj,
            self.alpha,
            self.gman_minus_tau if (~self.alpha).any() else None,
            points=self.points,
            name=self.name,
        )

    def __repr__(self) -> str:
        return (
            f"PlanarQuasistaticProblem({self.name + ', ' if self.name else ''}n_c={self.n_c}, "
            f"n_q={self.n_q}, n_theta={self.n_theta}, |alpha|={int(self.alpha.sum())})"
        )


def _length(value: Any, field: str, n: int) -> np.ndarray:
    """A float vector of length n (NaN allowed here; callers mask the unused entries)."""
    arr = real_array(value, field).reshape(-1)
    if arr.size != n:
        raise InvalidProblemError(field, f"must have length n_theta = {n}, got {arr.size}")
    return arr


def _points_from_wrench(W_n: np.ndarray, W_t: np.ndarray) -> np.ndarray | None:
    """Contact points from the wrench columns: ``r ⊗ n = a`` and ``r ⊗ t = b`` fix ``r``.

    Returns None when the first two rows are not unit directions (not a planar
    wrench of eq. (1)).
    """
    if W_n.shape[0] != 3:
        return None
    pts = []
    for i in range(W_n.shape[1]):
        n, t = W_n[:2, i], W_t[:2, i]
        A = np.array([[n[1], -n[0]], [t[1], -t[0]]])
        if abs(np.linalg.det(A)) < 1e-9:
            return None
        pts.append(np.linalg.solve(A, [W_n[2, i], W_t[2, i]]))
    return np.array(pts)

"""Buffo & Maciel's mixed nonlinear complementarity problem of a contact state (eqs. (25)–(36), (45)).

With rolling contacts ``R`` and sliding contacts ``S`` (sliding friction already
substituted, eqs. (25)–(28): ``Ã`` = :func:`~contactcp.formulations.dynamic_cone.sliding_substituted`),
the unknowns are, exactly as in eq. (31) (for a planar system drop the ``o`` parts),

* ``u = (c_Sn, c_Rn, lambda) >= 0`` — normal forces and ``lambda_j = ||a_jT||`` (eq. (30));
* ``v = (c_Rt, c_Ro, a_Rt, a_Ro)`` — free: rolling friction forces and tangential accelerations;
* ``z = (a_Sn, a_Rn, s) = F(u, v) >= 0`` — normal accelerations and
  ``s_j = mu_j^2 c_jn^2 - c_jt^2 - c_jo^2`` (eq. (29)),

with ``u . z = 0`` and ``G(u, v) = 0``:

* ``F = ([A_1 A_2] (c_N, c_RT) + b_N ;  mu^2 c_Rn^2 - c_Rt^2 - c_Ro^2)``      (eqs. (29), (32))
* ``G_1 = mu c_Rn a_Rt + c_Rt lambda``, ``G_2 = mu c_Rn a_Ro + c_Ro lambda``  (eqs. (34), (35))
* ``G_3 = a_RT - [A_3 A_4] (c_N, c_RT) - b_RT``                               (eq. (36))

``lambda s = 0`` makes a contact either stay inside the cone with ``a_T = 0``
(``lambda = 0`` and, when loaded, ``G_1 = G_2 = 0`` force ``a_T = 0``) or slide
on the cone's boundary with friction opposing ``a_T`` (then ``lambda = ||a_T||``).
A rolling contact with ``mu = 0`` makes the formulation degenerate: ``s = -c_T^2``
forces ``c_T = 0``, after which ``G_1 = G_2 = 0`` and ``lambda s = 0`` hold for
every ``a_T`` and ``lambda``, so ``lambda = ||a_T||`` is no longer enforced; the
merit method then ends without a certified answer (``INACCURATE``) and the
cone solvers (``friction="cone"``) should be used for such a state.
With only sliding contacts the problem is the LCP of eq. (45):
``a_n = Ã_nn c_n + b_n``, ``0 <= c_n ⟂ a_n >= 0``.

Units.  F and G mix accelerations, forces squared and their products, whose
sizes differ by orders of magnitude (forces of 20 N give ``s`` of 400 N^2), and
the merit function (4) sums their squares.  The problem is therefore stated in
dimensionless units: forces in ``c0 = max|b| / max diag A`` (the force that
cancels the free acceleration), accelerations and ``lambda`` in ``a0 = max|b|``,
each row of F and G divided by its unit (``a0``, ``c0^2``, ``c0 a0``, ``a0``).
The variables and equations are the paper's; only the units change, which
keeps the complementarity pairs (a positive scaling of both members) and makes
the merit landscape well conditioned (from x0 = 0 the trust-region backend
went from 28-659 iterations and a stall at mu = 0.6 to 28-58 iterations on the
paper's cases).  :meth:`BuffoMNCP.unpack` and :meth:`BuffoMNCP.forces` return
SI values, and every answer is checked again against the original conditions
by :func:`contactcp.interpret.dynamic.check_dynamic`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contactcp.errors import InvalidProblemError
from contactcp.formulations.dynamic_cone import sliding_substituted
from contactcp.models.system import ContactDynamics
from contactcp.problems import LCP, MixedNCP

__all__ = ["BuffoMNCP", "buffo_mncp", "sliding_lcp"]


@dataclass
class BuffoMNCP:
    """The mixed NCP (or, without rolling contacts, the LCP (45)) and how to read its answer."""

    problem: MixedNCP | LCP
    cd: ContactDynamics
    S: np.ndarray  #: indices of the sliding contacts
    R: np.ndarray  #: indices of the rolling contacts
    A1: np.ndarray
    A2: np.ndarray
    A3: np.ndarray
    A4: np.ndarray
    b_N: np.ndarray
    b_T: np.ndarray
    x_unit: np.ndarray | None = None  #: SI value of one unit of each variable (None: the LCP, in SI)
    check_law: str = "cone"

    def physical(self, x: np.ndarray) -> np.ndarray:
        """The problem's variables in SI units."""
        x = np.asarray(x, dtype=float)
        return x if self.x_unit is None else x * self.x_unit

    @property
    def n_t(self) -> int:
        """Tangent directions per contact (2 in space, 1 in the plane)."""
        return self.cd.dim - 1

    def unpack(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """The named blocks of eq. (31): ``c_Sn, c_Rn, lambda, c_RT (n_R x n_t), a_RT, a_Sn, a_Rn, s``."""
        x = self.physical(x)
        nS, nR, nt = self.S.size, self.R.size, self.n_t
        c_N = x[: nS + nR]
        lam = x[nS + nR : nS + 2 * nR]
        off = nS + 2 * nR
        c_RT = x[off : off + nt * nR].reshape(nt, nR).T
        a_RT = x[off + nt * nR : off + 2 * nt * nR].reshape(nt, nR).T
        a_N = self.A1 @ c_N + self.A2 @ c_RT.T.reshape(-1) + self.b_N
        s = self.cd.mu[self.R] ** 2 * c_N[nS:] ** 2 - (c_RT**2).sum(axis=1)
        return {
            "c_Sn": c_N[:nS],
            "c_Rn": c_N[nS:],
            "lambda": lam,
            "c_RT": c_RT,
            "a_RT": a_RT,
            "a_Sn": a_N[:nS],
            "a_Rn": a_N[nS:],
            "s": s,
        }

    def forces(self, x: np.ndarray) -> np.ndarray:
        """All contact forces, contact by contact ``(c_n, c_t[, c_o])``; sliding friction from eq. (19)."""
        cd, d = self.cd, self.cd.dim
        blocks = self.unpack(x)
        c = np.zeros((cd.n_c, d))
        c[self.S, 0] = blocks["c_Sn"]
        for i, j in enumerate(self.S):
            c[j, 1:] = cd.sliding_friction(j) * blocks["c_Sn"][i]
        c[self.R, 0] = blocks["c_Rn"]
        c[self.R, 1:] = blocks["c_RT"]
        return c.reshape(-1)


def _partition(cd: ContactDynamics):
    """Rows of ``Ã`` for the normals (S first, then R) and the rolling tangents (t block, o block)."""
    d = cd.dim
    keep = [(j, k) for j in range(cd.n_c) for k in range(d) if k == 0 or not cd.sliding[j]]
    pos = {jk: i for i, jk in enumerate(keep)}
    S = np.flatnonzero(cd.sliding)
    R = np.flatnonzero(~cd.sliding)
    N = np.array([pos[(j, 0)] for j in S] + [pos[(j, 0)] for j in R], dtype=int)
    T = np.array([pos[(j, k)] for k in range(1, d) for j in R], dtype=int)
    orig = np.array([d * j + k for j, k in keep], dtype=int)
    return S, R, N, T, orig


def _units(cd: ContactDynamics) -> tuple[float, float]:
    """``(c0, a0)``: the force and acceleration units of the dimensionless problem."""
    a0 = float(np.abs(cd.b).max(initial=0.0))
    dmax = float(np.abs(np.diag(cd.A)).max(initial=0.0))
    a0 = a0 if a0 > 0 else 1.0
    c0 = a0 / dmax if dmax > 0 else 1.0
    return c0, a0


def buffo_mncp(cd: ContactDynamics) -> BuffoMNCP:
    """The mixed NCP of eqs. (29)–(36) for the contact state ``cd``; the LCP (45) when ``R`` is empty."""
    if not isinstance(cd, ContactDynamics):
        raise InvalidProblemError("cd", f"must be a ContactDynamics (system.dynamics()), got {type(cd).__name__}")
    S, R, N, T, orig = _partition(cd)
    At = sliding_substituted(cd)
    bt = cd.b[orig]
    A1, A2 = At[np.ix_(N, N)], At[np.ix_(N, T)]
    A3, A4 = At[np.ix_(T, N)], At[np.ix_(T, T)]
    b_N, b_T = bt[N], bt[T]
    if R.size == 0:
        lcp = LCP(A1, b_N)
        return BuffoMNCP(lcp, cd, S, R, A1, A2, A3, A4, b_N, b_T)

    nS, nR, nt = S.size, R.size, cd.dim - 1
    muR = cd.mu[R]
    nN = nS + nR
    p, m = nN + nR, 2 * nt * nR
    iN = np.arange(nN)
    iRn = nS + np.arange(nR)  # c_Rn inside x
    iLam = nN + np.arange(nR)
    iC = p + np.arange(nt * nR)  # c_RT (t block, o block)
    iA = p + nt * nR + np.arange(nt * nR)  # a_RT

    def F(x):
        cN, cT = x[iN], x[iC]
        aN = A1 @ cN + A2 @ cT + b_N
        s = muR**2 * x[iRn] ** 2 - (cT.reshape(nt, nR) ** 2).sum(axis=0)
        return np.concatenate([aN, s])

    def G(x):
        cRn, lam = x[iRn], x[iLam]
        cT, aT = x[iC].reshape(nt, nR), x[iA].reshape(nt, nR)
        g12 = muR * cRn * aT + cT * lam
        g3 = x[iA] - A3 @ x[iN] - A4 @ x[iC] - b_T
        return np.concatenate([g12.reshape(-1), g3])

    def jac_F(x):
        J = np.zeros((p, p + m))
        J[:nN, iN] = A1
        J[:nN, iC] = A2
        rows = nN + np.arange(nR)
        J[rows, iRn] = 2 * muR**2 * x[iRn]
        cT = x[iC].reshape(nt, nR)
        for k in range(nt):
            J[rows, iC[k * nR : (k + 1) * nR]] = -2 * cT[k]
        return J

    def jac_G(x):
        J = np.zeros((m, p + m))
        cRn, lam = x[iRn], x[iLam]
        cT, aT = x[iC].reshape(nt, nR), x[iA].reshape(nt, nR)
        for k in range(nt):
            rows = k * nR + np.arange(nR)
            J[rows, iRn] = muR * aT[k]
            J[rows, iA[rows]] = muR * cRn
            J[rows, iC[rows]] = lam
            J[rows, iLam] = cT[k]
        g3 = nt * nR + np.arange(nt * nR)
        J[g3, iA] = 1.0
        J[np.ix_(g3, iN)] = -A3
        J[np.ix_(g3, iC)] = -A4
        return J

    c0, a0 = _units(cd)
    xs = np.r_[np.full(nN, c0), np.full(nR, a0), np.full(nt * nR, c0), np.full(nt * nR, a0)]
    Fs = np.r_[np.full(nN, a0), np.full(nR, c0 * c0)]
    Gs = np.r_[np.full(nt * nR, c0 * a0), np.full(nt * nR, a0)]
    prob = MixedNCP(
        lambda y: F(xs * y) / Fs,
        lambda y: G(xs * y) / Gs,
        p,
        m,
        jac_F=lambda y: jac_F(xs * y) * xs[None, :] / Fs[:, None],
        jac_G=lambda y: jac_G(xs * y) * xs[None, :] / Gs[:, None],
    )
    return BuffoMNCP(prob, cd, S, R, A1, A2, A3, A4, b_N, b_T, xs)


def sliding_lcp(cd: ContactDynamics) -> LCP:
    """The LCP of eq. (45) (every contact sliding): ``M = Ã_nn`` (eq. (46)), ``q = b_n``."""
    if not np.all(cd.sliding):
        raise InvalidProblemError(
            "contacts", "eq. (45) needs every contact sliding; use buffo_mncp for rolling contacts"
        )
    return buffo_mncp(cd).problem

"""The merit function of Buffo & Maciel (2006), eq. (4), over its box (eq. (3)), and the
active-set Newton crossover the merit method finishes with."""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np

from contactcp.linalg.dense import solve_or_lstsq
from contactcp.problems import MixedNCP
from contactcp.problems._base import complementarity_residual, linear_residual

__all__ = ["merit_value"]

_POLISH_NEWTON = 8
_POLISH_PASSES = 3

_FD_STEP = math.sqrt(np.finfo(float).eps)
#: spread of the Jacobian's row sizes above which the merit method equilibrates the rows
_SPREAD = 2.0**8


# ---------------------------------------------------------------------------
# the problem seen as u >= 0, F(u, v) >= 0, u.F = 0, G(u, v) = 0


class _Model:
    """``F``, ``G``, their Jacobians and the registry's residual in the internal order ``x = (u, v)``.

    Counts function and Jacobian evaluations and caches the last point (the
    backends' callbacks and Jacobian calls usually ask for the point just evaluated).
    """

    def __init__(self, problem: Any):
        self.problem = problem
        self.nF = 0  # evaluations of (F, G) asked for by the method
        self.nJ = 0  # evaluations of the Jacobians
        self.nFD = 0  # extra (F, G) evaluations spent on finite differences
        self.matvecs = 0  # products with M or M^T (linear problems only)
        self._key: bytes | None = None
        self._FG: tuple[np.ndarray, np.ndarray] | None = None
        if isinstance(problem, MixedNCP):
            self.linear = False
            self.p, self.m = problem.p, problem.m
            self.perm = None
            self.analytic = problem.has_jacobians
        else:
            self.linear = True
            free = np.asarray(problem._free, dtype=bool)
            self.p = int((~free).sum())
            self.m = int(free.sum())
            perm = np.r_[np.flatnonzero(~free), np.flatnonzero(free)]
            self.perm = None if np.array_equal(perm, np.arange(perm.size)) else perm
            Mp = problem.M if self.perm is None else problem.M[np.ix_(perm, perm)]
            qp = problem.q if self.perm is None else problem.q[perm]
            self.A, self.a = Mp[: self.p], qp[: self.p]
            self.C, self.c = Mp[self.p :], qp[self.p :]
            self.analytic = True
        self.n = self.p + self.m
        self.comp_index = np.arange(self.p) if self.perm is None else self.perm[: self.p]
        #: row scales (powers of two) that F and G are seen through (:meth:`equilibrate`)
        self.dF, self.dG = np.ones(self.p), np.ones(self.m)
        self.scaled = False

    def equilibrate(self, x: np.ndarray) -> bool:
        """Scale the rows of ``F`` and ``G`` by powers of two so that the rows of their Jacobian at
        ``x`` have largest entries in [1, 2), when those sizes spread over more than
        :data:`_SPREAD` (rows scaled by ``2^e`` make the merit function's sum of squares see only
        the largest ones).  Exact and sign-preserving: ``u >= 0, F >= 0, u . F = 0, G = 0`` is the
        same problem; the residual is still measured on the unscaled rows.  True when it scaled."""
        JF, JG = self.jac(x)
        F, G = self._raw_FG(x)
        with np.errstate(all="ignore"):
            size = np.max(np.abs(np.vstack([JF, JG])), axis=1, initial=0.0)
            size = np.where(size > 0, size, np.abs(np.concatenate([F, G])))
        ok = np.isfinite(size) & (size > 0)
        if not ok.any() or size[ok].max() <= _SPREAD * size[ok].min():
            return False
        d = np.ones(self.n)
        d[ok] = np.exp2(-np.floor(np.log2(size[ok])))
        self.dF, self.dG = d[: self.p], d[self.p :]
        self.scaled = True
        self._key = None
        return True

    @contextlib.contextmanager
    def uncounted(self):
        """Evaluations made for diagnostics, not by the method, are left out of the counts."""
        saved = (self.nF, self.nJ, self.nFD, self.matvecs)
        try:
            yield
        finally:
            self.nF, self.nJ, self.nFD, self.matvecs = saved

    # -- ordering ------------------------------------------------------------

    def to_problem(self, x: np.ndarray) -> np.ndarray:
        if self.perm is None:
            return np.array(x, dtype=float)
        out = np.empty_like(x)
        out[self.perm] = x
        return out

    def from_problem(self, x: np.ndarray) -> np.ndarray:
        return np.array(x if self.perm is None else x[self.perm], dtype=float)

    # -- evaluations ---------------------------------------------------------

    def _raw_FG(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.linear:
            self.matvecs += 1
            return self.A @ x + self.a, self.C @ x + self.c
        xp = x  # MixedNCP is already in the order (u, v)
        return self.problem.eval_F(xp), self.problem.eval_G(xp)

    def FG(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(F, G)`` at ``x``, through the row scales."""
        key = x.tobytes()
        if key != self._key:
            F, G = self._raw_FG(x)
            self._FG = (self.dF * F, self.dG * G) if self.scaled else (F, G)
            self._key = key
            self.nF += 1
        return self._FG  # type: ignore[return-value]

    def unscaled(self, F: np.ndarray, G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (F / self.dF, G / self.dG) if self.scaled else (F, G)

    def jac(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The Jacobians of ``F`` and ``G`` at ``x``, through the row scales."""
        JF, JG = self._raw_jac(x)
        return (self.dF[:, None] * JF, self.dG[:, None] * JG) if self.scaled else (JF, JG)

    def _raw_jac(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.nJ += 1
        if self.linear:
            return self.A, self.C
        if self.analytic:
            return self.problem.eval_jac_F(x), self.problem.eval_jac_G(x)
        # forward differences of F and G together (the problem gives no Jacobians)
        F0, G0 = self.unscaled(*self.FG(x))
        JF = np.empty((self.p, self.n))
        JG = np.empty((self.m, self.n))
        for j in range(self.n):
            h = _FD_STEP * max(1.0, abs(x[j]))
            xj = x.copy()
            xj[j] += h  # forward: stays in the box u >= 0
            h = xj[j] - x[j]
            Fj, Gj = self._raw_FG(xj)
            self.nFD += 1
            JF[:, j] = (Fj - F0) / h
            JG[:, j] = (Gj - G0) / h
        return JF, JG

    # -- the registry's residual ---------------------------------------------

    def residual(self, x: np.ndarray, F: np.ndarray, G: np.ndarray) -> tuple[float, float]:
        """``(value, scale)`` of the problem's own residual at ``x`` (F, G given at x, through the
        row scales, which are taken off: the residual is the problem's own)."""
        F, G = self.unscaled(F, G)
        if self.linear:
            xp = np.ascontiguousarray(self.to_problem(x), dtype=np.float64)
            r = linear_residual(self.problem.M, self.problem.q, xp, self.problem._free)[0]
        else:
            if not (np.all(np.isfinite(F)) and np.all(np.isfinite(G))):
                return math.inf, max(1.0, self.problem.scale)
            eq = float(np.max(np.abs(G))) if G.size else 0.0
            r = complementarity_residual(x[: self.p], F, eq, max(1.0, self.problem.scale))
        return float(r.value), float(r.scale)


class _Merit:
    """``R(y) = (F - z, G, u . z)`` for ``y = (u, v, z)`` and its Jacobian."""

    def __init__(self, model: _Model):
        self.model = model
        p, n = model.p, model.n
        self.size = n + p
        self.lb = np.concatenate([np.zeros(p), np.full(model.m, -np.inf), np.zeros(p)])
        self.ub = np.full(self.size, np.inf)

    def split(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p, n = self.model.p, self.model.n
        return y[:n], y[:p], y[n:]

    def R(self, y: np.ndarray) -> np.ndarray:
        x, u, z = self.split(y)
        F, G = self.model.FG(x)
        return np.concatenate([F - z, G, [float(u @ z)]])

    def J(self, y: np.ndarray) -> np.ndarray:
        x, u, z = self.split(y)
        p, m, n = self.model.p, self.model.m, self.model.n
        JF, JG = self.model.jac(x)
        J = np.zeros((p + m + 1, n + p))
        J[:p, :n] = JF
        J[:p, n:] = -np.eye(p)
        J[p : p + m, :n] = JG
        J[p + m, :p] = z
        J[p + m, n:] = u
        return J

    def f_and_grad(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        R = self.R(y)
        J = self.J(y)
        if self.model.linear:
            self.model.matvecs += 1  # J^T R costs a product with M^T
        return float(R @ R), 2.0 * (J.T @ R)

    def stationarity(self, y: np.ndarray) -> tuple[float, float]:
        """``||y - P(y - grad f)||_inf`` (zero exactly at the stationary points of (3)) and that
        divided by its bound ``2 ||J||_1 ||R||_inf`` (a number in [0, 1])."""
        with np.errstate(all="ignore"):
            R = self.R(y)
            J = self.J(y)
            g = 2.0 * (J.T @ R)
            pg = float(np.max(np.abs(y - np.clip(y - g, self.lb, self.ub)), initial=0.0))
            bound = 2.0 * float(np.max(np.abs(J).sum(axis=0), initial=0.0)) * float(np.max(np.abs(R), initial=0.0))
        if not math.isfinite(pg):
            return math.inf, math.inf
        return pg, (pg / bound if bound > 0 else 0.0)


def merit_value(problem: Any, x: Any, z: Any = None) -> float:
    """The merit function (4) at ``x = (u, v)`` (problem order) and slacks ``z``
    (default ``max(F, 0)``, the best slack for the first term)."""
    model = _Model(problem)
    xi = model.from_problem(np.asarray(x, dtype=float).reshape(-1))
    F, G = model.FG(xi)
    zz = np.maximum(F, 0.0) if z is None else np.asarray(z, dtype=float).reshape(-1)
    u = xi[: model.p]
    return float((F - zz) @ (F - zz) + G @ G + (u @ zz) ** 2)


# ---------------------------------------------------------------------------
# the active-set polish


def _polish(model: _Model, x: np.ndarray, z: np.ndarray, tol: float) -> tuple[np.ndarray, float] | None:
    """Newton on the active set guessed from the iterate, with sign flips.

    With ``A = {i : u_i > z_i}`` (the pairs where ``u`` rather than ``F`` is
    positive), solve ``F_A(u, v) = 0, G(u, v) = 0`` for ``(u_A, v)`` with
    ``u_i = 0`` off ``A`` (one step for linear problems, which is exact; up to
    ``_POLISH_NEWTON`` Newton steps otherwise).  When the result has ``u_i < 0`` on
    ``A`` or ``F_i < 0`` off ``A`` those indices change sides and the system is
    solved again (a block principal pivot, Júdice & Pires), at most
    ``_POLISH_PASSES`` times.  Returns ``(x, residual)`` of the best point found,
    or None when nothing finite came out.
    """
    p, n = model.p, model.n
    act = x[:p] > z
    best: tuple[np.ndarray, float] | None = None
    seen: set[bytes] = set()
    for _ in range(_POLISH_PASSES):
        key = act.tobytes()
        if key in seen:
            break
        seen.add(key)
        cols = np.r_[np.flatnonzero(act), np.arange(p, n)]
        xk = x.copy()
        xk[:p][~act] = 0.0
        for it in range(1 if model.linear else _POLISH_NEWTON):
            F, G = model.FG(xk)
            if it and not model.linear:
                res, _ = model.residual(xk, F, G)
                if best is None or res < best[1]:
                    best = (xk.copy(), res)
                if res <= tol:
                    return best
            if cols.size == 0:
                break
            JF, JG = model.jac(xk)
            K = np.vstack([JF[act][:, cols], JG[:, cols]])
            d = solve_or_lstsq(K, -np.concatenate([F[act], G]))
            if d is None:
                break
            xk = xk.copy()
            xk[cols] += d
        if not np.all(np.isfinite(xk)):
            continue
        F, G = model.FG(xk)
        res, _ = model.residual(xk, F, G)
        if best is None or res < best[1]:
            best = (xk, res)
        if res <= tol:
            return best
        flip = np.where(act, xk[:p] < 0, F < 0)
        if not flip.any():
            break
        act = act ^ flip
    return best

"""Active-set polish of an approximate solution of a linear complementarity problem.

Pivoting and iterative methods end with the right complementary support but a point whose
equations ``w_S = 0`` hold only to the accuracy of their factorisation updates (on
ill-conditioned blocks, far from the tolerance the certificate asks for).  Given the support
``S`` the point guesses (``z_i > w_i / s_i``, plus the free variables), the equations
``M_SS z_S = -q_S`` are re-solved by LU with iterative refinement whose residuals are computed in
doubled precision (compensated dot products), which drives ``w_S`` to the level of the data's
rounding even for ill-conditioned blocks (Higham, *Accuracy and Stability of Numerical
Algorithms*, Ch. 12).  The polished point replaces the original only when its independent
residual is smaller; it is a proposal like any other, certified by the registry.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla

from contactcp.problems._base import scaled_residual

#: refinement steps
STEPS = 4


def _residual_rows(A: np.ndarray, x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``A x + c`` in doubled precision."""
    return scaled_residual(A, x, c)[0]


def polish(problem, x: np.ndarray, free: np.ndarray | None = None) -> np.ndarray | None:
    """A polished point for an LCP or MixedLCP (``problem.M``, ``problem.q``, ``free`` mask), or None
    when the support's block is singular or the polish does not lower the residual."""
    M, q = problem.M, problem.q
    n = q.shape[0]
    free = np.zeros(n, dtype=bool) if free is None else free
    if x is None or x.shape != (n,) or not np.all(np.isfinite(x)):
        return None
    w, lo, hi, s = scaled_residual(M, x, q)
    ws = np.where(s > 0, w / np.where(s > 0, s, 1.0), 0.0)
    S = np.flatnonzero(free | (x > ws))
    z = np.zeros(n)
    if S.size:
        A = M[np.ix_(S, S)]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", sla.LinAlgWarning)
                lu = sla.lu_factor(A, check_finite=False)
        except (ValueError, np.linalg.LinAlgError):
            return None
        d = np.abs(np.diag(lu[0]))
        if not d.min() > 1e-14 * max(d.max(), 1e-300):
            return None
        zS = x[S].copy()
        for _ in range(STEPS):
            r = _residual_rows(A, zS, q[S])            # A zS + q_S, want 0
            if not np.all(np.isfinite(r)):
                return None
            dz = sla.lu_solve(lu, r, check_finite=False)
            if not np.all(np.isfinite(dz)):
                return None
            zS = zS - dz
            if np.max(np.abs(dz), initial=0.0) <= 1e-17 * max(np.max(np.abs(zS), initial=0.0), 1e-300):
                break
        z[S] = zS
    if np.any(z[~free] < 0):
        z[~free] = np.maximum(z[~free], 0.0)
    return z


def better(problem, x: np.ndarray | None, free: np.ndarray | None = None) -> tuple[np.ndarray | None, bool]:
    """``(point, polished)``: the polished point when it lowers the problem's residual, else ``x``."""
    if x is None:
        return x, False
    try:
        z = polish(problem, x, free)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):
        return x, False
    if z is None:
        return x, False
    if problem.residual(z).value < problem.residual(x).value:
        return z, True
    return x, False


def finish_linear(problem, x: np.ndarray) -> np.ndarray | None:
    """The default chains' finisher for LCPs and mixed LCPs: the polished point, or None."""
    z, done = better(problem, np.asarray(x, dtype=float), getattr(problem, "free", None))
    return z if done else None

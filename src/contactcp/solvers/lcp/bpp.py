"""Block principal pivoting (Júdice & Pires 1994) for LCPs, with Lemke as the fallback.

Each iteration guesses the set ``F`` of basic ``z`` variables, solves
``M_FF z_F = -q_F`` and exchanges every infeasible index at once.  Murty's
single principal pivot (the largest infeasible index) takes over when the
number of infeasibilities stops decreasing for ``backup`` iterations, which
makes the method finite for P-matrices.  It is the semismooth Newton method for
``min(z, M z + q) = 0`` with full steps, and each iteration costs one
factorisation of ``M_FF`` (Cholesky when M is symmetric, else LU).  On matrices
outside its guarantees (singular ``M_FF``, cycling) it hands the problem to
Lemke's method.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla

from contactcp.problems import LCP
from contactcp.result import Status
from contactcp.solvers.lcp.lemke import lemke_lcp
from contactcp.solvers.registry import Raw, boolean, integer, register


def _solve_block(M_FF: np.ndarray, rhs: np.ndarray, symmetric: bool) -> np.ndarray | None:
    """Solve ``M_FF x = rhs``; None when the block is (numerically) singular."""
    if symmetric:
        try:
            c = sla.cho_factor(M_FF, check_finite=False)
            return sla.cho_solve(c, rhs, check_finite=False)
        except np.linalg.LinAlgError:
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sla.LinAlgWarning)
        lu, piv = sla.lu_factor(M_FF, check_finite=False)
    d = np.abs(np.diag(lu))
    if d.min() <= 1e-13 * max(d.max(), 1e-300):
        return None
    return sla.lu_solve((lu, piv), rhs, check_finite=False)


@register(
    "bpp",
    LCP,
    description="block principal pivoting (Júdice–Pires) with Lemke fallback",
    options={"max_iter": integer(1, none=True), "backup": integer(0), "fallback": boolean()},
)
def bpp(problem: LCP, tol: float, *, max_iter: int | None = None, backup: int = 3, fallback: bool = True) -> Raw:
    """Block principal pivoting.

    Options
    -------
    max_iter : iterations before giving up (default ``max(50, 2 n)``)
    backup : iterations without fewer infeasibilities before Murty's single pivot
    fallback : on failure, solve with Lemke's method (default True)
    """
    M, q = problem.M, problem.q
    n = q.shape[0]
    if max_iter is None:
        max_iter = max(50, 2 * n)
    symmetric = bool(np.allclose(M, M.T, rtol=0.0, atol=1e-14 * max(1.0, float(np.abs(M).max()))))
    eps = 1e-13 * max(1.0, float(np.abs(q).max()))
    F = q < 0
    best, left = n + 1, backup
    why = "iteration limit"
    it = 0
    z = np.zeros(n)
    for it in range(1, max_iter + 1):
        idx = np.flatnonzero(F)
        z = np.zeros(n)
        if idx.size:
            zF = _solve_block(M[np.ix_(idx, idx)], -q[idx], symmetric)
            if zF is None:
                why = "singular principal block"
                break
            z[idx] = zF
        w = M @ z + q
        bad = np.flatnonzero(np.where(F, z < -eps, w < -eps))
        if bad.size == 0:
            np.maximum(z, 0.0, out=z)
            if problem.residual(z).value <= tol:
                return Raw(
                    z,
                    Status.SOLVED,
                    it,
                    "complementary basis found by block pivoting",
                    stats={"bpp_iterations": it, "fallback": False},
                )
            why = "block solution not accurate enough"
            break
        if bad.size < best:
            best, left = bad.size, backup
            F[bad] = ~F[bad]
        elif left > 0:
            left -= 1
            F[bad] = ~F[bad]
        else:
            k = bad[-1]
            F[k] = ~F[k]
    if not fallback:
        status = Status.ITERATION_LIMIT if why == "iteration limit" else Status.NUMERICAL_FAILURE
        return Raw(z, status, it, f"block pivoting stopped: {why}", stats={"bpp_iterations": it})
    raw = lemke_lcp(problem, tol)
    raw.message = f"block pivoting stopped ({why}) after {it} iterations; Lemke: {raw.message}"
    raw.stats.update(bpp_iterations=it, fallback=True)
    raw.iterations += it
    return raw

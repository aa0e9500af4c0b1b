"""Projected Gauss–Seidel (with over-relaxation) for the LCP, compiled with numba.

``z_i <- max(0, z_i - omega (M z + q)_i / M_ii)`` for ``i = 1..n``, repeated
(Cottle, Pang & Stone, Algorithm 5.2.2).  It converges for symmetric positive
definite ``M`` (``0 < omega < 2``) and for H-matrices with positive diagonals
(e.g. strictly diagonally dominant ones); elsewhere it may not, and then it
reports ``ITERATION_LIMIT``.  Each sweep costs one product with ``M``; the
residual the registry certifies is the problem's own.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from contactcp.problems import LCP
from contactcp.problems._kernels import column_units, row_scale
from contactcp.result import Status
from contactcp.solvers.registry import Raw, integer, real, register, vector


@njit(cache=True, nogil=True)
def _pgs(M, q, z, omega, max_sweeps, tol):
    n = q.shape[0]
    Z = column_units(M, q)  # the residual's row scales (contactcp.problems._kernels.row_scale)
    for sweep in range(1, max_sweeps + 1):
        for i in range(n):
            s = q[i]
            for j in range(n):
                s += M[i, j] * z[j]
            v = z[i] - omega * s / M[i, i]
            z[i] = v if v > 0.0 else 0.0
        if sweep % 4 == 0:
            # cheap convergence test on the row-scaled natural map (as the residual), with a margin
            worst = 0.0
            for i in range(n):
                s = q[i]
                for j in range(n):
                    s += M[i, j] * z[j]
                si = row_scale(M, q, z, Z, i)
                m = abs(min(z[i], s / si)) if si > 0.0 else abs(min(z[i], 0.0))
                if m > worst:
                    worst = m
            if worst <= 0.5 * tol:
                return sweep
    return max_sweeps


def _pgs_applies(problem: LCP) -> str:
    d = np.diag(problem.M)
    return "" if np.all(d > 0) else "PGS divides by the diagonal of M, which has a nonpositive entry"


@register(
    "pgs",
    LCP,
    description="projected Gauss–Seidel with over-relaxation (compiled)",
    options={"omega": real(0.0, 2.0, lo_open=True, hi_open=True), "max_sweeps": integer(1, none=True), "z0": vector()},
    applies=_pgs_applies,
)
def pgs(problem: LCP, tol: float, *, omega: float = 1.0, max_sweeps: int | None = None, z0: object = None) -> Raw:
    """Projected Gauss–Seidel.

    Options
    -------
    omega : relaxation in (0, 2) (default 1)
    max_sweeps : default 1000
    z0 : starting point (default zero)
    """
    M, q = problem.M, problem.q
    n = q.shape[0]
    if max_sweeps is None:
        max_sweeps = 1000
    diag = np.diag(M)
    if (diag <= 0).any():
        i = int(np.argmax(diag <= 0))
        return Raw(None, Status.NUMERICAL_FAILURE, message=f"PGS needs a positive diagonal; M[{i},{i}] = {diag[i]}")
    z = np.zeros(n) if z0 is None else np.maximum(z0, 0.0)
    sweeps = _pgs(M, q, z, float(omega), max_sweeps, 0.5 * tol)
    status = Status.SOLVED if sweeps < max_sweeps else Status.ITERATION_LIMIT
    msg = "converged" if status is Status.SOLVED else f"no convergence in {max_sweeps} sweeps"
    return Raw(z, status, iterations=sweeps, message=msg)

"""Many small friction-contact problems of one size in one call (time stepping and sweeps solve
thousands of one- to twenty-contact problems).

NSGS (:func:`~contactcp.solvers.cone.nsgs_kernels.nsgs_run`, the same compiled iteration as
``solve(problem, "nsgs")``) runs in parallel over the problems; each answer is then certified by the
batched Coulomb measure of :mod:`contactcp.problems` (:func:`~contactcp.problems._coulomb.coulomb_measure`,
the measure :meth:`FrictionContactProblem.residual` reports), which shares no code with the solver.
A problem NSGS does not solve goes through the single-problem default chain.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from contactcp._validate import integer, real_array
from contactcp.errors import InvalidProblemError
from contactcp.problems import FrictionContactProblem
from contactcp.problems._coulomb import coulomb_measure_batch
from contactcp.problems.friction import friction_coefficients
from contactcp.result import Status
from contactcp.settings import DEFAULT_TOL
from contactcp.solvers.batch import _STATUS_LIST, BatchResult, _array, _check_count, _check_tol
from contactcp.solvers.cone.nsgs import ANDERSON
from contactcp.solvers.cone.nsgs_kernels import nsgs_batch
from contactcp.solvers.registry import solve

__all__ = ["solve_friction_batch"]


def solve_friction_batch(
    W: Any, q: Any, mu: Any, tol: float = DEFAULT_TOL, *, dim: int = 3, max_sweeps: int = 1000
) -> BatchResult:
    """Solve ``K`` friction-contact problems ``(W[k], q[k], mu[k])`` with the same number of contacts.

    The answer is a :class:`~contactcp.solvers.batch.BatchResult`: ``x`` the reactions, ``w`` the
    velocities ``W r + q``, ``method`` "nsgs" (a problem solved by the chain's fallback keeps that answer).

    Parameters
    ----------
    W : (K, m, m) array, or (m, m) shared by every problem (``m = dim n_c``)
    q : (K, m) array
    mu : a number, ``(n_c,)`` shared, or ``(K, n_c)``; each ``>= 0``
    tol : the tolerance on each problem's certified residual (``FrictionContactProblem.residual``)
    dim : 3 (spatial) or 2 (planar)
    max_sweeps : NSGS sweeps per problem before it goes to the default chain
    """
    _check_tol(tol)
    d = integer(dim, "dim", choices=(2, 3))
    _check_count(max_sweeps, "max_sweeps")
    q = _array(q, "q", 2)
    Kp, m = q.shape
    if m % d:
        raise InvalidProblemError("q", f"length {m} is not a multiple of dim = {d}")
    n_c = m // d
    W = _array(W, "W", None)
    if W.ndim == 2:
        W = np.broadcast_to(W, (Kp,) + W.shape)
    if W.ndim != 3 or W.shape != (Kp, m, m):
        raise InvalidProblemError("W", f"must have shape ({Kp}, {m}, {m}) or ({m}, {m}) to match q, got {W.shape}")
    W = np.ascontiguousarray(W)
    mu_arr = real_array(mu, "mu")
    if mu_arr.ndim == 2:
        if mu_arr.shape != (Kp, n_c):
            raise InvalidProblemError("mu", f"must have shape ({Kp}, {n_c}), got {mu_arr.shape}")
        MU = np.ascontiguousarray([friction_coefficients(row, n_c) for row in mu_arr])
    else:
        MU = np.ascontiguousarray(np.broadcast_to(friction_coefficients(mu, n_c), (Kp, n_c)))
    t0 = time.perf_counter()
    R = np.zeros((Kp, m))
    codes, sweeps = nsgs_batch(W, q, MU, R, d, int(max_sweeps), 10, float(tol), ANDERSON)
    values, U = coulomb_measure_batch(W, q, MU, R, d)
    solved = _STATUS_LIST.index(Status.SOLVED)
    status = np.where(values <= tol, solved, _STATUS_LIST.index(Status.ITERATION_LIMIT)).astype(np.int64)
    status[(codes == 0) & (values > tol)] = _STATUS_LIST.index(Status.INACCURATE)
    for k in np.flatnonzero(status != solved):  # the rare hard ones: the single-problem default chain
        res = solve(FrictionContactProblem(W[k], q[k], MU[k], d), tol=float(tol))
        if res.residual is not None and res.residual.value < values[k]:
            R[k], U[k], values[k] = res.x, res.w, res.residual.value
            status[k] = _STATUS_LIST.index(res.status)
        sweeps[k] += res.iterations
    return BatchResult(
        x=R,
        w=U,
        status=status,
        residual=values,
        iterations=sweeps,
        time=time.perf_counter() - t0,
        method="nsgs",
        tol=float(tol),
    )

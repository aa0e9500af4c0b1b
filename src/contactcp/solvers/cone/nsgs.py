"""Non-smooth (projected) Gauss–Seidel for the Coulomb-cone problem, with local solves per contact.

One sweep visits the contacts in order; contact ``i`` solves its own local
problem ``u_i = W_ii r_i + (u_i - W_ii r_i)`` with the others frozen, by
projected fixed-point iterations ``r_i <- P_K(r_i - rho_i (u_i + mu ||u_T|| e_N))``
with ``rho_i = 1 / lambda_max(W_ii)`` (Jean & Moreau's NSGS with a projection
local solver; the compiled sweeps are :func:`contactcp.solvers.cone.kernels.gauss_seidel_sweeps`
and, for a sparse ``W``, :func:`~contactcp.solvers.cone.kernels.gauss_seidel_sweeps_csr`, which reads
``W`` in its compressed-row storage (no dense copy), shared with the Newton method's warm start).
The answer is certified by the problem's own residual.
"""

from __future__ import annotations

import math

import numpy as np

from contactcp.problems import FrictionContactProblem
from contactcp.result import Status
from contactcp.solvers.cone import scale as homogeneous
from contactcp.solvers.cone.nsgs_kernels import nsgs_run
from contactcp.solvers.registry import Raw, boolean, integer, register, vector


@register(
    "nsgs",
    FrictionContactProblem,
    description="non-smooth Gauss–Seidel with projected local solves (dense or sparse W)",
    options={"max_sweeps": integer(1), "local_iter": integer(1), "r0": vector(), "give_up": boolean()},
)
def nsgs(
    problem: FrictionContactProblem,
    tol: float,
    *,
    max_sweeps: int = 1000,
    local_iter: int = 10,
    r0: object = None,
    give_up: bool = False,
) -> Raw:
    """Projected Gauss–Seidel over contacts.

    Options
    -------
    max_sweeps : sweeps over all contacts (default 1000)
    local_iter : fixed-point iterations of each local solve (default 10; in a trial run on the Kapla
        tower of FCLIB's sample, not recorded in a benchmark table, 50 took three times as long for
        the same number of sweeps)
    r0 : starting reactions (default zero)
    give_up : stop early when the residual's observed rate of decrease (over the last 64 sweeps)
        cannot reach ``tol`` within four times the sweeps left (default False; the default chain
        sets it, so that a slowly converging first attempt hands over to the next method)
    """
    d = problem.dim
    W = problem.W if problem.sparse else np.ascontiguousarray(problem.W)
    mu = problem.mu
    r = np.zeros(problem.size) if r0 is None else r0.copy()
    problem, r, k = homogeneous.apply(problem, r)
    q = problem.q
    raw = _nsgs(problem, tol, W, q, mu, d, r, max_sweeps, local_iter, give_up)
    raw.x, raw.w = homogeneous.invert(raw.x, k), homogeneous.invert(raw.w, k)
    return raw


_NO_INT = np.zeros(0, dtype=np.int32)
_NO_FLOAT = np.zeros(0)
_NO_DENSE = np.zeros((0, 0))
_MESSAGES = ("converged", "no convergence in {} sweeps", "converging too slowly after {} sweeps")


def _nsgs(problem, tol, W, q, mu, d, r, max_sweeps, local_iter, give_up) -> Raw:
    """One compiled call (:func:`~contactcp.solvers.cone.kernels.nsgs_run`): the steps
    ``rho_i = 1 / lambda_max(W_ii)``, the sweeps in chunks of 1, 2, 4, 8, 16, the method's own stopping
    test after each chunk (compiled, unscaled by rounding bounds; the registry certifies the answer
    with the problem's residual) and, with ``give_up``, the rate test of :func:`hopeless`."""
    storage = (
        (W.indptr, W.indices, W.data, _NO_DENSE, True) if problem.sparse else (_NO_INT, _NO_INT, _NO_FLOAT, W, False)
    )
    code, done, u = nsgs_run(*storage, q, mu, r, d, max_sweeps, local_iter, tol, give_up)
    status = Status.SOLVED if code == 0 else Status.ITERATION_LIMIT
    return Raw(r, status, iterations=int(done), message=_MESSAGES[code].format(max_sweeps if code == 1 else done), w=u)


def hopeless(history: list[tuple[int, float]], tol: float, left: int) -> bool:
    """Whether the rate observed over the last 64 (or more) sweeps cannot reach ``tol`` in ``4 * left`` sweeps
    (the readable reference of the compiled test in :func:`~contactcp.solvers.cone.kernels.nsgs_run`)."""
    done, value = history[-1]
    past = [(k, v) for k, v in history if k <= done - 64]
    if not past:
        return False
    k0, v0 = past[-1]
    if not (0 < value < v0):
        return value >= v0
    rate = math.log(value / v0) / (done - k0)  # log decrease per sweep (< 0)
    return math.log(tol / value) / rate > 4 * left

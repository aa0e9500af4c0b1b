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

import numpy as np

from contactcp.problems import FrictionContactProblem
from contactcp.result import Status
from contactcp.solvers.cone import scale as homogeneous
from contactcp.solvers.cone.kernels import desaxce_residual, diagonal_blocks, sweeps
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


def _nsgs(problem, tol, W, q, mu, d, r, max_sweeps, local_iter, give_up) -> Raw:
    blocks = diagonal_blocks(W, d)
    lam = np.abs(np.linalg.eigvalsh(0.5 * (blocks + blocks.transpose(0, 2, 1)))).max(axis=1)
    rho = np.where(lam > 0, 1.0 / np.where(lam > 0, lam, 1.0), 1.0)
    chunk = 1
    done = 0
    status, msg = Status.ITERATION_LIMIT, f"no convergence in {max_sweeps} sweeps"
    history: list[tuple[int, float]] = []
    qnorm = float(np.linalg.norm(q)) or 1.0
    while done < max_sweeps:
        k = min(chunk, max_sweeps - done)
        sweeps(W, q, mu, r, d, k, local_iter, rho, 1e-14, blocks)
        done += k
        # the method's own stopping test (compiled, unscaled by rounding bounds); the registry
        # certifies the answer with the problem's residual
        value = desaxce_residual(r, W @ r + q, mu, d) / qnorm
        if value <= 0.9 * tol:
            status, msg = Status.SOLVED, "converged"
            break
        history.append((done, value))
        if give_up and _hopeless(history, tol, max_sweeps - done):
            status, msg = Status.ITERATION_LIMIT, f"converging too slowly after {done} sweeps"
            break
        chunk = min(2 * chunk, 16)
    return Raw(r, status, iterations=done, message=msg, w=W @ r + q)


def _hopeless(history: list[tuple[int, float]], tol: float, left: int) -> bool:
    """Whether the rate observed over the last 64 (or more) sweeps cannot reach ``tol`` in ``4 * left`` sweeps."""
    done, value = history[-1]
    past = [(k, v) for k, v in history if k <= done - 64]
    if not past:
        return False
    k0, v0 = past[-1]
    if not (0 < value < v0):
        return value >= v0
    rate = np.log(value / v0) / (done - k0)  # log decrease per sweep (< 0)
    return bool(np.log(tol / value) / rate > 4 * left)

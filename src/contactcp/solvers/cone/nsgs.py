"""Non-smooth (projected) Gauss–Seidel for the Coulomb-cone problem, with local solves per contact.

One sweep visits the contacts in order; contact ``i`` solves its own local
problem ``u_i = W_ii r_i + (u_i - W_ii r_i)`` with the others frozen, by
projected fixed-point iterations ``r_i <- P_K(r_i - rho_i (u_i + mu ||u_T|| e_N))``
with ``rho_i = 1 / lambda_max(W_ii)`` (Jean & Moreau's NSGS with a projection
local solver; the compiled sweep is :func:`contactcp.solvers.cone.kernels.gauss_seidel_sweeps`,
shared with the Newton method's warm start).  Dense ``W`` only.  The answer is certified by the problem's own residual.
"""

from __future__ import annotations

import numpy as np

from contactcp.problems import FrictionContactProblem
from contactcp.result import Status
from contactcp.solvers.cone import scale as homogeneous
from contactcp.solvers.cone.kernels import gauss_seidel_sweeps
from contactcp.solvers.registry import Raw, integer, register, vector


@register(
    "nsgs",
    FrictionContactProblem,
    description="non-smooth Gauss–Seidel with projected local solves (dense W)",
    options={"max_sweeps": integer(1), "local_iter": integer(1), "r0": vector()},
)
def nsgs(
    problem: FrictionContactProblem, tol: float, *, max_sweeps: int = 1000, local_iter: int = 50, r0: object = None
) -> Raw:
    """Projected Gauss–Seidel over contacts.

    Options
    -------
    max_sweeps : sweeps over all contacts (default 1000)
    local_iter : fixed-point iterations of each local solve (default 50)
    r0 : starting reactions (default zero)
    """
    d = problem.dim
    W = problem.W.toarray() if problem.sparse else np.ascontiguousarray(problem.W)
    q, mu = problem.q, problem.mu
    r = np.zeros(problem.size) if r0 is None else r0.copy()
    problem, r, k = homogeneous.apply(problem, r)
    q = problem.q
    raw = _nsgs(problem, tol, W, q, mu, d, r, max_sweeps, local_iter)
    raw.x, raw.w = homogeneous.invert(raw.x, k), homogeneous.invert(raw.w, k)
    return raw


def _nsgs(problem, tol, W, q, mu, d, r, max_sweeps, local_iter) -> Raw:
    rho = np.empty(problem.n_c)
    for i in range(problem.n_c):
        blk = W[d * i : d * i + d, d * i : d * i + d]
        lam = np.abs(np.linalg.eigvals(0.5 * (blk + blk.T))).max()
        rho[i] = 1.0 / lam if lam > 0 else 1.0
    chunk = 1
    done = 0
    status, msg = Status.ITERATION_LIMIT, f"no convergence in {max_sweeps} sweeps"
    while done < max_sweeps:
        k = min(chunk, max_sweeps - done)
        gauss_seidel_sweeps(W, q, mu, r, d, k, local_iter, rho, 1e-14)
        done += k
        if problem._certify(r, None)[0].value <= tol:
            status, msg = Status.SOLVED, "converged"
            break
        chunk = min(2 * chunk, 16)
    return Raw(r, status, iterations=done, message=msg, w=W @ r + q)

"""Non-smooth (projected) Gauss–Seidel for the Coulomb-cone problem, with local solves per contact.

One sweep visits the contacts in order; contact ``i`` solves its own local
problem ``u_i = W_ii r_i + (u_i - W_ii r_i)`` with the others frozen, by
projected fixed-point iterations ``r_i <- P_K(r_i - rho_i (u_i + mu ||u_T|| e_N))``
with ``rho_i = 1 / lambda_max(W_ii)`` (Jean & Moreau's NSGS with a projection
local solver).  ``u = W r + q`` is updated column block by column block, so a
sweep costs one product with ``W``.  Dense ``W`` only; the loop is compiled with
numba.  The answer is certified by the problem's own residual.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from contactcp.problems import FrictionContactProblem
from contactcp.result import Status
from contactcp.solvers.cone import scale as homogeneous
from contactcp.solvers.registry import Raw, integer, register, vector


@njit(cache=True, nogil=True)
def _project(x, mu, d):
    xn = x[0]
    nt2 = 0.0
    for k in range(1, d):
        nt2 += x[k] * x[k]
    nt = np.sqrt(nt2)
    if xn >= 0.0 and nt <= mu * xn:  # inside K (x_n >= 0 matters when mu = 0)
        return x.copy()
    out = np.zeros(d)
    if mu * nt <= -xn:
        return out
    pn = (mu * nt + xn) / (1.0 + mu * mu)
    out[0] = pn
    for k in range(1, d):
        out[k] = mu * pn * x[k] / nt
    return out


@njit(cache=True, nogil=True)
def _sweeps(W, q, mu, d, r, u, rho, n_sweeps, local_iter, local_tol):
    m = q.shape[0]
    n_c = m // d
    for _ in range(n_sweeps):
        for i in range(n_c):
            o = d * i
            ri = r[o : o + d].copy()
            # free part of this contact's velocity: u_i - W_ii r_i
            qi = u[o : o + d].copy()
            for a in range(d):
                for b in range(d):
                    qi[a] -= W[o + a, o + b] * ri[b]
            new = ri.copy()
            for _it in range(local_iter):
                ui = qi.copy()
                for a in range(d):
                    for b in range(d):
                        ui[a] += W[o + a, o + b] * new[b]
                ut = 0.0
                for k in range(1, d):
                    ut += ui[k] * ui[k]
                ui[0] += mu[i] * np.sqrt(ut)
                cand = _project(new - rho[i] * ui, mu[i], d)
                diff = 0.0
                size = 0.0
                for a in range(d):
                    diff += (cand[a] - new[a]) ** 2
                    size += cand[a] ** 2
                new = cand
                if diff <= local_tol * local_tol * max(size, 1e-300):
                    break
            for b in range(d):
                delta = new[b] - ri[b]
                if delta != 0.0:
                    for a in range(m):
                        u[a] += W[a, o + b] * delta
                r[o + b] = new[b]


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
    u = W @ r + q
    chunk = 1
    done = 0
    status, msg = Status.ITERATION_LIMIT, f"no convergence in {max_sweeps} sweeps"
    while done < max_sweeps:
        k = min(chunk, max_sweeps - done)
        _sweeps(W, q, mu, d, r, u, rho, k, local_iter, 1e-14)
        done += k
        u = W @ r + q  # refresh against drift of the incremental updates
        if problem._certify(r, None)[0].value <= tol:
            status, msg = Status.SOLVED, "converged"
            break
        chunk = min(2 * chunk, 16)
    return Raw(r, status, iterations=done, message=msg, w=u)

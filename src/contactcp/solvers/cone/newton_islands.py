"""The global Newton's band path island by island: contacts that share no body are independent
problems, solved one by one (:func:`island_newton`, compiled).

Two contacts are coupled in ``W = H^T M^-1 H`` and in the reduced matrix ``M + H B H^T`` only
through velocities that both their columns of ``H`` reach, or that ``M`` or ``M^-1`` joins (a
body's rows).  The islands are the connected parts of that graph: a pile's separate heaps, the
boxes of a row standing apart.  The problem is then block diagonal, and each island is a global
problem of its own (its velocities, its contacts), which
:func:`~.newton_global_loop.prepared_newton` solves with its own line search, proximal term and
``rho`` schedule: one island that needs many iterations no longer holds the others' steps back to
its line search, and each factorisation is of its own band.  Each island stops when its residual
is within ``tol / 2`` of its own ``||q_i||``; the islands' residuals are the whole problem's by
rows, so the whole residual is then within ``tol / 2`` of ``||q||``.  This is checked on the
assembled point; when it does not hold (an island whose ``q_i`` is zero stops at ``tol / 2`` in
absolute terms) the whole problem's Newton continues from there.  An island that is not solved
hands the whole problem to its Newton from the start, with all its iterations: it costs time, not
the answer.  Each island's bandwidth is held to the whole problem's band rule
(``flops kl_i^2 < n^2``); an island too wide leaves the whole problem to the caller's dense path.

On 99 of the impulse problems of a landing 25-box pile (steps 150-350, a script that replays
them), 9.9 islands on average: the compiled Newton took 291 us a problem instead of 516, in as many
iterations (the most of any island: 8.97 against 8.98).  On the pile's projection problems (7
islands) 202 instead of 248.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from contactcp.linalg.union_find import join, root
from contactcp.solvers.cone.kernels import desaxce_residual, desaxce_residuals_by, residual_scale
from contactcp.solvers.cone.newton_global_loop import ITERATION_LIMIT, NO_BAND, SOLVED, prepared_newton
from contactcp.solvers.cone.woodbury_kernels import w_matvec

__all__ = ["islands", "island_newton", "ISLANDS_FROM"]

#: a start within this relative residual takes the whole problem's Newton (a step or two: one band
#: costs less than the islands' setups; a resting 25-box pile's steps took 0.42 ms island by island
#: against 0.38 whole, a script), farther ones island by island
ISLANDS_FROM = 1e-4


@njit(cache=True, nogil=True)
def _join_pattern(parent, Ap, Ai):
    """Joins the rows and columns of a square matrix's entries (CSR pattern)."""
    for r in range(Ap.shape[0] - 1):
        for p in range(Ap[r], Ap[r + 1]):
            join(parent, r, Ai[p])


@njit(cache=True, nogil=True)
def islands(H_csr, M_csr, inv, d, n_c):
    """``(label, row_label, count)``: each of the ``n_c`` contacts' island and each velocity's
    (numbered from 0 in the order of each island's first contact; -1 for a velocity no contact
    reaches, even through ``M`` or ``M^-1``), and how many islands; ``count`` -1 when some contact's
    columns are all zero (it reaches no velocity)."""
    Hp, Hi = H_csr[0], H_csr[1]
    n = Hp.shape[0] - 1
    parent = np.arange(n)
    _join_pattern(parent, M_csr[0], M_csr[1])
    _join_pattern(parent, inv[0], inv[1])
    first = np.full(n_c, -1, dtype=np.int64)  # a contact's first row; its other rows joined to it
    for r in range(n):
        for p in range(Hp[r], Hp[r + 1]):
            c = Hi[p] // d
            if first[c] < 0:
                first[c] = r
            else:
                join(parent, first[c], r)
    label = np.full(n_c, -1, dtype=np.int64)
    number = np.full(n, -1, dtype=np.int64)
    count = 0
    for c in range(n_c):
        if first[c] < 0:
            return label, number, -1
        top = root(parent, first[c])
        if number[top] < 0:
            number[top] = count
            count += 1
        label[c] = number[top]
    row_label = np.empty(n, dtype=np.int64)
    for r in range(n):
        row_label[r] = number[root(parent, r)]
    return label, row_label, count


@njit(cache=True, nogil=True)
def _restricted(A_csr, rows, colmap):
    """``A[rows][:, cols]`` in CSR form, ``colmap`` each column's local number (-1: not kept)."""
    Ap, Ai, Ax = A_csr
    count = 0
    for r in rows:
        for p in range(Ap[r], Ap[r + 1]):
            if colmap[Ai[p]] >= 0:
                count += 1
    Bp = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    Bi = np.empty(count, dtype=np.int64)
    Bx = np.empty(count)
    k = 0
    for a in range(rows.shape[0]):
        r = rows[a]
        for p in range(Ap[r], Ap[r + 1]):
            if colmap[Ai[p]] >= 0:
                Bi[k], Bx[k] = colmap[Ai[p]], Ax[p]
                k += 1
        Bp[a + 1] = k
    return Bp, Bi, Bx


@njit(cache=True, nogil=True)
def island_newton(
    H_csr, M_csr, inv, q, mu, d, r, qscale, tol, max_iter, eps, eps_floor, armijo, memory, flops, rho_scale
):  # fmt: skip
    """:func:`~.newton_global_loop.prepared_newton`'s answer, island by island when there are
    several (module docstring): ``(r, u, outcome, iterations, rho's shrinks, discarded)``.  The
    iterations are the most any island took, plus the whole problem's when it continues from the
    islands' point (within ``max_iter`` in all).  When an island is not solved, the whole problem's
    Newton runs from the start instead, with all of ``max_iter``: its answer, with the islands'
    iterations as ``discarded`` (else 0): an island that fails costs time, not the answer."""
    Hp, Hi, Hx = H_csr
    Ip, Ii, Ix = inv
    m = q.shape[0]
    u = w_matvec(Hp, Hi, Hx, Ip, Ii, Ix, r)
    for j in range(m):
        u[j] += q[j]
    start = desaxce_residual(r, u, mu, d) / qscale
    if start <= 0.5 * tol:
        return r, u, SOLVED, 0, 0, 0
    label, row_island, count = islands(H_csr, M_csr, inv, d, m // d)
    if count <= 1 or m % d or start <= ISLANDS_FROM:
        return _whole(
            H_csr, M_csr, inv, q, mu, d, r, qscale, tol, max_iter, eps, eps_floor, armijo, memory, flops, rho_scale, 0
        )
    n = Hp.shape[0] - 1
    parts = desaxce_residuals_by(r, u, mu, d, label, count)
    qq = np.zeros(count)  # each island's ||q_i||^2, summed in order (residual_scale's)
    for j in range(m):
        qq[label[j // d]] += q[j] * q[j]
    out = r.copy()
    most, shrinks = 0, 0
    local = np.full(n, -1, dtype=np.int64)
    colmap = np.full(m, -1, dtype=np.int64)
    for g in range(count):
        scale = np.sqrt(qq[g])
        if parts[g] / (scale if scale > np.finfo(np.float64).tiny else 1.0) <= 0.5 * tol:
            continue  # solved at the start (prepared_newton would take no iteration): as it is
        rows = np.flatnonzero(row_island == g)
        cons = np.flatnonzero(label == g)
        for a in range(rows.shape[0]):
            local[rows[a]] = a
        cols = np.empty(cons.shape[0] * d, dtype=np.int64)
        for a in range(cons.shape[0]):
            for k in range(d):
                cols[a * d + k] = cons[a] * d + k
                colmap[cons[a] * d + k] = a * d + k
        Hg = _restricted(H_csr, rows, colmap)
        Mg = _restricted(M_csr, rows, local)
        Ig = _restricted(inv, rows, local)
        qg, rg = q[cols], r[cols]
        # the band rule of the whole problem (flops kl^2 < n^2, its n) for each island's kl
        rule = flops * (rows.shape[0] / n) ** 2
        rg, _, outcome, it, sh = prepared_newton(
            Hg, Mg, Ig, qg, mu[cons], d, rg, residual_scale(qg), tol, max_iter, eps, eps_floor, armijo, memory,
            rule, rho_scale,
        )  # fmt: skip
        if outcome == NO_BAND:  # an island too wide for the band rule: the caller factors all dense
            return r, u, NO_BAND, 0, 0, 0
        most, shrinks = max(most, it), shrinks + sh
        if outcome != SOLVED:  # the whole problem from the start, as without islands
            return _whole(
                H_csr, M_csr, inv, q, mu, d, r, qscale, tol, max_iter, eps, eps_floor, armijo, memory, flops,
                rho_scale, most,
            )  # fmt: skip
        for a in range(cols.shape[0]):
            out[cols[a]] = rg[a]
            colmap[cols[a]] = -1
        for a in range(rows.shape[0]):
            local[rows[a]] = -1
    u = w_matvec(Hp, Hi, Hx, Ip, Ii, Ix, out)
    for j in range(m):
        u[j] += q[j]
    res = desaxce_residual(out, u, mu, d) / qscale
    if res <= 0.5 * tol:
        return out, u, SOLVED, most, shrinks, 0
    if most >= max_iter:  # no iteration left for the whole problem
        return out, u, (SOLVED if res <= tol else ITERATION_LIMIT), most, shrinks, 0
    out, u, outcome, it, sh = prepared_newton(
        H_csr, M_csr, inv, q, mu, d, out, qscale, tol, max_iter - most, eps, eps_floor, armijo, memory, flops,
        rho_scale,
    )  # fmt: skip
    return out, u, outcome, most + it, shrinks + sh, 0


@njit(cache=True, nogil=True)
def _whole(
    H_csr, M_csr, inv, q, mu, d, r, qscale, tol, max_iter, eps, eps_floor, armijo, memory, flops, rho_scale, discarded
):
    """The whole problem's :func:`~.newton_global_loop.prepared_newton`, and ``discarded``."""
    r, u, outcome, it, shrinks = prepared_newton(
        H_csr, M_csr, inv, q, mu, d, r.copy(), qscale, tol, max_iter, eps, eps_floor, armijo, memory, flops, rho_scale
    )  # fmt: skip
    return r, u, outcome, it, shrinks, discarded

"""The global semismooth Newton's iterations in one compiled call, on the band path
(:func:`~contactcp.solvers.cone.newton_global.newton_global`, ``M^{-1}`` sparse and the reduced
matrix a band: rigid bodies, a pile, a stack, a grasp).

The same iteration as the Python loop of :func:`~contactcp.solvers.cone.newton_global.newton_global`
(its docstring: the proximal term's schedule, the damping of ``rho`` when the iteration cycles,
Armijo's line search, nonmonotone), each step's reduced matrix assembled by
:func:`~contactcp.solvers.cone.woodbury_kernels.woodbury_band` and factored by
:mod:`~contactcp.solvers.cone.band_kernels` (Cholesky when it is symmetric and positive definite,
else LU with partial pivoting).  On 500 steps of a 25-box pile (a script) the Newton iterations
took about 1.05 ms a step in the Python loop (its compiled pieces, LAPACK's wrappers and the calls
between them) and 0.79 ms in this one call.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from contactcp.solvers.cone.band_kernels import band_cholesky, band_cholesky_solve, band_lu, band_lu_solve
from contactcp.solvers.cone.kernels import ac_merit, ac_phi_D, desaxce_residual
from contactcp.solvers.cone.woodbury_kernels import (
    band_order,
    csr_columns,
    csr_symmetric,
    w_diagonal,
    w_matvec,
    woodbury_back,
    woodbury_band,
)

__all__ = [
    "newton_band",
    "prepared_newton",
    "block_rho_of",
    "band_step",
    "SOLVED",
    "ITERATION_LIMIT",
    "SINGULAR",
    "LINE_SEARCH",
    "NO_BAND",
]

#: :func:`newton_band`'s outcomes, and :func:`prepared_newton`'s when the reduced matrix is not a band
SOLVED, ITERATION_LIMIT, SINGULAR, LINE_SEARCH = range(4)
NO_BAND = -1


@njit(cache=True, nogil=True)
def band_step(band, H_csc, D, rho, phi, eps, d):
    """The proximal Newton step ``dr`` (:func:`~contactcp.solvers.cone.newton_global._reduced_step`)
    and whether it is defined (every ``A_i`` and the reduced matrix nonsingular, ``dr`` finite)."""
    Mp, Mi, Mx, iperm, kl, general = band
    Hp, Hi, Hx = H_csc
    n = iperm.shape[0]
    ab, rhs, B, z, ok, symmetric = woodbury_band(Mp, Mi, Mx, iperm, kl, Hp, Hi, Hx, D, rho, phi, eps, d, general)
    if not ok:
        return z, False
    if symmetric and not band_cholesky(ab, kl):  # not positive definite to rounding: LU
        ab, rhs, B, z, ok, symmetric = woodbury_band(Mp, Mi, Mx, iperm, kl, Hp, Hi, Hx, D, rho, phi, eps, d, True)
    if symmetric:
        band_cholesky_solve(ab, kl, rhs)
    else:
        ipiv = np.empty(n, dtype=np.int64)
        if not band_lu(ab, kl, ipiv):
            return z, False
        band_lu_solve(ab, kl, ipiv, rhs)
    s = np.empty(n)
    for r in range(n):
        s[r] = rhs[iperm[r]]
    dr = woodbury_back(Hp, Hi, Hx, B, z, s, d)
    for x in dr:
        if not math.isfinite(x):
            return dr, False
    return dr, True


@njit(cache=True, nogil=True)
def newton_band(band, H_csc, H_csr, inv, r, u, mu, rho, d, qscale, tol, max_iter, eps, eps_floor, armijo, memory):
    """Newton's iterations from ``(r, u)`` (``u = W r + q``), the first not yet solved.  ``band``:
    ``(Mp, Mi, Mx, iperm, kl, general)`` (:func:`~contactcp.solvers.cone.newton_global._band_order`);
    ``H_csc`` ``H`` by columns, ``H_csr`` and ``inv`` (``M^{-1}``) by rows; ``memory``: the line
    search's reference is the largest merit of the last ``memory`` iterations (since ``rho`` last
    changed; 1: Armijo's monotone rule).  Returns ``(r, u, outcome, iterations, rho's shrinks)``."""
    Hp, Hi, Hx = H_csr
    Ip, Ii, Ix = inv
    aim = 0.5 * tol  # as the Python loop: below tol, the registry's residual adds v's and u's rounding
    best, since_best, shrinks, ls_fail = np.inf, 0, 0, 0
    outcome, it = ITERATION_LIMIT, 0
    merits, kept = np.empty(max(memory, 1)), 0  # the last merits, a ring, since rho last changed
    for k in range(1, max_iter + 1):
        it = k
        res = desaxce_residual(r, u, mu, d) / qscale
        if res <= aim:
            return r, u, SOLVED, k - 1, shrinks
        if res < 0.5 * best:
            best, since_best = res, 0
        else:
            since_best += 1
            if since_best >= 6 and shrinks < 3:  # the semismooth iteration cycles: damp the projections
                rho, shrinks, since_best, ls_fail = rho * 0.1, shrinks + 1, 0, 0
                kept = 0  # a new rho, a new merit: the old values do not compare
        phi, D = ac_phi_D(r, u, mu, rho, d, True)
        theta = 0.0
        for x in phi:  # no BLAS: the same sum on every CPU
            theta += x * x
        theta *= 0.5
        merits[kept % merits.shape[0]] = theta
        kept += 1
        ref = theta
        for j in range(min(kept, merits.shape[0])):
            ref = max(ref, merits[j])
        dr, ok = band_step(band, H_csc, D, rho, phi, min(eps, max(eps_floor, 1e-2 * math.sqrt(res))), d)
        if not ok:
            return r, u, SINGULAR, k, shrinks
        du = w_matvec(Hp, Hi, Hx, Ip, Ii, Ix, dr)
        t = 1.0
        while ac_merit(r, u, dr, du, t, mu, rho, d) > (1 - 2 * armijo * t) * theta + (ref - theta) and t >= 1e-10:
            t *= 0.5
        if t < 1e-10:
            ls_fail += 1
            if ls_fail > 5:
                return r, u, LINE_SEARCH, k, shrinks
        r, u = r + t * dr, u + t * du
    if desaxce_residual(r, u, mu, d) / qscale <= tol:  # the last step landed within tol
        outcome = SOLVED
    return r, u, outcome, it, shrinks


@njit(cache=True, nogil=True)
def block_rho_of(diag, d):
    """``rho_i = d / max(trace(W_ii), floor)`` from ``diag(W)`` (:func:`~.newton_global.block_rho`),
    ``floor`` 1e-8 of the mean positive trace, ``1`` when none is positive; sums in order."""
    n_c = diag.shape[0] // d
    tr = np.empty(n_c)
    total, count = 0.0, 0
    for i in range(n_c):
        s = 0.0
        for k in range(d):
            s += abs(diag[i * d + k])
        tr[i] = s
        if s > 0.0:
            total += s
            count += 1
    floor = total / count * 1e-8 if count else 1.0
    rho = np.empty(n_c)
    for i in range(n_c):
        rho[i] = d / max(tr[i], floor)
    return rho


@njit(cache=True, nogil=True)
def prepared_newton(
    H_csr, M_csr, inv, q, mu, d, r, qscale, tol, max_iter, eps, eps_floor, armijo, memory, flops, rho_scale
):  # fmt: skip
    """The global Newton's band path from its arrays (:func:`~.newton_global.newton_global` and the
    stepper's :mod:`~.newton_global_direct` both run it): ``H_csr`` the problem's ``H`` (``n x m``),
    ``M_csr`` its mass matrix, ``inv`` ``M^{-1}`` (all CSR, int64 indices), ``q`` the local ``q``,
    ``r`` the start.  Returns ``(r, u, outcome, iterations, rho's shrinks)``: ``SOLVED`` with 0
    iterations when the start is already within half of ``tol`` (the registry's measure adds ``v``'s
    and ``u``'s rounding); :data:`NO_BAND` when the reduced matrix's half-bandwidth ``kl`` has
    ``flops kl^2 >= n^2`` (:func:`~.newton_global._band_order`); else :func:`newton_band`'s, with
    :func:`block_rho_of`'s ``rho`` times ``rho_scale`` (1 but for the stepper's one-dimensional
    position projection: :func:`~contactcp.simulate.stepping.moreau_jean._gap_newton`)."""
    Hp, Hi, Hx = H_csr
    Mp, Mi, Mx = M_csr
    Ip, Ii, Ix = inv
    n, m = Mp.shape[0] - 1, q.shape[0]
    u = w_matvec(Hp, Hi, Hx, Ip, Ii, Ix, r)
    for j in range(m):
        u[j] += q[j]
    if desaxce_residual(r, u, mu, d) / qscale <= 0.5 * tol:
        return r, u, SOLVED, 0, 0
    Cp, Ci, Cx = csr_columns(Hp, Hi, Hx, m)
    rho = block_rho_of(w_diagonal(Cp, Ci, Cx, Ip, Ii, Ix, n), d)
    if rho_scale != 1.0:
        rho *= rho_scale
    iperm, kl = band_order(Mp, Mi, Cp, Ci, d, n)
    if flops * kl * kl >= n * n:
        return r, u, NO_BAND, 0, 0
    band = (Mp, Mi, Mx, iperm, kl, not csr_symmetric(Mp, Mi, Mx))
    return newton_band(
        band, (Cp, Ci, Cx), H_csr, inv, r, u, mu, rho, d, qscale, tol, max_iter, eps, eps_floor, armijo, memory
    )

"""The compiled NSGS run: steps, chunked sweeps, the stopping and the rate tests in one call.

:func:`nsgs_run` is what :func:`contactcp.solvers.cone.nsgs.nsgs` runs: a one-contact problem then
costs one compiled call instead of a dozen numpy and scipy calls (benchmarks/results/fclib.md: the
small FCLIB problems).  The sweeps are :func:`~contactcp.solvers.cone.kernels.gauss_seidel_sweeps`
(dense ``W``) and :func:`~contactcp.solvers.cone.block_sparse.bsr_sweep` (a sparse ``W`` in block
storage), accelerated by Anderson's method (:mod:`~contactcp.solvers.cone.anderson`); the rate test's
readable reference is :func:`contactcp.solvers.cone.nsgs.hopeless`, tested against it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from contactcp.problems._coulomb import coulomb_residual
from contactcp.solvers.cone.anderson import _diff_dot, anderson_candidate
from contactcp.solvers.cone.block_sparse import bsr_sweep, bsr_velocity, csr_to_bsr
from contactcp.solvers.cone.kernels import (
    _csr_diagonal_blocks,
    desaxce_residual,
    gauss_seidel_sweeps,
    gauss_seidel_sweeps_csr,
    zero_block,
)
from contactcp.solvers.cone.one_contact import block_inverses

#: a sparse ``W`` of at least this many contacts goes to block storage before the first sweep (FCLIB's
#: Kapla tower, 570 contacts: a sweep in CSR 313 us, in block storage about 100, the conversion 270,
#: the diagonal blocks from CSR 100; a script, best of 20); smaller ones after the first test, when one
#: sweep has not solved them (NESpheres_30_1, 44 contacts, is solved by one)
BSR_FIRST = 100


@njit(cache=True, nogil=True)
def _block_steps(blocks):
    """Each contact's fallback step for the sweeps: 0 for a zero block (a contact they skip), else -1
    (``1 / lambda_max``, worked out if the exact local solve ever fails)."""
    out = np.empty(blocks.shape[0])
    for i in range(blocks.shape[0]):
        out[i] = 0.0 if zero_block(blocks, i) else -1.0
    return out


@njit(cache=True, nogil=True)
def _diagonal(indptr, indices, data, W, sparse, d, n_c):
    """The diagonal blocks ``W_ii`` of a dense ``W`` or CSR arrays."""
    if sparse:
        return _csr_diagonal_blocks(indptr, indices, data, d, n_c)
    blocks = np.empty((n_c, d, d))
    for i in range(n_c):
        for a in range(d):
            for b in range(d):
                blocks[i, a, b] = W[i * d + a, i * d + b]
    return blocks


@njit(cache=True, nogil=True)
def _bsr_diagonal(bptr, bidx, B, d, n_c):
    """The diagonal blocks ``W_ii`` from the block storage (zero where none is stored)."""
    blocks = np.zeros((n_c, d, d))
    for i in range(n_c):
        for k in range(bptr[i], bptr[i + 1]):
            if bidx[k] == i:
                blocks[i] = B[k]
    return blocks


@njit(cache=True, nogil=True)
def _no_blocks(d):
    """Empty block storage (``W`` dense, or not yet converted)."""
    return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, d, d))


@njit(cache=True, nogil=True)
def _sweep(S, W, sparse, blocks, inv, q, mu, x, d, local_iter, steps):
    """One NSGS sweep in place on ``x``: ``S = (indptr, indices, data, bptr, bidx, B)``, the block storage
    when it is filled (:func:`~contactcp.solvers.cone.block_sparse.csr_to_bsr`), else CSR; or dense ``W``."""
    indptr, indices, data, bptr, bidx, B = S
    if not sparse:
        gauss_seidel_sweeps(W, blocks, inv, q, mu, x, d, 1, local_iter, steps, 1e-14)
    elif bidx.shape[0] > 0:
        bsr_sweep(bptr, bidx, B, blocks, inv, q, mu, x, d, local_iter, steps, 1e-14)
    else:
        gauss_seidel_sweeps_csr(indptr, indices, data, blocks, inv, q, mu, x, d, 1, local_iter, steps, 1e-14)


@njit(cache=True, nogil=True)
def _velocity(S, W, sparse, q, r, u, d):
    """``u = W r + q`` (storage as :func:`_sweep`)."""
    indptr, indices, data, bptr, bidx, B = S
    if sparse and bidx.shape[0] > 0:
        bsr_velocity(bptr, bidx, B, q, r, u, d)
        return
    n = q.shape[0]
    for i in range(n):
        s = q[i]
        if sparse:
            for p in range(indptr[i], indptr[i + 1]):
                s += data[p] * r[indices[p]]
        else:
            for j in range(n):
                s += W[i, j] * r[j]
        u[i] = s


@njit(cache=True, nogil=True)
def _norm_diff(a, b):
    """``||a - b||_2`` (:func:`~contactcp.solvers.cone.anderson._diff_dot`'s four partial sums)."""
    return np.sqrt(_diff_dot(a, b, a, b))


@njit(cache=True, nogil=True)
def _anderson_sweep(
    S, W, sparse, blocks, inv, q, mu, d, local_iter, steps, GH, FH, npairs, head, x, r, cand, gc, fnorm
):
    """Anderson's step: store the pair ``(r = G(x), r - x)``, extrapolate from the stored pairs
    (:func:`~contactcp.solvers.cone.anderson.anderson_candidate`) and sweep from the extrapolated point;
    the point is kept (``x``, ``r`` replaced) when that sweep moves it less than ``fnorm``, the last plain
    sweep's move, else the pairs are dropped.  Returns ``(sweeps, kept, npairs, head, fnorm)``."""
    m1 = GH.shape[0]
    head = (head + 1) % m1
    for j in range(r.shape[0]):
        GH[head, j] = r[j]
        FH[head, j] = r[j] - x[j]
    npairs = min(npairs + 1, m1)
    if npairs < 2 or not anderson_candidate(GH, FH, npairs, head, mu, d, cand):
        return 0, False, npairs, head, fnorm
    gc[:] = cand
    _sweep(S, W, sparse, blocks, inv, q, mu, gc, d, local_iter, steps)
    fc = _norm_diff(gc, cand)
    if fc < fnorm:
        x[:] = cand
        r[:] = gc
        return 1, True, npairs, head, fc
    return 1, False, 0, head, fnorm


@njit(cache=True, nogil=True)
def nsgs_run(indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up, anderson):
    """:func:`_nsgs_core` without the certified first test: ``(code, sweeps, u)``."""
    code, done, u, _ = _nsgs_core(
        indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up, anderson, False, 0.0
    )
    return code, done, u


@njit(cache=True, nogil=True)
def _nsgs_core(
    indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up, anderson, certify, mu_max
):
    """The whole NSGS iteration of :mod:`contactcp.solvers.cone.nsgs` in one compiled call.

    A sparse ``W`` (CSR arrays) is swept in block storage (:mod:`~contactcp.solvers.cone.block_sparse`)
    from the first test that does not stop (the conversion costs about two sweeps: a problem solved by
    one sweep is not converted).
    Stopping tests after 1, 3, 7, 15 sweeps, then after as many as the observed rate says reach the
    tolerance (:func:`_next_chunk`): the method's own test ``||natural map|| / ||q|| <= 0.9 tol``, and
    with ``give_up`` the rate test of :func:`contactcp.solvers.cone.nsgs.hopeless` (over the last 64 or
    more sweeps).

    With ``anderson = m > 0`` the sweeps are a fixed-point map ``G`` accelerated by Anderson's method
    on the last ``m + 1`` pairs (:func:`_anderson_sweep`), safeguarded: the extrapolated point
    (projected on the cones) is kept when its own sweep moves less than the last plain one
    (``||G(c) - c|| < ||G(x) - x||``), else the pairs are dropped and a plain sweep follows; and the
    acceleration is switched off for good, back to the best point tested, when a test finds the residual
    above twice the best one.  Sweeps count evaluations of ``G``.  Returns ``(code, sweeps, u, measure)``
    with code 0 converged, 1 sweep limit, 2 given up; ``r`` is updated in place (to the newest ``G(x)``).

    With ``certify``, the first test (after one sweep) is the problem's certified measure
    (:func:`~contactcp.problems._coulomb.coulomb_residual`, ``mu_max`` the largest ``mu``), which stops
    the run when it is within ``tol`` and is then returned as ``measure`` (``measure[0]`` True); most
    small problems stop there, and the caller's certification would repeat that pass.  Otherwise
    ``measure[0]`` is False.
    """
    n = q.shape[0]
    n_c = mu.shape[0]
    if sparse and n_c >= BSR_FIRST:
        S = (indptr, indices, data) + csr_to_bsr(indptr, indices, data, d, n_c)
        blocks = _bsr_diagonal(S[3], S[4], S[5], d, n_c)
    else:
        S = (indptr, indices, data) + _no_blocks(d)
        blocks = _diagonal(indptr, indices, data, W, sparse, d, n_c)
    steps = _block_steps(blocks)
    inv = block_inverses(blocks)
    best = r.copy()
    x = r.copy()
    _sweep(S, W, sparse, blocks, inv, q, mu, r, d, local_iter, steps)
    fnorm = _norm_diff(r, x)
    u = np.empty(n)
    measure = (False, np.inf, np.inf, np.inf, np.inf, np.inf, 1.0, u)
    first = measure
    if certify:  # before the run's work arrays: a problem one sweep solves allocates no more
        first = coulomb_residual(indptr, indices, data, W, sparse, r, q, mu, d, mu_max)
        if first[0] and first[1] <= tol:
            return 0, 1, first[7], first
    qn = 0.0
    for i in range(n):
        qn += q[i] * q[i]
    qn = np.sqrt(qn) if qn > 0.0 else 1.0
    hist_k = np.empty(max_sweeps + 2, dtype=np.int64)
    hist_v = np.empty(max_sweeps + 2)
    m1 = anderson + 1 if anderson > 0 else 1
    GH = np.empty((m1, n))
    FH = np.empty((m1, n))
    cand, gc = np.empty(n), np.empty(n)
    nh, chunk, code, npairs, head, best_v, accel = 0, 1, 1, 0, -1, np.inf, anderson > 0
    done, target = 1, 1
    while True:
        if done >= target or done >= max_sweeps:
            m = first if nh == 0 else measure
            if m[0]:  # the certified measure is the test's value (its own rounding allowance added)
                u[:] = m[7]
                value = m[1]
            else:
                _velocity(S, W, sparse, q, r, u, d)
                value = desaxce_residual(r, u, mu, d) / qn
            if value <= 0.9 * tol:
                code = 0
                break
            if done >= max_sweeps:
                break
            hist_k[nh], hist_v[nh] = done, value
            nh += 1
            if value < best_v:
                best_v = value
                best[:] = r
            elif accel and value > 2.0 * best_v:  # the extrapolation leads astray: plain sweeps from the best
                accel, npairs = False, 0
                r[:] = best
                _velocity(S, W, sparse, q, r, u, d)  # u returned with r, should the rate test stop here
            if give_up and _hopeless(hist_k, hist_v, nh, tol, max_sweeps - done):
                code = 2
                break
            chunk = _next_chunk(hist_k, hist_v, nh, tol, chunk)
            target = done + chunk
            if sparse and S[4].shape[0] == 0:
                S = (indptr, indices, data) + csr_to_bsr(indptr, indices, data, d, n_c)
        if accel:
            used, kept, npairs, head, fnorm = _anderson_sweep(
                S, W, sparse, blocks, inv, q, mu, d, local_iter, steps, GH, FH, npairs, head, x, r, cand, gc, fnorm
            )
            done += used
            if kept or (used and (done >= target or done >= max_sweeps)):
                continue  # a kept point, or the test first (the plain sweep follows)
        x[:] = r
        _sweep(S, W, sparse, blocks, inv, q, mu, r, d, local_iter, steps)
        done += 1
        fnorm = _norm_diff(r, x)
    return code, done, u, measure


@njit(cache=True, nogil=True)
def nsgs_measured(
    indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up, anderson, mu_max
):
    """:func:`nsgs_run`, then the problem's own measure of its answer
    (:func:`~contactcp.problems._coulomb.coulomb_residual`, the compiled certifier that
    :meth:`FrictionContactProblem._certify` calls) in the same compiled call: ``(code, sweeps, measure)``.
    The first test after one sweep is that measure (:func:`_nsgs_core`'s ``certify``): a problem one
    sweep solves is measured once (NESpheres_30_1, 44 contacts: the call 15.0 -> 12.1 us)."""
    code, done, _, measure = _nsgs_core(
        indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up, anderson, True, mu_max
    )
    if measure[0]:
        return code, done, measure
    return code, done, coulomb_residual(indptr, indices, data, W, sparse, r, q, mu, d, mu_max)


@njit(cache=True, nogil=True)
def _next_chunk(hist_k, hist_v, nh, tol, chunk):
    """The sweeps before the next stopping test: as many as the rate of the last two tests says reach
    ``0.9 tol`` (at least 1, at most 16); twice the last chunk (at most 16) while there is no rate."""
    if nh >= 2 and 0.0 < hist_v[nh - 1] < hist_v[nh - 2]:
        rate = np.log(hist_v[nh - 1] / hist_v[nh - 2]) / (hist_k[nh - 1] - hist_k[nh - 2])
        need = min(np.log(0.9 * tol / hist_v[nh - 1]) / rate, 16.0)  # bounded before the int conversion
        return max(1, int(np.ceil(need)))
    return min(2 * chunk, 16)


@njit(cache=True, nogil=True)
def _hopeless(hist_k, hist_v, nh, tol, left):
    """Whether the rate observed over the last 64 (or more) sweeps cannot reach ``tol`` in ``4 * left``
    sweeps: the reference point is the last record at least 64 sweeps back; a residual that did not
    decrease since then is hopeless."""
    done = hist_k[nh - 1]
    value = hist_v[nh - 1]
    j = -1
    for m in range(nh):
        if hist_k[m] <= done - 64:
            j = m
    if j < 0:
        return False
    k0 = hist_k[j]
    v0 = hist_v[j]
    if not (0.0 < value < v0):
        return value >= v0
    rate = np.log(value / v0) / (done - k0)
    return np.log(tol / value) / rate > 4 * left


@njit(cache=True, parallel=True)
def nsgs_batch(W, q, mu, R, d, max_sweeps, local_iter, tol, anderson):
    """:func:`nsgs_run` on ``K`` problems with dense ``W[k]`` (``R[k]`` updated in place), in parallel over
    ``k``: ``(codes, sweeps)``."""
    K = q.shape[0]
    codes = np.empty(K, dtype=np.int64)
    done = np.empty(K, dtype=np.int64)
    none_i = np.zeros(0, dtype=np.int64)
    none_f = np.zeros(0)
    for k in prange(K):
        c, s, _ = nsgs_run(
            none_i, none_i, none_f, W[k], False, q[k], mu[k], R[k], d, max_sweeps, local_iter, tol, False, anderson
        )
        codes[k] = c
        done[k] = s
    return codes, done

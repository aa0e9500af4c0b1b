"""The compiled NSGS run: steps, chunked sweeps, the stopping and the rate tests in one call.

:func:`nsgs_run` is what :func:`contactcp.solvers.cone.nsgs.nsgs` runs: a one-contact problem then
costs one compiled call instead of a dozen numpy and scipy calls (benchmarks/results/fclib.md: the
small FCLIB problems).  The sweeps are :func:`~contactcp.solvers.cone.kernels.gauss_seidel_sweeps`
(dense ``W``) and :func:`~contactcp.solvers.cone.kernels.gauss_seidel_sweeps_csr` (CSR arrays); the
rate test's readable reference is :func:`contactcp.solvers.cone.nsgs.hopeless`, tested against it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from contactcp.problems._coulomb import coulomb_measure, project_cone
from contactcp.solvers.cone.kernels import (
    _csr_diagonal_blocks,
    desaxce_residual,
    gauss_seidel_sweeps,
    gauss_seidel_sweeps_csr,
)


@njit(cache=True, nogil=True)
def _velocity(indptr, indices, data, W, sparse, q, r, u):
    """``u = W r + q`` (dense ``W``, or CSR arrays when ``sparse``)."""
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
def _block_steps(blocks):
    """Each contact's fallback step for :func:`gauss_seidel_sweeps`: 0 for a zero block (a contact it
    skips), else -1 (``1 / lambda_max``, worked out if the exact local solve ever fails)."""
    n_c, d, _ = blocks.shape
    out = np.empty(n_c)
    for i in range(n_c):
        zero = True
        for a in range(d):
            for b in range(d):
                if blocks[i, a, b] != 0.0:
                    zero = False
        out[i] = 0.0 if zero else -1.0
    return out


@njit(cache=True, nogil=True)
def _sweep(indptr, indices, data, W, sparse, blocks, q, mu, x, d, local_iter, steps):
    """One NSGS sweep in place on ``x`` (dense ``W`` or CSR arrays)."""
    if sparse:
        gauss_seidel_sweeps_csr(indptr, indices, data, blocks, q, mu, x, d, 1, local_iter, steps, 1e-14)
    else:
        gauss_seidel_sweeps(W, blocks, q, mu, x, d, 1, local_iter, steps, 1e-14)


@njit(cache=True, nogil=True)
def _anderson_candidate(GH, FH, nh, head, mu, d, out):
    """Anderson's extrapolation (type II; Walker & Ni, *Anderson acceleration for fixed-point
    iterations*, SIAM J. Numer. Anal. 2011) from the last ``nh`` pairs ``(G(x_j), f_j = G(x_j) - x_j)``
    of the ring buffers ``GH``, ``FH`` (newest at ``head``): ``G(x_k) - dG gamma`` with ``gamma`` the
    least-squares solution of ``dF gamma = f_k`` (differences of consecutive pairs; normal equations,
    Tikhonov-regularised by 1e-12 of their trace), projected on the cones.  False when the normal
    equations are singular (the pairs carry no new direction)."""
    m1 = GH.shape[0]
    k = nh - 1  # number of differences
    A = np.zeros((k, k))
    b = np.zeros(k)
    n = GH.shape[1]
    newest = head
    for a in range(k):
        ia1 = (head - a + m1) % m1
        ia0 = (head - a - 1 + m1) % m1
        for c in range(a, k):
            ic1 = (head - c + m1) % m1
            ic0 = (head - c - 1 + m1) % m1
            s = 0.0
            for j in range(n):
                s += (FH[ia1, j] - FH[ia0, j]) * (FH[ic1, j] - FH[ic0, j])
            A[a, c] = s
            A[c, a] = s
        s = 0.0
        for j in range(n):
            s += (FH[ia1, j] - FH[ia0, j]) * FH[newest, j]
        b[a] = s
    tr = 0.0
    for a in range(k):
        tr += A[a, a]
    if not (tr > 0.0 and np.isfinite(tr)):
        return False
    for a in range(k):
        A[a, a] += 1e-12 * tr
    # Cholesky of the small k x k system
    L = np.zeros((k, k))
    for a in range(k):
        s = A[a, a]
        for c in range(a):
            s -= L[a, c] * L[a, c]
        if not s > 0.0:
            return False
        L[a, a] = np.sqrt(s)
        for e in range(a + 1, k):
            t = A[e, a]
            for c in range(a):
                t -= L[e, c] * L[a, c]
            L[e, a] = t / L[a, a]
    y = np.zeros(k)
    for a in range(k):
        t = b[a]
        for c in range(a):
            t -= L[a, c] * y[c]
        y[a] = t / L[a, a]
    gamma = np.zeros(k)
    for a in range(k - 1, -1, -1):
        t = y[a]
        for c in range(a + 1, k):
            t -= L[c, a] * gamma[c]
        gamma[a] = t / L[a, a]
    for j in range(n):
        out[j] = GH[newest, j]
    for a in range(k):
        ia1 = (head - a + m1) % m1
        ia0 = (head - a - 1 + m1) % m1
        g = gamma[a]
        for j in range(n):
            out[j] -= g * (GH[ia1, j] - GH[ia0, j])
    for i in range(mu.shape[0]):
        project_cone(out[i * d : (i + 1) * d], mu[i], d)
    for j in range(n):
        if not np.isfinite(out[j]):
            return False
    return True


@njit(cache=True, nogil=True)
def _norm_diff(a, b):
    s = 0.0
    for j in range(a.shape[0]):
        t = a[j] - b[j]
        s += t * t
    return np.sqrt(s)


@njit(cache=True, nogil=True)
def nsgs_run(indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up, anderson):
    """The whole NSGS iteration of :mod:`contactcp.solvers.cone.nsgs` in one compiled call.

    Sweeps in chunks of 1, 2, 4, 8, then 16, or as many as the observed rate says reach the tolerance
    (:func:`_next_chunk`); after each chunk the method's own stopping test
    ``||natural map|| / ||q|| <= 0.9 tol``, and with ``give_up`` the rate test of
    :func:`contactcp.solvers.cone.nsgs.hopeless` (over the last 64 or more sweeps).

    With ``anderson = m > 0`` the sweeps are a fixed-point map ``G`` accelerated by Anderson's method
    on the last ``m + 1`` pairs (:func:`_anderson_candidate`), safeguarded: the extrapolated point
    (projected on the cones) is kept when its own sweep moves less than the last plain one
    (``||G(c) - c|| < ||G(x) - x||``), else the history is dropped and a plain sweep follows; and
    the acceleration is switched off for good, back to the best point seen, when a stopping test finds
    the residual above twice the best one.  Sweeps count evaluations of ``G``.  Returns
    ``(code, sweeps, u)`` with code 0 converged, 1 sweep limit, 2 given up; ``r`` is updated in place.
    """
    n_c = mu.shape[0]
    n = q.shape[0]
    if sparse:
        blocks = _csr_diagonal_blocks(indptr, indices, data, d, n_c)
    else:
        blocks = np.empty((n_c, d, d))
        for i in range(n_c):
            for a in range(d):
                for b in range(d):
                    blocks[i, a, b] = W[i * d + a, i * d + b]
    steps = _block_steps(blocks)
    qn = 0.0
    for i in range(n):
        qn += q[i] * q[i]
    qn = np.sqrt(qn)
    if qn == 0.0:
        qn = 1.0
    u = np.empty(n)
    hist_k = np.empty(max_sweeps + 2, dtype=np.int64)
    hist_v = np.empty(max_sweeps + 2)
    nh = 0
    chunk = 1
    done = 0
    code = 1
    m1 = anderson + 1 if anderson > 0 else 1
    GH = np.empty((m1, n))
    FH = np.empty((m1, n))
    x = r.copy()  # the point G is applied to; r holds G(x), the newest sweep's output
    cand = np.empty(n)
    gc = np.empty(n)
    best = r.copy()
    best_v = np.inf
    accel = anderson > 0
    npairs = 0
    head = -1
    _sweep(indptr, indices, data, W, sparse, blocks, q, mu, r, d, local_iter, steps)
    fnorm = _norm_diff(r, x)
    done = 1
    target = 1
    while True:
        if done >= target or done >= max_sweeps:
            _velocity(indptr, indices, data, W, sparse, q, r, u)
            value = desaxce_residual(r, u, mu, d) / qn
            if value <= 0.9 * tol:
                code = 0
                break
            if done >= max_sweeps:
                break
            hist_k[nh] = done
            hist_v[nh] = value
            nh += 1
            if value < best_v:
                best_v = value
                best[:] = r
            elif accel and value > 2.0 * best_v:  # the extrapolation leads astray: plain sweeps from the best point
                accel = False
                r[:] = best
                npairs = 0
            if give_up and _hopeless(hist_k, hist_v, nh, tol, max_sweeps - done):
                code = 2
                break
            chunk = _next_chunk(hist_k, hist_v, nh, tol, chunk)
            target = done + chunk
        if accel:
            head = (head + 1) % m1
            for j in range(n):
                GH[head, j] = r[j]
                FH[head, j] = r[j] - x[j]
            npairs = min(npairs + 1, m1)
            if npairs >= 2 and _anderson_candidate(GH, FH, npairs, head, mu, d, cand):
                gc[:] = cand
                _sweep(indptr, indices, data, W, sparse, blocks, q, mu, gc, d, local_iter, steps)
                done += 1
                fc = _norm_diff(gc, cand)
                if fc < fnorm:
                    x[:] = cand
                    r[:] = gc
                    fnorm = fc
                    continue
                npairs = 0
                if done >= target or done >= max_sweeps:
                    continue  # the test first; the plain sweep follows
        x[:] = r
        _sweep(indptr, indices, data, W, sparse, blocks, q, mu, r, d, local_iter, steps)
        done += 1
        fnorm = _norm_diff(r, x)
    return code, done, u


@njit(cache=True, nogil=True)
def nsgs_measured(
    indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up, anderson, mu_max
):
    """:func:`nsgs_run`, then the problem's own measure of its answer
    (:func:`~contactcp.problems._coulomb.coulomb_measure`, the compiled certifier that
    :meth:`FrictionContactProblem._certify` calls) in the same compiled call: ``(code, sweeps, measure)``."""
    code, done, _ = nsgs_run(
        indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up, anderson
    )
    return code, done, coulomb_measure(indptr, indices, data, W, sparse, r, q, mu, d, mu_max)


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

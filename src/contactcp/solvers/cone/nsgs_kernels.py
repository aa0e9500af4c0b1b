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

from contactcp.problems._coulomb import coulomb_measure
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
def nsgs_run(indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up):
    """The whole NSGS iteration of :mod:`contactcp.solvers.cone.nsgs` in one compiled call.

    Sweeps in chunks of 1, 2, 4, 8, then 16, or as many as the observed rate says reach the tolerance
    (:func:`_next_chunk`); after each chunk the method's own stopping test
    ``||natural map|| / ||q|| <= 0.9 tol``, and with ``give_up`` the rate test of
    :func:`contactcp.solvers.cone.nsgs.hopeless` (over the last 64 or more sweeps).  Returns
    ``(code, sweeps, u)`` with code 0 converged, 1 sweep limit, 2 given up; ``r`` is updated in place.
    """
    n_c = mu.shape[0]
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
    for i in range(q.shape[0]):
        qn += q[i] * q[i]
    qn = np.sqrt(qn)
    if qn == 0.0:
        qn = 1.0
    u = np.empty(q.shape[0])
    hist_k = np.empty(max_sweeps + 1, dtype=np.int64)
    hist_v = np.empty(max_sweeps + 1)
    nh = 0
    chunk = 1
    done = 0
    code = 1
    while done < max_sweeps:
        k = min(chunk, max_sweeps - done)
        if sparse:
            gauss_seidel_sweeps_csr(indptr, indices, data, blocks, q, mu, r, d, k, local_iter, steps, 1e-14)
        else:
            gauss_seidel_sweeps(W, blocks, q, mu, r, d, k, local_iter, steps, 1e-14)
        done += k
        _velocity(indptr, indices, data, W, sparse, q, r, u)
        value = desaxce_residual(r, u, mu, d) / qn
        if value <= 0.9 * tol:
            code = 0
            break
        hist_k[nh] = done
        hist_v[nh] = value
        nh += 1
        if give_up and _hopeless(hist_k, hist_v, nh, tol, max_sweeps - done):
            code = 2
            break
        chunk = _next_chunk(hist_k, hist_v, nh, tol, chunk)
    return code, done, u


@njit(cache=True, nogil=True)
def nsgs_measured(indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up, mu_max):
    """:func:`nsgs_run`, then the problem's own measure of its answer
    (:func:`~contactcp.problems._coulomb.coulomb_measure`, the compiled certifier that
    :meth:`FrictionContactProblem._certify` calls) in the same compiled call: ``(code, sweeps, measure)``."""
    code, done, _ = nsgs_run(indptr, indices, data, W, sparse, q, mu, r, d, max_sweeps, local_iter, tol, give_up)
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
def nsgs_batch(W, q, mu, R, d, max_sweeps, local_iter, tol):
    """:func:`nsgs_run` on ``K`` problems with dense ``W[k]`` (``R[k]`` updated in place), in parallel over
    ``k``: ``(codes, sweeps)``."""
    K = q.shape[0]
    codes = np.empty(K, dtype=np.int64)
    done = np.empty(K, dtype=np.int64)
    none_i = np.zeros(0, dtype=np.int64)
    none_f = np.zeros(0)
    for k in prange(K):
        c, s, _ = nsgs_run(
            none_i, none_i, none_f, W[k], False, q[k], mu[k], R[k], d, max_sweeps, local_iter, tol, False
        )
        codes[k] = c
        done[k] = s
    return codes, done

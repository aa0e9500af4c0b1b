"""Compiled residual arithmetic for the linear problems.

This code is deliberately separate from every solver: it is the independent
check that decides whether an answer is certified.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def lcp_residual_parts(M, q, z, free):
    """``(w, natural, z_viol, w_viol, |z.w|, equation, scale)`` for ``w = M z + q``.

    Rows with ``free[i]`` are equations (``w_i = 0``); the others are
    complementarity pairs ``(z_i, w_i)``.  ``scale = max(1, max|q|, max_i sum_j |M_ij z_j|)``.
    """
    n = q.shape[0]
    w = np.empty(n)
    scale = 1.0
    natural = 0.0
    zv = 0.0
    wv = 0.0
    zw = 0.0
    eq = 0.0
    for i in range(n):
        s = q[i]
        mag = abs(q[i])
        for j in range(n):
            p = M[i, j] * z[j]
            s += p
            mag += abs(p)
        w[i] = s
        if not (np.isfinite(s) and np.isfinite(z[i])):
            natural = np.inf
        if mag > scale:
            scale = mag
        if free[i]:
            if abs(s) > eq:
                eq = abs(s)
            continue
        m = abs(min(z[i], s))
        if m > natural:
            natural = m
        if -z[i] > zv:
            zv = -z[i]
        if -s > wv:
            wv = -s
        zw += z[i] * s
    return w, natural, zv, wv, abs(zw), eq, scale


@njit(cache=True, parallel=True)
def lcp_residual_batch(M, q, Z):
    """Scaled natural-map residuals of ``K`` LCPs at once: ``(W, values)``."""
    K, n = q.shape
    W = np.empty((K, n))
    values = np.empty(K)
    free = np.zeros(n, dtype=np.bool_)
    for k in prange(K):
        w, natural, _zv, _wv, _zw, eq, scale = lcp_residual_parts(M[k], q[k], Z[k], free)
        W[k] = w
        values[k] = max(natural, eq) / scale
    return W, values

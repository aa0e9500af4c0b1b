"""Compiled residual arithmetic for the linear problems.

This code is deliberately separate from every solver: it is the independent
check that decides whether an answer is certified.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


_EPS = np.finfo(np.float64).eps
_SPLIT = 134217729.0          # 2**27 + 1, Dekker's splitting constant


@njit(cache=True, nogil=True, inline="always")
def _two_prod(a, b):
    """``(p, e)`` with ``p = fl(a b)`` and ``a b = p + e`` exactly (Dekker / Veltkamp)."""
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, al * bl - (((p - ah * bh) - al * bh) - ah * bl)


@njit(cache=True, nogil=True, inline="always")
def _two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly (Knuth)."""
    s = a + b
    bp = s - a
    return s, (a - (s - bp)) + (b - bp)


@njit(cache=True, nogil=True)
def scaled_products(A, y):
    """``(P, E)`` with ``A_ij y_i = P_ij + E_ij`` exactly, for every entry (TwoProduct)."""
    m, n = A.shape
    P = np.empty((m, n))
    E = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            P[i, j], E[i, j] = _two_prod(A[i, j], y[i])
    return P, E


@njit(cache=True, nogil=True)
def affine_row(A, x, c, i):
    """``(v, allowance)``: ``v = (A x + c)_i`` computed as if in twice the working precision
    (Ogita, Rump & Oishi's Dot2: error-free products and sums), and a bound on its error,
    ``|v - exact| <= 2 eps |v| + gamma^2 sum_j |A_ij x_j| (+ |c_i|)`` with a margin of 4 in each term,
    ``gamma = (n + 1) eps``.  The bound is of order ``(n eps)^2`` of the terms: the check can tell
    ``w_i = -1`` from zero even when the terms are of size 1e20."""
    n = x.shape[0]
    s = c[i]
    err = 0.0
    mag = abs(c[i])
    for j in range(n):
        p, e = _two_prod(A[i, j], x[j])
        mag += abs(p)
        s, f = _two_sum(s, p)
        err += e + f
    v = s + err
    g = 4.0 * (n + 1) * _EPS
    return v, 4.0 * _EPS * abs(v) + g * g * mag


@njit(cache=True, nogil=True)
def affine_dot2(A, x, c):
    """``(A x + c, allowance)`` row by row with :func:`affine_row`."""
    m = c.shape[0]
    v = np.empty(m)
    allow = np.empty(m)
    for i in range(m):
        v[i], allow[i] = affine_row(A, x, c, i)
    return v, allow


@njit(cache=True, nogil=True)
def lcp_residual_parts(M, q, z, free):
    """``(w, natural, z_viol, w_viol, |z.w|, equation, excess, scale)`` for ``w = M z + q``.

    Rows with ``free[i]`` are equations (``w_i = 0``); the others are
    complementarity pairs ``(z_i, w_i)``.  ``w`` is computed in doubled
    precision (:func:`affine_row`); ``natural`` and ``equation`` are the raw
    infinity norms of ``min(z, w)`` and of the equation rows; ``excess`` is
    the largest violation beyond the error bound of ``w_i``; and
    ``scale = max(1, max|q|)`` is the size of the *data*: the residual value
    ``excess / scale`` does not grow with ``z``, so a huge ``z`` cannot hide
    ``w < 0``.
    """
    n = q.shape[0]
    w = np.empty(n)
    scale = 1.0
    natural = 0.0
    zv = 0.0
    wv = 0.0
    zw = 0.0
    eq = 0.0
    excess = 0.0
    for i in range(n):
        if abs(q[i]) > scale:
            scale = abs(q[i])
        s, allow = affine_row(M, z, q, i)
        w[i] = s
        if not (np.isfinite(s) and np.isfinite(z[i])):
            natural = np.inf
            excess = np.inf
        if free[i]:
            if abs(s) > eq:
                eq = abs(s)
            if abs(s) - allow > excess:
                excess = abs(s) - allow
            continue
        m = abs(min(z[i], s))
        if m > natural:
            natural = m
        # min(z_i, w) is nondecreasing in w: over the true w's interval [s - allow, s + allow]
        # the smallest |min(z_i, w)| is 0 if the ends straddle zero, else the smaller end
        # (z_i itself is exact: the allowance never excuses a z_i < 0 or a z_i below w_i)
        lo = min(z[i], s - allow)
        hi = min(z[i], s + allow)
        e = 0.0 if lo <= 0.0 <= hi else min(abs(lo), abs(hi))
        if e > excess:
            excess = e
        if -z[i] > zv:
            zv = -z[i]
        if -s > wv:
            wv = -s
        zw += z[i] * s
    return w, natural, zv, wv, abs(zw), eq, excess, scale


@njit(cache=True, parallel=True)
def lcp_residual_batch(M, q, Z):
    """Scaled natural-map residuals of ``K`` LCPs at once: ``(W, values)``."""
    K, n = q.shape
    W = np.empty((K, n))
    values = np.empty(K)
    free = np.zeros(n, dtype=np.bool_)
    for k in prange(K):
        w, _natural, _zv, _wv, _zw, _eq, excess, scale = lcp_residual_parts(M[k], q[k], Z[k], free)
        W[k] = w
        values[k] = excess / scale
    return W, values

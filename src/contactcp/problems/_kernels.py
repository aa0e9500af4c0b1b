"""Compiled residual arithmetic for the linear problems.

This code is deliberately separate from every solver: it is the independent
check that decides whether an answer is certified.  The compensated products
and sums come from :mod:`contactcp.linalg.dot2`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from contactcp.linalg.dot2 import _EPS, _TINY, affine_row_capped

#: a row whose rounding bound exceeds this (in its scaled units) is evaluated exactly instead
EXACT_ROW_BOUND = 2.0**-40


@njit(cache=True, nogil=True)
def column_units(M, q):
    """``Z_j = max_i |q_i| / max_i |M_ij|`` (``inf`` for a zero column): the size of ``z_j`` at which
    column ``j``'s terms reach the size of the data ``q`` — the most a residual's scale lets
    ``z_j`` count (:func:`row_scale`)."""
    m, n = M.shape
    qmax = 0.0
    for i in range(m):
        if abs(q[i]) > qmax:
            qmax = abs(q[i])
    Z = np.empty(n)
    for j in range(n):
        cmax = 0.0
        for i in range(m):
            a = abs(M[i, j])
            if a > cmax:
                cmax = a
        Z[j] = qmax / cmax if cmax > 0.0 else np.inf
    return Z


@njit(cache=True, nogil=True)
def row_scale(M, q, z, Z, i):
    """``s_i = max(|q_i|, sum_j |M_ij| min(|z_j|, Z_j))`` (:func:`column_units`), rounded down.

    The size of row ``i``'s terms, each unknown counted at most at the size where its column
    reaches the size of the data: a row whose data or terms are small is measured in its own
    small units (multiplying a row by a number does not change the measure), while a large
    ``z_j`` cannot inflate the scale beyond the data's own size, so a point far out along a ray
    cannot hide ``w_i < 0``.  0 means ``w_i = q_i = 0`` exactly."""
    n = z.shape[0]
    t = 0.0
    for j in range(n):
        a = abs(z[j])
        t += abs(M[i, j]) * (a if a < Z[j] else Z[j])
    return _scale_of(t, n, q[i])


@njit(cache=True, nogil=True, inline="always")
def _scale_of(t, n, qi):
    """:func:`row_scale` from the float sum ``t`` of its ``n`` terms (in the order of the row)."""
    t *= 1.0 - (n + 2) * _EPS  # a lower bound of the exact sum: never a larger scale than the truth
    s = abs(qi)
    return t if t > s else s


@njit(cache=True, nogil=True, inline="always")
def lcp_row(M, q, z, Z, free, i):
    """``(w_i, e_i, s_i, exact_needed)`` for row ``i`` of ``w = M z + q``.

    ``e_i`` is an *upper bound* of the row's violation in its own scale ``s_i`` (:func:`row_scale`):
    ``|min(z_i, w_i / s_i)|`` for a complementarity row, ``|w_i| / s_i`` for an equation (free) row,
    with ``w_i`` the exact value of ``(M z + q)_i``.  ``w_i`` is computed in doubled precision
    (:func:`affine_row`) and ``e_i`` is the largest value over the interval its error bound allows,
    enlarged by the rounding of the division: no rounding allowance ever excuses a violation.
    ``exact_needed`` is True when that interval is too wide to decide (wider than
    :data:`EXACT_ROW_BOUND`), or a product may have overflowed: the caller then evaluates the row in
    rational arithmetic.
    """
    v, allow, risky, t = affine_row_capped(M, z, q, i, Z)  # the Dot2 pass and row_scale's sum, one pass
    si = _scale_of(t, z.shape[0], q[i])
    zi = z[i]
    if si == 0.0:
        # no scale (q_i = 0, and every term capped at Z_j = 0 or zero): w_i must be exactly 0, and any
        # other value is infinitely far in this row's units
        if allow != 0.0:
            risky = True
        lo = 0.0 if v == 0.0 else np.inf * np.sign(v)
        hi = lo
    else:
        lo = (v - allow) / si
        hi = (v + allow) / si
        if allow / si > EXACT_ROW_BOUND:
            risky = True
    if free[i]:
        e = max(abs(lo), abs(hi))
    else:
        e = max(abs(min(zi, lo)), abs(min(zi, hi)))
    e *= 1.0 + 4.0 * _EPS
    if not (np.isfinite(e) and np.isfinite(zi)):
        risky = True
    return v, e, si, risky


@njit(cache=True, nogil=True)
def lcp_residual_parts(M, q, z, free):
    """``(w, natural, z_viol, w_viol, |z.w|, equation, value, scale, exact_rows)`` for ``w = M z + q``.

    Rows with ``free[i]`` are equations (``w_i = 0``); the others are complementarity pairs
    ``(z_i, w_i)``.  ``value`` is the largest row violation measured in the row's own scale, an
    upper bound of the exact one (:func:`lcp_row`): the natural map of the row-equilibrated problem.
    ``natural`` and ``equation`` are the raw infinity norms of ``min(z, w)`` and of the equation
    rows; ``scale`` the largest row scale.  ``exact_rows`` lists the rows whose float bound could
    not decide (the caller re-evaluates them exactly and replaces their contribution).
    """
    w = np.empty(q.shape[0])
    natural, zv, wv, zw, eq, value, scale, exact = lcp_residual_into(M, q, z, free, w)
    return w, natural, zv, wv, zw, eq, value, scale, exact


@njit(cache=True, nogil=True)
def lcp_residual_into(M, q, z, free, w):
    """:func:`lcp_residual_parts` with ``w`` written into the array given (a compiled caller that
    has room for it saves an allocation and a copy): ``(natural, z_viol, w_viol, |z.w|, equation,
    value, scale, exact_rows)``."""
    n = q.shape[0]
    scale = 0.0
    natural = 0.0
    zv = 0.0
    wv = 0.0
    zw = 0.0
    eq = 0.0
    value = 0.0
    exact = np.empty(n, dtype=np.int64)
    n_exact = 0
    Z = column_units(M, q)
    for i in range(n):
        s, e, si, risky = lcp_row(M, q, z, Z, free, i)
        w[i] = s
        if si > scale:
            scale = si
        if risky:
            exact[n_exact] = i
            n_exact += 1
        elif e > value:
            value = e
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
    return natural, zv, wv, abs(zw), eq, value, scale, exact[:n_exact]


@njit(cache=True, parallel=True)
def lcp_residual_batch(M, q, Z):
    """Row-scaled natural-map residuals of ``K`` LCPs at once: ``(W, values, needs_exact)``.

    ``needs_exact[k]`` is True when some row of problem ``k`` could not be decided in floating point
    (its value then excludes that row; the caller re-evaluates problem ``k`` exactly)."""
    K, n = q.shape
    W = np.empty((K, n))
    values = np.empty(K)
    needs = np.zeros(K, dtype=np.bool_)
    free = np.zeros(n, dtype=np.bool_)
    for k in prange(K):
        value = 0.0
        units = column_units(M[k], q[k])
        for i in range(n):
            s, e, si, risky = lcp_row(M[k], q[k], Z[k], units, free, i)
            W[k, i] = s
            if risky:
                needs[k] = True
            elif e > value:
                value = e
        values[k] = value
    return W, values, needs


@njit(cache=True, nogil=True)
def scaled_affine(A, x, c):
    """``(v, lo, hi, s, risky)`` per row of ``v = A x + c``: ``v`` in doubled precision, the row scale
    ``s_i`` (:func:`row_scale`) and bounds ``lo_i <= exact(v_i) / s_i <= hi_i`` (0 and 0 for a
    zero row).  ``risky`` marks rows whose bounds are not valid or too wide (:data:`EXACT_ROW_BOUND`):
    evaluate those exactly."""
    m = c.shape[0]
    v = np.empty(m)
    lo = np.empty(m)
    hi = np.empty(m)
    s = np.empty(m)
    risky = np.zeros(m, dtype=np.bool_)
    Z = column_units(A, c)
    for i in range(m):
        vi, allow, rk, t = affine_row_capped(A, x, c, i, Z)
        si = _scale_of(t, x.shape[0], c[i])
        v[i] = vi
        s[i] = si
        if vi == 0.0 and allow == 0.0:
            lo[i] = 0.0
            hi[i] = 0.0
        elif si == 0.0:  # no scale: any nonzero value is infinitely far
            lo[i] = np.inf * np.sign(vi)
            hi[i] = lo[i]
            if allow != 0.0:
                rk = True
        else:
            a = (vi - allow) / si
            b = (vi + allow) / si
            lo[i] = a - 4.0 * _EPS * abs(a) - _TINY
            hi[i] = b + 4.0 * _EPS * abs(b) + _TINY
            if allow / si > EXACT_ROW_BOUND:
                rk = True
        if not (np.isfinite(lo[i]) and np.isfinite(hi[i])):
            rk = True
        risky[i] = rk
    return v, lo, hi, s, risky

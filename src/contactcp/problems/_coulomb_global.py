"""The global friction-contact problem's certified residual in one compiled pass
(:meth:`contactcp.problems.GlobalFrictionContactProblem.residual`).

Before, the measure was a dozen scipy sparse products and transposes: 140 of the 270 microseconds
of FCLIB's one-contact GFC3D_Example0 solved on a fresh problem object (a script, medians of 2000
calls); a time stepper certifies one such problem per step.  The definition is the module docstring
of :mod:`contactcp.problems.friction_global`; :func:`global_residual` evaluates it on ``M`` and ``H``
in CSR form, the per-contact part by :func:`~contactcp.problems._coulomb.coulomb_parts` as the local
problem's measure does.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from contactcp.problems._coulomb import coulomb_parts

_EPS = 2.0**-52


@njit(cache=True, nogil=True)
def dense_to_csr(A):
    """``(indptr, indices, data, finite)``: the nonzero entries of a C-contiguous matrix in CSR order, and
    whether all its entries are finite (scipy's conversion with a separate finiteness test took 0.45 ms
    of the 1.2 ms a 25-box step's global problem cost to build; this one pass takes microseconds)."""
    n, m = A.shape
    indptr = np.zeros(n + 1, dtype=np.int64)
    finite = True
    count = 0
    for i in range(n):
        for j in range(m):
            a = A[i, j]
            if a != 0.0:
                count += 1
                if not np.isfinite(a):
                    finite = False
        indptr[i + 1] = count
    indices = np.empty(count, dtype=np.int64)
    data = np.empty(count)
    k = 0
    for i in range(n):
        for j in range(m):
            a = A[i, j]
            if a != 0.0:
                indices[k] = j
                data[k] = a
                k += 1
    return indptr, indices, data, finite


@njit(cache=True, nogil=True)
def columns_to_csr(A, cols, spread, v):
    """``(indptr, indices, data, finite, row_most, column_most, Atv)``: the CSR form of the
    ``n x spread m`` matrix whose column ``spread j`` is column ``cols[j]`` of the dense ``A`` and
    whose other columns are zero (``spread`` 1: ``A[:, cols]``; the time stepper's position
    projection puts each contact's normal column before a zero tangential one), whether those
    columns are finite, the most entries in a row and in a column, and ``A[:, cols]^T v`` (zeros
    when ``v`` is empty; each entry summed over the rows in order).  ``A`` is read row by row, as
    it is stored (the stepper's contact Jacobian, ``nv x 3 n_c``), once; the selected columns are
    not copied (on a 25-box pile's step, 150 x 417, the copy ``A[:, cols]`` and its scan by
    columns took 75 us, this 41)."""
    n = A.shape[0]
    m = cols.shape[0]
    count = np.zeros(n + 1, dtype=np.int64)
    per_column = np.zeros(m, dtype=np.int64)
    Atv = np.zeros(m)
    product = v.shape[0] == n
    finite = True
    # one pass, rows in order and each row's columns in order: the CSR arrays directly, into room for
    # every entry (only the nonzeros' pages are touched), cut to size at the end
    room_i = np.empty(n * m, dtype=np.int64)
    room_x = np.empty(n * m)
    k = 0
    row_most = 0
    for i in range(n):
        vi = v[i] if product else 0.0
        for j in range(m):
            a = A[i, cols[j]]
            if a != 0.0:
                room_i[k], room_x[k] = spread * j, a
                k += 1
                per_column[j] += 1
                if not np.isfinite(a):
                    finite = False
                if product:
                    Atv[j] += a * vi
        count[i + 1] = k
        row_most = max(row_most, k - count[i])
    column_most = 0
    for j in range(m):
        column_most = max(column_most, per_column[j])
    indices, data = room_i[:k].copy(), room_x[:k].copy()
    return count, indices, data, finite, row_most, column_most, Atv


@njit(cache=True, nogil=True, inline="always")
def contact_sides(blocks, c):
    """Contact ``c``'s sides' first velocity rows (``blocks[c]``, the first of 6 rows of each side's
    free body, -1: none) in increasing order, the first -1 when both sides are one body: its rows
    are those of each side that is not -1, in this order (:func:`blocks_to_csr`, the time stepper's
    ``transpose_times`` and hit contacts' groups)."""
    b0, b1 = blocks[c, 0], blocks[c, 1]
    if b0 > b1:
        b0, b1 = b1, b0
    if b0 == b1:
        b0 = -1
    return b0, b1


@njit(cache=True, nogil=True)
def blocks_to_csr(A, cols, spread, v, blocks, per):
    """:func:`columns_to_csr`'s answer (the same arrays, to the bit) when every entry of column ``c``
    of ``A`` lies in the rows of its contact's blocks: ``blocks[c // per]``, the first of 6 rows of
    each of the contact's two sides (-1: none; a free body's velocity rows, the time stepper's
    contact Jacobian of free bodies, :func:`~contactcp.models.scene.detect_step.row_pass`).  Only
    those 12 rows of each column are read, not the whole dense ``A`` (on a 25-box pile's step,
    150 x 417, a few microseconds against 40-60).  Each column's rows are visited in increasing
    order, as there: ``A[:, cols]^T v`` is summed in the same order."""
    n = A.shape[0]
    m = cols.shape[0]
    product = v.shape[0] == n
    count = np.zeros(n + 1, dtype=np.int64)
    per_column = np.zeros(m, dtype=np.int64)
    Atv = np.zeros(m)
    finite = True
    at_row = np.empty(12 * m, dtype=np.int64)
    at_col = np.empty(12 * m, dtype=np.int64)
    at_x = np.empty(12 * m)
    k = 0
    for j in range(m):
        c = cols[j]
        acc = 0.0
        for b in contact_sides(blocks, c // per):
            if b < 0:
                continue
            for i in range(b, b + 6):
                a = A[i, c]
                if a != 0.0:
                    at_row[k], at_col[k], at_x[k] = i, j, a
                    k += 1
                    count[i + 1] += 1
                    per_column[j] += 1
                    if not np.isfinite(a):
                        finite = False
                    if product:
                        acc += a * v[i]
        Atv[j] = acc
    row_most = 0
    for i in range(n):
        row_most = max(row_most, count[i + 1])
        count[i + 1] += count[i]
    # by rows, each row's columns in increasing order (the entries come column by column)
    indices = np.empty(k, dtype=np.int64)
    data = np.empty(k)
    nxt = count[:-1].copy()
    for e in range(k):
        p = nxt[at_row[e]]
        indices[p], data[p] = spread * at_col[e], at_x[e]
        nxt[at_row[e]] = p + 1
    column_most = 0
    for j in range(m):
        column_most = max(column_most, per_column[j])
    return count, indices, data, finite, row_most, column_most, Atv


@njit(cache=True, nogil=True)
def transpose_matvec(Hp, Hi, Hx, v, w):
    """``w + H^T v`` for ``H`` in CSR form (a new array; scipy's ``H.T @ v`` builds the transpose first)."""
    out = w.copy()
    for i in range(Hp.shape[0] - 1):
        for p in range(Hp[i], Hp[i + 1]):
            out[Hi[p]] += Hx[p] * v[i]
    return out


@njit(cache=True, nogil=True)
def _absmax(a):
    big = 0.0
    for j in range(a.shape[0]):
        big = max(big, abs(a[j]))
    return big


@njit(cache=True, nogil=True)
def _equilibrium(Mp, Mi, Mx, Hp, Hi, Hx, v, r, fs, row_terms):
    """``(relative, ||M v - H r - f||_inf)`` on scaled data: the largest ``|e_i| + gamma s_i`` over
    ``s_i = (|M| |v| + |H| |r| + |f|)_i`` (``gamma`` the rounding bound of a row of ``row_terms``
    products), inf when a row with ``s_i = 0`` does not hold exactly (or one overflowed), 0 for none."""
    gam = row_terms * _EPS / (1.0 - row_terms * _EPS)
    worst = 0.0
    emax = 0.0
    for i in range(fs.shape[0]):
        e = -fs[i]
        s = abs(fs[i])
        for p in range(Mp[i], Mp[i + 1]):
            t = Mx[p] * v[Mi[p]]
            e += t
            s += abs(t)
        for p in range(Hp[i], Hp[i + 1]):
            t = Hx[p] * r[Hi[p]]
            e -= t
            s += abs(t)
        if not (np.isfinite(e) and np.isfinite(s)):
            return np.inf, np.inf
        emax = max(emax, abs(e))
        if s > 0.0:
            worst = max(worst, (abs(e) + gam * s) / s)
        elif e != 0.0:
            worst = np.inf
    return worst, emax


@njit(cache=True, nogil=True)
def global_residual(Mp, Mi, Mx, Hp, Hi, Hx, x, f, w, q, mu, d, mu_max, row_terms, col_terms):
    """The certified measure of ``x = (v, r)``: ``(finite, value, nat, cone, dual, comp, eq, scale, u)``,
    the fields of :class:`~contactcp.result.Residual` and ``u = H^T v + w``.

    The problem is positively homogeneous in ``(v, r, f, w)``: everything is evaluated on the data
    scaled by ``2^-k`` (``k`` from the largest entry of ``x``, ``f``, ``w`` and ``q``) and scaled
    back.  ``value`` is the larger of the equilibrium's relative measure (:func:`_equilibrium`) and
    the natural map plus the bound of what rounding can change in it (``u``'s rounding, ``col_terms``
    products per entry, times the map's Lipschitz constant ``1 + mu``, plus the map's own few
    roundings) over ``||q||`` (absolute when ``q = 0``) times ``1 + (2 m + 16) eps`` (the norms'
    roundings), the equilibrium's times ``1 + 2 row_terms eps`` (its scales' roundings), and the
    larger times ``1 + 8 eps``.
    ``finite`` is False, with ``value`` inf and ``u`` not computed, when ``x`` is not finite or a
    product overflowed."""
    n = f.shape[0]
    m = w.shape[0]
    big = 0.0
    for j in range(x.shape[0]):
        if not np.isfinite(x[j]):
            return False, np.inf, np.inf, np.inf, np.inf, np.inf, np.inf, 1.0, np.empty(0)
        big = max(big, abs(x[j]))
    big = max(big, _absmax(f), _absmax(w), _absmax(q))
    k = math.frexp(big)[1] if big > 0.0 else 0
    v = np.empty(n)
    fs = np.empty(n)
    for i in range(n):
        v[i] = math.ldexp(x[i], -k)
        fs[i] = math.ldexp(f[i], -k)
    r = np.empty(m)
    us = np.empty(m)
    du = np.empty(m)
    nq2 = 0.0
    for j in range(m):
        r[j] = math.ldexp(x[n + j], -k)
        us[j] = math.ldexp(w[j], -k)
        du[j] = abs(us[j])
        t = math.ldexp(q[j], -k)
        nq2 += t * t
    equilibrium, emax = _equilibrium(Mp, Mi, Mx, Hp, Hi, Hx, v, r, fs, row_terms)
    for i in range(n):  # u = H^T v + w, scattered from H's rows, with |H|^T |v| + |w| for its rounding
        for p in range(Hp[i], Hp[i + 1]):
            t = Hx[p] * v[i]
            us[Hi[p]] += t
            du[Hi[p]] += abs(t)
    dn2 = 0.0
    for j in range(m):
        if not np.isfinite(us[j]):
            return False, np.inf, np.inf, np.inf, np.inf, np.inf, np.inf, 1.0, np.empty(0)
        dn2 += du[j] * du[j]
    if not np.isfinite(equilibrium) and emax == np.inf:
        return False, np.inf, np.inf, np.inf, np.inf, np.inf, np.inf, 1.0, np.empty(0)
    nat, cone, dual, comp, nr, nu = coulomb_parts(r, us, mu, d)
    slack = (1.0 + mu_max) * col_terms * _EPS * np.sqrt(dn2) + 32.0 * _EPS * (nr + (1.0 + mu_max) * nu)
    nq = np.sqrt(nq2)
    coulomb = (nat + slack) / nq if nq > 0.0 else math.ldexp(nat + slack, k)
    # the norms are sums of m squares (nat low, ||q|| high by up to (m + 1) unit roundoffs relative), a
    # row's scale s_i a sum of row_terms terms (low by up to gamma relative, so |e_i| / s_i high by as much)
    coulomb *= 1.0 + (2 * m + 16) * _EPS
    equilibrium *= 1.0 + 2.0 * row_terms * _EPS
    value = max(coulomb, equilibrium) * (1.0 + 8.0 * _EPS)
    for j in range(m):
        us[j] = math.ldexp(us[j], k)
    scale = math.ldexp(nq, k) if nq > 0.0 else 1.0
    parts = (math.ldexp(nat, k), math.ldexp(cone, k), math.ldexp(dual, k), math.ldexp(comp, 2 * k))
    return True, value, parts[0], parts[1], parts[2], parts[3], math.ldexp(emax, k), scale, us

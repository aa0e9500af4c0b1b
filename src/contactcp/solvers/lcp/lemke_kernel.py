"""Compiled pivoting loop of Lemke's method (Cottle–Pang–Stone Algorithm 4.4.5).

The augmented system is ``w - M z - d z0 = q``; its columns are stored as the
rows of ``AT`` (shape ``(2n+1, n)``): variable ``j < n`` is ``w_j``,
``n <= j < 2n`` is ``z_{j-n}`` and ``2n`` is the artificial ``z0``.  The
caller may pre-multiply the system by the inverse of a starting basis (warm
start), so the loop always starts from an identity basis whose variables are
given in ``basis``.

The basis inverse is updated by rank-one (Gauss–Jordan) steps, checked against
the original columns every ``check_every`` pivots and rebuilt from scratch by an
LU factorisation (LAPACK) when the check fails, and the final point is always
recomputed from a fresh factorisation of the final basis.  The leaving row is
chosen by the lexicographic minimum-ratio rule on the rows of ``[x | B^-1]``,
which prevents cycling on degenerate problems (CPS Section 4.9), with the
artificial variable preferred when it ties.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from contactcp.problems._kernels import lcp_residual_into

SOLVED, RAY, ITER_LIMIT, SINGULAR, BAD_START = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def _refactor(AT, b, bas, Binv, x):
    """Rebuild ``Binv`` and ``x`` from the columns of the basis; False if singular."""
    n = b.shape[0]
    B = np.empty((n, n))
    for i in range(n):
        B[:, i] = AT[bas[i]]
    try:
        inv = np.linalg.inv(B)
    except Exception:  # noqa: BLE001 - numba raises LinAlgError for singular B
        return False
    for i in range(n):
        for k in range(n):
            if not np.isfinite(inv[i, k]):
                return False
    Binv[:, :] = inv
    x[:] = inv @ b
    return True


@njit(cache=True, nogil=True)
def _basis_error(AT, b, bas, x):
    """``||b - B x||_inf`` relative to the size of the terms."""
    n = b.shape[0]
    r = b.copy()
    mag = np.abs(b).copy()
    for i in range(n):
        xi = x[i]
        if xi != 0.0:
            col = AT[bas[i]]
            for k in range(n):
                r[k] -= col[k] * xi
                mag[k] += abs(col[k] * xi)
    err = 0.0
    for k in range(n):
        e = abs(r[k]) / (mag[k] + 1e-300)
        if e > err:
            err = e
    return err


@njit(cache=True, nogil=True, inline="always")
def _absmax(v):
    m = 0.0
    for i in range(v.shape[0]):
        if abs(v[i]) > m:
            m = abs(v[i])
    return m


@njit(cache=True, nogil=True)
def _column(Binv, a, col, rn):
    """``col = B^-1 a`` and ``rn_i = ||B^-1_i||_1``."""
    n = a.shape[0]
    for i in range(n):
        sa = 0.0
        sm = 0.0
        for k in range(n):
            sa += Binv[i, k] * a[k]
            sm += abs(Binv[i, k])
        col[i] = sa
        rn[i] = sm


@njit(cache=True, nogil=True)
def _lexico_rows(cand, ncand, col, Binv, rn, tol, target_row):
    """Among candidate rows tied on the primary ratio, pick the lexicographic minimum.

    The rows compared are ``B^-1_i / col_i``, column by column.  An entry of
    ``B^-1_i`` is known only to within ``tol * ||B^-1_i||_1`` (``rn_i``), the
    normwise round-off scale of the pivot test, so ``v_i = B^-1_ik / col_i``
    lies in ``[v_i - e_i, v_i + e_i]`` with ``e_i = tol * rn_i / col_i``; a row
    stays a candidate while it may still be the minimum (``v_i - e_i`` at most
    the smallest ``v_j + e_j``).  The scale must be the row's own: comparing
    with the largest entry of the column declares round-off (1e-14 where the
    exact entries are all 0) a strict order, which picks a non-minimal row,
    breaks the lexicographic positivity of the basis and lets the method cycle
    (Siconos' lcp_tobenna).
    """
    if target_row >= 0:
        for j in range(ncand):
            if cand[j] == target_row:
                return target_row
    n = Binv.shape[0]
    alive = cand[:ncand].copy()
    nalive = ncand
    for k in range(n):
        if nalive == 1:
            break
        ub = np.inf
        for j in range(nalive):
            i = alive[j]
            v = (Binv[i, k] + tol * rn[i]) / col[i]
            if v < ub:
                ub = v
        m = 0
        for j in range(nalive):
            i = alive[j]
            if (Binv[i, k] - tol * rn[i]) / col[i] <= ub:
                alive[m] = i
                m += 1
        nalive = m
    return alive[0]


@njit(cache=True, nogil=True)
def lemke_core(AT, b, basis, max_iter, piv_tol, lexico, check_every):
    """Run Lemke's method from the identity basis ``basis``.

    Returns ``(status, x, bas, pivots, entering, col, refactors)``: the basic
    values ``x`` of the variables ``bas``, the number of pivots, and on ray
    termination the entering variable and its updated column ``col`` (the ray
    is ``+1`` on ``entering`` and ``-col`` on the basic variables).
    """
    n = b.shape[0]
    z0 = 2 * n
    ints = np.empty(2 * n, dtype=np.int64)  # one allocation for the index arrays, one for the vectors
    bas = ints[:n]
    bas[:] = basis
    cand = ints[n:]
    work = np.zeros(5 * n)
    x = work[:n]
    x[:] = b
    col = work[n : 2 * n]
    prow = work[2 * n : 3 * n]
    col2 = work[3 * n : 4 * n]
    rn = work[4 * n :]
    Binv = np.eye(n)
    refactors = 0
    pivots = 0
    bmax = _absmax(b)
    xmin = 0.0
    for i in range(n):
        if x[i] < xmin:
            xmin = x[i]
    if xmin >= 0.0:
        return SOLVED, x, bas, 0, -1, col, 0

    # Initial pivot: z0 enters at the level that makes every row nonnegative.
    col[:] = AT[z0]
    best = np.inf
    for i in range(n):
        if x[i] < 0.0 and col[i] >= 0.0:
            return BAD_START, x, bas, 0, z0, col, 0
        if col[i] < 0.0:
            v = x[i] / -col[i]
            if v < best:
                best = v
    # ties are judged row by row: q_i / d_i equals the minimum to within piv_tol (relative)
    ncand = 0
    for i in range(n):
        if col[i] < 0.0 and x[i] + best * col[i] <= piv_tol * (abs(x[i]) + best * col[i]):
            cand[ncand] = i
            ncand += 1
    if lexico and ncand > 1:
        r = _lexico_rows(cand, ncand, -col, Binv, np.ones(n), piv_tol, -1)
    else:
        r = cand[0]
    entering = z0
    while True:
        # ---- pivot on (r, entering): basic values first ----
        piv = col[r]
        t = x[r] / piv
        for i in range(n):
            x[i] -= t * col[i]
        x[r] = t
        leaving = bas[r]
        bas[r] = entering
        pivots += 1
        for i in range(n):
            if x[i] < 0.0:
                x[i] = 0.0  # round-off below zero; the final check recomputes x if it matters
        if leaving == z0:
            # verify the final basic solution against the original columns; rebuild it
            # from a fresh factorisation unless it already satisfies B x = b to round-off
            if _basis_error(AT, b, bas, x) > 1e-13:
                refactors += 1
                if not _refactor(AT, b, bas, Binv, x):
                    return SINGULAR, x, bas, pivots, -1, col, refactors
            return SOLVED, x, bas, pivots, -1, col, refactors
        if pivots >= max_iter:
            return ITER_LIMIT, x, bas, pivots, -1, col, refactors
        # ---- complementary rule: the partner of the leaving variable enters next ----
        nxt = leaving + n if leaving < n else leaving - n
        a = AT[nxt]
        amax = _absmax(a)
        # ---- one pass over B^-1: rank-one update fused with the next column
        #      B^-1 a and the row norms ||B^-1_i||_1 of the pivot test ----
        for k in range(n):
            prow[k] = Binv[r, k] / piv
        # two rows at a time: four independent sums, each in the order of its row, wait half as long
        # on the adder's latency (the same values as one row at a time, up to the sign of a zero:
        # a row with col_i = 0 becomes row - 0 * prow; an odd n pairs its last row with itself)
        for i in range(0, n, 2):
            j = i + 1 if i + 1 < n else i
            r0 = Binv[i]
            r1 = Binv[j]
            c0 = col[i] if i != r else 0.0
            c1 = col[j] if j != r else 0.0
            sa0 = 0.0
            sm0 = 0.0
            sa1 = 0.0
            sm1 = 0.0
            for k in range(n):
                pk = prow[k]
                v0 = pk if i == r else r0[k] - c0 * pk
                v1 = pk if j == r else r1[k] - c1 * pk
                r0[k] = v0
                r1[k] = v1
                ak = a[k]
                sa0 += v0 * ak
                sm0 += abs(v0)
                sa1 += v1 * ak
                sm1 += abs(v1)
            col2[i] = sa0
            rn[i] = sm0
            col2[j] = sa1
            rn[j] = sm1
        if check_every > 0 and pivots % check_every == 0:
            if _basis_error(AT, b, bas, x) > 1e-10:
                refactors += 1
                if not _refactor(AT, b, bas, Binv, x):
                    return SINGULAR, x, bas, pivots, -1, col, refactors
                for i in range(n):
                    if x[i] < 0.0:
                        x[i] = 0.0
                _column(Binv, a, col2, rn)
        col, col2 = col2, col
        entering = nxt
        z0row = -1
        ncand = 0
        for i in range(n):
            # normwise test: an entry below piv_tol * ||B^-1_i||_1 * ||a||_inf is round-off
            if col[i] > piv_tol * rn[i] * amax:
                cand[ncand] = i
                ncand += 1
            if bas[i] == z0:
                z0row = i
        if ncand == 0:
            return RAY, x, bas, pivots, entering, col, refactors
        # ---- minimum ratio, ties by the lexicographic rule ----
        best = np.inf
        for j in range(ncand):
            i = cand[j]
            v = x[i] / col[i]
            if v < best:
                best = v
        # a row ties with the minimum when x_i - best col_i is within the round-off of
        # x_i = B^-1_i b and of best col_i = best B^-1_i a, measured row by row on the
        # normwise scale of the pivot test; a scale common to all rows (such as max |x|)
        # makes a row whose data are small tie with rows of any ratio, and picking it
        # leaves the minimum-ratio row negative
        m = 0
        for j in range(ncand):
            i = cand[j]
            if x[i] - best * col[i] <= piv_tol * rn[i] * (bmax + best * amax):
                cand[m] = i
                m += 1
        if m == 1:
            r = cand[0]
        elif lexico:
            r = _lexico_rows(cand, m, col, Binv, rn, piv_tol, z0row)
        else:
            r = cand[0]
            for j in range(m):
                if cand[j] == z0row:
                    r = z0row


@njit(cache=True, nogil=True)
def cold_start_columns(M, q, d):
    """Rows of ``AT``: the columns of ``[I, -M, -d]``."""
    n = q.shape[0]
    AT = np.zeros((2 * n + 1, n))
    for i in range(n):
        AT[i, i] = 1.0
        for k in range(n):
            AT[n + i, k] = -M[k, i]
        AT[2 * n, i] = -d[i]
    return AT


@njit(cache=True, nogil=True)
def split_solution(x, bas, n):
    """``(z, w, z0)`` from the basic values."""
    z = np.zeros(n)
    w = np.zeros(n)
    z0 = 0.0
    for i in range(n):
        j = bas[i]
        if j < n:
            w[j] = x[i]
        elif j < 2 * n:
            z[j - n] = x[i]
        else:
            z0 = x[i]
    return z, w, z0


@njit(cache=True, nogil=True)
def ray_z_part(bas, entering, col, n):
    """The ``z`` components of the terminal ray (+1 on ``entering``, ``-col`` on the basis)."""
    zh = np.zeros(n)
    if n <= entering < 2 * n:
        zh[entering - n] = 1.0
    for i in range(n):
        j = bas[i]
        if n <= j < 2 * n:
            zh[j - n] = -col[i]
    return zh


@njit(cache=True, parallel=True)
def lemke_batch_core(M, q, d, max_iter, piv_tol, lexico, check_every):
    """Cold-start Lemke on each ``(M[k], q[k])``, in parallel over ``k``."""
    K, n = q.shape
    Z = np.zeros((K, n))
    ZH = np.zeros((K, n))
    status = np.zeros(K, dtype=np.int64)
    pivots = np.zeros(K, dtype=np.int64)
    basis0 = np.arange(n)
    for k in prange(K):
        AT = cold_start_columns(M[k], q[k], d)
        st, x, bas, piv, entering, col, _ = lemke_core(AT, q[k], basis0, max_iter, piv_tol, lexico, check_every)
        z, _w, _z0 = split_solution(x, bas, n)
        Z[k] = z
        status[k] = st
        pivots[k] = piv
        if st == RAY:
            ZH[k] = ray_z_part(bas, entering, col, n)
    return Z, ZH, status, pivots


@njit(cache=True, nogil=True)
def lemke_solve(AT, b, start, max_iter, piv_tol, lexico, check_every):
    """One call from Python: run the loop and pack the answer into one array.

    Layout (see :func:`unpack`): ``[status, pivots, refactors, z0, z (n), zh (n), z_basic (n),
    equilibrated]``; ``zh`` is the ``z`` part of the terminal ray (zero unless status is RAY).
    """
    out = np.empty(5 + 3 * b.shape[0])
    _solve_into(AT, b, start, max_iter, piv_tol, lexico, check_every, out)
    return out


@njit(cache=True, nogil=True)
def _solve_into(AT, b, start, max_iter, piv_tol, lexico, check_every, out):
    """:func:`lemke_solve` with its array written into ``out`` (length ``5 + 3 n``)."""
    n = b.shape[0]
    st, x, bas, piv, entering, col, refactors = lemke_core(AT, b, start, max_iter, piv_tol, lexico, check_every)
    out[:] = 0.0
    out[0] = st
    out[1] = piv
    out[2] = refactors
    for i in range(n):
        j = bas[i]
        if j < n:
            continue
        if j < 2 * n:
            out[4 + j - n] = x[i]
            out[4 + 2 * n + j - n] = 1.0
        else:
            out[3] = x[i]
    if st == RAY:
        out[4 + n : 4 + 2 * n] = ray_z_part(bas, entering, col, n)


def unpack(out: np.ndarray, n: int):
    """``(status, z, zh, z0, pivots, refactors, z_basic, equilibrated)`` from :func:`lemke_solve`'s
    or :func:`lemke_cold_solve`'s array."""
    return (
        int(out[0]),
        out[4 : 4 + n],
        out[4 + n : 4 + 2 * n],
        float(out[3]),
        int(out[1]),
        int(out[2]),
        out[4 + 2 * n : 4 + 3 * n].astype(np.bool_),
        bool(out[4 + 3 * n]),
    )


# Row or column max-norms of M spread over more than this factor: Lemke runs on the equilibrated LCP.
SPREAD = 2.0**10


@njit(cache=True, nogil=True)
def equilibrate(M, rounds):
    """Powers of two ``R``, ``C`` that bring the rows and columns of ``R M C`` to max-norm ~1."""
    n = M.shape[0]
    R = np.ones(n)
    C = np.ones(n)
    for _ in range(rounds):
        for i in range(n):
            m = 0.0
            for j in range(n):
                v = abs(M[i, j]) * C[j]
                if v > m:
                    m = v
            m *= R[i]
            if m > 0.0 and np.isfinite(m):
                R[i] *= 2.0 ** -np.round(np.log2(m))
        for j in range(n):
            m = 0.0
            for i in range(n):
                v = abs(M[i, j]) * R[i]
                if v > m:
                    m = v
            m *= C[j]
            if m > 0.0 and np.isfinite(m):
                C[j] *= 2.0 ** -np.round(np.log2(m))
    return R, C


@njit(cache=True, nogil=True)
def badly_scaled(M):
    """True if the nonzero row or column max-norms of ``M`` spread over more than ``SPREAD``."""
    n = M.shape[0]
    cmax = np.zeros(n)
    rlo = np.inf
    rhi = 0.0
    for i in range(n):
        m = 0.0
        for j in range(n):
            v = abs(M[i, j])
            if v > m:
                m = v
            if v > cmax[j]:
                cmax[j] = v
        if m > 0.0:
            rlo = min(rlo, m)
            rhi = max(rhi, m)
    clo = np.inf
    chi = 0.0
    for j in range(n):
        if cmax[j] > 0.0:
            clo = min(clo, cmax[j])
            chi = max(chi, cmax[j])
    return rhi > SPREAD * rlo or chi > SPREAD * clo


@njit(cache=True, nogil=True)
def lemke_cold_solve(M, q, d, max_iter, piv_tol, lexico, check_every):
    """Cold start from ``w = q`` basic; ``d`` of length 0 means the all-ones covering vector.

    When the row or column max-norms of ``M`` spread over more than :data:`SPREAD`, Lemke runs on
    the equivalent LCP ``(R M C, R q)`` (``z = C z'``, ``w' = R w``; R, C powers of two, so the
    data are scaled exactly) whose tolerances then mean what they say, with the covering
    vector ``1`` when none is given (``R d`` otherwise).  The answer is mapped back: ``z = C
    z'``, and the Farkas candidate in the ray slot is ``R zh'`` (``y' = zh'`` proves the
    scaled LCP infeasible exactly when ``R y'`` proves the original one: ``M^T R y' = C^-1
    (R M C)^T y'`` and ``q^T R y' = (R q)^T y'``).  ``out[3]`` (z0) is that of the run.
    """
    out = np.empty(5 + 3 * q.shape[0])
    _cold_into(M, q, d, max_iter, piv_tol, lexico, check_every, out)
    return out


@njit(cache=True, nogil=True)
def _cold_into(M, q, d, max_iter, piv_tol, lexico, check_every, out):
    """:func:`lemke_cold_solve` with its array written into ``out`` (length ``5 + 3 n``).  The loop
    gets a writeable copy of ``q`` (it never writes it, but a read-only array would compile a second
    :func:`lemke_core`)."""
    n = q.shape[0]
    if n > 1 and badly_scaled(M):
        R, C = equilibrate(M, 3)
        Ms = np.empty((n, n))
        qs = np.empty(n)
        ok = True
        for i in range(n):
            qs[i] = R[i] * q[i]
            ok = ok and np.isfinite(qs[i])
            for j in range(n):
                Ms[i, j] = R[i] * M[i, j] * C[j]
                ok = ok and np.isfinite(Ms[i, j])
        if ok:
            ds = np.ones(n) if d.shape[0] == 0 else R * d
            AT = cold_start_columns(Ms, qs, ds)
            _solve_into(AT, qs, np.arange(n), max_iter, piv_tol, lexico, check_every, out)
            for i in range(n):
                out[4 + i] *= C[i]
                out[4 + n + i] *= R[i]
            out[4 + 3 * n] = 1.0
            return
    dd = np.ones(n) if d.shape[0] == 0 else d
    AT = cold_start_columns(M, q, dd)
    _solve_into(AT, q.copy(), np.arange(n), max_iter, piv_tol, lexico, check_every, out)


#: the options of a run with :func:`~contactcp.solvers.lcp.lemke.lemke`'s defaults
#: (:func:`lemke_first`): the pivot tolerance, the lexicographic rule, the check of ``B x = b``
#: every this many pivots, and the pivot limit ``max(MAX_ITER_MIN, MAX_ITER_PER_ROW n)``
PIV_TOL, LEXICO, CHECK_EVERY, MAX_ITER_MIN, MAX_ITER_PER_ROW = 1e-11, True, 16, 1000, 50


@njit(cache=True, nogil=True)
def lemke_first(M, q, free, buf, basic):
    """The cold start with the default options (:data:`PIV_TOL`) and the all-ones covering vector
    and, when it solved, the problem's own residual of its ``z``
    (:func:`~contactcp.problems._kernels.lcp_residual_into`, the certifier's compiled kernel, on
    the same array), in one call: a small LCP's solve is mostly the cost of calls, of their
    arguments and of the arrays they hand back.

    The arrays go into ``buf`` (length ``5 + 4 n``; an array handed in costs less than one handed
    back): :func:`lemke_solve`'s layout (:func:`unpack`), then ``w``; and ``z_basic`` into the
    booleans ``basic`` (length ``n``: half the cost of converting the floats after the call).
    Returned: ``(status, pivots, refactorizations, equilibrated, rows, parts)``, ``rows`` the rows
    floating point could not decide (-1 when not measured) and ``parts`` the fields of
    :class:`~contactcp.result.Residual` (``value, natural, z_viol, w_viol, |z.w|, equation,
    scale``; zeros when not measured)."""
    n = q.shape[0]
    m = 5 + 3 * n
    max_iter = max(MAX_ITER_MIN, MAX_ITER_PER_ROW * n)
    _cold_into(M, q, np.zeros(0), max_iter, PIV_TOL, LEXICO, CHECK_EVERY, buf[:m])
    st, piv, refactors, equilibrated = int(buf[0]), int(buf[1]), int(buf[2]), buf[m - 1] != 0.0
    for i in range(n):
        basic[i] = buf[4 + 2 * n + i] != 0.0
    if st != SOLVED:
        buf[m:] = 0.0
        return st, piv, refactors, equilibrated, -1, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    natural, zv, wv, zw, eq, value, scale, rows = lcp_residual_into(M, q, buf[4 : 4 + n], free, buf[m:])
    return st, piv, refactors, equilibrated, rows.shape[0], (value, natural, zv, wv, zw, eq, scale)

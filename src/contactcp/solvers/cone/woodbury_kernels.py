"""Compiled pieces of the global semismooth Newton (:mod:`~contactcp.solvers.cone.newton_global`):
its proximal Newton step reduced to the velocities by the Woodbury identity, on a dense reduced
matrix (``n_v <= DENSE_UP_TO``).  :func:`woodbury_step` assembles ``M + H B H^T`` contact by contact
from ``H`` in CSC form, :func:`woodbury_back` maps the velocities' solution back to the reactions;
the tests check the step against the dense solve of the regularised Newton system, in three and two
dimensions.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from contactcp.solvers.cone.band_kernels import rcm_order


@njit(cache=True, nogil=True, inline="always")
def _prox_block(D, rho, phi, eps, d, i, B, z, L, R):
    """Contact ``i``'s ``B_i = A_i^{-1} D_i rho_i`` and ``z_i = -A_i^{-1} phi_i`` into ``B`` and ``z``,
    ``A_i = I - (1 - eps) D_i`` (:func:`woodbury_step`); False when ``A_i`` is singular.  ``A_i`` has
    the zero rows of ``D_i`` as identity rows: Gaussian elimination with partial pivoting on the
    ``d x d`` block (``d <= 3``), solved for the ``d + 1`` right-hand sides (``L``, ``R``: room of
    ``(d, d)`` and ``(d, d + 1)``)."""
    for a in range(d):
        for b in range(d):
            L[a, b] = (1.0 if a == b else 0.0) - (1.0 - eps) * D[i, a, b]
            R[a, b] = D[i, a, b] * rho[i]
        R[a, d] = -phi[i * d + a]
    for c in range(d):
        p = c
        for a in range(c + 1, d):
            if abs(L[a, c]) > abs(L[p, c]):
                p = a
        if L[p, c] == 0.0:
            return False
        if p != c:
            for b in range(d):
                L[c, b], L[p, b] = L[p, b], L[c, b]
            for b in range(d + 1):
                R[c, b], R[p, b] = R[p, b], R[c, b]
        for a in range(c + 1, d):
            f = L[a, c] / L[c, c]
            if f != 0.0:
                for b in range(c, d):
                    L[a, b] -= f * L[c, b]
                for b in range(d + 1):
                    R[a, b] -= f * R[c, b]
    for c in range(d - 1, -1, -1):
        for b in range(d + 1):
            s = R[c, b]
            for a in range(c + 1, d):
                s -= L[c, a] * R[a, b]
            R[c, b] = s / L[c, c]
    for a in range(d):
        for b in range(d):
            B[i, a, b] = R[a, b]
        z[i * d + a] = R[a, d]
    return True


@njit(cache=True, nogil=True)
def woodbury_step(K0, Hp, Hi, Hx, D, rho, phi, eps, d):
    """The proximal Newton step of :mod:`~contactcp.solvers.cone.newton_global` on a dense reduced matrix.

    With ``A_i = I - (1 - eps) D_i``, ``B_i = A_i^{-1} D_i rho_i`` and ``z_i = -A_i^{-1} phi_i``
    (block by block): ``K = K0 + H B H^T`` (dense, ``K0 = M`` dense)
    and ``rhs = H z``, from ``H`` in CSC form (``Hp``, ``Hi``, ``Hx``).  The step is then
    ``dr = z - B H^T K^{-1} rhs`` (:func:`woodbury_back`).  ``K`` is accumulated contact by contact,
    column pair by column pair of the contact's ``d`` columns of ``H`` (the pairs of bodies a contact
    touches).  Returns ``(K, rhs, B, z, ok)``, ``ok`` False when some ``A_i`` is singular."""
    n_c = phi.shape[0] // d
    n = K0.shape[0]
    K = K0.copy()
    rhs = np.zeros(n)
    B = np.zeros((n_c, d, d))
    z = np.zeros(n_c * d)
    L, R = np.empty((d, d)), np.empty((d, d + 1))
    for i in range(n_c):
        if not _prox_block(D, rho, phi, eps, d, i, B, z, L, R):
            return K, rhs, B, z, False
        for k in range(d):
            ca = i * d + k
            zk = z[ca]
            for p in range(Hp[ca], Hp[ca + 1]):
                rhs[Hi[p]] += Hx[p] * zk
            for l in range(d):
                c = B[i, k, l]
                if c == 0.0:
                    continue
                cb = i * d + l
                for p in range(Hp[ca], Hp[ca + 1]):
                    hp = Hx[p] * c
                    row = Hi[p]
                    for s in range(Hp[cb], Hp[cb + 1]):
                        K[row, Hi[s]] += hp * Hx[s]
    return K, rhs, B, z, True


@njit(cache=True, nogil=True)
def woodbury_back(Hp, Hi, Hx, B, z, s, d):
    """``dr = z - B H^T s`` block by block (``H`` in CSC form; see :func:`woodbury_step`)."""
    n_c = z.shape[0] // d
    dr = z.copy()
    t = np.empty(d)
    for i in range(n_c):
        for k in range(d):
            c = i * d + k
            acc = 0.0
            for p in range(Hp[c], Hp[c + 1]):
                acc += Hx[p] * s[Hi[p]]
            t[k] = acc
        for a in range(d):
            acc = 0.0
            for k in range(d):
                acc += B[i, a, k] * t[k]
            dr[i * d + a] -= acc
    return dr


@njit(cache=True, nogil=True)
def w_diagonal(Hp, Hi, Hx, Ip, Ii, Ix, n):
    """The diagonal of ``W = H^T M^{-1} H`` from ``H`` in CSC form and ``M^{-1}`` in CSR form
    (``n`` rows): ``W_jj = sum_{r, s} H_rj (M^{-1})_rs H_sj`` over column ``j``'s entries."""
    m = Hp.shape[0] - 1
    out = np.zeros(m)
    x = np.zeros(n)
    for j in range(m):
        for p in range(Hp[j], Hp[j + 1]):
            x[Hi[p]] = Hx[p]
        acc = 0.0
        for p in range(Hp[j], Hp[j + 1]):
            r = Hi[p]
            for k in range(Ip[r], Ip[r + 1]):
                acc += Hx[p] * Ix[k] * x[Ii[k]]
        out[j] = acc
        for p in range(Hp[j], Hp[j + 1]):
            x[Hi[p]] = 0.0
    return out


@njit(cache=True, nogil=True)
def reduced_pattern(Mp, Mi, Hp, Hi, d, n):
    """The pattern that ``M + H B H^T`` can fill, whatever the blocks ``B_i``: ``M``'s entries (CSR,
    mirrored) and every pair of rows that meet in one contact's ``d`` columns of ``H`` (CSC), and
    the diagonal.  Returns it in CSR form ``(indptr, indices)``, each row's columns once, in no
    particular order (what :func:`~.band_kernels.rcm_order` and :func:`half_bandwidth` read), for a
    bandwidth-reducing order.  Sparse: the contacts' sets of rows, consecutive contacts with the same
    set kept once (the points of one patch), and for each row the sets that hold it (an ``n x n``
    table took 13.6 us a call at a 25-box pile's 150 velocities, this 8.1: a script on 130 of its
    global problems, the same sets and orders)."""
    n_c = (Hp.shape[0] - 1) // d
    rows = np.empty(Hp[-1], dtype=np.int64)  # the distinct sets' rows, set g at rows[ptr[g]:ptr[g + 1]]
    ptr = np.zeros(n_c + 1, dtype=np.int64)
    mark = np.full(n, -1, dtype=np.int64)
    held = np.full(n, -1, dtype=np.int64)  # held[r]: the last set stored that holds r
    g, k = 0, 0
    for i in range(n_c):
        start = k
        for p in range(Hp[i * d], Hp[(i + 1) * d]):
            if mark[Hi[p]] != i:
                mark[Hi[p]] = i
                rows[k] = Hi[p]
                k += 1
        same = g > 0 and k - start == ptr[g] - ptr[g - 1]
        for a in range(start, k):
            same = same and held[rows[a]] == g - 1
        if same or k == start:
            k = start
            continue
        for a in range(start, k):
            held[rows[a]] = g
        g += 1
        ptr[g] = k
    # each row's sets, and M's pattern by columns (its mirror), by counting
    cp = np.zeros(n + 1, dtype=np.int64)
    for a in range(k):
        cp[rows[a] + 1] += 1
    tp = np.zeros(n + 1, dtype=np.int64)
    for p in range(Mp[n]):
        tp[Mi[p] + 1] += 1
    for r in range(n):
        cp[r + 1] += cp[r]
        tp[r + 1] += tp[r]
    sets = np.empty(k, dtype=np.int64)
    mirror = np.empty(Mp[n], dtype=np.int64)
    nxt = cp[:n].copy()
    for s in range(g):
        for a in range(ptr[s], ptr[s + 1]):
            sets[nxt[rows[a]]] = s
            nxt[rows[a]] += 1
    nxt = tp[:n].copy()
    for r in range(n):
        for p in range(Mp[r], Mp[r + 1]):
            mirror[nxt[Mi[p]]] = r
            nxt[Mi[p]] += 1
    bound = n + 2 * Mp[n]
    for a in range(k):
        s = sets[a]
        bound += ptr[s + 1] - ptr[s]
    indptr = np.zeros(n + 1, dtype=np.int32)
    indices = np.empty(bound, dtype=np.int32)
    mark[:] = -1
    c = 0
    for r in range(n):
        mark[r] = r
        indices[c] = r
        c += 1
        for p in range(Mp[r], Mp[r + 1]):
            if mark[Mi[p]] != r:
                mark[Mi[p]] = r
                indices[c] = Mi[p]
                c += 1
        for p in range(tp[r], tp[r + 1]):
            if mark[mirror[p]] != r:
                mark[mirror[p]] = r
                indices[c] = mirror[p]
                c += 1
        for a in range(cp[r], cp[r + 1]):
            s = sets[a]
            for b in range(ptr[s], ptr[s + 1]):
                if mark[rows[b]] != r:
                    mark[rows[b]] = r
                    indices[c] = rows[b]
                    c += 1
        indptr[r + 1] = c
    return indptr, indices[:c].copy()


@njit(cache=True, nogil=True)
def band_order(Mp, Mi, Hp, Hi, d, n):
    """``(iperm, kl)``: the reverse Cuthill–McKee order of :func:`reduced_pattern`
    (:func:`~.band_kernels.rcm_order`; ``iperm[r]`` the place of velocity ``r``) and the
    half-bandwidth it leaves (:func:`half_bandwidth`), in one call."""
    indptr, indices = reduced_pattern(Mp, Mi, Hp, Hi, d, n)
    perm = rcm_order(indptr, indices)
    iperm = np.empty(n, dtype=np.int64)
    for k in range(n):
        iperm[perm[k]] = k
    return iperm, half_bandwidth(indptr, indices, iperm)


@njit(cache=True, nogil=True)
def half_bandwidth(indptr, indices, iperm):
    """``max |iperm[r] - iperm[c]|`` over a symmetric pattern's entries ``(r, c)`` (CSR)."""
    kl = 0
    for r in range(indptr.shape[0] - 1):
        for p in range(indptr[r], indptr[r + 1]):
            kl = max(kl, abs(iperm[r] - iperm[indices[p]]))
    return kl


@njit(cache=True, nogil=True)
def woodbury_band(Mp, Mi, Mx, iperm, kl, Hp, Hi, Hx, D, rho, phi, eps, d, general):
    """:func:`woodbury_step` into LAPACK's band storage, rows and columns in the order ``iperm``
    (``iperm[r]``: the place of velocity ``r``) of half-bandwidth ``kl`` (:func:`half_bandwidth` of
    :func:`reduced_pattern`); ``M`` in CSR form.  Returns ``(ab, rhs, B, z, ok, symmetric)``:

    * when every ``B_i`` is symmetric, bit for bit (sticking and separated contacts, frictionless
      ones: ``B_i`` diagonal), ``K`` is symmetric positive definite and only its lower band is
      formed, for ``dpbtrf``: ``ab[i - j, j] = K[i, j]``, ``i >= j``, a Fortran-ordered
      ``(kl + 1, n)`` array;
    * else (or with ``general``) for ``dgbtrf``: ``ab[2 kl + i - j, j] = K[i, j]`` in a
      ``(3 kl + 1, n)`` array whose first ``kl`` rows are the factorisation's room for fill.

    Each contact adds its block ``H_c B_c H_c^T`` on the rows its columns touch (``G = H_c B_c``,
    then ``G H_c^T``).  ``rhs = H z`` in the same order; ``ok`` False when some ``A_i`` is singular;
    an entry outside the band raises."""
    n = iperm.shape[0]
    n_c = phi.shape[0] // d
    B = np.zeros((n_c, d, d))
    z = np.zeros(n_c * d)
    L, R = np.empty((d, d)), np.empty((d, d + 1))
    symmetric = not general
    for i in range(n_c):
        if d == 3:  # d a constant in the inlined block, its loops unrolled: the assembly 40.5 against 43 us
            ok = _prox_block(D, rho, phi, eps, 3, i, B, z, L, R)
        elif d == 2:
            ok = _prox_block(D, rho, phi, eps, 2, i, B, z, L, R)
        else:
            ok = _prox_block(D, rho, phi, eps, 1, i, B, z, L, R)
        if not ok:
            return np.zeros((n, 1)).T, np.zeros(n), B, z, False, False
        for k in range(d):
            for l in range(k):
                symmetric = symmetric and B[i, k, l] == B[i, l, k]
    top = 0 if symmetric else 2 * kl
    ab = np.zeros((n, kl + 1 if symmetric else 3 * kl + 1)).T
    rhs = np.zeros(n)
    for r in range(n):
        for p in range(Mp[r], Mp[r + 1]):
            a, b = iperm[r], iperm[Mi[p]]
            if abs(a - b) > kl:
                raise ValueError("woodbury_band: an entry of M outside the band")
            if a >= b or not symmetric:
                ab[top + a - b, b] += Mx[p]
    _band_contacts(ab, top, symmetric, iperm, kl, Hp, Hi, Hx, B, z, d, rhs)
    return ab, rhs, B, z, True, symmetric


@njit(cache=True, nogil=True)
def _band_contacts(ab, top, symmetric, iperm, kl, Hp, Hi, Hx, B, z, d, rhs):
    """Adds every contact's ``H_c B_c H_c^T`` into ``ab`` and ``H_c z_c`` into ``rhs``
    (:func:`woodbury_band`; ``symmetric``: the lower band only)."""
    n = iperm.shape[0]
    rows = np.empty(n, dtype=np.int64)
    slot = np.empty(n, dtype=np.int64)
    mark = np.full(n, -1, dtype=np.int64)
    Hc = np.zeros((n, d))
    G = np.empty((n, d))
    for i in range(z.shape[0] // d):
        nr = 0
        lo, hi = n, -1
        for k in range(d):
            c = i * d + k
            for p in range(Hp[c], Hp[c + 1]):
                r = Hi[p]
                if mark[r] != i:
                    mark[r] = i
                    slot[r] = nr
                    rows[nr] = iperm[r]
                    lo, hi = min(lo, rows[nr]), max(hi, rows[nr])
                    for l in range(d):
                        Hc[nr, l] = 0.0
                    nr += 1
                Hc[slot[r], k] = Hx[p]
                rhs[iperm[r]] += Hx[p] * z[c]
        zero = True  # a separated contact (B_i = 0) adds nothing
        for k in range(d):
            for l in range(d):
                zero = zero and B[i, k, l] == 0.0
        if zero:
            continue
        if hi - lo > kl:
            raise ValueError("woodbury_band: an entry of H B H^T outside the band")
        for a in range(nr):
            for l in range(d):
                acc = 0.0
                for k in range(d):
                    acc += Hc[a, k] * B[i, k, l]
                G[a, l] = acc
        for b in range(nr):
            j = rows[b]
            if d == 3:  # unrolled: 2.5 times faster than the loop over l (a script, 12 x 12 blocks)
                h0, h1, h2 = Hc[b, 0], Hc[b, 1], Hc[b, 2]
                for a in range(nr):
                    if not symmetric or rows[a] >= j:
                        ab[top + rows[a] - j, j] += G[a, 0] * h0 + G[a, 1] * h1 + G[a, 2] * h2
            elif d == 2:
                h0, h1 = Hc[b, 0], Hc[b, 1]
                for a in range(nr):
                    if not symmetric or rows[a] >= j:
                        ab[top + rows[a] - j, j] += G[a, 0] * h0 + G[a, 1] * h1
            else:  # d == 1: frictionless contacts, the time stepper's position projection
                h0 = Hc[b, 0]
                for a in range(nr):
                    if not symmetric or rows[a] >= j:
                        ab[top + rows[a] - j, j] += G[a, 0] * h0


@njit(cache=True, nogil=True)
def csr_symmetric(Mp, Mi, Mx):
    """Whether a square CSR matrix equals its transpose, bit for bit (an entry ``(r, c)`` absent
    from row ``c`` must be zero)."""
    for r in range(Mp.shape[0] - 1):
        for p in range(Mp[r], Mp[r + 1]):
            c = Mi[p]
            mirror = 0.0
            for s in range(Mp[c], Mp[c + 1]):
                if Mi[s] == r:
                    mirror += Mx[s]
            if mirror != Mx[p]:
                return False
    return True


@njit(cache=True, nogil=True)
def csr_matvec(Ap, Ai, Ax, x):
    """``A x`` for ``A`` in CSR form, each row summed in order from zero (scipy's ``A @ x``)."""
    n = Ap.shape[0] - 1
    out = np.empty(n)
    for i in range(n):
        acc = 0.0
        for p in range(Ap[i], Ap[i + 1]):
            acc += Ax[p] * x[Ai[p]]
        out[i] = acc
    return out


@njit(cache=True, nogil=True)
def w_matvec(Hp, Hi, Hx, Ip, Ii, Ix, x):
    """``W x = H^T M^{-1} (H x)`` without ``W``, from ``H`` and ``M^{-1}`` in CSR form, in one pass
    of each (three scipy and block-solver calls took 27 us at a 25-box pile's 150 velocities)."""
    n = Hp.shape[0] - 1
    y = csr_matvec(Hp, Hi, Hx, x)
    out = np.zeros(x.shape[0])
    for i in range(n):
        acc = 0.0
        for p in range(Ip[i], Ip[i + 1]):
            acc += Ix[p] * y[Ii[p]]
        for p in range(Hp[i], Hp[i + 1]):
            out[Hi[p]] += Hx[p] * acc
    return out


@njit(cache=True, nogil=True)
def csr_columns(Ap, Ai, Ax, m):
    """An ``(n, m)`` CSR matrix in CSC form ``(indptr, indices, data)``, int64 indices, each column's
    rows in increasing order (a counting sort: scipy's ``tocsc`` and ``sort_indices`` took 71 us on a
    25-box pile's contact operator)."""
    count = np.zeros(m + 1, dtype=np.int64)
    for p in range(Ap[-1]):
        count[Ai[p] + 1] += 1
    for j in range(m):
        count[j + 1] += count[j]
    Ci = np.empty(Ap[-1], dtype=np.int64)
    Cx = np.empty(Ap[-1])
    nxt = count[:-1].copy()
    for r in range(Ap.shape[0] - 1):
        for p in range(Ap[r], Ap[r + 1]):
            k = nxt[Ai[p]]
            Ci[k] = r
            Cx[k] = Ax[p]
            nxt[Ai[p]] = k + 1
    return count, Ci, Cx

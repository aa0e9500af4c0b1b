"""``W`` in block-sparse row storage (``d x d`` blocks, one block row per contact) for the NSGS sweeps.

A sweep reads contact ``i``'s ``d`` rows of ``W``.  In compressed-row storage (CSR) that is ``d``
passes over the row's column indices; with the contact blocks stored together (BSR, the layout of
Siconos' sparse-block matrices) it is one pass over the block indices and a ``d x d`` product per
block, which the compiler unrolls for ``d = 3``.  On FCLIB's Kapla tower (570 contacts, 12,976 blocks)
a sweep took 0.108 ms against 0.322 ms with CSR (the best of repeated runs of a script on the
development machine; ``benchmarks/results/fclib.md`` has the end-to-end times).  :func:`csr_to_bsr` builds the storage
from the problem's CSR arrays in one compiled pass per solve (O(nnz); 1.3 to 2.4 times a CSR sweep on
FCLIB's sample, timed by a script);
the certified measure keeps reading the CSR arrays (:mod:`contactcp.problems._coulomb`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from contactcp.solvers.cone.kernels import _fallback
from contactcp.solvers.cone.one_contact import one_contact_inv


@njit(cache=True, nogil=True)
def _whole_blocks(indptr, indices, d, n_c):
    """Whether every block stored is stored whole: the ``d`` rows of each block row list the same
    columns, in runs ``j d, j d + 1, ..., j d + d - 1`` (FCLIB's files written from Siconos' block
    storage: 10 of the 12 in ``../shared/fclib``)."""
    for i in range(n_c):
        o = i * d
        start = indptr[o]
        length = indptr[o + 1] - start
        if length % d != 0:
            return False
        for a in range(1, d):
            if indptr[o + a + 1] - indptr[o + a] != length:
                return False
        for p in range(0, length, d):
            col = indices[start + p]
            if col % d != 0:
                return False
            for a in range(d):
                other = indptr[o + a] + p
                for b in range(d):
                    if indices[other + b] != col + b:
                        return False
    return True


@njit(cache=True, nogil=True)
def csr_to_bsr(indptr, indices, data, d, n_c):
    """``(bptr, bidx, B)``: the block rows of the CSR matrix (``n_c d`` square), each row's diagonal
    block first (:func:`_diagonal_first`) and the others in the order their first entries come in the
    CSR rows (not sorted: the sweeps do not need it), ``B[k]`` the ``d x d`` block ``k`` (zeros where CSR
    stores nothing).  Blocks stored whole
    (:func:`_whole_blocks`) are copied in one pass (Kapla tower 0.65 -> 0.2 ms, a script, medians)."""
    if _whole_blocks(indptr, indices, d, n_c):
        bptr = np.empty(n_c + 1, dtype=np.int64)
        bptr[0] = 0
        for i in range(n_c):
            bptr[i + 1] = bptr[i] + (indptr[i * d + 1] - indptr[i * d]) // d
        bidx = np.empty(bptr[n_c], dtype=np.int64)
        B = np.empty((bptr[n_c], d, d))
        for i in range(n_c):
            o = i * d
            for k in range(bptr[i], bptr[i + 1]):
                p = (k - bptr[i]) * d
                bidx[k] = indices[indptr[o] + p] // d
                for a in range(d):
                    q = indptr[o + a] + p
                    for b in range(d):
                        B[k, a, b] = data[q + b]
        return _diagonal_first(bptr, bidx, B)
    cb = np.empty(n_c * d, dtype=np.int64)  # each column's block column (no integer division per entry)
    for j in range(n_c):
        for a in range(d):
            cb[j * d + a] = j
    mark = np.full(n_c, -1, dtype=np.int64)
    bptr = np.zeros(n_c + 1, dtype=np.int64)
    for i in range(n_c):  # count the distinct block columns of each block row
        c = 0
        for a in range(d):
            for p in range(indptr[i * d + a], indptr[i * d + a + 1]):
                j = cb[indices[p]]
                if mark[j] != i:
                    mark[j] = i
                    c += 1
        bptr[i + 1] = bptr[i] + c
    bidx = np.empty(bptr[n_c], dtype=np.int64)
    B = np.zeros((bptr[n_c], d, d))
    slot = np.full(n_c, -1, dtype=np.int64)
    for i in range(n_c):
        start = bptr[i]
        c = 0
        for a in range(d):
            for p in range(indptr[i * d + a], indptr[i * d + a + 1]):
                j = cb[indices[p]]
                if mark[j] != n_c + i:  # first entry of block column j in this block row
                    mark[j] = n_c + i
                    bidx[start + c] = j
                    c += 1
        for k in range(start, start + c):
            slot[bidx[k]] = k
        for a in range(d):
            for p in range(indptr[i * d + a], indptr[i * d + a + 1]):
                col = indices[p]
                j = cb[col]
                B[slot[j], a, col - j * d] += data[p]
    return _diagonal_first(bptr, bidx, B)


@njit(cache=True, nogil=True)
def _diagonal_first(bptr, bidx, B):
    """The block storage with each row's diagonal block (where one is stored) moved to the row's front,
    so that a sweep sums the rest of ``u_i`` without it (:func:`bsr_sweep`)."""
    for i in range(bptr.shape[0] - 1):
        start = bptr[i]
        for k in range(start, bptr[i + 1]):
            if bidx[k] == i:
                if k != start:
                    bidx[k], bidx[start] = bidx[start], i
                    for a in range(B.shape[1]):
                        for b in range(B.shape[2]):
                            B[k, a, b], B[start, a, b] = B[start, a, b], B[k, a, b]
                break
    return bptr, bidx, B


@njit(cache=True, nogil=True, inline="always")
def _row3(bidx, B, q, r, o, start, stop):
    """``q_i + sum_k B[k] r_(bidx[k])`` over the blocks ``start <= k < stop`` of contact ``i`` (``o = 3 i``)
    for ``d = 3``, the product unrolled."""
    u0 = q[o]
    u1 = q[o + 1]
    u2 = q[o + 2]
    for k in range(start, stop):
        j = bidx[k] * 3
        r0 = r[j]
        r1 = r[j + 1]
        r2 = r[j + 2]
        u0 += B[k, 0, 0] * r0 + B[k, 0, 1] * r1 + B[k, 0, 2] * r2
        u1 += B[k, 1, 0] * r0 + B[k, 1, 1] * r1 + B[k, 1, 2] * r2
        u2 += B[k, 2, 0] * r0 + B[k, 2, 1] * r1 + B[k, 2, 2] * r2
    return u0, u1, u2


@njit(cache=True, nogil=True)
def bsr_velocity(bptr, bidx, B, q, r, u, d):
    """``u = W r + q`` (:func:`_row3` for ``d = 3``: Kapla 111 -> 28 us against the loops over ``d``, a
    script, best of 7 x 100)."""
    n_c = bptr.shape[0] - 1
    for i in range(n_c):
        o = i * d
        if d == 3:
            u0, u1, u2 = _row3(bidx, B, q, r, o, bptr[i], bptr[i + 1])
            u[o] = u0
            u[o + 1] = u1
            u[o + 2] = u2
            continue
        for a in range(d):
            s = q[o + a]
            for k in range(bptr[i], bptr[i + 1]):
                j = bidx[k] * d
                for b in range(d):
                    s += B[k, a, b] * r[j + b]
            u[o + a] = s


@njit(cache=True, nogil=True)
def bsr_sweep(bptr, bidx, B, blocks, inv, q, mu, r, d, local_iter, rho, local_tol):
    """One non-smooth Gauss–Seidel sweep in place on ``r``: what
    :func:`~contactcp.solvers.cone.kernels.gauss_seidel_sweeps_csr` does in one sweep, reading ``W``
    block by block (the same local solves, the same order).  Contact ``i``'s local problem is
    ``u_i = W_ii r_i + b_i``: ``b_i`` is summed over the row's other blocks (its diagonal block first in
    the row, :func:`csr_to_bsr`, and skipped; for ``d = 3`` by :func:`_row3` inlined) and solved by
    cases (:func:`~contactcp.solvers.cone.one_contact.one_contact_inv`) in :func:`_solve_from`'s loop;
    a contact no case solves leaves that loop for the projected fixed-point steps
    (:func:`~contactcp.solvers.cone.kernels._fallback`), and the loop goes on after it.  Kapla tower, a
    sweep 60 sweeps in: 80.8 -> 64.6 us against ``u_i`` summed over the whole row and the fallback's call
    in the loop (a script, best of 7 x 200 sweeps)."""
    n_c = bptr.shape[0] - 1
    x = np.empty(d)
    ri = np.empty(d)
    i = 0
    while i < n_c:
        if d == 3:
            i = _solve_from(i, bptr, bidx, B, blocks, inv, q, mu, r, rho, 3, x, ri)
        else:
            i = _solve_from(i, bptr, bidx, B, blocks, inv, q, mu, r, rho, 2, x, ri)
        if i < n_c:  # x holds contact i's b_i
            _fallback(blocks[i], x, r, i * d, mu[i], rho, i, d, local_iter, local_tol)
            i += 1


@njit(cache=True, nogil=True, inline="always")
def _solve_from(i0, bptr, bidx, B, blocks, inv, q, mu, r, rho, d, x, ri):
    """:func:`bsr_sweep`'s loop from contact ``i0``: the first contact that no case of the local solve
    solves (``x`` then holds its ``b_i``), else ``n_c``.  Contacts with ``rho[i] == 0`` (a zero diagonal
    block) are skipped.  The local solve's call is written out here, as in
    :func:`~contactcp.solvers.cone.kernels._solved_here`, not shared through an inlined helper: with
    one the Kapla sweep took 71 us against 64 (a script, best of 7 x 200 sweeps, each side twice)."""
    n_c = bptr.shape[0] - 1
    for i in range(i0, n_c):
        if rho[i] == 0.0:
            continue
        o = i * d
        start = bptr[i]
        if start < bptr[i + 1] and bidx[start] == i:
            start += 1
        if d == 3:
            x[0], x[1], x[2] = _row3(bidx, B, q, r, o, start, bptr[i + 1])
        else:
            for a in range(d):
                x[a] = q[o + a]
            for k in range(start, bptr[i + 1]):
                j = bidx[k] * d
                for a in range(d):
                    s = 0.0
                    for b in range(d):
                        s += B[k, a, b] * r[j + b]
                    x[a] += s
        for a in range(d):
            ri[a] = r[o + a]
        if not one_contact_inv(blocks[i], inv[i], x, mu[i], d, ri):
            return i
        for a in range(d):
            r[o + a] = ri[a]
    return n_c

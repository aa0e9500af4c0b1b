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

from contactcp.solvers.cone.kernels import _solve_at


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
    """``(bptr, bidx, B)``: the block rows of the CSR matrix (``n_c d`` square), each row's block
    columns in the order their first entries come in the CSR rows (not sorted: the sweeps do not need
    it), ``B[k]`` the ``d x d`` block ``k`` (zeros where CSR stores nothing).  Blocks stored whole
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
        return bptr, bidx, B
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
    return bptr, bidx, B


@njit(cache=True, nogil=True, inline="always")
def _row3(bptr, bidx, B, q, r, i):
    """``(W r + q)_i`` of contact ``i`` for ``d = 3``, the product unrolled."""
    o = 3 * i
    u0 = q[o]
    u1 = q[o + 1]
    u2 = q[o + 2]
    for k in range(bptr[i], bptr[i + 1]):
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
            u0, u1, u2 = _row3(bptr, bidx, B, q, r, i)
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
    block by block (the same local solves, the same order; ``u_i`` summed block by block, for ``d = 3``
    by :func:`_row3`, inlined: a Kapla sweep 97.6 us with it as with the product written out here, the
    best of 7 x 100 sweeps of a script)."""
    n_c = bptr.shape[0] - 1
    ui = np.empty(d)
    x = np.empty(d)
    ri = np.empty(d)
    for i in range(n_c):
        if rho[i] == 0.0:
            continue
        o = i * d
        if d == 3:
            u0, u1, u2 = _row3(bptr, bidx, B, q, r, i)
            ui[0] = u0
            ui[1] = u1
            ui[2] = u2
        else:
            for a in range(d):
                ui[a] = q[o + a]
            for k in range(bptr[i], bptr[i + 1]):
                j = bidx[k] * d
                for a in range(d):
                    s = 0.0
                    for b in range(d):
                        s += B[k, a, b] * r[j + b]
                    ui[a] += s
        _solve_at(blocks[i], inv[i], ui, r, o, mu[i], rho, i, d, local_iter, local_tol, x, ri)

"""Band factorisations in LAPACK's band storage, compiled, for the global Newton's reduced matrix
(:mod:`~contactcp.solvers.cone.newton_global_loop`): called inside its compiled iteration, where
LAPACK's ``dpbtrf`` / ``dgbtrf`` are out of reach (numba calls no band LAPACK).  The algorithms are
LAPACK's unblocked ones, the order of their operations kept:

* :func:`band_cholesky` / :func:`band_cholesky_solve`: ``K = L L^T`` of a symmetric positive
  definite matrix from its lower band, ``ab[i - j, j] = K[i, j]`` (``dpbtf2`` with ``uplo = 'L'``,
  then ``dpbtrs``);
* :func:`band_lu` / :func:`band_lu_solve`: ``P K = L U`` with partial pivoting of a matrix with
  ``kl`` sub- and super-diagonals stored ``ab[2 kl + i - j, j] = K[i, j]`` in ``3 kl + 1`` rows,
  the first ``kl`` the room for the pivots' fill (``dgbtf2`` with ``ku = kl``, then ``dgbtrs``);
* :func:`rcm_order`: the reverse Cuthill–McKee order that puts the matrix in a narrow band.

Both factorisations skip what zeros make idle: a column's entries at the end of
the band that are zero, and the updates by a zero entry.  Each skipped operation would subtract a
product with a zero factor, which leaves every nonzero entry as it is (only the sign of an entry that
is exactly zero could differ), so the factors are LAPACK's to the bit otherwise.  The reduced matrices
of a pile fill their band sparsely: in the reverse Cuthill–McKee order of a 25-box pile's steps a
row's profile is 5-12 entries wide on average in a band of 11-39 (a script on the matrices of four
steps).

The tests check both against dense solves on random band matrices, well and badly conditioned.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["band_cholesky", "band_cholesky_solve", "band_lu", "band_lu_solve", "rcm_order"]


@njit(cache=True, nogil=True)
def band_cholesky(ab, kl):
    """``L`` in place of the lower band ``ab`` ``(kl + 1, n)``; False when a pivot is not positive
    (``K`` not positive definite to rounding)."""
    n = ab.shape[1]
    for j in range(n):
        ajj = ab[0, j]
        if not ajj > 0.0:
            return False
        ajj = math.sqrt(ajj)
        ab[0, j] = ajj
        kn = min(kl, n - 1 - j)
        while kn > 0 and ab[kn, j] == 0.0:  # the column's zeros at the band's end (module docstring)
            kn -= 1
        for i in range(1, kn + 1):
            ab[i, j] /= ajj
        for c in range(1, kn + 1):  # the trailing block's lower triangle, less x x^T
            xc = ab[c, j]
            if xc != 0.0:
                for r in range(c, kn + 1):
                    ab[r - c, j + c] -= ab[r, j] * xc
    return True


@njit(cache=True, nogil=True)
def band_cholesky_solve(ab, kl, b):
    """``K^{-1} b`` in place of ``b`` from :func:`band_cholesky`'s ``L``: ``L y = b``, ``L^T x = y``."""
    n = ab.shape[1]
    for j in range(n):
        b[j] /= ab[0, j]
        bj = b[j]
        for i in range(1, min(kl, n - 1 - j) + 1):
            b[j + i] -= ab[i, j] * bj
    for j in range(n - 1, -1, -1):
        s = b[j]
        for i in range(1, min(kl, n - 1 - j) + 1):
            s -= ab[i, j] * b[j + i]
        b[j] = s / ab[0, j]


@njit(cache=True, nogil=True)
def band_lu(ab, kl, ipiv):
    """``L`` and ``U`` in place of ``ab`` ``(3 kl + 1, n)``, the row interchanges in ``ipiv``; False
    when a pivot is exactly zero (``K`` singular)."""
    n = ab.shape[1]
    kv = 2 * kl
    ju = 0
    for j in range(n):
        km = min(kl, n - 1 - j)
        while km > 0 and ab[kv + km, j] == 0.0:  # the column's zeros at the band's end (module docstring)
            km -= 1
        p = 0  # the first largest entry of the column, on and below the diagonal
        big = abs(ab[kv, j])
        for i in range(1, km + 1):
            if abs(ab[kv + i, j]) > big:
                p, big = i, abs(ab[kv + i, j])
        ipiv[j] = j + p
        if ab[kv + p, j] == 0.0:
            return False
        ju = max(ju, min(j + kl + p, n - 1))
        if p != 0:  # rows j and j + p swap, in columns j .. ju
            for c in range(j, ju + 1):
                a, b = kv + j - c, kv + j + p - c
                ab[a, c], ab[b, c] = ab[b, c], ab[a, c]
        if km > 0:
            inv = 1.0 / ab[kv, j]
            for i in range(1, km + 1):
                ab[kv + i, j] *= inv
            for c in range(j + 1, ju + 1):
                ujc = ab[kv + j - c, c]
                if ujc != 0.0:
                    for i in range(1, km + 1):
                        ab[kv + j + i - c, c] -= ab[kv + i, j] * ujc
    return True


@njit(cache=True, nogil=True)
def band_lu_solve(ab, kl, ipiv, b):
    """``K^{-1} b`` in place of ``b`` from :func:`band_lu`: ``L y = P b``, then ``U x = y`` (``U`` has
    ``2 kl`` super-diagonals)."""
    n = ab.shape[1]
    kv = 2 * kl
    for j in range(n - 1):
        p = ipiv[j]
        if p != j:
            b[j], b[p] = b[p], b[j]
        bj = b[j]
        for i in range(1, min(kl, n - 1 - j) + 1):
            b[j + i] -= ab[kv + i, j] * bj
    for j in range(n - 1, -1, -1):
        b[j] /= ab[kv, j]
        bj = b[j]
        for i in range(max(0, j - kv), j):
            b[i] -= ab[kv + i - j, j] * bj


def dense_of(ab: np.ndarray, kl: int, general: bool) -> np.ndarray:
    """The dense matrix of a band array (tests): the symmetric matrix of a lower band, or the
    matrix of :func:`band_lu`'s storage before factorisation."""
    n = ab.shape[1]
    K = np.zeros((n, n))
    for j in range(n):
        for i in range(max(0, j - kl), min(n, j + kl + 1)):
            if general:
                K[i, j] = ab[2 * kl + i - j, j]
            elif i >= j:
                K[i, j] = K[j, i] = ab[i - j, j]
    return K


@njit(cache=True, nogil=True)
def rcm_order(indptr, indices):
    """The reverse Cuthill–McKee order of a symmetric pattern (CSR; Cuthill & McKee 1969, reversed as
    George 1971): each connected component searched breadth first from a node of least degree, each
    node's unvisited neighbours taken by increasing degree (ties by index), the whole order
    reversed.  Returns ``perm`` (``perm[k]``: the node placed ``k``-th).  The rules are those of
    SciPy's ``reverse_cuthill_mckee`` as documented, ties possibly broken otherwise (the tests
    compare the bandwidths, not the orders); this one runs inside the caller's compiled code
    (SciPy's call, with the pattern's conversion to a SciPy matrix, was 28 of the 64 us of a 25-box
    pile's band order)."""
    n = indptr.shape[0] - 1
    degree = np.empty(n, dtype=np.int64)
    for r in range(n):
        degree[r] = indptr[r + 1] - indptr[r]
    by_degree = np.argsort(degree, kind="mergesort")
    seen = np.zeros(n, dtype=np.bool_)
    order = np.empty(n, dtype=np.int64)
    k = 0
    for start in by_degree:
        if seen[start]:
            continue
        seen[start] = True
        order[k] = start
        k += 1
        head = k - 1
        while head < k:
            node = order[head]
            head += 1
            first = k
            for p in range(indptr[node], indptr[node + 1]):
                nb = indices[p]
                if not seen[nb]:
                    seen[nb] = True
                    j = k  # insertion by degree, then index: a node's few neighbours
                    while j > first and (
                        degree[order[j - 1]] > degree[nb] or (degree[order[j - 1]] == degree[nb] and order[j - 1] > nb)
                    ):
                        order[j] = order[j - 1]
                        j -= 1
                    order[j] = nb
                    k += 1
    return order[::-1].copy()

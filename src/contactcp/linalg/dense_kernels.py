"""Small dense Cholesky factorisations, compiled, for kernels that solve with a matrix inside one
compiled call (a robot's mass matrix in the time stepper's local step, Anderson's small normal
equations), where a LAPACK call through scipy would cost more than the arithmetic.

``A = L L^T`` by the Cholesky–Crout order (row ``a`` of ``L`` from the rows above it), the test of
positive definiteness its pivots (``> 0``, false for NaN, as LAPACK's ``dpotrf``); the solves
``L y = b`` then ``L^T x = y``.  The tests check both against numpy's on random matrices.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["cholesky", "cholesky_solve", "cholesky_solve_columns"]


@njit(cache=True, nogil=True)
def cholesky(A):
    """``(L, ok)``: ``L`` lower triangular (zeros above) with ``A = L L^T`` from ``A``'s lower
    triangle; ``ok`` False when a pivot is not positive (``A`` not positive definite to rounding:
    ``L`` is then incomplete)."""
    k = A.shape[0]
    L = np.zeros((k, k))
    for a in range(k):
        s = A[a, a]
        for c in range(a):
            s -= L[a, c] * L[a, c]
        if not s > 0.0:
            return L, False
        L[a, a] = np.sqrt(s)
        for e in range(a + 1, k):
            t = A[e, a]
            for c in range(a):
                t -= L[e, c] * L[a, c]
            L[e, a] = t / L[a, a]
    return L, True


@njit(cache=True, nogil=True)
def cholesky_solve(L, b):
    """``A^-1 b`` from :func:`cholesky`'s ``L`` (a new array)."""
    k = b.shape[0]
    y = np.zeros(k)
    for a in range(k):
        t = b[a]
        for c in range(a):
            t -= L[a, c] * y[c]
        y[a] = t / L[a, a]
    x = np.zeros(k)
    for a in range(k - 1, -1, -1):
        t = y[a]
        for c in range(a + 1, k):
            t -= L[c, a] * x[c]
        x[a] = t / L[a, a]
    return x


@njit(cache=True, nogil=True)
def cholesky_solve_columns(L, B):
    """``A^-1 B`` for every column of ``B`` at once, a new ``(k, m)`` array: each entry by
    :func:`cholesky_solve`'s operations in its order (the same numbers as column by column), the
    rows swept once for all the columns."""
    k, m = B.shape
    X = np.empty((k, m))
    for a in range(k):
        for j in range(m):
            X[a, j] = B[a, j]
        for c in range(a):
            l = L[a, c]
            for j in range(m):
                X[a, j] -= l * X[c, j]
        d = L[a, a]
        for j in range(m):
            X[a, j] /= d
    for a in range(k - 1, -1, -1):
        for c in range(a + 1, k):
            l = L[c, a]
            for j in range(m):
                X[a, j] -= l * X[c, j]
        d = L[a, a]
        for j in range(m):
            X[a, j] /= d
    return X

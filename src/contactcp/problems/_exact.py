"""Exact sign of ``A^T y`` and ``b^T y`` for floating-point data, for infeasibility proofs.

A Farkas vector proves infeasibility only if its inequalities hold *exactly*
(a tolerance turns "no solution" into "no solution of norm below a bound").
Treating the floats ``A``, ``y`` as the exact rationals they are, each product
``a y`` is split into two floats without error (Dekker's TwoProduct) and each
sum is formed by ``math.fsum``, which returns the correctly rounded value of
the exact sum, hence its exact sign.  Cost: ``O(m n)`` float operations plus
``n`` calls of ``fsum``; used only to check certificates.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ._kernels import scaled_products


def exact_transpose_product(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``A^T y`` with every entry the correctly rounded value of the exact sum (so its sign is exact)."""
    P, E = scaled_products(np.ascontiguousarray(A, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64))
    both = np.concatenate([P, E], axis=0)
    return np.array([math.fsum(both[:, j]) for j in range(A.shape[1])])


def exact_dot(b: np.ndarray, y: np.ndarray) -> float:
    """``b . y`` correctly rounded (exact sign)."""
    P, E = scaled_products(np.ascontiguousarray(b, dtype=np.float64).reshape(-1, 1),
                           np.ascontiguousarray(y, dtype=np.float64))
    return math.fsum(np.concatenate([P[:, 0], E[:, 0]]))


def _solve_rational(rows: list[list[Fraction]], rhs: list[Fraction], guess: list[Fraction]) -> list[Fraction] | None:
    """A solution of ``rows x = rhs`` in exact arithmetic: Gauss–Jordan elimination; free variables
    keep their ``guess``.  None when the system is inconsistent."""
    m, n = len(rows), len(guess)
    A = [r[:] + [b] for r, b in zip(rows, rhs)]
    pivots = []
    r = 0
    for c in range(n):
        piv = next((i for i in range(r, m) if A[i][c] != 0), None)
        if piv is None:
            continue
        A[r], A[piv] = A[piv], A[r]
        inv = 1 / A[r][c]
        A[r] = [v * inv for v in A[r]]
        for i in range(m):
            if i != r and A[i][c] != 0:
                f = A[i][c]
                A[i] = [a - f * b for a, b in zip(A[i], A[r])]
        pivots.append(c)
        r += 1
        if r == m:
            break
    if any(all(v == 0 for v in A[i][:n]) and A[i][n] != 0 for i in range(r, m)):
        return None
    x = list(guess)
    free = [c for c in range(n) if c not in pivots]
    for i, c in enumerate(pivots):
        x[c] = A[i][n] - sum((A[i][k] * x[k] for k in free), Fraction(0))
    return x


def rational_farkas(M: np.ndarray, q: np.ndarray, y: np.ndarray, *, max_support: int = 60,
                    active_rtol: float = 1e-8) -> np.ndarray | None:
    """Whether a rational vector near ``y`` proves ``{z >= 0 : M z + q >= 0}`` empty, exactly.

    A floating-point Farkas vector usually meets ``(M^T y)_j = 0`` (which the
    proof needs on some columns, e.g. for a positive semidefinite ``M``) only
    up to round-off.  Here the support ``S`` of ``y`` and the columns ``J``
    where ``M^T y`` is zero up to ``active_rtol`` are kept, ``y_S`` is
    recomputed in rational arithmetic from ``M_{S,J}^T y_S = 0``,
    ``sum y_S = sum y`` (free components keep their float values), and every
    condition ``y >= 0``, ``M^T y <= 0``, ``q^T y < 0`` is checked exactly.
    Returns the proving vector (the floats nearest its rational entries), or
    None when the support exceeds ``max_support`` (cost) or any check fails.
    """
    y = np.maximum(np.asarray(y, dtype=float), 0.0)
    if not y.any():
        return None
    S = np.flatnonzero(y > 1e-12 * y.max())
    if S.size > max_support:
        return None
    v = M[S].T @ y[S]
    scale = float((np.abs(M[S]).T @ y[S]).max(initial=0.0))
    J = np.flatnonzero(np.abs(v) <= active_rtol * max(scale, np.finfo(float).tiny))
    F = [[Fraction(float(M[i, j])) for i in S] for j in J]
    total = Fraction(float(y[S].sum()))
    rows = F + [[Fraction(1)] * S.size]
    rhs = [Fraction(0)] * len(F) + [total]
    ys = _solve_rational(rows, rhs, [Fraction(float(y[i])) for i in S])
    if ys is None or any(val < 0 for val in ys):
        return None
    for j in range(M.shape[1]):
        if sum((Fraction(float(M[i, j])) * yi for i, yi in zip(S, ys) if M[i, j] != 0), Fraction(0)) > 0:
            return None
    if not sum((Fraction(float(q[i])) * yi for i, yi in zip(S, ys) if q[i] != 0), Fraction(0)) < 0:
        return None
    out = np.zeros(y.shape[0])
    out[S] = [float(v) for v in ys]
    return out

"""Exact arithmetic on floating-point data, for the verdicts that rest on signs.

Every finite double is a dyadic rational ``m / 2^k``; a product of two is split into two floats
without error (Dekker's TwoProduct, :mod:`contactcp.linalg.dot2`) and a sum of floats is rounded
once, correctly, by ``math.fsum``, so the sign of ``A^T y`` or ``b^T y`` is exact at the cost of
``O(m n)`` float operations; where TwoProduct could under- or overflow, or a value is wanted
exactly, Python's integers and :class:`fractions.Fraction` take over.  Also: exact solutions of
small linear systems (Gauss–Jordan elimination on rationals) and directed rounding of a rational
to a float (:func:`float_up`, :func:`float_down`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from contactcp.linalg.dot2 import scaled_products

__all__ = [
    "exact_transpose_product",
    "exact_dot",
    "exact_affine",
    "dyadic",
    "solve_rational",
    "rational_solve",
    "float_up",
    "float_down",
]


def _fraction_products_needed(A: np.ndarray, y: np.ndarray) -> bool:
    """Whether TwoProduct could under- or overflow (then it is not error-free)."""
    a = np.abs(A[A != 0])
    v = np.abs(y[y != 0])
    if not a.size or not v.size:
        return False
    return bool(
        a.min() * v.min() < 2.0**-900 or a.max() * v.max() > 2.0**900 or a.max() > 2.0**990 or v.max() > 2.0**990
    )


def exact_transpose_product(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``A^T y`` with every entry the correctly rounded value of the exact sum (so its sign is exact).

    TwoProduct and ``fsum`` when no product can under- or overflow; rational arithmetic otherwise."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if _fraction_products_needed(A, y):
        fy = [Fraction(float(v)) for v in y]
        return np.array(
            [
                _float_keep_sign(
                    sum((Fraction(float(A[i, j])) * fy[i] for i in range(A.shape[0]) if A[i, j] != 0), Fraction(0))
                )
                for j in range(A.shape[1])
            ]
        )
    P, E = scaled_products(A, y)
    both = np.concatenate([P, E], axis=0)
    return np.array([math.fsum(both[:, j]) for j in range(A.shape[1])])


def _float_keep_sign(v: Fraction) -> float:
    """``float(v)``, but a nonzero value that underflows keeps its sign (the smallest subnormal)
    and one that overflows becomes an infinity of its sign."""
    try:
        f = float(v)
    except OverflowError:
        return math.copysign(math.inf, v)
    if f == 0.0 and v != 0:
        return math.copysign(math.ulp(0.0), v)
    return f


def exact_dot(b: np.ndarray, y: np.ndarray) -> float:
    """``b . y`` correctly rounded (exact sign)."""
    return float(exact_transpose_product(np.asarray(b, dtype=np.float64).reshape(-1, 1), y)[0])


def solve_rational(rows: list[list[Fraction]], rhs: list[Fraction], guess: list[Fraction]) -> list[Fraction] | None:
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


def dyadic(v: float) -> tuple[int, int]:
    """``(m, k)`` with ``v = m / 2^k`` exactly (``k >= 0``)."""
    num, den = float(v).as_integer_ratio()
    return num, den.bit_length() - 1


def exact_affine(a: np.ndarray, x: np.ndarray, c: float) -> Fraction:
    """``a . x + c`` exactly, as a Fraction (finite floats only): integer arithmetic on the dyadic
    numerators, one shift per term."""
    terms = [dyadic(c)]
    xs = [dyadic(v) for v in x.tolist()]
    for aj, (mx, kx) in zip(a.tolist(), xs):
        if aj != 0.0 and mx != 0:
            ma, ka = dyadic(aj)
            terms.append((ma * mx, ka + kx))
    K = max(k for _, k in terms)
    return Fraction(sum(m << (K - k) for m, k in terms), 1 << K)


def float_up(v: Fraction) -> float:
    """The smallest float ``>= v`` (an upper bound that rounding cannot lower)."""
    try:
        f = float(v)
    except OverflowError:
        return math.inf
    return f if Fraction(f) >= v else math.nextafter(f, math.inf)


def float_down(v: Fraction) -> float:
    """The largest float ``<= v``."""
    return -float_up(-v)


def rational_solve(A: np.ndarray, b: np.ndarray) -> list[Fraction] | None:
    """The exact solution of ``A x = b`` (A square and nonsingular, floats as rationals), or None."""
    k = b.shape[0]
    rows = [[Fraction(float(v)) for v in row] for row in A.tolist()]
    x = solve_rational(rows, [Fraction(float(v)) for v in b.tolist()], [Fraction(0)] * k)
    if x is None:
        return None
    # a unique solution needs a nonsingular A: check the residual exactly and the rank through the solve
    return x

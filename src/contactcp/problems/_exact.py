"""Exact arithmetic on floating-point data: signs for infeasibility proofs, rows for residuals.

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

from contactcp.problems._kernels import column_units, scaled_products


def _fraction_products_needed(A: np.ndarray, y: np.ndarray) -> bool:
    """Whether TwoProduct could under- or overflow (then it is not error-free)."""
    a = np.abs(A[A != 0])
    v = np.abs(y[y != 0])
    if not a.size or not v.size:
        return False
    return bool(a.min() * v.min() < 2.0 ** -900 or a.max() * v.max() > 2.0 ** 900 or a.max() > 2.0 ** 990
                or v.max() > 2.0 ** 990)


def exact_transpose_product(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``A^T y`` with every entry the correctly rounded value of the exact sum (so its sign is exact).

    TwoProduct and ``fsum`` when no product can under- or overflow; rational arithmetic otherwise."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if _fraction_products_needed(A, y):
        fy = [Fraction(float(v)) for v in y]
        return np.array([_float_keep_sign(sum((Fraction(float(A[i, j])) * fy[i] for i in range(A.shape[0])
                                               if A[i, j] != 0), Fraction(0))) for j in range(A.shape[1])])
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


def _dyadic(v: float) -> tuple[int, int]:
    """``(m, k)`` with ``v = m / 2^k`` exactly (``k >= 0``)."""
    num, den = float(v).as_integer_ratio()
    return num, den.bit_length() - 1


def exact_affine(a: np.ndarray, x: np.ndarray, c: float) -> Fraction:
    """``a . x + c`` exactly, as a Fraction (finite floats only): integer arithmetic on the dyadic
    numerators, one shift per term."""
    terms = [_dyadic(c)]
    xs = [_dyadic(v) for v in x.tolist()]
    for aj, (mx, kx) in zip(a.tolist(), xs):
        if aj != 0.0 and mx != 0:
            ma, ka = _dyadic(aj)
            terms.append((ma * mx, ka + kx))
    K = max(k for _, k in terms)
    return Fraction(sum(m << (K - k) for m, k in terms), 1 << K)


def exact_row_scale(a: np.ndarray, x: np.ndarray, c: float, Z: np.ndarray) -> Fraction:
    """``max(|c|, sum_j |a_j| min(|x_j|, Z_j))`` exactly (the row scale of :func:`~._kernels.row_scale`;
    ``Z`` from :func:`~._kernels.column_units`)."""
    capped = np.minimum(np.abs(x), Z)
    keep = np.isfinite(capped)          # only a zero column has Z_j = inf, and then a_j = 0
    return max(Fraction(abs(c)), exact_affine(np.abs(a)[keep], capped[keep], 0.0))


def float_up(v: Fraction) -> float:
    """The smallest float ``>= v`` (an upper bound that rounding cannot lower)."""
    try:
        f = float(v)
    except OverflowError:
        return math.inf
    return f if Fraction(f) >= v else math.nextafter(f, math.inf)


def exact_lcp_rows(M: np.ndarray, q: np.ndarray, z: np.ndarray, free: np.ndarray,
                   rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(w, e)`` on ``rows`` in rational arithmetic: ``w_i`` (the float nearest the exact value) and
    ``e_i`` the row's violation in its own scale ``s_i`` (:func:`exact_row_scale`),
    ``|min(z_i, w_i / s_i)|`` (``|w_i| / s_i`` on free rows), rounded up.  Non-finite ``z`` gives inf."""
    w = np.empty(rows.size)
    e = np.empty(rows.size)
    if not np.all(np.isfinite(z)):
        w[:] = np.nan
        e[:] = np.inf
        return w, e
    Z = column_units(M, q)
    for k, i in enumerate(rows.tolist()):
        wi = exact_affine(M[i], z, float(q[i]))
        try:
            w[k] = float(wi)
        except OverflowError:
            w[k] = math.copysign(math.inf, wi)
        si = exact_row_scale(M[i], z, float(q[i]), Z)
        ws = Fraction(0) if si == 0 else wi / si
        viol = abs(ws) if free[i] else abs(min(Fraction(float(z[i])), ws))
        e[k] = float_up(viol)
    return w, e


def float_down(v: Fraction) -> float:
    """The largest float ``<= v``."""
    return -float_up(-v)


def exact_scaled_rows(A: np.ndarray, x: np.ndarray, c: np.ndarray, rows: np.ndarray,
                      v: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
    """Overwrite ``v``, ``lo``, ``hi`` on ``rows`` with the exact value of ``(A x + c)_i`` (nearest float)
    and the floats just below and above ``(A x + c)_i / s_i`` (:func:`~._kernels.scaled_affine`)."""
    finite = bool(np.all(np.isfinite(x)))
    Z = column_units(A, c)
    for i in rows.tolist():
        if not finite:
            v[i], lo[i], hi[i] = np.nan, -math.inf, math.inf
            continue
        wi = exact_affine(A[i], x, float(c[i]))
        try:
            v[i] = float(wi)
        except OverflowError:
            v[i] = math.copysign(math.inf, wi)
        si = exact_row_scale(A[i], x, float(c[i]), Z)
        ws = Fraction(0) if si == 0 else wi / si
        lo[i], hi[i] = float_down(ws), float_up(ws)

"""The harness's own exact arithmetic: residuals and Farkas checks in rational numbers.

Nothing here comes from contactcp.  Every float is an exact dyadic rational, so a
vector of floats is held as Python integers over one power of two
(``value = k / 2**shift``) and ``M z + q`` is computed exactly in integers; the
per-row quantities the contract compares are then exact ``Fraction`` values.
Non-finite inputs give ``None`` (no finite residual: never "solved").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

__all__ = [
    "to_ints",
    "exact_affine",
    "lcp_residual",
    "box_residual",
    "ucp_residual",
    "farkas_box",
    "farkas_lcp",
    "farkas_polyhedron",
    "frac_vector",
    "finite",
]


def finite(values) -> bool:
    return all(math.isfinite(float(v)) for v in values)


def to_ints(values: Sequence[float]) -> tuple[list[int], int]:
    """Floats -> (integers k, shift) with ``value = k / 2**shift`` exactly."""
    ratios = [float(v).as_integer_ratio() for v in values]
    shift = max((d.bit_length() - 1 for _, d in ratios), default=0)
    return [n << (shift - (d.bit_length() - 1)) for n, d in ratios], shift


def frac_vector(values) -> list[Fraction]:
    return [v if isinstance(v, Fraction) else Fraction(float(v)) for v in values]


def exact_affine(M, z, q) -> list[Fraction]:
    """``M z + q`` exactly (M: rows of floats, z, q: floats)."""
    rows = [list(map(float, r)) for r in M]
    zi, sz = to_ints(z)
    mi, sm = to_ints([v for r in rows for v in r])
    qi, sq = to_ints(q)
    n = len(zi)
    s = sm + sz
    t = max(s, sq)
    out = []
    for i in range(len(rows)):
        acc = sum(a * b for a, b in zip(mi[i * n : (i + 1) * n], zi))
        out.append(Fraction((acc << (t - s)) + (qi[i] << (t - sq)), 1 << t))
    return out


def _row_scales(M, q, z) -> list[Fraction]:
    """The contract's row scales (``contactcp.result.Residual``), exactly:
    ``s_i = max(|q_i|, sum_j |M_ij| min(|z_j|, Z_j))`` with ``Z_j = fl(max|q| / max_i |M_ij|)`` (the
    double-precision quotient; a zero column counts ``|z_j|``)."""
    rows, cols = len(q), len(z)
    qmax = max([abs(float(v)) for v in q] + [0.0])
    Z = []
    for j in range(cols):
        cmax = max([abs(float(M[i][j])) for i in range(rows)] + [0.0])
        with np.errstate(over="ignore"):
            zj = np.float64(qmax) / np.float64(cmax) if cmax != 0.0 else np.inf
        Z.append(None if not np.isfinite(zj) else Fraction(float(zj)))  # an infinite cap counts |z_j|
    zf = frac_vector(z)
    out = []
    for i in range(rows):
        terms = sum(
            Fraction(abs(float(M[i][j]))) * (abs(zf[j]) if Z[j] is None else min(abs(zf[j]), Z[j])) for j in range(cols)
        )
        out.append(max(Fraction(abs(float(q[i]))), terms))
    return out


def _scaled(w: Fraction, s: Fraction) -> Fraction:
    """``w / s``; on a row of scale 0 the contract wants ``w = 0`` exactly (else a huge violation)."""
    if s:
        return w / s
    return Fraction(0) if w == 0 else Fraction(10**300) * (1 if w > 0 else -1)


def _point_rows(M, q, z) -> tuple[list[Fraction], list[Fraction]] | None:
    """``(z, [w_i / s_i])`` exactly, or None when ``z`` is missing, of the wrong size or not finite (a
    point that can never count as solved)."""
    if z is None or len(z) != len(q) or not finite(z):
        return None
    w = exact_affine(M, z, q)
    s = _row_scales(M, q, z)
    return frac_vector(z), [_scaled(w[i], s[i]) for i in range(len(q))]


def lcp_residual(M, q, z, free=None) -> tuple[Fraction | None, int]:
    """The contract's residual of LCP / MixedLCP, exactly: ``max_i e_i`` with
    ``e_i = |min(z_i, w_i / s_i)|`` on complementarity rows and ``|w_i| / s_i`` on free rows
    (``w_i / s_i := 0`` on a zero row, whose ``w_i`` is exactly 0).  Returns (value, worst row)."""
    rows = _point_rows(M, q, z)
    if rows is None:
        return None, -1
    zf, wss = rows
    best, arg = Fraction(0), -1
    for i, ws in enumerate(wss):
        e = abs(ws) if (free is not None and free[i]) else abs(min(zf[i], ws))
        if e > best:
            best, arg = e, i
    return best, arg


def box_residual(M, q, lower, upper, z) -> tuple[Fraction | None, int]:
    """BoxLCP: ``e_i = |z_i - mid(l_i, u_i, z_i - w_i / s_i)|`` and any bound violation, exactly."""
    rows = _point_rows(M, q, z)
    if rows is None:
        return None, -1
    zf, wss = rows
    best, arg = Fraction(0), -1
    for i, ws in enumerate(wss):
        lo = Fraction(float(lower[i])) if math.isfinite(lower[i]) else None
        hi = Fraction(float(upper[i])) if math.isfinite(upper[i]) else None
        v = zf[i] - ws
        if hi is not None:
            v = min(v, hi)
        if lo is not None:
            v = max(v, lo)
        e = abs(zf[i] - v)
        if lo is not None:
            e = max(e, lo - zf[i])
        if hi is not None:
            e = max(e, zf[i] - hi)
        if e > best:
            best, arg = e, i
    return best, arg


def ucp_residual(A_x, b_x, A_y, b_y, x, y) -> tuple[Fraction | None, int]:
    """UCP: ``max(|min(x_i, y_i)|, |(A x - b)_k| / s_k for both polyhedra)``, exactly."""
    n = len(A_x[0]) if len(A_x) else len(A_y[0]) if len(A_y) else None
    for v in (x, y):
        if v is None or (n is not None and len(v) != n) or not finite(v):
            return None, -1
    best, arg = Fraction(0), -1
    xf, yf = frac_vector(x), frac_vector(y)
    for i in range(len(xf)):
        e = abs(min(xf[i], yf[i]))
        if e > best:
            best, arg = e, i
    for A, b, v, off in ((A_x, b_x, x, 10**6), (A_y, b_y, y, 2 * 10**6)):
        if not len(b):
            continue
        r = exact_affine(A, v, [-float(t) for t in b])
        s = _row_scales(A, b, v)
        for k in range(len(b)):
            e = abs(_scaled(r[k], s[k]))
            if e > best:
                best, arg = e, off + k
    return best, arg


def _common(y) -> list[int] | None:
    """Fractions / floats -> integers proportional to them (one positive common factor)."""
    yf = frac_vector(y)
    den = 1
    for v in yf:
        den = den * v.denominator // math.gcd(den, v.denominator)
    return [int(v * den) for v in yf]


def farkas_box(M, q, lower, upper, y) -> tuple[bool, str]:
    """Check exactly that ``y`` proves the box LCP (or mixed/standard LCP) has no solution:
    ``y_i >= 0`` where only the lower bound is finite, ``y_i <= 0`` where only the upper one is,
    ``y_i = 0`` where both are; ``g = M^T y`` with ``g_j > 0`` only where ``upper_j`` is finite and
    ``g_j < 0`` only where ``lower_j`` is; and ``sum_j g_j * (upper_j if g_j > 0 else lower_j) + q^T y < 0``."""
    n = len(q)
    if y is None or len(y) != n:
        return False, f"vector has length {None if y is None else len(y)}, expected {n}"
    if not all(isinstance(v, Fraction) or math.isfinite(float(v)) for v in y):
        return False, "vector is not finite"
    yi = _common(y)
    for i in range(n):
        lo_f, hi_f = math.isfinite(lower[i]), math.isfinite(upper[i])
        if lo_f and hi_f and yi[i] != 0:
            return False, f"y[{i}] != 0 on a row with both bounds finite"
        if lo_f and not hi_f and yi[i] < 0:
            return False, f"y[{i}] < 0 on a complementarity row"
        if hi_f and not lo_f and yi[i] > 0:
            return False, f"y[{i}] > 0 on an upper-bounded row"
    mi, sm = to_ints([float(v) for r in M for v in r])
    g = [sum(mi[i * n + j] * yi[i] for i in range(n)) for j in range(n)]  # g_j * 2^sm / den
    total = Fraction(0)
    for j in range(n):
        if g[j] > 0:
            if not math.isfinite(upper[j]):
                return False, f"(M^T y)[{j}] > 0 where upper[{j}] is infinite"
            total += Fraction(g[j], 1 << sm) * Fraction(float(upper[j]))
        elif g[j] < 0:
            if not math.isfinite(lower[j]):
                return False, f"(M^T y)[{j}] < 0 where lower[{j}] is infinite"
            total += Fraction(g[j], 1 << sm) * Fraction(float(lower[j]))
    qi, sq = to_ints(q)
    total += Fraction(sum(a * b for a, b in zip(qi, yi)), 1 << sq)
    if total >= 0:
        return False, f"the bound on y^T w is {float(total):.3e} >= 0"
    return True, "exact"


def farkas_lcp(M, q, y, free=None) -> tuple[bool, str]:
    """LCP (free=None) or MixedLCP (free mask): y >= 0 on complementarity rows, (M^T y) <= 0 there,
    = 0 on free columns, q^T y < 0 -- the box check with bounds [0, inf) / (-inf, inf)."""
    n = len(q)
    fr = [False] * n if free is None else [bool(f) for f in free]
    lower = [-math.inf if f else 0.0 for f in fr]
    upper = [math.inf] * n
    return farkas_box(M, q, lower, upper, y)


def farkas_polyhedron(A, b, u) -> tuple[bool, str]:
    """``{x >= 0 : A x = b}`` is empty: ``A^T u >= 0`` and ``b^T u < 0`` exactly."""
    m = len(b)
    if u is None or len(u) != m or m == 0:
        return False, "vector length does not match the rows"
    if not all(isinstance(v, Fraction) or math.isfinite(float(v)) for v in u):
        return False, "vector is not finite"
    ui = _common(u)
    ncol = len(A[0])
    ai, _ = to_ints([float(v) for r in A for v in r])
    for j in range(ncol):
        if sum(ai[i * ncol + j] * ui[i] for i in range(m)) < 0:
            return False, f"(A^T u)[{j}] < 0"
    bi, _ = to_ints(b)
    if sum(x * y for x, y in zip(bi, ui)) >= 0:
        return False, "b^T u >= 0"
    return True, "exact"

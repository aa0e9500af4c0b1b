"""Integer building blocks of the linear cases: matrices, bounds, planted solutions and Farkas vectors,
exact power-of-two scaling, and the margin of a planted infeasibility."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .exact import farkas_box

__all__ = [
    "int_matrix",
    "KINDS",
    "degenerate_matrix",
    "bound_types",
    "plant_solution",
    "plant_farkas",
    "infeasible_margin",
    "scale_pow2",
    "near_overflow",
    "INF",
]

INF = math.inf


# ---------------------------------------------------------------- matrices (integers)
def int_matrix(rng, n, kind, r):
    R = lambda *s: rng.integers(-r, r + 1, s)  # noqa: E731
    if kind == "pd":
        B = R(n, n)
        return B @ B.T + np.eye(n, dtype=np.int64)
    if kind == "psd":
        B = R(n, max(1, n // 2))
        return B @ B.T
    if kind == "pdns":
        B, S = R(n, n), R(n, n)
        return B @ B.T + np.eye(n, dtype=np.int64) + S - S.T
    if kind == "ptri":
        T = np.triu(R(n, n), 1) + np.diag(rng.integers(1, r + 1, n))
        p = rng.permutation(n)
        return T[np.ix_(p, p)]
    if kind == "zero_diag":
        A = R(n, n)
        np.fill_diagonal(A, 0)
        return A
    if kind == "nonneg":
        return rng.integers(0, r + 1, (n, n))
    if kind == "nsd":
        B = R(n, n)
        return -(B @ B.T)
    if kind == "zero":
        return np.zeros((n, n), dtype=np.int64)
    return R(n, n)  # "indef"


KINDS = ["pd", "psd", "pdns", "ptri", "zero_diag", "nonneg", "nsd", "indef"]


def degenerate_matrix(rng, n, r):
    """Zero rows/columns, repeated rows/columns, low rank, ties."""
    M = int_matrix(rng, n, str(rng.choice(["psd", "indef", "pd", "nonneg", "zero"])), r)
    what = []
    for _ in range(rng.integers(1, 3)):
        t = rng.integers(0, 5)
        i, j = rng.integers(0, n, 2)
        if t == 0:
            M[i, :] = 0
            what.append("zero row")  # noqa: E702
        elif t == 1:
            M[:, j] = 0
            what.append("zero column")  # noqa: E702
        elif t == 2:
            M[i, :] = M[j, :]
            what.append("repeated row")  # noqa: E702
        elif t == 3:
            M[:, i] = M[:, j]
            what.append("repeated column")  # noqa: E702
        else:
            u = rng.integers(-2, 3, n)
            M = np.outer(u, rng.integers(-2, 3, n))
            what.append("rank one")  # noqa: E702
    return M, ", ".join(what)


# ---------------------------------------------------------------- bounds
def bound_types(rng, n, ptype):
    """Per variable: (lower, upper) as integers or +-inf, in the problem's own kind."""
    if ptype == "LCP":
        return [(0, INF)] * n
    if ptype == "MixedLCP":
        free = rng.random(n) < rng.uniform(0.2, 0.7)
        if not free.any():
            free[rng.integers(n)] = True
        if free.all() and n > 1 and rng.random() < 0.7:
            free[rng.integers(n)] = False
        return [(-INF, INF) if f else (0, INF) for f in free]
    out = []
    for _ in range(n):
        t = rng.integers(0, 6)
        a = int(rng.integers(-8, 9))
        out.append([(0, INF), (a, a + int(rng.integers(1, 9))), (-INF, a), (-INF, INF), (a, a), (a, INF)][t])
    return out


# ---------------------------------------------------------------- planting (integers)
def plant_solution(rng, M, bounds, zbits, wbits, free_block=None):
    """z*, w* complementary for the given bounds, integers; q = w* - M z*."""
    n = M.shape[0]
    z = np.zeros(n, dtype=object)
    w = np.zeros(n, dtype=object)
    zr = lambda: int(rng.integers(1, 2**zbits + 1))  # noqa: E731
    wr = lambda: int(rng.integers(1, 2**wbits + 1))  # noqa: E731
    for i, (lo, hi) in enumerate(bounds):
        mode = rng.integers(0, 3)  # 0: at a bound, 1: inside / positive, 2: both zero
        if lo == -INF and hi == INF:
            z[i] = int(rng.integers(-(2**zbits), 2**zbits + 1))
            w[i] = 0  # noqa: E702
        elif lo == hi:
            z[i] = lo
            w[i] = int(rng.integers(-(2**wbits), 2**wbits + 1))  # noqa: E702
        elif lo != -INF and (hi == INF or rng.random() < 0.5) and mode != 1:
            z[i] = lo
            w[i] = 0 if mode == 2 else wr()  # noqa: E702
        elif hi != INF and mode != 1:
            z[i] = hi
            w[i] = 0 if mode == 2 else -wr()  # noqa: E702
        else:
            lo_i = lo if lo != -INF else (hi - 2**zbits if hi != INF else -(2**zbits))
            hi_i = hi if hi != INF else lo_i + 2**zbits
            z[i] = int(rng.integers(lo_i, hi_i + 1)) if hi_i > lo_i else lo_i
            if lo == 0 and hi == INF and z[i] == 0:
                z[i] = zr()
            w[i] = 0
    Mo = np.asarray(M, dtype=object)
    q = np.array([w[i] - sum(Mo[i, j] * z[j] for j in range(n)) for i in range(n)], dtype=object)
    return z, w, q


def plant_farkas(rng, M, bounds, mbits):
    """Modify row r of M and q_r so that y (signs per bound type) proves infeasibility exactly:
    ``sum_j g_j * bound_j + q^T y = -m`` with ``g = M^T y`` of the signs the bounds allow."""
    n = M.shape[0]
    allowed = [i for i, (lo, hi) in enumerate(bounds) if not (lo != -INF and hi != INF)]
    if not allowed:
        return None

    def sgn(i):
        return (
            1
            if bounds[i][1] == INF and bounds[i][0] != -INF
            else (-1 if bounds[i][0] == -INF and bounds[i][1] != INF else int(rng.choice([-1, 1])))
        )  # noqa: E731,E501

    r = int(rng.choice(allowed))
    y = [0] * n
    for i in allowed:
        if i == r or rng.random() < 0.5:
            y[i] = sgn(i) * (1 if i == r else int(rng.integers(1, 5)))
    g = []
    for lo, hi in bounds:
        if lo == -INF and hi == INF:
            g.append(0)
        elif hi == INF:
            g.append(-int(rng.integers(0, 4)))
        elif lo == -INF:
            g.append(int(rng.integers(0, 4)))
        else:
            g.append(int(rng.integers(-3, 4)))
    M = np.array(M, dtype=object)
    rest = [sum(y[i] * M[i, j] for i in range(n) if i != r) for j in range(n)]
    M[r, :] = [y[r] * (g[j] - rest[j]) for j in range(n)]
    q = np.array([int(v) for v in rng.integers(-(2**mbits), 2**mbits + 1, n)], dtype=object)
    Sb = sum(g[j] * (bounds[j][1] if g[j] > 0 else bounds[j][0]) for j in range(n) if g[j] != 0)
    # the margin is m / (||g||_1 + sum |y_i| s_i): m drawn relative to that size (10^-7 .. 3)
    size = (
        sum(abs(v) for v in g)
        + sum(abs(y[i]) * max([abs(q[i])] + [abs(v) for v in M[i]]) for i in range(n) if i != r)
        + max(abs(v) for v in M[r])
    )
    m = max(1, int(size * 10.0 ** rng.uniform(-7, 0.5)))
    q[r] = y[r] * (-m - Sb - sum(y[i] * q[i] for i in range(n) if i != r))
    return M, q, y


def infeasible_margin(M, q, lower, upper, y) -> Fraction | None:
    """The largest delta such that no point has a contract residual <= delta, from the Farkas vector y:
    ``-(sum g_j bound_j + q^T y) / (||g||_1 + sum |y_i| s_i)`` exactly (None if y is no proof)."""
    ok, _ = farkas_box(M, q, lower, upper, y)
    if not ok:
        return None
    n = len(q)
    yf = [Fraction(v) for v in y]
    Mf = [[Fraction(float(v)) for v in row] for row in M]
    g = [sum(Mf[i][j] * yf[i] for i in range(n)) for j in range(n)]
    tot = sum(yf[i] * Fraction(float(q[i])) for i in range(n))
    for j in range(n):
        if g[j] > 0:
            tot += g[j] * Fraction(float(upper[j]))
        elif g[j] < 0:
            tot += g[j] * Fraction(float(lower[j]))
    s = [max([abs(Fraction(float(q[i])))] + [abs(v) for v in Mf[i]]) for i in range(n)]
    den = sum(abs(v) for v in g) + sum(abs(yf[i]) * s[i] for i in range(n))
    return -tot / den if den else Fraction(10**9)


# ---------------------------------------------------------------- scaling by powers of two (exact)
def scale_pow2(M, q, bounds, z, w, y, rexp, cexp):
    """M'_ij = M_ij 2^(r_i + c_j), q' = 2^r q, z' = 2^-c z, bounds likewise, w' = 2^r w, y' = 2^-r y.
    Returns floats and exact planted vectors, or None if a float would lose bits."""
    n = len(q)
    p2 = lambda e: Fraction(2) ** int(e)  # noqa: E731
    Ml = [_exact_float(Fraction(int(M[i][j])) * p2(rexp[i] + cexp[j])) for i in range(n) for j in range(n)]
    ql = [_exact_float(Fraction(int(q[i])) * p2(rexp[i])) for i in range(n)]
    bl = [
        [
            b[k] if not math.isfinite(b[k]) else _exact_float(Fraction(int(b[k])) * p2(-cexp[j]))
            for j, b in enumerate(bounds)
        ]
        for k in (0, 1)
    ]
    zl = [] if z is None else [_exact_float(Fraction(int(z[j])) * p2(-cexp[j])) for j in range(n)]
    if any(v is None for v in Ml + ql + bl[0] + bl[1] + zl):
        return None
    ys = None if y is None else tuple(Fraction(int(y[i])) * p2(-rexp[i]) for i in range(n))
    return (
        np.array(Ml).reshape(n, n),
        np.array(ql),
        np.array(bl[0], dtype=float),
        np.array(bl[1], dtype=float),
        None if z is None else np.array(zl),
        ys,
    )


def near_overflow(M, q, z, rexp, cexp, rows, rng):
    """Row exponents that put each chosen row's largest term (|q_i|, |M'_ij|, |M_ij z_j|) in 2^1015..2^1021."""
    out = np.array(rexp, dtype=int)
    n = len(q)
    for i in rows:
        big = [abs(int(q[i]))] + [abs(int(M[i][j])) * 2.0 ** int(cexp[j]) for j in range(n)]
        if z is not None:
            big += [abs(int(M[i][j]) * int(z[j])) for j in range(n)]
        top = max(float(v) for v in big)
        if top > 0:
            out[i] = 1021 - math.ceil(math.log2(top)) - int(rng.integers(0, 7))
    return out


def _exact_float(v: Fraction):
    """float(v) if it is exactly v (else None); +-inf passes through."""
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) and Fraction(f) == v else None

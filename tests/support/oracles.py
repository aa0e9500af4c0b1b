"""The tests' own oracles, in exact rational arithmetic, sharing no code with contactcp.

They restate the library's contract (see ``contactcp.result.Residual`` and
``contactcp.linalg.farkas``) from its definitions, so a test that uses them fails when the
library's own residual or certificate check is wrong.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np


def F(x) -> Fraction:
    return Fraction(float(x))


def _mat(M):
    return [[F(v) for v in row] for row in np.asarray(M, dtype=float).tolist()]


def _vec(v):
    return [F(x) for x in np.asarray(v, dtype=float).reshape(-1).tolist()]


def lcp_residual(M, q, z, free=None) -> Fraction:
    """The contract's residual, exactly: ``max_i |min(z_i, w_i / s_i)|`` (``|w_i| / s_i`` on free rows),
    ``s_i = max(|q_i|, sum_j |M_ij| min(|z_j|, Z_j))``, ``Z_j = fl(max|q| / max_i |M_ij|)``."""
    Mf, qf, zf = _mat(M), _vec(q), _vec(z)
    Mn = np.asarray(M, dtype=float)
    n = len(qf)
    free = np.zeros(n, dtype=bool) if free is None else np.asarray(free, dtype=bool)
    qmax = float(np.abs(np.asarray(q, dtype=float)).max(initial=0.0))
    Z = []
    for j in range(n):
        cmax = float(np.abs(Mn[:, j]).max(initial=0.0))
        Z.append(None if cmax == 0.0 else F(qmax / cmax))  # the double-precision quotient
    worst = Fraction(0)
    for i in range(n):
        w = qf[i] + sum(Mf[i][j] * zf[j] for j in range(n))
        s = max(
            abs(qf[i]), sum(abs(Mf[i][j]) * (abs(zf[j]) if Z[j] is None else min(abs(zf[j]), Z[j])) for j in range(n))
        )
        if s == 0:
            ws = Fraction(0) if w == 0 else (Fraction(10**300) if w > 0 else Fraction(-(10**300)))
        else:
            ws = w / s
        e = abs(ws) if free[i] else abs(min(zf[i], ws))
        worst = max(worst, e)
    return worst


def farkas_proves(M, q, y, lower=None, upper=None) -> bool:
    """Whether ``y`` (floats or Fractions) proves a box LCP (an LCP by default: lower 0, upper inf;
    a mixed LCP: lower -inf, upper inf on its free variables) has no solution, exactly."""
    Mf, qf = _mat(M), _vec(q)
    n = len(qf)
    lower = np.zeros(n) if lower is None else np.asarray(lower, dtype=float)
    upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
    yf = [v if isinstance(v, Fraction) else F(v) for v in y]
    if len(yf) != n or not any(yf):
        return False
    for i in range(n):
        lo, up = np.isfinite(lower[i]), np.isfinite(upper[i])
        if lo and not up and yf[i] < 0:
            return False
        if up and not lo and yf[i] > 0:
            return False
        if lo and up and yf[i] != 0:
            return False
    total = sum(qf[i] * yf[i] for i in range(n))
    for j in range(n):
        g = sum(Mf[i][j] * yf[i] for i in range(n))
        if g > 0:
            if not np.isfinite(upper[j]):
                return False
            total += g * F(upper[j])
        elif g < 0:
            if not np.isfinite(lower[j]):
                return False
            total += g * F(lower[j])
    return total < 0


def certificate_proves(M, q, cert, lower=None, upper=None) -> bool:
    """A result's Farkas certificate, checked here: its rational vector when it has one, else its floats."""
    y = cert.exact if cert.exact is not None else cert.vector
    return farkas_proves(M, q, y, lower, upper)


def _solve(A, b):
    """Exact Gauss-Jordan: a solution of ``A x = b`` (free variables 0), or None when inconsistent."""
    m, n = len(A), (len(A[0]) if A else 0)
    R = [row[:] + [bi] for row, bi in zip(A, b)]
    piv, r = [], 0
    for c in range(n):
        p = next((i for i in range(r, m) if R[i][c] != 0), None)
        if p is None:
            continue
        R[r], R[p] = R[p], R[r]
        inv = 1 / R[r][c]
        R[r] = [v * inv for v in R[r]]
        for i in range(m):
            if i != r and R[i][c] != 0:
                f = R[i][c]
                R[i] = [a - f * bb for a, bb in zip(R[i], R[r])]
        piv.append(c)
        r += 1
    if any(R[i][n] != 0 for i in range(r, m)):
        return None
    x = [Fraction(0)] * n
    for i, c in enumerate(piv):
        x[c] = R[i][n]
    return x


def exact_lcp_basic_solutions(M, q) -> list[list[Fraction]]:
    """The LCP's solutions at its nonsingular complementary bases, exactly: for every support ``S``
    with ``M_SS`` nonsingular, ``z_S = -M_SS^-1 q_S`` (0 elsewhere) when ``z >= 0`` and ``w >= 0``.
    Every nondegenerate solution is among them; a problem that has only degenerate solutions (a
    singular ``M_SS`` at each) may have solutions that this list misses, so an empty list is a
    necessary condition for "no solution", not a proof."""
    Mf, qf = _mat(M), _vec(q)
    n = len(qf)
    out = []
    for r in range(n + 1):
        for S in itertools.combinations(range(n), r):
            S = list(S)
            A = [[Mf[i][j] for j in S] for i in S]
            if S and _rank(A) < len(S):
                continue
            zS = _solve(A, [-qf[i] for i in S]) if S else []
            z = [Fraction(0)] * n
            for j, v in zip(S, zS):
                z[j] = v
            if any(v < 0 for v in z):
                continue
            w = [qf[i] + sum(Mf[i][j] * z[j] for j in range(n)) for i in range(n)]
            if all(v >= 0 for v in w):
                out.append(z)
    return out


def _rank(A) -> int:
    R = [row[:] for row in A]
    m, n = len(R), (len(R[0]) if R else 0)
    r = 0
    for c in range(n):
        p = next((i for i in range(r, m) if R[i][c] != 0), None)
        if p is None:
            continue
        R[r], R[p] = R[p], R[r]
        for i in range(r + 1, m):
            if R[i][c] != 0:
                f = R[i][c] / R[r][c]
                R[i] = [a - f * b for a, b in zip(R[i], R[r])]
        r += 1
    return r


# ---------------------------------------------------------------------------
# floating-point oracles (tolerance-based; for tests where exactness is not the point)


def brute_force_lcp(M, q, tol=1e-9):
    """All solutions over the 2^n complementary bases (nonsingular ones only): the test's own oracle."""
    n = len(q)
    sols = []
    for r in range(n + 1):
        for a in itertools.combinations(range(n), r):
            a = list(a)
            z = np.zeros(n)
            if a:
                Maa = M[np.ix_(a, a)]
                if abs(np.linalg.det(Maa)) < 1e-12:
                    continue
                z[a] = np.linalg.solve(Maa, -q[a])
            w = M @ z + q
            if z.min() >= -tol and w.min() >= -tol:
                if not any(np.allclose(z, s, atol=1e-8) for s in sols):
                    sols.append(z)
    return sols


def lcp_violation(M, q, z):
    """max of the violations of z >= 0, w >= 0, z_i w_i = 0, computed here independently."""
    z = np.asarray(z, dtype=float)
    w = M @ z + q
    return max(-z.min(), -w.min(), np.abs(z * w).max(), 0.0)


def farkas_holds(M, q, y):
    """The test's own check of a Farkas vector: y >= 0, q^T y < 0 and M^T y <= 0, the latter up to the
    rounding bound of each entry's own terms, 16 (n + 1) eps (|M|^T y)_j (what the library calls a
    backward proof; its exact and rational proofs meet it too)."""
    y = np.asarray(y, dtype=float)
    M, q = np.asarray(M, dtype=float), np.asarray(q, dtype=float)
    g = 16.0 * (M.shape[0] + 1) * np.finfo(float).eps
    return bool(y.min() >= 0 and y.max() > 0 and (M.T @ y <= g * (np.abs(M).T @ y)).all() and q @ y < 0)


def coulomb_error(W, q, mu, r, d: int = 3) -> float:
    """Siconos' error measure of a local friction-contact answer, restated here from its definition:
    ``||r - P_K(r - (u + mu ||u_T|| e_N))||_2 / ||q||_2`` with ``u = W r + q`` (per-contact
    projection on the cone ``{||x_T|| <= mu x_N}`` written out case by case)."""
    r = np.asarray(r, dtype=float)
    u = W @ r + np.asarray(q, dtype=float)
    return natural_map_norm(u, r, mu, d) / (float(np.linalg.norm(q)) or 1.0)


def natural_map_norm(u, r, mu, d: int = 3) -> float:
    """``||r - P_K(r - (u + mu ||u_T|| e_N))||_2`` over the contacts."""
    total = 0.0
    for i, m in enumerate(np.broadcast_to(np.asarray(mu, dtype=float), (len(r) // d,))):
        ri, ui = r[d * i : d * i + d], u[d * i : d * i + d]
        y = ri - np.concatenate([[ui[0] + m * np.linalg.norm(ui[1:])], ui[1:]])
        yn, yt = y[0], y[1:]
        nt = float(np.linalg.norm(yt))
        if nt <= m * yn:
            p = y
        elif m * nt <= -yn:
            p = np.zeros(d)
        else:
            pn = (m * nt + yn) / (1.0 + m * m)
            p = np.concatenate([[pn], m * pn * yt / nt])
        total += float(np.sum((ri - p) ** 2))
    return total**0.5


def global_errors(M, H, f, w, mu, v, r, d: int = 3) -> tuple[float, float]:
    """A global answer's (equilibrium, Coulomb) errors: ``||M v - H r - f|| / (||f|| + ||H r|| + ||M v||)``
    and the natural map of ``(r, u = H^T v + w)`` over ``||w + H^T M^-1 f||`` (the local ``q``; a dense solve)."""
    M, H = (A.toarray() if hasattr(A, "toarray") else np.asarray(A, dtype=float) for A in (M, H))
    eq = float(np.linalg.norm(M @ v - H @ r - f)) / max(
        float(np.linalg.norm(f) + np.linalg.norm(H @ r) + np.linalg.norm(M @ v)), 1e-300
    )
    q = w + H.T @ np.linalg.solve(M, f)
    return eq, natural_map_norm(H.T @ v + w, r, mu, d) / (float(np.linalg.norm(q)) or 1.0)


def box_violation(M, q, lower, upper, z) -> Fraction:
    """The worst violation of a box-LCP point, exactly: ``z`` outside its box (relative to
    ``max(1, |z|_inf)``), and per row the distance of ``w_i / s_i`` from its allowed sign (``>= 0``
    at the lower bound, ``<= 0`` at the upper one, ``= 0`` inside) with ``w = M z + q`` exact and
    ``s_i = |q_i| + sum_j |M_ij z_j|``."""
    Mf, qf, zf = _mat(M), _vec(q), _vec(z)
    lo = np.asarray(lower, dtype=float)
    hi = np.asarray(upper, dtype=float)
    n = len(qf)
    zs = max([abs(v) for v in zf] + [Fraction(1)])
    worst = Fraction(0)
    for i in range(n):
        if np.isfinite(lo[i]):
            worst = max(worst, (F(lo[i]) - zf[i]) / zs)
        if np.isfinite(hi[i]):
            worst = max(worst, (zf[i] - F(hi[i])) / zs)
        w = qf[i] + sum(Mf[i][j] * zf[j] for j in range(n))
        s = abs(qf[i]) + sum(abs(Mf[i][j] * zf[j]) for j in range(n))
        ws = w / s if s else (Fraction(0) if w == 0 else Fraction(10**300))
        at_lo = np.isfinite(lo[i]) and zf[i] == F(lo[i])
        at_hi = np.isfinite(hi[i]) and zf[i] == F(hi[i])
        if at_lo and at_hi:
            continue
        worst = max(worst, -ws if at_lo else ws if at_hi else abs(ws))
    return worst

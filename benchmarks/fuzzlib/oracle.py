"""Exact decisions for small problems, independent of contactcp: is there a solution at all?

``feasible(A, b)`` decides ``{x >= 0 : A x = b} != {}`` by a phase-1 simplex in
rational arithmetic with Bland's rule (no cycling, no rounding).  Small LCPs,
mixed LCPs and UCPs are decided by enumerating complementary supports, each an
exact feasibility problem.  Used for verdicts that carry no checkable vector
(enumeration and branch-and-bound certificates) and to say whether a problem
whose proof failed is really solvable.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

__all__ = ["feasible", "lcp_solvable", "ucp_solvable", "LCP_MAX", "UCP_MAX"]

LCP_MAX = 10  # complementarity pairs enumerated (up to 2^10 exact LPs, after one Farkas LP)
UCP_MAX = 9  # pairs of a UCP enumerated (2^9 supports, faces memoised)


def feasible(A: list[list[Fraction]], b: list[Fraction]) -> bool:
    m = len(b)
    if m == 0:
        return True
    k = len(A[0]) if m else 0
    T = []
    for i in range(m):
        row = [Fraction(v) for v in A[i]]
        rhs = Fraction(b[i])
        if rhs < 0:
            row, rhs = [-v for v in row], -rhs
        T.append(row + [Fraction(int(j == i)) for j in range(m)] + [rhs])
    basis = [k + i for i in range(m)]
    ncol = k + m
    # reduced costs of min sum(artificials): c_j - sum_i T_ij over the rows (all basic artificials)
    cost = [-sum(T[i][j] for i in range(m)) if j < k else Fraction(0) for j in range(ncol)]
    obj = -sum(T[i][-1] for i in range(m))
    while True:
        enter = next((j for j in range(ncol) if cost[j] < 0), None)
        if enter is None:
            break
        leave, best = None, None
        for i in range(m):
            a = T[i][enter]
            if a > 0:
                ratio = T[i][-1] / a
                if best is None or ratio < best or (ratio == best and basis[i] < basis[leave]):
                    leave, best = i, ratio
        if leave is None:  # unbounded cannot happen in phase 1 (objective >= 0)
            raise RuntimeError("phase 1 unbounded")
        piv = T[leave][enter]
        prow = [v / piv for v in T[leave]]
        T[leave] = prow
        for i in range(m):
            if i != leave and T[i][enter] != 0:
                f = T[i][enter]
                T[i] = [a - f * p for a, p in zip(T[i], prow)]
        f = cost[enter]
        cost = [c - f * p for c, p in zip(cost, prow[:-1])]
        obj -= f * prow[-1]
        basis[leave] = enter
    return obj == 0


def lcp_solvable(M, q, free=None) -> bool:
    """Exact: does ``w = M z + q`` with ``0 <= z_i _|_ w_i >= 0`` (and ``w_i = 0``, ``z_i`` free on
    free rows) have a solution?  Enumerates the supports of the complementarity part."""
    n = len(q)
    Mf = [[Fraction(float(v)) for v in r] for r in M]
    qf = [Fraction(float(v)) for v in q]
    fr = [False] * n if free is None else [bool(f) for f in free]
    F = [i for i in range(n) if fr[i]]
    C = [i for i in range(n) if not fr[i]]
    # first one exact LP for a Farkas vector: y_C >= 0, y_F = p - m, (M^T y)_C + s = 0 (s >= 0),
    # (M^T y)_F = 0, q^T y = -1: if it exists there is no solution at all
    A = []
    for j in range(n):
        row = [Mf[i][j] for i in C] + [Mf[i][j] for i in F] + [-Mf[i][j] for i in F]
        row += [Fraction(int(j == k)) for k in C] if not fr[j] else [Fraction(0)] * len(C)
        A.append(row)
    A.append([qf[i] for i in C] + [qf[i] for i in F] + [-qf[i] for i in F] + [Fraction(0)] * len(C))
    if feasible(A, [Fraction(0)] * n + [Fraction(-1)]):
        return False
    for size in range(len(C) + 1):
        for alpha in combinations(C, size):
            beta = [i for i in C if i not in alpha]
            # variables: z_alpha >= 0, x_F = p - m, slacks s_beta >= 0; M x - s = -q (s on beta rows)
            cols = list(alpha)
            A = []
            for i in range(n):
                row = [Mf[i][j] for j in cols] + [Mf[i][j] for j in F] + [-Mf[i][j] for j in F]
                row += [Fraction(-1) if i == j else Fraction(0) for j in beta]
                A.append(row)
            if feasible(A, [-v for v in qf]):
                return True
    return False


def ucp_solvable(A_x, b_x, A_y, b_y) -> bool:
    """Exact: is there ``x in X, y in Y`` with ``x_i y_i = 0`` for all i?"""
    n = len(A_x[0]) if len(A_x) else len(A_y[0])
    Ax = [[Fraction(float(v)) for v in r] for r in A_x]
    Ay = [[Fraction(float(v)) for v in r] for r in A_y]
    bx = [Fraction(float(v)) for v in b_x]
    by = [Fraction(float(v)) for v in b_y]
    memo: dict[tuple, bool] = {}

    def face(A, b, zero, key):
        k = (key, zero)
        if k not in memo:
            keep = [j for j in range(n) if j not in zero]
            if not A:
                memo[k] = True
            elif not keep:
                memo[k] = all(v == 0 for v in b)
            else:
                memo[k] = feasible([[r[j] for j in keep] for r in A], b)
        return memo[k]

    for size in range(n + 1):
        for S in combinations(range(n), size):  # x_S = 0, y_(not S) = 0
            rest = tuple(j for j in range(n) if j not in S)
            if face(Ax, bx, S, "x") and face(Ay, by, rest, "y"):
                return True
    return False

"""Exact Farkas proofs that a linear system with sign and bound constraints has no solution.

One form covers every certificate of the project.  Given ``G`` (``m x n``), ``h`` (``m``), a sign
rule for each multiplier ``y_i`` and bounds ``lower_j <= x_j <= upper_j`` on the variables, the
system asserts that ``y_i (G x + h)_i >= 0`` for every ``i`` (with ``y_i`` of the allowed sign)
for some ``x`` in the box.  A vector ``y`` of the allowed signs with

    ``sigma(G^T y) + h^T y < 0``,   ``sigma(g) = sum_j max(g_j lower_j, g_j upper_j)``

(the largest value of ``g^T x`` over the box, finite only when ``g_j <= 0`` wherever ``upper_j``
is infinite and ``g_j >= 0`` wherever ``lower_j`` is) shows that no such ``x`` exists:
``0 <= y^T (G x + h) = g^T x + h^T y <= sigma(g) + h^T y < 0``.

* LCP ``w = M z + q``: ``G = M``, ``h = q``, ``y >= 0``, ``0 <= z``: ``M^T y <= 0``, ``q^T y < 0``.
* MixedLCP: free rows carry a free ``y_i`` (``w_i = 0``), free columns need ``(M^T y)_j = 0``.
* BoxLCP: a row whose variable has only a finite lower bound has ``w_i >= 0`` (``y_i >= 0``),
  only a finite upper bound ``w_i <= 0`` (``y_i <= 0``), none ``w_i = 0`` (``y_i`` free), both
  no sign at all (``y_i = 0``).
* A polyhedron ``{x >= 0 : A x = b}``: ``G = -A``, ``h = b``, ``y`` free.

Proofs hold *exactly* for the floats given: every sign is decided in exact arithmetic (error-free
products and correctly rounded sums, or rationals).  A float vector from an LP or a pivoting ray
usually meets the equalities the proof needs (``g_j = 0`` on unbounded directions) only up to
round-off; :func:`prove` then recomputes it on its support in rational arithmetic and hands out
that rational vector (:attr:`FarkasProof.exact`), which is what the proof is about.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from contactcp.linalg.rational import dyadic, exact_dot, exact_transpose_product, float_up, solve_rational

__all__ = ["FarkasSystem", "FarkasProof", "SIGN_NONNEG", "SIGN_NONPOS", "SIGN_FREE", "SIGN_ZERO"]

SIGN_NONNEG, SIGN_NONPOS, SIGN_FREE, SIGN_ZERO = 1, -1, 0, 2

#: supports larger than this are not recomputed in rational arithmetic (cost)
RATIONAL_MAX_SUPPORT = 60


@dataclass(frozen=True)
class FarkasProof:
    """A verified proof: ``vector`` (floats), ``exact`` (the rational vector when the floats
    themselves do not satisfy the inequalities exactly, else None), ``kind`` ("exact" or
    "rational") and the proof's margin ``value = sigma(G^T y) + h^T y < 0`` (as a float)."""

    vector: np.ndarray
    exact: tuple[Fraction, ...] | None
    kind: str
    value: float


class FarkasSystem:
    """The data of a Farkas proof: ``G``, ``h``, the multipliers' signs, the variables' bounds."""

    def __init__(self, G: np.ndarray, h: np.ndarray, sign: np.ndarray, lower: np.ndarray, upper: np.ndarray):
        self.G = np.ascontiguousarray(G, dtype=np.float64)
        self.h = np.ascontiguousarray(h, dtype=np.float64)
        self.sign = np.asarray(sign, dtype=np.int8)
        self.lower = np.asarray(lower, dtype=np.float64)
        self.upper = np.asarray(upper, dtype=np.float64)

    @classmethod
    def lcp(cls, M: np.ndarray, q: np.ndarray, free: np.ndarray | None = None) -> FarkasSystem:
        """``{z : z_c >= 0, (M z + q)_c >= 0, (M z + q)_f = 0}`` (``f`` = ``free``)."""
        n = q.shape[0]
        free = np.zeros(n, dtype=bool) if free is None else np.asarray(free, dtype=bool)
        sign = np.where(free, SIGN_FREE, SIGN_NONNEG)
        return cls(M, q, sign, np.where(free, -np.inf, 0.0), np.full(n, np.inf))

    @classmethod
    def box(cls, M: np.ndarray, q: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> FarkasSystem:
        """The solutions of the box LCP ``lower <= z <= upper`` all lie in this system."""
        lo_f, up_f = np.isfinite(lower), np.isfinite(upper)
        sign = np.select([lo_f & ~up_f, ~lo_f & up_f, ~lo_f & ~up_f], [SIGN_NONNEG, SIGN_NONPOS, SIGN_FREE], SIGN_ZERO)
        return cls(M, q, sign, lower, upper)

    @classmethod
    def polyhedron(cls, A: np.ndarray, b: np.ndarray) -> FarkasSystem:
        """``{x >= 0 : A x = b}``."""
        m, n = A.shape
        return cls(-np.asarray(A, dtype=np.float64), b, np.full(m, SIGN_FREE), np.zeros(n), np.full(n, np.inf))

    # -- checking -----------------------------------------------------------------------------

    def _signs_ok(self, y) -> bool:
        s = self.sign
        for yi, si in zip(y, s.tolist()):
            if (si == SIGN_NONNEG and yi < 0) or (si == SIGN_NONPOS and yi > 0) or (si == SIGN_ZERO and yi != 0):
                return False
        return True

    def _choose(self, g_sign: np.ndarray) -> np.ndarray | None:
        """The bound each variable takes in ``sigma`` (None if ``sigma`` is infinite)."""
        pos, neg = g_sign > 0, g_sign < 0
        if np.any(pos & ~np.isfinite(self.upper)) or np.any(neg & ~np.isfinite(self.lower)):
            return None
        return np.where(pos, self.upper, np.where(neg, self.lower, 0.0))

    def value_float(self, y: np.ndarray) -> float:
        """``sigma(G^T y) + h^T y`` in floating point (inf when ``sigma`` is), for diagnosis."""
        g = self.G.T @ y
        with np.errstate(invalid="ignore"):
            sig = np.where(g > 0, g * self.upper, np.where(g < 0, g * self.lower, 0.0))
        return float(np.sum(sig) + self.h @ y)

    def check(self, y: np.ndarray) -> float | None:
        """The exact margin ``sigma(G^T y) + h^T y`` (rounded up) when ``y`` is a proof, else None."""
        y = np.asarray(y, dtype=np.float64)
        if y.shape != self.h.shape or not np.all(np.isfinite(y)) or not np.any(y) or not self._signs_ok(y):
            return None
        g = exact_transpose_product(self.G, y)  # correctly rounded: exact signs
        b = self._choose(np.sign(g))
        if b is None:
            return None
        if not np.any(b):
            v = exact_dot(self.h, y)
            return v if v < 0 else None
        total = _exact_value(self.G, self.h, b, y)
        return float_up(total) if total < 0 else None

    def check_rational(self, y: list[Fraction]) -> Fraction | None:
        """The exact margin for a rational ``y`` when it is a proof, else None."""
        if len(y) != self.h.shape[0] or not any(y) or not self._signs_ok(y):
            return None
        m, n = self.G.shape
        G = self.G
        g = [
            sum((Fraction(float(G[i, j])) * y[i] for i in range(m) if y[i] and G[i, j]), Fraction(0)) for j in range(n)
        ]
        b = self._choose(np.array([(v > 0) - (v < 0) for v in g]))
        if b is None:
            return None
        total = sum((Fraction(float(bj)) * gj for bj, gj in zip(b.tolist(), g) if bj and gj), Fraction(0))
        total += sum((Fraction(float(self.h[i])) * y[i] for i in range(m) if y[i]), Fraction(0))
        return total if total < 0 else None

    # -- proving ------------------------------------------------------------------------------

    def prove(self, y: np.ndarray | None) -> FarkasProof | None:
        """A verified proof from the float candidate ``y``: ``y`` itself (wrong-signed entries
        clipped), ``y`` without its round-off dust, or ``y`` recomputed on its support in rational
        arithmetic.  None when none of them proves anything."""
        if y is None:
            return None
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        if y.shape != self.h.shape or not np.all(np.isfinite(y)):
            return None
        y = self._clip(y)
        big = float(np.abs(y).max(initial=0.0))
        if not big > 0:
            return None
        y = np.ldexp(y, -math.frexp(big)[1])  # a power of two: exact, keeps products in range
        for yc in (y, np.where(np.abs(y) > 1e-13 * np.abs(y).max(), y, 0.0)):
            v = self.check(yc)
            if v is not None:
                return FarkasProof(yc, None, "exact", v)
        return self._rational(y)

    def search(self) -> FarkasProof | None:
        """Look for a proof with an LP (HiGHS) and verify it (:meth:`prove`).

        ``min h^T y + sigma(G^T y)`` over ``|y_i| <= 1`` of the allowed signs, with ``sigma`` written
        with one epigraph variable per doubly bounded column; a negative optimum gives a candidate."""
        from scipy.optimize import linprog

        m, n = self.G.shape
        lo_f, up_f = np.isfinite(self.lower), np.isfinite(self.upper)
        both = np.flatnonzero(lo_f & up_f)
        only_lo = lo_f & ~up_f  # g_j <= 0, sigma_j = g_j lower_j
        only_up = ~lo_f & up_f  # g_j >= 0, sigma_j = g_j upper_j
        none = ~lo_f & ~up_f  # g_j = 0
        GT = self.G.T
        cost_y = self.h + self.G[:, only_lo] @ self.lower[only_lo] + self.G[:, only_up] @ self.upper[only_up]
        nb = both.size
        c = np.concatenate([cost_y, np.ones(nb)])
        A_ub = [
            np.hstack([GT[only_lo], np.zeros((int(only_lo.sum()), nb))]),
            np.hstack([-GT[only_up], np.zeros((int(only_up.sum()), nb))]),
        ]
        if nb:
            E = np.zeros((nb, nb))
            E[np.arange(nb), np.arange(nb)] = -1.0
            A_ub += [
                np.hstack([GT[both] * self.upper[both, None], E]),
                np.hstack([GT[both] * self.lower[both, None], E]),
            ]
        A_ub = np.vstack(A_ub)
        A_eq = np.hstack([GT[none], np.zeros((int(none.sum()), nb))]) if none.any() else None
        sgn = self.sign
        bounds = [
            (0.0, 1.0)
            if t == SIGN_NONNEG
            else (-1.0, 0.0)
            if t == SIGN_NONPOS
            else (0.0, 0.0)
            if t == SIGN_ZERO
            else (-1.0, 1.0)
            for t in sgn.tolist()
        ] + [(None, None)] * nb
        with np.errstate(all="ignore"):
            if not (np.all(np.isfinite(c)) and np.all(np.isfinite(A_ub))):
                return None
            res = linprog(
                c,
                A_ub=A_ub if A_ub.size else None,
                b_ub=np.zeros(A_ub.shape[0]) if A_ub.size else None,
                A_eq=A_eq,
                b_eq=None if A_eq is None else np.zeros(A_eq.shape[0]),
                bounds=bounds,
                method="highs",
            )
        if res.status != 0 or not res.fun < 0:
            return None
        return self.prove(res.x[:m])

    def _clip(self, y: np.ndarray) -> np.ndarray:
        s = self.sign
        y = np.where(s == SIGN_NONNEG, np.maximum(y, 0.0), y)
        y = np.where(s == SIGN_NONPOS, np.minimum(y, 0.0), y)
        return np.where(s == SIGN_ZERO, 0.0, y)

    def _rational(self, y: np.ndarray, active_rtol: float = 1e-8) -> FarkasProof | None:
        """Recompute ``y`` on its support ``S`` so that ``(G^T y)_j = 0`` exactly on the columns
        ``J`` where it vanishes up to ``active_rtol`` (and on every column whose bounds are both
        infinite), keeping the float margin as a normalisation; then check every condition exactly."""
        S = np.flatnonzero(np.abs(y) > 1e-12 * np.abs(y).max())
        if S.size > RATIONAL_MAX_SUPPORT:
            return None
        G = self.G
        g = G[S].T @ y[S]
        mag = np.abs(G[S]).T @ np.abs(y[S])
        scale = max(float(mag.max(initial=0.0)), np.finfo(float).tiny)
        both_inf = ~np.isfinite(self.lower) & ~np.isfinite(self.upper)
        J = np.flatnonzero((np.abs(g) <= active_rtol * scale) | both_inf)
        rest = np.setdiff1d(np.arange(G.shape[1]), J)
        b = self._choose(np.sign(np.where(np.isin(np.arange(G.shape[1]), J), 0.0, g)))
        if b is None:
            return None
        c = self.h[S] + (G[np.ix_(S, rest)] @ b[rest] if rest.size else 0.0)
        target = float(c @ y[S])
        if not target < 0:
            return None
        rows = [[Fraction(float(G[i, j])) for i in S] for j in J]
        ccol = [
            Fraction(float(self.h[i]))
            + sum((Fraction(float(G[i, j])) * Fraction(float(b[j])) for j in rest if b[j] and G[i, j]), Fraction(0))
            for i in S
        ]
        ys = solve_rational(
            rows + [ccol], [Fraction(0)] * len(J) + [Fraction(target)], [Fraction(float(y[i])) for i in S]
        )
        if ys is None:
            return None
        full = [Fraction(0)] * self.h.shape[0]
        for i, v in zip(S.tolist(), ys):
            full[i] = v
        total = self.check_rational(full)
        if total is None:
            return None
        vec = np.array([float(v) for v in full])
        # the floats nearest the rational vector may prove it by themselves: then hand those out
        v = self.check(vec)
        if v is not None:
            return FarkasProof(vec, None, "exact", v)
        return FarkasProof(vec, tuple(full), "rational", float_up(total))


def _exact_value(G: np.ndarray, h: np.ndarray, b: np.ndarray, y: np.ndarray) -> Fraction:
    """``sum_i y_i (h_i + sum_j G_ij b_j)`` exactly (integer arithmetic on dyadic numbers)."""
    terms = []
    cols = np.flatnonzero(b)
    bd = [(dyadic(b[j]), j) for j in cols.tolist()]
    for i in np.flatnonzero(y).tolist():
        my, ky = dyadic(y[i])
        if h[i] != 0.0:
            mh, kh = dyadic(h[i])
            terms.append((my * mh, ky + kh))
        for (mb, kb), j in bd:
            a = G[i, j]
            if a != 0.0:
                ma, ka = dyadic(a)
                terms.append((my * mb * ma, ky + kb + ka))
    if not terms:
        return Fraction(0)
    K = max(k for _, k in terms)
    return Fraction(sum(m << (K - k) for m, k in terms), 1 << K)

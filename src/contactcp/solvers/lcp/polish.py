"""Active-set polish (crossover) of an approximate solution of a linear complementarity problem.

Pivoting, interior-point and merit methods end near a solution with the right complementary
support, or nearly, but with a point whose equations ``w_S = 0`` hold only to the accuracy of
their iterations.  Given the support ``S`` the point suggests (``z_i > w_i / s_i``, plus the free
variables of a mixed LCP), the equations ``M_SS z_S = -q_S`` are solved as a correction of the
point's ``z_S`` (least squares when ``M_SS`` is singular, so the answer is the solution nearest
the point), then refined by LU with residuals computed in doubled precision (compensated dot
products), which drives ``w_S`` to the level of the data's rounding even for ill-conditioned
blocks (Higham, *Accuracy and Stability of Numerical Algorithms*, Ch. 12).  When the result has
sign violations (``z_S < 0``, or ``w_i < 0`` off ``S``) those indices change sides and the system
is solved again, a block principal pivot (Júdice & Pires), at most ``passes`` times.

Every polished point is a proposal like any other: the registry certifies it with the problem's
own residual.  Used by the interior-point method (its purification), the merit method on linear
problems, Lemke's mixed-LCP reductions and the default chains' finisher.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from fractions import Fraction

import numpy as np
import scipy.linalg as sla

from contactcp.linalg.dense import solve_or_lstsq
from contactcp.linalg.rational import solve_rational
from contactcp.problems import BoxLCP
from contactcp.problems._base import scaled_residual

__all__ = ["candidates", "better", "finish_linear", "as_box", "box_candidates", "best_box_point", "exact_box_point"]

#: refinement steps per solve
STEPS = 4


def _factor(A: np.ndarray):
    """The LU factors of ``A``, or None when it cannot be factorised well (a pivot below
    ``1e-14`` times the largest)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            lu = sla.lu_factor(A, check_finite=False)
    except (ValueError, np.linalg.LinAlgError):
        return None
    d = np.abs(np.diag(lu[0]))
    return lu if d.min() > 1e-14 * max(d.max(), 1e-300) else None


def _refine(A: np.ndarray, zS: np.ndarray, qS: np.ndarray) -> np.ndarray:
    """``zS`` with ``A zS + qS`` driven towards 0 by LU steps on doubled-precision residuals (unchanged
    when ``A`` cannot be factorised well)."""
    lu = _factor(A)
    return zS if lu is None else _refine_rows(A, qS, zS, np.arange(zS.shape[0]), lu)


def candidates(problem, x: np.ndarray, free: np.ndarray | None = None, passes: int = 3) -> Iterator[np.ndarray]:
    """Polished points for an LCP or MixedLCP (``problem.M``, ``problem.q``; ``free`` mask): the solution
    on the support ``x`` suggests, then after each round of sign flips (see the module docstring);
    a point with negative complementarity variables is followed by its clipped copy."""
    M, q = problem.M, problem.q
    n = q.shape[0]
    free = np.zeros(n, dtype=bool) if free is None else np.asarray(free, dtype=bool)
    if x is None or x.shape != (n,) or not np.all(np.isfinite(x)):
        return
    w, lo, hi, s = scaled_residual(M, x, q)
    act = free | (x > np.where(s > 0, w / np.where(s > 0, s, 1.0), 0.0))
    seen: set[bytes] = set()
    for _ in range(passes):
        key = act.tobytes()
        if key in seen:
            return
        seen.add(key)
        S = np.flatnonzero(act)
        z = np.zeros(n)
        if S.size:
            A = M[np.ix_(S, S)]
            dz = solve_or_lstsq(A, -(A @ x[S] + q[S]))
            if dz is None:
                return
            z[S] = _refine(A, x[S] + dz, q[S])
        yield z
        neg = ~free & (z < 0)
        if neg.any():
            yield np.where(neg, 0.0, z)
        wz = M @ z + q
        flip = ~free & np.where(act, z < 0, wz < 0)
        if not flip.any():
            return
        act = act ^ flip


def better(problem, x: np.ndarray | None, free: np.ndarray | None = None) -> tuple[np.ndarray | None, bool]:
    """``(point, polished)``: the polished point with the smallest residual when it lowers the
    problem's residual, else ``x``."""
    if x is None:
        return x, False
    best, value = x, problem.residual(x).value
    try:
        for z in candidates(problem, x, free):
            v = problem.residual(z).value
            if v < value:
                best, value = z, v
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):
        pass
    return best, best is not x


def finish_linear(problem, x: np.ndarray) -> np.ndarray | None:
    """The default chains' finisher for LCPs, mixed LCPs and box LCPs: the polished point, or None."""
    x = np.asarray(x, dtype=float)
    if isinstance(problem, BoxLCP):
        if x.shape != problem.q.shape or not np.all(np.isfinite(x)):
            return None
        M, q, lo, hi = as_box(problem)
        w, _, _, s = scaled_residual(M, x, q)
        with np.errstate(all="ignore"):
            ws = np.where(s > 0, w / np.where(s > 0, s, 1.0), 0.0)
            at_lo = np.isfinite(lo) & (x - lo <= np.maximum(ws, 0.0))
            at_hi = ~at_lo & np.isfinite(hi) & (hi - x <= np.maximum(-ws, 0.0))
        z, value = best_box_point(problem, x, at_lo, at_hi)
        return None if value >= problem.residual(x).value else z
    z, done = better(problem, x, getattr(problem, "free", None))
    return z if done else None


def _refine_rows(M: np.ndarray, q: np.ndarray, y: np.ndarray, I: np.ndarray, lu) -> np.ndarray:
    """``y`` with ``(M y + q)_I`` driven towards 0 by steps on ``y_I`` (LU of ``M_II``, residuals in
    doubled precision)."""
    MI, qI = M[I], q[I]
    for _ in range(STEPS):
        r = scaled_residual(MI, y, qI)[0]
        if not np.all(np.isfinite(r)):
            break
        d = sla.lu_solve(lu, r, check_finite=False)
        if not np.all(np.isfinite(d)):
            break
        y = y.copy()
        y[I] -= d
        if np.max(np.abs(d), initial=0.0) <= 1e-17 * max(np.max(np.abs(y[I]), initial=0.0), 1e-300):
            break
    return y


def box_candidates(
    M: np.ndarray,
    q: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    at_lo: np.ndarray,
    at_hi: np.ndarray,
    z=None,
    passes: int = 4,
) -> Iterator[np.ndarray]:
    """Polished points of a box LCP for a guessed support: variables at a bound (``at_lo``, ``at_hi``)
    sit on it, the others solve their rows ``(M z + q)_I = 0`` (refined in doubled precision);
    then the variables that left their box or whose ``w`` has the wrong sign at a bound change
    sides (a block principal pivot), at most ``passes`` times."""
    n = q.shape[0]
    fixed = lo == hi
    state = np.where(at_lo | fixed, -1, np.where(at_hi, 1, 0))
    guess = np.zeros(n) if z is None else np.asarray(z, dtype=float)
    seen: set[bytes] = set()
    for _ in range(passes):
        key = state.tobytes()
        if key in seen:
            return
        seen.add(key)
        y = np.where(state < 0, lo, np.where(state > 0, hi, guess))
        I = np.flatnonzero(state == 0)
        if I.size:
            A = M[np.ix_(I, I)]
            d = solve_or_lstsq(A, scaled_residual(M[I], y, q[I])[0])
            if d is None:
                return
            y[I] -= d
            lu = _factor(A)
            if lu is not None:
                y = _refine_rows(M, q, y, I, lu)
        if not np.all(np.isfinite(y)):
            return
        yield y
        w = scaled_residual(M, y, q)[0]
        new = state.copy()
        new[(state == 0) & (y < lo)] = -1
        new[(state == 0) & (y > hi)] = 1
        new[~fixed & (((state < 0) & (w < 0)) | ((state > 0) & (w > 0)))] = 0
        if np.array_equal(new, state):
            return
        yield np.clip(y, lo, hi)
        guess, state = y, new


def best_box_point(problem, z: np.ndarray, at_lo: np.ndarray, at_hi: np.ndarray) -> tuple[np.ndarray, float]:
    """``(point, residual)``: the point with the smallest residual among ``z`` clipped to the box and
    its polished copies (:func:`box_candidates` on the problem's own data)."""
    M, q, lo, hi = as_box(problem)
    best = np.clip(np.asarray(z, dtype=float), lo, hi)
    value = problem.residual(best).value
    try:
        for y in box_candidates(M, q, lo, hi, at_lo, at_hi, best):
            v = problem.residual(y).value
            if v < value:
                best, value = y, v
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):
        pass
    return best, value


def as_box(problem) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(M, q, lower, upper)`` of an LCP, mixed LCP or box LCP (its Farkas system's data)."""
    s = problem.farkas_system()
    return s.G, s.h, s.lower, s.upper


def exact_box_point(
    M: np.ndarray, q: np.ndarray, lo: np.ndarray, hi: np.ndarray, at_lo: np.ndarray, at_hi: np.ndarray
) -> np.ndarray | None:
    """The solution of a box LCP on a given support in exact arithmetic (the data as rationals), rounded
    to floats; None when the support holds no solution (a sign fails exactly, or the interior rows are
    inconsistent).  Small problems only: the cost is a rational elimination of the interior block."""
    n = q.shape[0]
    fixed = lo == hi
    state = np.where(at_lo | fixed, -1, np.where(at_hi, 1, 0))
    F = [[Fraction(v) for v in row] for row in M.tolist()]
    qf = [Fraction(v) for v in q.tolist()]
    y: list[Fraction] = [Fraction(0)] * n
    for i in range(n):
        if state[i] != 0:
            y[i] = Fraction(float(lo[i] if state[i] < 0 else hi[i]))
    I = np.flatnonzero(state == 0).tolist()
    B = [i for i in range(n) if state[i] != 0]
    if I:
        rows = [[F[i][j] for j in I] for i in I]
        rhs = [-(qf[i] + sum(F[i][j] * y[j] for j in B if F[i][j])) for i in I]
        sol = solve_rational(rows, rhs, [Fraction(0)] * len(I))
        if sol is None:
            return None
        for i, v in zip(I, sol):
            y[i] = v
    for i in range(n):
        if state[i] == 0 and (
            (math.isfinite(lo[i]) and y[i] < Fraction(float(lo[i])))
            or (math.isfinite(hi[i]) and y[i] > Fraction(float(hi[i])))
        ):
            return None
        if state[i] != 0 and not fixed[i]:
            w = qf[i] + sum(F[i][j] * y[j] for j in range(n) if F[i][j] and y[j])
            if (state[i] < 0 and w < 0) or (state[i] > 0 and w > 0):
                return None
    try:
        return np.array([float(v) for v in y])
    except OverflowError:
        return None

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

import warnings
from collections.abc import Iterator

import numpy as np
import scipy.linalg as sla

from contactcp.linalg.dense import solve_or_lstsq
from contactcp.problems._base import scaled_residual

__all__ = ["candidates", "better", "finish_linear"]

#: refinement steps per solve
STEPS = 4


def _refine(A: np.ndarray, zS: np.ndarray, qS: np.ndarray) -> np.ndarray:
    """``zS`` with ``A zS + qS`` driven towards 0 by LU steps on doubled-precision residuals (unchanged
    when ``A`` cannot be factorised well)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            lu = sla.lu_factor(A, check_finite=False)
    except (ValueError, np.linalg.LinAlgError):
        return zS
    d = np.abs(np.diag(lu[0]))
    if not d.min() > 1e-14 * max(d.max(), 1e-300):
        return zS
    for _ in range(STEPS):
        r = scaled_residual(A, zS, qS)[0]
        if not np.all(np.isfinite(r)):
            break
        dz = sla.lu_solve(lu, r, check_finite=False)
        if not np.all(np.isfinite(dz)):
            break
        zS = zS - dz
        if np.max(np.abs(dz), initial=0.0) <= 1e-17 * max(np.max(np.abs(zS), initial=0.0), 1e-300):
            break
    return zS


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
    """The default chains' finisher for LCPs and mixed LCPs: the polished point, or None."""
    z, done = better(problem, np.asarray(x, dtype=float), getattr(problem, "free", None))
    return z if done else None

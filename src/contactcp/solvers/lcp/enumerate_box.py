"""Support enumeration for small mixed and box LCPs, each support solved in rational arithmetic.

A box LCP (a mixed LCP is one with infinite bounds) holds at ``z`` when each ``z_i`` is at its lower
bound with ``w_i >= 0``, at its upper bound with ``w_i <= 0``, or in between with ``w_i = 0``.  Fixing
those states (a *support*) leaves a linear system for the interior ``z_I``; :func:`exact_box_point`
solves it with the data as rationals and checks every sign exactly.  This is the last step of the
mixed and box default chains: it decides the data whose scales floating point cannot span (columns
scaled by ``2^±498`` leave entries from ``1e-46`` to ``1`` after equilibration, below the MILP's
tolerances), at the price of one rational elimination per support, so only problems with at most
:data:`MAX_SUPPORTS` supports are enumerated.

A support whose interior block is singular gives one particular point (checked exactly like the
others), not its whole set, so exhausting the supports proves nothing: the method finds solutions,
it does not refute them (Lemke's exact Farkas proofs do that).
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from contactcp.problems import BoxLCP, MixedLCP
from contactcp.result import Status
from contactcp.solvers.lcp.polish import as_box, exact_box_point
from contactcp.solvers.registry import Raw, integer, real, register

__all__ = ["MAX_N", "MAX_SUPPORTS", "box_states", "enumerate_box_method"]

#: supports enumerated at most (about a millisecond each for ten unknowns)
MAX_SUPPORTS = 4096
#: unknowns at most: one support's rational elimination grows like n^4 to n^5 (0.07 s at n = 20,
#: 1 s at 40, 6 s at 60), and free variables add unknowns without adding supports
MAX_N = 24


def box_states(lo: np.ndarray, hi: np.ndarray) -> list[tuple[int, ...]]:
    """Each unknown's possible states: ``-1`` at its lower bound, ``0`` inside, ``1`` at its upper."""
    out = []
    for a, b in zip(lo.tolist(), hi.tolist()):
        if a == b:
            out.append((-1,))
        else:
            out.append(((-1,) if math.isfinite(a) else ()) + (0,) + ((1,) if math.isfinite(b) else ()))
    return out


def _count(problem) -> int:
    _, _, lo, hi = as_box(problem)
    return math.prod(len(s) for s in box_states(lo, hi))


def _applies(problem) -> str:
    if problem.n > MAX_N:
        return f"n = {problem.n} exceeds max_n = {MAX_N} (a rational elimination per support)"
    k = _count(problem)
    return "" if k <= MAX_SUPPORTS else f"{k} supports exceed max_supports = {MAX_SUPPORTS}"


@register(
    "enumerate",
    MixedLCP,
    BoxLCP,
    description="every support of a small mixed or box LCP solved in rational arithmetic (finds solutions)",
    options={"max_supports": integer(1), "max_n": integer(1), "time_limit": real(0.0, lo_open=True)},
    applies=_applies,
)
def enumerate_box_method(
    problem, tol: float, *, max_supports: int = MAX_SUPPORTS, max_n: int = MAX_N, time_limit: float = 20.0
) -> Raw:
    """Support enumeration, exact (see the module docstring).

    Options
    -------
    max_supports : refuse problems with more supports than this
    max_n : refuse problems with more unknowns than this
    time_limit : seconds, checked between supports; the enumeration stops there (ITERATION_LIMIT)
    """
    if problem.n > max_n:
        return Raw(None, Status.NUMERICAL_FAILURE, 0, f"n = {problem.n} exceeds max_n = {max_n}")
    M, q, lo, hi = as_box(problem)
    states = box_states(lo, hi)
    total = math.prod(len(s) for s in states)
    if total > max_supports:
        return Raw(None, Status.NUMERICAL_FAILURE, 0, f"{total} supports exceed max_supports = {max_supports}")
    t_end = time.perf_counter() + time_limit
    best: tuple[np.ndarray, float] | None = None
    tried = 0
    # supports with fewer interior unknowns first (the cheaper eliminations; ties in product order)
    for support in sorted(itertools.product(*states), key=lambda s: sum(v == 0 for v in s)):
        if time.perf_counter() > t_end:
            break
        tried += 1
        s = np.array(support)
        z = exact_box_point(M, q, lo, hi, s < 0, s > 0)
        if z is None:
            continue
        value = problem.residual(z).value
        if best is None or value < best[1]:
            best = (z, value)
        if value <= tol:
            return Raw(z, Status.SOLVED, tried, f"support {tried} of {total}, solved in rational arithmetic")
    status = Status.ITERATION_LIMIT if tried < total else Status.INACCURATE
    why = f"time limit after {tried} of {total} supports" if tried < total else f"all {total} supports tried"
    return Raw(
        None if best is None else best[0],
        status,
        tried,
        f"{why}, no certified point (not a proof of infeasibility: singular blocks give one point each)",
    )

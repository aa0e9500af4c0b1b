"""A reduction for the friction-contact solvers: data scaled into floating-point range.

The Coulomb problem is positively homogeneous: ``r`` solves ``(W, q, mu)`` if and only if
``2^-k r`` solves ``(W, 2^-k q, mu)``, and scaling by a power of two is exact (for the entries
that stay normal numbers: an entry below ``2^(k-1022)`` loses bits).  Solvers that work
with norms of ``q``, ``u`` or ``u_T`` (which overflow above ~1e154 and underflow below ~1e-154)
run on the scaled problem and map the answer back; the registry certifies it against the
user's problem.
"""

from __future__ import annotations

import math

import numpy as np

from contactcp.problems import FrictionContactProblem

#: data whose largest entry lies within [2^-LIMIT, 2^LIMIT] is left alone
LIMIT = 300


def apply(
    problem: FrictionContactProblem, r0: np.ndarray | None
) -> tuple[FrictionContactProblem, np.ndarray | None, int]:
    """``(scaled problem, scaled start, k)``: the answer of the scaled problem times ``2^k`` answers the original."""
    k = problem._q_exponent  # of max |q| (0 for q = 0)
    if r0 is not None:
        big = float(np.abs(r0).max(initial=0.0))
        if 0.0 < big < math.inf and ((k == 0 and not problem.q.any()) or math.frexp(big)[1] > k):
            k = math.frexp(big)[1]
    if -LIMIT <= k <= LIMIT:
        return problem, r0, 0
    scaled = FrictionContactProblem(problem.W, np.ldexp(problem.q, -k), problem.mu, problem.dim)
    return scaled, (None if r0 is None else np.ldexp(r0, -k)), k


def invert(x: np.ndarray | None, k: int) -> np.ndarray | None:
    """The answer of the original problem from the scaled one's."""
    return x if x is None or k == 0 else np.ldexp(x, k)

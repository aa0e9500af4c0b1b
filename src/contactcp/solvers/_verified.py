"""Linear solves with a rigorous error bound, and exact ones, for verdicts that rest on signs.

:func:`verified_solve` solves ``A x = b`` in floating point and bounds ``||x_exact - x||_inf``
rigorously (Rump's a-posteriori test: with an approximate inverse ``R``, ``alpha >= ||I - R A||_inf``
computed with the rounding of ``R A`` bounded, ``alpha < 1`` proves ``A`` nonsingular and
``||A^-1||_inf <= ||R||_inf / (1 - alpha)``; the residual ``A x - b`` is evaluated in doubled
precision with its own error bound).  A sign that lies beyond the bound is certain; one within it
is decided by :func:`rational_solve` (Gauss–Jordan elimination in exact rational arithmetic).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from contactcp.problems._exact import _solve_rational
from contactcp.problems._kernels import affine_dot2

_EPS = np.finfo(float).eps


def verified_solve(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float] | None:
    """``(x, err)`` with ``||x_exact - x||_inf <= err`` for ``A x = b``, or None when the test cannot
    prove ``A`` nonsingular (ill-conditioned or singular)."""
    k = b.shape[0]
    try:
        R = np.linalg.inv(A)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(R)):
        return None
    RA = R @ A
    absRA = np.abs(R) @ np.abs(A)
    g = (k + 2) * _EPS / (1 - (k + 2) * _EPS)
    C = np.eye(k) - RA
    alpha = (float(np.abs(C).sum(axis=1).max()) + g * float(absRA.sum(axis=1).max()) + _EPS) * (1 + 4 * k * _EPS)
    if not alpha < 0.5:
        return None
    x = R @ b
    for _ in range(2):                                 # one or two refinement steps
        r, allow, risky = affine_dot2(np.ascontiguousarray(A), np.ascontiguousarray(x), -np.ascontiguousarray(b))
        if risky.any() or not np.all(np.isfinite(r)):
            return None
        x = x - R @ r
    r, allow, risky = affine_dot2(np.ascontiguousarray(A), np.ascontiguousarray(x), -np.ascontiguousarray(b))
    if risky.any():
        return None
    rnorm = float(np.max(np.abs(r) + allow, initial=0.0))
    Rnorm = float(np.abs(R).sum(axis=1).max())
    err = Rnorm * rnorm / (1.0 - alpha) * (1 + 8 * k * _EPS) + 1e-300
    return x, err


def rational_solve(A: np.ndarray, b: np.ndarray) -> list[Fraction] | None:
    """The exact solution of ``A x = b`` (A square and nonsingular, floats as rationals), or None."""
    k = b.shape[0]
    rows = [[Fraction(float(v)) for v in row] for row in A.tolist()]
    x = _solve_rational(rows, [Fraction(float(v)) for v in b.tolist()], [Fraction(0)] * k)
    if x is None:
        return None
    # a unique solution needs a nonsingular A: check the residual exactly and the rank through the solve
    return x

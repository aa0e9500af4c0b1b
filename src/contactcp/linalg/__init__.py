"""Linear-algebra kernels: the bottom layer of contactcp.

This package imports nothing from the rest of contactcp except
:mod:`contactcp.errors`, so every other layer may build on it.

* :mod:`contactcp.linalg.exact` — exact rational arithmetic on floating-point
  data (every finite float is a dyadic rational ``m 2^e``): determinants and
  their signs by fraction-free (Bareiss) elimination on Python integers,
  Schur complements computed exactly and rounded once, exact signs of sums.
* :mod:`contactcp.linalg.verified` — floating-point tests whose positive answer
  is a proof: positive definiteness by a Cholesky factorisation with a shift
  that covers every rounding error (Rump's criterion), and the directed-rounding
  helpers used to carry rigorous error bounds through numpy computations.
"""

from contactcp.linalg.exact import (
    ETA,
    UNIT_ROUNDOFF,
    det_sign,
    dyadic_rows,
    exact_det,
    exact_sum_sign,
    int_det,
    round_fraction,
    schur_complement,
)
from contactcp.linalg.verified import TINY, det_sign_verified, down, positive_definite, up

__all__ = [
    "ETA",
    "UNIT_ROUNDOFF",
    "det_sign",
    "dyadic_rows",
    "exact_det",
    "exact_sum_sign",
    "int_det",
    "round_fraction",
    "schur_complement",
    "positive_definite",
    "det_sign_verified",
    "TINY",
    "up",
    "down",
]

"""Small dense linear algebra shared by the solvers."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.linalg as sla

__all__ = ["solve_or_lstsq", "cho_solve"]


def solve_or_lstsq(K: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``K d = b`` by LU, or the minimum-norm least-squares ``d`` when K is (nearly) singular or not square.

    LU is accepted when the smallest pivot exceeds ``1e-12`` times the largest;
    otherwise LAPACK's ``gelsy`` with ``cond = 1e-12``.  None when neither
    gives a finite answer.
    """
    if K.size == 0:
        return np.zeros(K.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if K.shape[0] == K.shape[1]:
            try:
                lu, piv = sla.lu_factor(K, check_finite=False)
                dg = np.abs(np.diag(lu))
                if np.all(np.isfinite(dg)) and dg.min() > 1e-12 * max(dg.max(), 1e-300):
                    d = sla.lu_solve((lu, piv), b, check_finite=False)
                    if np.all(np.isfinite(d)):
                        return d
            except (ValueError, np.linalg.LinAlgError):
                pass
        try:
            d = sla.lstsq(K, b, cond=1e-12, lapack_driver="gelsy", check_finite=False)[0]
        except (ValueError, np.linalg.LinAlgError):
            return None
    return d if np.all(np.isfinite(d)) else None


def cho_solve(chol: Any, b: np.ndarray) -> np.ndarray:
    """``M^-1 b`` from ``chol = scipy.linalg.cho_factor(M)``: LAPACK's ``dpotrs``, which
    ``scipy.linalg.cho_solve`` calls too (the same numbers), without its argument checks (7-11 us
    of a 12 x 12 solve's 9-13, timed in a loop of 20 000 calls on this machine): a time step does three.
    Non-finite entries are not checked here; they come out as non-finite answers.  ``chol`` may also
    be a solver with a ``solve`` method (the time stepper's block inverses of a constant ``M``:
    :func:`contactcp.simulate.stepping.mass.mass_factor`)."""
    if type(chol) is not tuple:
        return chol.solve(b)
    x, info = _dpotrs(chol[0], b, lower=chol[1])
    if info != 0:
        raise ValueError(f"dpotrs: illegal value in argument {-info}")
    return x


_dpotrs = sla.lapack.dpotrs

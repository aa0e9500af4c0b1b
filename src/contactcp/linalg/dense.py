"""Small dense linear algebra shared by the solvers."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla

__all__ = ["solve_or_lstsq"]


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

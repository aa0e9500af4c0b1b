"""Infeasibility certificates for LCPs: Farkas vectors, checked independently."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from ..problems import LCP
from ..result import Certificate


def lcp_farkas(problem: LCP, candidate: np.ndarray | None, tol: float,
               source: str = "") -> Certificate | None:
    """A verified Farkas certificate that ``{z >= 0 : M z + q >= 0}`` is empty, or None.

    ``candidate`` (e.g. the ``z`` part of Lemke's secondary ray, which is such a
    vector when M is copositive-plus, CPS Theorem 4.4.13) is checked first; if
    it fails, the LP ``min q^T y : M^T y <= 0, sum(y) = 1, y >= 0`` is solved
    with HiGHS and its optimal ``y`` is checked.  None means no proof exists
    (the feasible set is nonempty when the LP's optimum is >= 0).
    """
    if candidate is not None and np.all(np.isfinite(candidate)) and np.max(candidate, initial=0) > 0:
        cert = problem.make_certificate(candidate, tol, source)
        if cert.verified:
            return cert
    n = problem.n
    res = linprog(problem.q, A_ub=problem.M.T, b_ub=np.zeros(n), A_eq=np.ones((1, n)), b_eq=[1.0],
                  bounds=(0, None), method="highs")
    if res.status != 0 or res.fun >= 0:
        return None
    cert = problem.make_certificate(res.x, tol, "y from the LP min q^T y s.t. M^T y <= 0, sum y = 1 (HiGHS)")
    return cert if cert.verified else None

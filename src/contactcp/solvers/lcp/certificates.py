"""Infeasibility certificates for the linear problems: Farkas vectors, checked independently."""

from __future__ import annotations

import numpy as np

from contactcp.problems import LCP
from contactcp.problems.lcp import farkas_certificate
from contactcp.result import Certificate


def lcp_farkas(problem: LCP, candidate: np.ndarray | None, tol: float, source: str = "") -> Certificate | None:
    """A verified Farkas certificate that the problem's feasible set is empty, or None.

    ``candidate`` (e.g. the ``z`` part of Lemke's secondary ray, which is such a vector when M is
    copositive-plus, CPS Theorem 4.4.13) is checked first; if it fails, an LP over the problem's own
    data (HiGHS) proposes one; either is accepted only after an exact check
    (:mod:`contactcp.linalg.farkas`).  None means no proof was found (for an LCP: the feasible set
    is nonempty when the LP's optimum is >= 0)."""
    ok = candidate is not None and np.all(np.isfinite(candidate)) and np.max(np.abs(candidate), initial=0) > 0
    return farkas_certificate(problem, candidate if ok else None, source)

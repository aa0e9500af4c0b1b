"""Trinkle, Pang, Sudarsky & Lo (1995), Theorem 2: when the dynamic contact problem has a solution."""

from __future__ import annotations

from typing import Any

import numpy as np

from contactcp.formulations.dynamic_cone import sliding_substituted
from contactcp.models.system import ContactDynamics

__all__ = ["theorem2"]


def theorem2(cd: ContactDynamics) -> dict[str, Any]:
    """The existence condition of Trinkle–Pang–Sudarsky–Lo (1995), Theorem 2, for a contact state.

    The system Jacobian ``H`` has full column rank (then ``A`` is symmetric
    positive definite), and, with sliding contacts, the friction-modified
    matrix of Buffo–Maciel eq. (26) stays positive definite (its symmetric
    part's smallest eigenvalue is reported).
    """
    m = cd.H.shape[1]
    sv = np.linalg.svd(cd.H, compute_uv=False) if m else np.zeros(0)
    tol = (sv.max() if sv.size else 0.0) * max(cd.H.shape) * np.finfo(float).eps
    rank = int((sv > tol).sum())
    out: dict[str, Any] = {
        "H_shape": list(cd.H.shape),
        "rank": rank,
        "full_column_rank": rank == m,
        "sigma_min": float(sv.min()) if sv.size else 0.0,
    }
    if cd.sliding.any():
        At = sliding_substituted(cd)
        ev = float(np.linalg.eigvalsh(0.5 * (At + At.T)).min())
        out["A_tilde_min_sym_eig"] = ev
        out["A_tilde_positive_definite"] = ev > 0
    out["holds"] = bool(out["full_column_rank"] and out.get("A_tilde_positive_definite", True))
    return out

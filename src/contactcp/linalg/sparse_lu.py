"""Sparse LU for the matrices of the friction-cone solvers, whose sparsity pattern is symmetric.

``W + rho I`` (ADMM), the proximal and semismooth Newton systems (rows and columns of ``W``
with the contacts' 3x3 blocks) and ``M + H Y`` (the global Newton step) have a symmetric
pattern and, for a symmetric positive semidefinite ``W``, large diagonal entries
(``|w_ij| <= sqrt(w_ii w_jj)``).  SuperLU's defaults
(column ordering COLAMD of ``AᵀA``, partial pivoting with threshold 1) ignore both; here the
minimum degree ordering of ``Aᵀ + A``, with the diagonal entry as pivot while it is at least
``DIAG_PIVOT`` times the largest entry of its column (threshold pivoting; else the largest is
taken, so an exactly singular matrix still raises).  On FCLIB's Kapla tower (1710 unknowns) the
factors of ``W + rho I`` hold 301k entries against 620k with the defaults (a one-off comparison
of fill, which does not depend on timing); the end-to-end effect is in
``benchmarks/results/fclib.md`` (ADMM on the Kapla tower 95 ms, 137 ms in the run before).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

__all__ = ["DIAG_PIVOT", "factorize"]

#: SuperLU's ``diag_pivot_thresh``: the diagonal entry is the pivot while it is at least this
#: fraction of the largest entry of its column (else the largest is)
DIAG_PIVOT = 0.1


def factorize(A) -> Callable[[np.ndarray], np.ndarray]:
    """A solver of ``A x = b`` for a sparse square ``A`` with a (nearly) symmetric pattern.

    Raises ``RuntimeError`` (SuperLU's) when ``A`` is exactly singular."""
    lu = spla.splu(sp.csc_matrix(A), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=DIAG_PIVOT)
    return lu.solve

"""The step's mass matrix, factored once for all the solves of a step (:func:`mass_factor`).

A time step solves with ``M`` several times: the free acceleration, the local form's ``M^-1 H`` and
the position projection's ``M^-1 H_N``.  For a system whose ``M`` does not change (free bodies,
whose velocities are in their own axes; a linear system), ``M`` is a set of small symmetric positive
definite blocks, one per body: those are inverted once, batched (:class:`~contactcp.linalg.blockinv.
BlockSolver`), and every later step reuses them while ``M`` is the same to the last bit; a solve is
one sparse product (a 25-box pile: ``M^-1 H_N`` for 140 contacts in about a third of the dense
triangular solves' time, and no dense Cholesky of the 150 x 150 ``M`` a step).  Any other ``M`` is
factored by a dense Cholesky, which is also the test of positive definiteness.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sla

from contactcp.errors import InvalidProblemError
from contactcp.linalg.blockinv import BlockSolver

__all__ = ["mass_factor"]


def _blocks(M: np.ndarray) -> BlockSolver | None:
    """The block solver of ``M`` when every block is a positive entry or a small symmetric positive
    definite block (inverted), else None."""
    try:
        solver = BlockSolver(M)
    except InvalidProblemError:
        return None
    if solver.blocks or not (solver.diag > 0).all():  # a block factored alone: not small, or not SPD
        return None
    return solver


def mass_factor(system: Any, M: np.ndarray, t: float) -> Any:
    """What :func:`contactcp.linalg.dense.cho_solve` takes for ``M``: the block inverses when the
    system's mass matrix is constant (``system.constant_mass``) and splits into positive definite
    blocks (kept on the system while ``M`` stays the same), else ``scipy.linalg.cho_factor(M)``'s
    ``(c, lower)`` (by LAPACK's ``dpotrf`` directly).
    InvalidProblemError naming the mass matrix when ``M`` is not positive definite."""
    if getattr(system, "constant_mass", False):
        cached = system.__dict__.get("_mass_factor")
        if cached is not None and (cached[0] is M or cached[0].shape == M.shape and np.array_equal(cached[0], M)):
            return cached[1]
        solver = _blocks(M)
        if solver is not None:  # a read-only M (the system's own, kept) is kept as it is
            system._mass_factor = (M if not M.flags.writeable else M.copy(), solver)
            return solver
    # LAPACK's dpotrf, which scipy.linalg.cho_factor calls, without its checks (most of a robot's
    # 24 x 24 factorisation); M is finite here (its system's state is)
    c, info = _dpotrf(M, lower=0, clean=0)
    if info == 0:
        return c, False
    if info < 0:
        raise ValueError(f"dpotrf: illegal value in argument {-info}")
    hint = system.mass_hint(M) if hasattr(system, "mass_hint") else ""
    raise InvalidProblemError("mass matrix", f"not positive definite at t = {t:g} s{hint}")


_dpotrf = sla.lapack.dpotrf

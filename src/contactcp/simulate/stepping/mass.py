"""The step's mass matrix, factored once for all the solves of a step (:func:`mass_factor`).

A time step solves with ``M`` several times: the free acceleration, the local form's ``M^-1 H`` and
the position projection's ``M^-1 H_N``.  For a system whose ``M`` does not change (free bodies,
whose velocities are in their own axes; a linear system), ``M`` is a set of small symmetric positive
definite blocks, one per body: those are inverted once, batched (:class:`~contactcp.linalg.blockinv.
BlockSolver`), and every later step reuses them while ``M`` is the same to the last bit; a solve is
one sparse product (a 25-box pile: ``M^-1 H_N`` for 140 contacts in about a third of the dense
triangular solves' time, and no dense Cholesky of the 150 x 150 ``M`` a step).  Any other ``M`` (a
robot's) is factored by a dense Cholesky, compiled (:class:`DenseCholesky`), which is also the test
of positive definiteness.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from contactcp.errors import InvalidProblemError
from contactcp.linalg.blockinv import BlockSolver
from contactcp.linalg.dense_kernels import cholesky, cholesky_solve, cholesky_solve_columns

__all__ = ["mass_factor", "DenseCholesky"]


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
    """``M``'s factor, whose ``solve(b)`` is ``M^-1 b`` (a vector, or a matrix column by column): the
    block inverses when the system's mass matrix is constant (``system.constant_mass``) and splits
    into positive definite blocks (kept on the system while ``M`` stays the same), else
    :class:`DenseCholesky`.  InvalidProblemError naming the mass matrix when ``M`` is not positive
    definite."""
    if getattr(system, "constant_mass", False):
        cached = system.__dict__.get("_mass_factor")
        if cached is not None and (cached[0] is M or cached[0].shape == M.shape and np.array_equal(cached[0], M)):
            return cached[1]
        solver = _blocks(M)
        if solver is not None:  # a read-only M (the system's own, kept) is kept as it is
            system._mass_factor = (M if not M.flags.writeable else M.copy(), solver)
            return solver
    L, positive = cholesky(np.asarray(M, dtype=np.float64))
    if positive:
        return DenseCholesky(L)
    hint = system.mass_hint(M) if hasattr(system, "mass_hint") else ""
    raise InvalidProblemError("mass matrix", f"not positive definite at t = {t:g} s{hint}")


class DenseCholesky:
    """``M = L L^T`` by the compiled Cholesky (:func:`~contactcp.linalg.dense_kernels.cholesky`),
    which the local step's compiled call also runs on a robot's ``M`` (:func:`~contactcp.simulate.
    stepping.local_kernels.local_advance`): every solve of a step, in that call or after it, from
    the same factor, by the same arithmetic, without BLAS (whose kernels differ from CPU to CPU)."""

    __slots__ = ("L",)

    def __init__(self, L: np.ndarray):
        self.L = L

    def solve(self, b: np.ndarray) -> np.ndarray:
        b = np.asarray(b, dtype=np.float64)
        return cholesky_solve(self.L, b) if b.ndim == 1 else cholesky_solve_columns(self.L, b)

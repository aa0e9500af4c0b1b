"""The uncoupled complementarity problem of Pang, Trinkle & Lo (1994), Section 3."""

from __future__ import annotations

from typing import Any

import numpy as np

from contactcp._validate import matrix, vector
from contactcp.errors import InvalidProblemError
from contactcp.problems._base import Problem, complementarity_residual, require, scaled_residual
from contactcp.result import Residual

__all__ = ["UCP"]


class UCP(Problem):
    """``UCP(X, Y)``: find ``x in X``, ``y in Y`` with ``x . y = 0``.

    ``X = {x >= 0 : A_x x = b_x}`` and ``Y = {y >= 0 : A_y y = b_y}`` are
    polyhedra in ``R^n_+``; because both lie in the nonnegative orthant,
    ``x . y = 0`` is the componentwise complementarity ``x_i y_i = 0``.
    Solvers return ``x`` in :attr:`Result.x` and ``y`` in :attr:`Result.w`.

    Parameters
    ----------
    A_x : (m_x, n) array_like;  b_x : (m_x,) array_like
    A_y : (m_y, n) array_like;  b_y : (m_y,) array_like
    """

    kind = "UCP"

    def __init__(self, A_x: Any, b_x: Any, A_y: Any, b_y: Any):
        self.A_x = matrix(A_x, "A_x")
        n = self.A_x.shape[1]
        require(n >= 1, "A_x", "must have at least one column")
        self.b_x = vector(b_x, "b_x", self.A_x.shape[0])
        self.A_y = matrix(A_y, "A_y", (None, n))
        self.b_y = vector(b_y, "b_y", self.A_y.shape[0])
        self._freeze()

    @property
    def n(self) -> int:
        return self.A_x.shape[1]

    @property
    def size(self) -> int:
        return self.n

    def residual(self, x: Any, y: Any) -> Residual:
        """``max(||min(x, y)||_inf, max_k |(A_x x - b_x)_k| / s_k, max_k |(A_y y - b_y)_k| / s_k)``.

        Each equation row ``k`` is measured in its own scale ``s_k = max(|b_k|, sum_j |A_kj| min(|x_j|, Z_j))``, and
        by an upper bound of its exact value (:func:`~contactcp.problems._base.scaled_residual`), so
        that neither large ``x``, ``y`` nor rounding hides a violation and a row with small data is
        not excused by the size of the others.  ``scale`` reports the largest row scale.
        """
        x = self._point(x, "x")
        y = self._point(y, "y")
        ex, lox, hix, sx = scaled_residual(self.A_x, x, -self.b_x)
        ey, loy, hiy, sy = scaled_residual(self.A_y, y, -self.b_y)
        eq = max(float(np.max(np.abs(ex), initial=0.0)), float(np.max(np.abs(ey), initial=0.0)))
        beyond = max(
            float(np.max(np.maximum(np.abs(lox), np.abs(hix)), initial=0.0)),
            float(np.max(np.maximum(np.abs(loy), np.abs(hiy)), initial=0.0)),
        )
        scale = max(float(np.max(sx, initial=0.0)), float(np.max(sy, initial=0.0)))
        return complementarity_residual(x, y, eq, scale, beyond)

    def _certify(self, x: np.ndarray, w: np.ndarray | None) -> tuple[Residual, np.ndarray | None]:
        if w is None:
            raise InvalidProblemError("y", "a UCP answer needs both x and y")
        return self.residual(x, w), w

    def __repr__(self) -> str:
        return f"UCP(n={self.n}, rows_x={self.A_x.shape[0]}, rows_y={self.A_y.shape[0]})"

"""The uncoupled complementarity problem of Pang, Trinkle & Lo (1994), Section 3."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidProblemError
from ..result import Residual
from .._validate import matrix, vector
from ._base import Problem, complementarity_residual, data_scale, require, affine_residual

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
        """``max(||min(x, y)||_inf, ||A_x x - b_x||_inf, ||A_y y - b_y||_inf) / scale``.

        ``scale = max(1, |b_x|, |b_y|)`` (the data); the equation parts count only beyond the
        error bound of ``A x - b`` computed in doubled precision (:func:`affine_residual`), so that
        large ``x``, ``y`` neither hide a violation nor fail on round-off.
        """
        x = self._point(x, "x")
        y = self._point(y, "y")
        ex, ax = affine_residual(self.A_x, x, -self.b_x)
        ey, ay = affine_residual(self.A_y, y, -self.b_y)
        ex, ey = np.abs(ex), np.abs(ey)
        eq = max(float(np.max(ex, initial=0.0)), float(np.max(ey, initial=0.0)))
        beyond = max(float(np.max(ex - ax, initial=0.0)), float(np.max(ey - ay, initial=0.0)))
        return complementarity_residual(x, y, eq, data_scale(self.b_x, self.b_y), beyond)

    def _certify(self, x: np.ndarray, w: np.ndarray | None) -> tuple[Residual, np.ndarray | None]:
        if w is None:
            raise InvalidProblemError("y", "a UCP answer needs both x and y")
        return self.residual(x, w), w

    def __repr__(self) -> str:
        return f"UCP(n={self.n}, rows_x={self.A_x.shape[0]}, rows_y={self.A_y.shape[0]})"

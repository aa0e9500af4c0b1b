"""Shared machinery of the problem types: immutability and residual arithmetic."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..errors import InvalidProblemError
from ..result import Residual
from .._validate import vector
from ._kernels import affine_dot2, lcp_residual_parts


class Problem:
    """Base class of every complementarity problem.

    Problems validate their data when constructed and are immutable afterwards
    (arrays are read-only copies; attributes cannot be rebound).
    """

    kind: ClassVar[str] = "problem"
    _frozen: bool = False

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is immutable; build a new problem instead")
        object.__setattr__(self, name, value)

    def _freeze(self) -> None:
        object.__setattr__(self, "_frozen", True)

    @property
    def size(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def _certify(self, x: np.ndarray, w: np.ndarray | None) -> tuple[Residual, np.ndarray | None]:
        """Residual of a solver's answer and the partner vector the result should carry.

        Linear problems recompute ``w = M x + q`` themselves (a solver's own
        ``w`` is ignored); the UCP needs the solver's ``y`` in ``w``.
        """
        if type(x) is not np.ndarray or x.dtype != np.float64 or x.shape != (self.size,):
            x = np.array(x, dtype=np.float64).reshape(-1)
            if x.shape != (self.size,):
                raise InvalidProblemError("x", f"solver returned length {x.size}, expected {self.size}")
        return linear_residual(self.M, self.q, x, self._free)  # type: ignore[attr-defined]

    def _point(self, x: Any, field: str = "x", size: int | None = None) -> np.ndarray:
        """Validate a candidate point for ``residual``: a finite vector of the right length."""
        return vector(x, field, self.size if size is None else size)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={self.size})"


def data_scale(*vectors: np.ndarray) -> float:
    """``max(1, max|v|)`` over the right-hand sides: the size of the data residuals are measured in."""
    return max([1.0] + [float(np.max(np.abs(v))) for v in vectors if v.size])


def affine_residual(A: np.ndarray, x: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(A x + c, error bound per row)``, computed in doubled precision (:func:`affine_dot2`)."""
    if not c.size:
        return np.zeros(0), np.zeros(0)
    return affine_dot2(np.ascontiguousarray(A, dtype=np.float64), np.ascontiguousarray(x, dtype=np.float64),
                       np.ascontiguousarray(c, dtype=np.float64))


def linear_residual(M: np.ndarray, q: np.ndarray, x: np.ndarray, free: np.ndarray) -> tuple[Residual, np.ndarray]:
    """Residual of ``w = M x + q`` with equations on ``free`` rows and complementarity elsewhere."""
    w, natural, zv, wv, zw, eq, excess, scale = lcp_residual_parts(M, q, x, free)
    return Residual(max(0.0, excess) / scale, natural, zv, wv, zw, eq, scale), w


def complementarity_residual(z: np.ndarray, w: np.ndarray, equation: float, scale: float,
                              equation_excess: float | None = None) -> Residual:
    """Residual of a pair ``z >= 0, w >= 0, z.w = 0`` plus equations of size ``equation``
    (of which ``equation_excess`` is beyond rounding, when the caller knows it)."""
    natural = float(np.max(np.abs(np.minimum(z, w)))) if z.size else 0.0
    eq_value = equation if equation_excess is None else max(0.0, equation_excess)
    return Residual(
        value=max(natural, eq_value) / scale,
        natural=natural,
        z_violation=float(max(0.0, -np.min(z))) if z.size else 0.0,
        w_violation=float(max(0.0, -np.min(w))) if w.size else 0.0,
        complementarity=float(abs(z @ w)) if z.size else 0.0,
        equation=float(equation),
        scale=float(scale),
    )


def require(cond: bool, field: str, problem: str) -> None:
    """Raise :class:`InvalidProblemError` unless ``cond``."""
    if not cond:
        raise InvalidProblemError(field, problem)

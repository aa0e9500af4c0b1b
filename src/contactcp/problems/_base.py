"""Shared machinery of the problem types: immutability and residual arithmetic."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..errors import InvalidProblemError
from ..result import Residual
from .._validate import vector
from ._kernels import lcp_residual_parts


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


def term_scale(A: np.ndarray, x: np.ndarray, c: np.ndarray) -> float:
    """``max(1, max_i (|c_i| + sum_j |A_ij x_j|))``: the size of the terms of ``A x + c``.

    The computed value of ``A x + c`` carries rounding errors of order
    ``eps * n * term_scale``; residuals are divided by it.
    """
    if not c.size:
        return 1.0
    return max(1.0, float(np.max(np.abs(c) + np.abs(A) @ np.abs(x))))


def linear_residual(M: np.ndarray, q: np.ndarray, x: np.ndarray, free: np.ndarray) -> tuple[Residual, np.ndarray]:
    """Residual of ``w = M x + q`` with equations on ``free`` rows and complementarity elsewhere."""
    w, natural, zv, wv, zw, eq, scale = lcp_residual_parts(M, q, x, free)
    return Residual(max(natural, eq) / scale, natural, zv, wv, zw, eq, scale), w


def complementarity_residual(z: np.ndarray, w: np.ndarray, equation: float, scale: float) -> Residual:
    """Residual of a pair ``z >= 0, w >= 0, z.w = 0`` plus equations of size ``equation``."""
    natural = float(np.max(np.abs(np.minimum(z, w)))) if z.size else 0.0
    return Residual(
        value=max(natural, equation) / scale,
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

"""Shared machinery of the problem types: immutability and residual arithmetic."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from contactcp._validate import vector
from contactcp.errors import InvalidProblemError
from contactcp.problems._exact import exact_lcp_rows, exact_scaled_rows
from contactcp.problems._kernels import lcp_residual_parts, scaled_affine
from contactcp.result import Residual


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

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled or deep-copied: the arrays read-only again (a copy's arrays are writeable, and a
        problem's cached quantities, such as the friction problem's exponent of ``max |q|``, assume
        that its data never change)."""
        for value in state.values():
            _read_only(value)
        self.__dict__.update(state)

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


def _read_only(value: Any) -> None:
    """``value`` read-only as the constructors leave it: a numpy array, or a sparse matrix's values
    (its index arrays stay writeable, as after construction: scipy may sort them in place)."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif sp.issparse(value):
        value.data.setflags(write=False)


def scaled_residual(
    A: np.ndarray, x: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(A x + c, lo, hi, s)``: the vector in doubled precision, the row scales ``s_i = max(|c_i|,
    sum_j |A_ij| min(|x_j|, Z_j))`` and guaranteed bounds ``lo_i <= exact((A x + c)_i) / s_i <= hi_i`` (rows that
    floating point cannot bound tightly are evaluated in rational arithmetic)."""
    if not c.size:
        z = np.zeros(0)
        return z, z, z, z
    A = np.ascontiguousarray(A, dtype=np.float64)
    x = np.ascontiguousarray(x, dtype=np.float64)
    c = np.ascontiguousarray(c, dtype=np.float64)
    v, lo, hi, s, risky = scaled_affine(A, x, c)
    if risky.any():
        exact_scaled_rows(A, x, c, np.flatnonzero(risky), v, lo, hi)
    return v, lo, hi, s


def linear_residual(M: np.ndarray, q: np.ndarray, x: np.ndarray, free: np.ndarray) -> tuple[Residual, np.ndarray]:
    """Residual of ``w = M x + q`` with equations on ``free`` rows and complementarity elsewhere.

    Each row is measured in its own scale ``s_i = max(|q_i|, sum_j |M_ij| min(|z_j|, Z_j))`` (the natural map of the
    row-equilibrated problem, :func:`~contactcp.problems._kernels.lcp_row`), as an upper bound of the
    exact value; rows that floating point cannot decide are evaluated in rational arithmetic."""
    w, natural, zv, wv, zw, eq, value, scale, rows = lcp_residual_parts(M, q, x, free)
    if rows.size:
        w_ex, e_ex = exact_lcp_rows(M, q, x, free, rows)
        w[rows] = w_ex
        value = max(value, float(e_ex.max()))
        with np.errstate(all="ignore"):  # the raw parts again, from the exact w
            c = ~free
            natural = float(np.max(np.abs(np.minimum(x[c], w[c])), initial=0.0))
            eq = float(np.max(np.abs(w[free]), initial=0.0))
            zv = float(max(0.0, -np.min(x[c], initial=0.0)))
            wv = float(max(0.0, -np.min(w[c], initial=0.0)))
            zw = float(abs(x[c] @ w[c]))
    return Residual(value, natural, zv, wv, zw, eq, scale), w


def complementarity_residual(
    z: np.ndarray, w: np.ndarray, equation: float, scale: float, equation_scaled: float | None = None
) -> Residual:
    """Residual of a pair ``z >= 0, w >= 0, z.w = 0`` plus equations of size ``equation``.

    With ``equation_scaled`` (the equations' violation already measured row by row in their own
    scales, as an upper bound) the value is ``max(||min(z, w)||_inf, equation_scaled)`` and ``scale``
    is only reported; without it, ``max(||min(z, w)||_inf, equation) / scale``."""
    natural = float(np.max(np.abs(np.minimum(z, w)))) if z.size else 0.0
    value = max(natural, equation) / scale if equation_scaled is None else max(natural, equation_scaled)
    return Residual(
        value=value,
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

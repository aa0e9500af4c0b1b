"""Input checking shared by every problem type.

Each helper returns a fresh, read-only ``float64`` array (so problems are
immutable and callers' arrays are never aliased) or raises
:class:`~contactcp.errors.InvalidProblemError` naming the field.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .errors import InvalidProblemError


def _as_float(value: Any, field: str) -> np.ndarray:
    if type(value) is np.ndarray and value.dtype == np.float64:
        return value.copy()
    if np.iscomplexobj(value):
        raise InvalidProblemError(field, "must be real numbers, got complex ones")
    try:
        arr = np.array(value, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise InvalidProblemError(field, f"cannot be read as an array of numbers ({exc})") from None
    return arr


@njit(cache=True, nogil=True)
def _all_finite(flat: np.ndarray) -> bool:
    for v in flat:
        if not np.isfinite(v):
            return False
    return True


@njit(cache=True, nogil=True)
def finite_pair(M: np.ndarray, q: np.ndarray) -> bool:
    """True when a C-contiguous matrix and a vector hold only finite numbers (one compiled call)."""
    for v in M.reshape(-1):
        if not np.isfinite(v):
            return False
    for v in q:
        if not np.isfinite(v):
            return False
    return True


def _check_values(arr: np.ndarray, field: str, allow_inf: str | None) -> None:
    if allow_inf is None and _all_finite(arr.reshape(-1)):
        return
    if np.isnan(arr).any():
        idx = tuple(int(i) for i in np.argwhere(np.isnan(arr))[0])
        raise InvalidProblemError(field, f"contains NaN (first at index {_fmt(idx)})")
    if allow_inf is None:
        bad = np.isinf(arr)
    elif allow_inf == "+":
        bad = np.isneginf(arr)
    elif allow_inf == "-":
        bad = np.isposinf(arr)
    else:
        bad = np.zeros(arr.shape, dtype=bool)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidProblemError(
            field, f"contains {arr[idx]} (first at index {_fmt(idx)}); only finite values are allowed"
            if allow_inf is None else f"contains {arr[idx]} at index {_fmt(idx)}, which is not allowed here"
        )


def _fmt(idx: tuple[int, ...]) -> str:
    return str(idx[0]) if len(idx) == 1 else str(idx)


def _freeze(arr: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(arr)
    arr.setflags(write=False)
    return arr


def vector(value: Any, field: str, size: int | None = None, *, allow_inf: str | None = None) -> np.ndarray:
    """A 1-D float vector of length ``size`` (any length if None).

    ``allow_inf``: None (finite only), ``"+"`` (+inf allowed), ``"-"`` (-inf
    allowed) or ``"both"``.
    """
    if (allow_inf is None and type(value) is np.ndarray and value.dtype == np.float64 and value.ndim == 1
            and (size is None or value.shape[0] == size) and not value.flags.writeable):
        # already validated and frozen by this function (the common case inside the package)
        if np.isfinite(value).all():
            return value
    arr = _as_float(value, field)
    if arr.ndim == 0:
        raise InvalidProblemError(field, "must be a 1-D vector, got a scalar")
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise InvalidProblemError(field, f"must be a 1-D vector, got shape {arr.shape}")
    if size is not None and arr.shape[0] != size:
        raise InvalidProblemError(field, f"must have length {size}, got {arr.shape[0]}")
    _check_values(arr, field, allow_inf)
    return _freeze(arr)


def matrix(value: Any, field: str, shape: tuple[int | None, int | None] | None = None,
           *, square: bool = False) -> np.ndarray:
    """A 2-D finite float matrix, optionally square or of a given shape (None = any)."""
    arr = _as_float(value, field)
    if arr.ndim != 2:
        raise InvalidProblemError(field, f"must be a 2-D matrix, got {arr.ndim}-D shape {arr.shape}")
    if square and arr.shape[0] != arr.shape[1]:
        raise InvalidProblemError(field, f"must be square, got shape {arr.shape}")
    if shape is not None:
        for axis, want in enumerate(shape):
            if want is not None and arr.shape[axis] != want:
                raise InvalidProblemError(field, f"must have shape {_shape_str(shape)}, got {arr.shape}")
    _check_values(arr, field, None)
    return _freeze(arr)


def _shape_str(shape: tuple[int | None, ...]) -> str:
    return "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"


def number(value: Any, field: str) -> float:
    """A finite real number (numpy scalars included, bools and strings not)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value):
        raise InvalidProblemError(field, f"must be a finite number, got {value!r}")
    return float(value)


def positive_int(value: Any, field: str, *, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidProblemError(field, f"must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise InvalidProblemError(field, f"must be >= {minimum}, got {value}")
    return int(value)


def index_mask(value: Any, field: str, size: int) -> np.ndarray:
    """A boolean mask of length ``size`` from a mask or a list of 0-based indices."""
    arr = np.asarray(value)
    if arr.dtype == bool:
        if arr.shape != (size,):
            raise InvalidProblemError(field, f"boolean mask must have length {size}, got shape {arr.shape}")
        mask = arr.copy()
    else:
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise InvalidProblemError(field, "must be a boolean mask or a list of integer indices")
        idx = arr.reshape(-1).astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= size):
            raise InvalidProblemError(field, f"indices must lie in 0..{size - 1}, got {idx.tolist()}")
        if np.unique(idx).size != idx.size:
            raise InvalidProblemError(field, f"indices must be distinct, got {idx.tolist()}")
        mask = np.zeros(size, dtype=bool)
        mask[idx] = True
    mask.setflags(write=False)
    return mask

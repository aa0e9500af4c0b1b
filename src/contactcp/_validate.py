"""Input checking shared by every problem type.

Each helper returns a fresh, read-only ``float64`` array (so problems are
immutable and callers' arrays are never aliased) or raises
:class:`~contactcp.errors.InvalidProblemError` naming the field.
"""

from __future__ import annotations

import math
import numbers
import os
from decimal import Decimal
from typing import Any

import numpy as np
from numba import njit

from contactcp.errors import InvalidProblemError

_KIND_NAMES = {
    "b": "booleans",
    "c": "complex numbers",
    "U": "strings",
    "S": "bytes",
    "M": "dates (datetime64)",
    "m": "time spans (timedelta64)",
    "V": "raw records (void)",
    "O": "Python objects",
}


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _where(idx: tuple[int, ...]) -> str:
    return "" if not idx else f" at index {_fmt(idx)}"


def _scalar(value: Any, field: str, idx: tuple[int, ...] = ()) -> float:
    """One real number as a float, or InvalidProblemError naming ``field`` (and the index)."""
    if isinstance(value, (bool, np.bool_)):
        raise InvalidProblemError(
            field, f"cannot be read as numbers: the boolean {value!r}{_where(idx)} is not a number"
        )
    if isinstance(value, (numbers.Real, Decimal)):
        try:
            return float(value)
        except OverflowError:
            digits = len(str(abs(int(value)))) if isinstance(value, numbers.Integral) else None
            size = f" ({digits} digits)" if digits else ""
            raise InvalidProblemError(field, f"entry{_where(idx)} is too large for a 64-bit float{size}") from None
        except (TypeError, ValueError) as exc:
            raise InvalidProblemError(field, f"entry{_where(idx)} is not a real number ({exc})") from None
    if isinstance(value, numbers.Complex):
        raise InvalidProblemError(
            field, f"cannot be read as real numbers: got the complex number {value!r}{_where(idx)}"
        )
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        raise InvalidProblemError(
            field, f"cannot be read as numbers: the string {_describe(value)}{_where(idx)} is text, not a number"
        )
    if isinstance(value, np.generic):
        kind = _KIND_NAMES.get(value.dtype.kind, str(value.dtype))
        raise InvalidProblemError(field, f"cannot be read as numbers: got {kind} ({value.dtype}){_where(idx)}")
    raise InvalidProblemError(
        field, f"cannot be read as numbers: got {type(value).__name__} {_describe(value)}{_where(idx)}"
    )


def _shape_of(value: Any, field: str, idx: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of a nested sequence, checking every leaf is a real number (slow path, diagnostics)."""
    if isinstance(value, np.ndarray) and value.dtype.kind != "O":
        if value.dtype.kind not in "fiu":
            _bad_kind(value.dtype, field, idx)
        return value.shape
    if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim > 0):
        if len(idx) >= 32:
            raise InvalidProblemError(field, f"is nested too deeply (more than 32 levels at index {_fmt(idx)})")
        shapes = [_shape_of(v, field, idx + (i,)) for i, v in enumerate(value)]
        for i, s in enumerate(shapes[1:], start=1):
            if s != shapes[0]:
                where = f"index {_fmt(idx)}" if idx else "the top level"
                raise InvalidProblemError(
                    field,
                    f"is ragged: at {where}, entry 0 has shape {shapes[0]} but entry {i} has shape {s} "
                    "(rows must all have the same length)",
                )
        return (len(shapes),) + (shapes[0] if shapes else ())
    if isinstance(value, np.ndarray):  # 0-d object array
        value = value[()]
    _scalar(value, field, idx)
    return ()


def _bad_kind(dtype: np.dtype, field: str, idx: tuple[int, ...] = ()) -> None:
    kind = _KIND_NAMES.get(dtype.kind, str(dtype))
    raise InvalidProblemError(field, f"cannot be read as real numbers: got {kind} (dtype {dtype}){_where(idx)}")


def _has_bool(seq: Any) -> bool:
    """True when a nested list/tuple hides a boolean among numbers (numpy turns [True, 2.0] into floats)."""
    for v in seq:
        t = type(v)
        if t is float or t is int:
            continue
        if t is bool or t is np.bool_:
            return True
        if t is list or t is tuple:
            if _has_bool(v):
                return True
        elif t is np.ndarray and v.dtype.kind == "b":
            return True
    return False


def real_array(value: Any, field: str) -> np.ndarray:
    """``value`` as a new float64 array (any shape), or :class:`InvalidProblemError` naming ``field``.

    Accepted: real numbers (Python, numpy, ``Fraction``, ``Decimal``) and
    (nested) sequences or arrays of them, integer dtypes included.  Refused,
    with the reason: booleans, complex numbers, strings and bytes (also
    numeric ones such as ``"1.5"``), datetime64/timedelta64, other objects,
    ragged nesting, and integers too large for a float.
    """
    if type(value) is np.ndarray and value.dtype == np.float64:
        return value.copy()
    if isinstance(value, np.ndarray):
        return _from_ndarray(np.asarray(value), field)
    if isinstance(value, (list, tuple)):
        try:
            arr = np.array(value)
        except (ValueError, TypeError, OverflowError):
            arr = None
        if arr is not None and arr.dtype.kind in "fiu" and not _has_bool(value):
            return arr if arr.dtype == np.float64 else arr.astype(np.float64)
        _shape_of(value, field, ())  # raises with the reason (ragged, big integer, string, ...)
        if arr is not None and arr.dtype.kind not in "fiuO":
            _bad_kind(arr.dtype, field)
        try:
            return np.array(value, dtype=np.float64)
        except (ValueError, TypeError, OverflowError) as exc:  # pragma: no cover - _shape_of found nothing
            raise InvalidProblemError(field, f"cannot be read as an array of numbers ({exc})") from None
    if _is_sparse(value):
        raise InvalidProblemError(field, "must be a dense array, got a scipy sparse matrix (use .toarray())")
    if isinstance(value, (numbers.Number, Decimal, str, bytes, np.generic)) or value is None:
        return np.array(_scalar(value, field))
    try:  # other array-likes (memoryview, pandas, ...)
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise InvalidProblemError(field, f"cannot be read as an array of numbers ({exc})") from None
    if arr.dtype.kind == "O" and arr.ndim == 0:
        _scalar(arr[()], field)
    return _from_ndarray(arr, field)


def _from_ndarray(arr: np.ndarray, field: str) -> np.ndarray:
    kind = arr.dtype.kind
    if kind in "iu":
        return arr.astype(np.float64)
    if kind == "f":
        with np.errstate(over="ignore"):
            out = arr.astype(np.float64)
        if arr.dtype.itemsize > 8:  # long double: values beyond the float64 range
            big = np.isfinite(arr) & ~np.isfinite(out)
            if big.any():
                idx = tuple(int(i) for i in np.argwhere(big)[0])
                raise InvalidProblemError(field, f"entry{_where(idx)} is too large for a 64-bit float")
        return out
    if kind == "O":
        _shape_of(arr, field, ())
        try:
            return arr.astype(np.float64)
        except (ValueError, TypeError, OverflowError) as exc:  # pragma: no cover
            raise InvalidProblemError(field, f"cannot be read as an array of numbers ({exc})") from None
    _bad_kind(arr.dtype, field)
    raise AssertionError  # pragma: no cover


def _is_sparse(value: Any) -> bool:
    mod = type(value).__module__
    return mod.startswith("scipy.sparse")


def sparse_real(A: Any, field: str):
    """A scipy sparse matrix as a new float64 CSR matrix of finite values (entries stored as given),
    or an error naming ``field`` (complex, object or text dtype; NaN or inf)."""
    import scipy.sparse as sp

    if A.dtype.kind not in "fiu":
        raise InvalidProblemError(field, f"cannot be read as real numbers: got a sparse matrix of dtype {A.dtype}")
    A = sp.csr_matrix(A, dtype=np.float64, copy=True)
    if not np.all(np.isfinite(A.data)):
        raise InvalidProblemError(field, "contains NaN or inf")
    return A


def _as_float(value: Any, field: str) -> np.ndarray:
    return real_array(value, field)


@njit(cache=True, nogil=True)
def _all_finite(flat: np.ndarray) -> bool:
    for v in flat:
        if not np.isfinite(v):
            return False
    return True


@njit("boolean(float64[:, ::1], float64[::1])", cache=True, nogil=True)
def square_finite_pair(M: np.ndarray, q: np.ndarray) -> bool:
    """True when ``M`` is ``n x n``, ``n = len(q) >= 1``, and both hold only finite numbers: the checks
    of an LCP's common call in one compiled call.  Typed for C-contiguous native ``float64`` only
    (compiled once, at import): other arrays raise ``TypeError`` at the call, and the caller takes
    its general path (the dtype and shape checks in Python cost as much as this call)."""
    n = q.shape[0]
    if n == 0 or M.shape[0] != n or M.shape[1] != n:
        return False
    for i in range(n):
        if not np.isfinite(q[i]):
            return False
        for j in range(n):
            if not np.isfinite(M[i, j]):
                return False
    return True


@njit(cache=True, nogil=True)
def coulomb_data(W: np.ndarray, q: np.ndarray, mu: np.ndarray) -> tuple[bool, float, float]:
    """``(ok, max mu, max |q|)`` of dense friction-problem data in one compiled call: ``ok`` when
    ``W`` (C-contiguous) and ``q`` are finite and every ``mu`` finite and ``>= 0``."""
    ok = True
    for v in W.reshape(-1):
        if not np.isfinite(v):
            ok = False
    qmax = 0.0
    for v in q:
        if not np.isfinite(v):
            ok = False
        elif abs(v) > qmax:
            qmax = abs(v)
    mmax = 0.0
    for v in mu:
        if not (np.isfinite(v) and v >= 0.0):
            ok = False
        elif v > mmax:
            mmax = v
    return ok, mmax, qmax


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
            field,
            f"contains {arr[idx]} (first at index {_fmt(idx)}); only finite values are allowed"
            if allow_inf is None
            else f"contains {arr[idx]} at index {_fmt(idx)}, which is not allowed here",
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
    if (
        allow_inf is None
        and type(value) is np.ndarray
        and value.dtype == np.float64
        and value.ndim == 1
        and (size is None or value.shape[0] == size)
        and not value.flags.writeable
    ):
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


def matrix(
    value: Any, field: str, shape: tuple[int | None, int | None] | None = None, *, square: bool = False
) -> np.ndarray:
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
    """A finite real number (numpy scalars, Fraction and Decimal included; bools, strings, complex not)."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "fiu":
        value = value[()]
    x = _scalar(value, field)
    if not math.isfinite(x):
        raise InvalidProblemError(field, f"must be a finite number, got {value!r}")
    return x


def integer(value: Any, field: str, *, minimum: int | None = None, choices: tuple[int, ...] | None = None) -> int:
    """An integer (Python or numpy; not a bool, not a float such as 3.0), optionally bounded."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidProblemError(field, f"must be an integer, got {type(value).__name__} {_describe(value)}")
    if choices is not None and value not in choices:
        raise InvalidProblemError(field, f"must be one of {', '.join(map(str, choices))}, got {value}")
    if minimum is not None and value < minimum:
        raise InvalidProblemError(field, f"must be >= {minimum}, got {value}")
    return int(value)


def positive_int(value: Any, field: str, *, minimum: int = 1) -> int:
    return integer(value, field, minimum=minimum)


def index_mask(value: Any, field: str, size: int) -> np.ndarray:
    """A boolean mask of length ``size`` from a mask or a list of 0-based indices."""
    why = "must be a boolean mask or a list of integer indices"
    if isinstance(value, (str, bytes)) or _is_sparse(value):
        raise InvalidProblemError(field, f"{why}, got {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        raise InvalidProblemError(field, f"{why}; got a ragged or unreadable sequence {_describe(value)}") from None
    if arr.dtype == bool:
        if arr.shape != (size,):
            raise InvalidProblemError(field, f"boolean mask must have length {size}, got shape {arr.shape}")
        mask = arr.copy()
    else:
        if arr.size and (arr.dtype.kind not in "iu" or (isinstance(value, (list, tuple)) and _has_bool(value))):
            raise InvalidProblemError(field, f"{why}, got {_describe(value)}")
        idx = arr.reshape(-1).astype(np.int64) if arr.size else np.zeros(0, dtype=np.int64)
        if idx.size and (arr.min() < 0 or arr.max() >= size):
            raise InvalidProblemError(field, f"indices must lie in 0..{size - 1}, got {idx.tolist()}")
        if np.unique(idx).size != idx.size:
            raise InvalidProblemError(field, f"indices must be distinct, got {idx.tolist()}")
        mask = np.zeros(size, dtype=bool)
        mask[idx] = True
    mask.setflags(write=False)
    return mask


# ------------------------------------------------------------------ sizes that cannot fit

#: assumed when the operating system does not report its physical memory
FALLBACK_MEMORY = 1 << 40


def physical_memory() -> int:
    """Bytes of physical memory (``os.sysconf('SC_PHYS_PAGES') * page size``; 1 TiB when unknown)."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return FALLBACK_MEMORY
    return pages * size if pages > 0 and size > 0 else FALLBACK_MEMORY


def _bytes(n: float) -> str:
    for unit, k in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << k:
            return f"{n / (1 << k):.3g} {unit}"
    return f"{int(n)} B"


def check_memory(nbytes: float, field: str, what: str, advice: str = "use a smaller size") -> None:
    """Refuse, before allocating anything, work whose arrays need more than the machine's physical memory.

    ``nbytes`` is an estimate of the memory ``what`` needs (the dense arrays it
    allocates); above :func:`physical_memory` it cannot fit and
    :class:`InvalidProblemError` names ``field`` and both sizes.
    """
    limit = physical_memory()
    if not nbytes <= limit:
        raise InvalidProblemError(
            field, f"{what} needs about {_bytes(nbytes)} of memory, more than this machine's {_bytes(limit)}; {advice}"
        )

"""The points of a sweep: named coordinate columns (:func:`grid`, :func:`points`)."""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from typing import Any

import numpy as np

from contactcp.errors import InvalidProblemError

# --------------------------------------------------------------------------- points


def _column(name: str, value: Any) -> np.ndarray:
    arr = np.array(value, copy=True)
    if arr.ndim != 1:
        raise InvalidProblemError(name, f"must be a 1-D array of values, got shape {arr.shape}")
    if arr.dtype == object:
        raise InvalidProblemError(name, "must hold numbers, booleans or strings, got Python objects")
    arr.flags.writeable = False
    return arr


class Points:
    """Named coordinate columns: one point per row (made by :func:`grid` or :func:`points`).

    ``pts["tau1"]`` is a read-only column, ``pts[i]`` the ``i``-th point as a
    dict of Python scalars, ``pts[a:b]`` the points ``a..b-1`` (a chunk).
    ``len(pts)`` counts points; ``shape`` is the grid shape (``(n,)`` for a
    plain list of points or a slice).
    """

    __slots__ = ("_cols", "_shape")

    def __init__(self, columns: Mapping[str, np.ndarray], shape: tuple[int, ...] | None = None):
        self._cols = dict(columns)
        n = len(next(iter(self._cols.values())))
        self._shape = (n,) if shape is None else tuple(int(s) for s in shape)

    @property
    def columns(self) -> tuple[str, ...]:
        """Names of the coordinates, in order."""
        return tuple(self._cols)

    @property
    def shape(self) -> tuple[int, ...]:
        """Grid shape (C order, last axis fastest); ``(len(self),)`` for plain points."""
        return self._shape

    def __len__(self) -> int:
        return math.prod(self._shape)

    def __getitem__(self, key: str | int | slice):
        if isinstance(key, str):
            return self._cols[key]
        if isinstance(key, slice):
            return Points({k: c[key] for k, c in self._cols.items()})
        i = operator.index(key)
        return {k: c[i].item() for k, c in self._cols.items()}

    def __repr__(self) -> str:
        kind = "x".join(map(str, self._shape)) + " grid" if len(self._shape) > 1 else f"{len(self)} points"
        return f"Points({kind}; {', '.join(self._cols)})"


def grid(**axes: Any) -> Points:
    """Every combination of the values of named 1-D axes.

    Parameters
    ----------
    **axes : 1-D array_like
        One axis per coordinate, e.g. ``tau1=np.linspace(-1, 1, 200)``.

    Returns
    -------
    Points
        ``prod(len(axis))`` points in C order (the last axis varies fastest);
        ``shape`` is ``tuple(len(axis) for axis in axes)``.

    Raises
    ------
    InvalidProblemError
        No axis, an axis that is not 1-D or is empty.
    """
    if not axes:
        raise InvalidProblemError("axes", "grid() needs at least one named axis")
    cols = {name: _column(name, value) for name, value in axes.items()}
    for name, c in cols.items():
        if len(c) == 0:
            raise InvalidProblemError(name, "is empty")
    shape = tuple(len(c) for c in cols.values())
    mesh = np.meshgrid(*cols.values(), indexing="ij")
    out = {}
    for name, m in zip(cols, mesh):
        m = np.ascontiguousarray(m).reshape(-1)
        m.flags.writeable = False
        out[name] = m
    return Points(out, shape)


def points(**columns: Any) -> Points:
    """An explicit list of points given as equal-length coordinate columns.

    Parameters
    ----------
    **columns : 1-D array_like
        ``columns[name][i]`` is coordinate ``name`` of point ``i``.

    Raises
    ------
    InvalidProblemError
        No column, a column that is not 1-D, columns of different lengths, or no point.
    """
    if not columns:
        raise InvalidProblemError("columns", "points() needs at least one named column")
    cols = {name: _column(name, value) for name, value in columns.items()}
    first = next(iter(cols))
    n = len(cols[first])
    for name, c in cols.items():
        if len(c) != n:
            raise InvalidProblemError(name, f"has {len(c)} values but {first!r} has {n}")
    if n == 0:
        raise InvalidProblemError(first, "is empty")
    return Points(cols)

"""The result of a sweep: a tidy :class:`Table`, and its files (``.npz``, ``.csv``)."""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import KeysView, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from contactcp.errors import InvalidOptionError, InvalidProblemError

_HEADER_KEY = "__contactcp_table__"
_CSV_MARK = "# contactcp-table "


# --------------------------------------------------------------------------- table


class Table:
    """A tidy table: the point coordinates plus every column the swept function returned.

    ``table["x"]`` is a column (first axis: the point), ``table.columns`` the
    names, ``len(table)`` the number of points, ``table.coords`` the coordinate
    names, ``table.shape`` the grid shape, ``table.meta`` a dict about the run
    (``elapsed`` seconds, ``workers``, ``chunk_size``, ``n_points``, ...).

    Parameters
    ----------
    columns : mapping of str to array_like
        Equal-length columns, in order.
    coords : sequence of str, optional
        Which columns are coordinates.
    shape : tuple of int, optional
        Grid shape (``prod(shape) == len``); ``(len,)`` when omitted.
    meta : dict, optional
    """

    def __init__(
        self,
        columns: Mapping[str, Any],
        *,
        coords: tuple[str, ...] | list[str] = (),
        shape: tuple[int, ...] | None = None,
        meta: dict | None = None,
    ):
        cols = {str(k): np.asarray(v) for k, v in columns.items()}
        if not cols:
            raise InvalidProblemError("columns", "a table needs at least one column")
        first = next(iter(cols))
        n = len(cols[first]) if cols[first].ndim else -1
        for name, c in cols.items():
            if c.ndim == 0 or len(c) != n:
                raise InvalidProblemError(name, f"has shape {c.shape} but {first!r} has {n} rows")
        shape = (n,) if shape is None else tuple(int(s) for s in shape)
        if math.prod(shape) != n:
            raise InvalidProblemError("shape", f"{shape} does not hold {n} rows")
        missing = [c for c in coords if c not in cols]
        if missing:
            raise InvalidProblemError("coords", f"not columns of the table: {missing}")
        self._cols = cols
        self.coords = tuple(coords)
        self.shape = shape
        self.meta = dict(meta or {})

    @property
    def columns(self) -> tuple[str, ...]:
        """Names of all columns, coordinates first."""
        return tuple(self._cols)

    def __getitem__(self, name: str) -> np.ndarray:
        return self._cols[name]

    def __contains__(self, name: object) -> bool:
        return name in self._cols

    def __iter__(self):
        return iter(self._cols)

    def keys(self) -> KeysView[str]:
        """Column names (so ``dict(table)`` works)."""
        return self._cols.keys()

    def __len__(self) -> int:
        return len(next(iter(self._cols.values())))

    def __repr__(self) -> str:
        def label(name):
            c = self._cols[name]
            return name + (f"[{','.join(map(str, c.shape[1:]))}]" if c.ndim > 1 else "")

        rest = [label(c) for c in self._cols if c not in self.coords]
        return f"Table({len(self)} rows, shape {self.shape}; {', '.join(map(label, self.coords))} | {', '.join(rest)})"

    def rename(self, names: Mapping[str, str], drop: tuple[str, ...] = ()) -> Table:
        """Rename columns in place (``{old: new}``, order kept; absent names ignored) and drop ``drop``."""
        self._cols = {names.get(k, k): v for k, v in self._cols.items() if k not in drop}
        self.coords = tuple(names.get(c, c) for c in self.coords)
        return self

    def grid(self, name: str) -> np.ndarray:
        """Column ``name`` reshaped to the grid: shape ``self.shape + column.shape[1:]``."""
        c = self._cols[name]
        return c.reshape(self.shape + c.shape[1:])

    def to_records(self) -> np.ndarray:
        """The table as a numpy structured array (one field per column, one record per point)."""
        dtype = [(name, c.dtype, c.shape[1:]) for name, c in self._cols.items()]
        out = np.empty(len(self), dtype=dtype)
        for name, c in self._cols.items():
            out[name] = c
        return out

    def to_pandas(self) -> Any:
        """The table as a :class:`pandas.DataFrame` (a column ``x`` of width k becomes ``x[0]..x[k-1]``)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "Table.to_pandas() needs pandas, which is not installed "
                "(pip install pandas); Table.to_records() needs only numpy"
            ) from None
        return pd.DataFrame(dict(_flat_columns(self._cols)))

    def save(self, path: str | os.PathLike) -> Path:
        """Write the table to ``.npz`` (any columns) or ``.csv`` (columns of at most 2 dimensions).

        The coordinates, grid shape and meta are kept: :meth:`load` gives back
        an equal table.  A ``.csv`` starts with one ``# contactcp-table {json}``
        comment line, then a header row; a column ``x`` of width k is written
        as ``x[0]..x[k-1]``.
        """
        path = Path(path)
        header = {
            "coords": list(self.coords),
            "shape": list(self.shape),
            "columns": {k: [c.dtype.str, list(c.shape[1:])] for k, c in self._cols.items()},
            "meta": self.meta,
        }
        text = json.dumps(header, default=_json_default)
        suffix = path.suffix.lower()
        if suffix == ".npz":
            if _HEADER_KEY in self._cols:
                raise InvalidOptionError("path", f"a column is named {_HEADER_KEY!r}, which .npz uses")
        elif suffix == ".csv":
            for name, c in self._cols.items():
                if c.ndim > 2:
                    raise InvalidOptionError(
                        "path", f"column {name!r} has shape {c.shape}: .csv holds at most 2-D columns, use .npz"
                    )
        else:
            raise InvalidOptionError("path", f"suffix must be .npz or .csv, got {path.name!r}")
        from contactcp._files import atomic_write

        with atomic_write(path) as tmp:  # an existing file is replaced only by a complete one
            if suffix == ".npz":
                np.savez(tmp, **{_HEADER_KEY: np.array(text)}, **self._cols)
            else:
                flat = _flat_columns(self._cols)
                with open(tmp, "w", newline="", encoding="utf-8") as fh:
                    fh.write(_CSV_MARK + text + "\n")
                    writer = csv.writer(fh)
                    writer.writerow([name for name, _ in flat])
                    writer.writerows(zip(*(c.tolist() for _, c in flat)))
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> Table:
        """Read a table written by :meth:`save` (a plain ``.csv`` with a header row also reads)."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".npz":
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(str(data[_HEADER_KEY])) if _HEADER_KEY in data.files else {}
                names = list(header.get("columns", [f for f in data.files if f != _HEADER_KEY]))
                cols = {name: data[name] for name in names}
        elif suffix == ".csv":
            with open(path, newline="", encoding="utf-8") as fh:
                first = fh.readline()
                if first.startswith(_CSV_MARK):
                    header = json.loads(first[len(_CSV_MARK) :])
                else:
                    header = {}
                    fh.seek(0)
                rows = list(csv.reader(fh))
            if not rows:
                raise InvalidProblemError(str(path), "has no header row")
            text = dict(zip(rows[0], zip(*rows[1:]))) if len(rows) > 1 else {h: () for h in rows[0]}
            kinds = header.get("columns") or {h: [None, []] for h in rows[0]}
            cols = {}
            for name, (dtype, trailing) in kinds.items():
                if trailing:
                    parts = [_parse(text[f"{name}[{j}]"], dtype) for j in range(trailing[0])]
                    cols[name] = np.stack(parts, axis=1) if parts else np.empty((len(rows) - 1, 0))
                else:
                    cols[name] = _parse(text[name], dtype)
        else:
            raise InvalidOptionError("path", f"suffix must be .npz or .csv, got {path.name!r}")
        shape = tuple(header["shape"]) if "shape" in header else None
        return cls(cols, coords=tuple(header.get("coords", ())), shape=shape, meta=header.get("meta", {}))


def _flat_columns(cols: Mapping[str, np.ndarray]) -> list[tuple[str, np.ndarray]]:
    flat = []
    for name, c in cols.items():
        if c.ndim == 1:
            flat.append((name, c))
        else:
            c2 = c.reshape(len(c), -1)
            flat.extend((f"{name}[{j}]", c2[:, j]) for j in range(c2.shape[1]))
    return flat


def _parse(values, dtype: str | None) -> np.ndarray:
    values = list(values)
    if dtype is None:  # a csv written elsewhere: the narrowest type that reads every cell
        for kind in (np.int64, np.float64):
            try:
                return np.array(values).astype(kind)
            except ValueError:
                pass
        return np.array(values, dtype=str)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([v == "True" for v in values], dtype=bool)
    if dt.kind == "c":
        return np.array([complex(v) for v in values], dtype=dt)
    return np.array(values, dtype=str).astype(dt) if values else np.empty(0, dtype=dt)


def _json_default(obj: Any):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)

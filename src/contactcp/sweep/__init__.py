"""Parameter sweeps: one small computation at each point of a grid, in parallel.

Contact-mode maps evaluate a function at every point of a grid over joint-torque
space (200 x 200 = 40,000 small solves).  :func:`sweep` cuts the points into
chunks, runs the chunks in worker processes (or any executor) and puts the
answers back together, in point order, as a :class:`Table`.

>>> import numpy as np
>>> from contactcp.sweep import grid, sweep
>>> def f(tau1, tau2):                      # doctest: +SKIP
...     return {"r": np.hypot(tau1, tau2)}
>>> pts = grid(tau1=np.linspace(-1, 1, 200), tau2=np.linspace(-1, 1, 200))
>>> len(pts), pts.shape
(40000, (200, 200))
>>> table = sweep(f, pts)                   # doctest: +SKIP
>>> table.grid("r").shape                   # doctest: +SKIP
(200, 200)

Per-point cost matters: prefer ``batched=True`` with a function that solves a
whole chunk at once (e.g. with :func:`contactcp.solve_batch`).

Worker processes
----------------
With ``executor=None`` and ``workers != 1``, :func:`sweep` starts a
:class:`~concurrent.futures.ProcessPoolExecutor` with the ``"forkserver"`` start
method (``"spawn"`` where there is none) and shuts it down at the end.  Plain
``fork`` is *not* safe here: numba's parallel kernels run on GNU OpenMP, and a
process forked from a parent that has used them aborts ("fork() called from a
process already using GNU OpenMP").  The fork server imports :mod:`contactcp`
once, so each worker starts with numpy and numba loaded; workers run numba's
parallel kernels on one thread each (the pool is the parallelism).  Starting the
pool costs about 0.5-1.5 s on a 2-core machine, so a pool only pays off when the
work takes longer than that; ``workers=1`` runs everything in the calling
process.

Consequences of ``forkserver``/``spawn``: ``fn`` must be picklable (a top-level
function of an importable module, or a :func:`functools.partial` of one), and a
script that calls :func:`sweep` must guard its entry point with
``if __name__ == "__main__":``.  Functions typed into an interactive session
cannot reach the workers: put them in a module, or use ``workers=1``.  Costly
per-process set-up (a pinocchio model, ...) is best cached in a module-level
global that ``fn`` builds on its first call: each worker then builds it once.
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import operator
import os
import pickle
import queue
import sys
import time
import traceback
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable

import numpy as np

from contactcp.errors import InvalidOptionError, InvalidProblemError, SweepError

__all__ = ["Points", "Table", "SweepError", "grid", "points", "sweep"]

_MAX_CHUNK = 4096
_CHUNKS_PER_WORKER = 8
_HEADER_KEY = "__contactcp_table__"
_CSV_MARK = "# contactcp-table "


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

    def __init__(self, columns: Mapping[str, Any], *, coords: tuple[str, ...] | list[str] = (),
                 shape: tuple[int, ...] | None = None, meta: dict | None = None):
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

    def keys(self):
        """Column names (so ``dict(table)`` works)."""
        return self._cols.keys()

    def __len__(self) -> int:
        return len(next(iter(self._cols.values())))

    def __repr__(self) -> str:
        def label(name):
            c = self._cols[name]
            return name + (f"[{','.join(map(str, c.shape[1:]))}]" if c.ndim > 1 else "")
        rest = [label(c) for c in self._cols if c not in self.coords]
        return (f"Table({len(self)} rows, shape {self.shape}; {', '.join(map(label, self.coords))}"
                f" | {', '.join(rest)})")

    def rename(self, names: Mapping[str, str], drop: tuple[str, ...] = ()) -> "Table":
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

    def to_pandas(self):
        """The table as a :class:`pandas.DataFrame` (a column ``x`` of width k becomes ``x[0]..x[k-1]``)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Table.to_pandas() needs pandas, which is not installed "
                              "(pip install pandas); Table.to_records() needs only numpy") from None
        return pd.DataFrame(dict(_flat_columns(self._cols)))

    def save(self, path: str | os.PathLike) -> Path:
        """Write the table to ``.npz`` (any columns) or ``.csv`` (columns of at most 2 dimensions).

        The coordinates, grid shape and meta are kept: :meth:`load` gives back
        an equal table.  A ``.csv`` starts with one ``# contactcp-table {json}``
        comment line, then a header row; a column ``x`` of width k is written
        as ``x[0]..x[k-1]``.
        """
        path = Path(path)
        header = {"coords": list(self.coords), "shape": list(self.shape),
                  "columns": {k: [c.dtype.str, list(c.shape[1:])] for k, c in self._cols.items()},
                  "meta": self.meta}
        text = json.dumps(header, default=_json_default)
        suffix = path.suffix.lower()
        if suffix == ".npz":
            if _HEADER_KEY in self._cols:
                raise InvalidOptionError("path", f"a column is named {_HEADER_KEY!r}, which .npz uses")
        elif suffix == ".csv":
            for name, c in self._cols.items():
                if c.ndim > 2:
                    raise InvalidOptionError("path", f"column {name!r} has shape {c.shape}: "
                                                     ".csv holds at most 2-D columns, use .npz")
        else:
            raise InvalidOptionError("path", f"suffix must be .npz or .csv, got {path.name!r}")
        from contactcp._files import atomic_write

        with atomic_write(path) as tmp:          # an existing file is replaced only by a complete one
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
    def load(cls, path: str | os.PathLike) -> "Table":
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
                    header = json.loads(first[len(_CSV_MARK):])
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


# --------------------------------------------------------------------------- workers


class _ChunkFailure:
    """What a chunk sends back instead of columns when ``fn`` failed (picklable)."""

    def __init__(self, index: int | None, message: str, exc: BaseException | None, tb: str):
        self.index = index      # position in the chunk, None for the whole chunk
        self.message = message
        self.exc = exc
        self.tb = tb


class _RemoteTraceback(Exception):
    def __init__(self, tb: str):
        self.tb = tb

    def __str__(self) -> str:
        return self.tb


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives a pickle round trip, else a RuntimeError with its text."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _failure(index: int | None, exc: BaseException) -> _ChunkFailure:
    return _ChunkFailure(index, f"{type(exc).__name__}: {exc}", exc,
                         "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))


def _check_columns(out: Any, n: int) -> dict[str, np.ndarray]:
    if not isinstance(out, Mapping):
        raise TypeError(f"fn must return a dict of columns, got {type(out).__name__}")
    cols = {}
    for key, value in out.items():
        if not isinstance(key, str):
            raise TypeError(f"column names must be strings, got {key!r}")
        arr = np.asarray(value)
        if arr.ndim == 0 or arr.shape[0] != n:
            raise ValueError(f"column {key!r} must have one row per point ({n}), got shape {arr.shape}")
        if arr.dtype == object:
            raise TypeError(f"column {key!r} holds Python objects; return numbers, booleans or strings")
        cols[key] = arr
    return cols


def _run_chunk(fn: Callable, cols: dict[str, np.ndarray], batched: bool, portable: bool = True):
    """Run ``fn`` on one chunk; return its columns or a :class:`_ChunkFailure`."""
    n = len(next(iter(cols.values())))
    for c in cols.values():  # read-only in every process, as they are in the caller's
        c.flags.writeable = False
    if batched:
        try:
            return _check_columns(fn(**cols), n)
        except Exception as exc:  # noqa: BLE001 - reported to the caller with the chunk
            fail = _failure(None, exc)
    else:
        fail = None
        names = list(cols)
        lists = [c.tolist() for c in cols.values()]
        rows = []
        try:
            for i, values in enumerate(zip(*lists)):
                row = fn(**dict(zip(names, values)))
                if not isinstance(row, dict):
                    raise TypeError(f"fn must return a dict, got {type(row).__name__}")
                if rows and row.keys() != rows[0].keys():
                    raise ValueError(f"fn returned columns {sorted(row)}, "
                                     f"but {sorted(rows[0])} at the chunk's first point")
                rows.append(row)
        except Exception as exc:  # noqa: BLE001
            fail = _failure(len(rows), exc)
        if fail is None:
            try:
                return _check_columns({k: [r[k] for r in rows] for k in rows[0]}, n)
            except Exception as exc:  # noqa: BLE001 - e.g. ragged 1-D results
                fail = _failure(None, exc)
    if portable:
        fail.exc = _portable(fail.exc)
    return fail


def _init_worker() -> None:
    """Worker start-up: numba's parallel kernels on one thread (the pool is the parallelism).

    Only the active thread count is lowered: changing ``NUMBA_NUM_THREADS`` in a worker that
    inherited numba from the fork server makes numba's next configuration reload (e.g. when a
    kernel is compiled on a cold cache) fail with "Cannot set NUMBA_NUM_THREADS ...".
    """
    numba = sys.modules.get("numba")
    if numba is not None:
        try:
            numba.set_num_threads(1)
        except Exception:  # noqa: BLE001 - an odd numba configuration only costs speed
            pass


def _mp_context():
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        try:  # import contactcp once in the fork server (ignored once it runs)
            from multiprocessing import forkserver
            preload = list(getattr(forkserver._forkserver, "_preload_modules", ["__main__"]))
            if "contactcp" not in preload:
                ctx.set_forkserver_preload(preload + ["contactcp"])
        except Exception:  # noqa: BLE001 - preloading is only an optimisation
            pass
        return ctx
    return multiprocessing.get_context("spawn")


# --------------------------------------------------------------------------- progress


class _Progress:
    """tqdm on a terminal, else a small text bar; one summary line when stderr is not a terminal."""

    def __init__(self, total: int, desc: str, enabled: bool):
        self.total, self.desc, self.done = total, desc, 0
        self.enabled = enabled
        self.tty = enabled and getattr(sys.stderr, "isatty", lambda: False)()
        self.bar = None
        self.t0 = time.perf_counter()
        self.last = 0.0
        if self.tty:
            try:
                from tqdm.auto import tqdm
                self.bar = tqdm(total=total, desc=desc, unit="pt", file=sys.stderr, dynamic_ncols=True)
            except ImportError:
                self._draw()

    def update(self, k: int) -> None:
        self.done += k
        if self.bar is not None:
            self.bar.update(k)
        elif self.tty:
            now = time.perf_counter()
            if now - self.last > 0.1 or self.done >= self.total:
                self.last = now
                self._draw()

    def _draw(self) -> None:
        frac = self.done / self.total if self.total else 1.0
        width = 30
        fill = int(round(frac * width))
        el = time.perf_counter() - self.t0
        sys.stderr.write(f"\r{self.desc}: {frac:4.0%} |{'#' * fill}{' ' * (width - fill)}| "
                         f"{self.done}/{self.total} [{el:.1f} s]")
        sys.stderr.flush()

    def close(self, summary: str, ok: bool) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.tty:
            sys.stderr.write("\n")
        elif self.enabled and ok:
            sys.stderr.write(summary + "\n")
        if self.enabled:
            sys.stderr.flush()


# --------------------------------------------------------------------------- sweep


def _positive_int(name: str, value: Any) -> int | None:
    if value is None:
        return None
    try:
        if isinstance(value, bool):
            raise TypeError
        v = operator.index(value)
    except TypeError:
        raise InvalidOptionError(name, f"must be a positive integer or None, got {value!r}") from None
    if v < 1:
        raise InvalidOptionError(name, f"must be >= 1, got {v}")
    return v


def _fmt_point(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in point.items())


def sweep(fn: Callable[..., Mapping[str, Any]], pts: Points, *, batched: bool = False,
          executor: Any = None, workers: int | None = None, chunk_size: int | None = None,
          progress: bool = True, desc: str | None = None) -> Table:
    """Evaluate ``fn`` at every point of ``pts``, in chunks, in parallel.

    Parameters
    ----------
    fn : callable
        A picklable top-level function.  With ``batched=False`` it is called
        once per point as ``fn(**point)`` (coordinates as Python scalars) and
        returns a dict of scalars or 1-D arrays (the same keys and shapes at
        every point).  With ``batched=True`` it is called once per chunk as
        ``fn(**columns)`` with read-only 1-D arrays and returns a dict of arrays
        whose first axis is the point (length ``len(chunk)``).
    pts : Points
        From :func:`grid` or :func:`points`.
    batched : bool
        Call ``fn`` per chunk rather than per point (much less overhead).
    executor : Executor-like, optional
        Any object whose ``submit(f, *args)`` returns a future with
        ``result()`` (and, ideally, ``add_done_callback``), e.g. a
        :class:`concurrent.futures.Executor` or a dask ``distributed.Client``.
        It is neither created nor shut down here.
    workers : int, optional
        Without ``executor``: ``1`` runs in the calling process, otherwise a
        process pool of ``workers`` (default ``os.cpu_count()``) processes is
        started and shut down.  With ``executor``: only used to size chunks.
    chunk_size : int, optional
        Points per chunk; default ``ceil(len(pts) / (8 * workers))`` bounded to ``[1, 4096]``.
    progress : bool
        Progress bar on stderr when it is a terminal (tqdm if installed); when
        it is not, one summary line at the end.  ``False`` prints nothing.
    desc : str, optional
        Label of the progress bar; default ``fn``'s name.

    Returns
    -------
    Table
        The coordinates then ``fn``'s columns, in point order; ``table.meta``
        records ``elapsed`` (s), ``workers``, ``chunk_size``, ``n_chunks``,
        ``n_points``, ``batched``, ``executor`` and ``start_method``.

    Raises
    ------
    SweepError
        ``fn`` raised or returned something unusable; the message names the
        point (or the chunk, for ``batched=True``) and the original exception
        is chained.  Also when a worker process died.
    InvalidOptionError
        Bad ``workers``, ``chunk_size``, ``fn`` (not callable, or not picklable
        for a process pool).
    InvalidProblemError
        ``pts`` is not a :class:`Points`.
    """
    if not isinstance(pts, Points):
        raise InvalidProblemError("pts", f"must be Points from grid() or points(), got {type(pts).__name__}")
    if not callable(fn):
        raise InvalidOptionError("fn", f"must be callable, got {type(fn).__name__}")
    workers = _positive_int("workers", workers)
    chunk_size = _positive_int("chunk_size", chunk_size)
    n = len(pts)
    if n == 0:  # Points from grid()/points() are never empty; a slice may be
        raise InvalidProblemError("pts", "has no points")

    own_pool = executor is None and workers != 1
    fallback = None
    if own_pool and not _main_reimportable():
        # a script read from stdin: forkserver/spawn workers would try to re-run a file that does
        # not exist and die; compute in this process instead
        own_pool, workers, fallback = False, 1, "in-process (__main__ cannot be re-imported by workers)"
    if executor is None and workers == 1:
        n_workers = 1
    elif workers is not None:
        n_workers = workers
    else:
        n_workers = getattr(executor, "_max_workers", None) or os.cpu_count() or 1
    if chunk_size is None:
        chunk_size = max(1, min(_MAX_CHUNK, math.ceil(n / (_CHUNKS_PER_WORKER * n_workers))))
    bounds = [(a, min(a + chunk_size, n)) for a in range(0, n, chunk_size)]
    name = getattr(fn, "__qualname__", None) or getattr(getattr(fn, "func", None), "__qualname__", None) \
        or type(fn).__name__
    start_method = fallback
    if own_pool:
        _check_picklable(fn)
        ctx = _mp_context()
        start_method = ctx.get_start_method()
        n_workers = min(n_workers, len(bounds))
        executor = ProcessPoolExecutor(max_workers=n_workers, mp_context=ctx, initializer=_init_worker)

    t0 = time.perf_counter()
    bar = _Progress(n, desc or name, bool(progress))
    results: list[Any] = [None] * len(bounds)
    ok = False
    try:
        if executor is None:
            for k, (a, b) in enumerate(bounds):
                res = _run_chunk(fn, pts[a:b]._cols, batched, portable=False)
                if isinstance(res, _ChunkFailure):
                    _raise_failure(res, pts, k, a, b, remote=False)
                results[k] = res
                bar.update(b - a)
        else:
            _run_parallel(executor, fn, pts, bounds, batched, results, bar, cancel_on_error=not own_pool)
        table_cols = _assemble(pts, bounds, results)
        ok = True
    finally:
        if own_pool:
            executor.shutdown(wait=True, cancel_futures=True)
        elapsed = time.perf_counter() - t0
        bar.close(f"{desc or name}: {n} points in {elapsed:.2f} s "
                  f"({n_workers} worker{'s' if n_workers != 1 else ''}, {len(bounds)} chunks of <= {chunk_size})",
                  ok)
    meta = {"elapsed": elapsed, "workers": n_workers, "chunk_size": chunk_size, "n_chunks": len(bounds),
            "n_points": n, "batched": bool(batched), "fn": name,
            "executor": None if (executor is None) else type(executor).__name__,
            "start_method": start_method}
    return Table(table_cols, coords=pts.columns, shape=pts.shape, meta=meta)


def _main_reimportable() -> bool:
    """Whether worker processes started by forkserver/spawn can set up ``__main__`` as this one has it."""
    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None):
        return True
    path = getattr(main, "__file__", None)
    return path is None or os.path.isfile(path)


def _check_picklable(fn: Callable) -> None:
    target = getattr(fn, "func", fn)
    if getattr(target, "__module__", None) == "__main__" and \
            getattr(sys.modules.get("__main__"), "__file__", None) is None:
        raise InvalidOptionError("fn", f"{getattr(target, '__qualname__', target)!r} is defined in an interactive "
                                       "session, which worker processes cannot import: define it in a module, "
                                       "or pass workers=1")
    try:
        pickle.dumps(fn)
    except Exception as exc:  # noqa: BLE001
        raise InvalidOptionError("fn", f"cannot be sent to worker processes ({type(exc).__name__}: {exc}); "
                                       "use a top-level function of a module, or workers=1") from None


def _run_parallel(executor, fn, pts, bounds, batched, results, bar, cancel_on_error: bool) -> None:
    futures = [executor.submit(_run_chunk, fn, pts[a:b]._cols, batched) for a, b in bounds]
    try:
        if all(hasattr(f, "add_done_callback") for f in futures):
            done: queue.SimpleQueue = queue.SimpleQueue()
            for k, f in enumerate(futures):
                f.add_done_callback(lambda _f, k=k: done.put(k))
            order = (done.get() for _ in futures)
        else:
            order = iter(range(len(futures)))
        for k in order:
            a, b = bounds[k]
            try:
                res = futures[k].result()
            except Exception as exc:  # noqa: BLE001 - the executor failed, not fn
                raise SweepError(f"chunk {k} (points {a}..{b - 1}, first {_fmt_point(pts[a])}) failed in the "
                                 f"executor: {type(exc).__name__}: {exc}", point=pts[a], chunk=(a, b)) from exc
            if isinstance(res, _ChunkFailure):
                _raise_failure(res, pts, k, a, b, remote=True)
            results[k] = res
            bar.update(b - a)
    except BaseException:
        if cancel_on_error:
            for f in futures:
                try:
                    f.cancel()
                except Exception:  # noqa: BLE001
                    pass
        raise


def _raise_failure(res: _ChunkFailure, pts: Points, k: int, a: int, b: int, remote: bool):
    cause = res.exc
    if remote and cause is not None and cause.__traceback__ is None:
        cause.__cause__ = _RemoteTraceback(f'\n"""\n{res.tb}"""')
    if res.index is None:
        raise SweepError(f"fn failed on chunk {k} (points {a}..{b - 1}, first {_fmt_point(pts[a])}): "
                         f"{res.message}", point=pts[a], chunk=(a, b)) from cause
    i = a + res.index
    point = pts[i]
    raise SweepError(f"fn failed at point {i} ({_fmt_point(point)}): {res.message}",
                     index=i, point=point, chunk=(a, b)) from cause


def _assemble(pts: Points, bounds, results) -> dict[str, np.ndarray]:
    cols = dict(pts._cols)
    first = results[0]
    for key in first:
        if key in cols:
            raise SweepError(f"fn returned a column {key!r}, which is also a coordinate name")
    for k, res in enumerate(results[1:], start=1):
        if res.keys() != first.keys():
            a, b = bounds[k]
            raise SweepError(f"fn returned columns {sorted(res)} on chunk {k} (points {a}..{b - 1}) "
                             f"but {sorted(first)} on chunk 0", point=pts[a], chunk=(a, b))
    for key in first:
        parts = [res[key] for res in results]
        shapes = {p.shape[1:] for p in parts}
        if len(shapes) > 1:
            raise SweepError(f"column {key!r} changes shape between chunks: {sorted(shapes)}")
        try:
            cols[key] = np.concatenate(parts) if len(parts) > 1 else parts[0]
        except (TypeError, ValueError) as exc:
            raise SweepError(f"column {key!r} has incompatible types between chunks: {exc}") from exc
    return cols


# --------------------------------------------------------------------------- test helpers


def _demo_point(**coords: float) -> dict[str, Any]:
    """Test helper (importable by worker processes): a deterministic per-point function.

    Returns ``s`` = sum, ``p`` = product, ``v`` = the coordinates as a vector and
    ``big`` = ``s > 0``; raises ``ValueError`` at a NaN coordinate.
    """
    values = list(coords.values())
    if any(v != v for v in values):
        raise ValueError("NaN coordinate")
    return {"s": math.fsum(values), "p": math.prod(values), "v": np.array(values, dtype=float),
            "big": math.fsum(values) > 0}


def _demo_batch(**columns: np.ndarray) -> dict[str, np.ndarray]:
    """Test helper: :func:`_demo_point` on whole chunks (for ``batched=True``)."""
    vals = np.stack([np.asarray(c, dtype=float) for c in columns.values()], axis=1)
    if np.isnan(vals).any():
        raise ValueError("NaN coordinate")
    s = np.array([math.fsum(row) for row in vals.tolist()])
    return {"s": s, "p": np.prod(vals, axis=1), "v": vals, "big": s > 0}

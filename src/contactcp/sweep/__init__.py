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

import math
import operator
import os
import pickle
import queue
import sys
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from contactcp.errors import InvalidOptionError, InvalidProblemError, SweepError
from contactcp.sweep.points import Points, grid, points
from contactcp.sweep.progress import _Progress
from contactcp.sweep.table import Table
from contactcp.sweep.workers import _ChunkFailure, _init_worker, _mp_context, _RemoteTraceback, _run_chunk

__all__ = ["Points", "Table", "SweepError", "grid", "points", "sweep"]


_MAX_CHUNK = 4096
_CHUNKS_PER_WORKER = 8


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


def sweep(
    fn: Callable[..., Mapping[str, Any]],
    pts: Points,
    *,
    batched: bool = False,
    executor: Any = None,
    workers: int | None = None,
    chunk_size: int | None = None,
    progress: bool = True,
    desc: str | None = None,
) -> Table:
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
    name = (
        getattr(fn, "__qualname__", None)
        or getattr(getattr(fn, "func", None), "__qualname__", None)
        or type(fn).__name__
    )
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
        bar.close(
            f"{desc or name}: {n} points in {elapsed:.2f} s "
            f"({n_workers} worker{'s' if n_workers != 1 else ''}, {len(bounds)} chunks of <= {chunk_size})",
            ok,
        )
    meta = {
        "elapsed": elapsed,
        "workers": n_workers,
        "chunk_size": chunk_size,
        "n_chunks": len(bounds),
        "n_points": n,
        "batched": bool(batched),
        "fn": name,
        "executor": None if (executor is None) else type(executor).__name__,
        "start_method": start_method,
    }
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
    if (
        getattr(target, "__module__", None) == "__main__"
        and getattr(sys.modules.get("__main__"), "__file__", None) is None
    ):
        raise InvalidOptionError(
            "fn",
            f"{getattr(target, '__qualname__', target)!r} is defined in an interactive "
            "session, which worker processes cannot import: define it in a module, "
            "or pass workers=1",
        )
    try:
        pickle.dumps(fn)
    except Exception as exc:  # noqa: BLE001
        raise InvalidOptionError(
            "fn",
            f"cannot be sent to worker processes ({type(exc).__name__}: {exc}); "
            "use a top-level function of a module, or workers=1",
        ) from None


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
                raise SweepError(
                    f"chunk {k} (points {a}..{b - 1}, first {_fmt_point(pts[a])}) failed in the "
                    f"executor: {type(exc).__name__}: {exc}",
                    point=pts[a],
                    chunk=(a, b),
                ) from exc
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
        raise SweepError(
            f"fn failed on chunk {k} (points {a}..{b - 1}, first {_fmt_point(pts[a])}): {res.message}",
            point=pts[a],
            chunk=(a, b),
        ) from cause
    i = a + res.index
    point = pts[i]
    raise SweepError(
        f"fn failed at point {i} ({_fmt_point(point)}): {res.message}", index=i, point=point, chunk=(a, b)
    ) from cause


def _assemble(pts: Points, bounds, results) -> dict[str, np.ndarray]:
    cols = dict(pts._cols)
    first = results[0]
    for key in first:
        if key in cols:
            raise SweepError(f"fn returned a column {key!r}, which is also a coordinate name")
    for k, res in enumerate(results[1:], start=1):
        if res.keys() != first.keys():
            a, b = bounds[k]
            raise SweepError(
                f"fn returned columns {sorted(res)} on chunk {k} (points {a}..{b - 1}) but {sorted(first)} on chunk 0",
                point=pts[a],
                chunk=(a, b),
            )
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

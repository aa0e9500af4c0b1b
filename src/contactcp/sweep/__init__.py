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

Where the chunks run
--------------------
With ``executor=None`` and ``workers != 1`` the first chunk runs in the calling process, and the
rest in worker processes only when its time (or the second chunk's, past set-up) says they save
more than their start (:func:`contactcp.sweep.executors.local_plan`); ``scheduler=`` runs them on
Dask, ``store=`` streams them into a resumable folder (:mod:`contactcp.sweep.store`).  Worker
processes use the ``"forkserver"`` start method (``"spawn"`` where there is none).  Plain ``fork``
is *not* safe here: numba's parallel kernels run on GNU OpenMP, and a process forked from a parent
that has used them aborts ("fork() called from a process already using GNU OpenMP").  The fork
server imports :mod:`contactcp` once, so each worker starts with numpy and numba loaded; workers
run numba's parallel kernels on one thread each (the pool is the parallelism).

Worker processes need ``fn`` picklable (a top-level function of an importable module, or a
:func:`functools.partial` of one).  A script that calls :func:`sweep` at its top level without an
``if __name__ == "__main__":`` guard gets threads instead (workers would run the script again), and
a function typed into an interactive session is refused by a process pool: put it in a module, or
use ``workers=1``.  Costly per-process set-up (a pinocchio model, ...) is best cached in a
module-level global that ``fn`` builds on its first call: each worker then builds it once.
"""

from __future__ import annotations

import operator
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from contactcp.errors import InvalidOptionError, InvalidProblemError, SweepError, SweepInterrupted
from contactcp.sweep.executors import dask_client
from contactcp.sweep.points import Points, grid, points
from contactcp.sweep.progress import _Progress
from contactcp.sweep.run import _Run
from contactcp.sweep.store import load
from contactcp.sweep.table import Table

__all__ = ["Points", "Table", "SweepError", "SweepInterrupted", "grid", "points", "sweep", "load"]


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
    store: str | os.PathLike | None = None,
    resume: bool = False,
    scheduler: Any = None,
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
    executor : Executor-like or str, optional
        Any object whose ``submit(f, *args)`` returns a future with
        ``result()`` (and, ideally, ``add_done_callback``), e.g. a
        :class:`concurrent.futures.Executor` or a dask ``distributed.Client``;
        it is neither created nor shut down here.  Or ``"serial"``, ``"threads"``,
        ``"processes"``: that local plan, without measuring the first chunk.
    workers : int, optional
        Without ``executor``: ``1`` runs in the calling process; otherwise (default
        ``os.cpu_count()``) the first chunk runs in the calling process and the rest
        in ``workers`` worker processes only if the first chunk's time says they pay
        for their start (:func:`contactcp.sweep.executors.local_plan`; threads
        instead of processes when the calling script has no main guard).  With
        ``executor`` or ``scheduler``: only used to size chunks (and the local cluster).
    chunk_size : int, optional
        Points per chunk; default ``ceil(len(pts) / (8 * workers))`` bounded to ``[1, 4096]``.
    progress : bool
        Progress bar on stderr when it is a terminal (tqdm if installed); when
        it is not, one summary line at the end.  ``False`` prints nothing.
    desc : str, optional
        Label of the progress bar; default ``fn``'s name.
    store : path, optional
        A folder receiving each chunk's rows as it finishes (:mod:`contactcp.sweep.store`:
        Parquet, readable by pandas without contactcp); :func:`load` reads it back.
    resume : bool
        With ``store``: complete the sweep already in that folder, computing only the
        chunks it does not hold (the points must be the same).
    scheduler : str or distributed.Client, optional
        Run the chunks on Dask: a scheduler address ``"tcp://HOST:PORT"``, a ``Client``,
        or ``"local"`` (a ``LocalCluster`` of ``workers`` processes on the loopback
        interface, started and shut down here).

    Returns
    -------
    Table
        The coordinates then ``fn``'s columns, in point order; ``table.meta``
        records ``elapsed`` (s), ``workers``, ``chunk_size``, ``n_chunks``,
        ``n_points``, ``batched``, ``executor``, ``start_method``, ``plan``
        and, with a store, ``store`` and ``resumed_chunks``.

    Raises
    ------
    SweepError
        ``fn`` raised or returned something unusable; the message names the
        point (or the chunk, for ``batched=True``) and the original exception
        is chained.  Also when a worker process died.
    SweepInterrupted
        Ctrl-C (a :class:`KeyboardInterrupt`) during a sweep with a store: every
        finished chunk is kept, and the message says how to resume.
    InvalidOptionError
        Bad ``workers``, ``chunk_size``, ``fn`` (not callable, or not picklable
        for a process pool), ``store``, ``scheduler``.
    InvalidProblemError
        ``pts`` is not a :class:`Points`.
    """
    if not isinstance(pts, Points):
        raise InvalidProblemError("pts", f"must be Points from grid() or points(), got {type(pts).__name__}")
    if not callable(fn):
        raise InvalidOptionError("fn", f"must be callable, got {type(fn).__name__}")
    workers = _positive_int("workers", workers)
    chunk_size = _positive_int("chunk_size", chunk_size)
    if resume and store is None:
        raise InvalidOptionError("resume", "needs a store (the folder of the sweep to complete)")
    if scheduler is not None and executor is not None:
        raise InvalidOptionError("scheduler", "give either executor or scheduler, not both")
    n = len(pts)
    if n == 0:  # Points from grid()/points() are never empty; a slice may be
        raise InvalidProblemError("pts", "has no points")
    name = (
        getattr(fn, "__qualname__", None)
        or getattr(getattr(fn, "func", None), "__qualname__", None)
        or type(fn).__name__
    )
    client, own_client = (None, False) if scheduler is None else dask_client(scheduler, workers)
    run = _Run(fn, pts, batched, executor if client is None else client, workers, chunk_size, name)
    run.open_store(store, resume)
    t0 = time.perf_counter()
    bar = _Progress(n, desc or name, bool(progress))
    bar.update(run.points_done())
    ok = False
    try:
        run.execute(bar)
        table_cols = _assemble(pts, run.bounds, run.all_results())
        ok = True
    except KeyboardInterrupt:
        if run.store is None:
            raise
        kept = len(run.store.done())
        raise SweepInterrupted(
            f"kept {kept} of {len(run.bounds)} chunks in {str(run.store.path)!r}; "
            "run the same sweep with resume=True (CLI: --resume) to complete it"
        ) from None
    finally:
        if own_client:
            run.close_client()
        elapsed = time.perf_counter() - t0
        bar.close(
            f"{desc or name}: {n} points in {elapsed:.2f} s "
            f"({run.n_workers} worker{'s' if run.n_workers != 1 else ''}, {len(run.bounds)} chunks of "
            f"<= {run.chunk_size}, {run.plan})",
            ok,
        )
    meta = {
        "elapsed": elapsed,
        "workers": run.n_workers,
        "chunk_size": run.chunk_size,
        "n_chunks": len(run.bounds),
        "n_points": n,
        "batched": bool(batched),
        "fn": name,
        "executor": run.executor_name,
        "start_method": run.start_method,
        "plan": run.plan,
    }
    if run.store is not None:
        meta.update(store=str(run.store.path), resumed_chunks=len(run.resumed))
    return Table(table_cols, coords=pts.columns, shape=pts.shape, meta=meta)


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

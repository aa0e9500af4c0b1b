"""One sweep's execution: its chunks, where they run, the store they stream into.

:class:`_Run` holds the chunk bounds, the results as they arrive (written to the store, if any, at
once), and the plan: ``"executor"`` (the caller's), ``"dask"`` (a Dask client), ``"serial"``, or the
local choice made after timing the first chunk (:func:`contactcp.sweep.executors.local_plan`):
``"processes"`` or ``"threads"``.
"""

from __future__ import annotations

import math
import os
import pickle
import queue
import sys
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from contactcp.errors import InvalidOptionError, SweepError
from contactcp.sweep.executors import is_dask_client, local_plan, main_guarded
from contactcp.sweep.points import Points
from contactcp.sweep.store import ChunkStore
from contactcp.sweep.workers import _ChunkFailure, _init_worker, _mp_context, _RemoteTraceback, _run_chunk

_MAX_CHUNK = 4096
_CHUNKS_PER_WORKER = 8


def _fmt_point(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in point.items())


#: ``executor=`` names that force a local plan instead of measuring the first chunk
PLANS = ("serial", "threads", "processes")


class _Run:
    def __init__(self, fn, pts: Points, batched: bool, executor, workers, chunk_size, name: str):
        self.forced = None
        if isinstance(executor, str):
            if executor not in PLANS:
                raise InvalidOptionError("executor", f"must be one of {PLANS} or an executor, got {executor!r}")
            self.forced, executor = executor, None
            workers = 1 if self.forced == "serial" else workers
        self.fn, self.pts, self.batched, self.executor, self.name = fn, pts, batched, executor, name
        n = len(pts)
        if executor is None and workers == 1:
            self.n_workers = 1
        elif workers is not None:
            self.n_workers = workers
        elif is_dask_client(executor):
            self.n_workers = max(1, sum(executor.nthreads().values()))
        else:
            self.n_workers = getattr(executor, "_max_workers", None) or os.cpu_count() or 1
        self.chunk_size = chunk_size or max(1, min(_MAX_CHUNK, math.ceil(n / (_CHUNKS_PER_WORKER * self.n_workers))))
        self.bounds = [(a, min(a + self.chunk_size, n)) for a in range(0, n, self.chunk_size)]
        self.results: list[Any] = [None] * len(self.bounds)
        self.store: ChunkStore | None = None
        self.resumed: set[int] = set()
        self.start_method: str | None = None
        self.plan = "dask" if is_dask_client(executor) else "executor" if executor is not None else "serial"
        self.executor_name = None if executor is None else type(executor).__name__
        self._bar = None

    # ------------------------------------------------------------------ store
    def open_store(self, store, resume: bool) -> None:
        if store is None:
            return
        self.store = ChunkStore.open(store, self.pts, self.bounds, self.name, resume)
        self.bounds = [tuple(b) for b in self.store.manifest["bounds"]]
        self.chunk_size = max(b - a for a, b in self.bounds)
        self.results = [None] * len(self.bounds)
        self.resumed = self.store.done() if resume else set()

    def points_done(self) -> int:
        return sum(self.bounds[k][1] - self.bounds[k][0] for k in self.resumed)

    def all_results(self) -> list[dict]:
        coords = set(self.pts.columns)
        for k in self.resumed:
            self.results[k] = {c: v for c, v in self.store.read_part(k).items() if c not in coords}
        return self.results

    def close_client(self) -> None:
        cluster = getattr(self.executor, "cluster", None)
        self.executor.close()
        if cluster is not None:
            cluster.close()

    # ------------------------------------------------------------------ running
    def _deliver(self, k: int, res: dict) -> None:
        self.results[k] = res
        if self.store is not None:
            a, b = self.bounds[k]
            self.store.write(k, {**self.pts[a:b]._cols, **res})
        self._bar.update(self.bounds[k][1] - self.bounds[k][0])

    def _serial(self, todo: list[int]) -> None:
        for k in todo:
            a, b = self.bounds[k]
            res = _run_chunk(self.fn, self.pts[a:b]._cols, self.batched, portable=False)
            if isinstance(res, _ChunkFailure):
                _raise_failure(res, self.pts, k, a, b, remote=False)
            self._deliver(k, res)

    def execute(self, bar) -> None:
        self._bar = bar
        todo = [k for k in range(len(self.bounds)) if k not in self.resumed]
        if not todo:
            return
        if self.executor is not None:
            self._parallel(self.executor, todo, cancel_on_error=True)
            return
        if self.n_workers == 1:
            self._serial(todo)
            return
        if self.forced is not None:
            self.plan, rest = self.forced, todo
        else:
            guarded = main_guarded()
            t0 = time.perf_counter()
            self._serial(todo[:1])
            first = time.perf_counter() - t0
            # an obvious win (even if the first chunk's time is mostly set-up) starts workers at once;
            # otherwise the second chunk, past the set-up (kernels, cached models), decides
            self.plan = local_plan(first, len(todo) - 1, self.n_workers, guarded, margin=3.0)
            rest = todo[1:]
            if self.plan == "serial" and rest:
                t0 = time.perf_counter()
                self._serial(rest[:1])
                self.plan = local_plan(time.perf_counter() - t0, len(rest) - 1, self.n_workers, guarded)
                rest = rest[1:]
        if self.plan == "serial":
            self._serial(rest)
            return
        n = min(self.n_workers, len(rest))
        if self.plan == "threads":
            pool = ThreadPoolExecutor(max_workers=n)
        else:
            _check_picklable(self.fn)
            ctx = _mp_context()
            self.start_method = ctx.get_start_method()
            pool = ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker)
        self.executor_name = type(pool).__name__
        try:
            self._parallel(pool, rest, cancel_on_error=False)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _submit(self, executor, k: int):
        a, b = self.bounds[k]
        cols = self.pts[a:b]._cols
        if is_dask_client(executor):
            return executor.submit(_run_chunk, self.fn, cols, self.batched, pure=False)
        return executor.submit(_run_chunk, self.fn, cols, self.batched)

    def _parallel(self, executor, todo: list[int], cancel_on_error: bool) -> None:
        futures = {k: self._submit(executor, k) for k in todo}
        try:
            if all(hasattr(f, "add_done_callback") for f in futures.values()):
                done: queue.SimpleQueue = queue.SimpleQueue()
                for k, f in futures.items():
                    f.add_done_callback(lambda _f, k=k: done.put(k))
                order = (done.get() for _ in futures)
            else:
                order = iter(todo)
            for k in order:
                a, b = self.bounds[k]
                try:
                    res = futures[k].result()
                except Exception as exc:  # noqa: BLE001 - the executor failed, not fn
                    raise SweepError(
                        f"chunk {k} (points {a}..{b - 1}, first {_fmt_point(self.pts[a])}) failed in the "
                        f"executor: {type(exc).__name__}: {exc}",
                        point=self.pts[a],
                        chunk=(a, b),
                    ) from exc
                if isinstance(res, _ChunkFailure):
                    _raise_failure(res, self.pts, k, a, b, remote=True)
                self._deliver(k, res)
        except BaseException:
            if cancel_on_error:
                for f in futures.values():
                    try:
                        f.cancel()
                    except Exception:  # noqa: BLE001
                        pass
            raise


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

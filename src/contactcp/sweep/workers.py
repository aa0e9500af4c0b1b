"""Running chunks of a sweep: in this process or in worker processes, failures brought back intact."""

from __future__ import annotations

import multiprocessing
import pickle
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

# --------------------------------------------------------------------------- workers


class _ChunkFailure:
    """What a chunk sends back instead of columns when ``fn`` failed (picklable)."""

    def __init__(self, index: int | None, message: str, exc: BaseException | None, tb: str):
        self.index = index  # position in the chunk, None for the whole chunk
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


def interrupted(exc: BaseException | None) -> bool:
    """Whether a Ctrl-C is behind ``exc``: a KeyboardInterrupt, or one that arrived inside compiled
    code and came back wrapped (numba: "SystemError: ... returned a result with an exception set")."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _failure(index: int | None, exc: BaseException) -> _ChunkFailure:
    if interrupted(exc):  # not a failure of fn: the user pressed Ctrl-C
        raise KeyboardInterrupt from exc
    return _ChunkFailure(
        index,
        f"{type(exc).__name__}: {exc}",
        exc,
        "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    )


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
            for _i, values in enumerate(zip(*lists)):
                row = fn(**dict(zip(names, values)))
                if not isinstance(row, dict):
                    raise TypeError(f"fn must return a dict, got {type(row).__name__}")
                if rows and row.keys() != rows[0].keys():
                    raise ValueError(
                        f"fn returned columns {sorted(row)}, but {sorted(rows[0])} at the chunk's first point"
                    )
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

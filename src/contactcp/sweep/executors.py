"""Where a sweep's chunks run: this process, threads, worker processes, or a Dask cluster.

* :func:`dask_client` — a ``distributed.Client`` from a scheduler address (``"tcp://HOST:PORT"``),
  an existing client, or ``"local"`` (a ``LocalCluster`` on the loopback interface, one thread per
  worker process — worker threads in a script without a main guard — shut down with the client);
* :func:`unguarded_main` — whether the sweep is being called from the top level of a script that
  has no ``if __name__ == "__main__":`` guard around the call; worker processes started by
  ``forkserver``/``spawn`` would run such a script again, so the local choice avoids them there;
* :func:`local_plan` — the local executor, chosen by measured cost: the first chunk runs in this
  process; if its time makes workers an obvious win they start at once, else the second chunk (past
  the set-up the first one paid for: compiled kernels, cached models) is timed too, and the rest runs
  here unless its estimated time pays for starting workers.
"""

from __future__ import annotations

import ast
import os
import sys
from typing import Any

from contactcp.errors import InvalidOptionError

__all__ = ["dask_client", "is_dask_client", "unguarded_main", "main_guarded", "local_plan", "POOL_START_COST"]

#: seconds to start a pool of worker processes and bring contactcp into them, counted generously
#: (benchmarks/sweep.py measures two workers' start to their first answers: see
#: benchmarks/results/sweep.md; a pool must save more than this to be chosen)
POOL_START_COST = 1.0


def is_dask_client(obj: Any) -> bool:
    return type(obj).__name__ == "Client" and type(obj).__module__.startswith("distributed")


def dask_client(scheduler: Any, workers: int | None) -> tuple[Any, bool]:
    """``(client, owned)``: a Dask client for ``scheduler`` (see the module docstring); ``owned``
    says the caller must close it (and its local cluster)."""
    if is_dask_client(scheduler):
        return scheduler, False
    if not isinstance(scheduler, str) or not scheduler:
        raise InvalidOptionError(
            "scheduler", f'must be "tcp://HOST:PORT", "local" or a distributed.Client, got {scheduler!r}'
        )
    try:
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - a dependency
        raise InvalidOptionError("scheduler", "needs dask.distributed (pip install 'dask[distributed]')") from None
    if scheduler == "local":  # worker processes only where they cannot re-run an unguarded script
        processes = main_guarded()
        where = {"host": "127.0.0.1"} if processes else {}  # threads talk in-process
        cluster = LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=processes,
            dashboard_address=None,
            **where,
        )
        client = Client(cluster, set_as_default=False)
        return client, True
    try:
        return Client(scheduler, timeout=10, set_as_default=False), True
    except OSError as exc:
        raise InvalidOptionError("scheduler", f"cannot reach the Dask scheduler at {scheduler!r} ({exc})") from None


def unguarded_main() -> bool:
    """True when the call stack reaches the top level of the ``__main__`` script at a line that is
    not inside an ``if __name__ == "__main__":`` block."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None or not os.path.isfile(path):
        return False
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals is main.__dict__:
            break
        frame = frame.f_back
    if frame is None:
        return False
    line = frame.f_lineno
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return False
    for node in tree.body:
        if isinstance(node, ast.If) and _is_main_test(node.test) and node.lineno <= line <= (node.end_lineno or line):
            return False
    return True


def main_reimportable() -> bool:
    """Whether worker processes started by forkserver/spawn can set up ``__main__`` as this one has it."""
    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None):
        return True
    path = getattr(main, "__file__", None)
    return path is None or os.path.isfile(path)


def main_guarded() -> bool:
    """Whether worker processes may be started: ``__main__`` can be re-imported by them and the sweep
    is not called from the unguarded top level of the script."""
    return main_reimportable() and not unguarded_main()


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    consts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(consts) == 1


def local_plan(chunk_seconds: float, chunks_left: int, workers: int, guarded: bool, margin: float = 1.0) -> str:
    """``"serial"``, ``"processes"`` or ``"threads"`` for the chunks left, from one chunk's time:
    workers only when the work left, shared among them, saves more than ``margin`` times what
    starting them costs (:data:`POOL_START_COST`)."""
    if workers <= 1 or chunks_left == 0:
        return "serial"
    left = chunk_seconds * chunks_left
    saved = left - left / min(workers, chunks_left)
    if saved <= margin * POOL_START_COST:
        return "serial"
    return "processes" if guarded else "threads"

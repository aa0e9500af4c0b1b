"""A folder of FCLIB files solved through the sweep layer: one row per file, resumable, on Dask.

:func:`solve_collection` sweeps the files of a folder (``*.hdf5``, ``*.h5``, in name order) with
:func:`contactcp.sweep.sweep`: worker processes or a Dask cluster, a progress bar, and with
``store=DIR`` a Parquet store that ``resume=True`` completes after an interruption.  Each file is read
and its local problem (or its global one, if it has no local one; ``form`` chooses) is solved by
the default chain or ``method``.  A file that cannot be read gets status ``BAD_INPUT`` and its error
in ``message``; it does not stop the sweep.
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from typing import Any

from contactcp.errors import ContactCPError, InvalidOptionError, InvalidProblemError

__all__ = ["solve_collection", "collection_files", "COLLECTION_COLUMNS"]

#: the columns of :func:`solve_collection` besides ``file``
COLLECTION_COLUMNS = ("form", "n_c", "status", "success", "residual", "iterations", "method", "time", "message")


def collection_files(folder: str | os.PathLike) -> list[str]:
    """The FCLIB files of ``folder`` (``*.hdf5``, ``*.h5``), in name order."""
    path = Path(folder)
    if not path.is_dir():
        raise InvalidProblemError("folder", f"{str(path)!r} is not a folder")
    files = sorted(str(p) for p in path.iterdir() if p.suffix.lower() in (".hdf5", ".h5") and p.is_file())
    if not files:
        raise InvalidProblemError("folder", f"{str(path)!r} holds no .hdf5 or .h5 file")
    return files


def _solve_file(form: str, method: str | None, tol: float, file: str) -> dict[str, Any]:
    from contactcp.io.fclib import read_fclib
    from contactcp.solvers.registry import solve

    row = {"form": "", "n_c": -1, "status": "BAD_INPUT", "success": False, "residual": float("nan")}
    row.update(iterations=-1, method="", time=float("nan"), message="")
    try:
        data = read_fclib(file)
        chosen = form if form != "auto" else ("local" if data.local is not None else "global")
        fclib = data.local if chosen == "local" else data.global_
        if fclib is None:
            raise InvalidProblemError("form", f"the file has no {chosen} problem")
        problem = fclib.to_problem()
    except (ContactCPError, OSError) as exc:
        row["message"] = str(exc)
        return row
    t0 = time.perf_counter()
    res = solve(problem, method, tol=tol)
    row.update(
        form=chosen,
        n_c=int(problem.n_c),
        status=res.status.name,
        success=bool(res.success),
        residual=float("nan") if res.residual is None else float(res.residual.value),
        iterations=int(res.iterations or 0),
        method=str(res.method),
        time=time.perf_counter() - t0,
        message=str(res.message)[:200],
    )
    return row


def solve_collection(
    folder: str | os.PathLike,
    *,
    form: str = "auto",
    method: str | None = None,
    tol: float = 1e-8,
    **sweep_options: Any,
):
    """Every FCLIB file of ``folder`` solved (one row per file: :data:`COLLECTION_COLUMNS`);
    ``sweep_options`` go to :func:`contactcp.sweep.sweep` (``workers``, ``store``, ``resume``,
    ``scheduler``, ``progress``)."""
    from contactcp.sweep import points, sweep

    if form not in ("auto", "local", "global"):
        raise InvalidOptionError("form", f"must be 'auto', 'local' or 'global', got {form!r}")
    files = collection_files(folder)
    sweep_options.setdefault("desc", f"FCLIB {Path(folder).name}")
    sweep_options.setdefault("chunk_size", 1)  # one file per chunk: a store keeps every finished file
    return sweep(functools.partial(_solve_file, form, method, float(tol)), points(file=files), **sweep_options)

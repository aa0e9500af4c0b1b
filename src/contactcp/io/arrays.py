"""Problems read from and written to array files (``.npz`` and ``.json``).

The readers and the atomic writer are those of :mod:`contactcp._files`: a bad file is refused
with :class:`~contactcp.errors.InvalidProblemError` naming it, and a failed write leaves an
existing file as it was.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from contactcp._files import atomic_write, check_file, read_json_object, read_npz
from contactcp.errors import InvalidProblemError
from contactcp.problems import LCP

__all__ = ["load_arrays", "load_lcp", "save_lcp"]


def load_arrays(path: str | Path, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """The named arrays of a ``.npz`` or ``.json`` file; missing required keys raise."""
    path = Path(path)
    field = str(path)
    check_file(path, field)
    suffix = path.suffix.lower()
    if suffix not in (".npz", ".json"):
        raise InvalidProblemError(field, f"unknown file type {suffix!r}; use .npz or .json")
    try:
        if suffix == ".npz":
            found = read_npz(path, field, keys + optional)
        else:
            found = read_json_object(path, field)
    except InvalidProblemError:
        raise
    except MemoryError:
        raise InvalidProblemError(field, "does not fit in memory") from None
    except Exception as exc:  # noqa: BLE001 - any failure to parse the file is a bad file (zip, zlib, numpy)
        raise InvalidProblemError(field, f"cannot be read ({type(exc).__name__}: {exc})") from None
    missing = [k for k in keys if k not in found]
    if missing:
        raise InvalidProblemError(
            field, f"missing {', '.join(repr(k) for k in missing)} (expected keys: {', '.join(keys + optional)})"
        )
    return {k: found[k] for k in keys + optional if k in found}


def load_lcp(path: str | Path) -> LCP:
    """An :class:`LCP` from a file holding ``M`` and ``q``."""
    data = load_arrays(path, ("M", "q"))
    try:
        return LCP(data["M"], data["q"])
    except InvalidProblemError as exc:
        raise InvalidProblemError(exc.field, f"{exc.problem} (in {path})") from None


def save_lcp(path: str | Path, problem: LCP) -> None:
    """Write ``M`` and ``q`` to ``.npz`` or ``.json`` (atomically)."""
    path = Path(path)
    if path.suffix.lower() != ".json" and path.suffix.lower() != ".npz":
        path = path.with_name(path.name + ".npz")  # as numpy.savez does
    with atomic_write(path) as tmp:
        if path.suffix.lower() == ".json":
            tmp.write_text(json.dumps({"M": problem.M.tolist(), "q": problem.q.tolist()}))
        else:
            np.savez(tmp, M=problem.M, q=problem.q)

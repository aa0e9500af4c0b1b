"""Reading problems from files (``.npz`` and ``.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InvalidProblemError
from .problems import LCP

__all__ = ["load_arrays", "load_lcp", "save_lcp"]


def load_arrays(path: str | Path, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """The named arrays of a ``.npz`` or ``.json`` file; missing required keys raise."""
    path = Path(path)
    field = str(path)
    if not path.exists():
        raise InvalidProblemError(field, "no such file")
    suffix = path.suffix.lower()
    try:
        if suffix == ".npz":
            with np.load(path, allow_pickle=False) as data:
                found = {k: data[k] for k in data.files}
        elif suffix == ".json":
            found = json.loads(path.read_text())
            if not isinstance(found, dict):
                raise InvalidProblemError(field, "must hold a JSON object")
        else:
            raise InvalidProblemError(field, f"unknown file type {suffix!r}; use .npz or .json")
    except (OSError, ValueError) as exc:
        if isinstance(exc, InvalidProblemError):
            raise
        raise InvalidProblemError(field, f"cannot be read ({type(exc).__name__}: {exc})") from None
    missing = [k for k in keys if k not in found]
    if missing:
        raise InvalidProblemError(field, f"missing {', '.join(repr(k) for k in missing)} "
                                         f"(expected keys: {', '.join(keys + optional)})")
    return {k: found[k] for k in keys + optional if k in found}


def load_lcp(path: str | Path) -> LCP:
    """An :class:`LCP` from a file holding ``M`` and ``q``."""
    data = load_arrays(path, ("M", "q"))
    return LCP(data["M"], data["q"])


def save_lcp(path: str | Path, problem: LCP) -> None:
    """Write ``M`` and ``q`` to ``.npz`` or ``.json``."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        path.write_text(json.dumps({"M": problem.M.tolist(), "q": problem.q.tolist()}))
    else:
        np.savez(path, M=problem.M, q=problem.q)

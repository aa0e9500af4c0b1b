"""What the CLI prints and writes: strict JSON, one-line messages, checked output paths."""

from __future__ import annotations

import argparse
import json
import math
import os

__all__ = [
    "Parser",
    "UsageError",
    "finite_float",
    "one_line",
    "finite",
    "print_json",
    "output_path",
    "check_map_size",
    "PICTURE_SUFFIXES",
]


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        raise UsageError(f"{self.prog}: {message}")


class UsageError(Exception):
    pass


def finite_float(text: str) -> float:
    """An argparse type: a finite number (``inf`` and ``nan`` are refused, one line, exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def one_line(text: str) -> str:
    """``text`` on one line (messages of other libraries may hold newlines)."""
    return " ".join(str(text).split())


def finite(obj):
    """``obj`` with every non-finite float (NaN, inf) replaced by None, numpy scalars as Python ones."""
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):  # numpy arrays and scalars
        return finite(obj.tolist())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def print_json(obj) -> None:
    """One strict JSON object (no NaN/Infinity tokens, which JSON does not have) on stdout."""
    print(json.dumps(finite(obj), allow_nan=False))


#: bytes per state of a mode map (its table, the chunks' results and the grid), an upper estimate
_MAP_BYTES_PER_STATE = 512


def check_map_size(resolution: int, option: str) -> None:
    """Refuse a mode map whose resolution^2 states cannot fit in memory, before allocating the grid."""
    from contactcp._validate import check_memory

    check_memory(
        float(resolution) ** 2 * _MAP_BYTES_PER_STATE,
        option,
        f"a {resolution} x {resolution} mode map ({resolution**2:.3g} states)",
    )


def output_path(path: str | None, option: str, suffixes: tuple[str, ...]) -> None:
    """Check an output file's suffix and folder before any work is done."""
    from pathlib import Path

    from contactcp.errors import InvalidProblemError

    if path is None:
        return
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise InvalidProblemError(option, f"must end in {', '.join(suffixes)}, got {path!r}")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise InvalidProblemError(option, f"folder {str(folder)!r} does not exist")
    if p.is_dir():
        raise InvalidProblemError(option, f"{path!r} is a folder, not a file")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidProblemError(option, f"folder {str(folder)!r} is not writable")


PICTURE_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg")

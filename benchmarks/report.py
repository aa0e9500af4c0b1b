"""What every benchmark report starts with, and how it is written: one place for the machine's
description, its load, the command, and the atomic write of the Markdown file."""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
import tempfile
from pathlib import Path


def cpu_name() -> str:
    """The processor's model name (``/proc/cpuinfo``), or the machine type."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def loadavg() -> str:
    """The load average over 1, 5 and 15 minutes, as text."""
    try:
        return "(" + ", ".join(f"{v:.2f}" for v in os.getloadavg()) + ")"
    except OSError:
        return "(unknown)"


def machine_line() -> str:
    """``Machine: <cpu>, <n> cores, <OS>, Python <v>; date <today>.``"""
    return (
        f"Machine: {cpu_name()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}; date {dt.date.today().isoformat()}."
    )


def command_line(script: str) -> str:
    """``Command: `python benchmarks/<script> <args>`.``"""
    words = " ".join(["python", f"benchmarks/{script}", *sys.argv[1:]])
    return f"Command: `{words}`."


def median_seconds(fn, repeat: int) -> float:
    """The median wall time of ``repeat`` calls of ``fn`` after one untimed call (caches, compiled
    kernels, first imports)."""
    import statistics
    import time

    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def write(path: str | os.PathLike, lines: list[str]) -> Path:
    """Write the report atomically (a temporary file renamed over the target) and say so."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    print(f"wrote {path}")
    return path

"""Functions to sweep, for the examples and tests: importable from worker processes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def demo_point(**coords: float) -> dict[str, Any]:
    """Test helper (importable by worker processes): a deterministic per-point function.

    Returns ``s`` = sum, ``p`` = product, ``v`` = the coordinates as a vector and
    ``big`` = ``s > 0``; raises ``ValueError`` at a NaN coordinate.
    """
    values = list(coords.values())
    if any(v != v for v in values):
        raise ValueError("NaN coordinate")
    return {
        "s": math.fsum(values),
        "p": math.prod(values),
        "v": np.array(values, dtype=float),
        "big": math.fsum(values) > 0,
    }


def demo_batch(**columns: np.ndarray) -> dict[str, np.ndarray]:
    """Test helper: :func:`demo_point` on whole chunks (for ``batched=True``)."""
    vals = np.stack([np.asarray(c, dtype=float) for c in columns.values()], axis=1)
    if np.isnan(vals).any():
        raise ValueError("NaN coordinate")
    s = np.array([math.fsum(row) for row in vals.tolist()])
    return {"s": s, "p": np.prod(vals, axis=1), "v": vals, "big": s > 0}


def demo_slow(seconds: float = 0.0, **columns: np.ndarray) -> dict[str, np.ndarray]:
    """Test helper: :func:`demo_batch` after sleeping ``seconds`` per chunk (work that pays for workers)."""
    import time

    time.sleep(seconds)
    return demo_batch(**columns)


def demo_interrupt_after(calls: list, limit: int, **columns: np.ndarray) -> dict[str, np.ndarray]:
    """Test helper: :func:`demo_batch`, but Ctrl-C (KeyboardInterrupt) on the ``limit``-th call."""
    calls.append(1)
    if len(calls) >= limit:
        raise KeyboardInterrupt
    return demo_batch(**columns)


def demo_busy(ms: float = 1.0, **columns: np.ndarray) -> dict[str, np.ndarray]:
    """Benchmark helper: :func:`demo_batch` after ``ms`` milliseconds of CPU work per point (a spin
    on the clock, so that the work is CPU-bound and the same on every machine)."""
    import time

    n = len(next(iter(columns.values())))
    end = time.perf_counter() + 1e-3 * ms * n
    while time.perf_counter() < end:
        pass
    return demo_batch(**columns)

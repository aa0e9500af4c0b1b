"""Comparing results: a fast path's Result against the registry's run of the same step."""

import numpy as np


def assert_same_result(fast, ref) -> None:
    """``fast`` is ``ref`` bit for bit: the point, the partner vector, the status, the iteration
    count, the message, the method and the residual (every field of it)."""
    assert np.array_equal(fast.x, ref.x) and np.array_equal(fast.w, ref.w)
    assert (fast.status, fast.iterations, fast.message, fast.method) == (
        ref.status,
        ref.iterations,
        ref.message,
        ref.method,
    )
    assert fast.residual == ref.residual

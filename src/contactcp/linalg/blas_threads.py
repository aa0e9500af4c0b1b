"""One BLAS thread for a block of code: :func:`one_blas_thread`.

Two uses.  Speed: the merit method's and a time step's matrices are small (hundreds of rows), and
OpenBLAS's threads cost more than they save on them (a 50-box pile ran 10 times slower with two
threads than with one on two cores).  Reproducibility: a threaded BLAS splits its sums
differently than a serial one, so the same simulation gave different (each deterministic)
trajectories under ``OPENBLAS_NUM_THREADS`` 1 and 2; inside this context the answer does not
depend on the caller's thread settings.
"""

from __future__ import annotations

from typing import Any

from threadpoolctl import ThreadpoolController

__all__ = ["one_blas_thread"]

_CONTROLLER: ThreadpoolController | None = None


def one_blas_thread() -> Any:
    """A context limiting BLAS to one thread (the controller is built once: ~0.01 ms per use, not
    ~0.7 ms)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")

"""The project's exception hierarchy.

Every error raised on purpose by contactcp derives from :class:`ContactCPError`,
so a caller can catch the toolkit's errors without catching bugs.  Errors from
backends (numpy, scipy, numba, HiGHS, ...) are caught at the solver boundary and
turned into a result with status ``NUMERICAL_FAILURE``; they never leak out of
:func:`contactcp.solve`.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ContactCPError",
    "InvalidProblemError",
    "UnknownMethodError",
    "InvalidOptionError",
    "SweepError",
    "SweepInterrupted",
    "InverseKinematicsError",
    "MissingDependencyError",
]


class ContactCPError(Exception):
    """Base class of every error contactcp raises on purpose."""


class InvalidProblemError(ContactCPError, ValueError):
    """Bad problem data: wrong shape, NaN/inf, negative friction, ...

    ``field`` names the offending input (e.g. ``"M"`` or ``"mu[3]"``) and
    ``problem`` says what is wrong with it.  ``str(err)`` reads
    ``"M: must be square, got shape (3, 4)"``.
    """

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")

    def __reduce__(self):  # picklable, so that errors raised in worker processes come back intact
        return (type(self), (self.field, self.problem))


class UnknownMethodError(ContactCPError, ValueError):
    """A method name that is not registered, or does not apply to the problem."""

    def __init__(self, method: str, problem_type: str, available: list[str], why: str = ""):
        self.method = method
        self.problem_type = problem_type
        self.available = list(available)
        reason = why or "unknown method"
        names = ", ".join(repr(a) for a in self.available) or "none"
        self.why = why
        super().__init__(f"method {method!r}: {reason} for {problem_type}; available: {names}")

    def __reduce__(self):
        return (type(self), (self.method, self.problem_type, self.available, self.why))


class InvalidOptionError(ContactCPError, ValueError):
    """A solver option that the method does not accept, or a bad value for one."""

    def __init__(self, option: str, problem: str):
        self.option = option
        self.problem = problem
        super().__init__(f"option {option!r}: {problem}")

    def __reduce__(self):
        return (type(self), (self.option, self.problem))


class SweepError(ContactCPError, RuntimeError):
    """The swept function failed (raised, or returned something unusable).

    Attributes
    ----------
    index : int or None
        Position of the failing point in the sweep, or ``None`` when a whole
        batched chunk failed.
    point : dict or None
        Coordinates of the failing point (of the chunk's first point when
        ``index`` is ``None``).
    chunk : tuple of int or None
        ``(start, stop)`` point range of the chunk that failed.

    The original exception, when there is one, is chained as ``__cause__``;
    when it was raised in another process, its traceback text hangs below it.
    """

    def __init__(
        self, message: str, *, index: int | None = None, point: dict | None = None, chunk: tuple[int, int] | None = None
    ):
        self.index = index
        self.point = point
        self.chunk = chunk
        super().__init__(message)

    def __reduce__(self):
        return (_rebuild_sweep_error, (str(self), self.index, self.point, self.chunk))


def _rebuild_sweep_error(message, index, point, chunk):
    return SweepError(message, index=index, point=point, chunk=chunk)


class SweepInterrupted(ContactCPError, KeyboardInterrupt):
    """Ctrl-C during a sweep that streams into a store: every finished chunk is kept on disk, and the
    message says how to complete the sweep.  A :class:`KeyboardInterrupt`, so that code catching
    interrupts still sees one."""


class InverseKinematicsError(ContactCPError):
    """Position inverse kinematics did not reach the target within ``tol``.

    ``q`` is the best configuration found and ``residual`` its distance to the
    target (for an unreachable target: the closest the point got).
    """

    def __init__(self, message: str, q: Any, residual: float):
        self.q = q
        self.residual = residual
        super().__init__(message)


class MissingDependencyError(ContactCPError, ImportError):
    """An optional dependency a function needs is not installed; the message says which and how to
    install it (e.g. ``pip install 'contactcp[viewer]'`` for the meshcat viewer)."""

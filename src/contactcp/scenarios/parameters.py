"""The parameters of a scenario: a frozen dataclass of defaults, overridden by keyword."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, TypeVar

from contactcp.errors import InvalidProblemError

__all__ = ["resolve"]

P = TypeVar("P")


def resolve(cls: type[P], params: P | None, overrides: dict[str, Any], what: str) -> P:
    """``params`` (or the defaults of ``cls``) with ``overrides`` applied; a parameter that ``cls``
    does not have, or ``params`` of another type, raises :class:`~contactcp.errors.InvalidProblemError`
    naming it (``what`` says whose parameters they are, e.g. "the grasp")."""
    if params is not None and not isinstance(params, cls):
        raise InvalidProblemError("params", f"must be a {cls.__name__}, got {type(params).__name__}")
    p = params if params is not None else cls()
    if overrides:
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise InvalidProblemError(unknown[0], f"is not a parameter of {what}; known: " + ", ".join(known))
        p = replace(p, **overrides)
    return p

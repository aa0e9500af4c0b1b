"""Point contacts with Coulomb friction: frame, partner, friction coefficient and state."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from contactcp._validate import number, real_array, vector
from contactcp.errors import InvalidProblemError

__all__ = ["Contact", "Ground", "Link", "Body", "contact_frame", "contact_frames", "tangent_axes"]


@dataclass(frozen=True)
class Ground:
    """The fixed world."""


def _index(value: Any, field: str) -> int:
    """A non-negative integer index (numpy integers included, bools and floats not)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InvalidProblemError(field, f"must be a non-negative integer index, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Link:
    """A point fixed to link ``link`` (0-based joint index) of arm ``arm``."""

    arm: int
    link: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "arm", _index(self.arm, "other.arm"))
        object.__setattr__(self, "link", _index(self.link, "other.link"))


@dataclass(frozen=True)
class Body:
    """Another passive object (index into the system's bodies)."""

    index: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", _index(self.index, "other.body"))


def cross3(a, b) -> np.ndarray:
    """``a x b`` for 3-vectors (``np.cross`` costs ~40 us of axis handling per call)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def contact_frame(normal: np.ndarray, tangent: np.ndarray | None = None) -> np.ndarray:
    """``[n, t, o]`` as columns: ``n`` unit, ``t`` the given tangent (or one chosen), ``o = n x t``."""
    if tangent is None:  # scalar arithmetic: the time stepper builds a frame per contact and step
        a, b, c = (float(x) for x in normal)
        s = math.sqrt(a * a + b * b + c * c)
        if not (0.0 < s < math.inf):
            raise InvalidProblemError("normal", f"must be a finite nonzero 3-vector of moderate size, got {normal!r}")
        a, b, c = a / s, b / s, c / s
        k = min(range(3), key=lambda i: (abs((a, b, c)[i]), i))  # n x e_k, e_k the axis n is least along
        t = ((0.0, c, -b), (-c, 0.0, a), (b, -a, 0.0))[k]
        s = math.sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2])
        t0, t1, t2 = t[0] / s, t[1] / s, t[2] / s
        o = (b * t2 - c * t1, c * t0 - a * t2, a * t1 - b * t0)
        return np.array([[a, t0, o[0]], [b, t1, o[1]], [c, t2, o[2]]])
    n = normal / np.linalg.norm(normal)
    t = tangent - (tangent @ n) * n
    t = t / np.linalg.norm(t)
    return np.column_stack([n, t, cross3(n, t)])


def contact_frames(normals: np.ndarray) -> np.ndarray:
    """:func:`contact_frame` of each row of ``normals`` (``(n, 3)`` -> ``(n, 3, 3)``), the same
    arithmetic in the same order, so the frames are bit for bit those of :func:`contact_frame`
    (compiled: the time stepper builds a step's frames at once)."""
    return _frames(np.ascontiguousarray(normals, dtype=float).reshape(-1, 3))


@njit(cache=True, nogil=True, inline="always")
def tangent_axes(a, b, c):
    """``(t0, t1, t2, o0, o1, o2)``: the tangent ``t = n x e_k / |n x e_k|`` of the unit normal
    ``n = (a, b, c)``, ``e_k`` the axis ``n`` is least along (the first of equals, as ``argmin``),
    and ``o = n x t``: :func:`contact_frame`'s arithmetic, for the compiled frames and the box
    pairs' contact patch (:mod:`~contactcp.models.scene.box_pairs`)."""
    k = 0
    if abs(b) < abs(a):
        k = 1
    if abs(c) < (abs(a) if k == 0 else abs(b)):
        k = 2
    if k == 0:
        t0, t1, t2 = 0.0, c, -b
    elif k == 1:
        t0, t1, t2 = -c, 0.0, a
    else:
        t0, t1, t2 = b, -a, 0.0
    s = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    t0, t1, t2 = t0 / s, t1 / s, t2 / s
    return t0, t1, t2, b * t2 - c * t1, c * t0 - a * t2, a * t1 - b * t0


@njit(cache=True, nogil=True)
def _frames(N):
    out = np.empty((N.shape[0], 3, 3))
    for j in range(N.shape[0]):
        s = math.sqrt(N[j, 0] * N[j, 0] + N[j, 1] * N[j, 1] + N[j, 2] * N[j, 2])
        a, b, c = N[j, 0] / s, N[j, 1] / s, N[j, 2] / s
        t0, t1, t2, o0, o1, o2 = tangent_axes(a, b, c)
        out[j, 0, 0], out[j, 1, 0], out[j, 2, 0] = a, b, c
        out[j, 0, 1], out[j, 1, 1], out[j, 2, 1] = t0, t1, t2
        out[j, 0, 2], out[j, 1, 2], out[j, 2, 2] = o0, o1, o2
    return out


@dataclass(frozen=True)
class Contact:
    """A frictional point contact on object ``body``.

    The contact force ``c = c_n n + c_t t + c_o o`` acts on object ``body``
    at ``point`` (world), and ``-c`` on ``other`` (the ground, a manipulator
    link, or another object).  ``normal`` is the inward normal of ``body``'s
    surface (unit within 1e-6).

    ``state`` is ``"rolling"`` (zero relative tangential velocity) or
    ``"sliding"``; for a sliding contact, ``v_t`` gives the relative tangential
    velocity (``(v_t, v_o)``, or one number in a planar system) — None takes
    it from the bodies' velocities.
    """

    body: int
    point: Any
    normal: Any
    mu: float
    other: Any = Ground()
    tangent: Any = None
    state: str = "rolling"
    v_t: Any = None
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InvalidProblemError("name", f"must be a string, got {self.name!r}")
        label = self.name or "contact"
        s = object.__setattr__
        s(self, "body", _index(self.body, f"{label}.body"))
        s(self, "point", vector(self.point, f"{label}.point", 3))
        n = vector(self.normal, f"{label}.normal", 3)
        if abs(np.linalg.norm(n) - 1.0) > 1e-6:
            raise InvalidProblemError(f"{label}.normal", f"must be a unit vector, has norm {np.linalg.norm(n):.6g}")
        if self.tangent is not None:
            t = vector(self.tangent, f"{label}.tangent", 3)
            if np.linalg.norm(t - (t @ n) * n) < 1e-9:
                raise InvalidProblemError(f"{label}.tangent", "is parallel to the normal")
        s(self, "normal", n)
        mu = number(self.mu, f"{label}.mu")
        if mu < 0:
            raise InvalidProblemError(f"{label}.mu", f"friction coefficient must be >= 0 and finite, got {self.mu}")
        s(self, "mu", mu)
        if not isinstance(self.state, str) or self.state not in ("rolling", "sliding"):
            raise InvalidProblemError(f"{label}.state", f"must be 'rolling' or 'sliding', got {self.state!r}")
        if not isinstance(self.other, (Ground, Link, Body)):
            raise InvalidProblemError(f"{label}.other", "must be Ground(), Link(arm, link) or Body(index)")
        if self.v_t is not None:
            vt = np.atleast_1d(real_array(self.v_t, f"{label}.v_t"))
            if vt.ndim != 1 or vt.size not in (1, 2) or not np.all(np.isfinite(vt)):
                raise InvalidProblemError(
                    f"{label}.v_t",
                    f"must be 1 or 2 finite numbers, got shape {vt.shape}"
                    if vt.ndim != 1 or vt.size not in (1, 2)
                    else "must be 1 or 2 finite numbers",
                )
            s(self, "v_t", vt)
        C = contact_frame(n, None if self.tangent is None else vector(self.tangent, f"{label}.tangent", 3))
        C.setflags(write=False)
        s(self, "_frame", C)

    @property
    def frame(self) -> np.ndarray:
        """``C = [n, t, o]`` (columns; built once, read-only)."""
        return self._frame

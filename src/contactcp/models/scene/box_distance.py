"""The distance between two disjoint boxes and its closest points, in closed form: :func:`closest_points`.

Two disjoint convex polyhedra are closest at a vertex of one and a point of the other, or at a
point of an edge of each (the closest points lie on faces, edges or vertices of both, and a pair
of faces or a face and an edge that are closest has a vertex or a pair of edges among its closest
points).  So the distance is the least of

* each vertex's distance to the other box, a solid (the vertex, in the box's axes, clamped to its
  half sides: the closest point of the box, exactly), 8 + 8 of them;
* each edge's distance to each edge of the other box, 12 x 12 segment pairs (Ericson, *Real-Time
  Collision Detection*, 2005, section 5.1.9: the closest points of the two lines, clamped to the
  segments; parallel edges take any closest pair).

:mod:`~contactcp.models.scene.box_pairs` asks for it where the separating-axis test does not give
the distance (a corner passing a corner or an edge, two boxes apart along no face or edge axis):
the direction between the closest points is then the contact normal, as coal's GJK finds it, to
rounding rather than to GJK's tolerance.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["closest_points"]


@njit(cache=True, nogil=True, inline="always")
def _corner(c, R, e, s0, s1, s2, out, j):
    """The box's corner ``c + R (s * e)`` (``s`` the signs ``s0, s1, s2``) into ``out[j]``."""
    for r in range(3):
        x = c[r]
        x += s0 * e[0] * R[r, 0]
        x += s1 * e[1] * R[r, 1]
        x += s2 * e[2] * R[r, 2]
        out[j, r] = x


@njit(cache=True, nogil=True)
def _clamped(vw, c, R, e):
    """The point of the box ``(c, R, e)`` closest to ``vw[0]`` into ``vw[1]``: ``vw[0]`` in the box's
    axes, clamped to ``[-e, e]``."""
    for r in range(3):
        vw[1, r] = c[r]
    for i in range(3):
        x = (vw[0, 0] - c[0]) * R[0, i] + (vw[0, 1] - c[1]) * R[1, i] + (vw[0, 2] - c[2]) * R[2, i]
        x = min(e[i], max(-e[i], x))
        for r in range(3):
            vw[1, r] += x * R[r, i]


@njit(cache=True, nogil=True)
def _segments(EA, i, EB, k, vw):
    """The closest points of the segments ``[EA[2 i], EA[2 i + 1]]`` and ``[EB[2 k], EB[2 k + 1]]``
    (both of positive length) into ``vw[0]``, ``vw[1]`` (Ericson 5.1.9; sums written out, the same
    rounding on every CPU)."""
    a = e = f = c = b = 0.0
    for r in range(3):
        d1, d2, x = EA[2 * i + 1, r] - EA[2 * i, r], EB[2 * k + 1, r] - EB[2 * k, r], EA[2 * i, r] - EB[2 * k, r]
        a += d1 * d1
        e += d2 * d2
        f += d2 * x
        c += d1 * x
        b += d1 * d2
    denom = a * e - b * b
    s = min(1.0, max(0.0, (b * f - c * e) / denom)) if denom > 1e-14 * a * e else 0.0
    t = (b * s + f) / e
    if t < 0.0:
        t, s = 0.0, min(1.0, max(0.0, -c / a))
    elif t > 1.0:
        t, s = 1.0, min(1.0, max(0.0, (b - c) / a))
    for r in range(3):
        vw[0, r] = EA[2 * i, r] + s * (EA[2 * i + 1, r] - EA[2 * i, r])
        vw[1, r] = EB[2 * k, r] + t * (EB[2 * k + 1, r] - EB[2 * k, r])


@njit(cache=True, nogil=True)
def _edges(c, R, e):
    """The box's 12 edges as ``(24, 3)`` end points (edge ``k`` from row ``2 k`` to ``2 k + 1``): along
    each axis, the four at the signs of the other two."""
    out = np.empty((24, 3))
    signs = np.empty(3)
    k = 0
    for axis in range(3):
        for s in range(4):
            signs[(axis + 1) % 3] = 1.0 if s & 1 else -1.0
            signs[(axis + 2) % 3] = 1.0 if s & 2 else -1.0
            signs[axis] = -1.0
            _corner(c, R, e, signs[0], signs[1], signs[2], out, 2 * k)
            signs[axis] = 1.0
            _corner(c, R, e, signs[0], signs[1], signs[2], out, 2 * k + 1)
            k += 1
    return out


@njit(cache=True, nogil=True)
def closest_points(ca, Ra, ea, cb, Rb, eb):
    """``(distance, point of A, point of B)`` of two disjoint boxes (centre, axes as the columns of
    ``R``, half sides; module docstring).  Boxes that overlap give some distance below their
    penetration, meaningless: the caller asks only of boxes apart."""
    best = math.inf
    pa, pb = np.zeros(3), np.zeros(3)
    vw = np.empty((2, 3))  # a point of each box
    for first in range(2):  # the corners of A against the solid B, then B's against A
        c, R, e = (ca, Ra, ea) if first == 0 else (cb, Rb, eb)
        co, Ro, eo = (cb, Rb, eb) if first == 0 else (ca, Ra, ea)
        for s in range(8):
            _corner(c, R, e, 1.0 if s & 1 else -1.0, 1.0 if s & 2 else -1.0, 1.0 if s & 4 else -1.0, vw, 0)
            _clamped(vw, co, Ro, eo)
            dist = math.sqrt((vw[0, 0] - vw[1, 0]) ** 2 + (vw[0, 1] - vw[1, 1]) ** 2 + (vw[0, 2] - vw[1, 2]) ** 2)
            if dist < best:
                best = dist
                for r in range(3):
                    pa[r], pb[r] = (vw[0, r], vw[1, r]) if first == 0 else (vw[1, r], vw[0, r])
    EA, EB = _edges(ca, Ra, ea), _edges(cb, Rb, eb)
    for i in range(12):
        for k in range(12):
            _segments(EA, i, EB, k, vw)
            dist = math.sqrt((vw[0, 0] - vw[1, 0]) ** 2 + (vw[0, 1] - vw[1, 1]) ** 2 + (vw[0, 2] - vw[1, 2]) ** 2)
            if dist < best:
                best = dist
                for r in range(3):
                    pa[r], pb[r] = vw[0, r], vw[1, r]
    return best, pa, pb

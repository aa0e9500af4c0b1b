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


@njit(cache=True, nogil=True)
def _corner(c, R, e, signs, out):
    """The box's corner ``c + R (signs * e)`` into ``out``."""
    for r in range(3):
        out[r] = c[r]
        for i in range(3):
            out[r] += signs[i] * e[i] * R[r, i]


@njit(cache=True, nogil=True)
def _clamped(p, c, R, e, out):
    """The point of the box ``(c, R, e)`` closest to ``p`` into ``out``: ``p`` in the box's axes,
    clamped to ``[-e, e]``."""
    for r in range(3):
        out[r] = c[r]
    for i in range(3):
        x = (p[0] - c[0]) * R[0, i] + (p[1] - c[1]) * R[1, i] + (p[2] - c[2]) * R[2, i]
        x = min(e[i], max(-e[i], x))
        for r in range(3):
            out[r] += x * R[r, i]


@njit(cache=True, nogil=True)
def _segments(p1, q1, p2, q2, c1, c2):
    """The closest points of the segments ``[p1, q1]`` and ``[p2, q2]`` (both of positive length) into
    ``c1``, ``c2`` (Ericson 5.1.9; sums written out, the same rounding on every CPU)."""
    a = e = f = c = b = 0.0
    for r in range(3):
        d1, d2, x = q1[r] - p1[r], q2[r] - p2[r], p1[r] - p2[r]
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
        c1[r] = p1[r] + s * (q1[r] - p1[r])
        c2[r] = p2[r] + t * (q2[r] - p2[r])


@njit(cache=True, nogil=True)
def _edges(c, R, e):
    """The box's 12 edges as ``(12, 2, 3)`` end points: along each axis, the four at the signs of the
    other two."""
    out = np.empty((12, 2, 3))
    signs = np.empty(3)
    k = 0
    for axis in range(3):
        for s in range(4):
            signs[(axis + 1) % 3] = 1.0 if s & 1 else -1.0
            signs[(axis + 2) % 3] = 1.0 if s & 2 else -1.0
            signs[axis] = -1.0
            _corner(c, R, e, signs, out[k, 0])
            signs[axis] = 1.0
            _corner(c, R, e, signs, out[k, 1])
            k += 1
    return out


@njit(cache=True, nogil=True)
def closest_points(ca, Ra, ea, cb, Rb, eb):
    """``(distance, point of A, point of B)`` of two disjoint boxes (centre, axes as the columns of
    ``R``, half sides; module docstring).  Boxes that overlap give some distance below their
    penetration, meaningless: the caller asks only of boxes apart."""
    best = math.inf
    pa, pb = np.zeros(3), np.zeros(3)
    v, w = np.empty(3), np.empty(3)
    signs = np.empty(3)
    for first in range(2):  # the corners of A against the solid B, then B's against A
        c, R, e = (ca, Ra, ea) if first == 0 else (cb, Rb, eb)
        co, Ro, eo = (cb, Rb, eb) if first == 0 else (ca, Ra, ea)
        for s in range(8):
            for i in range(3):
                signs[i] = 1.0 if (s >> i) & 1 else -1.0
            _corner(c, R, e, signs, v)
            _clamped(v, co, Ro, eo, w)
            dist = math.sqrt((v[0] - w[0]) ** 2 + (v[1] - w[1]) ** 2 + (v[2] - w[2]) ** 2)
            if dist < best:
                best = dist
                pa[:], pb[:] = (v, w) if first == 0 else (w, v)
    EA, EB = _edges(ca, Ra, ea), _edges(cb, Rb, eb)
    for i in range(12):
        for k in range(12):
            _segments(EA[i, 0], EA[i, 1], EB[k, 0], EB[k, 1], v, w)
            dist = math.sqrt((v[0] - w[0]) ** 2 + (v[1] - w[1]) ** 2 + (v[2] - w[2]) ** 2)
            if dist < best:
                best = dist
                pa[:], pb[:] = v, w
    return best, pa, pb

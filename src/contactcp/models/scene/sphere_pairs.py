"""A sphere on a sphere or on a half-space in closed form, compiled (called by
:func:`~contactcp.models.scene.box_pairs.pair_contacts` with the box pairs, so that a scene of spheres,
a grasp's fingertips on a ball, needs no Python call per pair).

The answer is coal's (``coal.collide`` and its contact patch: one point), exactly where coal's is
within its GJK tolerance: for spheres of radii ``r_1``, ``r_2`` centred at ``c_1``, ``c_2``, the
normal into the first ``n = (c_1 - c_2) / |c_1 - c_2|``, the gap ``|c_1 - c_2| - r_1 - r_2`` and the
point half-way between the surfaces, ``((c_1 - r_1 n) + (c_2 + r_2 n)) / 2``; for a sphere over the
half-space ``n . x <= d`` (world), the centre's height ``h = n . c - d``, the gap ``h - r`` and the
point ``c - (h + r) n / 2``.  Concentric spheres have no normal: left to coal.
Conventions: :mod:`~contactcp.models.scene.detect`.
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["sphere_sphere", "sphere_halfspace"]

#: the codes of :mod:`~contactcp.models.scene.box_pairs` (repeated here: that module imports this one)
_NONE, _FOUND, _ASK_COAL = 0, 1, 2


@njit(cache=True, nogil=True)
def sphere_sphere(c1, r1, c2, r2, margin, normal, point):
    """Spheres ``(c1, r1)`` (first) and ``(c2, r2)``: ``(code, gap, count)``; ``normal`` and
    ``point`` filled when found (module docstring)."""
    d0, d1, d2 = c1[0] - c2[0], c1[1] - c2[1], c1[2] - c2[2]
    dist = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    if dist == 0.0:
        return _ASK_COAL, 0.0, 0
    gap = dist - r1 - r2
    if not gap < margin:
        return _NONE, gap, 0
    normal[0], normal[1], normal[2] = d0 / dist, d1 / dist, d2 / dist
    for i in range(3):
        point[i] = 0.5 * ((c1[i] - r1 * normal[i]) + (c2[i] + r2 * normal[i]))
    return _FOUND, gap, 1


@njit(cache=True, nogil=True)
def sphere_halfspace(c, r, n, offset, margin, point):
    """The sphere ``(c, r)`` over the half-space ``n . x <= offset`` (world, ``n`` unit):
    ``(code, gap, count)``; ``point`` filled when found.  The normal into the sphere is ``n``."""
    above = n[0] * c[0] + n[1] * c[1] + n[2] * c[2] - offset
    gap = above - r
    if not gap < margin:
        return _NONE, gap, 0
    for i in range(3):
        point[i] = c[i] - 0.5 * (above + r) * n[i]
    return _FOUND, gap, 1

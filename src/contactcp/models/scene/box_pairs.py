"""Boxes on boxes and on half-spaces in closed form: the separating-axis test, then the contact patch.

The answer is the one :mod:`~contactcp.models.scene.detect` gets from coal for these pairs, without
GJK and EPA, whose normal is unreliable where faces touch (the reason for coal's *lifted* second
query), and without a Python call per pair:

* **Normal and gap.**  Two boxes overlap iff no axis among the 15 of the separating-axis theorem
  separates them (Gottschalk, Lin & Manocha 1996): the 3 + 3 face normals and the 9 cross products
  of an edge of each (an edge pair within :data:`PARALLEL` of parallel has no axis and is skipped).
  For each axis ``L`` the separation is ``|L . (c_A - c_B)| - sum_i e_A,i |L . a_i| -
  sum_j e_B,j |L . b_j|``; the pair's gap is the largest.  While the boxes overlap this is the
  penetration depth exactly (with its sign): the least translation that separates two convex
  polytopes is along a face normal of their Minkowski difference, and each of those is one of the
  15 axes.  While they are apart it is a lower bound of the distance, and the distance itself when
  the two supporting features, in the plane normal to the axis, overlap (then the two points
  above one another are that far apart).  That is checked with the features taken within
  ``delta = WITNESS * scale`` of their support planes and overlapping up to ``delta``, so the
  distance is then within ``delta`` of the gap (between ``gap`` and ``sqrt(gap^2 + (2 delta)^2)``;
  ``scale`` is 1 m plus the boxes' sizes and centres' distance, ``delta`` about 1e-9 m, coal's GJK
  tolerance in :mod:`~contactcp.models.scene.coal_pairs`: two boxes resting on one another, turned
  by 1e-10 rad and shifted by 1e-11 m, stay here).  Where it fails (a corner passing a corner or an
  edge) the distance is that of the closest points, found by feature pairs
  (:mod:`~contactcp.models.scene.box_distance`), and the normal is their direction; only boxes
  within ``delta`` of touching there are left to coal.  A gap at or above the margin ends the test:
  the distance is at least the gap.  (In a 25-box pile falling, 64 % of the steps had such a pair
  within the margin, and coal's Python path took about 0.4 ms of each.)
  Face axes win ties (an edge axis must separate by more than :data:`TIE` relative), so two boxes
  face to face get the face's normal, exact.  The normal points from the second shape to the first.
* **Patch** (coal's :func:`computeContactPatch`, with its default tolerance): each shape's support
  set, the vertices within :data:`PATCH_TOLERANCE` (m) of its plane of support facing the other, is
  projected on the plane normal to the normal half-way between the two support planes; the patch is
  the intersection of the two convex hulls there (a half-space's support set is the whole plane).
  Its vertices, counter-clockwise about the normal, are the contact points: a face on a face gives
  up to eight, an edge on a face two, an edge across an edge one.

Answers are codes per pair: :data:`NONE` (farther than the margin), :data:`FOUND`, or
:data:`ASK_COAL` (boxes apart within rounding of touching where the closest points decide, or a
shape smaller than the patch tolerance, or an empty patch).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from contactcp.models.scene.box_distance import closest_points
from contactcp.models.scene.sphere_pairs import sphere_halfspace, sphere_sphere

__all__ = ["NONE", "FOUND", "ASK_COAL", "BOX", "HALFSPACE", "SPHERE", "MAX_POINTS", "pair_contacts"]

NONE, FOUND, ASK_COAL = 0, 1, 2
#: shape kinds of :func:`pair_contacts` (any other kind is left to coal); a sphere's radius is its
#: ``half[0]`` (:mod:`~contactcp.models.scene.sphere_pairs`)
OTHER, BOX, HALFSPACE, SPHERE = 0, 1, 2, 3
#: the most points a patch has here (two quadrilaterals meet in at most eight)
MAX_POINTS = 8
#: coal's default contact-patch tolerance (m): ``ContactPatchRequest().getPatchTolerance()``
PATCH_TOLERANCE = 1e-3
#: an edge pair whose unit directions' cross product is shorter than this gives no axis
PARALLEL = 1e-6
#: an edge axis replaces the best face axis only if it separates by more than this times the scale
TIE = 1e-12
#: the distance check's tolerance relative to the scale (module docstring), also the patch's
#: clipping tolerance
WITNESS = 1e-9


@njit(cache=True, nogil=True, inline="always")
def _dot3(a, b):
    """``a . b`` for 3-vectors, in this order (numba's ``@`` calls BLAS: a call's overhead, and
    its rounding is the BLAS kernel's)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, nogil=True, inline="always")
def _rotate(R, x):
    """``R x`` for a 3 x 3 ``R`` (:func:`_dot3`'s reason)."""
    out = np.empty(3)
    for i in range(3):
        out[i] = R[i, 0] * x[0] + R[i, 1] * x[1] + R[i, 2] * x[2]
    return out


@njit(cache=True, nogil=True)
def _radius(R, e, L):
    """``sum_i e_i |L . R_i|``: the box's half-width along the unit ``L`` (``R_i`` its axes, columns)."""
    s = 0.0
    for i in range(3):
        s += e[i] * abs(L[0] * R[0, i] + L[1] * R[1, i] + L[2] * R[2, i])
    return s


@njit(cache=True, nogil=True)
def _axis(ca, Ra, ea, cb, Rb, eb):
    """``(separation, unit axis from B to A)`` of the best of the 15 axes (module docstring)."""
    d = ca - cb
    scale = 1.0 + abs(d[0]) + abs(d[1]) + abs(d[2]) + ea.sum() + eb.sum()
    best, axis = -np.inf, np.zeros(3)
    L = np.empty(3)
    for k in range(6):
        R = Ra if k < 3 else Rb
        L[:] = R[:, k % 3]
        s = abs(_dot3(L, d)) - _radius(Ra, ea, L) - _radius(Rb, eb, L)
        if s > best:
            best, axis[:] = s, L
    face = best
    for i in range(3):
        for j in range(3):
            a, b = Ra[:, i], Rb[:, j]
            L[0] = a[1] * b[2] - a[2] * b[1]
            L[1] = a[2] * b[0] - a[0] * b[2]
            L[2] = a[0] * b[1] - a[1] * b[0]
            m = math.sqrt(_dot3(L, L))
            if m < PARALLEL:
                continue
            L /= m
            s = abs(_dot3(L, d)) - _radius(Ra, ea, L) - _radius(Rb, eb, L)
            if s > best and s > face + TIE * scale:
                best, axis[:] = s, L
    if _dot3(axis, d) < 0.0:
        axis = -axis
    return best, axis, scale


@njit(cache=True, nogil=True)
def _support(c, R, e, u, tol, out):
    """The box's vertices within ``tol`` of its support plane in the direction ``u`` into ``out``:
    ``(count, support value)``.  A vertex's shortfall is ``2 sum e_i |u . R_i|`` over the axes on
    which its sign opposes ``u``'s."""
    a = np.empty(3)
    for i in range(3):
        a[i] = u[0] * R[0, i] + u[1] * R[1, i] + u[2] * R[2, i]
    level = _dot3(u, c)
    for i in range(3):
        level += e[i] * abs(a[i])
    k = 0
    for s in range(8):
        short = 0.0
        for i in range(3):
            sign = 1.0 if (s >> i) & 1 else -1.0
            if sign * a[i] < 0.0:
                short += 2.0 * e[i] * abs(a[i])
        if short <= tol:
            for r in range(3):
                out[k, r] = c[r]
                for i in range(3):
                    out[k, r] += (1.0 if (s >> i) & 1 else -1.0) * e[i] * R[r, i]
            k += 1
    return k, level


@njit(cache=True, nogil=True)
def _cross2(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


@njit(cache=True, nogil=True)
def _hull(P, m, eps):
    """The convex hull of the 2-D points ``P[:m]``, counter-clockwise (monotone chain); points within
    ``eps`` merged; ``(H, count)`` (a point or a segment when degenerate)."""
    Q = P[:m].copy()
    for i in range(1, m):  # by x, then y (insertion sort: a handful of points)
        p = Q[i].copy()
        j = i - 1
        while j >= 0 and (Q[j, 0] > p[0] or (Q[j, 0] == p[0] and Q[j, 1] > p[1])):
            Q[j + 1] = Q[j]
            j -= 1
        Q[j + 1] = p
    H = np.empty((2 * m + 1, 2))
    k = 0
    for sweep in range(2):
        start = k
        for idx in range(m):
            p = Q[idx] if sweep == 0 else Q[m - 1 - idx]
            while k >= start + 2 and _cross2(H[k - 2], H[k - 1], p) <= eps * eps:
                k -= 1
            H[k] = p
            k += 1
        k -= 1  # the last point of each chain starts the other
    k = max(k, 1)
    # merge points within eps (a support set of one point, or of two nearly equal ones)
    out = np.empty((k, 2))
    n = 0
    for i in range(k):
        if n == 0 or (H[i, 0] - out[n - 1, 0]) ** 2 + (H[i, 1] - out[n - 1, 1]) ** 2 > eps * eps:
            out[n] = H[i]
            n += 1
    while n > 1 and (out[0, 0] - out[n - 1, 0]) ** 2 + (out[0, 1] - out[n - 1, 1]) ** 2 <= eps * eps:
        n -= 1
    return out, n


@njit(cache=True, nogil=True)
def _clip(P, np_, Q, nq, eps):
    """``P[:np_]`` (a convex polygon, a segment or a point) clipped by the half-planes left of each
    edge of the convex polygon ``Q[:nq]`` (counter-clockwise, three or more vertices): Sutherland and
    Hodgman, with a point up to ``eps`` outside an edge kept; ``(points, count)``."""
    cur = P[:np_].copy()
    n = np_
    for e in range(nq):
        a, b = Q[e], Q[(e + 1) % nq]
        ex, ey = b[0] - a[0], b[1] - a[1]
        length = math.sqrt(ex * ex + ey * ey)
        nxt = np.empty((2 * n + 2, 2))
        m = 0
        for i in range(n):
            p, o = cur[i], cur[i - 1 if i > 0 else n - 1]
            dp = (ex * (p[1] - a[1]) - ey * (p[0] - a[0])) / length
            do = (ex * (o[1] - a[1]) - ey * (o[0] - a[0])) / length
            if (dp >= -eps) != (do >= -eps) and n > 1:
                t = do / (do - dp)
                nxt[m, 0] = o[0] + t * (p[0] - o[0])
                nxt[m, 1] = o[1] + t * (p[1] - o[1])
                m += 1
            if dp >= -eps:
                nxt[m] = p
                m += 1
        cur, n = _hull(nxt, m, eps) if m > 0 else (nxt, 0)
        if n == 0:
            break
    return cur, n


@njit(cache=True, nogil=True)
def _segments(P, np_, Q, nq, eps):
    """The intersection of two points or segments (fewer than three vertices each): ``(points, n)``."""
    out = np.empty((2, 2))
    if np_ == 1 or nq == 1:
        p, S, ns = (P[0], Q, nq) if np_ == 1 else (Q[0], P, np_)
        if ns == 1:
            d = math.sqrt((p[0] - S[0, 0]) ** 2 + (p[1] - S[0, 1]) ** 2)
        else:
            ex, ey = S[1, 0] - S[0, 0], S[1, 1] - S[0, 1]
            t = min(1.0, max(0.0, ((p[0] - S[0, 0]) * ex + (p[1] - S[0, 1]) * ey) / (ex * ex + ey * ey)))
            d = math.sqrt((p[0] - S[0, 0] - t * ex) ** 2 + (p[1] - S[0, 1] - t * ey) ** 2)
        out[0] = p
        return out, 1 if d <= eps else 0
    rx, ry = P[1, 0] - P[0, 0], P[1, 1] - P[0, 1]
    sx, sy = Q[1, 0] - Q[0, 0], Q[1, 1] - Q[0, 1]
    den = rx * sy - ry * sx
    wx, wy = Q[0, 0] - P[0, 0], Q[0, 1] - P[0, 1]
    lr, ls = math.sqrt(rx * rx + ry * ry), math.sqrt(sx * sx + sy * sy)
    if abs(den) > eps * (lr + ls):  # crossing lines: one point, if on both segments
        t, u = (wx * sy - wy * sx) / den, (wx * ry - wy * rx) / den
        if -eps / lr <= t <= 1.0 + eps / lr and -eps / ls <= u <= 1.0 + eps / ls:
            out[0, 0], out[0, 1] = P[0, 0] + t * rx, P[0, 1] + t * ry
            return out, 1
        return out, 0
    if abs(wx * ry - wy * rx) / lr > eps:  # parallel, apart
        return out, 0
    t0 = (wx * rx + wy * ry) / (lr * lr)
    t1 = t0 + (sx * rx + sy * ry) / (lr * lr)
    lo, hi = max(0.0, min(t0, t1)), min(1.0, max(t0, t1))
    if hi < lo - eps / lr:
        return out, 0
    for k, t in enumerate((lo, hi)):
        out[k, 0], out[k, 1] = P[0, 0] + t * rx, P[0, 1] + t * ry
    return out, 1 if hi - lo <= eps / lr else 2


@njit(cache=True, nogil=True)
def _meet(P, np_, Q, nq, eps):
    """The intersection of two convex hulls (each a polygon, a segment or a point)."""
    if nq >= 3:
        return _clip(P, np_, Q, nq, eps)
    if np_ >= 3:
        return _clip(Q, nq, P, np_, eps)
    return _segments(P, np_, Q, nq, eps)


@njit(cache=True, nogil=True)
def _patch(n, A, ka, B, kb, mid, eps, out):
    """The patch of the support sets ``A[:ka]`` and ``B[:kb]`` (``kb < 0``: the whole plane) in the
    plane normal to ``n`` at ``n . x = mid``, its vertices (3-D) into ``out``: their number."""
    t = np.empty(3)
    k = np.argmin(np.abs(n))  # n x e_k, e_k the axis n is least along
    t[:] = 0.0
    t[(k + 1) % 3], t[(k + 2) % 3] = n[(k + 2) % 3], -n[(k + 1) % 3]
    t /= math.sqrt(_dot3(t, t))
    o = np.array([n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]])
    PA = np.empty((ka, 2))
    for i in range(ka):
        PA[i, 0], PA[i, 1] = _dot3(A[i], t), _dot3(A[i], o)
    HA, na = _hull(PA, ka, eps)
    if kb < 0:
        H, m = HA, na
    else:
        PB = np.empty((kb, 2))
        for i in range(kb):
            PB[i, 0], PB[i, 1] = _dot3(B[i], t), _dot3(B[i], o)
        HB, nb = _hull(PB, kb, eps)
        H, m = _meet(HA, na, HB, nb, eps)
    m = min(m, MAX_POINTS)
    for i in range(m):
        out[i] = H[i, 0] * t + H[i, 1] * o + mid * n
    return m


@njit(cache=True, nogil=True)
def _box_box(ca, Ra, ea, cb, Rb, eb, margin, normal, points):
    """One pair of boxes (module docstring): ``(code, gap, number of points)``; the normal (from B to
    A) and the points into ``normal`` and ``points``."""
    if min(ea.min(), eb.min()) <= PATCH_TOLERANCE:
        return ASK_COAL, 0.0, 0
    s, n, scale = _axis(ca, Ra, ea, cb, Rb, eb)
    if not s < margin:
        return NONE, s, 0
    A, B = np.empty((8, 3)), np.empty((8, 3))
    eps = WITNESS * scale
    if s > 0.0:  # apart: the distance is s only where the supporting features overlap
        ka, la = _support(ca, Ra, ea, -n, eps, A)
        kb, lb = _support(cb, Rb, eb, n, eps, B)
        if _patch(n, A, ka, B, kb, 0.0, eps, points) == 0:  # else the closest points' direction
            dist, pa, pb = closest_points(ca, Ra, ea, cb, Rb, eb)
            if not dist < margin:
                return NONE, dist, 0
            if not dist > eps:  # touching corners: no direction to rounding
                return ASK_COAL, 0.0, 0
            n = (pa - pb) / dist
    ka, la = _support(ca, Ra, ea, -n, PATCH_TOLERANCE, A)
    kb, lb = _support(cb, Rb, eb, n, PATCH_TOLERANCE, B)
    m = _patch(n, A, ka, B, kb, 0.5 * (lb - la), eps, points)
    if m == 0:
        return ASK_COAL, 0.0, 0
    normal[:] = n
    return FOUND, -la - lb, m


@njit(cache=True, nogil=True)
def _box_halfspace(c, R, e, n, offset, margin, points):
    """A box over the half-space ``n . x <= offset`` (world): ``(code, gap, number of points)``; the
    normal (into the box) is ``n``."""
    if e.min() <= PATCH_TOLERANCE:
        return ASK_COAL, 0.0, 0
    A = np.empty((8, 3))
    ka, la = _support(c, R, e, -n, PATCH_TOLERANCE, A)
    gap = -la - offset
    if not gap < margin:
        return NONE, gap, 0
    scale = 1.0 + np.abs(c).sum() + e.sum() + abs(offset)
    m = _patch(n, A, ka, A, -1, offset + 0.5 * gap, WITNESS * scale, points)
    return (FOUND, gap, m) if m else (ASK_COAL, 0.0, 0)


@njit(cache=True, nogil=True)
def pair_contacts(kinds, rot, pos, half, plane_n, plane_d, first, second, margin):
    """Every pair ``(first[p], second[p])`` of geometries (``kinds``: :data:`BOX`, :data:`HALFSPACE`,
    :data:`SPHERE` or other; world placements ``rot`` (G, 3, 3), ``pos`` (G, 3); a box's half sides
    ``half``, a sphere's radius ``half[0]``; a half-space ``plane_n . x <= plane_d`` in its own
    frame): ``(code, normal into the first, gap, count, points)`` per pair (module docstring; spheres
    on spheres and half-spaces: :mod:`~contactcp.models.scene.sphere_pairs`)."""
    P = first.shape[0]
    code = np.zeros(P, dtype=np.int64)
    normal = np.zeros((P, 3))
    gap = np.zeros(P)
    count = np.zeros(P, dtype=np.int64)
    points = np.zeros((P, MAX_POINTS, 3))
    for p in range(P):
        i, k = first[p], second[p]
        if kinds[i] == BOX and kinds[k] == BOX:
            code[p], gap[p], count[p] = _box_box(
                pos[i], rot[i], half[i], pos[k], rot[k], half[k], margin, normal[p], points[p]
            )
        elif kinds[i] == BOX and kinds[k] == HALFSPACE or kinds[i] == HALFSPACE and kinds[k] == BOX:
            b, h = (i, k) if kinds[i] == BOX else (k, i)
            n = _rotate(rot[h], plane_n[h])
            offset = plane_d[h] + _dot3(n, pos[h])
            code[p], gap[p], count[p] = _box_halfspace(pos[b], rot[b], half[b], n, offset, margin, points[p])
            normal[p] = n if b == i else -n
        elif kinds[i] == SPHERE and kinds[k] == SPHERE:
            code[p], gap[p], count[p] = sphere_sphere(
                pos[i], half[i, 0], pos[k], half[k, 0], margin, normal[p], points[p, 0]
            )
        elif kinds[i] == SPHERE and kinds[k] == HALFSPACE or kinds[i] == HALFSPACE and kinds[k] == SPHERE:
            b, h = (i, k) if kinds[i] == SPHERE else (k, i)
            n = _rotate(rot[h], plane_n[h])
            offset = plane_d[h] + _dot3(n, pos[h])
            code[p], gap[p], count[p] = sphere_halfspace(pos[b], half[b, 0], n, offset, margin, points[p, 0])
            normal[p] = n if b == i else -n
        else:
            code[p] = ASK_COAL
    return code, normal, gap, count, points

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

A call of :func:`pair_contacts` allocates its answers and one set of scratch buffers that its pairs
share (the support sets, the projected points, their hulls, the clip's room) and reads the shapes
from the placement arrays by index: no allocation and no array view per pair, each of which cost
tens of ns (reference counting) against a pair's few hundred.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from contactcp.models.contacts import tangent_axes
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
#: rows of each scratch polygon of :func:`pair_contacts`' work buffer (a clip that would need more,
#: none seen, allocates its own)
ROOM = 64


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


@njit(cache=True, nogil=True, inline="always")
def _min3(e, g):
    """``e[g].min()`` of a row of three, as numba's (the first NaN, else the least), without the view."""
    low = e[g, 0]
    if np.isnan(low):
        return low
    for i in range(1, 3):
        v = e[g, i]
        if np.isnan(v):
            return v
        if v < low:
            low = v
    return low


@njit(cache=True, nogil=True, inline="always")
def _sum3(e, g):
    """``e[g].sum()`` of a row of three in numba's order (from 0.0, first to last), without the view."""
    return 0.0 + e[g, 0] + e[g, 1] + e[g, 2]


@njit(cache=True, nogil=True)
def _radius(rot, half, g, l0, l1, l2):
    """``sum_i e_i |L . R_i|``: box ``g``'s half-width along the unit ``L = (l0, l1, l2)`` (``R_i``
    its axes, the columns of ``rot[g]``, ``e = half[g]``)."""
    s = 0.0
    for i in range(3):
        s += half[g, i] * abs(l0 * rot[g, 0, i] + l1 * rot[g, 1, i] + l2 * rot[g, 2, i])
    return s


@njit(cache=True, nogil=True)
def _axis(rot, pos, half, a, b):
    """``(separation, unit axis from B to A as three floats, scale)`` of the best of the 15 axes
    (module docstring) for boxes ``A = a`` and ``B = b`` (placements ``rot``, ``pos``, half sides
    ``half``)."""
    d0, d1, d2 = pos[a, 0] - pos[b, 0], pos[a, 1] - pos[b, 1], pos[a, 2] - pos[b, 2]
    scale = 1.0 + abs(d0) + abs(d1) + abs(d2) + _sum3(half, a) + _sum3(half, b)
    best, x0, x1, x2 = -np.inf, 0.0, 0.0, 0.0
    for k in range(6):
        g = a if k < 3 else b
        c = k % 3
        l0, l1, l2 = rot[g, 0, c], rot[g, 1, c], rot[g, 2, c]
        s = abs(l0 * d0 + l1 * d1 + l2 * d2) - _radius(rot, half, a, l0, l1, l2) - _radius(rot, half, b, l0, l1, l2)
        if s > best:
            best, x0, x1, x2 = s, l0, l1, l2
    face = best
    for i in range(3):
        a0, a1, a2 = rot[a, 0, i], rot[a, 1, i], rot[a, 2, i]
        for j in range(3):
            b0, b1, b2 = rot[b, 0, j], rot[b, 1, j], rot[b, 2, j]
            l0, l1, l2 = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
            m = math.sqrt(l0 * l0 + l1 * l1 + l2 * l2)
            if m < PARALLEL:
                continue
            l0, l1, l2 = l0 / m, l1 / m, l2 / m
            s = abs(l0 * d0 + l1 * d1 + l2 * d2) - _radius(rot, half, a, l0, l1, l2) - _radius(rot, half, b, l0, l1, l2)
            if s > best and s > face + TIE * scale:
                best, x0, x1, x2 = s, l0, l1, l2
    if x0 * d0 + x1 * d1 + x2 * d2 < 0.0:
        x0, x1, x2 = -x0, -x1, -x2
    return best, x0, x1, x2, scale


@njit(cache=True, nogil=True)
def _support(rot, pos, half, g, u0, u1, u2, tol, out):
    """Box ``g``'s vertices within ``tol`` of its support plane in the direction ``u = (u0, u1, u2)``
    into ``out``: ``(count, support value)``.  A vertex's shortfall is ``2 sum e_i |u . R_i|`` over
    the axes on which its sign opposes ``u``'s."""
    a = (
        u0 * rot[g, 0, 0] + u1 * rot[g, 1, 0] + u2 * rot[g, 2, 0],
        u0 * rot[g, 0, 1] + u1 * rot[g, 1, 1] + u2 * rot[g, 2, 1],
        u0 * rot[g, 0, 2] + u1 * rot[g, 1, 2] + u2 * rot[g, 2, 2],
    )
    level = u0 * pos[g, 0] + u1 * pos[g, 1] + u2 * pos[g, 2]
    for i in range(3):
        level += half[g, i] * abs(a[i])
    k = 0
    for s in range(8):
        short = 0.0
        for i in range(3):
            sign = 1.0 if (s >> i) & 1 else -1.0
            if sign * a[i] < 0.0:
                short += 2.0 * half[g, i] * abs(a[i])
        if short <= tol:
            for r in range(3):
                x = pos[g, r]
                for i in range(3):
                    x += (1.0 if (s >> i) & 1 else -1.0) * half[g, i] * rot[g, r, i]
                out[k, r] = x
            k += 1
    return k, level


@njit(cache=True, nogil=True, inline="always")
def _cross2(ox, oy, ax, ay, bx, by):
    """The 2-D cross product ``(a - o) x (b - o)``."""
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@njit(cache=True, nogil=True)
def _hull(P, m, eps, H):
    """The convex hull of the 2-D points ``P[:m]`` (sorted in place by x, then y), counter-clockwise
    (monotone chain), into ``H`` (``2 m + 1`` rows or more); points within ``eps`` merged: its number
    of vertices (a point or a segment when degenerate)."""
    for i in range(1, m):  # insertion sort: a handful of points
        px, py = P[i, 0], P[i, 1]
        j = i - 1
        while j >= 0 and (P[j, 0] > px or (P[j, 0] == px and P[j, 1] > py)):
            P[j + 1, 0], P[j + 1, 1] = P[j, 0], P[j, 1]
            j -= 1
        P[j + 1, 0], P[j + 1, 1] = px, py
    k = 0
    for sweep in range(2):
        start = k
        for idx in range(m):
            q = idx if sweep == 0 else m - 1 - idx
            px, py = P[q, 0], P[q, 1]
            while k >= start + 2 and _cross2(H[k - 2, 0], H[k - 2, 1], H[k - 1, 0], H[k - 1, 1], px, py) <= eps * eps:
                k -= 1
            H[k, 0], H[k, 1] = px, py
            k += 1
        k -= 1  # the last point of each chain starts the other
    k = max(k, 1)
    # merge points within eps (a support set of one point, or of two nearly equal ones), in place
    n = 0
    for i in range(k):
        if n == 0 or (H[i, 0] - H[n - 1, 0]) ** 2 + (H[i, 1] - H[n - 1, 1]) ** 2 > eps * eps:
            H[n, 0], H[n, 1] = H[i, 0], H[i, 1]
            n += 1
    while n > 1 and (H[0, 0] - H[n - 1, 0]) ** 2 + (H[0, 1] - H[n - 1, 1]) ** 2 <= eps * eps:
        n -= 1
    return n


@njit(cache=True, nogil=True)
def _clip(P, np_, Q, nq, eps, nxt):
    """``P[:np_]`` (a convex polygon, a segment or a point) clipped by the half-planes left of each
    edge of the convex polygon ``Q[:nq]`` (counter-clockwise, three or more vertices): Sutherland and
    Hodgman, with a point up to ``eps`` outside an edge kept, the points kept after each edge hulled
    again; ``(points, count)``.  ``P`` is overwritten (the points are in it unless it was too small)
    and ``nxt`` is scratch."""
    cur, n = P, np_
    for e in range(nq):
        ax, ay = Q[e, 0], Q[e, 1]
        ex, ey = Q[(e + 1) % nq, 0] - ax, Q[(e + 1) % nq, 1] - ay
        length = math.sqrt(ex * ex + ey * ey)
        if nxt.shape[0] < 2 * n + 2:
            nxt = np.empty((2 * n + 2, 2))
        m = 0
        ox, oy = cur[n - 1, 0], cur[n - 1, 1]
        do = (ex * (oy - ay) - ey * (ox - ax)) / length  # each vertex's distance, computed once
        for i in range(n):
            px, py = cur[i, 0], cur[i, 1]
            dp = (ex * (py - ay) - ey * (px - ax)) / length
            if (dp >= -eps) != (do >= -eps) and n > 1:
                t = do / (do - dp)
                nxt[m, 0] = ox + t * (px - ox)
                nxt[m, 1] = oy + t * (py - oy)
                m += 1
            if dp >= -eps:
                nxt[m, 0], nxt[m, 1] = px, py
                m += 1
            ox, oy, do = px, py, dp
        if m == 0:
            return cur, 0
        if cur.shape[0] < 2 * m + 1:
            cur = np.empty((2 * m + 1, 2))
        n = _hull(nxt, m, eps, cur)
    return cur, n


@njit(cache=True, nogil=True)
def _segments(P, np_, Q, nq, eps, out):
    """The intersection of two points or segments (fewer than three vertices each) into ``out`` (two
    rows): ``(out, n)``."""
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
def _meet(P, np_, Q, nq, eps, scratch):
    """The intersection of two convex hulls (each a polygon, a segment or a point): ``(points, count)``;
    the polygon clipped is overwritten, ``scratch`` (two rows or more) is the work room."""
    if nq >= 3:
        return _clip(P, np_, Q, nq, eps, scratch)
    if np_ >= 3:
        return _clip(Q, nq, P, np_, eps, scratch)
    return _segments(P, np_, Q, nq, eps, scratch)


@njit(cache=True, nogil=True)
def _patch(n0, n1, n2, A, ka, B, kb, mid, eps, out, p, work):
    """The patch of the support sets ``A[:ka]`` and ``B[:kb]`` (``kb < 0``: the whole plane) in the
    plane normal to ``n = (n0, n1, n2)`` at ``n . x = mid``, its vertices (3-D) into ``out[p]``: their
    number.  ``work`` (5, :data:`ROOM`, 2) holds the projected points, their hulls and the clip's room."""
    t0, t1, t2, o0, o1, o2 = tangent_axes(n0, n1, n2)  # t = n x e_k, e_k the axis n is least along
    PA, HA = work[0], work[2]
    for i in range(ka):
        PA[i, 0] = A[i, 0] * t0 + A[i, 1] * t1 + A[i, 2] * t2
        PA[i, 1] = A[i, 0] * o0 + A[i, 1] * o1 + A[i, 2] * o2
    na = _hull(PA, ka, eps, HA)
    if kb < 0:
        H, m = HA, na
    else:
        PB, HB = work[1], work[3]
        for i in range(kb):
            PB[i, 0] = B[i, 0] * t0 + B[i, 1] * t1 + B[i, 2] * t2
            PB[i, 1] = B[i, 0] * o0 + B[i, 1] * o1 + B[i, 2] * o2
        nb = _hull(PB, kb, eps, HB)
        H, m = _meet(HA, na, HB, nb, eps, work[4])
    m = min(m, MAX_POINTS)
    for i in range(m):
        out[p, i, 0] = H[i, 0] * t0 + H[i, 1] * o0 + mid * n0
        out[p, i, 1] = H[i, 0] * t1 + H[i, 1] * o1 + mid * n1
        out[p, i, 2] = H[i, 0] * t2 + H[i, 1] * o2 + mid * n2
    return m


@njit(cache=True, nogil=True)
def _box_box(rot, pos, half, a, b, margin, normal, points, p, A, B, work):
    """Boxes ``a`` and ``b`` (module docstring): ``(code, gap, number of points)``; the normal (from
    ``b`` to ``a``) and the points into ``normal[p]`` and ``points[p]``; ``A``, ``B`` (8, 3) and
    ``work`` scratch."""
    if min(_min3(half, a), _min3(half, b)) <= PATCH_TOLERANCE:
        return ASK_COAL, 0.0, 0
    s, n0, n1, n2, scale = _axis(rot, pos, half, a, b)
    if not s < margin:
        return NONE, s, 0
    eps = WITNESS * scale
    if s > 0.0:  # apart: the distance is s only where the supporting features overlap
        ka, la = _support(rot, pos, half, a, -n0, -n1, -n2, eps, A)
        kb, lb = _support(rot, pos, half, b, n0, n1, n2, eps, B)
        if _patch(n0, n1, n2, A, ka, B, kb, 0.0, eps, points, p, work) == 0:  # else the closest points'
            dist, pa, pb = closest_points(pos[a], rot[a], half[a], pos[b], rot[b], half[b])
            if not dist < margin:
                return NONE, dist, 0
            if not dist > eps:  # touching corners: no direction to rounding
                return ASK_COAL, 0.0, 0
            n0, n1, n2 = (pa[0] - pb[0]) / dist, (pa[1] - pb[1]) / dist, (pa[2] - pb[2]) / dist
    ka, la = _support(rot, pos, half, a, -n0, -n1, -n2, PATCH_TOLERANCE, A)
    kb, lb = _support(rot, pos, half, b, n0, n1, n2, PATCH_TOLERANCE, B)
    m = _patch(n0, n1, n2, A, ka, B, kb, 0.5 * (lb - la), eps, points, p, work)
    if m == 0:
        return ASK_COAL, 0.0, 0
    normal[p, 0], normal[p, 1], normal[p, 2] = n0, n1, n2
    return FOUND, -la - lb, m


@njit(cache=True, nogil=True)
def _box_halfspace(rot, pos, half, g, n0, n1, n2, offset, margin, points, p, A, work):
    """Box ``g`` over the half-space ``n . x <= offset`` (world, ``n = (n0, n1, n2)``): ``(code, gap,
    number of points)``, the points into ``points[p]``; the normal (into the box) is ``n``; ``A``
    (8, 3) and ``work`` scratch."""
    if _min3(half, g) <= PATCH_TOLERANCE:
        return ASK_COAL, 0.0, 0
    ka, la = _support(rot, pos, half, g, -n0, -n1, -n2, PATCH_TOLERANCE, A)
    gap = -la - offset
    if not gap < margin:
        return NONE, gap, 0
    size = 0.0 + abs(pos[g, 0]) + abs(pos[g, 1]) + abs(pos[g, 2])  # np.abs(c).sum(), in its order
    scale = 1.0 + size + _sum3(half, g) + abs(offset)
    m = _patch(n0, n1, n2, A, ka, A, -1, offset + 0.5 * gap, WITNESS * scale, points, p, work)
    return (FOUND, gap, m) if m else (ASK_COAL, 0.0, 0)


@njit(cache=True, nogil=True, inline="always")
def _plane(rot, pos, plane_n, plane_d, h):
    """Half-space ``h`` (``plane_n[h] . y <= plane_d[h]`` in its frame ``rot[h]``, ``pos[h]``) in the
    world: ``(n0, n1, n2, offset)``, ``n = R x`` (:func:`_rotate`'s arithmetic)."""
    n0 = rot[h, 0, 0] * plane_n[h, 0] + rot[h, 0, 1] * plane_n[h, 1] + rot[h, 0, 2] * plane_n[h, 2]
    n1 = rot[h, 1, 0] * plane_n[h, 0] + rot[h, 1, 1] * plane_n[h, 1] + rot[h, 1, 2] * plane_n[h, 2]
    n2 = rot[h, 2, 0] * plane_n[h, 0] + rot[h, 2, 1] * plane_n[h, 1] + rot[h, 2, 2] * plane_n[h, 2]
    return n0, n1, n2, plane_d[h] + (n0 * pos[h, 0] + n1 * pos[h, 1] + n2 * pos[h, 2])


@njit(cache=True, nogil=True)
def pair_contacts(kinds, rot, pos, half, plane_n, plane_d, first, second, margin):
    """Every pair ``(first[p], second[p])`` of geometries (``kinds``: :data:`BOX`, :data:`HALFSPACE`,
    :data:`SPHERE` or other; world placements ``rot`` (G, 3, 3), ``pos`` (G, 3); a box's half sides
    ``half``, a sphere's radius ``half[0]``; a half-space ``plane_n . x <= plane_d`` in its own
    frame): ``(code, normal into the first, gap, count, points)`` per pair (module docstring; spheres
    on spheres and half-spaces: :mod:`~contactcp.models.scene.sphere_pairs`).  The pairs share one
    set of scratch buffers (support sets, projected points, hulls), allocated here."""
    P = first.shape[0]
    code = np.zeros(P, dtype=np.int64)
    normal = np.zeros((P, 3))
    gap = np.zeros(P)
    count = np.zeros(P, dtype=np.int64)
    points = np.zeros((P, MAX_POINTS, 3))
    A, B = np.empty((8, 3)), np.empty((8, 3))
    work = np.empty((5, ROOM, 2))
    for p in range(P):
        i, k = first[p], second[p]
        if kinds[i] == BOX and kinds[k] == BOX:
            code[p], gap[p], count[p] = _box_box(rot, pos, half, i, k, margin, normal, points, p, A, B, work)
        elif kinds[i] == BOX and kinds[k] == HALFSPACE or kinds[i] == HALFSPACE and kinds[k] == BOX:
            b, h = (i, k) if kinds[i] == BOX else (k, i)
            n0, n1, n2, offset = _plane(rot, pos, plane_n, plane_d, h)
            code[p], gap[p], count[p] = _box_halfspace(
                rot, pos, half, b, n0, n1, n2, offset, margin, points, p, A, work
            )
            if b == i:
                normal[p, 0], normal[p, 1], normal[p, 2] = n0, n1, n2
            else:
                normal[p, 0], normal[p, 1], normal[p, 2] = -n0, -n1, -n2
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

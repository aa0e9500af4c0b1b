"""Contact detection's compiled passes (:func:`~contactcp.models.scene.detect.detect_set`): the
geometries' world placements, the bounding-box test and the closed-form pairs, and the contact rows.

* :func:`free_placements`: a free body's joint placement ``oMi`` from its ``q`` (position, unit
  quaternion ``(x, y, z, w)``: Eigen's rotation matrix, the one pinocchio uses) after its joint's
  placement in the world; a robot link's is given (pinocchio's forward kinematics), the world's
  the identity.
* :func:`geometry_placements`: ``oMg = oMi gM`` for every geometry.
* :func:`near_pairs`: the pairs whose world bounding boxes come within the margin (a geometry's
  local box turned by ``R`` spans ``|R|`` half-widths about its centre; an infinite box, a
  plane's, always passes), then :func:`~contactcp.models.scene.box_pairs.pair_contacts` on them.
* :func:`contact_rows`: one row per contact point, pair by pair in order, each pair's frame built
  once (:func:`~contactcp.models.contacts.contact_frames`' arithmetic) and repeated for its points.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from contactcp.models.contacts import _frames
from contactcp.models.scene.box_pairs import ASK_COAL, FOUND, pair_contacts

__all__ = ["free_placements", "geometry_placements", "near_pairs", "contact_rows"]


@njit(cache=True, nogil=True)
def free_placements(q, free_q, joint_R, joint_p, R, O):
    """World placements ``R`` (J, 3, 3), ``O`` (J, 3) of the joints (module docstring):
    ``free_q[j]`` the first ``q`` entry of joint ``j`` when it is a free body's (-1: not), placed
    in the world by ``joint_R[j]``, ``joint_p[j]``; the other joints' rows are ``joint_R[j]``,
    ``joint_p[j]`` as given."""
    for j in range(free_q.shape[0]):
        k = free_q[j]
        if k < 0:
            R[j] = joint_R[j]
            O[j] = joint_p[j]
            continue
        x, y, z, w = q[k + 3], q[k + 4], q[k + 5], q[k + 6]
        tx, ty, tz = 2.0 * x, 2.0 * y, 2.0 * z
        twx, twy, twz = tx * w, ty * w, tz * w
        txx, txy, txz = tx * x, ty * x, tz * x
        tyy, tyz, tzz = ty * y, tz * y, tz * z
        Q = np.empty((3, 3))
        Q[0, 0], Q[0, 1], Q[0, 2] = 1.0 - (tyy + tzz), txy - twz, txz + twy
        Q[1, 0], Q[1, 1], Q[1, 2] = txy + twz, 1.0 - (txx + tzz), tyz - twx
        Q[2, 0], Q[2, 1], Q[2, 2] = txz - twy, tyz + twx, 1.0 - (txx + tyy)
        for i in range(3):
            O[j, i] = joint_p[j, i]
            for c in range(3):
                O[j, i] += joint_R[j, i, c] * q[k + c]
                s = 0.0
                for m in range(3):
                    s += joint_R[j, i, m] * Q[m, c]
                R[j, i, c] = s


@njit(cache=True, nogil=True)
def geometry_placements(joint_R, joint_O, parent, local_R, local_p, R, T):
    """World placements ``R`` (G, 3, 3), ``T`` (G, 3) of the geometries: ``oMg = oMi gM``, ``oMi``
    the placement (``joint_R``, ``joint_O``) of geometry ``g``'s joint ``parent[g]``, ``gM`` its own
    (``local_R``, ``local_p``)."""
    for g in range(parent.shape[0]):
        j = parent[g]
        for i in range(3):
            s = joint_O[j, i]
            for c in range(3):
                s += joint_R[j, i, c] * local_p[g, c]
                r = 0.0
                for m in range(3):
                    r += joint_R[j, i, m] * local_R[g, m, c]
                R[g, i, c] = r
            T[g, i] = s


@njit(cache=True, nogil=True)
def near_pairs(kinds, R, T, half_side, plane_n, plane_d, centre, half, first, second, margin):
    """The pairs ``(first[p], second[p])`` within the margin by their world bounding boxes (local
    ``centre``, ``half`` widths), answered by ``pair_contacts``: ``(near, code, normal, gap, count,
    points, asked)``, ``near`` the indices of the pairs kept, the rest for those pairs in that order,
    ``asked`` how many of them are left to coal."""
    G = kinds.shape[0]
    c = np.empty((G, 3))
    wh = np.empty((G, 3))
    for g in range(G):
        for i in range(3):
            s = T[g, i]
            w = 0.0
            for j in range(3):
                s += R[g, i, j] * centre[g, j]
                w += abs(R[g, i, j]) * half[g, j]
            c[g, i], wh[g, i] = s, w
    P = first.shape[0]
    keep = np.empty(P, dtype=np.int64)
    n = 0
    for p in range(P):
        i, k = first[p], second[p]
        far = False
        for a in range(3):
            reach = wh[i, a] + wh[k, a] + margin
            if np.isfinite(reach) and abs(c[i, a] - c[k, a]) > reach:
                far = True
        if not far:
            keep[n] = p
            n += 1
    near = keep[:n].copy()
    code, normal, gap, count, points = pair_contacts(
        kinds, R, T, half_side, plane_n, plane_d, first[near], second[near], margin
    )
    asked = 0
    for p in range(n):
        if code[p] == ASK_COAL:
            asked += 1
    return near, code, normal, gap, count, points, asked


@njit(cache=True, nogil=True)
def contact_rows(code, normal, gap, count, points, near, first, second, mu):
    """The contact points of the pairs answered (``code == FOUND``; ``near``, ``first``, ``second``,
    ``mu`` by pair, ``near`` the answered pairs' indices), in order: ``(pair, geometries, points,
    normals, frames, gaps, mu)``, ``pair`` each row's pair index (into ``first``)."""
    n = 0
    for p in range(code.shape[0]):
        if code[p] == FOUND:
            n += count[p]
    pair = np.empty(n, dtype=np.int64)
    geometries = np.empty((n, 2), dtype=np.int64)
    rows = np.empty((n, 3))
    normals = np.empty((n, 3))
    gaps = np.empty(n)
    frames = np.empty((n, 3, 3))
    mus = np.empty(n)
    one = np.empty((1, 3))
    j = 0
    for p in range(code.shape[0]):
        if code[p] != FOUND or count[p] == 0:
            continue
        one[0] = normal[p]
        F = _frames(one)
        P = near[p]
        for m in range(count[p]):
            pair[j] = P
            geometries[j, 0], geometries[j, 1] = first[P], second[P]
            rows[j] = points[p, m]
            normals[j] = normal[p]
            gaps[j] = gap[p]
            frames[j] = F[0]
            mus[j] = mu[P]
            j += 1
    return pair, geometries, rows, normals, frames, gaps, mus

"""A time step's contacts and their Jacobian in two compiled passes (:func:`step_contacts`).

The time stepper asks at every step for the contacts of the scene at its ``(q, v)``, within a margin
that grows with the scene's speed, and for their Jacobian ``H``.  :func:`step_contacts` answers
as :func:`~contactcp.models.scene.detect.contact_set` and
:func:`~contactcp.models.scene.dynamics.contact_jacobian` do, with the same arithmetic (the same
answers, to the bit), in two compiled calls in place of seven and the Python between them:

1. :func:`near_pass`: the joints' placements (a free body's from ``q``
   (:func:`~contactcp.models.scene.detect_kernels.free_placements`), a robot link's from
   pinocchio's ``computeJointJacobians``, read as one homogeneous matrix each), the geometries'
   (:func:`~contactcp.models.scene.detect_kernels.geometry_placements`), the speed bound
   (:func:`~contactcp.models.scene.robot_links.speed_bound`) and the margin ``margin + 2 h
   speed`` it gives, then the bounding-box test and the closed-form pairs
   (:func:`~contactcp.models.scene.detect_kernels.near_pairs`);
2. :func:`row_pass`, when no pair is left to coal: the contact rows
   (:func:`~contactcp.models.scene.detect_kernels.contact_rows`) and ``H``'s columns
   (:func:`~contactcp.models.scene.free_bodies.free_columns`,
   :func:`~contactcp.models.scene.robot_links.link_columns`).

A pair left to coal takes the detection's own path from the first pass's answers
(:func:`~contactcp.models.scene.detect.coal_rows`, then ``contact_jacobian``).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from numba import njit

from contactcp.models.scene.detect import (
    _geometries,
    _pair_data,
    _row_labels,
    _shape_data,
    coal_rows,
    collision_pairs,
    geometry_frames,
    geometry_joints,
)
from contactcp.models.scene.detect_kernels import contact_rows, free_placements, geometry_placements, near_pairs
from contactcp.models.scene.dynamics import _free_rows, _robot_joints, contact_jacobian, scene_support_rows
from contactcp.models.scene.free_bodies import free_columns
from contactcp.models.scene.robot_links import link_columns, speed_bound
from contactcp.models.scene.scene import Scene

__all__ = ["step_contacts", "near_pass", "row_pass"]


def step_contacts(scene: Scene, v: np.ndarray, h: float, margin: float, speed: tuple) -> tuple:
    """The contacts at the scene's ``q`` and ``v`` within ``margin + 2 h s`` (``s`` the speed bound
    of any geometry's point, from ``speed = (free_first, free_arms, link_joints, link_arms)``:
    :func:`~contactcp.models.scene.robot_links.speed_bound`'s data) and their Jacobian (module
    docstring): ``(names, bodies, points, frames, gap, mu, H)`` as
    :class:`~contactcp.models.scene.detect.ContactSet`'s fields and ``H`` (``nv x 3 n``).  The
    scene's state is the caller's, checked (the time stepper's)."""
    model, data = scene.model, scene._data
    geoms = _geometries(scene)
    pairs = collision_pairs(scene)
    if not pairs:
        return [], [], np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros(0), np.zeros(0), np.zeros((model.nv, 0))
    kinds, half_side, plane_n, plane_d, centre, half = _shape_data(scene, geoms)
    pd = _pair_data(scene, pairs, geoms)
    first, second = pd["array"]
    free_q, joint_R, joint_p, read = geometry_joints(scene)
    parent, local_R, local_p = geometry_frames(scene)
    read_at, homogeneous = _read_buffers(scene, read)
    if read:
        pin.computeJointJacobians(model, data, scene.q)
        oMi = data.oMi
        for j in read:
            homogeneous[j] = oMi[j].homogeneous
    G, nj = parent.size, model.njoints
    R, O, GR, GT = np.empty((nj, 3, 3)), np.empty((nj, 3)), np.empty((G, 3, 3)), np.empty((G, 3))
    J, support = data.J, scene_support_rows(scene)
    m, *found = near_pass(
        scene.q, v, h, margin, free_q, joint_R, joint_p, read_at, homogeneous, parent, local_R, local_p, *speed, J,
        support, kinds, half_side, plane_n, plane_d, centre, half, first, second, R, O, GR, GT,
    )  # fmt: skip
    if found[-1]:  # pairs left to coal
        cs = coal_rows(scene, m, geoms, GR, GT, pd, tuple(found))
        H = contact_jacobian(scene, cs, joints=(R, O))[0] if len(cs) else np.zeros((model.nv, 0))
        return cs.names, cs.bodies, cs.points, cs.frames, cs.gap, cs.mu, H
    near, code, normal, gap, count, points, _ = found
    pair, rows, frames, gaps, mu, H = row_pass(
        code, normal, gap, count, points, near, first, second, pd["mu"], parent, R, O,
        _free_rows(scene), _robot_joints(scene), J, support,
    )  # fmt: skip
    names, bodies = _row_labels(pd, pair) if pair.size else ([], [])
    return names, bodies, rows, frames, gaps, mu, H


def _read_buffers(scene: Scene, read: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The joints read from pinocchio as an array and a buffer of their homogeneous placements
    ``(njoints, 4, 4)``, kept on the scene for the same joints."""
    cached = getattr(scene, "_step_read", None)
    if cached is None or cached[0] != (read, scene.model.njoints):
        at = np.array(read, dtype=np.int64)
        cached = ((list(read), scene.model.njoints), at, np.zeros((scene.model.njoints, 4, 4)))
        scene._step_read = cached
    return cached[1], cached[2]


@njit(cache=True, nogil=True)
def near_pass(
    q, v, h, margin, free_q, joint_R, joint_p, read, homogeneous, parent, local_R, local_p,
    free_first, free_arms, link_joints, link_arms, J, support,
    kinds, half_side, plane_n, plane_d, centre, half, first, second, R, O, GR, GT,
):  # fmt: skip
    """Pass 1 (module docstring): fills the joints' placements ``R``, ``O`` and the geometries'
    ``GR``, ``GT``; returns the margin and ``near_pairs``' answers ``(margin, near, code, normal,
    gap, count, points, asked)``."""
    free_placements(q, free_q, joint_R, joint_p, R, O)
    for j in read:
        for a in range(3):
            for b in range(3):
                R[j, a, b] = homogeneous[j, a, b]
            O[j, a] = homogeneous[j, a, 3]
    geometry_placements(R, O, parent, local_R, local_p, GR, GT)
    origins = np.empty((link_joints.shape[0], 3))
    for i in range(link_joints.shape[0]):
        origins[i] = O[link_joints[i]]
    m = margin + 2.0 * h * speed_bound(v, free_first, free_arms, J, support, link_joints, origins, link_arms)
    near, code, normal, gap, count, points, asked = near_pairs(
        kinds, GR, GT, half_side, plane_n, plane_d, centre, half, first, second, m
    )
    return m, near, code, normal, gap, count, points, asked


@njit(cache=True, nogil=True)
def row_pass(code, normal, gap, count, points, near, first, second, pair_mu, parent, R, O, row0, robot, J, support):
    """Pass 2 (module docstring): ``(pair, points, frames, gaps, mu, H)``, each row's pair index
    (into ``first``) and ``contact_rows``' rows, then ``H`` (``nv x 3 n``): the free bodies' columns,
    then the robot links'."""
    found = contact_rows(code, normal, gap, count, points, near, first, second, pair_mu)
    pair, geometries, rows, _, frames, gaps, mu = found
    n = pair.shape[0]
    sides = np.empty((n, 2), dtype=np.int64)
    for j in range(n):
        sides[j, 0], sides[j, 1] = parent[geometries[j, 0]], parent[geometries[j, 1]]
    H = np.zeros((J.shape[1], 3 * n))
    free_columns(H, R, O, row0, sides, rows, frames)
    link_columns(H, J, support, robot, sides, rows, frames)
    return pair, rows, frames, gaps, mu, H

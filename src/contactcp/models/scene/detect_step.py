"""A time step's contacts and their Jacobian in one compiled call (:func:`step_contacts`).

The time stepper asks at every step for the contacts of the scene at its ``(q, v)``, within a margin
that grows with the scene's speed, and for their Jacobian ``H``.  :func:`step_contacts` answers
as :func:`~contactcp.models.scene.detect.contact_set` and
:func:`~contactcp.models.scene.dynamics.contact_jacobian` do, with the same arithmetic (the same
answers, to the bit), in one compiled call (:func:`step_pass`) in place of seven and the Python
between them.  Its two passes:

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
(:func:`~contactcp.models.scene.detect.coal_rows`, then ``contact_jacobian``).  What the call
fills and the step reads at once (placements, the first pass's answers) is kept on the scene and
filled again at the next step; a numba call's price is mostly its returned arrays, about 0.4 us
each.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from numba import njit

from contactcp.models.scene.box_pairs import MAX_POINTS
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

__all__ = ["step_contacts", "step_pass", "near_pass", "row_pass"]


def step_contacts(scene: Scene, v: np.ndarray, h: float, margin: float, speed: tuple) -> tuple:
    """The contacts at the scene's ``q`` and ``v`` within ``margin + 2 h s`` (``s`` the speed bound
    of any geometry's point, from ``speed = (free_first, free_arms, link_joints, link_arms)``:
    :func:`~contactcp.models.scene.robot_links.speed_bound`'s data) and their Jacobian (module
    docstring): ``(names, bodies, points, frames, gap, mu, H, blocks)`` as
    :class:`~contactcp.models.scene.detect.ContactSet`'s fields, ``H`` (``nv x 3 n``) and, when
    every side of every contact is a free body or fixed, ``blocks`` (n, 2): each side's first
    velocity row (-1: fixed), the only rows its columns fill (:func:`row_pass`; else None).  The
    scene's state is the caller's, checked (the time stepper's)."""
    model, data = scene.model, scene._data
    plan = _plan(scene)
    if plan is None:
        return [], [], np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros(0), np.zeros(0), np.zeros((model.nv, 0)), None
    geoms, pd, shapes, joints, frames_of, free_rows, robot, support, buffers = plan
    first, second = pd["array"]
    read_at, homogeneous, placed, near = buffers
    if read_at.size:
        pin.computeJointJacobians(model, data, scene.q)
        oMi = data.oMi
        for j in read_at.tolist():
            homogeneous[j] = oMi[j].homogeneous
    asked, k, m, pair, rows, frames, gaps, mu, H, blocks, complete = step_pass(
        scene.q, v, h, margin, *joints[:3], read_at, homogeneous, *frames_of, *speed, data.J, support,
        *shapes, first, second, pd["mu"], free_rows, robot, *placed, *near,
    )  # fmt: skip
    if asked:  # pairs left to coal: the first pass's answers, for the detection's own path
        R, O, GR, GT = placed
        cs = coal_rows(scene, m, geoms, GR, GT, pd, tuple(x[:k] for x in near) + (asked,))
        H = contact_jacobian(scene, cs, joints=(R, O))[0] if len(cs) else np.zeros((model.nv, 0))
        return cs.names, cs.bodies, cs.points, cs.frames, cs.gap, cs.mu, H, None
    names, bodies = _row_labels(pd, pair) if pair.size else ([], [])
    return names, bodies, rows, frames, gaps, mu, H, (blocks if complete else None)


def _plan(scene: Scene) -> tuple | None:
    """What :func:`step_contacts` reads of the scene's structure, from the detection's own caches
    (:func:`~contactcp.models.scene.detect.collision_pairs` and the others, each of which checks its
    own key), None when no pair is checked.  Kept on the scene while its models are the same
    objects of the same sizes and its excluded pairs and friction are equal to those it was
    gathered for: one comparison a step in place of eleven lookups (``timeit`` of a call: 18.5 to
    15.8 us on the three-finger grasp, 142 to 136 on a 25-box pile)."""
    model, gm = scene.model, scene.collision
    sizes = (gm.ngeoms, model.njoints, model.nframes, model.nv)
    friction = (scene.pair_friction, scene.friction, scene.default_friction)
    kept = scene.__dict__.get("_step_plan")
    if kept is not None and kept[0] is model and kept[1] is gm and kept[2] == sizes:
        if kept[3] == scene.excluded and kept[4] == friction:
            return kept[5]
    geoms = _geometries(scene)
    pairs = collision_pairs(scene)
    plan = None
    if pairs:
        joints, frames_of = geometry_joints(scene), geometry_frames(scene)
        plan = (
            geoms,
            _pair_data(scene, pairs, geoms),
            _shape_data(scene, geoms),
            joints,
            frames_of,
            _free_rows(scene),
            _robot_joints(scene),
            scene_support_rows(scene),
            _buffers(scene, joints[3], frames_of[0].size, len(pairs)),
        )
    copies = (dict(scene.pair_friction), dict(scene.friction), scene.default_friction)
    scene._step_plan = (model, gm, sizes, set(scene.excluded), copies, plan)
    return plan


def _buffers(scene: Scene, read: list[int], G: int, P: int) -> tuple:
    """What :func:`step_pass` fills and the step reads within the step (kept on the scene for the
    same joints, geometries and pairs): the joints read from pinocchio as an array and their
    homogeneous placements ``(njoints, 4, 4)``; the joints' and geometries' placements ``(R, O,
    GR, GT)``; room for the first pass's answers on all ``P`` pairs."""
    nj = scene.model.njoints
    key = (list(read), nj, G, P)
    cached = getattr(scene, "_step_buffers", None)
    if cached is None or cached[0] != key:
        placed = (np.empty((nj, 3, 3)), np.empty((nj, 3)), np.empty((G, 3, 3)), np.empty((G, 3)))
        near = (
            np.empty(P, dtype=np.int64),
            np.empty(P, dtype=np.int64),
            np.empty((P, 3)),
            np.empty(P),
            np.empty(P, dtype=np.int64),
            np.empty((P, MAX_POINTS, 3)),
        )
        cached = (key, np.array(read, dtype=np.int64), np.zeros((nj, 4, 4)), placed, near)
        scene._step_buffers = cached
    return cached[1:]


@njit(cache=True, nogil=True)
def step_pass(
    q, v, h, margin, free_q, joint_R, joint_p, read, homogeneous, parent, local_R, local_p,
    free_first, free_arms, link_joints, link_arms, J, support,
    kinds, half_side, plane_n, plane_d, centre, half, first, second, pair_mu, row0, robot,
    R, O, GR, GT, near_at, code_at, normal_at, gap_at, count_at, points_at,
):  # fmt: skip
    """Both passes in one call (module docstring): fills ``R``, ``O``, ``GR``, ``GT``; returns
    ``(asked, k, margin, pair, points, frames, gaps, mu, H, blocks, complete)``.  When ``asked`` pairs are left to
    coal, the rows are empty and the first pass's ``k`` answers are in ``near_at`` ...
    ``points_at`` (:func:`near_pass`'s ``near, code, normal, gap, count, points``)."""
    m, near, code, normal, gap, count, points, asked = near_pass(
        q, v, h, margin, free_q, joint_R, joint_p, read, homogeneous, parent, local_R, local_p,
        free_first, free_arms, link_joints, link_arms, J, support,
        kinds, half_side, plane_n, plane_d, centre, half, first, second, R, O, GR, GT,
    )  # fmt: skip
    k = near.shape[0]
    if asked:
        near_at[:k], code_at[:k], normal_at[:k], gap_at[:k], count_at[:k] = near, code, normal, gap, count
        points_at[:k] = points
        none = np.zeros(0)
        return (
            asked,
            k,
            m,
            near[:0].copy(),
            np.zeros((0, 3)),
            np.zeros((0, 3, 3)),
            none,
            none,
            np.zeros((J.shape[1], 0)),
            np.zeros((0, 2), dtype=np.int64),
            False,
        )
    pair, rows, frames, gaps, mu, H, blocks, complete = row_pass(
        code, normal, gap, count, points, near, first, second, pair_mu, parent, R, O, row0, robot, J, support
    )
    return asked, k, m, pair, rows, frames, gaps, mu, H, blocks, complete


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
    """Pass 2 (module docstring): ``(pair, points, frames, gaps, mu, H, blocks, complete)``, each row's
    pair index (into ``first``) and ``contact_rows``' rows, then ``H`` (``nv x 3 n``): the free
    bodies' columns, then the robot links'; ``blocks`` (n, 2) the first velocity row of each contact
    side's free body (-1: not a free body), ``complete`` when no side is a robot link (``blocks``
    then tells every row a contact's columns can fill)."""
    found = contact_rows(code, normal, gap, count, points, near, first, second, pair_mu)
    pair, geometries, rows, _, frames, gaps, mu = found
    n = pair.shape[0]
    sides = np.empty((n, 2), dtype=np.int64)
    for j in range(n):
        sides[j, 0], sides[j, 1] = parent[geometries[j, 0]], parent[geometries[j, 1]]
    H = np.zeros((J.shape[1], 3 * n))
    free_columns(H, R, O, row0, sides, rows, frames)
    link_columns(H, J, support, robot, sides, rows, frames)
    # each side's free-body rows (its 6 velocity rows hold all of the side's entries; -1: none), and
    # whether that is every entry of H (no side on a robot link, whose columns follow its joints)
    blocks = np.full((n, 2), -1, dtype=np.int64)
    complete = True
    for j in range(n):
        for side in range(2):
            ji = sides[j, side]
            if row0[ji] >= 0:
                blocks[j, side] = row0[ji]
            elif robot[ji]:
                complete = False
    return pair, rows, frames, gaps, mu, H, blocks, complete

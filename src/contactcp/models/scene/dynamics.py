"""The instantaneous contact problem of a scene: ``a = A c + b`` from pinocchio's rigid-body algebra.

For detected contacts (:mod:`contactcp.models.scene.detect`) with frames ``C_j = [n, t, o]`` the
columns of ``H`` for contact ``j`` are ``(J_1(p_j) - J_2(p_j))^T C_j``, ``J_i`` the world-frame
Jacobian of the point ``p_j`` fixed to body ``i`` (zero for the world).  Then, as for
:class:`~contactcp.models.system.MultibodySystem` (Buffo–Maciel (7)–(11), (21)–(24)),

    ``M(q) dv/dt = tau + w - nle(q, v) + H c``,   ``a = H^T dv/dt + k``,

``M`` pinocchio's CRBA, ``nle`` its RNEA with zero acceleration (gravity, Coriolis, centrifugal), ``w`` the applied
wrenches on free bodies (:meth:`Scene.set_wrench`),
``k = C^T (Jdot_1 v - Jdot_2 v)`` the classical accelerations of the contact points at zero
``dv/dt``.  ``c`` is the force on the first body in the contact frame.  A contact whose relative
tangential velocity ``C^T (J_1 - J_2) v`` exceeds ``sliding_tol`` (m/s) slides.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from contactcp._validate import number
from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.models.manipulator import mass_matrix, point_terms
from contactcp.models.scene.detect import ContactSet, SceneContact, joint_placements
from contactcp.models.scene.free_bodies import free_columns
from contactcp.models.scene.robot_links import link_columns, support_rows
from contactcp.models.scene.scene import Scene
from contactcp.models.system import ContactDynamics, check_size

__all__ = ["scene_dynamics", "contact_jacobian", "scene_support_rows", "DEFAULT_SLIDING_TOL"]

#: relative tangential speed (m/s) above which a contact counts as sliding
DEFAULT_SLIDING_TOL = 1e-6


def _weak_joints(scene: Scene, M: np.ndarray) -> str:
    """Why a mass matrix is singular, when joints move no mass."""
    weak = [j.name for j in scene.joints if np.abs(M[j.v, j.v]).max(initial=0.0) <= 1e-12]
    return f": joint(s) {weak} move no mass (give the links inertia, or armature)" if weak else ""


def _contact_arrays(contacts: ContactSet | list[SceneContact]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(geometries (n, 2), points (n, 3), frames (n, 3, 3))`` of contacts given either way."""
    if isinstance(contacts, ContactSet):
        return contacts.geometries, contacts.points, contacts.frames
    n = len(contacts)
    return (
        np.array([c.geometries for c in contacts], dtype=np.int64).reshape(n, 2),
        np.array([c.point for c in contacts], dtype=float).reshape(n, 3),
        np.array([c.frame for c in contacts], dtype=float).reshape(n, 3, 3),
    )


def contact_jacobian(
    scene: Scene, contacts: ContactSet | list[SceneContact], accelerations: bool = False, joints: tuple | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(H, k)`` at the scene's ``(q, v)``: ``H`` (``nv x 3 n_c``) maps ``v`` to the contact-frame
    relative velocities ``u = H^T v`` of the first bodies, ``k`` their classical accelerations at zero
    ``dv/dt`` (zeros unless ``accelerations``).  Without accelerations the columns are compiled: a
    free body's side from its placement (:mod:`~contactcp.models.scene.free_bodies`), a robot link's
    from pinocchio's joint Jacobians (:mod:`~contactcp.models.scene.robot_links`); with them, by
    pinocchio's point Jacobians and classical accelerations, contact by contact.  ``joints``: the
    scene's :func:`~contactcp.models.scene.detect.joint_placements` at its ``q``, when the caller
    has them (the time stepper's detection computed them)."""
    model, data = scene.model, scene._data
    nv = model.nv
    geometries, points, frames = _contact_arrays(contacts)
    nc = len(points)
    H = np.zeros((nv, 3 * nc))
    k = np.zeros(3 * nc)
    sides = _geometry_joints(scene)[geometries]
    row0 = _free_rows(scene)
    if not accelerations:
        if nc:
            R, origin = joint_placements(scene) if joints is None else joints
            free_columns(H, R, origin, row0, sides, points, frames)
            robot = _robot_joints(scene)
            if robot[sides].any():  # data.J is current after joint_placements (robot links carry geometry)
                link_columns(H, data.J, scene_support_rows(scene), robot, sides, points, frames)
        return H, k
    pin.forwardKinematics(model, data, scene.q, scene.v, np.zeros(nv))
    pin.computeJointJacobians(model, data)
    nothing = (np.zeros((3, nv)), np.zeros(3))  # the world does not move
    for j in range(nc):
        C = frames[j]
        ji, jk = int(sides[j, 0]), int(sides[j, 1])
        J1, a1 = point_terms(model, data, ji, points[j]) if ji else nothing
        J2, a2 = point_terms(model, data, jk, points[j]) if jk else nothing
        H[:, 3 * j : 3 * j + 3] = (J1 - J2).T @ C
        k[3 * j : 3 * j + 3] = C.T @ (a1 - a2)
    return H, k


def _geometry_joints(scene: Scene) -> np.ndarray:
    """Each geometry's parent joint (kept on the scene while its geometries stay the same)."""
    gm = scene.collision
    key = (scene.model.njoints, gm.ngeoms)
    cached = getattr(scene, "_geometry_joints", None)
    if cached is None or cached[0] != key:
        cached = (key, np.array([g.parentJoint for g in gm.geometryObjects], dtype=np.int64))
        scene._geometry_joints = cached
    return cached[1]


def _free_rows(scene: Scene) -> np.ndarray:
    """Per joint index, a free flyer's first velocity index, else -1 (the world, 0, included); kept on
    the scene while its joints stay the same."""
    model = scene.model
    cached = getattr(scene, "_free_rows", None)
    if cached is None or cached[0] != model.njoints:
        rows = [
            model.joints[j].idx_v if j and model.joints[j].shortname() == "JointModelFreeFlyer" else -1
            for j in range(model.njoints)
        ]
        cached = (model.njoints, np.array(rows, dtype=np.int64))
        scene._free_rows = cached
    return cached[1]


def _robot_joints(scene: Scene) -> np.ndarray:
    """Per joint index, whether it is a robot joint (not the world, not a free flyer); kept on the
    scene while its joints stay the same."""
    model = scene.model
    cached = getattr(scene, "_robot_joints", None)
    if cached is None or cached[0] != model.njoints:
        robot = _free_rows(scene) < 0
        robot[0] = False  # the world does not move
        cached = (model.njoints, robot)
        scene._robot_joints = cached
    return cached[1]


def scene_support_rows(scene: Scene) -> np.ndarray:
    """:func:`~contactcp.models.scene.robot_links.support_rows` of the scene's model, the world's row
    empty (kept on the scene while its joints stay the same)."""
    model = scene.model
    cached = getattr(scene, "_support_rows", None)
    if cached is None or cached[0] != (model.njoints, model.nv):
        cached = ((model.njoints, model.nv), support_rows(model))
        scene._support_rows = cached
    return cached[1]


def scene_dynamics(
    scene: Scene, contacts: list[SceneContact], sliding_tol: float = DEFAULT_SLIDING_TOL
) -> ContactDynamics:
    """``a = A c + b`` of the scene's state with ``contacts`` (see the module docstring)."""
    if not contacts:
        raise InvalidProblemError("contacts", "no contact was detected (nothing touches within the margin)")
    sliding_tol = number(sliding_tol, "sliding_tol")
    if not sliding_tol >= 0:
        raise InvalidOptionError("sliding_tol", f"must be >= 0 (m/s), got {sliding_tol!r}")
    scene.check_state()
    model, data = scene.model, scene._data
    nv, nc = model.nv, len(contacts)
    check_size(nv, nc, 3, "contacts", f"a scene of {nc} contacts and {nv} degrees of freedom")
    H, k = contact_jacobian(scene, contacts, accelerations=True)
    f = scene.generalized_forces() - np.asarray(pin.nonLinearEffects(model, data, scene.q, scene.v))
    M = mass_matrix(model, data, scene.q)
    u = (H.T @ scene.v).reshape(nc, 3)
    sliding = np.linalg.norm(u[:, 1:], axis=1) > sliding_tol
    v_t = np.where(sliding[:, None], u[:, 1:], 0.0)
    mu = np.array([c.mu for c in contacts])
    names = [c.name for c in contacts]
    return ContactDynamics.assemble(H, M, f, k, mu, 3, sliding, v_t, names, lambda: _weak_joints(scene, M))

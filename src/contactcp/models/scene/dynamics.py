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
from contactcp.models.scene.detect import SceneContact
from contactcp.models.scene.scene import Scene
from contactcp.models.system import ContactDynamics, check_size

__all__ = ["scene_dynamics", "contact_jacobian", "DEFAULT_SLIDING_TOL"]

#: relative tangential speed (m/s) above which a contact counts as sliding
DEFAULT_SLIDING_TOL = 1e-6


def _weak_joints(scene: Scene, M: np.ndarray) -> str:
    """Why a mass matrix is singular, when joints move no mass."""
    weak = [j.name for j in scene.joints if np.abs(M[j.v, j.v]).max(initial=0.0) <= 1e-12]
    return f": joint(s) {weak} move no mass (give the links inertia, or armature)" if weak else ""


def contact_jacobian(
    scene: Scene, contacts: list[SceneContact], accelerations: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """``(H, k)`` at the scene's ``(q, v)``: ``H`` (``nv x 3 n_c``) maps ``v`` to the contact-frame
    relative velocities ``u = H^T v`` of the first bodies, ``k`` their classical accelerations at zero
    ``dv/dt`` (zeros unless ``accelerations``)."""
    model, data = scene.model, scene._data
    nv, nc = model.nv, len(contacts)
    if accelerations:
        pin.forwardKinematics(model, data, scene.q, scene.v, np.zeros(nv))
    else:
        pin.forwardKinematics(model, data, scene.q)
    H = np.zeros((nv, 3 * nc))
    k = np.zeros(3 * nc)
    nothing = (np.zeros((3, nv)), np.zeros(3))  # the world does not move
    gjoint = _geometry_joints(scene)
    sides = np.array([gjoint[list(c.geometries)] for c in contacts], dtype=int).reshape(nc, 2)
    free = _free_joints(model)
    if not accelerations and nc:
        _free_columns(H, data, contacts, sides, free)
    if accelerations or not all(ji == 0 or ji in free for ji in sides.reshape(-1).tolist()):
        pin.computeJointJacobians(model, data)
    for j, c in enumerate(contacts):
        if not accelerations and all(ji == 0 or ji in free for ji in sides[j]):
            continue  # filled in by _free_columns
        C = c.frame
        ji, jk = int(sides[j, 0]), int(sides[j, 1])
        J1, a1 = point_terms(model, data, ji, c.point) if ji else nothing
        J2, a2 = point_terms(model, data, jk, c.point) if jk else nothing
        H[:, 3 * j : 3 * j + 3] = (J1 - J2).T @ C
        if accelerations:
            k[3 * j : 3 * j + 3] = C.T @ (a1 - a2)
    return H, k


def _geometry_joints(scene: Scene) -> np.ndarray:
    """Each geometry's parent joint (kept on the scene while its geometries stay the same)."""
    gm = scene.collision
    key = (scene.model.njoints, gm.ngeoms)
    cached = getattr(scene, "_geometry_joints", None)
    if cached is None or cached[0] != key:
        cached = (key, np.array([g.parentJoint for g in gm.geometryObjects], dtype=int))
        scene._geometry_joints = cached
    return cached[1]


def _free_joints(model: pin.Model) -> dict[int, int]:
    """Free-flyer joint index -> its first velocity index."""
    return {
        j: model.joints[j].idx_v
        for j in range(1, model.njoints)
        if model.joints[j].shortname() == "JointModelFreeFlyer"
    }


def _free_columns(H: np.ndarray, data: pin.Data, contacts: list[SceneContact], sides: np.ndarray, free: dict) -> None:
    """The columns of contacts between free bodies and the world, all at once: a free body's
    velocity ``(v, w)`` is in its own axes ``R``, so the world velocity of a point ``x`` fixed to it
    is ``R v + (R w) x (x - o)`` and the contact's rows are ``R^T C`` and ``R^T ((x - o) x C)``."""
    nc = len(contacts)
    C = np.array([c.frame for c in contacts]).reshape(nc, 3, 3)
    x = np.array([c.point for c in contacts]).reshape(nc, 3)
    cols = 3 * np.arange(nc)[:, None] + np.arange(3)[None, :]
    for side, sign in ((0, 1.0), (1, -1.0)):
        on = np.array([ji in free for ji in sides[:, side]], dtype=bool)
        if not on.any():
            continue
        joints = sides[on, side]
        used = np.unique(joints)
        at = np.searchsorted(used, joints)
        R = np.array([data.oMi[int(j)].rotation for j in used]).reshape(-1, 3, 3)[at]
        o = np.array([data.oMi[int(j)].translation for j in used]).reshape(-1, 3)[at]
        Cs = C[on]
        lin = np.einsum("kab,kac->kbc", R, Cs)  # R^T C
        arm = np.cross((x[on] - o)[:, :, None], Cs, axis=1)  # (x - o) x each column of C
        ang = np.einsum("kab,kac->kbc", R, arm)
        rows = np.array([free[int(j)] for j in used])[at][:, None] + np.arange(6)[None, :]
        H[rows[:, :, None], cols[on][:, None, :]] += sign * np.concatenate([lin, ang], axis=1)


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

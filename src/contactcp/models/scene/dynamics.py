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
    pin.computeJointJacobians(model, data)
    H = np.zeros((nv, 3 * nc))
    k = np.zeros(3 * nc)
    nothing = (np.zeros((3, nv)), np.zeros(3))  # the world does not move
    for j, c in enumerate(contacts):
        C = c.frame
        ji, jk = (scene.collision.geometryObjects[g].parentJoint for g in c.geometries)
        J1, a1 = point_terms(model, data, ji, c.point) if ji else nothing
        J2, a2 = point_terms(model, data, jk, c.point) if jk else nothing
        H[:, 3 * j : 3 * j + 3] = (J1 - J2).T @ C
        if accelerations:
            k[3 * j : 3 * j + 3] = C.T @ (a1 - a2)
    return H, k


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

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
import scipy.linalg as sla

from contactcp._validate import number
from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.models.scene.detect import SceneContact
from contactcp.models.scene.scene import Scene
from contactcp.models.system import ContactDynamics, check_size

__all__ = ["scene_dynamics", "DEFAULT_SLIDING_TOL"]

#: relative tangential speed (m/s) above which a contact counts as sliding
DEFAULT_SLIDING_TOL = 1e-6

_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def _point_terms(scene: Scene, joint: int, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World Jacobian (3 x nv) and classical bias acceleration of point ``p`` fixed to ``joint``."""
    model, data = scene.model, scene._data
    if joint == 0:
        return np.zeros((3, model.nv)), np.zeros(3)
    placement = pin.SE3(np.eye(3), data.oMi[joint].actInv(p))
    J = np.asarray(pin.getFrameJacobian(model, data, joint, placement, _LWA))[:3].reshape(3, model.nv)
    acc = np.asarray(pin.getFrameClassicalAcceleration(model, data, joint, placement, _LWA).linear)
    return J, acc


def _mass_matrix(scene: Scene) -> tuple[np.ndarray, object]:
    model = scene.model
    M = np.array(pin.crba(model, scene._data, scene.q))
    lower = np.tril_indices(model.nv, -1)
    M[lower] = M.T[lower]
    try:
        return M, sla.cho_factor(M)
    except (np.linalg.LinAlgError, ValueError):
        weak = [j.name for j in scene.joints if np.abs(M[j.v, j.v]).max(initial=0.0) <= 1e-12]
        why = f": joint(s) {weak} move no mass (give the links inertia, or armature)" if weak else ""
        raise InvalidProblemError("mass matrix", f"is singular or not positive definite{why}") from None


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
    pin.forwardKinematics(model, data, scene.q, scene.v, np.zeros(nv))
    pin.computeJointJacobians(model, data)
    H = np.zeros((nv, 3 * nc))
    k = np.zeros(3 * nc)
    for j, c in enumerate(contacts):
        C = c.frame
        gi, gk = c.geometries
        J1, a1 = _point_terms(scene, scene.collision.geometryObjects[gi].parentJoint, c.point)
        J2, a2 = _point_terms(scene, scene.collision.geometryObjects[gk].parentJoint, c.point)
        H[:, 3 * j : 3 * j + 3] = (J1 - J2).T @ C
        k[3 * j : 3 * j + 3] = C.T @ (a1 - a2)
    f = scene.generalized_forces() - np.asarray(pin.nonLinearEffects(model, data, scene.q, scene.v))
    M, L = _mass_matrix(scene)
    MiHf = sla.cho_solve(L, np.column_stack([H, f]), check_finite=False)
    A = H.T @ MiHf[:, :-1]
    A = 0.5 * (A + A.T)
    b = H.T @ MiHf[:, -1] + k
    u = (H.T @ scene.v).reshape(nc, 3)
    sliding = np.linalg.norm(u[:, 1:], axis=1) > sliding_tol
    v_t = np.where(sliding[:, None], u[:, 1:], 0.0)
    mu = np.array([c.mu for c in contacts])
    cd = ContactDynamics(A, b, mu, 3, sliding, v_t, H, M, f, k, [c.name for c in contacts])
    cd.cho_M = L
    return cd

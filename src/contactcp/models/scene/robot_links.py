"""The contact Jacobian's columns on robot links, compiled (:func:`~contactcp.models.scene.dynamics.contact_jacobian`).

After pinocchio's ``computeJointJacobians``, ``data.J`` (6 x nv) holds each velocity's motion in the
world frame at the world origin, ``(v_O, w)`` per column: the world velocity of a point ``x`` fixed to
joint ``i`` is ``sum_k (v_O,k + w_k x x) v_k`` over the velocities ``k`` that move joint ``i`` (those
of the joints on its path from the root: pinocchio's ``model.supports[i]``).  Contact ``j``'s column
``C_c`` (frame ``C = [n, t, o]``) has, in row ``k``, ``C_c . v_O,k + w_k . (x x C_c)``, with the sign
``+`` for the first body and ``-`` for the second: the rows pinocchio's point Jacobian
(``getFrameJacobian`` of a frame at ``x``, LOCAL_WORLD_ALIGNED) gives, to rounding, without a Python
call per contact.  The moments are taken about the world origin, so their rounding grows with the
scene's distance from it (``eps |w| |x|``); tested to 1e-14 relative at the grasp's and the hand's
scale, a metre about the origin.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
from numba import njit

__all__ = ["link_columns", "speed_bound", "support_rows"]


def support_rows(model: pin.Model) -> np.ndarray:
    """``(njoints, nv)`` booleans: the velocities that move each joint (none for the world)."""
    rows = np.zeros((model.njoints, model.nv), dtype=np.bool_)
    for i in range(1, model.njoints):
        for k in model.supports[i]:
            if k:
                joint = model.joints[k]
                rows[i, joint.idx_v : joint.idx_v + joint.nv] = True
    return rows


@njit(cache=True, nogil=True)
def link_columns(H, J, support, robot, sides, points, frames):
    """Add into ``H`` (``nv x 3 n``) the columns of every contact side on a joint with ``robot[joint]``
    (module docstring): ``J`` pinocchio's ``data.J``, ``support`` :func:`support_rows`, ``sides``
    (n, 2) the joints of each contact's two bodies."""
    nv = J.shape[1]
    for j in range(sides.shape[0]):
        for side in range(2):
            ji = sides[j, side]
            if not robot[ji]:
                continue
            sign = 1.0 if side == 0 else -1.0
            x0, x1, x2 = points[j, 0], points[j, 1], points[j, 2]
            for col in range(3):
                c0, c1, c2 = frames[j, 0, col], frames[j, 1, col], frames[j, 2, col]
                a0 = x1 * c2 - x2 * c1  # x x c
                a1 = x2 * c0 - x0 * c2
                a2 = x0 * c1 - x1 * c0
                h = 3 * j + col
                for k in range(nv):
                    if support[ji, k]:
                        H[k, h] += sign * (
                            c0 * J[0, k] + c1 * J[1, k] + c2 * J[2, k] + a0 * J[3, k] + a1 * J[4, k] + a2 * J[5, k]
                        )


@njit(cache=True, nogil=True)
def speed_bound(v, free_lin, free_arms, J, support, joints, origins, arms):
    """An upper bound of the speed of any point of any geometry: the largest ``|v_o| + |w| arm``
    over free bodies' geometries (their twist ``(v, w)`` the six velocities from ``free_lin[i]``, in
    their own axes) and robot links' (``joints[i]``, world origin ``origins[i]``: the twist
    ``(v_O, w) = J_i v`` from pinocchio's ``data.J`` (module docstring), ``v_o = v_O + w x o``);
    ``arm`` how far the geometry reaches from its joint's origin."""
    best = 0.0
    for i in range(free_lin.shape[0]):
        k = free_lin[i]
        s = math.sqrt(v[k] ** 2 + v[k + 1] ** 2 + v[k + 2] ** 2)
        s += math.sqrt(v[k + 3] ** 2 + v[k + 4] ** 2 + v[k + 5] ** 2) * free_arms[i]
        best = max(best, s)
    V = np.empty(6)
    for i in range(joints.shape[0]):
        ji = joints[i]
        V[:] = 0.0
        for k in range(J.shape[1]):
            if support[ji, k]:
                for a in range(6):
                    V[a] += J[a, k] * v[k]
        o0, o1, o2 = origins[i, 0], origins[i, 1], origins[i, 2]
        s0 = V[0] + V[4] * o2 - V[5] * o1
        s1 = V[1] + V[5] * o0 - V[3] * o2
        s2 = V[2] + V[3] * o1 - V[4] * o0
        s = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2) + math.sqrt(V[3] * V[3] + V[4] * V[4] + V[5] * V[5]) * arms[i]
        best = max(best, s)
    return best

"""The body frames' world poses of a trajectory, compiled (:meth:`SceneSystem.poses
<contactcp.simulate.stepping.systems.SceneSystem.poses>`): ``oMf = oMi fM`` from the parent joints'
placements ``oMi`` and the frames' own ``fM``, and each rotation's unit quaternion by Eigen's
conversion from a rotation matrix (the one ``pinocchio.Quaternion(R)`` runs: from the trace when it
is positive, else from the largest diagonal entry), stored ``(w, x, y, z)``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["frame_poses", "quaternion_wxyz"]


@njit(cache=True, nogil=True)
def quaternion_wxyz(m, out):
    """``out = (w, x, y, z)``, the unit quaternion of the rotation matrix ``m`` (module docstring)."""
    t = m[0, 0] + m[1, 1] + m[2, 2]
    if t > 0.0:
        t = math.sqrt(t + 1.0)
        out[0] = 0.5 * t
        t = 0.5 / t
        out[1] = (m[2, 1] - m[1, 2]) * t
        out[2] = (m[0, 2] - m[2, 0]) * t
        out[3] = (m[1, 0] - m[0, 1]) * t
        return
    i = 0
    if m[1, 1] > m[0, 0]:
        i = 1
    if m[2, 2] > m[i, i]:
        i = 2
    j = (i + 1) % 3
    k = (j + 1) % 3
    t = math.sqrt(m[i, i] - m[j, j] - m[k, k] + 1.0)
    out[1 + i] = 0.5 * t
    t = 0.5 / t
    out[0] = (m[k, j] - m[j, k]) * t
    out[1 + j] = (m[j, i] + m[i, j]) * t
    out[1 + k] = (m[k, i] + m[i, k]) * t


@njit(cache=True, nogil=True)
def frame_poses(joint_R, joint_O, parent, local_R, local_p, pos, quat):
    """Frame ``f``'s world position ``pos[f] = R_i p_f + O_i`` and quaternion ``quat[f]`` (``w, x, y,
    z``) of ``R_i R_f``, ``(R_i, O_i)`` the placement of its joint ``parent[f]``, ``(R_f, p_f)``
    (``local_R``, ``local_p``) its own."""
    R = np.empty((3, 3))
    for f in range(parent.shape[0]):
        j = parent[f]
        for i in range(3):
            s = 0.0
            for c in range(3):
                s += joint_R[j, i, c] * local_p[f, c]
                r = 0.0
                for m in range(3):
                    r += joint_R[j, i, m] * local_R[f, m, c]
                R[i, c] = r
            pos[f, i] = s + joint_O[j, i]
        quaternion_wxyz(R, quat[f])

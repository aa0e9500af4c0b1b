"""Free bodies' positions and velocities over a step, compiled (for
:class:`~contactcp.simulate.stepping.systems.SceneSystem`).

A free body's configuration is ``(p, Q)`` (position, unit quaternion ``x, y, z, w``) and its velocity
``(v, w)`` is in its own axes ``R = R(Q)``.  A step ``(dp, dw)`` (in those axes) moves it to
``p + R dp`` and turns it to ``R exp(dw)``, the quaternion ``Q (x) (cos(t/2), sin(t/2) dw / t)``,
``t = |dw|``, renormalised (:func:`integrate_free`).  A robot's revolute and prismatic joints add
their step, ``q + dq``, as pinocchio integrates them (:func:`integrate_joints`).  A velocity in the
axes at the start is carried to the axes at the end by ``exp(dw)^T`` (:func:`transport_free`).
``exp`` is Rodrigues' formula, with its series below ``t = 1e-4`` (where the closed form loses
digits).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

__all__ = [
    "vector_coordinates",
    "VECTOR_JOINTS",
    "integrate_free",
    "integrate_joints",
    "transport_free",
    "transported",
    "fill_lower",
    "add_free_bias",
]


#: pinocchio's joints whose integration adds the velocity to the configuration, ``q + v``
VECTOR_JOINTS = frozenset(
    ("RX", "RY", "RZ", "RevoluteUnaligned", "PX", "PY", "PZ", "PrismaticUnaligned", "Translation")
)


def vector_coordinates(model: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """The configuration and velocity indices ``(vq, vv)`` of a pinocchio model's joints in
    :data:`VECTOR_JOINTS` (for :func:`integrate_joints`), and how many joints are not (free
    bodies among them; the world, joint 0, which pinocchio lists as a revolute joint at ``q``
    index -1, is left out)."""
    vq: list[int] = []
    vv: list[int] = []
    others = 0
    for joint in list(model.joints)[1:]:
        if joint.shortname().removeprefix("JointModel") in VECTOR_JOINTS:
            vq += range(joint.idx_q, joint.idx_q + joint.nq)
            vv += range(joint.idx_v, joint.idx_v + joint.nv)
        else:
            others += 1
    return np.array(vq, dtype=np.int64), np.array(vv, dtype=np.int64), others


@njit(cache=True, nogil=True)
def _exp3(w):
    """Rodrigues: ``exp([w]x)``."""
    t2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2]
    if t2 < 1e-8:
        a = 1.0 - t2 / 6.0 + t2 * t2 / 120.0  # sin t / t
        b = 0.5 - t2 / 24.0 + t2 * t2 / 720.0  # (1 - cos t) / t^2
    else:
        t = math.sqrt(t2)
        a, b = math.sin(t) / t, (1.0 - math.cos(t)) / t2
    R = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            R[i, j] = b * w[i] * w[j] - (b * t2 if i == j else 0.0) + (1.0 if i == j else 0.0)
    R[0, 1] -= a * w[2]
    R[1, 0] += a * w[2]
    R[0, 2] += a * w[1]
    R[2, 0] -= a * w[1]
    R[1, 2] -= a * w[0]
    R[2, 1] += a * w[0]
    return R


@njit(cache=True, nogil=True)
def integrate_free(q, dq, qpos, vpos, out):
    """Each free body ``k`` (its ``q`` from ``qpos[k]``: 3 position, 4 quaternion entries; its ``dq``
    from ``vpos[k]``: 3 linear, 3 angular) moved by its step into ``out`` (module docstring)."""
    for k in range(qpos.shape[0]):
        i, j = qpos[k], vpos[k]
        x, y, z, w = q[i + 3], q[i + 4], q[i + 5], q[i + 6]
        R = np.empty((3, 3))  # of the unit quaternion
        R[0, 0], R[0, 1], R[0, 2] = 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)
        R[1, 0], R[1, 1], R[1, 2] = 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)
        R[2, 0], R[2, 1], R[2, 2] = 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)
        for r in range(3):
            out[i + r] = q[i + r] + R[r, 0] * dq[j] + R[r, 1] * dq[j + 1] + R[r, 2] * dq[j + 2]
        a, b, c = dq[j + 3], dq[j + 4], dq[j + 5]
        t2 = a * a + b * b + c * c
        if t2 < 1e-8:
            s = 0.5 - t2 / 48.0 + t2 * t2 / 3840.0  # sin(t / 2) / t
            co = 1.0 - t2 / 8.0 + t2 * t2 / 384.0  # cos(t / 2)
        else:
            t = math.sqrt(t2)
            s, co = math.sin(0.5 * t) / t, math.cos(0.5 * t)
        px, py, pz, pw = s * a, s * b, s * c, co
        nx = w * px + x * pw + y * pz - z * py
        ny = w * py - x * pz + y * pw + z * px
        nz = w * pz + x * py - y * px + z * pw
        nw = w * pw - x * px - y * py - z * pz
        norm = math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw)
        out[i + 3], out[i + 4], out[i + 5], out[i + 6] = nx / norm, ny / norm, nz / norm, nw / norm


@njit(cache=True, nogil=True)
def integrate_joints(q, dq, qpos, vpos, vq, vv):
    """``q`` moved by ``dq``, a new array: the free bodies (:func:`integrate_free`) and the joints
    whose configuration adds their velocity, coordinate ``vq[i]`` by velocity ``vv[i]``; the
    caller knows these are all of the system's joints."""
    out = q.copy()
    for i in range(vq.shape[0]):
        out[vq[i]] = q[vq[i]] + dq[vv[i]]
    integrate_free(q, dq, qpos, vpos, out)
    return out


@njit(cache=True, nogil=True)
def transported(dq, v, vpos):
    """:func:`transport_free` of ``v`` into a new array (its other entries copied)."""
    out = v.copy()
    transport_free(dq, v, vpos, out)
    return out


@njit(cache=True, nogil=True)
def transport_free(dq, v, vpos, out):
    """Each free body's velocity ``v`` (from ``vpos[k]``) in the axes its step ``dq`` turned to, into ``out``."""
    for k in range(vpos.shape[0]):
        j = vpos[k]
        R = _exp3(dq[j + 3 : j + 6])
        for part in (0, 3):
            u0, u1, u2 = v[j + part], v[j + part + 1], v[j + part + 2]
            for r in range(3):
                out[j + part + r] = R[0, r] * u0 + R[1, r] * u1 + R[2, r] * u2


@njit(cache=True, nogil=True)
def fill_lower(M):
    """``M``'s lower triangle from its upper one, in place (pinocchio's CRBA fills the upper one)."""
    n = M.shape[0]
    for i in range(n):
        for j in range(i):
            M[i, j] = M[j, i]


@njit(cache=True, nogil=True)
def add_free_bias(M, v, vpos, f):
    """``f += M c`` with ``c`` the rate of each free body's turning axes, ``w x v`` in its linear rows
    (its first velocity index ``vpos[b]``; :meth:`~contactcp.simulate.stepping.systems.SceneSystem.dynamics`)."""
    c = np.empty(3)
    for b in range(vpos.shape[0]):
        k = vpos[b]
        v0, v1, v2, w0, w1, w2 = v[k], v[k + 1], v[k + 2], v[k + 3], v[k + 4], v[k + 5]
        c[0] = w1 * v2 - w2 * v1
        c[1] = w2 * v0 - w0 * v2
        c[2] = w0 * v1 - w1 * v0
        for i in range(M.shape[0]):
            f[i] += M[i, k] * c[0] + M[i, k + 1] * c[1] + M[i, k + 2] * c[2]


@njit(cache=True, nogil=True)
def step_forces(M, g, nle, v, vpos):
    """``f = g - nle`` plus the free bodies' bias (:func:`add_free_bias`), a new array."""
    f = g - nle
    add_free_bias(M, v, vpos, f)
    return f


@njit(cache=True, nogil=True)
def step_dynamics(M_upper, g, nle, v, vpos):
    """``(M, f)``: ``M`` from pinocchio's upper triangle (:func:`fill_lower`, a new array), ``f`` by
    :func:`step_forces`."""
    M = M_upper.copy()
    fill_lower(M)
    return M, step_forces(M, g, nle, v, vpos)

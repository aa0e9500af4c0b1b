"""Explicit steps of a multibody system: semi-implicit Euler and a velocity projection.

Building blocks for advancing a contact state in time at the acceleration level (the papers'
model), for any :class:`~contactcp.models.system.MultibodySystem` whose generalised velocity is
its bodies' twists followed by its arms' joint velocities.  A scenario supplies what is its own
(how contacts are found at the new configuration, which contacts stick); the velocity-level
time-stepping of a whole scene is a separate stage.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.spatial.transform import Rotation

from contactcp.models.bodies import RigidBody
from contactcp.models.system import Arm, MultibodySystem

__all__ = ["euler_step", "with_velocities", "project_velocities"]


def _moved(body: RigidBody, **changes) -> RigidBody:
    return dataclasses.replace(body, **changes)


def euler_step(
    bodies: list[RigidBody], arms: list[Arm], Vdot: np.ndarray, h: float
) -> tuple[list[RigidBody], list[Arm]]:
    """One semi-implicit Euler step of length ``h``: velocities first (``V += h dV/dt``), then positions
    from the new velocities; orientations by the exponential map.  ``Vdot`` is ordered as the
    system's velocity: 6 per body (linear, angular), then each arm's joints."""
    out_b, off = [], 0
    for b in bodies:
        v = b.v + h * Vdot[off : off + 3]
        w = b.omega + h * Vdot[off + 3 : off + 6]
        R = Rotation.from_rotvec(h * w).as_matrix() @ b.R
        out_b.append(_moved(b, R=R, p=b.p + h * v, v=v, omega=w))
        off += 6
    out_a = []
    for a in arms:
        n = a.manipulator.n
        qd = np.asarray(a.qdot, dtype=float) + h * Vdot[off : off + n]
        out_a.append(dataclasses.replace(a, q=np.asarray(a.q, dtype=float) + h * qd, qdot=qd))
        off += n
    return out_b, out_a


def with_velocities(bodies: list[RigidBody], arms: list[Arm], V: np.ndarray) -> tuple[list[RigidBody], list[Arm]]:
    """The bodies and arms with the generalised velocity ``V`` (same order as :func:`euler_step`)."""
    out_b, off = [], 0
    for b in bodies:
        out_b.append(_moved(b, v=V[off : off + 3].copy(), omega=V[off + 3 : off + 6].copy()))
        off += 6
    out_a = []
    for a in arms:
        n = a.manipulator.n
        out_a.append(dataclasses.replace(a, qdot=V[off : off + n].copy()))
        off += n
    return out_b, out_a


def project_velocities(system: MultibodySystem, cols: np.ndarray) -> np.ndarray:
    """The system's velocity projected M-orthogonally onto ``{V : H[:, cols]^T V = 0}``: the smallest
    impulse (in kinetic energy) that makes the chosen contact velocity components exactly zero."""
    H, _ = system.contact_jacobian()
    V = system.velocities()
    if len(cols) == 0:
        return V
    Hc = H[:, cols]
    Minv_Hc = np.linalg.solve(system.mass_matrix(), Hc)
    return V - Minv_Hc @ np.linalg.lstsq(Hc.T @ Minv_Hc, Hc.T @ V, rcond=None)[0]

"""Seeded random dynamic contact states: spheres held by three-prismatic-joint fingers.

Each contact is a fingertip (the origin of the last link of a 3-DOF prismatic
finger built with pinocchio) touching a sphere at a random point; the finger's
joint axes are random and independent, its link masses random.  Joint efforts
``tau = g_man + J^T C c_des + noise`` press the sphere with a desired force
``c_des`` (normal in [1, 5], tangential part inside or outside the cone), so
contacts roll, slide or break in the answer.  A fraction of contacts is given
an initial sliding velocity.  With one sphere (the default) the matrix ``A``
is dense: every pair of contacts couples through the sphere's inertia.
"""

from __future__ import annotations

import numpy as np

from contactcp._validate import positive_int
from contactcp.models.bodies import RigidBody
from contactcp.models.contacts import Contact, Link
from contactcp.models.manipulator import Manipulator
from contactcp.models.system import Arm, MultibodySystem, check_size

__all__ = ["random_system", "cartesian_finger"]


def _random_rotation(rng: np.random.Generator) -> np.ndarray:
    Q, R = np.linalg.qr(rng.standard_normal((3, 3)))
    Q = Q * np.sign(np.diag(R))
    if np.linalg.det(Q) < 0:
        Q[:, 0] = -Q[:, 0]
    return Q


def cartesian_finger(base: np.ndarray, masses=(0.3, 0.2, 0.1), name: str = "finger") -> Manipulator:
    """Three prismatic joints along mutually orthogonal axes (the base frame's z, y and x);
    the tip is the last link's origin.  ``base`` places the finger (4x4)."""
    dh = [[0.0, 0.0, 0.0, -np.pi / 2], [-np.pi / 2, 0.0, 0.0, -np.pi / 2], [0.0, 0.0, 0.0, 0.0]]
    inertias = np.array([np.eye(3) * 1e-3 * m for m in masses])
    return Manipulator.from_dh(dh, "PPP", masses=masses, coms=np.zeros((3, 3)), inertias=inertias, base=base, name=name)


def random_system(
    n_c: int,
    seed: int = 0,
    n_objects: int = 1,
    mu: tuple[float, float] = (0.1, 1.0),
    p_sliding: float = 0.2,
    p_outside: float = 0.3,
) -> MultibodySystem:
    """A random contact state with ``n_c`` finger contacts on ``n_objects`` spheres."""
    n_c = positive_int(n_c, "n_c")
    n_objects = positive_int(n_objects, "n_objects")
    # refuse sizes that cannot fit before building n_c fingers (3 prismatic joints each)
    check_size(6 * n_objects + 3 * n_c, n_c, 3, "n_c", f"a random state with {n_c} contacts")
    rng = np.random.default_rng(positive_int(seed, "seed", minimum=0))
    bodies = []
    for k in range(n_objects):
        m = rng.uniform(0.5, 2.0)
        r = rng.uniform(0.05, 0.2)
        bodies.append(
            RigidBody(
                mass=m,
                inertia=0.4 * m * r * r,
                p=[3.0 * k, 0.0, 0.0],
                omega=rng.standard_normal(3) * 0.1,
                name=f"sphere{k}",
            )
        )
    radii = [np.sqrt(b.inertia[0, 0] / (0.4 * b.mass)) for b in bodies]
    arms, contacts = [], []
    for j in range(n_c):
        k = j % n_objects
        u = rng.standard_normal(3)
        u /= np.linalg.norm(u)
        point = bodies[k].p + radii[k] * u
        base = np.eye(4)
        base[:3, :3] = _random_rotation(rng)
        base[:3, 3] = point
        finger = cartesian_finger(base, masses=tuple(rng.uniform(0.05, 0.5, 3)), name=f"finger{j + 1}")
        mu_j = float(rng.uniform(*mu))
        normal = -u
        contact = Contact(
            k,
            point,
            normal,
            mu_j,
            other=Link(j, 2),
            name=f"C{j + 1}",
            state="sliding" if rng.random() < p_sliding else "rolling",
            v_t=rng.standard_normal(2),
        )
        C = contact.frame
        cn = rng.uniform(1.0, 5.0)
        ratio = rng.uniform(1.1, 2.0) if rng.random() < p_outside else rng.uniform(0.0, 0.9)
        ang = rng.uniform(0, 2 * np.pi)
        c_des = np.array([cn, ratio * mu_j * cn * np.cos(ang), ratio * mu_j * cn * np.sin(ang)])
        q = np.zeros(3)
        J = finger.point_jacobian(q, 2, np.zeros(3))
        tau = finger.gravity_torques(q) + J.T @ (C @ c_des) + rng.standard_normal(3) * 0.1
        arms.append(Arm(finger, q, qdot=np.zeros(3), tau=tau))
        contacts.append(contact)
    return MultibodySystem(bodies, contacts, arms)

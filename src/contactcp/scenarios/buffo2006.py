"""Three PUMA-560 fingers holding a sphere (Buffo & Maciel 2006, Section 5, Fig. 1).

Geometry (palm frame P = world, z up):

* sphere of radius ``r``, mass ``m``, centre ``p_cm = (0, 0, a_cm)``;
* contact points, the columns of ``p_t``: ``C1 = (r cos s, -r sin s, a_cm)``,
  ``C2 = (r cos s, r sin s, a_cm)``, ``C3 = (-r, 0, a_cm)`` (``s = sigma``);
* finger bases ``S_j`` (axes parallel to P) such that the contact point has
  coordinates ``p_tt(:, j)`` in ``S_j``: ``S_j = C_j - p_tt(:, j)``, i.e. on the
  palm (z = 0) at distance ``b~`` from the axis, behind the contact point.

Contact frames.  The printed rotations ``R_{P,Cj}`` do not say which axis is
the normal; with ``R_{P,C1} = Qz(-s) Qy(-pi/2)`` the inward normal at C1,
``(-cos s, sin s, 0)``, is the frame's *third* axis.  Here every frame is built
from the geometry instead: ``n`` = inward normal ``(p_cm - C_j)/r``, ``t = z x n``
(horizontal), ``o = n x t`` (= +z on the equator), and the forces are ordered
``(c_n, c_t, c_o)`` as in the paper's equations.  Fingertips are the PUMA tool
point (``tool_length`` beyond the wrist centre along z6); finger postures come
from numerical inverse kinematics so that each tip touches its contact point
(Algorithm 1, step 1.2), starting from the toolbox's nominal posture ``qn``.

Inertia: the paper writes the sphere's inertia at the palm origin by the
parallel-axis theorem (eq. (41)); :func:`palm_inertia` gives that matrix.  The
model here keeps the equivalent centre-of-mass form (``M = diag(m I, 2/5 m r^2 I)``
with moments about ``p_cm``), which describes the same motion.

Parameters the paper leaves out are in :class:`GraspParameters` (one place).
Joint efforts hold the fingers against gravity and press the sphere with a
normal force ``squeeze`` while carrying ``lift`` of its weight in friction
(``c_des = (squeeze, 0, lift * m g / 3)``); whether that force is inside the
friction cone depends on ``mu`` — this decides the predicted modes.  In the
``"sliding"`` state the sphere moves down at ``slip_speed`` past the resting
fingertips, so each contact's sliding velocity (0, -slip_speed) in (t, o)
follows from the bodies' velocities (eq. (10)) rather than being imposed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactcp._validate import number, vector
from contactcp.errors import InvalidProblemError
from contactcp.models.bodies import RigidBody
from contactcp.models.contacts import Contact, Link
from contactcp.models.puma560 import puma560, qn
from contactcp.models.system import Arm, MultibodySystem
from contactcp.scenarios.parameters import resolve

__all__ = [
    "GraspParameters",
    "Grasp",
    "puma3_grasp",
    "palm_inertia",
    "contact_points",
    "finger_bases",
]

#: method -> friction law it solves


@dataclass(frozen=True)
class GraspParameters:
    """Everything the paper does not give, in one place (SI units)."""

    r: float = 0.15  #: sphere radius
    m: float = 1.0  #: sphere mass
    sigma: float = np.pi / 4  #: angle of C1, C2 from the x axis
    a_cm: float = 0.45  #: height of the sphere's centre above the palm
    b_tilde: float = 0.65  #: distance of the finger bases from the axis
    tool_length: float = 0.05  #: fingertip beyond the PUMA wrist centre (along z6)
    squeeze: float = 20.0  #: desired normal force of each finger (N)
    lift: float = 1.0  #: fraction of the weight the fingers carry in friction
    slip_speed: float = 0.02  #: "sliding" state: the sphere moves down at this speed (m/s)
    gravity: tuple = (0.0, 0.0, -9.81)

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            if name != "gravity":
                object.__setattr__(self, name, number(getattr(self, name), name))
        object.__setattr__(self, "gravity", tuple(vector(self.gravity, "gravity", 3).tolist()))
        for name in ("r", "m", "a_cm", "b_tilde", "squeeze", "slip_speed"):
            if not getattr(self, name) > 0:
                raise InvalidProblemError(name, f"must be positive, got {getattr(self, name)!r}")
        for name in ("tool_length", "lift"):
            if not getattr(self, name) >= 0:
                raise InvalidProblemError(name, f"must be >= 0, got {getattr(self, name)!r}")
        if not 0 < self.sigma < np.pi:
            raise InvalidProblemError(
                "sigma", f"must lie in (0, pi) so that the three contacts are distinct, got {self.sigma!r}"
            )
        if self.b_tilde <= self.r:
            raise InvalidProblemError("b_tilde", "finger bases must lie outside the sphere (b_tilde > r)")


@dataclass
class Grasp:
    """The assembled system plus what was computed to build it."""

    system: MultibodySystem
    params: GraspParameters
    mu: float
    state: str
    q: list[np.ndarray] = field(default_factory=list)
    points: np.ndarray | None = None
    bases: np.ndarray | None = None
    arms: list[Any] = field(default_factory=list)


def contact_points(p: GraspParameters) -> np.ndarray:
    """``p_t`` (3 x 3): the contact points in the palm frame."""
    c, s = np.cos(p.sigma), np.sin(p.sigma)
    return np.array([[p.r * c, p.r * c, -p.r], [-p.r * s, p.r * s, 0.0], [p.a_cm] * 3])


def finger_bases(p: GraspParameters) -> np.ndarray:
    """Origins of ``S_j`` in the palm frame: ``C_j - p_tt(:, j)`` (on the palm, radius ``b~``)."""
    c, s, k = np.cos(p.sigma), np.sin(p.sigma), p.b_tilde - p.r
    p_tt = np.array([[-k * c, -k * c, k], [k * s, -k * s, 0.0], [p.a_cm] * 3])
    return contact_points(p) - p_tt


def palm_inertia(p: GraspParameters) -> np.ndarray:
    """``M_2^(P)``: the sphere's inertia about the palm origin (parallel axes, eq. (41))."""
    c = np.array([0.0, 0.0, p.a_cm])
    return 0.4 * p.m * p.r**2 * np.eye(3) + p.m * ((c @ c) * np.eye(3) - np.outer(c, c))


def puma3_grasp(
    mu: float = 0.4, state: str = "rolling", params: GraspParameters | None = None, **overrides: Any
) -> Grasp:
    """The three-finger grasp with friction ``mu`` and all contacts ``state`` (rolling/sliding)."""
    p = resolve(GraspParameters, params, overrides, "the grasp")
    mu = number(mu, "mu")
    if mu < 0:
        raise InvalidProblemError("mu", f"must be >= 0, got {mu}")
    if not isinstance(state, str) or state not in ("rolling", "sliding"):
        raise InvalidProblemError("state", f"must be 'rolling' or 'sliding', got {state!r}")
    pts = contact_points(p)
    bases = finger_bases(p)
    center = np.array([0.0, 0.0, p.a_cm])
    g = np.asarray(p.gravity, dtype=float)
    v0 = [0.0, 0.0, -p.slip_speed] if state == "sliding" else [0.0, 0.0, 0.0]
    sphere = RigidBody(mass=p.m, inertia=0.4 * p.m * p.r**2, p=center, v=v0, gravity=g, name="sphere")
    tool = np.eye(4)
    tool[2, 3] = p.tool_length
    arms, contacts, qs = [], [], []
    weight = p.m * float(np.linalg.norm(g))
    for j in range(3):
        x = pts[:, j]
        base = np.eye(4)
        base[:3, 3] = bases[:, j]
        heading = np.arctan2(*(x - bases[:, j])[[1, 0]])
        cz, sz = np.cos(heading), np.sin(heading)
        base[:3, :3] = [[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]
        finger = puma560(base=base, tool=tool, gravity=g)
        q = finger.inverse_kinematics(x, link=-1, q0=qn)
        n = (center - x) / p.r
        contact = Contact(
            0, x, n, mu, other=Link(j, 5), tangent=np.cross([0.0, 0.0, 1.0], n), state=state, name=f"C{j + 1}"
        )
        C = contact.frame
        c_des = np.array([p.squeeze, 0.0, p.lift * weight / 3.0])
        T = finger.link_pose(q, 5)
        J = finger.point_jacobian(q, 5, T[:3, :3].T @ (x - T[:3, 3]))
        tau = finger.gravity_torques(q) + J.T @ (C @ c_des)
        arms.append(Arm(finger, q, np.zeros(6), tau))
        contacts.append(contact)
        qs.append(q)
    system = MultibodySystem([sphere], contacts, arms)
    return Grasp(system, p, float(mu), state, qs, pts, bases, arms)

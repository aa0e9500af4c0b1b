"""Yashima & Yamaguchi's simulation model (Section IV, Fig. 6): an ellipse held by two 2-DOF fingers.

The paper's vertical plane ``(x, z)`` is this package's planar plane ``(x, y)``:
the paper's ``z`` (up) is ``y`` here, gravity is ``(0, -9.81, 0)``, and the
object's acceleration is reported as ``(a_x, a_z, alpha)`` in the paper's names.

Given by the paper: an elliptical object, major axis 0.37 m (along x), minor
axis 0.30 m, mass 3.0 kg, centre on the palm's vertical axis; two fingers with
two links of 0.3 m and 0.5 kg; a fixed palm 0.2 m long; one contact on each
finger's second link; object and fingers at rest, both contacts rolling;
``tau0 = 2.5 Nm`` on both first joints; ``tau1``, ``tau2`` on the second joints
of fingers 1 and 2 with mirror-image positive directions.

Chosen here (the paper does not give them), all in :class:`HandParameters`:

* finger bases at the palm's ends, ``(-0.1, 0)`` (finger 1) and ``(+0.1, 0)``
  (finger 2);
* links are uniform rods (inertia ``m L^2 / 12`` about the centre); the
  ellipse is a uniform lamina (``m (a^2 + b^2) / 4``);
* the object rests in the "V" of the two second links: contact 1 is the point
  of the ellipse at parametric angle ``pi + psi`` (lower left, ``psi = 60 deg``),
  contact 2 its mirror image; each second link lies along the ellipse's
  tangent there, pointing up and outwards, with the contact ``s = 0.12 m`` from
  its elbow; the height of the object's centre then follows from the first
  link's length (the elbow is on the circle of radius 0.3 m about the base);
* positive torques close the hand: clockwise on finger 1 (left), counter-
  clockwise on finger 2 (right), so the model is symmetric under swapping
  ``tau1`` and ``tau2`` together with the fingers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from contactcp._validate import number
from contactcp.errors import InvalidProblemError
from contactcp.models.bodies import RigidBody
from contactcp.models.contacts import Contact, Link
from contactcp.models.manipulator import Manipulator
from contactcp.models.system import Arm, MultibodySystem
from contactcp.scenarios.parameters import resolve
from contactcp.settings import DEFAULT_TOL

if TYPE_CHECKING:
    from contactcp.analysis.modemap import EffortModel
    from contactcp.sweep import Table

__all__ = ["HandParameters", "Hand", "two_finger_hand", "hand_geometry", "hand_model", "hand_states", "hand_map"]

G = 9.81


@dataclass(frozen=True)
class HandParameters:
    """The model's data (SI units); the first block is the paper's, the second is chosen."""

    major_axis: float = 0.37
    minor_axis: float = 0.30
    object_mass: float = 3.0
    link_length: float = 0.3
    link_mass: float = 0.5
    palm_length: float = 0.2
    tau0: float = 2.5
    # chosen (not in the paper)
    psi: float = np.deg2rad(60.0)  #: contact at parametric angle pi + psi on the ellipse (lower left)
    s: float = 0.12  #: distance of the contact from the elbow along the second link
    gravity: float = G

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            number(getattr(self, name), name)
        for name in ("major_axis", "minor_axis", "object_mass", "link_length", "link_mass", "palm_length", "s"):
            if not getattr(self, name) > 0:
                raise InvalidProblemError(name, f"must be positive, got {getattr(self, name)!r}")
        if not 0 < self.psi < np.pi / 2:
            raise InvalidProblemError("psi", f"must lie in (0, pi/2), got {self.psi!r}")
        if not self.s < self.link_length:
            raise InvalidProblemError("s", "the contact must lie on the second link (s < link_length)")
        if not self.gravity >= 0:
            raise InvalidProblemError("gravity", f"must be >= 0, got {self.gravity!r}")


@dataclass
class Hand:
    """The assembled state and its geometry."""

    system: MultibodySystem
    params: HandParameters
    mu: float
    tau: tuple[float, float]
    center: np.ndarray  #: object centre (x, y)
    contacts: np.ndarray  #: (2, 2) contact points
    normals: np.ndarray  #: (2, 2) inward normals of the object
    q: list[np.ndarray]  #: joint angles of fingers 1, 2 (pinocchio convention, counter-clockwise)
    bases: np.ndarray  #: (2, 2)
    elbows: np.ndarray  #: (2, 2)
    tips: np.ndarray  #: (2, 2)


def hand_geometry(p: HandParameters) -> dict[str, Any]:
    """Object centre, contact points, normals, bases, elbows, tips and joint angles (finger 1 first)."""
    a, b, L = p.major_axis / 2, p.minor_axis / 2, p.link_length
    c, s = np.cos(p.psi), np.sin(p.psi)
    rel = np.array([-a * c, -b * s])  # contact 1 relative to the centre
    n = np.array([c / a, s / b])
    n /= np.linalg.norm(n)  # inward normal (up and right)
    d = np.array([-n[1], n[0]])  # second link, from elbow to tip (up, outwards)
    base = np.array([-p.palm_length / 2, 0.0])
    ex = rel[0] - p.s * d[0] - base[0]  # elbow x relative to the base (centre at x = 0)
    if abs(ex) >= L:
        raise InvalidProblemError(
            "psi", "no posture: the elbow cannot reach the second link's line (change psi, s or the palm length)"
        )
    ey = np.sqrt(L * L - ex * ex)
    h = ey - rel[1] + p.s * d[1]  # centre height so that |elbow - base| = L
    center = np.array([0.0, h])
    p1 = center + rel
    elbow1 = base + np.array([ex, ey])
    tip1 = elbow1 + L * d
    q1 = np.array([np.arctan2(ey, ex), 0.0])
    q1[1] = np.arctan2(d[1], d[0]) - q1[0]
    mirror = np.array([-1.0, 1.0])
    q2 = np.array([np.pi - q1[0], -q1[1]])
    out = {
        "center": center,
        "contacts": np.array([p1, p1 * mirror]),
        "normals": np.array([n, n * mirror]),
        "bases": np.array([base, base * mirror]),
        "elbows": np.array([elbow1, elbow1 * mirror]),
        "tips": np.array([tip1, tip1 * mirror]),
        "q": [q1, q2],
    }
    # the object must not overlap the first links or the palm
    for e, bs in zip(out["elbows"], out["bases"]):
        t = np.linspace(0.0, 1.0, 50)[:, None]
        pts = bs + t * (e - bs) - center
        if np.any((pts[:, 0] / a) ** 2 + (pts[:, 1] / b) ** 2 < 1.0):
            raise InvalidProblemError("psi", "the first link would cut through the object")
    if h - b <= 0:
        raise InvalidProblemError("psi", "the object would cut through the palm")
    return out


def _finger(p: HandParameters, base: np.ndarray, g: np.ndarray, name: str) -> Manipulator:
    L, m = p.link_length, p.link_mass
    dh = [[0.0, 0.0, L, 0.0], [0.0, 0.0, L, 0.0]]
    I = m * L * L / 12.0
    Tb = np.eye(4)
    Tb[:2, 3] = base
    return Manipulator.from_dh(
        dh,
        masses=[m, m],
        coms=[[-L / 2, 0, 0]] * 2,
        inertias=[[1e-9, I, I, 0, 0, 0]] * 2,
        base=Tb,
        gravity=g,
        name=name,
    )


def two_finger_hand(
    mu: float = 0.4, tau1: float = 0.0, tau2: float = 0.0, params: HandParameters | None = None, **overrides: Any
) -> Hand:
    """The hand of Fig. 6 at rest with both contacts rolling, torques ``(tau1, tau2)`` (N m)."""
    p = resolve(HandParameters, params, overrides, "the hand")
    mu, tau1, tau2 = number(mu, "mu"), number(tau1, "tau1"), number(tau2, "tau2")
    if mu < 0:
        raise InvalidProblemError("mu", f"must be >= 0, got {mu}")
    geo = hand_geometry(p)
    g3 = np.array([0.0, -p.gravity, 0.0])
    a, b = p.major_axis / 2, p.minor_axis / 2
    inertia = np.diag([1.0, 1.0, p.object_mass * (a * a + b * b) / 4.0])
    inertia[:2, :2] *= inertia[2, 2]
    obj = RigidBody(mass=p.object_mass, inertia=inertia, p=[*geo["center"], 0.0], gravity=g3, name="ellipse")
    arms, contacts = [], []
    # pinocchio torques are counter-clockwise positive: finger 1 closes clockwise, finger 2 counter-clockwise
    for j, (sign, t_j) in enumerate(((-1.0, tau1), (1.0, tau2))):
        finger = _finger(p, geo["bases"][j], g3, f"finger{j + 1}")
        tau = sign * np.array([p.tau0, t_j], dtype=float)
        arms.append(Arm(finger, geo["q"][j], np.zeros(2), tau))
        contacts.append(
            Contact(
                0, [*geo["contacts"][j], 0.0], [*geo["normals"][j], 0.0], float(mu), other=Link(j, 1), name=f"C{j + 1}"
            )
        )
    system = MultibodySystem([obj], contacts, arms, planar=True)
    return Hand(
        system,
        p,
        float(mu),
        (float(tau1), float(tau2)),
        geo["center"],
        geo["contacts"],
        geo["normals"],
        geo["q"],
        geo["bases"],
        geo["elbows"],
        geo["tips"],
    )


# ---------------------------------------------------------------------------
# the maps of Figs. 7-8: the generic effort maps of contactcp.analysis.modemap over (tau1, tau2)


def _hand_system(mu: float, params: HandParameters | None, tau1: float = 0.0, tau2: float = 0.0) -> MultibodySystem:
    return two_finger_hand(mu, tau1, tau2, params).system


@functools.lru_cache(maxsize=8)
def hand_model(mu: float, params: HandParameters | None = None) -> EffortModel:
    """The torque-independent part of the hand's maps (:func:`contactcp.analysis.modemap.effort_model`;
    cached per process)."""
    from contactcp.analysis.modemap import effort_model

    return effort_model(functools.partial(_hand_system, number(mu, "mu"), params), ("tau1", "tau2"))


def _paper_names(out: dict[str, Any]) -> dict[str, Any]:
    """The object's accelerations under the paper's names ``a_x``, ``a_z``, ``alpha``."""
    if "vdot" in out:
        vdot = out.pop("vdot")
        out["a_x"], out["a_z"], out["alpha"] = vdot[:, 0], vdot[:, 1], vdot[:, 2]
    else:
        out["a_x"], out["a_z"], out["alpha"] = out.pop("vdot0"), out.pop("vdot1"), out.pop("vdot2")
        for j in range(3, 6):
            out.pop(f"vdot{j}", None)
    return out


def hand_states(
    tau1: Any,
    tau2: Any,
    *,
    mu: float,
    params: HandParameters | None = None,
    tol: float = DEFAULT_TOL,
    mode_tol: float | None = None,
    model: Any = None,
) -> dict[str, np.ndarray]:
    """The verdict, modes and object acceleration at each ``(tau1[k], tau2[k])`` (one batch;
    :func:`contactcp.analysis.modemap.effort_states`).  ``model`` overrides :func:`hand_model`."""
    from contactcp.analysis.modemap import effort_states
    from contactcp.interpret.dynamic import MODE_TOL

    m = model if model is not None else hand_model(number(mu, "mu"), params)
    out = effort_states(m, {"tau1": tau1, "tau2": tau2}, tol=tol, mode_tol=MODE_TOL if mode_tol is None else mode_tol)
    return _paper_names(out)


def hand_map(
    mu: float,
    tau1: Any,
    tau2: Any,
    *,
    params: HandParameters | None = None,
    tol: float = DEFAULT_TOL,
    workers: int | None = None,
    executor: Any = None,
    chunk_size: int | None = None,
    progress: bool = True,
    store: Any = None,
    resume: bool = False,
    scheduler: Any = None,
) -> Table:
    """The map over the grid ``tau1 x tau2`` as a :class:`contactcp.sweep.Table` (columns of
    :func:`hand_states`; :func:`contactcp.analysis.modemap.effort_map`; ``store``, ``resume``,
    ``scheduler`` as for :func:`contactcp.sweep.sweep`)."""
    from contactcp.analysis.modemap import acceleration_names, effort_map

    mu = number(mu, "mu")
    table = effort_map(
        hand_model(mu, params),
        {"tau1": tau1, "tau2": tau2},
        tol=tol,
        workers=workers,
        executor=executor,
        chunk_size=chunk_size,
        progress=progress,
        desc=f"mode map mu={mu:g}",
        store=store,
        resume=resume,
        scheduler=scheduler,
        names=acceleration_names("a_x", "a_z", "alpha"),
    )
    return table

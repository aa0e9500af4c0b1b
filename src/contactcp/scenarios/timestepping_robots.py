"""Robot verification scenes for the time stepper: the papers' grasps as stepped scenes.

* :func:`puma_grasp`: Buffo & Maciel's three PUMA-560 fingers holding a sphere (Section 5, Fig. 1;
  the package's ``puma3_grasp.json`` + ``puma3_fingers.xml``), with joint efforts that hold it in
  static equilibrium (:func:`grasp_equilibrium`).  The efforts stored in the JSON file
  (gravity compensation plus the paper's desired force ``c_des = (20, 0, m g / 3)`` at every
  contact, :mod:`contactcp.scenarios.buffo2006`) are **not** an equilibrium: with ``sigma = 45°``
  the three normal forces of 20 N leave the sphere a net force of ``20 (1 - 2 cos 45°)`` = -8.28 N
  along ``x`` (and 0.20 N m about ``y``), so under them the sphere drifts (12.7 cm in 1 s, with
  sliding and separating contacts).  :func:`grasp_equilibrium` instead takes the contact forces
  that balance the sphere, ``H_s lambda = g_s`` (its rows of the contact Jacobian and of the
  gravity forces), plus a squeeze along the null space of the normals (``N1 = N2 = squeeze``,
  ``N3 = 2 cos(sigma) squeeze``), and the finger efforts ``tau_r = g_r - (H lambda)_r`` that carry
  them, so the whole chain is at rest.  Every contact then needs ``mu >= |f_t| / f_n = m g /
  ((2 + 2 cos sigma) squeeze)`` = 0.1437 at 20 N (:func:`min_friction`); the same efforts with a
  lower ``mu`` let the sphere slip out (:data:`PUMA_SLIP_MU`).
* :func:`yashima_hand`: Yashima & Yamaguchi's two-finger hand (Section IV, Fig. 6;
  :mod:`contactcp.scenarios.yashima`) as a planar-equivalent 3-D scene: the plane of motion is
  ``z = 0`` with gravity ``(0, -g, 0)`` in it, each finger two revolute joints about ``z`` (uniform
  rods, the parameters of :class:`~contactcp.scenarios.yashima.HandParameters`), its second link a
  thin box whose face lies on the link's line (the two fingers cross and are not checked against
  each other, as in the paper's plane), and the object a free body whose shape is an
  ellipsoid with the paper's ellipse as its section ``z = 0`` and the lamina's inertia.  Every
  force lies in the plane, so the motion stays planar.  Under torques ``(tau1, tau2)`` the modes at
  the first step are the mode map's (:func:`~contactcp.scenarios.yashima.hand_states`, Fig. 7):
  rolling there is sticking here.
"""

from __future__ import annotations

from typing import Any

import coal
import numpy as np
import pinocchio as pin

from contactcp._validate import number
from contactcp.errors import InvalidProblemError
from contactcp.io.scene_files import example_scene, load_scene
from contactcp.models.scene import Scene
from contactcp.models.scene.detect import detect
from contactcp.models.scene.dynamics import contact_jacobian
from contactcp.scenarios.parameters import resolve
from contactcp.scenarios.yashima import HandParameters, hand_geometry

__all__ = [
    "PUMA_MARGIN",
    "PUMA_SQUEEZE",
    "PUMA_SLIP_MU",
    "grasp_equilibrium",
    "min_friction",
    "puma_grasp",
    "yashima_hand",
    "HAND_CASES",
]

#: the grasp file's detection margin (m)
PUMA_MARGIN = 1e-3
#: the normal force of fingers 1 and 2 (N): Buffo & Maciel's ``c_des`` normal component
PUMA_SQUEEZE = 20.0
#: a friction coefficient below :func:`min_friction` (0.1437 at the default squeeze): the sphere slips
PUMA_SLIP_MU = 0.1

#: torques from the mode map at mu = 0.4 (Fig. 7) and the class it predicts there
HAND_CASES = {"RR": (3.0, 3.0), "SS": (1.0, 1.0), "RS": (8.0, 1.0), "SR": (1.0, 8.0)}


def grasp_equilibrium(scene: Scene, squeeze: float = PUMA_SQUEEZE, margin: float = PUMA_MARGIN) -> dict[str, Any]:
    """The efforts that hold the three-finger grasp at rest at the scene's ``q`` (module docstring).

    Returns ``tau`` (nv; zero on the sphere), ``forces`` (3, 3: each contact's force on the sphere
    in its ``(n, t, o)`` frame), ``keys`` and ``ratio`` (each contact's ``|f_t| / f_n``).  Static
    equilibrium of ``M dv = tau - g + H lambda`` at ``v = 0``: the sphere's rows fix ``lambda`` up to
    the internal squeeze (the least-norm solution plus ``squeeze`` times the normals' null vector
    scaled to 1 on the first contact), the fingers' rows give ``tau``.
    """
    squeeze = number(squeeze, "squeeze")
    if not squeeze > 0:
        raise InvalidProblemError("squeeze", f"must be positive (N), got {squeeze!r}")
    found = detect(scene, margin)
    if len(found) != 3:
        raise InvalidProblemError("scene", f"the grasp must have 3 contacts at its q, found {len(found)}")
    H = contact_jacobian(scene, found)[0]
    nv = scene.model.nv
    g = np.asarray(pin.rnea(scene.model, scene._data, scene.q, np.zeros(nv), np.zeros(nv)))
    s = scene.joint("sphere").v
    Hs = H[s]
    null = np.linalg.svd(Hs[:, 0::3])[2][-1]  # the normals' self-balanced combination
    lam = np.linalg.pinv(Hs) @ g[s]
    lam[0::3] += squeeze * null / null[0]
    tau = g - H @ lam
    tau[s] = 0.0
    forces = lam.reshape(3, 3)
    ratio = np.linalg.norm(forces[:, 1:], axis=1) / forces[:, 0]
    return {"tau": tau, "forces": forces, "keys": [c.name for c in found], "ratio": ratio}


def min_friction(squeeze: float = PUMA_SQUEEZE) -> float:
    """The least ``mu`` that holds the grasp under :func:`grasp_equilibrium`'s efforts: the largest
    ``|f_t| / f_n`` of its contact forces (``m g / ((2 + 2 cos sigma) squeeze)``, 0.1437 at 20 N)."""
    scene, margin = load_scene(example_scene("puma3_grasp.json"))
    return float(grasp_equilibrium(scene, squeeze, margin)["ratio"].max())


def puma_grasp(mu: float = 0.4, squeeze: float = PUMA_SQUEEZE, efforts: str = "equilibrium") -> Scene:
    """The three PUMA-560 fingers holding the sphere (``puma3_grasp.json``) with friction ``mu``.

    ``efforts``: ``"equilibrium"`` (:func:`grasp_equilibrium` with ``squeeze``: held at rest when
    ``mu >= min_friction(squeeze)``, slipping below) or ``"stored"`` (the file's efforts, which are
    no equilibrium: module docstring).  Simulate it with ``margin=PUMA_MARGIN``.
    """
    mu = number(mu, "mu")
    if not mu >= 0:
        raise InvalidProblemError("mu", f"must be >= 0, got {mu!r}")
    if efforts not in ("equilibrium", "stored"):
        raise InvalidProblemError("efforts", f"must be 'equilibrium' or 'stored', got {efforts!r}")
    scene, margin = load_scene(example_scene("puma3_grasp.json"))
    scene.name = f"puma_grasp_mu{mu:g}"
    scene.default_friction = mu
    scene.friction.clear()
    if efforts == "equilibrium":
        scene.tau = grasp_equilibrium(scene, squeeze, margin)["tau"]
    return scene


def yashima_hand(
    mu: float = 0.4,
    tau1: float = 3.0,
    tau2: float = 3.0,
    params: HandParameters | None = None,
    thickness: float = 0.01,
    depth: float = 0.05,
    **overrides: Any,
) -> Scene:
    """Yashima & Yamaguchi's hand (Fig. 6) at rest holding the ellipse, second-joint torques
    ``(tau1, tau2)`` (N m, positive closing; ``tau0`` on both first joints), friction ``mu``.

    The geometry and joint angles are :func:`~contactcp.scenarios.yashima.hand_geometry`'s; links
    are ``thickness`` thick (in the plane) and ``depth`` deep (along ``z``), the ellipsoid's third
    semi-axis is ``depth``.  Joints ``finger{j}_joint{k}``, bodies ``finger{j}_link2``, ``object``.
    """
    p = resolve(HandParameters, params, overrides, "the hand")
    mu, tau1, tau2 = number(mu, "mu"), number(tau1, "tau1"), number(tau2, "tau2")
    thickness, depth = number(thickness, "thickness"), number(depth, "depth")
    if not mu >= 0:
        raise InvalidProblemError("mu", f"must be >= 0, got {mu!r}")
    if not (thickness > 0 and depth > 0):
        raise InvalidProblemError("thickness", "the links' thickness and depth must be positive")
    geo = hand_geometry(p)
    L, m = p.link_length, p.link_mass
    rod = pin.Inertia(m, np.array([L / 2, 0.0, 0.0]), np.diag([1e-9, m * L * L / 12, m * L * L / 12]))
    model, gm = pin.Model(), pin.GeometryModel()
    for j in range(2):
        parent, placement = 0, pin.SE3(np.eye(3), np.array([*geo["bases"][j], 0.0]))
        for k in range(2):
            name = f"finger{j + 1}_link{k + 1}"
            jid = model.addJoint(parent, pin.JointModelRZ(), placement, f"finger{j + 1}_joint{k + 1}")
            model.appendBodyToJoint(jid, rod, pin.SE3.Identity())
            fid = model.addFrame(pin.Frame(name, jid, pin.SE3.Identity(), pin.FrameType.BODY))
            parent, placement = jid, pin.SE3(np.eye(3), np.array([L, 0.0, 0.0]))
        # the box's face towards the object on the link's line: its centre half a thickness behind
        theta = float(np.sum(geo["q"][j]))
        c, s = np.cos(theta), np.sin(theta)
        nx, ny = geo["normals"][j]
        towards = -s * nx + c * ny  # the object's normal in the link's axes: (0, +-1)
        centre = np.array([L / 2, -0.5 * thickness * np.sign(towards), 0.0])
        box = coal.Box(L, thickness, depth)
        gm.addGeometryObject(pin.GeometryObject(name, parent, fid, pin.SE3(np.eye(3), centre), box))
    a, b = p.major_axis / 2, p.minor_axis / 2
    Iz = p.object_mass * (a * a + b * b) / 4.0  # the uniform lamina of the paper's model
    jid = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "object")
    model.appendBodyToJoint(jid, pin.Inertia(p.object_mass, np.zeros(3), Iz * np.eye(3)), pin.SE3.Identity())
    fid = model.addFrame(pin.Frame("object", jid, pin.SE3.Identity(), pin.FrameType.BODY))
    gm.addGeometryObject(pin.GeometryObject("object", jid, fid, pin.SE3.Identity(), coal.Ellipsoid(a, b, depth)))
    scene = Scene(model, gm, name=f"yashima_hand_mu{mu:g}_tau{tau1:g}_{tau2:g}")
    scene.gravity = [0.0, -p.gravity, 0.0]
    scene.default_friction = mu
    # the fingers cross below the object (each elbow is past the palm's middle): in the paper's planar
    # model they pass each other, as fingers in parallel planes would
    scene.excluded.add(frozenset(("finger1_link2", "finger2_link2")))
    scene.set_body("object", {"p": [*geo["center"], 0.0]})
    # pinocchio's torques are counter-clockwise positive: finger 1 closes clockwise, finger 2 counter-clockwise
    for j, (sign, t) in enumerate(((-1.0, tau1), (1.0, tau2))):
        for k, effort in enumerate((p.tau0, t)):
            scene.set_joint(f"finger{j + 1}_joint{k + 1}", geo["q"][j][k], 0.0, sign * effort)
    return scene

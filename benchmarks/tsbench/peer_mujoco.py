"""MuJoCo as a benchmark peer: the scene as MJCF, ``mj_step`` per step.

Every body: a free joint, the spec's mass and diagonal inertia (``inertiafromgeom`` off), one box
or sphere geom; the floor a plane.  Friction: ``condim = 3`` (sliding only) with the spec's ``mu``
on every geom (MuJoCo takes the larger of two geoms' values: the same), ``condim = 1`` when
``mu = 0``.  Settings:

* ``pyramidal`` (MuJoCo's default cone), ``elliptic``: default ``solref``/``solimp`` (soft contact);
* ``restitution``: ``solref = "-k -b"`` (stiffness and damping given directly, MuJoCo's documented
  negative form) on every geom with ``k`` = :data:`STIFFNESS` and ``b = 2 zeta sqrt(k)``, ``zeta`` the
  damping ratio whose damped spring rebounds with the spec's coefficient ``e``:
  ``zeta = -ln e / sqrt(pi^2 + ln^2 e)``.  The contact then lasts about ``pi / sqrt(k)`` = 10 ms.

The grasp (a spec with ``mjcf``: :func:`grasp_mjcf`) loads contactcp's ``puma3_fingers.xml`` itself,
with two changes made here.  MuJoCo refuses two of each finger's ``fullinertia``, which pinocchio
takes: link 1's (only ``Izz`` = 0.35 is nonzero: "inertia must have positive eigenvalues") and
link 3's (``(0.066, 0.0125, 0.086)``: "A + B >= C" fails).  Each principal inertia that breaks the
triangle inequality has its two smaller moments raised by half the gap each (link 1: ``(0.175,
0.175, 0.35)``, which changes nothing: it turns about its own ``z`` only; link 3: ``Ixx`` and
``Iyy`` + 0.00375, the transients only: gravity and statics do not see inertias).  And the sphere
is added as a free body with the spec's mass and inertia.  Every geom gets ``condim = 3`` and the
spec's ``mu``; the joints start at the spec's positions with the spec's constant efforts in
``qfrc_applied``.  ``info["gravity_mismatch"]``: the largest difference of MuJoCo's
``qfrc_bias`` (at rest) from pinocchio's gravity torques on the fingers' joints;
``info["inertia_fixed"]``: the bodies changed.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import mujoco
import numpy as np

#: the restitution setting's contact stiffness (1/s^2: MuJoCo's reference acceleration per metre)
STIFFNESS = 1e5


def _solref(e: float) -> str:
    if e <= 0:
        return ""
    zeta = -math.log(e) / math.sqrt(math.pi**2 + math.log(e) ** 2)
    return f'solref="{-STIFFNESS:g} {-2.0 * zeta * math.sqrt(STIFFNESS):.6g}"'


def mjcf(spec: dict, setting: str, dt: float) -> str:
    """The MJCF text of a spec under a setting (module docstring)."""
    mu = spec["mu"]
    cone = "elliptic" if setting == "elliptic" else "pyramidal"
    contact = f'condim="3" friction="{mu:.17g} 0 0"' if mu > 0 else 'condim="1"'
    if setting == "restitution":
        contact += " " + _solref(spec["restitution"])
    g = " ".join(f"{x:.17g}" for x in spec["gravity"])
    body_xml = []
    for b in spec["bodies"]:
        if b["shape"] == "box":
            geom = f'type="box" size="{" ".join(f"{0.5 * s:.17g}" for s in b["size"])}"'
        else:
            geom = f'type="sphere" size="{b["radius"]:.17g}"'
        pos = " ".join(f"{x:.17g}" for x in b["pos"])
        quat = " ".join(f"{x:.17g}" for x in b["quat"])
        inertia = " ".join(f"{x:.17g}" for x in b["inertia"])
        body_xml.append(
            f'<body name="{b["name"]}" pos="{pos}" quat="{quat}"><freejoint/>'
            f'<inertial pos="0 0 0" mass="{b["mass"]:.17g}" diaginertia="{inertia}"/>'
            f"<geom {geom} {contact}/></body>"
        )
    return (
        '<mujoco><compiler inertiafromgeom="false"/>'
        f'<option timestep="{dt:.17g}" gravity="{g}" cone="{cone}"/>'
        f'<worldbody><geom name="floor" type="plane" size="0 0 1" {contact}/>'
        + "".join(body_xml)
        + "</worldbody></mujoco>"
    )


def _physical(full: str) -> str | None:
    """A ``fullinertia`` whose principal moments satisfy the triangle inequality, or None when it
    does already (module docstring)."""
    ixx, iyy, izz, ixy, ixz, iyz = (float(x) for x in full.split())
    e, R = np.linalg.eigh([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    gap = e[2] - e[0] - e[1]
    if e[0] > 0 and gap < 0:
        return None
    e = e + 0.5 * max(gap, 0.0) * (1.0 + 1e-9) * np.array([1.0, 1.0, 0.0])
    e = np.maximum(e, 1e-12 * e[2])
    inertia = R @ np.diag(e) @ R.T
    return " ".join(f"{x:.17g}" for x in inertia[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]])


def grasp_mjcf(spec: dict, setting: str, dt: float) -> tuple[str, list[str]]:
    """The MJCF text of the grasp spec and the bodies whose inertia was changed (module docstring)."""
    root = ET.parse(spec["mjcf"]).getroot()
    option = root.find("option")
    if option is None:
        option = ET.SubElement(root, "option")
    cone = "elliptic" if setting == "elliptic" else "pyramidal"
    option.attrib.update(timestep=f"{dt:.17g}", gravity=" ".join(f"{x:.17g}" for x in spec["gravity"]), cone=cone)
    fixed = []
    for body in root.iter("body"):
        inertial = body.find("inertial")
        if inertial is not None and inertial.get("fullinertia") is not None:
            full = _physical(inertial.get("fullinertia"))
            if full is not None:
                inertial.set("fullinertia", full)
                fixed.append(body.get("name"))
    b = spec["bodies"][0]
    sphere = ET.SubElement(root.find("worldbody"), "body", name=b["name"], pos=" ".join(f"{x:.17g}" for x in b["pos"]))
    sphere.set("quat", " ".join(f"{x:.17g}" for x in b["quat"]))
    ET.SubElement(sphere, "freejoint")
    inertia = " ".join(f"{x:.17g}" for x in b["inertia"])
    ET.SubElement(sphere, "inertial", pos="0 0 0", mass=f"{b['mass']:.17g}", diaginertia=inertia)
    ET.SubElement(sphere, "geom", name=b["name"], type="sphere", size=f"{b['radius']:.17g}")
    for geom in root.iter("geom"):
        geom.attrib.update(condim="3", friction=f"{spec['mu']:.17g} 0 0")
    return ET.tostring(root, encoding="unicode"), fixed


class Peer:
    """See the module docstring."""

    def __init__(self, spec: dict, setting: str, dt: float):
        if setting not in ("pyramidal", "elliptic", "restitution"):
            raise ValueError(f"unknown MuJoCo setting {setting!r}")
        self.text, fixed = grasp_mjcf(spec, setting, dt) if "mjcf" in spec else (mjcf(spec, setting, dt), [])
        self.model = mujoco.MjModel.from_xml_string(self.text)
        self.data = mujoco.MjData(self.model)
        mismatch = self._joints(spec.get("joints", {}))
        self.ids = [mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, b["name"]) for b in spec["bodies"]]
        for i, b in zip(self.ids, spec["bodies"]):
            dof = self.model.jnt_dofadr[self.model.body_jntadr[i]]
            q = np.asarray(b["quat"])
            R = np.zeros(9)
            mujoco.mju_quat2Mat(R, q)
            self.data.qvel[dof : dof + 3] = b["lin"]  # free joint: world linear, local angular velocity
            self.data.qvel[dof + 3 : dof + 6] = R.reshape(3, 3).T @ np.asarray(b["ang"])
        mujoco.mj_forward(self.model, self.data)
        self.floor = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_GEOM, "floor")
        self.info = {"version": mujoco.__version__, "solref": list(self.model.geom_solref[0])}
        self.info["solimp"] = list(self.model.geom_solimp[0])
        if mismatch is not None:
            self.info.update(gravity_mismatch=mismatch, inertia_fixed=fixed)

    def _joints(self, joints: dict) -> float | None:
        """Set the spec's joint positions and constant efforts; the largest gap of MuJoCo's gravity
        torques from the spec's (pinocchio's), or None without joints."""
        if not joints:
            return None
        dofs = []
        for name, j in joints.items():
            jid = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, name)
            if jid < 0:
                raise ValueError(f"no joint {name!r} in the MJCF")
            dofs.append((self.model.jnt_dofadr[jid], j))
            self.data.qpos[self.model.jnt_qposadr[jid]] = j["q"]
            self.data.qfrc_applied[self.model.jnt_dofadr[jid]] = j["tau"]
        mujoco.mj_forward(self.model, self.data)
        return max(abs(float(self.data.qfrc_bias[d]) - j["gravity"]) for d, j in dofs)

    def step(self) -> None:
        mujoco.mj_step(self.model, self.data)

    def state(self):
        d, n = self.data, len(self.ids)
        lin, ang = np.zeros((n, 3)), np.zeros((n, 3))
        res = np.zeros(6)
        for k, i in enumerate(self.ids):
            mujoco.mj_objectVelocity(self.model, d, mujoco.mjtObj.mjOBJ_BODY, i, res, 0)
            ang[k], lin[k] = res[:3], res[3:]
        return d.xpos[self.ids].copy(), d.xquat[self.ids].copy(), lin, ang

    def contacts(self) -> int:
        return int(self.data.ncon)

    def failed(self) -> bool:
        return False

    def ground_force(self) -> float:
        f, z = np.zeros(6), 0.0
        for i in range(self.data.ncon):
            c = self.data.contact[i]
            if self.floor in (c.geom1, c.geom2):
                mujoco.mj_contactForce(self.model, self.data, i, f)
                frame = np.asarray(c.frame).reshape(3, 3)  # rows: normal, tangents (world)
                z += abs(float((frame.T @ f[:3])[2]))
        return z

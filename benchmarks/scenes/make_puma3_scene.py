"""Write the three-PUMA-560 grasp of Buffo & Maciel (2006) as description files: an MJCF of the three
arms (``src/contactcp/data/scenes/puma3_fingers.xml``) and a JSON scene that adds the sphere and the
state (``puma3_grasp.json``).  Run once; the files it writes are committed.

Each arm's bodies, joints and inertias are read off the pinocchio model that
:func:`contactcp.models.puma560.puma560` builds from the DH table (joint placements, link inertias
about their centres of mass, the reflected rotor inertias as MJCF ``armature``), so the MJCF holds the
same kinematic tree.  Each arm ends in a fingertip: a sphere of radius ``R_TIP`` on the last link,
placed so that it touches the held sphere at the hand-built model's contact point
(:mod:`contactcp.scenarios.buffo2006`; its inverse-kinematics posture).  The JSON sets those joint
positions and the hand-built model's efforts (gravity compensation plus the desired contact force),
the sphere (mass, radius, centre) and the friction ``MU``.

    python benchmarks/scenes/make_puma3_scene.py
"""

from __future__ import annotations

import json
import pathlib
import xml.etree.ElementTree as ET

import numpy as np
import pinocchio as pin

from contactcp.scenarios.buffo2006 import puma3_grasp

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "src/contactcp/data/scenes"
R_TIP, MU = 0.01, 0.4


def _fmt(x) -> str:
    return " ".join(repr(float(v)) for v in np.ravel(x))


def _quat(R: np.ndarray) -> str:
    q = pin.Quaternion(R)
    return _fmt([q.w, q.x, q.y, q.z])  # MJCF's order


def _arm(parent: ET.Element, model: pin.Model, prefix: str, tip: pin.SE3) -> None:
    node = parent
    for j in range(1, model.njoints):
        M = model.jointPlacements[j]
        body = ET.SubElement(node, "body", name=f"{prefix}link{j}", pos=_fmt(M.translation), quat=_quat(M.rotation))
        ET.SubElement(
            body,
            "joint",
            name=f"{prefix}joint{j}",
            type="hinge",
            axis="0 0 1",
            armature=repr(float(model.armature[j - 1])),
        )
        I = model.inertias[j]
        Ic = I.inertia
        ET.SubElement(  # PUMA's link 1 has no mass but a rotor-side inertia: MJCF wants a mass > 0
            body,
            "inertial",
            pos=_fmt(I.lever),
            mass=repr(max(float(I.mass), 1e-9)),
            fullinertia=_fmt([Ic[0, 0], Ic[1, 1], Ic[2, 2], Ic[0, 1], Ic[0, 2], Ic[1, 2]]),
        )
        node = body
    ET.SubElement(node, "geom", name=f"{prefix}tip", type="sphere", size=repr(R_TIP), pos=_fmt(tip.translation))


def main() -> None:
    grasp = puma3_grasp(MU, "rolling")
    p = grasp.params
    root = ET.Element("mujoco", model="puma3_fingers")
    ET.SubElement(root, "option", gravity=_fmt(p.gravity))
    world = ET.SubElement(root, "worldbody")
    joints = {}
    centre = np.array([0.0, 0.0, p.a_cm])
    for j, arm in enumerate(grasp.system.arms):
        model = arm.manipulator.model
        data = model.createData()
        pin.forwardKinematics(model, data, arm.q)
        x = grasp.points[:, j]
        n = (centre - x) / p.r
        tip = pin.SE3(np.eye(3), data.oMi[model.njoints - 1].actInv(x - R_TIP * n))
        _arm(world, model, f"f{j + 1}_", tip)
        for k in range(6):
            joints[f"f{j + 1}_joint{k + 1}"] = {"position": float(arm.q[k]), "effort": float(arm.tau[k])}
    ET.indent(root)
    (OUT / "puma3_fingers.xml").write_text(
        "<!-- Three PUMA-560 fingers (Buffo & Maciel 2006), written by benchmarks/scenes/make_puma3_scene.py -->\n"
        + ET.tostring(root, encoding="unicode")
        + "\n"
    )
    scene = {
        "robot": {"mjcf": "puma3_fingers.xml", "joints": joints},
        "objects": [
            {"name": "sphere", "shape": {"type": "sphere", "radius": p.r}, "mass": p.m, "pose": {"p": centre.tolist()}}
        ],
        "friction": {"default": MU},
        "margin": 0.001,
    }
    (OUT / "puma3_grasp.json").write_text(json.dumps(scene, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}/puma3_fingers.xml and puma3_grasp.json (mu = {MU}, all rolling)")


if __name__ == "__main__":
    main()

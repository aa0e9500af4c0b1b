"""Design the Allegro-hand grasp of ``src/contactcp/data/scenes/allegro_sphere.json`` (run once; the
file it writes is committed).

A 50 g ball of radius 2.5 cm is pinched between the index fingertip and the thumb tip (the tips
are spheres of radius 12 mm in the URDF's collision model).  Newton steps on the index and thumb
joints (from a half-closed hand) bring the tip centres ``2 (R + r_tip)`` apart; the ball sits
half-way.  The efforts hold the whole hand still: gravity compensation plus
``J_i^T f_i + J_t^T f_t``, where ``f_i``, ``f_t`` are the forces the tips push the ball with (a
squeeze of ``SQUEEZE`` N along the axis, each carrying half the ball's weight), so that a static
grasp is an exact solution of the contact problem: every contact rolling, the ball at rest.

    python benchmarks/scenes/design_allegro_grasp.py
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pinocchio as pin

from contactcp.io.scene_files import scene_from_dict

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "src/contactcp/data/scenes/allegro_sphere.json"
URDF = "package://example-robot-data/robots/allegro_hand_description/urdf/allegro_right_hand.urdf"
R, MASS, SQUEEZE, R_TIP = 0.025, 0.05, 2.0, 0.012
START = {
    "joint_1.0": 0.6,
    "joint_2.0": 0.5,
    "joint_3.0": 0.3,
    "joint_12.0": 1.3,
    "joint_13.0": 0.3,
    "joint_14.0": 0.4,
    "joint_15.0": 0.4,
}
FINGERS = ["joint_0.0", "joint_1.0", "joint_2.0", "joint_3.0", "joint_12.0", "joint_13.0", "joint_14.0", "joint_15.0"]


def tips(scene, q):
    model, data = scene.model, scene._data
    pin.forwardKinematics(model, data, q)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    out = []
    for name in ("link_3.0_tip", "link_15.0_tip"):
        fid = model.getFrameId(name)
        J = pin.getFrameJacobian(model, data, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        out.append((data.oMf[fid].translation.copy(), J))
    return out


def point_jacobian(J6: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The world Jacobian of the point ``r`` away from a frame whose 6-row LOCAL_WORLD_ALIGNED
    Jacobian is ``J6``: ``v_p = v_o + omega x r``."""
    skew = np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])
    return J6[:3] - skew @ J6[3:]


def main() -> None:
    scene = scene_from_dict({"robot": {"urdf": URDF}})
    for k, v in START.items():
        scene.set_joint(k, v)
    q = scene.q.copy()
    cols = np.r_[[scene.joint(n).v.start for n in FINGERS]]
    D = 2 * (R + R_TIP)  # the tips' centres must be this far apart, the ball in the middle
    for _ in range(100):
        (pi, Ji), (pt, Jt) = tips(scene, q)
        axis = (pi - pt) / np.linalg.norm(pi - pt)
        e = D - np.linalg.norm(pi - pt)
        if abs(e) < 1e-14:
            break
        g = axis @ (Ji[:3] - Jt[:3])[:, cols]
        q[cols] += g * e / (g @ g)
    assert abs(e) < 1e-13, e
    centre = 0.5 * (pi + pt)
    scene.q = q
    (pi, Ji), (pt, Jt) = tips(scene, q)
    up = np.array([0.0, 0.0, 9.81 * MASS / 2])
    f_i, f_t = -SQUEEZE * axis + up, SQUEEZE * axis + up  # forces on the ball
    # the forces act on the tips' surfaces, R_TIP from their centres: J_p = J_v - [r]x J_w
    tau = point_jacobian(Ji, -R_TIP * axis).T @ f_i + point_jacobian(Jt, R_TIP * axis).T @ f_t
    joints = {}
    for j in scene.joints:
        joints[j.name] = {"position": float(q[j.q][0]), "effort": float(tau[j.v][0])}
    d = {
        "robot": {"urdf": URDF, "joints": joints, "gravity_compensation": True},
        "objects": [
            {
                "name": "ball",
                "shape": {"type": "sphere", "radius": R},
                "mass": MASS,
                "pose": {"p": centre.tolist()},
                "friction": 1.0,
            }
        ],
        "friction": {"default": 1.0},
        "margin": 0.001,
    }
    OUT.write_text(json.dumps(d, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}: ball at {centre.round(4).tolist()}, squeeze {SQUEEZE} N")


if __name__ == "__main__":
    main()

"""Scenes from description files: load, detect and solve times, side by side with MuJoCo and Drake.

For every example scene (:func:`contactcp.io.scene_files.example_scene`): the time to load the file,
to detect the contacts (coal) and to detect and solve (pyramid and cone), the status, and an
independent statics check (the largest net force on a free body, contacts plus weight plus applied
force, relative to its weight; the scenes are at rest except the rolling ball, which is skipped).

For the Allegro hand of ``example-robot-data`` holding a ball, in the same run: MuJoCo loading the
same URDF (``MjSpec``; it refuses the file unless ``balanceinertia`` is set: four links' inertias
break the triangle inequality) plus the ball, and ``mj_forward`` at the same state with the same
efforts (its soft contact model: the ball's acceleration shows what it predicts for a grasp that
holds); Drake parsing the URDF into a ``MultibodyPlant``.  The user code of the Allegro solve is
counted from ``examples/robot_scenes.py``.  Goals (issue 14): the Allegro hand in <= 20 lines of
user code and <= 10 ms per detect-and-solve after loading.  Writes ``benchmarks/results/scenes.md``.

    python benchmarks/scenes.py [--repeat 50]
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import numpy as np
import report  # noqa: E402  (benchmarks/report.py)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from contactcp.io.scene_files import example_scene, load_scene  # noqa: E402
from contactcp.models.scene import detect  # noqa: E402
from contactcp.simulate.scene import solve_scene  # noqa: E402

SCENES = [
    "box_on_plane.xml",
    "sphere_on_slope.xml",
    "gripper.json",
    "box_stack.json",
    "puma3_grasp.json",
    "allegro_sphere.json",
]
#: scenes whose free bodies accelerate (the rolling ball; the three PUMA fingers press with the
#: paper's desired forces, which are not an equilibrium)
MOVING = {"sphere_on_slope.xml", "puma3_grasp.json"}


def _imbalance(out) -> float:
    """Largest |net force| on a free body (contacts + weight + applied), relative to its weight."""
    scene, worst = out.scene, 0.0
    for j in scene.joints:
        if not j.free:
            continue
        m = scene.model.inertias[j.index].mass
        F = m * scene.gravity + scene.wrenches.get(j.name, np.zeros(6))[:3]
        (body,) = [f.name for f in scene.model.frames if f.parentJoint == j.index and f.type.name == "BODY"][:1]
        for c in out.contacts:
            F = F + (c.force_world if c.bodies[0] == body else -c.force_world if c.bodies[1] == body else 0.0)
        worst = max(worst, float(np.linalg.norm(F)) / (m * float(np.linalg.norm(scene.gravity))))
    return worst


def _user_lines() -> int:
    """Lines of the Allegro part of examples/robot_scenes.py (load, solve, print, check)."""
    text = (HERE.parent / "examples" / "robot_scenes.py").read_text().splitlines()
    start = next(i for i, ln in enumerate(text) if ln.startswith("# 3."))
    imports = [ln for ln in text if ln.startswith(("from contactcp", "import "))]
    body = [ln for ln in text[start + 1 :] if ln.strip() and not ln.lstrip().startswith("#")]
    return len(imports) + len(body)


def _mujoco_allegro(scene, repeat: int) -> dict:
    import importlib.metadata as md

    import mujoco

    robots = Path(md.distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots"))
    urdf = robots / "allegro_hand_description/urdf/allegro_right_hand.urdf"
    text = urdf.read_text().replace("package://example-robot-data/robots/allegro_hand_description/meshes/", "")
    ball = scene.placement("ball").translation

    def load():
        spec = mujoco.MjSpec.from_string(text)
        spec.meshdir = str(robots / "allegro_hand_description/meshes")
        spec.compiler.balanceinertia = True
        b = spec.worldbody.add_body(name="ball", pos=ball.tolist())
        b.add_freejoint()
        b.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[0.025, 0, 0], mass=0.05, friction=[1.0, 0.005, 0.0001])
        return spec.compile()

    t_load = report.median_seconds(load, max(3, repeat // 10))
    m = load()
    d = mujoco.MjData(m)
    for j in scene.joints:
        if j.free:
            continue
        jid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, j.name)
        d.qpos[m.jnt_qposadr[jid]] = scene.q[j.q][0]
        d.qfrc_applied[m.jnt_dofadr[jid]] = scene.tau[j.v][0]
    t_fwd = report.median_seconds(lambda: mujoco.mj_forward(m, d), repeat)
    jb = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "ball")
    dof = m.jnt_dofadr[m.body_jntadr[jb]]
    on_ball = sum(1 for c in d.contact[: d.ncon] if jb in (m.geom_bodyid[c.geom1], m.geom_bodyid[c.geom2]))
    return {
        "load": t_load,
        "forward": t_fwd,
        "ncon": int(d.ncon),
        "on_ball": on_ball,
        "ball_acc": float(np.linalg.norm(d.qacc[dof : dof + 3])),
    }


def _drake_allegro(repeat: int) -> float:
    import importlib.metadata as md

    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    robots = Path(md.distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots"))

    logging.getLogger("drake").setLevel(logging.ERROR)  # the URDF's invalid inertias, joint friction

    def load():
        plant = MultibodyPlant(0.0)
        p = Parser(plant)
        p.package_map().Add("example-robot-data", str(robots.parent))
        p.AddModels(str(robots / "allegro_hand_description/urdf/allegro_right_hand.urdf"))
        plant.Finalize()
        return plant

    return report.median_seconds(load, max(3, repeat // 10))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "scenes.md")
    args = ap.parse_args(argv)
    rows, allegro = [], None
    for name in SCENES:
        try:
            path = example_scene(name)
            t_load = report.median_seconds(lambda: load_scene(path), max(3, args.repeat // 10))
            scene, margin = load_scene(path)
        except Exception as exc:  # example-robot-data missing
            rows.append([name, f"skipped ({exc})"] + [""] * 7)
            continue
        t_det = report.median_seconds(lambda: detect(scene, margin), args.repeat)
        cells = [name, f"{1e3 * t_load:.1f}", str(len(detect(scene, margin))), f"{1e3 * t_det:.2f}"]
        for law in ("pyramid", "cone"):
            out = solve_scene(scene, friction=law, margin=margin)
            t = report.median_seconds(lambda: solve_scene(scene, friction=law, margin=margin), args.repeat)
            imb = "moving" if name in MOVING else f"{_imbalance(out):.0e}"
            cells += [f"{1e3 * t:.2f}", f"{out.status.name} ({out.method})", imb]
            if name == "allegro_sphere.json":
                allegro = (scene, max(allegro[1], t) if allegro else t)
        rows.append(cells)
        print(" | ".join(cells), flush=True)
    lines = [
        "# Scenes from description files: load, detect, solve",
        "",
        report.machine_line(),
        f"Load average before the run {report.loadavg()}.",
        report.command_line("scenes.py"),
        f"Median of {args.repeat} runs (loading: of {max(3, args.repeat // 10)}).",
        "",
        "'detect' is coal's contact detection with patches; 'pyramid'/'cone' time `solve_scene` "
        "(detection, the scene's contact dynamics from pinocchio, the default chain, certification and "
        "the independent check). 'imbalance' is the largest net force on a free body (contacts, weight, "
        "applied force) relative to its weight: these scenes are at rest, so it measures the answer.",
        "",
        "| scene | load (ms) | contacts | detect (ms) | pyramid (ms) | status | imbalance "
        "| cone (ms) | status | imbalance |",
        "|---|---:|---:|---:|---:|---|---:|---:|---|---:|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    if allegro is not None:
        scene, t_worst = allegro
        ours_load = next(float(r[1]) for r in rows if r[0] == "allegro_sphere.json")
        lines += ["", "## The Allegro hand holding a ball, side by side", ""]
        peers = []
        try:
            mj = _mujoco_allegro(scene, args.repeat)
            peers.append(
                f"- MuJoCo {__import__('mujoco').__version__}: load the URDF + ball {1e3 * mj['load']:.1f} ms "
                f"(contactcp {ours_load:.1f} ms, ratio {ours_load / (1e3 * mj['load']):.1f}); `mj_forward` at the "
                f"same state {1e3 * mj['forward']:.3f} ms with {mj['ncon']} contacts (contactcp detect-and-solve "
                f"{1e3 * t_worst:.2f} ms with 2, ratio {t_worst / mj['forward']:.0f}). Of MuJoCo's contacts "
                f"{mj['on_ball']} touch the ball (a pair at distance exactly 0 is outside its zero margin) and the "
                f"others are the palm against the first link of each finger (its parent-child filter does not "
                f"apply to the world body, into which the fixed palm is fused); its ball accelerates at "
                f"{mj['ball_acc']:.3g} m/s^2 at that state, contactcp's is at rest with both contacts rolling"
            )
        except Exception as exc:
            peers.append(f"- MuJoCo: not run ({type(exc).__name__}: {exc})")
        try:
            t_dr = _drake_allegro(args.repeat)
            ratio = ours_load / (1e3 * t_dr)
            peers.append(f"- Drake: parse the URDF into a MultibodyPlant {1e3 * t_dr:.1f} ms (ratio {ratio:.1f})")
        except Exception as exc:
            peers.append(f"- Drake: not run ({type(exc).__name__}: {exc})")
        lines += peers
        n_user = _user_lines()
        lines += [
            "",
            "## Goals",
            "",
            f"- the Allegro hand holding a ball in <= 20 lines of user code: {n_user} lines "
            f"(`examples/robot_scenes.py`, part 3, with its imports) — **{'met' if n_user <= 20 else 'not met'}**",
            f"- <= 10 ms per detect-and-solve after loading: slowest law {1e3 * t_worst:.2f} ms — "
            f"**{'met' if t_worst <= 0.01 else 'not met'}**",
        ]
    lines += ["", f"Load average after the run {report.loadavg()}."]
    report.write(args.out, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

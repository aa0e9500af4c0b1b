"""Time stepping side by side: contactcp, MuJoCo, Drake, PyBullet and Siconos on the same scenes.

The verification scenes of :mod:`contactcp.scenarios.timestepping` (h = 1 ms, 1 kg bodies), each
simulator building its model from the same data (:mod:`tsbench.spec`: geometry, masses, inertias,
friction, restitution, initial poses and velocities read from contactcp's scene):

1. ``stick``: a 0.1 m cube on a 20° slope (tilted gravity) with mu = 0.5, slope directions 0-90° by
   5° (quick: 0° and 45°), 10 s (quick: 1 s): slip speed at the end and drift;
2. ``slide``: the same with mu = 0.3, 2 s: final speed against ``g (sin - mu cos) t``, lift-off;
3. ``ball``: a ball (radius 0.1) dropped from 1 m, e = 0.9, 10 s (quick: 4 s): apexes 1-5 against
   ``e^(2k) h0``, time to rest against 8.579 s, penetration, largest energy gain over a step
   (contactcp also at h = 5 and 10 ms);
4. ``stack``: five stacked cubes, 5 s (quick: 1 s): overlap, sideways drift of the top box, ground
   force against 5 m g;
5. ``pile25``, ``pile50``: ``box_pile(n, seed=0)``, 0.5 s (quick: 0.1 s; contactcp: ``--pile-duration``,
   stopped after ``--pile-budget`` CPU seconds): CPU per step, contacts, failed steps;
6. ``grasp``: Buffo & Maciel's three PUMA-560 fingers holding a sphere
   (``contactcp.scenarios.timestepping_robots.puma_grasp(mu=0.4)``, equilibrium efforts), held 1 s
   (quick: 0.2 s): CPU per step, real-time factor (simulated time / wall time of the steps; the
   goal: >= 10), the sphere's displacement, failed steps.  MuJoCo loads the same MJCF (two
   inertias per finger made physical and the sphere added: ``tsbench/peer_mujoco.py``); Drake, PyBullet and
   Siconos are not run (no model of this robot built for them).

Each (simulator, setting, scene) runs in its own process (``_ts_worker.py``; Siconos under Debian's
python3) with one thread and a time limit; CPU time (``time.process_time``) is taken around the
step calls only.  Accuracy is measured here (:mod:`tsbench.metrics`).  Writes
``benchmarks/results/timestepping.md`` atomically.

    python benchmarks/timestepping.py --quick     # a few minutes
    python benchmarks/timestepping.py             # the full run
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy

import argparse  # noqa: E402
import math  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(SRC))
sys.path.insert(0, str(HERE))

import report  # noqa: E402  (benchmarks/report.py)
from tsbench import metrics, render, runner  # noqa: E402
from tsbench.spec import grasp_spec, scene_spec  # noqa: E402

H = 1e-3
SLOPE = 20.0
#: (peer, setting) of the rigid-body scenes; the ball adds its own
RIGID = [
    ("contactcp", "default"),
    ("mujoco", "pyramidal"),
    ("mujoco", "elliptic"),
    ("drake", "default"),
    ("drake", "sap"),
    ("drake", "tamsi"),
    ("pybullet", "default"),
    ("siconos", "bullet"),
]
BALL = [
    ("contactcp", "default"),
    ("mujoco", "pyramidal"),
    ("mujoco", "restitution"),
    ("drake", "default"),
    ("drake", "tamsi"),
    ("pybullet", "default"),
    ("siconos", "linear"),
    ("siconos", "bullet"),
]
GRASP = [("contactcp", "default"), ("mujoco", "pyramidal"), ("mujoco", "elliptic")]
#: the peers the grasp does not run, and why
GRASP_NOT_RUN = {
    ("drake", "default"): "no model of the PUMA fingers and the grasp built for Drake",
    ("pybullet", "default"): "no model of the PUMA fingers and the grasp built for PyBullet",
    ("siconos", "bullet"): "no model of the PUMA fingers and the grasp built for Siconos",
}
SCENES = ["stick", "slide", "ball", "stack", "pile25", "pile50", "grasp"]


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short runs, two slope directions")
    ap.add_argument("--scenes", nargs="+", default=SCENES, choices=SCENES)
    ap.add_argument("--peers", nargs="+", default=["contactcp", "mujoco", "drake", "pybullet", "siconos"])
    ap.add_argument("--stack-duration", type=float, default=None, help="seconds (default 5, quick 1)")
    ap.add_argument("--pile-duration", type=float, default=None, help="the peers' pile runs (default 0.5, quick 0.1)")
    ap.add_argument("--ccp-pile-duration", type=float, default=None, help="contactcp's (default 0.5, quick 0.05)")
    ap.add_argument("--pile-budget", type=float, default=None, help="contactcp's CPU s per pile (600, quick 60)")
    ap.add_argument("--grasp-duration", type=float, default=None, help="seconds (default 1, quick 0.2)")
    ap.add_argument("--budget", type=float, default=900.0, help="CPU seconds of stepping per run")
    ap.add_argument("--startup", type=float, default=300.0, help="wall seconds a worker may add (imports, JIT)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "timestepping.md")
    args = ap.parse_args(argv)
    q = args.quick
    args.stack_duration = args.stack_duration or (1.0 if q else 5.0)
    args.grasp_duration = args.grasp_duration or (0.2 if q else 1.0)
    args.pile_duration = args.pile_duration or (0.1 if q else 0.5)
    args.ccp_pile_duration = args.ccp_pile_duration or (0.05 if q else 0.5)
    args.pile_budget = args.pile_budget or (60.0 if q else 600.0)
    return args


def plan(args) -> list[dict]:
    """Every run: scene key, variant, contactcp factory and arguments, peer, setting, dt, duration, budget."""
    runs = []

    def add(scene, variant, factory, kwargs, pairs, duration, dt=H, budget=args.budget, skip=None):
        for peer, setting in pairs:
            if peer in args.peers:
                runs.append(
                    dict(
                        scene=scene,
                        variant=variant,
                        factory=factory,
                        kwargs=kwargs,
                        peer=peer,
                        setting=setting,
                        dt=dt,
                        duration=duration,
                        budget=budget,
                        skip=(skip or {}).get((peer, setting)),
                    )
                )

    directions = (0.0, 45.0) if args.quick else tuple(float(d) for d in range(0, 91, 5))
    if "stick" in args.scenes:
        for d in directions:
            add(
                "stick", d, "slope_box", {"mu": 0.5, "slope": SLOPE, "direction": d}, RIGID, 1.0 if args.quick else 10.0
            )
    if "slide" in args.scenes:
        for d in (0.0,) if args.quick else (0.0, 45.0):
            add("slide", d, "slope_box", {"mu": 0.3, "slope": SLOPE, "direction": d}, RIGID, 2.0)
    if "ball" in args.scenes:
        T = 4.0 if args.quick else 10.0
        add("ball", "1 ms", "bouncing_ball", {"e": 0.9, "h0": 1.0}, BALL, T)
        for dt in (5e-3, 1e-2):
            add("ball", f"{dt * 1e3:g} ms", "bouncing_ball", {"e": 0.9, "h0": 1.0}, [("contactcp", "default")], T, dt)
    if "stack" in args.scenes:
        add("stack", 5, "box_stack", {"n": 5}, RIGID, args.stack_duration)
    for n in (25, 50):
        if f"pile{n}" in args.scenes:
            add(f"pile{n}", n, "box_pile", {"n": n, "seed": 0}, RIGID[1:], args.pile_duration)
            add(
                f"pile{n}",
                n,
                "box_pile",
                {"n": n, "seed": 0},
                RIGID[:1],
                args.ccp_pile_duration,
                budget=args.pile_budget,
            )
    if "grasp" in args.scenes:
        pairs = GRASP + list(GRASP_NOT_RUN)
        add("grasp", "mu = 0.4", "puma_grasp", {"mu": 0.4}, pairs, args.grasp_duration, skip=GRASP_NOT_RUN)
    return runs


def measure(run: dict, rec: dict, spec: dict) -> dict:
    """The scene's metrics of one finished run (tsbench.metrics)."""
    kind, dt = run["scene"], run["dt"]
    if kind == "stick":
        return metrics.stick(rec, dt)
    if kind == "slide":
        return metrics.slide(rec, dt, run["kwargs"]["mu"], SLOPE, 0.5 * spec["bodies"][0]["size"][2])
    if kind == "ball":
        h0, e = run["kwargs"]["h0"], run["kwargs"]["e"]
        return metrics.ball(rec, dt, spec, math.sqrt(2.0 * h0 / metrics.G) * (1.0 + 2.0 * e / (1.0 - e)))
    if kind == "stack":
        return metrics.stack(rec, spec)
    if kind == "grasp":
        return metrics.grasp(rec, dt)
    return metrics.pile(rec)


def main(argv=None) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the running worker is killed too
    args = parse(argv)
    load_start, started = report.loadavg(), time.time()
    runs = plan(args)
    missing = {p: runner.available(p, SRC) for p in sorted({r["peer"] for r in runs if not r["skip"]})}
    specs: dict = {}
    results = []
    with tempfile.TemporaryDirectory(prefix="ts_bench_") as td:
        for i, run in enumerate(runs):
            key = (run["factory"], tuple(sorted(run["kwargs"].items())))
            if key not in specs:
                make = grasp_spec if run["scene"] == "grasp" else scene_spec
                specs[key] = make(run["factory"], **run["kwargs"])
            spec = specs[key]
            if run["skip"]:
                rec = {"status": "NOT RUN", "note": run["skip"], "meta": {}}
            elif missing[run["peer"]]:
                rec = {"status": "UNAVAILABLE", "note": missing[run["peer"]], "meta": {}}
            else:
                job = {k: run[k] for k in ("peer", "setting", "dt", "duration", "budget")}
                timeout = run["budget"] + args.startup
                rec = runner.run(dict(job, spec=spec), Path(td), f"run{i}", SRC, timeout)
            m = {}
            if rec["status"] == "OK":
                try:
                    m = measure(run, rec, spec)
                except Exception as exc:  # noqa: BLE001 - a broken trajectory is a finding
                    rec = dict(rec, status="ERROR", note=f"measuring: {type(exc).__name__}: {exc}")
            results.append({"run": run, "status": rec["status"], "note": rec["note"], "meta": rec["meta"], "m": m})
            cpu = rec["meta"].get("cpu"), rec["meta"].get("steps")
            per = f"{1e3 * cpu[0] / cpu[1]:.3g} ms/step" if cpu[1] else ""
            print(
                f"[{i + 1}/{len(runs)}] {run['scene']} {run['variant']} {run['peer']}/{run['setting']}: "
                f"{rec['status']} {per} {rec['note'][:120]}",
                flush=True,
            )
    lines = render.document(args, results, missing, load_start, time.time() - started)
    report.write(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())

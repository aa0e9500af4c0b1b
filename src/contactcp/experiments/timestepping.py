"""The time stepper on its verification scenes, against the analytic answers and Siconos' reference.

Writes ``timestepping.md`` and ``table.csv``: Siconos' ``BouncingBallTS.ref`` (if found: the
environment variable ``CONTACTCP_BOUNCING_REF``, else ``../shared/timestepping/`` from the working
folder) with ``Scheme.siconos()``; the bouncing ball's apexes, rest time, penetration and energy at
``h`` = 1, 5 and 10 ms; a box on a 20° slope sticking (``mu = 0.5``, 10 s) and sliding
(``mu = 0.3``) in slope directions 0-90° by 5°; a rolling ball; a stack of five boxes for 60 s
(overlap, drift, ground force); piles of 25 and 50 boxes (ten seeds: failed steps, and a rerun
compared bit for bit); the robot scenes (:mod:`~contactcp.experiments.timestepping_robots`).
Quick: fewer directions, shorter runs, one pile.  Speed is the benchmark's
(``benchmarks/timestepping.py``), not claimed here.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np

from contactcp.experiments.timestepping_robots import robot_rows
from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import Scheme, simulate

H = 1e-3


def _reference() -> Path | None:
    env = os.environ.get("CONTACTCP_BOUNCING_REF")
    for p in ([Path(env)] if env else []) + [Path.cwd().parent / "shared" / "timestepping" / "BouncingBallTS.ref"]:
        if p.is_file():
            return p
    return None


def _siconos(rows: list[dict]) -> None:
    ref_path = _reference()
    if ref_path is None:
        rows.append({"scene": "siconos-ball", "quantity": "reference file", "value": "not found", "goal": "1e-12"})
        return
    ref = np.loadtxt(ref_path, skiprows=1)
    traj = simulate(ts.siconos_ball(), 10.0, 0.005, scheme=Scheme.siconos())
    impulse = np.array([0.0] + [s.impulse[0, 0] for s in traj.steps])
    for name, mine, col in (("gap", traj.q[:, 0], 1), ("velocity", traj.v[:, 0], 2), ("impulse", impulse, 4)):
        err = float(np.abs(mine - ref[:, col]).max()) if len(mine) == len(ref) else math.inf
        rows.append({"scene": "siconos-ball", "quantity": f"max |{name} - ref|", "value": err, "goal": "<= 1e-12"})


def _ball(rows: list[dict], quick: bool) -> None:
    for dt in (1e-3,) if quick else (1e-3, 5e-3, 1e-2):
        traj = simulate(ts.bouncing_ball(0.9, 1.0), 4.0 if quick else 10.0, dt)
        z, vz = traj.body("ball")[0][:, 2] - 0.1, traj.v[:, 2]
        apex = [z[k] + vz[k] ** 2 / (2 * ts.G) for k in range(len(z) - 1) if vz[k] > 0 >= vz[k + 1]]
        tag = f"bouncing-ball h={dt * 1e3:g}ms"
        n = min(5, len(apex))
        err = max(abs(a / 0.81 ** (k + 1) - 1) for k, a in enumerate(apex[:n]))
        rows.append({"scene": tag, "quantity": f"apexes 1-{n}: max relative error", "value": err, "goal": "<= 0.25 %"})
        if not quick:
            moving = np.flatnonzero(np.abs(vz) > 1e-6)
            rest = float(traj.t[moving[-1] + 1]) if len(moving) and moving[-1] + 1 < len(vz) else math.inf
            rel = rest / ts.ball_rest_time() - 1
            rows.append({"scene": tag, "quantity": "time to rest: relative error", "value": rel, "goal": "1 % (h=1ms)"})
        rows.append(
            {"scene": tag, "quantity": "penetration (m)", "value": max(0.0, -float(z.min())), "goal": "<= 1e-4"}
        )
        rows.append(
            {"scene": tag, "quantity": "largest energy gain in a step (J)", "value": traj.max_energy_gain, "goal": "0"}
        )
        rows.append({"scene": tag, "quantity": "failed steps", "value": traj.failed_steps, "goal": "0"})
        rows.append({"scene": tag, "quantity": "steps taken in sub-steps", "value": traj.halved_steps, "goal": "-"})


def _slopes(rows: list[dict], quick: bool) -> None:
    T = 1.0 if quick else 10.0
    for direction in (0.0, 45.0, 90.0) if quick else tuple(range(0, 91, 5)):
        stick = simulate(ts.slope_box(0.5, 20.0, direction), T, H)
        p = stick.body("box")[0]
        tag = f"slope-stick dir={direction:g}"
        rows.append(
            {"scene": tag, "quantity": "largest speed (m/s)", "value": float(np.abs(stick.v).max()), "goal": "<= 1e-10"}
        )
        rows.append({"scene": tag, "quantity": "drift (m)", "value": float(np.abs(p - p[0]).max()), "goal": "<= 1e-9"})
        slide = simulate(ts.slope_box(0.3, 20.0, direction), T, H)
        p = slide.body("box")[0]
        speed = np.linalg.norm(p[-1, :2] - p[-2, :2]) / H
        exact = ts.sliding_speed(0.3, T - H / 2)
        tag = f"slope-slide dir={direction:g}"
        rows.append(
            {"scene": tag, "quantity": "speed: relative error", "value": abs(speed / exact - 1), "goal": "<= 1e-9"}
        )
        rows.append(
            {"scene": tag, "quantity": "lift-off (m)", "value": float(np.abs(p[:, 2] - 0.05).max()), "goal": "<= 1e-9"}
        )
        fails = stick.failed_steps + slide.failed_steps
        rows.append({"scene": f"slope dir={direction:g}", "quantity": "failed steps", "value": fails, "goal": "0"})


def _rolling_and_stack(rows: list[dict], quick: bool) -> None:
    T = 1.0
    traj = simulate(ts.rolling_sphere(0.6, 20.0), T, H)
    x = traj.body("ball")[0][-1, 0]
    exact = 0.5 * 5 / 7 * ts.G * math.sin(math.radians(20.0)) * T**2
    rows.append(
        {"scene": "rolling-sphere", "quantity": "distance: relative error", "value": abs(x / exact - 1), "goal": "-"}
    )
    T = 0.5 if quick else 60.0
    traj = simulate(ts.box_stack(5), T, H)
    pos = traj.body_pos
    overlap = max((max(0.0, -float(s.gap[s.active].min(initial=0.0))) for s in traj.steps), default=0.0)
    rows.append({"scene": f"box-stack 5, {T:g} s", "quantity": "overlap (m)", "value": overlap, "goal": "<= 1e-6"})
    rows.append({"scene": f"box-stack 5, {T:g} s", "quantity": "failed steps", "value": traj.failed_steps, "goal": "0"})
    rows.append(
        {
            "scene": f"box-stack 5, {T:g} s",
            "quantity": "drift (m)",
            "value": float(np.abs(pos - pos[0]).max()),
            "goal": "<= 1e-9",
        }
    )
    last = traj.steps[-1]
    ground = [i for i, b in enumerate(last.bodies) if b[1] == "world"]
    force = float(last.impulse_world[ground, 2].sum() / H)
    rel = abs(force / (5 * ts.G) - 1)
    rows.append(
        {"scene": f"box-stack 5, {T:g} s", "quantity": "ground force / 5 m g - 1", "value": rel, "goal": "<= 1e-9"}
    )


def _piles(rows: list[dict], quick: bool) -> None:
    """Seeded piles: failed steps, and a rerun of the first seed compared bit for bit."""
    T = 0.1 if quick else 0.5
    cases = [(25, 0)] if quick else [(25, 0)] + [(50, seed) for seed in range(10)]
    first = None
    for n, seed in cases:
        traj = simulate(ts.box_pile(n, seed=seed), T, H)
        tag = f"box-pile {n} seed {seed}, {T:g} s"
        rows.append({"scene": tag, "quantity": "failed steps", "value": traj.failed_steps, "goal": "0"})
        rows.append({"scene": tag, "quantity": "steps taken in sub-steps", "value": traj.halved_steps, "goal": "-"})
        active = max((int(s.active.sum()) for s in traj.steps), default=0)
        rows.append({"scene": tag, "quantity": "most active contacts in a step", "value": active, "goal": "-"})
        if first is None:
            first = (n, seed, traj)
    n, seed, traj = first
    again = simulate(ts.box_pile(n, seed=seed), T, H)
    same = np.array_equal(traj.q, again.q) and np.array_equal(traj.v, again.v)
    rows.append(
        {
            "scene": f"box-pile {n} seed {seed}, {T:g} s",
            "quantity": "rerun: states that differ bit for bit",
            "value": 0 if same else int(np.count_nonzero((traj.q != again.q).any(axis=1))),
            "goal": "0",
        }
    )


def run(out_dir: Path, quick: bool) -> list[Path]:
    rows: list[dict] = []
    _siconos(rows)
    _ball(rows, quick)
    _slopes(rows, quick)
    _rolling_and_stack(rows, quick)
    _piles(rows, quick)
    rows += robot_rows(quick)
    csv_path = out_dir / "table.csv"
    with csv_path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["scene", "quantity", "value", "goal"])
        w.writeheader()
        w.writerows(rows)
    md = [
        "# Time stepping on the verification scenes",
        "",
        "Moreau–Jean (theta = 1/2, timed impacts, position projection), every step certified; h = 1 ms"
        " unless named. Goals are issue 15's (the benchmark's), shown for reference.",
        "",
        "| scene | quantity | value | goal |",
        "|---|---|---:|---|",
    ]
    md += [f"| {r['scene']} | {r['quantity']} | {_fmt(r['value'])} | {r['goal']} |" for r in rows]
    md_path = out_dir / "timestepping.md"
    md_path.write_text("\n".join(md) + "\n")
    return [md_path, csv_path]


def _fmt(v) -> str:
    return f"{v:.3g}" if isinstance(v, float) else str(v)

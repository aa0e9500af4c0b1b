"""The Markdown report of the time-stepping benchmark: a header, then one table per scene with one row
per simulator and setting, CPU time per step and its ratio to contactcp's on the same scene."""

from __future__ import annotations

import math
import sys

import report  # benchmarks/report.py

LABELS = {
    ("contactcp", "default"): "contactcp (Moreau–Jean, certified)",
    ("mujoco", "pyramidal"): "MuJoCo, pyramidal cone (default)",
    ("mujoco", "elliptic"): "MuJoCo, elliptic cone",
    ("mujoco", "restitution"): "MuJoCo, solref = -k -b for e",
    ("drake", "default"): "Drake (default: lagged, point contact)",
    ("drake", "sap"): "Drake, discrete approximation sap",
    ("drake", "tamsi"): "Drake, discrete approximation tamsi",
    ("pybullet", "default"): "PyBullet (default)",
    ("siconos", "bullet"): "Siconos, RigidBodyDS + Bullet",
    ("siconos", "linear"): "Siconos, LagrangianLinearTIDS + LCP",
}


def fmt(x, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        if math.isnan(x):
            return "–"
        if math.isinf(x):
            return "∞"
        return f"{x:.{digits}g}"
    return str(x)


def label(r: dict) -> str:
    run = r["run"]
    return LABELS.get((run["peer"], run["setting"]), f"{run['peer']} {run['setting']}")


def cpu_step(r: dict) -> float:
    m = r["meta"]
    return m["cpu"] / m["steps"] if m.get("steps") else math.nan


def _cells(r: dict, base: dict | None) -> list[str]:
    """CPU/step (ms), ratio to contactcp's, steps done."""
    c = cpu_step(r)
    ratio = c / cpu_step(base) if base is not None and base["status"] == "OK" and r["status"] == "OK" else math.nan
    m = r["meta"]
    steps = f"{m.get('steps', 0)}/{math.ceil(r['run']['duration'] / r['run']['dt'] - 1e-9)}"
    return [fmt(1e3 * c), fmt(ratio, 2), steps]


def _row(r: dict, base: dict | None, values: list) -> str:
    if r["status"] != "OK":
        cells = [label(r), *[""] * len(values), "", "", "", f"{r['status']}: {r['note'][:160]}"]
    else:
        note = f"{r['meta']['failed_steps']} failed steps" if r["meta"].get("failed_steps") else ""
        note = "; ".join(x for x in (note, r["meta"].get("stopped", "")) if x)
        cells = [label(r), *[fmt(v) for v in values], *_cells(r, base), note]
    return "| " + " | ".join(cells) + " |"


def _table(title: str, intro: str, head: list[str], rows: list[tuple[dict, list]], bases: dict) -> list[str]:
    cols = ["simulator", *head, "CPU/step (ms)", "÷ contactcp", "steps", "notes"]
    out = ["", f"## {title}", "", intro, "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r, values in rows:
        out.append(_row(r, bases.get((r["run"]["scene"], r["run"]["variant"])), values))
    return out


def _bases(results: list[dict]) -> dict:
    """contactcp's h = 1 ms run of each (scene, variant)."""
    return {
        (r["run"]["scene"], r["run"]["variant"]): r
        for r in results
        if r["run"]["peer"] == "contactcp" and r["run"]["dt"] == 1e-3
    }


def _stick(results: list[dict], bases: dict) -> list[str]:
    rows = [r for r in results if r["run"]["scene"] == "stick"]
    if not rows:
        return []
    dirs = sorted({r["run"]["variant"] for r in rows})
    groups: dict = {}
    for r in rows:
        groups.setdefault(label(r), []).append(r)
    head = [
        "| simulator | worst slip at the end (m/s) | worst drift (m) | at direction (°) | mean CPU/step (ms) "
        "| ÷ contactcp | failed steps | notes |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    base = [b for b in bases.values() if b["run"]["scene"] == "stick" and b["status"] == "OK"]
    base_cpu = sum(cpu_step(b) for b in base) / len(base) if base else math.nan
    lines = []
    for name, rs in groups.items():
        ok = [r for r in rs if r["status"] == "OK"]
        bad = [f"{r['run']['variant']:g}°: {r['status']} {r['note'][:100]}" for r in rs if r["status"] != "OK"]
        if not ok:
            lines.append(f"| {name} | | | | | | | {'; '.join(bad[:2])} |")
            continue
        worst = max(ok, key=lambda r: r["m"]["drift"])
        cpu = sum(cpu_step(r) for r in ok) / len(ok)
        fails = sum(r["meta"].get("failed_steps", 0) for r in ok)
        slip = max(r["m"]["slip"] for r in ok)
        lines.append(
            f"| {name} | {fmt(slip)} | {fmt(worst['m']['drift'])} | {worst['run']['variant']:g} | {fmt(1e3 * cpu)} "
            f"| {fmt(cpu / base_cpu, 2)} | {fails} | {'; '.join(bad[:2])} |"
        )
    T = rows[0]["run"]["duration"]
    out = [
        "",
        "## 1. Box on a 20° slope, mu = 0.5 (sticks)",
        "",
        f"{T:g} s at h = 1 ms, slope directions {', '.join(f'{d:g}' for d in dirs)}°. Slip: the box's speed along "
        "the floor over the last step; drift: its largest displacement along the floor. Worst over the "
        "directions. contactcp's goal: slip <= 1e-10 m/s, drift <= 1e-9 m.",
        "",
        *head,
        *lines,
    ]
    names = list(groups)
    out += [
        "",
        "Drift (m) by slope direction:",
        "",
        "| direction (°) | " + " | ".join(names) + " |",
        "|---:|" + "---:|" * len(names),
    ]
    for d in dirs:
        cells = []
        for name in names:
            r = next((r for r in groups[name] if r["run"]["variant"] == d), None)
            cells.append(fmt(r["m"]["drift"]) if r is not None and r["status"] == "OK" else (r["status"] if r else ""))
        out.append(f"| {d:g} | " + " | ".join(cells) + " |")
    return out


def document(args, results: list[dict], missing: dict, load_start: str, wall: float) -> list[str]:
    bases = _bases(results)
    by = lambda scene: [r for r in results if r["run"]["scene"] == scene]  # noqa: E731
    versions = {}
    for r in results:
        info = r["meta"].get("info") or {}
        versions.setdefault(r["run"]["peer"], info.get("version"))
    lines = [
        "# Time stepping side by side: contactcp, MuJoCo, Drake, PyBullet, Siconos",
        "",
        report.machine_line(),
        f"Command: `{' '.join(['python', 'benchmarks/timestepping.py', *sys.argv[1:]])}`"
        + (" (quick mode: short runs)." if args.quick else "."),
        f"Load average (1, 5, 15 min) at the start {load_start}, at the end {report.loadavg()}; the whole run took "
        f"{wall / 60:.1f} min of wall time (the machine is shared with other jobs).",
        "",
        "Versions: " + ", ".join(f"{p} {v}" for p, v in sorted(versions.items()) if v is not None) + ".",
        "Unavailable: " + ("; ".join(f"{p}: {why}" for p, why in missing.items() if why) or "none") + ".",
        "",
        "Every (simulator, setting, scene) ran in its own process with OMP/OPENBLAS/MKL/NUMBA_NUM_THREADS = 1 "
        "and a time limit; CPU time is `time.process_time()` around the step calls only (model building, "
        "warm-up and reading the state excluded; contactcp: `advance_certified`, its whole step, halved "
        "when not certified: detection, the "
        "certified contact problem, the position projection). Every simulator's model is built from the "
        "same data, read from contactcp's scene: geometry, masses, inertias, mu, e, initial poses. All the "
        "accuracy numbers are measured by the benchmark from the recorded states (`benchmarks/tsbench/"
        "metrics.py`), the same way for every simulator; the ground force is each simulator's own report. "
        "'÷ contactcp': CPU per step divided by contactcp's on the same scene (below 1: faster). "
        "'steps': steps done / asked.",
        "",
        "Settings (each simulator's defaults unless named): MuJoCo `condim` 3 (1 for the frictionless ball), "
        'default solref/solimp; its restitution row sets `solref="-1e5 -b"` (stiffness and damping, the '
        "documented negative form) with b = 2 ζ √k, ζ the damping ratio of a spring rebounding with e = 0.9 "
        "(ζ = 0.0335, b = 21.2). PyBullet: friction and restitution sqrt(μ), sqrt(e) on every body (Bullet "
        "multiplies a pair's values), velocity damping 0 (default 0.04). Drake: `MultibodyPlantConfig(time_step="
        "h)` (point contact, no restitution); rows sap/tamsi change only `discrete_contact_approximation`. "
        "Siconos: Moreau–Jean θ = 1/2; the ball both as its BouncingBallTS linear model and as a Bullet sphere; "
        "Bullet box contactors with a 5 mm inside margin.",
    ]
    if args.quick:
        lines += [
            "",
            "Quick mode: 1 s on the sticking slope (two directions), a 4 s ball (no time to rest: it needs "
            "8.58 s), a 1 s stack, 0.1 s piles (contactcp 0.05 s), a 0.2 s grasp.",
        ]
    lines += _stick(results, bases)
    rows = [
        (
            r,
            [
                r["run"]["variant"],
                r["m"].get("speed"),
                r["m"].get("exact"),
                r["m"].get("rel"),
                r["m"].get("lift"),
                r["m"].get("sink"),
            ],
        )
        for r in by("slide")
    ]
    if rows:
        lines += _table(
            "2. Box on a 20° slope, mu = 0.3 (slides)",
            "2 s at h = 1 ms. Speed: over the last step (time T - h/2), against g (sin θ - μ cos θ) t "
            "(1.17940 m/s at 2 s). Lift-off / sinking: the largest rise / fall of the box's centre "
            "from its resting height 0.05 m.",
            ["direction (°)", "final speed (m/s)", "analytic (m/s)", "relative error", "lift-off (m)", "sinking (m)"],
            rows,
            bases,
        )
    rows = [
        (
            r,
            [
                r["run"]["variant"],
                r["m"].get("apexes"),
                r["m"].get("apex1"),
                r["m"].get("apex_err"),
                r["m"].get("rest"),
                r["m"].get("rest_err"),
                r["m"].get("penetration"),
                r["m"].get("gain"),
            ],
        )
        for r in by("ball")
    ]
    if rows:
        T = rows[0][0]["run"]["duration"]
        lines += _table(
            "3. Bouncing ball, e = 0.9, dropped from 1 m",
            f"{T:g} s. Heights are the ball's lowest point (centre minus radius 0.1 m). Apexes: "
            "vertex of the parabola through the three samples around each height maximum above 1 mm, "
            "first five against e^(2k) h0 (0.81, 0.656, ...; the column gives the largest relative "
            "error, and how many were found). Time to rest: the end of the last step with a vertical "
            "speed above 1e-3 m/s, against 8.579 s (∞: still moving at the end). Energy: kinetic "
            "plus gravitational from the recorded state (a soft contact's spring energy is not in "
            "it: its release shows as gains).",
            [
                "h",
                "apexes",
                "apex 1 (m)",
                "apexes 1-5: max rel. error",
                "rest (s)",
                "rest: rel. error",
                "max penetration (m)",
                "max energy gain/step (J)",
            ],
            rows,
            bases,
        )
    rows = [(r, [r["m"].get("overlap"), r["m"].get("drift"), r["m"].get("force_rel")]) for r in by("stack")]
    if rows:
        T = rows[0][0]["run"]["duration"]
        lines += _table(
            "4. Five stacked boxes",
            f"{T:g} s at h = 1 ms. Overlap: the largest penetration (floor: the lowest corner of the "
            "bottom box; box on box: from the centres' heights). Drift: the top box's largest "
            "sideways displacement. Ground force: the simulator's vertical floor force at the last "
            "step against 5 m g.",
            ["max overlap (m)", "top box drift (m)", "ground force / 5 m g - 1"],
            rows,
            bases,
        )
    if args.ccp_pile_duration < args.pile_duration:
        ours = (
            f"contactcp runs a shorter duration, {args.ccp_pile_duration:g} s (`--ccp-pile-duration`): its "
            "CPU/step covers the first steps of the fall only"
        )
    else:
        ours = f"contactcp runs {args.ccp_pile_duration:g} s (`--ccp-pile-duration`) as well"
    for n in (25, 50):
        rows = [(r, [r["m"].get("contacts"), r["m"].get("contacts_max"), r["m"].get("min_z")]) for r in by(f"pile{n}")]
        if rows:
            lines += _table(
                f"5. Pile of {n} boxes (box_pile({n}, seed=0))",
                f"{args.pile_duration:g} s at h = 1 ms from the same initial poses; {ours}, stopped after "
                f"`--pile-budget` = {args.pile_budget:g} CPU s. Contacts: per step (contactcp: the active ones).",
                ["contacts/step (mean)", "contacts (max)", "lowest centre z (m)"],
                rows,
                bases,
            )
    lines += _grasp(by("grasp"), bases)
    return lines


#: the issue's goal for the grasp: real-time factor at h = 1 ms
GRASP_RTF_GOAL = 10.0


def _grasp(results: list[dict], bases: dict) -> list[str]:
    """The three-finger grasp's table (module docstring of benchmarks/timestepping.py)."""
    if not results:
        return []
    rows = []
    for r in results:
        m = r["m"]
        rtf = fmt(m.get("rtf"))
        if r["run"]["peer"] == "contactcp" and r["status"] == "OK":
            rtf += f" (goal ≥ {GRASP_RTF_GOAL:g}: {'met' if m['rtf'] >= GRASP_RTF_GOAL else 'not met'})"
        values = [m.get("disp"), m.get("disp_end"), m.get("speed"), m.get("contacts"), rtf]
        rows.append((r, values + [r["meta"].get("failed_steps")]))
    T = results[0]["run"]["duration"]
    mj = next((r["meta"]["info"] for r in results if r["run"]["peer"] == "mujoco" and r["meta"].get("info")), None)
    check = (
        f" MuJoCo's gravity torques at the grasp's q differ from pinocchio's by at most "
        f"{fmt(mj.get('gravity_mismatch'))} N m; inertias changed: {', '.join(mj.get('inertia_fixed', []))}."
        if mj
        else ""
    )
    return _table(
        "6. Three-finger grasp (Buffo & Maciel's three PUMA-560 fingers holding a sphere, mu = 0.4)",
        f"{T:g} s at h = 1 ms from rest, under constant joint efforts that hold the grasp in static "
        "equilibrium (`timestepping_robots.grasp_equilibrium`, squeeze 20 N; sphere 1 kg, radius 0.15 m). "
        "Displacement: the sphere's centre from its start (largest, and at the end); speed: over the "
        "last step. Real-time factor: simulated time / wall time of the step calls (the issue's goal for "
        "contactcp: ≥ 10 at h = 1 ms). MuJoCo loads the same `puma3_fingers.xml` with the efforts in "
        "`qfrc_applied`, `condim` 3, default solref/solimp; two link inertias per finger that MuJoCo rejects are made "
        "physical (`tsbench/peer_mujoco.py`)." + check,
        [
            "max displacement (m)",
            "at the end (m)",
            "speed at the end (m/s)",
            "contacts/step",
            "real-time factor",
            "failed steps",
        ],
        rows,
        bases,
    )

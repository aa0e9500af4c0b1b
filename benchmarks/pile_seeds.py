"""Piles of boxes over seeds: failed steps and bitwise-identical reruns (issue 15's goal: a 50-box
pile, 10 seeds, 0 failed steps, reruns identical bit for bit).

For each seed, ``box_pile(n, seed)`` is simulated for ``--duration`` s at h = 1 ms with the default
scheme (``advance_certified``: a step not certified is halved; one that is still not certified counts
as failed), twice, each run in its own process with one BLAS thread.  Each run hashes ``q`` and ``v``
after every step (SHA-256); the two runs of a seed must give the same hash.  Also the largest step
residual and the CPU time per step (``time.process_time`` around the steps, after an untimed run of
a two-box stack that loads the compiled kernels).  Writes
``benchmarks/results/pile_seeds.md`` atomically.

    python benchmarks/pile_seeds.py                      # 50 boxes, seeds 0-9, 0.5 s
    python benchmarks/pile_seeds.py --boxes 25 --seeds 3 --duration 0.1
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy, here and in the runs' processes

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import report  # noqa: E402  (benchmarks/report.py)

RUN = """
import hashlib, json, sys, time
from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import SceneSystem, Scheme, simulate
from contactcp.simulate.stepping.substeps import advance_certified
simulate(ts.box_stack(2), 0.003, 1e-3)  # untimed: the kernels loaded from numba's cache
simulate(ts.box_stack(6), 0.002, 1e-3)  # and the global form's band factorisation
n, seed, duration = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
system = SceneSystem(ts.box_pile(n, seed=seed))
scheme, memory, t, h = Scheme(), {}, 0.0, 1e-3
q, v = system.initial_state()
digest, failed, worst, cpu = hashlib.sha256(), 0, 0.0, 0.0
steps = int(round(duration / h))
for _ in range(steps):
    t0 = time.process_time()
    q, v, rec = advance_certified(system, t, q, v, h, scheme, memory)
    cpu += time.process_time() - t0
    t += h
    failed += not rec.success
    worst = max(worst, rec.residual)
    digest.update(q.tobytes())
    digest.update(v.tobytes())
print(json.dumps({"steps": steps, "failed": failed, "residual": worst, "cpu": cpu, "hash": digest.hexdigest()}))
"""


def run(n: int, seed: int, duration: float) -> dict:
    """One simulation in its own process (the package from this checkout's src)."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(n), str(seed), str(duration)], capture_output=True, text=True, env=env
    )
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boxes", type=int, default=50)
    ap.add_argument("--seeds", type=int, default=10, help="seeds 0 .. SEEDS - 1")
    ap.add_argument("--duration", type=float, default=0.5, help="simulated seconds per run")
    ap.add_argument("--out", default=str(HERE / "results" / "pile_seeds.md"))
    args = ap.parse_args(argv)
    start = report.loadavg()
    rows, failed_total, mismatches = [], 0, 0
    for seed in range(args.seeds):
        first, second = run(args.boxes, seed, args.duration), run(args.boxes, seed, args.duration)
        if "error" in first or "error" in second:
            rows.append(f"| {seed} | error: {first.get('error') or second.get('error')} | | | | |")
            failed_total += 1
            continue
        same = first["hash"] == second["hash"]
        mismatches += not same
        failed_total += first["failed"] + second["failed"]
        rows.append(
            f"| {seed} | {first['steps']} | {first['failed']} / {second['failed']} | {first['residual']:.2e} | "
            f"{1e3 * first['cpu'] / first['steps']:.1f} | {'yes' if same else 'NO'} ({first['hash'][:12]}) |"
        )
        print(rows[-1], flush=True)
    lines = [
        f"# Piles of {args.boxes} boxes over {args.seeds} seeds: failed steps and reruns",
        "",
        report.machine_line(),
        report.command_line("pile_seeds.py"),
        f"Load average (1, 5, 15 min) at the start {start}, at the end {report.loadavg()}.",
        "",
        f"`box_pile({args.boxes}, seed)`, {args.duration:g} s at h = 1 ms, the default scheme (a step not "
        "certified is halved; one still not certified counts as failed); each seed run twice, each run in its "
        "own process with one BLAS thread; the hash is SHA-256 of q and v after every step.",
        "",
        "| seed | steps | failed (run 1 / run 2) | largest step residual | CPU per step (ms) | reruns identical |",
        "|---:|---:|---:|---:|---:|---|",
        *rows,
        "",
        f"Failed steps in all runs: {failed_total}; seeds whose reruns differ: {mismatches}.",
    ]
    report.write(args.out, lines)
    return 0 if failed_total == 0 and mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

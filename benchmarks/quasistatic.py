"""The quasistatic UCP methods on random problems (Pang–Trinkle–Lo Section 5 generator).

For each n_c, problems with 0, 25 % and 50 % of the joints effort controlled
(seeds 0..S-1) are decided by the exact method (time limit 60 s); the bilinear
method (original and modified) then runs on those the exact method shows
solvable, and its success rate is reported against that verdict.  Every
solution is certified by the UCP residual and the independent check of
conditions (2)-(10).  Writes ``benchmarks/results/quasistatic.md``.

    python benchmarks/quasistatic.py              # n_c = 3 ... 200
    python benchmarks/quasistatic.py --smoke      # n_c = 3, 10; one seed
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import report  # noqa: E402  (benchmarks/report.py)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from contactcp.scenarios.pang1994 import random_problem  # noqa: E402
from contactcp.simulate.quasistatic import solve_quasistatic  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[3, 5, 10, 20, 50, 100, 150, 200])
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "quasistatic.md")
    args = ap.parse_args(argv)
    if args.smoke:
        args.sizes, args.seeds = [3, 10], 1
    rows = []
    for n_c in args.sizes:
        for frac in (0.0, 0.25, 0.5):
            for seed in range(args.seeds):
                prob = random_problem(n_c, 1.0, int(frac * 2 * n_c), seed=seed)
                t0 = time.perf_counter()
                ex = solve_quasistatic(prob, "exact", time_limit=args.time_limit)
                te = time.perf_counter() - t0
                rec = {
                    "n_c": n_c,
                    "frac": frac,
                    "seed": seed,
                    "exact": ex.status.name,
                    "exact_s": te,
                    "nodes": ex.stats().get("nodes"),
                    "viol": max((s.max_violation for s in ex.solutions), default=0.0),
                }
                if ex.success:
                    for variant in ("original", "modified"):
                        t0 = time.perf_counter()
                        bi = solve_quasistatic(prob, "bilinear", variant=variant)
                        rec[variant] = bi.success
                        rec[variant + "_s"] = time.perf_counter() - t0
                        rec[variant + "_pairs"] = bi.stats().get("pairs")
                rows.append(rec)
                print(rec, flush=True)
    write(args, rows)
    return 0


def write(args, rows):
    lines = [
        "# Quasistatic UCP methods on random problems",
        "",
        report.machine_line(),
        report.command_line("quasistatic.py"),
        "",
        f"{3 * args.seeds} problems per n_c (effort-controlled joints: 0, 25 %, 50 %; seeds 0..{args.seeds - 1}); "
        f"exact time limit {args.time_limit:g} s. Bilinear rates are over the problems the exact method "
        "shows solvable.",
        "",
        "| n_c | solvable | no solution (proved) | undecided | exact: median s | exact: max s | exact: max nodes "
        "| bilinear original: solved | modified: solved | bilinear: median s | worst check of (2)-(10) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    goal_time, goal_rate = [], []
    for n_c in sorted({r["n_c"] for r in rows}):
        sel = [r for r in rows if r["n_c"] == n_c]
        sol = [r for r in sel if r["exact"] == "SOLVED"]
        none = [r for r in sel if r["exact"] == "NO_SOLUTION"]
        und = len(sel) - len(sol) - len(none)
        ts = [r["exact_s"] for r in sel]
        o = sum(r["original"] for r in sol)
        m = sum(r["modified"] or r["original"] for r in sol)
        bt = [r["modified_s"] for r in sol]
        lines.append(
            f"| {n_c} | {len(sol)} | {len(none)} | {und} | {np.median(ts):.3f} | {max(ts):.3f} | "
            f"{max(r['nodes'] or 0 for r in sel)} | {o}/{len(sol)} | {m}/{len(sol)} | "
            f"{np.median(bt) if bt else float('nan'):.3f} | {max(r['viol'] for r in sel):.1e} |"
        )
        goal_time.append((n_c, max(ts), und))
        goal_rate.append((n_c, m, len(sol)))
    lines += [
        "",
        "'modified: solved' counts a problem solved by the original or, failing that, the modified "
        "variant (the paper's protocol).",
        "",
        "## Goals",
        "",
    ]
    hundred = [t for n, t, u in goal_time if n == 100]
    if hundred:
        lines.append(
            f"- exact decides every random problem with n_c = 100 in <= 10 s: worst {hundred[0]:.2f} s "
            f"({'met' if hundred[0] <= 10 and all(u == 0 for n, t, u in goal_time if n == 100) else 'NOT met'})."
        )
    tot_m = sum(m for _, m, _ in goal_rate)
    tot = sum(s for _, _, s in goal_rate)
    if tot:
        lines.append(
            f"- bilinear (with its restart variant) solves {tot_m}/{tot} = {100.0 * tot_m / tot:.1f} % of the "
            f"solvable problems, n_c up to {max(n for n, _, _ in goal_rate)} (goal >= 95 %: "
            f"{'met' if tot_m >= 0.95 * tot else 'NOT met'})."
        )
    report.write(args.out, lines)


if __name__ == "__main__":
    sys.exit(main())

"""Every LCP method on the seeded families of :mod:`contactcp.problems.generators`.

Writes ``table.md`` (status counts, worst certified residual, median time per
family, size and method) and ``table.csv`` (one row per solve).  Support
enumeration runs up to n = 10 and the merit method (a dense trust-region
least-squares solve per iteration, meant for the small mixed NCPs of grasps)
up to n = 30.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from contactcp.problems import generators
from contactcp.result import Status
from contactcp.solvers.registry import methods, solve

MERIT_MAX_N = 30


def run(out_dir: Path, quick: bool) -> list[Path]:
    sizes = (10, 30) if quick else (10, 30, 100, 300)
    seeds = range(2 if quick else 5)
    rows = []
    for fam, (_desc, gen) in generators.FAMILIES.items():
        for n in sizes:
            for seed in seeds:
                p = gen(n, seed)
                for m in methods(p):
                    if (m == "enumerate" and p.n > 10) or (m == "merit" and p.n > MERIT_MAX_N):
                        continue
                    r = solve(p, m)
                    rows.append(
                        {
                            "family": fam,
                            "n": p.n,
                            "seed": seed,
                            "method": m,
                            "status": r.status.name,
                            "residual": np.nan if r.residual is None else r.residual.value,
                            "iterations": r.iterations,
                            "time_s": r.time,
                        }
                    )
    csv_path = out_dir / "table.csv"
    with csv_path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    md = [
        "# LCP methods on the seeded families",
        "",
        "Every residual is the problem's own scaled natural-map residual (tolerance 1e-9).",
        "",
        "| family | n | method | solved | other statuses | worst residual | median time (s) |",
        "|---|---:|---|---:|---|---:|---:|",
    ]
    keys = sorted({(r["family"], r["n"], r["method"]) for r in rows})
    for fam, n, m in keys:
        sel = [r for r in rows if (r["family"], r["n"], r["method"]) == (fam, n, m)]
        solved = sum(r["status"] == Status.SOLVED.name for r in sel)
        other = sorted({r["status"] for r in sel} - {Status.SOLVED.name})
        res = [r["residual"] for r in sel if r["status"] == Status.SOLVED.name]
        md.append(
            f"| {fam} | {n} | {m} | {solved}/{len(sel)} | {', '.join(other) or '-'} | "
            f"{max(res) if res else float('nan'):.1e} | {np.median([r['time_s'] for r in sel]):.2e} |"
        )
    md_path = out_dir / "table.md"
    md_path.write_text("\n".join(md) + "\n")
    return [md_path, csv_path]

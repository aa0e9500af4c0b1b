"""contactcp's LCP methods side by side with Siconos, Drake and lemkelcp.

Every solver runs in its own process (Siconos under Debian's system python3,
which alone can import it), on the same problem files; every answer is checked
here, independently, with the scaled natural-map residual
``||min(z, Mz+q)||_inf / max(1, max_i(|q_i| + sum_j |M_ij z_j|)) <= 1e-9``.
Times are medians of repeated runs of the whole user-facing sequence (build the
problem object, solve, read the answer).  Writes ``benchmarks/results/lcp.md``.

    python benchmarks/lcp_peers.py            # full run (about 15 minutes)
    python benchmarks/lcp_peers.py --smoke    # 10-second smoke run of contactcp only
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import report  # noqa: E402  (benchmarks/report.py)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from contactcp.problems import generators  # noqa: E402

TOL = 1e-9
DEBIAN_PYTHON = "/usr/bin/python3"

SOLVERS = [  # (backend, solver, label); "default": contactcp.solve without a method (the default chain)
    ("contactcp", "default", "ccp default"),
    ("contactcp", "lemke", "ccp lemke"),
    ("contactcp", "bpp", "ccp bpp"),
    ("contactcp", "pgs", "ccp pgs"),
    ("siconos", "LEMKE", "Siconos LEMKE"),
    ("siconos", "PIVOT_LUMOD", "Siconos PIVOT_LUMOD"),
    ("siconos", "NEWTON_MIN_FBLSA", "Siconos NEWTON_MIN_FBLSA"),
    ("siconos", "PGS", "Siconos PGS"),
    ("drake", "UnrevisedLemkeSolver", "Drake UnrevisedLemke"),
    ("drake", "MobyLcpSolver", "Drake MobyLcp"),
    ("lemkelcp", "lemkelcp", "lemkelcp"),
]


def residual(M: np.ndarray, q: np.ndarray, z) -> float:
    """The benchmark's own check, independent of every solver."""
    if z is None:
        return float("inf")
    z = np.asarray(z, dtype=float)
    if z.shape != q.shape or not np.all(np.isfinite(z)):
        return float("inf")
    w = M @ z + q
    scale = max(1.0, float(np.max(np.abs(q) + np.abs(M) @ np.abs(z))))
    return float(np.max(np.abs(np.minimum(z, w)))) / scale


def python_for(backend: str) -> str:
    return DEBIAN_PYTHON if backend == "siconos" else sys.executable


def backend_available(backend: str) -> str | None:
    """None if the backend imports in its interpreter, else the reason."""
    mod = {
        "contactcp": "contactcp",
        "siconos": "siconos.numerics",
        "drake": "pydrake.solvers",
        "lemkelcp": "lemkelcp.lemkelcp",
    }[backend]
    try:
        p = subprocess.run([python_for(backend), "-c", f"import {mod}"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return None if p.returncode == 0 else p.stderr.strip().splitlines()[-1]


def run_worker(backend, solver, files, timeout, target_s=0.3, max_reps=1000):
    with tempfile.TemporaryDirectory() as td:
        job, out = Path(td) / "job.json", Path(td) / "out.json"
        job.write_text(json.dumps({"problems": [str(f) for f in files], "target_s": target_s, "max_reps": max_reps}))
        env = dict(os.environ, PYTHONPATH=str(HERE.parent / "src"))
        if backend == "siconos":
            env.pop("PYTHONPATH")
        timed_out = False
        try:
            subprocess.run(
                [python_for(backend), str(HERE / "_worker.py"), backend, solver, str(job), str(out)],
                capture_output=True,
                text=True,
                timeout=timeout,
                env=env,
            )
        except subprocess.TimeoutExpired:
            timed_out = True
        data = json.loads(out.read_text()) if out.exists() else {"results": []}
    data["timed_out"] = timed_out
    return data


def make_problems(folder: Path, families, sizes, seeds):
    files = {}
    for fam in families:
        gen = generators.FAMILIES[fam][1]
        for n in sizes:
            for s in range(seeds):
                p = gen(n, 1000 * n + s)
                f = folder / f"{fam}_{n}_{s}.npz"
                np.savez(f, M=p.M, q=p.q)
                files.setdefault((fam, n), []).append((f, p))
    return files


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 30, 100, 300, 1000])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--families", nargs="+", default=list(generators.FAMILIES))
    ap.add_argument("--backends", nargs="+", default=["contactcp", "siconos", "drake", "lemkelcp"])
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds per solver and problem group")
    ap.add_argument("--batch", type=int, default=10000, help="problems in the batch row (0 to skip)")
    ap.add_argument("--smoke", action="store_true", help="sizes 10 and 30, one seed, contactcp only, no batch")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "lcp.md")
    args = ap.parse_args(argv)
    if args.smoke:
        args.sizes, args.seeds, args.backends, args.batch = [10, 30], 1, ["contactcp"], 0
    solvers = [s for s in SOLVERS if s[0] in args.backends]
    unavailable = {b: why for b in args.backends if (why := backend_available(b))}
    with tempfile.TemporaryDirectory() as td:
        folder = Path(td)
        groups = make_problems(folder, args.families, args.sizes, args.seeds)
        table = {}  # (fam, n, label) -> dict
        for backend, solver, label in solvers:
            if backend in unavailable:
                continue
            given_up = set()
            for (fam, n), items in groups.items():
                if fam in given_up:
                    table[(fam, n, label)] = {"note": "skipped (timed out at a smaller n)"}
                    continue
                print(f"{label:28s} {fam:8s} n={n:5d}", end=" ", flush=True)
                data = run_worker(backend, solver, [f for f, _ in items], args.timeout)
                table[(fam, n, label)] = summarize(data, items)
                print(table[(fam, n, label)].get("summary", ""), flush=True)
                if data["timed_out"]:
                    given_up.add(fam)
            if "error" in data:
                unavailable[backend] = data["error"]
        batch = run_batch(folder, args.batch, unavailable) if args.batch else None
    write_report(args, solvers, table, unavailable, batch)
    return 0


def summarize(data, items):
    times, ok, msgs = [], 0, []
    for rec, (_, p) in zip(data["results"], items):
        if "error" in rec:
            msgs.append(rec["error"])
            continue
        res = residual(p.M, p.q, rec["z"])
        if res <= TOL:
            ok += 1
            times.append(float(np.median(rec["times"])))
        else:
            msgs.append(f"residual {res:.1e} ({rec['message']})")
    total = len(items)
    if data.get("error"):
        msgs.append(data["error"])
    if data["timed_out"]:
        msgs.append("timed out")
    t = float(np.median(times)) if times and ok == total else None
    return {
        "time": t,
        "ok": ok,
        "total": total,
        "msgs": msgs,
        "summary": f"{ok}/{total} ok" + (f", {t * 1e3:.3f} ms" if t else "") + (f" [{msgs[0]}]" if msgs else ""),
    }


def run_batch(folder: Path, K: int, unavailable):
    """solve_batch on K problems of n = 10 against the single-call time of Siconos LEMKE."""
    rng = np.random.default_rng(7)
    n = 10
    A = rng.standard_normal((K, n, n))
    M = A @ A.transpose(0, 2, 1) / n + 0.1 * np.eye(n)
    q = rng.standard_normal((K, n))
    f = folder / "batch.npz"
    np.savez(f, M=M, q=q)
    code = (
        "import sys, json, time, numpy as np, contactcp as ccp\n"
        "d = np.load(sys.argv[1]); M, q = d['M'], d['q']\n"
        "ccp.solve_batch(M[:10], q[:10])\n"
        "ts = []\n"
        "for _ in range(5):\n"
        "    t0 = time.perf_counter(); r = ccp.solve_batch(M, q); ts.append(time.perf_counter() - t0)\n"
        "np.save(sys.argv[2], r.x)\n"
        "print(json.dumps({'times': ts}))\n"
    )
    out = folder / "batch_z.npy"
    p = subprocess.run(
        [sys.executable, "-c", code, str(f), str(out)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(HERE.parent / "src")),
        timeout=600,
    )
    times = json.loads(p.stdout)["times"]
    Z = np.load(out)
    res = max(residual(M[k], q[k], Z[k]) for k in range(K))
    single = {}
    sample = [folder / f"batch_single_{k}.npz" for k in range(20)]
    for k, s in enumerate(sample):
        np.savez(s, M=M[k], q=q[k])
    for backend, solver in (("siconos", "LEMKE"), ("contactcp", "lemke")):
        if backend in unavailable:
            continue
        data = run_worker(backend, solver, sample, 300, target_s=0.05, max_reps=200)
        single[(backend, solver)] = float(np.median([np.median(r["times"]) for r in data["results"] if "times" in r]))
    return {"K": K, "n": n, "per_problem": float(np.median(times)) / K, "max_residual": res, "single": single}


def fmt_t(t):
    return "—" if t is None else (f"{t * 1e3:.3f}" if t < 10 else f"{t * 1e3:.0f}")


def write_report(args, solvers, table, unavailable, batch):
    labels = [lab for b, _s, lab in solvers if b not in unavailable]
    lines = [
        "# LCP solvers side by side",
        "",
        report.machine_line(),
        f"Command: `python benchmarks/lcp_peers.py {' '.join(sys.argv[1:])}`".rstrip() + ".",
        "",
        f"Median time in **milliseconds** over {args.seeds} seeded problems per row (each itself the median of "
        "repeated runs of build-problem + solve + read-answer: as many as fit in 0.3 s, at most 1000, after one "
        "untimed run; every solver in its own process). A time is "
        f"given only when every answer in the row passed the benchmark's own residual check (<= {TOL:g}); "
        "otherwise the cell says how many passed.",
        "",
    ]
    for b, why in unavailable.items():
        lines.append(f"- **{b} not run**: {why}")
    if unavailable:
        lines.append("")
    head = "| family | n | " + " | ".join(labels) + " | lemke / Siconos LEMKE | best ccp / best peer |"
    lines += [head, "|---|---:|" + "---:|" * (len(labels) + 2)]
    keys = sorted({(f, n) for f, n, _ in table}, key=lambda k: (k[0], k[1]))
    goals = {"lemke_vs_siconos": [], "best_vs_peer": []}
    for fam, n in keys:
        cells, ours, peers = [], {}, {}
        for b, _s, lab in solvers:
            if b in unavailable:
                continue
            e = table.get((fam, n, lab), {})
            t = e.get("time")
            if t is not None:
                cells.append(fmt_t(t))
                (ours if b == "contactcp" else peers)[lab] = t
            elif "note" in e:
                cells.append("timeout")
            else:
                cells.append(f"{e.get('ok', 0)}/{e.get('total', 0)} ok" if e else "—")
        r1 = r2 = "—"
        if "ccp lemke" in ours and "Siconos LEMKE" in peers:
            ratio = ours["ccp lemke"] / peers["Siconos LEMKE"]
            r1 = f"{ratio:.2f}"
            goals["lemke_vs_siconos"].append((fam, n, ratio))
        if ours and peers:
            ratio = min(ours.values()) / min(peers.values())
            r2 = f"{ratio:.2f} ({min(ours, key=ours.get)} vs {min(peers, key=peers.get)})"
            goals["best_vs_peer"].append((fam, n, ratio))
        lines.append(f"| {fam} | {n} | " + " | ".join(cells) + f" | {r1} | {r2} |")
    lines.append("")
    fails = [
        f"{lab} {fam} n={n}: {'; '.join(table[(fam, n, lab)]['msgs'][:2])}"
        for fam, n, lab in table
        if table[(fam, n, lab)].get("msgs")
    ]
    if fails:
        lines += ["Answers that failed the check or did not come back:", ""]
        lines += [f"- {f}" for f in fails]
        lines.append("")
    if batch:
        sl = batch["single"].get(("siconos", "LEMKE"))
        sc = batch["single"].get(("contactcp", "lemke"))
        lines += [
            f"## Batch: `solve_batch` on {batch['K']} SPD problems of n = {batch['n']}",
            "",
            f"- amortised time per problem: **{batch['per_problem'] * 1e6:.2f} µs** "
            f"(worst residual {batch['max_residual']:.1e})",
            f"- single-call time, median of 20 of the same problems: contactcp lemke "
            f"{'—' if sc is None else f'{sc * 1e6:.2f} µs'}, "
            f"Siconos LEMKE {'—' if sl is None else f'{sl * 1e6:.2f} µs'}",
        ]
        if sl:
            lines.append(
                f"- ratio batch-amortised / Siconos single call: **{batch['per_problem'] / sl:.2f}** (goal <= 1)"
            )
        lines.append("")
    lines += ["## Goals", ""]
    big = [r for f, n, r in goals["lemke_vs_siconos"] if n >= 100]
    small = [r for f, n, r in goals["lemke_vs_siconos"] if n <= 30]
    if big:
        lines.append(
            f"- Lemke no slower than Siconos LEMKE at n >= 100: worst ratio {max(big):.2f} "
            f"({'met' if max(big) <= 1 else 'NOT met'})."
        )
    if small:
        lines.append(
            f"- Lemke within 1.5x of Siconos LEMKE at n <= 30 (issue 13): worst ratio {max(small):.2f} "
            f"({'met' if max(small) <= 1.5 else 'NOT met'})."
        )
    bb = [r for f, n, r in goals["best_vs_peer"] if n >= 100]
    if bb:
        lines.append(
            f"- Best contactcp method within 1x of the best peer at n >= 100: worst ratio {max(bb):.2f} "
            f"({'met' if max(bb) <= 1 else 'NOT met'})."
        )
    report.write(args.out, lines)


if __name__ == "__main__":
    sys.exit(main())

"""Dynamic contact benchmarks: the friction-pyramid LCP and the Coulomb-cone problem, side by side with Siconos.

Problems are the seeded random contact states of
:func:`contactcp.scenarios.random_dynamic.random_system` (one sphere held by
``n_c`` three-prismatic-joint fingers, so ``A`` is dense).

* Pyramid LCP: contactcp Lemke and interior point vs Siconos LEMKE on the same
  LCP files; each answer checked here (scaled natural map <= 1e-9).
* Cone: contactcp newton / nsgs vs Siconos fc3d NSGS, NSN_AC, NSN_FB, PROX on
  the same (W, q, mu), all to Siconos' error measure 1e-8; each answer checked
  here with that measure (computed by this script, not by a solver).
* Cone vs pyramid: how often the pyramid's forces also satisfy the cone law.

Every solver runs in its own process; times are medians.  Writes
``benchmarks/results/friction.md``.

    python benchmarks/friction.py                    # full run
    python benchmarks/friction.py --blas-threads 1   # every solver process on one BLAS thread
    python benchmarks/friction.py --smoke            # seconds, contactcp only

``--blas-threads`` sets ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` /
``MKL_NUM_THREADS`` for every solver process (both sides alike) and for this
script's own in-process table: on a small machine shared with other jobs,
multithreaded BLAS made single solves of either side up to ten times slower
at random.  The machine's load average at the start and the end of the run is
written with the results.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def _blas_threads_from_argv(argv: list[str]) -> str | None:
    """``--blas-threads N`` read before numpy is imported, so that this process's BLAS
    (the in-process Lemke / interior-point table) gets the setting too."""
    for i, a in enumerate(argv):
        if a == "--blas-threads" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--blas-threads="):
            return a.split("=", 1)[1]
    return None


_EARLY_THREADS = _blas_threads_from_argv(sys.argv[1:])
if _EARLY_THREADS is not None and _EARLY_THREADS.isdigit():
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _EARLY_THREADS

import numpy as np  # noqa: E402
import report  # noqa: E402  (benchmarks/report.py)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from lcp_peers import DEBIAN_PYTHON, residual, run_worker  # noqa: E402

from contactcp.formulations.dynamic_cone import cone_problem  # noqa: E402
from contactcp.formulations.pyramid_lcp import pyramid_lcp  # noqa: E402
from contactcp.formulations.theorem2 import theorem2  # noqa: E402
from contactcp.scenarios.random_dynamic import random_system  # noqa: E402

FC_TOL = 1e-8
LCP_SOLVERS = [
    ("contactcp", "lemke", "ccp lemke"),
    ("contactcp", "interior-point", "ccp interior-point"),
    ("siconos", "LEMKE", "Siconos LEMKE"),
]
FC_SOLVERS = [
    ("contactcp", "newton", "ccp newton"),
    ("contactcp", "nsgs", "ccp nsgs"),
    ("siconos", "NSGS", "Siconos NSGS"),
    ("siconos", "NSN_AC", "Siconos NSN_AC"),
    ("siconos", "NSN_FB", "Siconos NSN_FB"),
    ("siconos", "PROX", "Siconos PROX"),
]


def fc_error(W, q, mu, r) -> float:
    """Siconos' fc3d error measure, computed here: ||r - P_K(r - (u + mu||u_T|| e_N))|| / ||q||."""
    if r is None:
        return float("inf")
    r = np.asarray(r, float)
    if r.shape != q.shape or not np.all(np.isfinite(r)):
        return float("inf")
    u = W @ r + q
    R, U = r.reshape(-1, 3), u.reshape(-1, 3)
    U = U.copy()
    U[:, 0] += mu * np.linalg.norm(U[:, 1:], axis=1)
    X = R - U
    out = np.empty_like(X)
    for i, (x, m) in enumerate(zip(X, mu)):
        nt = np.linalg.norm(x[1:])
        if nt <= m * x[0]:
            out[i] = x
        elif m * nt <= -x[0]:
            out[i] = 0.0
        else:
            pn = (m * nt + x[0]) / (1 + m * m)
            out[i] = np.concatenate([[pn], m * pn * x[1:] / nt])
    nq = np.linalg.norm(q)
    return float(np.linalg.norm(R - out) / (nq if nq > 0 else 1.0))


def run_fc_worker(backend, solver, files, timeout, target_s=0.3, max_reps=10):
    with tempfile.TemporaryDirectory() as td:
        job, out = Path(td) / "job.json", Path(td) / "out.json"
        job.write_text(
            json.dumps({"problems": [str(f) for f in files], "target_s": target_s, "max_reps": max_reps, "tol": FC_TOL})
        )
        env = dict(os.environ, PYTHONPATH=str(HERE.parent / "src"))
        py = sys.executable
        if backend == "siconos":
            env.pop("PYTHONPATH")
            py = DEBIAN_PYTHON
        timed_out = False
        try:
            subprocess.run(
                [py, str(HERE / "_fc_worker.py"), backend, solver, str(job), str(out)],
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


def summarize(recs, checks, timed_out):
    """Per-problem median times of the answers that passed the check (None where not)."""
    ok, per, msgs = 0, [], []
    for rec, check in zip(recs, checks):
        if "error" in rec:
            msgs.append(rec["error"])
            per.append(None)
            continue
        res = check(rec)
        if res["ok"]:
            ok += 1
            per.append(float(np.median(rec["times"])))
        else:
            msgs.append(res["why"])
            per.append(None)
    per += [None] * (len(checks) - len(per))
    total = len(checks)
    if timed_out:
        msgs.append("timed out")
    times = [t for t in per if t is not None]
    return {"time": float(np.median(times)) if times else None, "ok": ok, "total": total, "msgs": msgs, "per": per}


def ratio(a, b):
    """Median over the problems both solved of time(a) / time(b), and how many there were."""
    pairs = [(x, y) for x, y in zip(a["per"], b["per"]) if x is not None and y is not None]
    if not pairs:
        return None, 0
    return float(np.median([x / y for x, y in pairs])), len(pairs)


def cell(e):
    if e["time"] is None:
        return "timeout" if "timed out" in e["msgs"] else f"0/{e['total']} ok"
    t = e["time"]
    txt = f"{t * 1e3:.3f}" if t < 0.01 else f"{t * 1e3:.1f}"
    return txt if e["ok"] == e["total"] else f"{txt} ({e['ok']}/{e['total']} ok)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lcp-sizes", type=int, nargs="+", default=[3, 10, 30, 100, 300])
    ap.add_argument("--ip-sizes", type=int, nargs="+", default=[3, 10, 30, 100, 300, 500])
    ap.add_argument("--cone-sizes", type=int, nargs="+", default=[10, 100, 300, 1000])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument(
        "--blas-threads",
        type=int,
        default=None,
        help="BLAS threads of every solver process (default: the environment's)",
    )
    ap.add_argument("--out", type=Path, default=HERE / "results" / "friction.md")
    args = ap.parse_args(argv)
    if args.blas_threads is not None:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.blas_threads)
    load_start = report.loadavg()
    backends = ["contactcp"] if args.smoke else ["contactcp", "siconos"]
    if args.smoke:
        args.lcp_sizes, args.cone_sizes, args.ip_sizes, args.seeds = [10], [10], [10], 1
    lines_lcp, lines_fc, lines_cmp = [], [], []
    goals = []
    with tempfile.TemporaryDirectory() as td:
        folder = Path(td)
        states = {}
        for n in sorted(set(args.lcp_sizes) | set(args.cone_sizes)):
            for s in range(args.seeds):
                cd = random_system(n, seed=100 * n + s).dynamics()
                states[(n, s)] = cd
        # ---- pyramid LCP
        head = [lab for b, _, lab in LCP_SOLVERS if b in backends]
        lines_lcp += [
            "| n_c | LCP size | Theorem 2 holds | " + " | ".join(head) + " | lemke / Siconos LEMKE |",
            "|---:|---:|---:|" + "---:|" * (len(head) + 1),
        ]
        for n in args.lcp_sizes:
            files, probs = [], []
            for s in range(args.seeds):
                form = pyramid_lcp(states[(n, s)])
                f = folder / f"lcp_{n}_{s}.npz"
                np.savez(f, M=form.lcp.M, q=form.lcp.q)
                files.append(f)
                probs.append(form.lcp)
            row = {}
            for b, solver, lab in LCP_SOLVERS:
                if b not in backends:
                    continue
                data = run_worker(b, solver, files, args.timeout, target_s=0.2, max_reps=20)
                checks = [
                    (
                        lambda rec, p=p: {
                            "ok": residual(p.M, p.q, rec["z"]) <= 1e-9,
                            "why": f"residual {residual(p.M, p.q, rec['z']):.1e}",
                        }
                    )
                    for p in probs
                ]
                row[lab] = summarize(data["results"], checks, data["timed_out"])
                print(f"LCP n_c={n} {lab}: {cell(row[lab])}", flush=True)
            txt = "—"
            if "ccp lemke" in row and "Siconos LEMKE" in row:
                rr, cnt = ratio(row["ccp lemke"], row["Siconos LEMKE"])
                if rr is not None:
                    txt = f"{rr:.2f}" + ("" if cnt == args.seeds else f" (on {cnt})")
                    goals.append(("pyramid", n, rr))
            thm = sum(theorem2(states[(n, s)])["holds"] for s in range(args.seeds))
            lines_lcp.append(
                f"| {n} | {probs[0].n} | {thm}/{args.seeds} | " + " | ".join(cell(row[h]) for h in head) + f" | {txt} |"
            )
        # ---- cone
        head = [lab for b, _, lab in FC_SOLVERS if b in backends]
        lines_fc += [
            "| n_c | " + " | ".join(head) + " | newton / fastest Siconos |",
            "|---:|" + "---:|" * (len(head) + 1),
        ]
        for n in args.cone_sizes:
            files, probs = [], []
            for s in range(args.seeds):
                p = cone_problem(states[(n, s)])
                f = folder / f"fc_{n}_{s}.npz"
                np.savez(f, W=p.W, q=p.q, mu=p.mu)
                files.append(f)
                probs.append(p)
            row = {}
            for b, solver, lab in FC_SOLVERS:
                if b not in backends:
                    continue
                if solver == "nsgs" and n > 300:
                    row[lab] = {"time": None, "ok": 0, "total": 0, "msgs": ["skipped"], "per": []}
                    continue
                data = run_fc_worker(
                    b, solver, files, args.timeout if n < 1000 else 60.0, max_reps=10 if n < 1000 else 1
                )
                checks = [
                    (
                        lambda rec, p=p: {
                            "ok": fc_error(p.W, p.q, p.mu, rec["r"]) <= FC_TOL * 1.0001,
                            "why": f"error {fc_error(p.W, p.q, p.mu, rec['r']):.1e} ({rec['message']})",
                        }
                    )
                    for p in probs
                ]
                row[lab] = summarize(data["results"], checks, data["timed_out"])
                print(f"cone n_c={n} {lab}: {cell(row[lab])} {row[lab]['msgs'][:1]}", flush=True)
            peers = [
                row[lab]
                for b, _, lab in FC_SOLVERS
                if b == "siconos" and lab in row and row[lab]["ok"] == row[lab]["total"] and row[lab]["total"]
            ]
            ours = row.get("ccp newton")
            txt = "—"
            if ours and peers:
                fastest = min(peers, key=lambda e: e["time"])
                rr, _ = ratio(ours, fastest)
                if rr is not None:
                    txt = f"{rr:.2f}"
                    goals.append(("cone", n, rr))
            elif ours and ours["time"] is not None:
                txt = "no Siconos solver solved every problem"
                goals.append(("cone", n, 0.0))
            lines_fc.append(
                f"| {n} | "
                + " | ".join(cell(row[h]) if row[h]["msgs"] != ["skipped"] else "skipped" for h in head)
                + f" | {txt} |"
            )
            if n == 1000 and ours and ours["time"] is not None:
                goals.append(("cone-1000-seconds", n, max(t for t in ours["per"] if t is not None)))
        # ---- cone vs pyramid
        from contactcp.interpret.dynamic import check_dynamic
        from contactcp.simulate.instant import solve_dynamic

        lines_cmp += [
            "| n_c | states | pyramid solved | cone solved | pyramid answer satisfies the cone law | "
            "same contact modes |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        for n in sorted(set(args.lcp_sizes)):
            cnt = {"pyr": 0, "cone": 0, "also": 0, "modes": 0}
            for s in range(args.seeds):
                cd = states[(n, s)]
                pyr = solve_dynamic(cd, "pyramid")
                cone = solve_dynamic(cd, "cone")
                cnt["pyr"] += pyr.success
                cnt["cone"] += cone.success
                if pyr.success:
                    # is the pyramid's force also a cone answer?  check it against the cone law
                    viol, _, _ = check_dynamic(cd, pyr.c, "cone")
                    cnt["also"] += viol <= 1e-7
                if pyr.success and cone.success:
                    cnt["modes"] += [o.mode for o in pyr.contacts] == [o.mode for o in cone.contacts]
            lines_cmp.append(f"| {n} | {args.seeds} | {cnt['pyr']} | {cnt['cone']} | {cnt['also']} | {cnt['modes']} |")
    # ---- Lemke vs interior point in this process: iterations, success, residual
    import contactcp as ccp

    lines_ip = [
        "| n_c | LCP size | Lemke: time ms | pivots | residual | interior point: time ms | iterations | "
        "residual | guarantee |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for n in args.ip_sizes:
        form = pyramid_lcp(random_system(n, seed=100 * n).dynamics())
        cells = []
        for method in ("lemke", "interior-point"):
            ccp.solve(form.lcp, method)
            r = ccp.solve(form.lcp, method)
            res = f"{r.residual.value:.1e}" if r.residual else "—"
            cells += [f"{r.time * 1e3:.3f}" + ("" if r.success else f" ({r.status.name})"), str(r.iterations), res]
        cells.append(str(r.stats.get("guarantee", "—")))
        lines_ip.append(f"| {n} | {form.lcp.n} | " + " | ".join(cells) + " |")
        print(lines_ip[-1], flush=True)
    text = [
        "# Dynamic contact: friction pyramid (LCP) and friction cone, side by side with Siconos",
        "",
        report.machine_line(),
        report.command_line("friction.py"),
        "",
        f"BLAS threads per process: {os.environ.get('OPENBLAS_NUM_THREADS', 'not set (library default)')}; "
        f"load average (1, 5, 15 min) at the start {load_start}, at the end {report.loadavg()} (the machine may be "
        "shared with other jobs).",
        "",
        f"Problems: `random_system(n_c, seed)` (one sphere, n_c three-prismatic fingers, dense A), {args.seeds} "
        "seeds per row. Times in **milliseconds**, median over seeds of the median of repeated "
        "build + solve runs, every solver in its own process; a time is shown only when every answer of the row "
        "passed this script's own check, otherwise the cell says how many passed.",
        "",
        "## Friction-pyramid LCP (checked: scaled natural map <= 1e-9)",
        "",
        "Theorem 2 (Trinkle et al.): the system Jacobian has full column rank and, with sliding contacts, the "
        "friction-modified matrix Ã is positive definite; where it fails a state may have no solution, and "
        "no solver (ours or Siconos) then returns one. Ratios are medians over the problems both solved.",
        "",
        *lines_lcp,
        "",
        "### Lemke vs interior point (one seed per size, in one process, certified residuals)",
        "",
        *lines_ip,
        "",
        f"## Friction cone (all solvers to Siconos' error measure {FC_TOL:g}, checked here)",
        "",
        *lines_fc,
        "",
        "## Cone vs pyramid on the same states",
        "",
        "A pyramid answer is also a cone answer when its forces satisfy the quadratic Coulomb law (checked by "
        "`check_dynamic(..., 'cone')`); this happens when every loaded rolling contact stays strictly inside "
        "the inscribed cone and sliding forces lie on a pyramid edge that touches the cone (one tangential "
        "component zero).",
        "",
        *lines_cmp,
        "",
        "## Goals",
        "",
    ]
    for kind, n, v in goals:
        if kind == "pyramid":
            verdict = "met" if v <= 1 else "NOT met"
            if n < 10:
                verdict = "outside the goal's range n_c = 10 ... 300"
            text.append(f"- pyramid n_c = {n}: ccp lemke / Siconos LEMKE = {v:.2f} ({verdict})")
        elif kind == "cone":
            verdict = ("met" if v <= 1 else "NOT met") if n == 100 else "no goal at this size"
            text.append(
                f"- cone n_c = {n}: ccp newton / fastest Siconos = "
                + (f"{v:.2f} ({verdict})" if v else "no Siconos solver finished")
            )
        else:
            text.append(
                f"- cone n_c = 1000: slowest newton solve {v:.2f} s ({'met' if v <= 5 else 'NOT met'}; goal <= 5 s)"
            )
    report.write(args.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

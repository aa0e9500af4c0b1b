"""Fuzz contactcp: seeded problems of every type, every method, every answer checked by independent code.

    python benchmarks/fuzz.py                      # the full run (12,000 problems) -> benchmarks/results/fuzz.md
    python benchmarks/fuzz.py --smoke              # a few hundred runs; exit 1 on any false answer
    python benchmarks/fuzz.py --only LCP:planted:17 --methods lemke    # reproduce one finding

Problem types: LCP, MixedLCP, BoxLCP, FrictionContact (W = H M^-1 H^T, rank deficient), UCP, MixedNCP.
Families: random, planted (exact solution), infeasible (exact Farkas vector with a margin), degenerate,
scaled (2^+-40), huge (2^+-498 ~ 1e+-150, terms near overflow, decimal 1e+-150), integer, tiny,
warm (starts of size 1e6..1e150), nonsym (friction), targeted (issue 11's cases, /work/shared/lcp).
Every name in contactcp.methods(problem) runs, and contactcp.solve(problem) with no method ("default"),
each in a worker process that is killed after --timeout seconds.  The checks (benchmarks/fuzzlib) use
exact rational arithmetic and decimals; they import nothing from contactcp.  Exit status: 0 when no
false SOLVED, false NO_SOLUTION, crash, hang or harness error was found, else 1.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import shlex  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from fuzzlib.cases import TYPES, build_case, plan  # noqa: E402
from fuzzlib.report import BAD, render, summary_counts  # noqa: E402
from fuzzlib.runner import run_all  # noqa: E402

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "fuzz.md")
SMOKE_PROBLEMS = 90
SMOKE_TARGETED = ("issue", "CPS_3", "tobenna", "z = 1", "segfault")


def _warm_up(ccp):
    """Compile the numba kernels once in the parent, so forked workers inherit them."""
    from fuzzlib.cases import build_case as bc

    for key in ("LCP:planted:0", "MixedLCP:planted:0", "BoxLCP:planted:0", "FrictionContact:planted:0"):
        case = bc(ccp, 0, key)
        for m in ccp.methods(case.problem):
            try:
                ccp.solve(case.problem, m)
            except Exception:  # noqa: BLE001 - findings are the run's business, not the warm-up's
                pass


def _data_inline(ccp, seed, key):
    try:
        case = build_case(ccp, seed, key)
    except Exception:  # noqa: BLE001
        return ""
    if case.size > 6:
        return ""
    d = case.data
    parts = []
    for k, v in d.items():
        if k in (
            "K",
            "k",
            "c",
            "pi",
            "p",
            "scale",
            "M",
            "q",
            "free",
            "lower",
            "upper",
            "W",
            "mu",
            "dim",
            "A_x",
            "b_x",
            "A_y",
            "b_y",
        ):
            parts.append(f"{k} = {np.asarray(v).tolist()!r}" if not np.isscalar(v) else f"{k} = {v!r}")
    if case.starts:
        parts.append(
            "starts = "
            + repr({m: {o: np.asarray(x).tolist() for o, x in opts.items()} for m, opts in case.starts.items()})
        )
    return "`" + "; ".join(parts) + "`"


def _render_saved(ccp, path: str, out: str) -> int:
    """Re-render a report from the JSON lines of an earlier run (first line: meta and cases)."""
    with open(path) as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    head = rows[0] if rows and "meta" in rows[0] else {"meta": {}, "cases": {}}
    records = [r for r in rows if "meta" not in r]
    meta, cases = head["meta"], head["cases"]
    if not cases:
        for k in sorted({r["key"] for r in records}):
            c = build_case(ccp, meta.get("seed", 20240611), k)
            cases[k] = {"truth": c.truth, "size": c.size, "note": c.note, "methods": []}
    _write_atomic(out, render(meta, cases, records, lambda k: _data_inline(ccp, meta["seed"], k)))
    print(f"report: {out}")
    return 0


def _commit(folder: str) -> str:
    try:
        out = subprocess.run(
            ["git", "-C", folder, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return "?"
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else "not in git"


def _write_atomic(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path)) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".fuzz-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a report is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--n-problems", type=int, default=None, help="number of problems (default 12000; smoke 90)")
    ap.add_argument("--types", default=",".join(TYPES), help="comma-separated problem types")
    ap.add_argument("--methods", default=None, help="comma-separated method names ('default' = solve(problem))")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per solve (default 40; smoke 30)")
    ap.add_argument("--tol", type=float, default=None, help="tolerance (default contactcp.DEFAULT_TOL)")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--out", default=None, help=f"Markdown report (default {DEFAULT_OUT}; none for --smoke)")
    ap.add_argument("--only", default=None, help="comma-separated keys TYPE:FAMILY:INDEX (reproduce)")
    ap.add_argument("--smoke", action="store_true", help="small subset for CI; exit 1 on any finding")
    ap.add_argument("--json", default=None, help="also write every run's record as JSON lines here")
    ap.add_argument(
        "--render-json",
        default=None,
        metavar="PATH",
        help="only re-render the report from a --json file of an earlier run (same seed)",
    )
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    ap.add_argument("--note", default="", help="a line for the report's header (what was tested, why)")
    args = ap.parse_args(argv)

    import contactcp as ccp

    types = [t.strip() for t in args.types.split(",") if t.strip()]
    for t in types:
        if t not in TYPES:
            ap.error(f"--types: unknown type {t!r}; known: {', '.join(TYPES)}")
    only_methods = None if args.methods is None else {m.strip() for m in args.methods.split(",") if m.strip()}
    tol = ccp.DEFAULT_TOL if args.tol is None else args.tol
    timeout = args.timeout or (30.0 if args.smoke else 40.0)
    n_problems = args.n_problems or (SMOKE_PROBLEMS if args.smoke else 12000)
    if args.only:
        keys = [k.strip() for k in args.only.split(",") if k.strip()]
    else:
        keys = plan(ccp, n_problems, types)
        if args.smoke:
            tkeys = [k for k in keys if ":targeted:" in k]
            cases = {k: build_case(ccp, args.seed, k) for k in tkeys}
            keep = [k for k in tkeys if any(s in cases[k].note for s in SMOKE_TARGETED)]
            keys = keep + [k for k in keys if ":targeted:" not in k]
    out = args.out if args.out is not None else (None if args.smoke or args.only else DEFAULT_OUT)
    if args.render_json:
        return _render_saved(ccp, args.render_json, out or DEFAULT_OUT)

    load_before = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    t0 = time.time()
    _warm_up(ccp)
    last = [0.0]

    def progress(n):
        if not args.quiet and time.time() - last[0] > 30:
            last[0] = time.time()
            print(f"  {n} runs, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)

    cases, records = run_all(keys, args.seed, tol, timeout, args.workers, only_methods, progress)
    elapsed = time.time() - t0
    counts = summary_counts(records)
    commit = _commit(os.path.dirname(os.path.abspath(__file__)))
    under_test = os.path.dirname(os.path.abspath(ccp.__file__))
    meta = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(t0)),
        "seed": args.seed,
        "command": "python benchmarks/fuzz.py "
        + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])),
        "n_problems": len(keys),
        "tol": tol,
        "timeout": timeout,
        "workers": args.workers,
        "version": getattr(ccp, "__version__", "?"),
        "commit": commit,
        "numpy": np.__version__,
        "under_test": f"{under_test} (commit {_commit(under_test)})",
        "note": args.note,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_before": load_before,
        "load_after": ", ".join(f"{v:.2f}" for v in os.getloadavg()),
        "elapsed": elapsed,
        "methods": None if only_methods is None else sorted(only_methods),
    }
    if out:
        text = render(meta, cases, records, lambda k: _data_inline(ccp, args.seed, k))
        _write_atomic(out, text)
    if args.json:
        _write_atomic(
            args.json, "".join(json.dumps(r, default=str) + "\n" for r in [{"meta": meta, "cases": cases}] + records)
        )
    bad = sum(counts.get(k, 0) for k in BAD)
    line = f"fuzz: {len(keys)} problems, {len(records)} runs in {elapsed:.0f} s: " + ", ".join(
        f"{k} {counts.get(k, 0)}"
        for k in ("false_solved", "false_nosol", "crash", "hang", "unchecked", "harness_error")
    )
    print(line)
    if bad:
        for r in [r for r in records if r["verdict"] in BAD][:25]:
            print(f"  {r['verdict']}: {r['key']} {r['method']}: {r.get('status')}: {str(r.get('detail', ''))[:160]}")
    if out:
        print(f"report: {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""FCLIB problems (real simulations, local and global forms): contactcp side by side with Siconos.

Every ``.hdf5`` under ``../shared/fclib/local`` and ``../shared/fclib/global`` (relative to the
repository root; without it, the same files in ``tests/data/fclib``) and every FCLIB file or folder
given on the command line, read with contactcp's
FCLIB reader.  Solvers:

* contactcp: the default chain (``contactcp.solve(problem, tol=TOL)``) and every method of
  ``contactcp.methods(problem)``; global problems through ``FclibGlobal.to_problem()``;
* Siconos local (fc3d): NSGS, NSN_AC, NSN_FB, PROX, ADMM, with ``W`` in Siconos' sparse-block
  storage; Siconos global (gfc3d): the solvers of ``--siconos-global``.

Each (solver, problem) pair runs in its own process, killed when a solve passes ``--timeout``
seconds (TIMEOUT).  Times: solving only (no file reading or problem building), one untimed
warm-up, then the median of at least ``--reps`` timed runs, more until they add up to 0.25 s (at
most 20000; ``fclibbench/worker.py``).  Every answer is checked here (see
``fclibbench/check.py``): solved means the check passes at ``--tol``, whatever the solver said.

    python benchmarks/fclib.py                       # everything -> benchmarks/results/fclib.md (+ .png)
    python benchmarks/fclib.py --smoke               # problems with <= 10 contacts, short; exit 1 on a
                                                     # false SOLVED by contactcp or a contactcp crash
    python benchmarks/fclib.py --no-shared A.hdf5 B/ # only these files / folders
"""

from __future__ import annotations

import argparse
import os
import sys

_early = argparse.ArgumentParser(add_help=False)
_early.add_argument("--blas-threads", type=int, default=1)
_THREADS = _early.parse_known_args()[0].blas_threads
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = str(_THREADS)  # before numpy: the parent's checks use BLAS too

import json  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

import report  # noqa: E402  (benchmarks/report.py)
from fclibbench import render  # noqa: E402
from fclibbench.problems import discover, export, load  # noqa: E402
from fclibbench.runner import python_env, run_pair  # noqa: E402
from fclibbench.worker import MAX_REPS, MIN_TIMED  # noqa: E402
from lcp_peers import DEBIAN_PYTHON, backend_available  # noqa: E402

#: the workplace's FCLIB sample, else the repository's copy of it (tests/data/fclib, the same files)
SHARED = ROOT.parent / "shared" / "fclib"
if not SHARED.is_dir():
    SHARED = ROOT / "tests" / "data" / "fclib"
SICONOS_LOCAL = ["NSGS", "NSN_AC", "NSN_FB", "PROX", "ADMM"]
#: gfc3d solvers that run on these files.  Tried and left out: NSGSV_WR (stops: "not implemented for
#: storage type 2", i.e. sparse M); NSGS (reports 0 iterations; fails or runs 20-30 s on the larger
#: files); IPM (solves the convex relaxation without De Saxce's term: its answers satisfy
#: r in K, u in K*, r.u = 0 to 1e-8 but not Coulomb's law at sliding contacts: measured on
#: GFC3D_Example1, GFC3D_TwoRods1, GFC3D_OneContact).  Any of them can be named in --siconos-global.
SICONOS_GLOBAL = [
    "NSGS_WR",
    "NSN_AC",
    "ADMM",
    "PROX_WR",
    "NSN_AC_WR",
    "ADMM_WR",
    "TFP_WR",
    "DSFP_WR",
    "ACLMFP",
    "VI_FPP",
    "VI_EG",
]
SMOKE_CONTACTS = 10
PRIME_EXTRA = 240.0  # seconds the priming runs may take to compile contactcp's numba kernels
LOAD_EXTRA = 20.0  # seconds a contactcp warm-up may add afterwards (kernels from the cache, rare compiles)


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="more FCLIB files or folders")
    ap.add_argument("--no-shared", action="store_true", help=f"skip {SHARED}/local and /global")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--timeout", type=float, default=None, help="seconds per solve (default 60, smoke 20)")
    ap.add_argument("--reps", type=int, default=None, help="timed runs per pair (default 3, smoke 1)")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--forms", nargs="+", choices=["local", "global"], default=["local", "global"])
    ap.add_argument("--siconos-local", nargs="*", default=SICONOS_LOCAL)
    ap.add_argument("--siconos-global", nargs="*", default=SICONOS_GLOBAL)
    ap.add_argument("--no-siconos", action="store_true")
    ap.add_argument("--blas-threads", type=int, default=1, help="BLAS/OpenMP/numba threads of every process")
    ap.add_argument("--out", type=Path, default=None, help="the Markdown report (default benchmarks/results)")
    ap.add_argument("--json", type=Path, default=None, help="also write every record here")
    ap.add_argument("--store", type=Path, default=None, help="keep each finished file's records in this folder")
    ap.add_argument("--resume", action="store_true", help="complete the run kept in --store")
    args = ap.parse_args(argv)
    args.timeout = args.timeout if args.timeout is not None else (20.0 if args.smoke else 60.0)
    args.reps = args.reps if args.reps is not None else (1 if args.smoke else 3)
    if args.out is None and args.smoke:
        args.out = Path(tempfile.mkdtemp(prefix="fclib_smoke_")) / "fclib.md"
    elif args.out is None:
        args.out = HERE / "results" / "fclib.md"
    return args


def siconos_info() -> str:
    """Siconos' version as its package and its module say."""
    try:
        mod = subprocess.run(
            [DEBIAN_PYTHON, "-c", "import siconos; print(siconos.version)"], capture_output=True, text=True, timeout=60
        ).stdout.strip()
        deb = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "python3-siconos"], capture_output=True, text=True, timeout=60
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown version"
    return f"Debian python3-siconos {deb or '?'} (the module says {mod or '?'})"


def gather(args) -> tuple[list, list[str]]:
    """The problems (entries) of the requested forms, and the files contactcp's reader refused."""
    roots = [] if args.no_shared else [SHARED / "local", SHARED / "global"]
    entries, refused = [], []
    for path in discover(roots, list(args.files)):
        got, why = load(path)
        if why:
            refused.append(f"{path}: {why}")
        entries += [e for e in got if e.form in args.forms]
    if args.smoke:
        entries = [e for e in entries if e.n_c <= SMOKE_CONTACTS]
    entries.sort(key=lambda e: (e.form != "local", e.n_c, e.name))
    return entries, refused


def contactcp_solvers(entry) -> tuple[list[str], str | None]:
    """'default' and the methods of contactcp.methods(problem); or ([], why not)."""
    import contactcp as ccp
    from contactcp.io.fclib import FclibGlobal, FclibLocal

    d = entry.data
    if entry.form == "local":
        make = lambda: FclibLocal(W=d["W"], q=d["q"], mu=d["mu"]).to_problem()  # noqa: E731
    elif not hasattr(FclibGlobal, "to_problem"):
        return [], "contactcp has no global solve yet (FclibGlobal.to_problem missing)"
    else:
        make = lambda: FclibGlobal(  # noqa: E731
            M=d["M"], H=d["H"], G=None, f=d["f"], b=None, w=d["w"], mu=d["mu"]
        ).to_problem()
    try:
        problem = make()
    except Exception as exc:  # noqa: BLE001 - the record says why
        return [], f"{type(exc).__name__}: {exc}"
    return ["default", *ccp.methods(problem)], None


def skipped(entry, backend: str, solver: str, why: str) -> dict:
    rec = {"problem": entry.name, "form": entry.form, "backend": backend, "solver": solver}
    return dict(rec, status="SKIPPED", note=why, time=None, claimed=None)


def pairs(entry, args, siconos_ok: bool) -> list[tuple[str, str, str | None]]:
    """(backend, solver, why skipped or None) for one problem."""
    if entry.unsupported:
        return [("contactcp", "default", entry.unsupported)]
    ccp, why = contactcp_solvers(entry)
    out = [("contactcp", s, None) for s in ccp] or [("contactcp", "default", why)]
    if siconos_ok:
        names = args.siconos_local if entry.form == "local" else args.siconos_global
        out += [("siconos", s, None) for s in names]
    return out


def _opts(args, backend: str, folder: Path, extra: float) -> dict:
    python, env = python_env(backend, args.blas_threads, ROOT / "src", DEBIAN_PYTHON)
    opts = {"tol": args.tol, "reps": args.reps, "timeout": args.timeout, "python": python, "env": env}
    return dict(opts, folder=folder, storage="SBM", warmup_extra=extra)


def prime(entries, args, folder: Path) -> None:
    """Compile contactcp's numba kernels into their cache once (every solver on the smallest problem of
    each form, results discarded), so that no measured warm-up needs more than ``LOAD_EXTRA``."""
    for form in ("local", "global"):
        small = [e for e in entries if e.form == form and not e.unsupported]
        if small:
            e = min(small, key=lambda e: e.n_c)
            for backend, solver, why in pairs(e, args, False):
                if not why:
                    r = run_pair(e, backend, solver, dict(_opts(args, backend, folder, PRIME_EXTRA), reps=0))
                    print(f"priming contactcp's kernels: {form} {e.name} {solver}: {r['wall']:.1f} s", flush=True)


def _entry_records(entries, args, siconos_ok: bool, folder: Path, i: int, name: str = "") -> dict:
    """Every (solver, problem) pair of entry ``i``, one process each, one after the other; the
    records as one JSON text (a row of the sweep's store)."""
    entry, recs = entries[i], []
    for backend, solver, why in pairs(entry, args, siconos_ok):
        if why:
            recs.append(skipped(entry, backend, solver, why))
        else:
            extra = LOAD_EXTRA if backend == "contactcp" else 0.0
            recs.append(run_pair(entry, backend, solver, _opts(args, backend, folder, extra)))
        r = recs[-1]
        if r["time"] is not None:
            tail = render.fmt_ms(r["time"]) + " ms"
        else:
            tail = r.get("note") or f"residual {r.get('residual', float('nan')):.1e} ({r.get('message', '')})"
        print(f"{entry.form} {entry.name} (n_c={entry.n_c}) {render.label(r)}: {r['status']} {tail}", flush=True)
    return {"records": json.dumps(recs, default=float)}


def run_all(entries, args, siconos_ok: bool, folder: Path) -> list[dict]:
    """Every (solver, problem) pair, one process each, one after the other (never two at once: the
    times are compared).  Through :func:`contactcp.sweep.sweep` in this process, so that ``--store
    DIR`` keeps each finished file's records and ``--resume`` completes an interrupted run."""
    import functools

    from contactcp.sweep import points, sweep

    for i, entry in enumerate(entries):
        export(entry, folder, i)
    prime(entries, args, folder)
    fn = functools.partial(_entry_records, entries, args, siconos_ok, folder)
    table = sweep(
        fn,
        points(i=list(range(len(entries))), name=[f"{e.form}/{e.name}" for e in entries]),
        workers=1,
        chunk_size=1,
        progress=False,
        store=args.store,
        resume=args.resume,
    )
    return [r for text in table["records"] for r in json.loads(text)]


def columns(recs: list[dict], form: str) -> list[str]:
    """Table columns of a form: contactcp's default chain, its methods, then Siconos' solvers."""
    seen: list[str] = []
    for r in recs:
        if r["form"] == form and render.label(r) not in seen:
            seen.append(render.label(r))
    ccp = [c for c in seen if c.startswith("ccp ")]
    ccp.sort(key=lambda c: (c != render.DEFAULT, c))
    return ccp + [c for c in seen if not c.startswith("ccp ")]


def header(args, load_start: str, siconos_ok: bool, refused: list[str]) -> list[str]:
    sic = (
        f"Siconos: {siconos_info()}, run by {DEBIAN_PYTHON}; local W in sparse-block storage (SBM, 3x3 blocks: "
        "`SBM_from_csparse` + `NM_new_SBM`), global M and H in sparse (CSC) storage; `dparam[0]` = TOL, "
        "`iparam[0]` = 1000 (NSN_*, IPM) or 100000 (the others)."
        if siconos_ok
        else "Siconos: not run (not importable by " + DEBIAN_PYTHON + ", or --no-siconos)."
    )
    lines = [
        "# FCLIB problems: contactcp side by side with Siconos",
        "",
        report.machine_line(),
        report.command_line("fclib.py"),
        "",
        f"TOL = {args.tol:g}; timeout {args.timeout:g} s per solve; the median of at least {args.reps} timed runs, "
        f"more until they add up to {MIN_TIMED:g} s (at most {MAX_REPS}), after one untimed warm-up; "
        f"BLAS/OpenMP/numba threads per process: {args.blas_threads}; load average (1, 5, 15 "
        f"min) at the start {load_start}, at the end {report.loadavg()} (the machine is shared with other jobs).",
        "",
        sic,
        "",
        "Times in **milliseconds**: solving only (file reading and problem construction excluded; contactcp: "
        "the whole `contactcp.solve` call, every stage of the chain).  Every answer is checked by this script: "
        "local: `||r - P_K(r - (u + mu ||u_T|| e_N))||_2 / ||q||_2` with `u = W r + q` recomputed; global: the "
        "same natural map with `u = H^T v + w`, divided by `||w + H^T M^-1 f||_2`, and the equilibrium "
        "`||M v - H r - f|| / (||f|| + ||H r|| + ||M v||)`, both <= TOL.  A cell shows the time when the check "
        "passes, else FAIL (the check's residual), TIMEOUT, ERROR or SKIPPED, whatever the solver claimed.  "
        "'ccp build': the median time of building contactcp's problem object for the default chain (validation; "
        "for a global problem also the factorisation of M), not included in its time: Siconos' drivers do "
        "their factorisations inside the timed call.",
        "",
        "Siconos' own error measure differs from the check: Siconos 4.4's `fc3d_compute_error` divides the "
        "natural map by max(‖q‖, ‖r‖, ‖u‖) (its documented definition; both the value it returns and this "
        "benchmark's check are listed for every Siconos answer), so it can call an answer converged that "
        "fails the check when reactions are large; its "
        "global solvers use their own relative measures.  Such answers are FAIL here and listed under Findings.",
        "",
        "gfc3d solvers tried and left out (name them in `--siconos-global` to run them): NSGSV_WR stops with "
        '"not implemented for storageType 2" (sparse M); NSGS reports 0 iterations and fails or runs 20-30 s on '
        "the larger files; IPM solves the convex relaxation without De Saxcé's term (its answers satisfy "
        "r ∈ K, u ∈ K*, r·u = 0 to 1e-8 but not Coulomb's law at sliding contacts: checked on GFC3D_Example1, "
        "GFC3D_TwoRods1, GFC3D_OneContact).",
    ]
    if refused:
        lines += ["", "Files contactcp's reader refused:", *[f"- {r}" for r in refused]]
    return lines


def write_report(args, entries, recs, refused, load_start, siconos_ok) -> list[str]:
    text = header(args, load_start, siconos_ok, refused)
    goals, tables, panels = [], [], []
    for form in ("local", "global"):
        ents = [e for e in entries if e.form == form]
        if not ents:
            continue
        frecs = [r for r in recs if r["form"] == form]
        cols = columns(recs, form)
        s = render.summarize(ents, frecs)
        goals += render.goal_lines(form, s)
        tables += ["", f"## {form.capitalize()} problems", "", *render.table(form, ents, frecs, cols)]
        panels.append((form, ents, frecs, cols))
    png = args.out.with_name(args.out.stem + "_profile.png")
    render.profile(png, panels)
    text += ["", "## Issue 13's goals", "", *[f"> {g}" for g in render.GOALS], "", *goals]
    text += tables
    text += [
        "",
        "## Performance profile",
        "",
        "Dolan–Moré: for each solver, the fraction of the problems it solves (checked) within a factor τ of "
        "the fastest solver on that problem.",
        "",
        f"![performance profile]({png.name})",
        "",
        "## Findings: claimed success but failed the check; errors; time-outs",
        "",
        *render.finding_lines(recs),
    ]
    report.write(args.out, text)
    return text


def main(argv=None) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the running worker is killed too
    args = parse(argv)
    load_start = report.loadavg()
    entries, refused = gather(args)
    siconos_ok = not args.no_siconos and backend_available("siconos") is None
    with tempfile.TemporaryDirectory(prefix="fclib_bench_") as td:
        recs = run_all(entries, args, siconos_ok, Path(td))
    write_report(args, entries, recs, refused, load_start, siconos_ok)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"tol": args.tol, "records": recs}, indent=1, default=float))
    bad = [
        r
        for r in recs
        # a crash, or a claim of success that the benchmark's check refused (FAIL, or a TIMEOUT whose
        # warm-up ran past the limit: the claim was still checked and refused)
        if r["backend"] == "contactcp" and (r["status"] == "ERROR" or (r["status"] != "SOLVED" and r.get("claimed")))
    ]
    for r in bad:
        print(f"BAD: {render.label(r)} on {r['problem']}: {r['status']} {r.get('note', r.get('message', ''))}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

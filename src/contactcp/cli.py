"""The ``contactcp`` command line.

Exit codes: 0 when the problem was solved (or the command succeeded), 1 when a
solve ended without a certified solution (no solution, limit, failure) or an
unexpected internal error occurred, 2 for bad input (a missing or unreadable
file, bad data, a size that cannot fit in memory, bad options), 130 when
interrupted.  Every error is one line on stderr, never a traceback (set
``CONTACTCP_DEBUG=1`` to see the traceback of an unexpected error).  Output
files (``--out``, ``--picture``, ``reproduce --out``) appear only complete: a
failed or interrupted run leaves existing files as they were and no partial
file behind.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import sys
import traceback
import warnings
from typing import Sequence

from contactcp._version import __version__
from contactcp.settings import DEFAULT_TOL
from contactcp.errors import ContactCPError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


def _finite_float(text: str) -> float:
    """An argparse type: a finite number (``inf`` and ``nan`` are refused, one line, exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def _one_line(text: str) -> str:
    """``text`` on one line (messages of other libraries may hold newlines)."""
    return " ".join(str(text).split())


def _finite(obj):
    """``obj`` with every non-finite float (NaN, inf) replaced by None, numpy scalars as Python ones."""
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):      # numpy arrays and scalars
        return _finite(obj.tolist())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def _print_json(obj) -> None:
    """One strict JSON object (no NaN/Infinity tokens, which JSON does not have) on stdout."""
    print(json.dumps(_finite(obj), allow_nan=False))


def _cmd_lcp(args: argparse.Namespace) -> int:
    from contactcp import solve
    from contactcp.io import load_lcp

    problem = load_lcp(args.file)
    result = solve(problem, method=args.method, tol=args.tol)
    if args.json:
        keys = ("status", "success", "residual", "iterations", "x", "w", "message", "method", "time", "tol",
                "certificate")
        d = result.to_dict()
        _print_json({k: d.get(k) for k in keys})
    else:
        print(f"LCP of size {problem.n} from {args.file}")
        print(result.summary())
    return 0 if result.success else 1


def _cmd_quasistatic(args: argparse.Namespace) -> int:
    from contactcp.errors import InvalidProblemError
    from contactcp.io import load_arrays
    from contactcp.models.planar_quasistatic import PlanarQuasistaticProblem
    from contactcp.simulate.quasistatic import solve_quasistatic
    from contactcp.scenarios.pang1994 import data_set

    if (args.dataset is None) == (args.file is None):
        raise InvalidProblemError("quasistatic", "give exactly one of --dataset N or FILE.json")
    if args.dataset is not None:
        problem = data_set(args.dataset)
    else:
        d = load_arrays(args.file, ("P", "J_n", "J_t", "theta_dot", "d", "mu"), ("alpha",))
        problem = PlanarQuasistaticProblem.from_paper(d["P"], d["J_n"], d["J_t"], d["theta_dot"], d["d"], d["mu"],
                                                      d.get("alpha"), name=str(args.file))
    opts = {}
    if args.method == "bilinear":
        opts = {"seed": args.seed, "variant": args.variant}
    out = solve_quasistatic(problem, args.method, tol=args.tol, **opts)
    if args.json:
        _print_json(out.to_dict())
    else:
        print(out.summary())
    return 0 if out.success else 1


def _cmd_dynamic(args: argparse.Namespace) -> int:
    from contactcp.simulate.instant import solve_dynamic
    from contactcp.errors import InvalidProblemError
    from contactcp.io.scene import load_system
    from contactcp.scenarios.random_dynamic import random_system

    if (args.random is None) == (args.file is None):
        raise InvalidProblemError("dynamic", "give exactly one of --random N or FILE.json")
    if args.random is not None:
        from contactcp.models.system import check_size

        if args.random < 1:
            raise InvalidProblemError("--random", f"must be at least 1, got {args.random}")
        check_size(6 + 3 * args.random, args.random, 3, "--random", f"a random state with {args.random} contacts")
    system = random_system(args.random, seed=args.seed) if args.random is not None else load_system(args.file)
    out = solve_dynamic(system, friction=args.friction, method=args.method, tol=args.tol)
    if args.json:
        _print_json(out.to_dict())
    else:
        print(out.summary())
    return 0 if out.success else 1


def _cmd_grasp(args: argparse.Namespace) -> int:
    from contactcp.scenarios.buffo2006 import puma3_grasp, solve_grasp

    _output_path(args.picture, "--picture", _PICTURE_SUFFIXES)
    grasp = puma3_grasp(args.mu, args.state)
    out = solve_grasp(grasp, args.method, tol=args.tol)
    if args.picture:
        from contactcp.plotting.grasp import save_grasp
        save_grasp(grasp, out.contacts, args.picture)
    if args.json:
        _print_json(out.to_dict())
    else:
        print(f"three PUMA-560 fingers holding a sphere: mu = {args.mu:g}, contacts {args.state}")
        print(out.summary())
    return 0 if out.success else 1


def _cmd_hand2d(args: argparse.Namespace) -> int:
    from contactcp.errors import InvalidProblemError

    if args.map:
        if args.tau1 is not None or args.tau2 is not None:
            raise InvalidProblemError("hand2d", "give either --tau1 T --tau2 T or --map, not both")
        return _hand2d_map(args)
    if args.tau1 is None or args.tau2 is None:
        raise InvalidProblemError("hand2d", "give --tau1 T --tau2 T (one state) or --map")
    from contactcp.analysis.determinacy import analyse
    from contactcp.scenarios.yashima import two_finger_hand

    hand = two_finger_hand(args.mu, args.tau1, args.tau2)
    out = analyse(hand.system, tol=args.tol)
    acc = None if out.accelerations is None else [float(v) for v in out.accelerations[:3]]
    if args.json:
        _print_json({"status": "SOLVED" if out.determinate else out.verdict.upper().replace("-", "_"),
                          "success": out.determinate, "verdict": out.verdict, "modes": out.modes,
                          "transitions": out.transitions, "codes": out.codes, "determinate": out.determinate,
                          "feasible_combinations": out.feasible_combinations,
                          "distinct_solutions": out.distinct_solutions, "p_matrix": out.p_matrix,
                          "p_test": out.p_test, "combination": out.combination,
                          "object_acceleration": acc, "max_violation": out.max_violation,
                          "c": None if out.c is None else out.c.tolist()})
    else:
        print(f"two-finger hand (Yashima-Yamaguchi): mu = {args.mu:g}, tau1 = {args.tau1:g}, tau2 = {args.tau2:g} N m")
        print(f"verdict: {out.verdict}; {out.feasible_combinations} feasible sign combination(s) of "
              f"{len(out.combinations)}, {out.distinct_solutions} distinct solution(s); "
              f"P-matrix: {out.p_matrix} ({out.p_test})")
        for j, (m, tr, code) in enumerate(zip(out.modes, out.transitions, out.codes)):
            print(f"  finger {j + 1}: {m:8s} ({code}: {tr})")
        if acc is not None:
            print(f"object acceleration (x, z, angular): {acc[0]:.5g}, {acc[1]:.5g}, {acc[2]:.5g}; "
                  f"check of the original conditions {out.max_violation:.1e}")
    return 0 if out.determinate else 1


def _hand2d_map(args: argparse.Namespace) -> int:
    import numpy as np

    from contactcp.analysis.modemap import MODE_CLASSES
    from contactcp.scenarios.yashima import hand_map
    from contactcp.errors import InvalidProblemError

    from contactcp.analysis.determinacy import VERDICTS

    if args.resolution < 2:
        raise InvalidProblemError("--resolution", f"must be at least 2, got {args.resolution}")
    _check_map_size(args.resolution, "--resolution")
    if not args.tau_max > args.tau_min:
        raise InvalidProblemError("--tau-max", f"must exceed --tau-min ({args.tau_min:g}), got {args.tau_max:g}")
    _output_path(args.out, "--out", (".npz", ".csv"))
    _output_path(args.picture, "--picture", _PICTURE_SUFFIXES)
    t = np.linspace(args.tau_min, args.tau_max, args.resolution)
    table = hand_map(args.mu, t, t, tol=args.tol, workers=args.workers, progress=not args.json)
    cls = table["cls"]
    counts = {name: int((cls == k).sum()) for k, name in enumerate(MODE_CLASSES)}
    verdicts = {name: int((table["verdict"] == k).sum()) for k, name in enumerate(VERDICTS)}
    # both outputs or neither: each goes to a temporary file, renamed into place when both are complete
    with contextlib.ExitStack() as stack:
        from contactcp._files import atomic_write

        if args.out:
            table.save(stack.enter_context(atomic_write(args.out)))
        if args.picture:
            from contactcp.plotting.modemap import plot_mode_map, save
            save(plot_mode_map(table.grid("cls"), t, t, f"contact modes, mu = {args.mu:g}"),
                 stack.enter_context(atomic_write(args.picture)))
    # success: every state decided (determinate or proved not to be); undecided states fail the run
    ok = verdicts["undecided"] == 0
    if args.json:
        _print_json({"status": "SOLVED" if ok else "INACCURATE", "success": ok, "mu": args.mu,
                          "resolution": args.resolution, "tau_range": [args.tau_min, args.tau_max],
                          "classes": counts, "verdicts": verdicts, "time": table.meta.get("elapsed")})
    else:
        print(f"mode map, mu = {args.mu:g}: {len(table)} states over [{args.tau_min:g}, {args.tau_max:g}]^2 N m "
              f"in {table.meta.get('elapsed', float('nan')):.2f} s")
        for k, v in counts.items():
            print(f"  {k:16s} {v}")
        print("verdicts: " + ", ".join(f"{k} {v}" for k, v in verdicts.items()))
    return 0 if ok else 1


_PICTURE_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg")

#: bytes per state of a mode map (its table, the chunks' results and the grid), an upper estimate
_MAP_BYTES_PER_STATE = 512


def _check_map_size(resolution: int, option: str) -> None:
    """Refuse a mode map whose resolution^2 states cannot fit in memory, before allocating the grid."""
    from contactcp._validate import check_memory

    check_memory(float(resolution) ** 2 * _MAP_BYTES_PER_STATE, option,
                 f"a {resolution} x {resolution} mode map ({resolution ** 2:.3g} states)")


def _output_path(path: str | None, option: str, suffixes: tuple[str, ...]) -> None:
    """Check an output file's suffix and folder before any work is done."""
    from pathlib import Path

    from contactcp.errors import InvalidProblemError

    if path is None:
        return
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise InvalidProblemError(option, f"must end in {', '.join(suffixes)}, got {path!r}")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise InvalidProblemError(option, f"folder {str(folder)!r} does not exist")
    if p.is_dir():
        raise InvalidProblemError(option, f"{path!r} is a folder, not a file")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidProblemError(option, f"folder {str(folder)!r} is not writable")


def _cmd_fclib(args: argparse.Namespace) -> int:
    from contactcp.simulate.instant import solve_cone
    from contactcp.io.fclib import read_local

    problem = read_local(args.file).to_problem()
    result = solve_cone(problem, method=args.method, tol=args.tol)
    if args.json:
        d = result.to_dict()
        _print_json({"status": d["status"], "success": d["success"], "residual": d["residual"],
                          "iterations": d["iterations"], "r": d["x"], "u": d["w"], "method": d["method"],
                          "message": d["message"], "time": d["time"]})
    else:
        print(f"FCLIB local problem from {args.file}: {problem.n_c} contacts, dim {problem.dim}")
        print(result.summary())
    return 0 if result.success else 1


def _cmd_methods(args: argparse.Namespace) -> int:
    from contactcp.solvers.registry import method_info, methods

    for name in methods():
        for spec in method_info(name):
            kinds = ", ".join(t.__name__ for t in spec.problem_types)
            print(f"{name:12s} [{kinds}] {spec.description}")
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from pathlib import Path

    from contactcp.errors import InvalidProblemError
    from contactcp.experiments import EXPERIMENTS, run

    names = list(EXPERIMENTS) if "all" in args.names else args.names
    for name in names:
        if name not in EXPERIMENTS:
            raise InvalidProblemError("reproduce", f"unknown experiment {name!r}; available: all, "
                                                   + ", ".join(EXPERIMENTS))
    if args.resolution is not None:
        if args.resolution < 2:
            raise InvalidProblemError("--resolution", f"must be at least 2, got {args.resolution}")
        _check_map_size(args.resolution, "--resolution")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InvalidProblemError("--out", f"{args.out!r} is a file, not a folder")
    parent = out
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not os.access(parent if str(parent) else ".", os.W_OK | os.X_OK):
        raise InvalidProblemError("--out", f"folder {str(parent)!r} is not writable")
    for name in names:
        run(name, args.out, quick=args.quick, resolution=args.resolution)
    return 0


def _cmd_warmup(args: argparse.Namespace) -> int:
    from contactcp._jit import warmup

    out = warmup()
    if out["compiled"]:
        print(f"compiled {out['compiled']} numerical kernels in {out['seconds']:.1f} s ({out['solves']} small "
              "solves); later runs load them from the cache")
    else:
        print(f"every numerical kernel was already compiled and cached ({out['solves']} small solves in "
              f"{out['seconds']:.1f} s)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from contactcp.formulations.laws import friction_laws
    from contactcp.problems import UCP
    from contactcp.solvers.registry import methods_for

    p = _Parser(prog="contactcp", description="Rigid-body contact as certified complementarity problems.")
    p.add_argument("--version", action="version", version=f"contactcp {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    q = sub.add_parser("lcp", help="solve an LCP from a .npz (arrays M, q) or .json file")
    q.add_argument("file")
    q.add_argument("--method", default=None, help="default: the LCP chain (lemke, then interior-point, merit, "
                                                  "enumerate while inconclusive), as contactcp.solve")
    q.add_argument("--tol", type=_finite_float, default=DEFAULT_TOL)
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.set_defaults(func=_cmd_lcp)

    qs = sub.add_parser("quasistatic", help="planar quasistatic contact (Pang-Trinkle-Lo): a data set or a file")
    qs.add_argument("file", nargs="?", help="JSON with P, J_n, J_t, theta_dot, d, mu and optional alpha (0-based)")
    qs.add_argument("--dataset", type=int, choices=[1, 2, 3, 4], help="the paper's Data Set N")
    qs.add_argument("--method", default=None, choices=methods_for(UCP),
                    help="default: bilinear, then exact if it is inconclusive (as contactcp.solve)")
    qs.add_argument("--variant", default="original", choices=["original", "modified"],
                    help="bilinear Step 3 variant")
    qs.add_argument("--seed", type=int, default=0, help="seed of the bilinear method's random choices")
    qs.add_argument("--tol", type=_finite_float, default=DEFAULT_TOL)
    qs.add_argument("--json", action="store_true", help="print one JSON object")
    qs.set_defaults(func=_cmd_quasistatic)

    dy = sub.add_parser("dynamic", help="spatial dynamic contact: forces, accelerations and contact modes")
    dy.add_argument("file", nargs="?", help="scene JSON (bodies, arms, contacts; see contactcp.io.scene)")
    dy.add_argument("--random", type=int, metavar="N", help="a seeded random state with N finger contacts")
    dy.add_argument("--seed", type=int, default=0)
    dy.add_argument("--friction", default="pyramid", choices=friction_laws(),
                    help="friction pyramid (LCP), Coulomb cone, or the cone as Buffo-Maciel's mixed NCP")
    dy.add_argument("--method", default=None,
                    help="pyramid: lemke, interior-point, bpp, merit; cone: newton, nsgs; mncp: merit")
    dy.add_argument("--tol", type=_finite_float, default=DEFAULT_TOL)
    dy.add_argument("--json", action="store_true", help="print one JSON object")
    dy.set_defaults(func=_cmd_dynamic)

    gr = sub.add_parser("grasp", help="the three-PUMA-560-finger grasp of Buffo & Maciel (2006)")
    gr.add_argument("scene", choices=["puma3"])
    gr.add_argument("--mu", type=_finite_float, default=0.4)
    gr.add_argument("--state", default="rolling", choices=["rolling", "sliding"])
    gr.add_argument("--method", default=None,
                    help="merit (Buffo-Maciel mixed NCP by merit minimisation), newton or nsgs "
                         "(friction cone), lemke or interior-point (friction pyramid); default: "
                         "the friction cone by Newton, then NSGS if Newton gives no certified answer")
    gr.add_argument("--tol", type=_finite_float, default=DEFAULT_TOL)
    gr.add_argument("--picture", metavar="FILE.png", help="also draw the grasp with its contact forces")
    gr.add_argument("--json", action="store_true", help="print one JSON object (same keys as `dynamic`)")
    gr.set_defaults(func=_cmd_grasp)

    hd = sub.add_parser("hand2d", help="the two-finger hand of Yashima & Yamaguchi: determinacy and mode maps")
    hd.add_argument("--mu", type=_finite_float, default=0.4)
    hd.add_argument("--tau1", type=_finite_float, help="second-joint torque of finger 1 (N m)")
    hd.add_argument("--tau2", type=_finite_float, help="second-joint torque of finger 2 (N m)")
    hd.add_argument("--map", action="store_true", help="the contact-mode map over (tau1, tau2)")
    hd.add_argument("--resolution", type=int, default=200, help="map: points per axis (default 200)")
    hd.add_argument("--tau-min", type=_finite_float, default=0.0, help="map: lowest torque (default 0)")
    hd.add_argument("--tau-max", type=_finite_float, default=10.0, help="map: highest torque (default 10)")
    hd.add_argument("--workers", type=int, default=None, help="map: worker processes (default: all cores)")
    hd.add_argument("--out", metavar="FILE", help="map: save the table (.npz or .csv)")
    hd.add_argument("--picture", metavar="FILE.png", help="map: draw it")
    hd.add_argument("--tol", type=_finite_float, default=DEFAULT_TOL)
    hd.add_argument("--json", action="store_true", help="print one JSON object")
    hd.set_defaults(func=_cmd_hand2d)

    fc = sub.add_parser("fclib", help="solve the local problem of an FCLIB HDF5 file")
    fc.add_argument("file")
    fc.add_argument("--method", default=None,
                    help="newton or nsgs; default: newton, then nsgs if newton gives no certified answer")
    fc.add_argument("--tol", type=_finite_float, default=DEFAULT_TOL)
    fc.add_argument("--json", action="store_true", help="print one JSON object")
    fc.set_defaults(func=_cmd_fclib)

    m = sub.add_parser("methods", help="list the registered methods")
    m.set_defaults(func=_cmd_methods)

    r = sub.add_parser("reproduce", help="reproduce the papers' experiments into results/")
    r.add_argument("names", nargs="*", default=["all"], help="experiments (default: all)")
    r.add_argument("--out", default="results", help="output folder (default: results)")
    r.add_argument("--quick", action="store_true", help="small grids, for smoke tests")
    r.add_argument("--resolution", type=int, default=None,
                   help="points per axis of the yashima mode maps (default 201; 41 with --quick)")
    r.set_defaults(func=_cmd_reproduce)

    w = sub.add_parser("warmup", help="compile every numerical kernel now (the first run otherwise compiles "
                                      "them, about a minute); later runs load them from the cache")
    w.set_defaults(func=_cmd_warmup)
    return p


class _StderrLine(logging.Handler):
    """Log records of the ``contactcp`` logger as one ``contactcp: ...`` line each on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(f"contactcp: {_one_line(record.getMessage())}", file=sys.stderr, flush=True)
        except Exception:  # noqa: BLE001 - logging must never break the command
            pass


def _debug() -> bool:
    return os.environ.get("CONTACTCP_DEBUG", "").strip() not in ("", "0")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code (see the module docstring)."""
    logger = logging.getLogger("contactcp")
    handler = _StderrLine(logging.WARNING)
    logger.addHandler(handler)
    propagate, logger.propagate = logger.propagate, False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            code = _run(argv)
            if code in (0, 1):         # a finished command: its warnings, one line each
                for w in caught:
                    print(f"contactcp: warning: {_one_line(w.message)}", file=sys.stderr)
            return code
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return args.func(args)
    except _UsageError as exc:
        return _fail(str(exc), 2)
    except ContactCPError as exc:
        return _fail(f"contactcp: error: {exc}", 2)
    except BrokenPipeError:  # output piped into head & co. (before OSError, of which it is a kind)
        sys.stdout = open(os.devnull, "w")
        return 0
    except OSError as exc:       # an input or output file that cannot be read or written
        return _fail(f"contactcp: error: {exc}", 2)
    except MemoryError:
        return _fail("contactcp: error: out of memory: the problem is too large for this machine", 2)
    except RecursionError:
        return _fail("contactcp: error: the input is nested too deeply", 2)
    except KeyboardInterrupt:
        return _fail("contactcp: interrupted", 130)
    except SystemExit:           # --help, --version
        raise
    except Exception as exc:     # noqa: BLE001 - a bug: one line, exit 1, the traceback on request
        if _debug():
            traceback.print_exc()
        return _fail(f"contactcp: internal error: {type(exc).__name__}: {exc} "
                     "(set CONTACTCP_DEBUG=1 for the traceback)", 1)


def _fail(message: str, code: int) -> int:
    print(_one_line(message), file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

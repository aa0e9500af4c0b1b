"""The ``contactcp`` command line.

Exit codes: 0 when the problem was solved (or the command succeeded), 1 when a
solve ended without a certified solution (no solution, limit, failure) or an
unexpected internal error occurred, 2 for bad input (a missing or unreadable
file, bad data, a size that cannot fit in memory, bad options), 130 when
interrupted.  Every error is one line on stderr, never a traceback (set
``CONTACTCP_DEBUG=1`` to see the traceback of an unexpected error).  Output
files (``--out``, ``--picture``, ``--plot``, ``--animate``, ``reproduce --out``) appear only complete: a
failed or interrupted run leaves existing files as they were and no partial
file behind.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback
import warnings
from collections.abc import Sequence

from contactcp._version import __version__
from contactcp.cli.maps import add_grasp_map_options, add_sweep_options
from contactcp.cli.output import Parser, UsageError, finite_float, one_line  # noqa: F401
from contactcp.cli.simulate import add_simulate_parser
from contactcp.errors import ContactCPError
from contactcp.settings import DEFAULT_TOL

__all__ = ["main", "build_parser"]


from contactcp.cli.commands import (
    _cmd_contacts,
    _cmd_dynamic,
    _cmd_fclib,
    _cmd_grasp,
    _cmd_hand2d,
    _cmd_lcp,
    _cmd_methods,
    _cmd_quasistatic,
    _cmd_reproduce,
    _cmd_warmup,
)


def _common(
    sp: argparse.ArgumentParser, method_help: str | None, choices=None, *, json_help: str = "print one JSON object"
) -> None:
    """The options every solving command has: ``--method`` (unless ``method_help`` is None), ``--tol``, ``--json``."""
    if method_help is not None:
        sp.add_argument("--method", default=None, choices=choices, help=method_help)
    sp.add_argument(
        "--tol",
        type=finite_float,
        default=DEFAULT_TOL,
        help=f"residual tolerance for SOLVED (default {DEFAULT_TOL:g}, contactcp.settings)",
    )
    sp.add_argument("--json", action="store_true", help=json_help)


def build_parser() -> argparse.ArgumentParser:
    from contactcp.formulations.laws import friction_laws
    from contactcp.problems import UCP
    from contactcp.solvers.registry import methods_for

    p = Parser(prog="contactcp", description="Rigid-body contact as certified complementarity problems.")
    p.add_argument("--version", action="version", version=f"contactcp {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=Parser)

    q = sub.add_parser("lcp", help="solve an LCP from a .npz (arrays M, q) or .json file")
    q.add_argument("file")
    _common(
        q,
        "default: the LCP chain (lemke, then interior-point, merit, enumerate while inconclusive), as contactcp.solve",
    )
    q.set_defaults(func=_cmd_lcp)

    qs = sub.add_parser("quasistatic", help="planar quasistatic contact (Pang-Trinkle-Lo): a data set or a file")
    qs.add_argument("file", nargs="?", help="JSON with P, J_n, J_t, theta_dot, d, mu and optional alpha (0-based)")
    qs.add_argument("--dataset", type=int, choices=[1, 2, 3, 4], help="the paper's Data Set N")
    _common(qs, "default: bilinear, then exact if it is inconclusive (as contactcp.solve)", methods_for(UCP))
    qs.add_argument("--variant", default="original", choices=["original", "modified"], help="bilinear Step 3 variant")
    qs.add_argument("--seed", type=int, default=0, help="seed of the bilinear method's random choices")
    qs.set_defaults(func=_cmd_quasistatic)

    dy = sub.add_parser("dynamic", help="spatial dynamic contact: forces, accelerations and contact modes")
    dy.add_argument("file", nargs="?", help="scene JSON (bodies, arms, contacts; see contactcp.io.scene)")
    dy.add_argument("--random", type=int, metavar="N", help="a seeded random state with N finger contacts")
    dy.add_argument("--seed", type=int, default=0)
    dy.add_argument(
        "--friction",
        default="pyramid",
        choices=friction_laws(),
        help="friction pyramid (LCP), Coulomb cone, or the cone as Buffo-Maciel's mixed NCP",
    )
    _common(
        dy,
        "pyramid: lemke, interior-point, bpp, merit; cone: newton, prox, nsgs; mncp: merit "
        "(default: the problem type's chain, as contactcp.solve)",
    )
    dy.set_defaults(func=_cmd_dynamic)

    ct = sub.add_parser("contacts", help="detect a scene's contacts (URDF, MJCF, JSON) and solve for forces and modes")
    ct.add_argument("scene", help="a .urdf, MJCF .xml or JSON scene (see contactcp.io.scene_files)")
    ct.add_argument(
        "--friction", default="pyramid", choices=("pyramid", "cone"), help="friction pyramid (LCP) or Coulomb cone"
    )
    ct.add_argument(
        "--margin", type=finite_float, default=None, help="detection margin in metres (default: the file's, or 1e-3)"
    )
    _common(ct, "a method for the friction law's problem (default: the problem type's chain)")
    ct.set_defaults(func=_cmd_contacts)

    gr = sub.add_parser("grasp", help="the three-PUMA-560-finger grasp of Buffo & Maciel (2006)")
    gr.add_argument("scene", choices=["puma3"])
    gr.add_argument("--mu", type=finite_float, default=0.4)
    gr.add_argument("--state", default="rolling", choices=["rolling", "sliding"])
    _common(
        gr,
        "merit (Buffo-Maciel mixed NCP by merit minimisation), nsgs, prox, newton or admm (friction "
        "cone), lemke or interior-point (friction pyramid); default: the friction cone by the cone chain "
        "(nsgs, prox, newton, admm, a long nsgs, while inconclusive)",
        json_help="print one JSON object (same keys as `dynamic`)",
    )
    gr.add_argument("--picture", metavar="FILE.png", help="also draw the grasp with its contact forces (or the map)")
    add_grasp_map_options(gr)
    gr.set_defaults(func=_cmd_grasp)

    hd = sub.add_parser("hand2d", help="the two-finger hand of Yashima & Yamaguchi: determinacy and mode maps")
    hd.add_argument("--mu", type=finite_float, default=0.4)
    hd.add_argument("--tau1", type=finite_float, help="second-joint torque of finger 1 (N m)")
    hd.add_argument("--tau2", type=finite_float, help="second-joint torque of finger 2 (N m)")
    hd.add_argument("--map", action="store_true", help="the contact-mode map over (tau1, tau2)")
    hd.add_argument("--resolution", type=int, default=200, help="map: points per axis (default 200)")
    hd.add_argument("--tau-min", type=finite_float, default=0.0, help="map: lowest torque (default 0)")
    hd.add_argument("--tau-max", type=finite_float, default=10.0, help="map: highest torque (default 10)")
    add_sweep_options(hd)
    hd.add_argument("--out", metavar="FILE", help="map: save the table (.npz or .csv)")
    hd.add_argument("--picture", metavar="FILE.png", help="map: draw it")
    _common(hd, None)
    hd.set_defaults(func=_cmd_hand2d)

    fc = sub.add_parser("fclib", help="solve the problem of an FCLIB HDF5 file (local or global), or a folder of them")
    fc.add_argument("file", help="an FCLIB file, or a folder: every .hdf5/.h5 file in it, one row each")
    fc.add_argument(
        "--form",
        choices=["auto", "local", "global"],
        default="auto",
        help="which problem of the file to solve (default: the local one if present, else the global one)",
    )
    fc.add_argument(
        "--out",
        metavar="SOLUTION.hdf5",
        help="write the problem and the answer as an FCLIB file (the best attempt when none is certified: "
        "the exit status and --json say which)",
    )
    _common(
        fc,
        "nsgs, prox, newton or admm (a global problem runs them on its local form); default: the cone "
        "chain (nsgs, prox, newton, admm, a long nsgs, while inconclusive)",
    )
    add_sweep_options(fc)
    fc.set_defaults(func=_cmd_fclib)

    add_simulate_parser(sub)

    m = sub.add_parser("methods", help="list the registered methods")
    m.set_defaults(func=_cmd_methods)

    r = sub.add_parser("reproduce", help="reproduce the papers' experiments into results/")
    r.add_argument("names", nargs="*", default=["all"], help="experiments (default: all)")
    r.add_argument("--out", default="results", help="output folder (default: results)")
    r.add_argument("--quick", action="store_true", help="small grids, for smoke tests")
    r.add_argument(
        "--resolution",
        type=int,
        default=None,
        help="points per axis of the yashima mode maps (default 201; 41 with --quick)",
    )
    r.set_defaults(func=_cmd_reproduce)

    w = sub.add_parser(
        "warmup",
        help="compile every numerical kernel now (the first run otherwise compiles "
        "them, about a minute); later runs load them from the cache",
    )
    w.set_defaults(func=_cmd_warmup)
    return p


class _StderrLine(logging.Handler):
    """Log records of the ``contactcp`` logger as one ``contactcp: ...`` line each on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(f"contactcp: {one_line(record.getMessage())}", file=sys.stderr, flush=True)
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
            if code in (0, 1):  # a finished command: its warnings, one line each
                for w in caught:
                    print(f"contactcp: warning: {one_line(w.message)}", file=sys.stderr)
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
    except UsageError as exc:
        return _fail(str(exc), 2)
    except KeyboardInterrupt as exc:  # (before ContactCPError: a sweep's SweepInterrupted is both)
        # a sweep with a store says what it kept and how to resume
        return _fail("contactcp: interrupted" + (f": {exc}" if str(exc) else ""), 130)
    except ContactCPError as exc:
        return _fail(f"contactcp: error: {exc}", 2)
    except BrokenPipeError:  # output piped into head & co. (before OSError, of which it is a kind)
        sys.stdout = open(os.devnull, "w")
        return 0
    except OSError as exc:  # an input or output file that cannot be read or written
        return _fail(f"contactcp: error: {exc}", 2)
    except MemoryError:
        return _fail("contactcp: error: out of memory: the problem is too large for this machine", 2)
    except RecursionError:
        return _fail("contactcp: error: the input is nested too deeply", 2)
    except SystemExit:  # --help, --version
        raise
    except Exception as exc:  # noqa: BLE001 - a bug: one line, exit 1, the traceback on request
        from contactcp.sweep.workers import interrupted

        if interrupted(exc):  # Ctrl-C inside compiled code comes back as a SystemError
            return _fail("contactcp: interrupted", 130)
        if _debug():
            traceback.print_exc()
        return _fail(
            f"contactcp: internal error: {type(exc).__name__}: {exc} (set CONTACTCP_DEBUG=1 for the traceback)", 1
        )


def _fail(message: str, code: int) -> int:
    print(one_line(message), file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

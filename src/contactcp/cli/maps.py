"""The CLI's maps over many solves: shared sweep options and the three-finger grasp's effort map."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from contactcp.cli.output import PICTURE_SUFFIXES, check_map_size, finite_float, output_path, print_json


def add_sweep_options(sp: argparse.ArgumentParser, what: str = "map") -> None:
    """``--workers``, ``--store``, ``--resume``, ``--scheduler`` (:func:`contactcp.sweep.sweep`)."""
    sp.add_argument("--workers", type=int, default=None, help=f"{what}: worker processes (default: all cores)")
    sp.add_argument("--store", metavar="DIR", help=f"{what}: stream each finished chunk into DIR (Parquet; resumable)")
    sp.add_argument("--resume", action="store_true", help=f"{what}: complete the one already in --store DIR")
    sp.add_argument(
        "--scheduler", metavar="ADDR", help=f"{what}: run on a Dask scheduler (tcp://HOST:PORT, or 'local')"
    )


def sweep_kwargs(args: argparse.Namespace) -> dict:
    from contactcp.errors import InvalidProblemError

    if args.resume and not args.store:
        raise InvalidProblemError("--resume", "needs --store DIR (the map to complete)")
    if args.workers is not None and args.workers < 1:
        raise InvalidProblemError("--workers", f"must be at least 1, got {args.workers}")
    return {"workers": args.workers, "store": args.store, "resume": args.resume, "scheduler": args.scheduler}


def add_grasp_map_options(gr: argparse.ArgumentParser) -> None:
    gr.add_argument("--map", action="store_true", help="the contact-mode map over two joint efforts of one finger")
    gr.add_argument("--finger", type=int, default=1, choices=(1, 2, 3), help="map: the finger (default 1)")
    gr.add_argument(
        "--joints", type=int, nargs=2, default=(2, 3), metavar=("J1", "J2"), help="map: its two joints (default 2 3)"
    )
    gr.add_argument("--resolution", type=int, default=60, help="map: points per axis (default 60)")
    gr.add_argument("--tau-min", type=finite_float, default=-20.0, help="map: lowest added torque (default -20)")
    gr.add_argument("--tau-max", type=finite_float, default=20.0, help="map: highest added torque (default 20)")
    gr.add_argument("--out", metavar="FILE", help="map: save the table (.npz or .csv)")
    add_sweep_options(gr)


def _map_axis(args: argparse.Namespace):
    """The effort values of a map's axes, after checking ``--resolution``, the range and the outputs."""
    import numpy as np

    from contactcp.errors import InvalidProblemError

    if args.resolution < 2:
        raise InvalidProblemError("--resolution", f"must be at least 2, got {args.resolution}")
    check_map_size(args.resolution, "--resolution")
    if not args.tau_max > args.tau_min:
        raise InvalidProblemError("--tau-max", f"must exceed --tau-min ({args.tau_min:g}), got {args.tau_max:g}")
    output_path(args.out, "--out", (".npz", ".csv"))
    output_path(args.picture, "--picture", PICTURE_SUFFIXES)
    return np.linspace(args.tau_min, args.tau_max, args.resolution)


def _finish_map(args, table, t, classes, title: str, labels=None, facts: dict | None = None, lines=()) -> int:
    """Counts of classes and verdicts, the outputs (both or neither: each to a temporary file, renamed
    into place when both are complete), the JSON object or the text; exit 0 when every state was
    decided (determinate or proved not to be), else 1."""
    from contactcp.analysis.determinacy import VERDICTS

    counts = {name: int((table["cls"] == k).sum()) for k, name in enumerate(classes)}
    verdicts = {name: int((table["verdict"] == k).sum()) for k, name in enumerate(VERDICTS)}
    with contextlib.ExitStack() as stack:
        from contactcp._files import atomic_write

        if args.out:
            table.save(stack.enter_context(atomic_write(args.out)))
        if args.picture:
            from contactcp.plotting.modemap import plot_mode_map, save

            extra = {} if labels is None else {"labels": labels}
            fig = plot_mode_map(table.grid("cls"), t, t, title, classes=classes, **extra)
            save(fig, stack.enter_context(atomic_write(args.picture)))
    ok = verdicts["undecided"] == 0
    if args.json:
        print_json(
            {
                "status": "SOLVED" if ok else "INACCURATE",
                "success": ok,
                "mu": args.mu,
                **(facts or {}),
                "resolution": args.resolution,
                "tau_range": [args.tau_min, args.tau_max],
                "classes": counts,
                "verdicts": verdicts,
                "time": table.meta.get("elapsed"),
            }
        )
    else:
        for line in lines:
            print(line)
        print(f"  {len(table)} states in {table.meta.get('elapsed', float('nan')):.2f} s")
        for k, v in counts.items():
            print(f"  {k:16s} {v}")
        print("verdicts: " + ", ".join(f"{k} {v}" for k, v in verdicts.items()))
    return 0 if ok else 1


def hand2d_map_command(args: argparse.Namespace) -> int:
    """``contactcp hand2d --map``: the two-finger hand's mode map (Yashima & Yamaguchi, Fig. 7)."""
    from contactcp.analysis.modemap import MODE_CLASSES
    from contactcp.scenarios.yashima import hand_map

    t = _map_axis(args)
    table = hand_map(args.mu, t, t, tol=args.tol, progress=not args.json, **sweep_kwargs(args))
    head = f"mode map, mu = {args.mu:g}: [{args.tau_min:g}, {args.tau_max:g}]^2 N m"
    return _finish_map(args, table, t, MODE_CLASSES, f"contact modes, mu = {args.mu:g}", lines=[head])


def grasp_map_command(args: argparse.Namespace) -> int:
    """``contactcp grasp puma3 --map``: the three-finger grasp's modes over two joint efforts."""
    from contactcp.analysis.modemap import mode_classes
    from contactcp.errors import InvalidProblemError
    from contactcp.scenarios.grasp_maps import grasp_map

    bad = [j for j in args.joints if not 1 <= j <= 6]
    if bad or args.joints[0] == args.joints[1]:
        raise InvalidProblemError("--joints", f"must be two different joints in 1..6, got {list(args.joints)}")
    t = _map_axis(args)
    joints = (args.joints[0] - 1, args.joints[1] - 1)
    table = grasp_map(
        args.mu, t, t, finger=args.finger - 1, joints=joints, progress=not args.json, **sweep_kwargs(args)
    )
    labels = tuple(f"finger {args.finger}, joint {j}: added torque (N m)" for j in args.joints)
    head = (
        f"three-finger grasp, mu = {args.mu:g}: efforts added to finger {args.finger}'s joints "
        f"{args.joints[0]} and {args.joints[1]} in [{args.tau_min:g}, {args.tau_max:g}] N m"
    )
    facts = {"finger": args.finger, "joints": list(args.joints)}
    title = f"three-finger grasp, mu = {args.mu:g}"
    return _finish_map(args, table, t, mode_classes(3), title, labels, facts, [head])


def fclib_folder_command(args: argparse.Namespace) -> int:
    """``contactcp fclib FOLDER``: every file of the folder, one row each (:func:`solve_collection`)."""
    from contactcp.errors import InvalidProblemError
    from contactcp.io.fclib.collection import COLLECTION_COLUMNS, solve_collection

    if args.out is not None:
        raise InvalidProblemError("--out", "writes one solution file: give a file, not a folder")
    table = solve_collection(
        args.file, form=args.form, method=args.method, tol=args.tol, progress=not args.json, **sweep_kwargs(args)
    )
    rows = [
        {"file": str(table["file"][k]), **{c: table[c][k].item() for c in COLLECTION_COLUMNS}}
        for k in range(len(table))
    ]
    solved = sum(r["success"] for r in rows)
    ok = solved == len(rows)
    if args.json:
        print_json(
            {
                "status": "SOLVED" if ok else "UNSOLVED",
                "success": ok,
                "solved": solved,
                "files": rows,
                "time": table.meta.get("elapsed"),
            }
        )
    else:
        print(f"FCLIB folder {args.file}: {solved} of {len(rows)} files solved")
        for r in rows:
            print(
                f"  {Path(r['file']).name:40s} {r['form']:6s} n_c {r['n_c']:5d}  {r['status']:16s} "
                f"residual {r['residual']:.2e}  {r['method']:14s} {r['time']:.3f} s"
            )
    return 0 if ok else 1

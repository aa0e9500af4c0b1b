"""The CLI's commands: one function per subcommand, ``args -> exit code``."""

from __future__ import annotations

import argparse
import os

from contactcp.cli.output import PICTURE_SUFFIXES, check_map_size, finite, output_path, print_json  # noqa: F401


def _cmd_lcp(args: argparse.Namespace) -> int:
    from contactcp import solve
    from contactcp.io import load_lcp

    problem = load_lcp(args.file)
    result = solve(problem, method=args.method, tol=args.tol)
    if args.json:
        keys = (
            "status",
            "success",
            "residual",
            "iterations",
            "x",
            "w",
            "message",
            "method",
            "time",
            "tol",
            "certificate",
        )
        d = result.to_dict()
        print_json({k: d.get(k) for k in keys})
    else:
        print(f"LCP of size {problem.n} from {args.file}")
        print(result.summary())
    return 0 if result.success else 1


def _cmd_quasistatic(args: argparse.Namespace) -> int:
    from contactcp.errors import InvalidProblemError
    from contactcp.io import load_arrays
    from contactcp.models.planar_quasistatic import PlanarQuasistaticProblem
    from contactcp.scenarios.pang1994 import data_set
    from contactcp.simulate.quasistatic import solve_quasistatic

    if (args.dataset is None) == (args.file is None):
        raise InvalidProblemError("quasistatic", "give exactly one of --dataset N or FILE.json")
    if args.dataset is not None:
        problem = data_set(args.dataset)
    else:
        d = load_arrays(args.file, ("P", "J_n", "J_t", "theta_dot", "d", "mu"), ("alpha",))
        problem = PlanarQuasistaticProblem.from_paper(
            d["P"], d["J_n"], d["J_t"], d["theta_dot"], d["d"], d["mu"], d.get("alpha"), name=str(args.file)
        )
    opts = {}
    if args.method == "bilinear":
        opts = {"seed": args.seed, "variant": args.variant}
    out = solve_quasistatic(problem, args.method, tol=args.tol, **opts)
    if args.json:
        print_json(out.to_dict())
    else:
        print(out.summary())
    return 0 if out.success else 1


def _cmd_dynamic(args: argparse.Namespace) -> int:
    from contactcp.errors import InvalidProblemError
    from contactcp.io.scene import load_system
    from contactcp.scenarios.random_dynamic import random_system
    from contactcp.simulate.instant import solve_dynamic

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
        print_json(out.to_dict())
    else:
        print(out.summary())
    return 0 if out.success else 1


def _cmd_contacts(args: argparse.Namespace) -> int:
    from contactcp.io.scene_files import load_scene
    from contactcp.simulate.scene import solve_scene

    scene, margin = load_scene(args.scene)
    margin = margin if args.margin is None else args.margin
    out = solve_scene(scene, friction=args.friction, method=args.method, margin=margin, tol=args.tol)
    if args.json:
        d = out.to_dict()
        keep = ("bodies", "point", "normal", "gap", "force_world", "mode", "name", "tangents", "force", "mu")
        d["contacts"] = [{k: c[k] for k in keep} for c in d["contacts"]]
        print_json(d)
    else:
        print(f"{scene.name}: {len(out.detected)} contact(s) within {margin:g} m, friction {args.friction}")
        print(out.summary())
    return 0 if out.success else 1


def _cmd_grasp(args: argparse.Namespace) -> int:
    from contactcp.scenarios.buffo2006 import puma3_grasp
    from contactcp.simulate.instant import solve_dynamic

    if args.map:
        from contactcp.cli.maps import grasp_map_command

        return grasp_map_command(args)

    output_path(args.picture, "--picture", PICTURE_SUFFIXES)
    grasp = puma3_grasp(args.mu, args.state)
    # the paper's own law (the Coulomb cone) unless the method is meant for another one
    law = "cone" if args.method is None else None
    out = solve_dynamic(grasp.system, friction=law, method=args.method, tol=args.tol)
    if args.picture:
        from contactcp.plotting.grasp import save_grasp

        save_grasp(grasp, out.contacts, args.picture)
    if args.json:
        print_json(out.to_dict())
    else:
        print(f"three PUMA-560 fingers holding a sphere: mu = {args.mu:g}, contacts {args.state}")
        print(out.summary())
    return 0 if out.success else 1


def _cmd_hand2d(args: argparse.Namespace) -> int:
    from contactcp.errors import InvalidProblemError

    if args.map:
        if args.tau1 is not None or args.tau2 is not None:
            raise InvalidProblemError("hand2d", "give either --tau1 T --tau2 T or --map, not both")
        from contactcp.cli.maps import hand2d_map_command

        return hand2d_map_command(args)
    if args.tau1 is None or args.tau2 is None:
        raise InvalidProblemError("hand2d", "give --tau1 T --tau2 T (one state) or --map")
    from contactcp.analysis.determinacy import analyse
    from contactcp.scenarios.yashima import two_finger_hand

    hand = two_finger_hand(args.mu, args.tau1, args.tau2)
    out = analyse(hand.system, tol=args.tol)
    acc = None if out.accelerations is None else [float(v) for v in out.accelerations[:3]]
    if args.json:
        print_json(
            {
                "status": "SOLVED" if out.determinate else out.verdict.upper().replace("-", "_"),
                "success": out.determinate,
                "verdict": out.verdict,
                "modes": out.modes,
                "transitions": out.transitions,
                "codes": out.codes,
                "determinate": out.determinate,
                "feasible_combinations": out.feasible_combinations,
                "distinct_solutions": out.distinct_solutions,
                "p_matrix": out.p_matrix,
                "p_test": out.p_test,
                "combination": out.combination,
                "object_acceleration": acc,
                "max_violation": out.max_violation,
                "c": None if out.c is None else out.c.tolist(),
            }
        )
    else:
        print(f"two-finger hand (Yashima-Yamaguchi): mu = {args.mu:g}, tau1 = {args.tau1:g}, tau2 = {args.tau2:g} N m")
        print(
            f"verdict: {out.verdict}; {out.feasible_combinations} feasible sign combination(s) of "
            f"{len(out.combinations)}, {out.distinct_solutions} distinct solution(s); "
            f"P-matrix: {out.p_matrix} ({out.p_test})"
        )
        for j, (m, tr, code) in enumerate(zip(out.modes, out.transitions, out.codes)):
            print(f"  finger {j + 1}: {m:8s} ({code}: {tr})")
        if acc is not None:
            print(
                f"object acceleration (x, z, angular): {acc[0]:.5g}, {acc[1]:.5g}, {acc[2]:.5g}; "
                f"check of the original conditions {out.max_violation:.1e}"
            )
    return 0 if out.determinate else 1


def _cmd_fclib(args: argparse.Namespace) -> int:
    from contactcp.errors import InvalidProblemError
    from contactcp.io.fclib import FclibSolution, read_fclib, write_global, write_local
    from contactcp.solvers.registry import solve

    if os.path.isdir(args.file):
        from contactcp.cli.maps import fclib_folder_command

        return fclib_folder_command(args)

    output_path(args.out, "--out", (".hdf5", ".h5"))
    data = read_fclib(args.file)
    form = args.form if args.form != "auto" else ("local" if data.local is not None else "global")
    fclib = data.local if form == "local" else data.global_
    if fclib is None:  # (read_fclib refuses a file with neither group)
        raise InvalidProblemError("file", f"{args.file} has no {form} problem (no /fclib_{form} group)")
    problem = fclib.to_problem()
    result = solve(problem, args.method, tol=args.tol)
    v, r = (None, result.x) if form == "local" or result.x is None else problem.split(result.x)
    if args.out is not None and result.x is not None:
        solution = FclibSolution(v=v, u=result.w, r=r)
        # the problem as read (its info and matrix_info kept), with the answer
        (write_local if form == "local" else write_global)(args.out, fclib, solution)
    if args.json:
        d = result.to_dict()
        out = {k: d[k] for k in ("status", "success", "residual", "iterations", "method", "message", "time")}
        out.update(form=form, r=None if r is None else r.tolist(), u=d["w"])
        if form == "global":
            out["v"] = None if v is None else v.tolist()
        print_json(out)
    else:
        what = f"{problem.n_c} contacts, dim {problem.dim}" + (
            f", {problem.n_v} velocities" if form == "global" else ""
        )
        print(f"FCLIB {form} problem from {args.file}: {what}")
        print(result.summary())
        if args.out is not None and result.x is not None:
            print(f"wrote {args.out}")
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
            raise InvalidProblemError(
                "reproduce", f"unknown experiment {name!r}; available: all, " + ", ".join(EXPERIMENTS)
            )
    if args.resolution is not None:
        if args.resolution < 2:
            raise InvalidProblemError("--resolution", f"must be at least 2, got {args.resolution}")
        check_map_size(args.resolution, "--resolution")
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
        print(
            f"compiled {out['compiled']} numerical kernels in {out['seconds']:.1f} s ({out['solves']} small "
            "solves); later runs load them from the cache"
        )
    else:
        print(
            f"every numerical kernel was already compiled and cached ({out['solves']} small solves in "
            f"{out['seconds']:.1f} s)"
        )
    return 0

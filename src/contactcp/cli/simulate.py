"""``contactcp simulate SCENE --duration T --dt H [--restitution E] [--out FILE.h5] [--plot FILE.png]
[--animate FILE.gif|FILE.html] [--json]`` and ``contactcp view TRAJ.h5 [--plot ...] [--animate ...]``.

SCENE is a scene file (``.urdf``, MJCF ``.xml``, JSON; :mod:`contactcp.io.scene_files`) or the name
of a verification scene (:data:`SCENES`).  The exit status is 0 when every step was certified, 1
when some step was not (the run goes on; ``failed_steps`` counts them).  ``--plot`` draws the
positions, energy and contact modes (:func:`contactcp.plotting.trajectory.plot_trajectory`),
``--animate`` the 3-D motion (:func:`contactcp.plotting.animation.animate_trajectory`); ``view``
does the same from a trajectory file written by ``--out``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contactcp.cli.output import finite_float, output_path, print_json

__all__ = ["add_simulate_parser", "SCENES"]

#: verification scenes by name: (builder, keywords); "module:builder" for another module of
#: contactcp.scenarios than contactcp.scenarios.timestepping
SCENES = {
    "bouncing-ball": ("bouncing_ball", {}),
    "slope-stick": ("slope_box", {"mu": 0.5}),
    "slope-slide": ("slope_box", {"mu": 0.3}),
    "rolling-sphere": ("rolling_sphere", {}),
    "box-stack": ("box_stack", {}),
    "box-pile-25": ("box_pile", {"n": 25}),
    "box-pile-50": ("box_pile", {"n": 50}),
    "puma-grasp": ("timestepping_robots:puma_grasp", {"mu": 0.4}),
    "puma-grasp-slip": ("timestepping_robots:puma_grasp", {"mu": 0.1}),
    "yashima-hand": ("timestepping_robots:yashima_hand", {"mu": 0.4, "tau1": 3.0, "tau2": 3.0}),
    "yashima-hand-rs": ("timestepping_robots:yashima_hand", {"mu": 0.4, "tau1": 8.0, "tau2": 1.0}),
}


def add_simulate_parser(sub) -> None:
    sm = sub.add_parser("simulate", help="simulate a scene in time (Moreau-Jean, Coulomb cone, impacts)")
    sm.add_argument("scene", help=f"a .urdf, MJCF .xml or JSON scene, or one of: {', '.join(SCENES)}")
    sm.add_argument("--duration", type=finite_float, required=True, help="seconds to simulate")
    sm.add_argument("--dt", type=finite_float, default=1e-3, help="time step in seconds (default 1e-3)")
    sm.add_argument(
        "--restitution",
        type=finite_float,
        default=None,
        help="coefficient of restitution of pairs the scene sets none for",
    )
    sm.add_argument(
        "--margin", type=finite_float, default=None, help="detection margin in metres (default: the file's)"
    )
    sm.add_argument("--out", metavar="FILE.h5", help="write the trajectory (HDF5)")
    sm.add_argument("--tol", type=finite_float, default=1e-10, help="each step's residual tolerance (default 1e-10)")
    sm.add_argument(
        "--friction",
        choices=("cone", "pyramid"),
        default="cone",
        help="Coulomb's cone (exact, default) or the Stewart-Trinkle pyramid LCP by Lemke",
    )
    sm.add_argument("--pyramid-edges", type=int, default=8, help="edges of the friction pyramid (default 8)")
    sm.add_argument("--json", action="store_true", help="print one JSON object")
    _picture_options(sm)
    sm.set_defaults(func=_cmd_simulate)

    vw = sub.add_parser("view", help="summarise, plot or animate a trajectory file written by `simulate --out`")
    vw.add_argument("trajectory", help="an HDF5 trajectory file (simulate --out)")
    vw.add_argument("--json", action="store_true", help="print one JSON object")
    _picture_options(vw)
    vw.set_defaults(func=_cmd_view)


def _picture_options(sp) -> None:
    sp.add_argument("--plot", metavar="FILE.png", help="draw positions, energy and contact modes over time")
    sp.add_argument("--animate", metavar="FILE.gif|FILE.html", help="write a 3-D animation of the motion")
    sp.add_argument("--fps", type=finite_float, default=25.0, help="animation frames per second (default 25)")
    sp.add_argument("--stride", type=int, default=None, help="animation: states per frame (default: real time)")


def _check_pictures(args: argparse.Namespace) -> None:
    from contactcp.cli.output import PICTURE_SUFFIXES
    from contactcp.errors import InvalidOptionError

    output_path(args.plot, "--plot", PICTURE_SUFFIXES)
    if args.animate:
        from contactcp.plotting.animation import ANIMATION_SUFFIXES

        output_path(args.animate, "--animate", ANIMATION_SUFFIXES)
    if not 0 < args.fps <= 1000:
        raise InvalidOptionError("--fps", f"must be in (0, 1000], got {args.fps:g}")
    if args.stride is not None and args.stride < 1:
        raise InvalidOptionError("--stride", f"must be a positive integer, got {args.stride}")


def _pictures(traj, args: argparse.Namespace) -> dict:
    """Write the pictures asked for: ``{"plot": path, "animation": path, "frames": n}`` of those written."""
    done: dict = {}
    if args.plot:
        import matplotlib.pyplot as plt

        from contactcp.plotting.trajectory import plot_trajectory

        plt.close(plot_trajectory(traj, args.plot))
        done["plot"] = args.plot
    if args.animate:
        from contactcp.plotting.animation import animate_trajectory

        done["frames"] = animate_trajectory(traj, args.animate, fps=args.fps, stride=args.stride)
        done["animation"] = args.animate
    return done


def _report(traj, args: argparse.Namespace, done: dict, extra: str = "") -> None:
    if args.json:
        print_json({**traj.to_dict(), **done})
        return
    print(traj.summary())
    if extra:
        print(extra)
    if "plot" in done:
        print(f"  plot written to {done['plot']}")
    if "animation" in done:
        print(f"  animation ({done['frames']} frames) written to {done['animation']}")


def _scene(name: str):
    if name in SCENES and not Path(name).exists():
        import importlib

        from contactcp.models.scene import DEFAULT_MARGIN

        builder, kwargs = SCENES[name]
        module, _, builder = builder.rpartition(":")
        scenarios = importlib.import_module(f"contactcp.scenarios.{module or 'timestepping'}")
        return getattr(scenarios, builder)(**kwargs), DEFAULT_MARGIN
    from contactcp.errors import InvalidProblemError
    from contactcp.io.scene_files import load_scene

    if not Path(name).exists():
        raise InvalidProblemError(
            "scene", f"no file {name!r}, and no verification scene of that name ({', '.join(SCENES)})"
        )
    return load_scene(name)


class _Progress:
    """A one-line progress bar on a terminal's stderr (nothing when stderr is not a terminal)."""

    def __init__(self) -> None:
        self.shown = -1

    def __call__(self, k: int, n: int) -> None:
        pct = 100 * k // max(n, 1)
        if pct != self.shown:
            self.shown = pct
            bar = "#" * (pct // 4)
            print(f"\r[{bar:<25}] {pct:3d}% step {k}/{n}", end="", file=sys.stderr, flush=True)
            if k == n:
                print(file=sys.stderr)


def _cmd_simulate(args: argparse.Namespace) -> int:
    from contactcp.simulate.stepping import simulate

    output_path(args.out, "--out", (".h5", ".hdf5"))
    _check_pictures(args)
    scene, margin = _scene(args.scene)
    margin = margin if args.margin is None else args.margin
    progress = _Progress() if sys.stderr.isatty() else None
    traj = simulate(
        scene,
        args.duration,
        args.dt,
        restitution=args.restitution,
        margin=margin,
        tol=args.tol,
        friction=args.friction,
        pyramid_edges=args.pyramid_edges,
        progress=progress,
    )
    if args.out:
        traj.to_hdf5(args.out)
    _report(traj, args, _pictures(traj, args), f"  trajectory written to {args.out}" if args.out else "")
    return 0 if traj.success else 1


def _cmd_view(args: argparse.Namespace) -> int:
    from contactcp.simulate.stepping import Trajectory

    _check_pictures(args)
    traj = Trajectory.from_hdf5(args.trajectory)
    _report(traj, args, _pictures(traj, args))
    return 0  # the file was read and drawn (its own status is in the summary)

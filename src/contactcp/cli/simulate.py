"""``contactcp simulate SCENE --duration T --dt H [--restitution E] [--out FILE.h5] [--json]``.

SCENE is a scene file (``.urdf``, MJCF ``.xml``, JSON; :mod:`contactcp.io.scene_files`) or the name
of a verification scene (:data:`SCENES`).  The exit status is 0 when every step was certified, 1
when some step was not (the run goes on; ``failed_steps`` counts them).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contactcp.cli.output import finite_float, output_path, print_json

__all__ = ["add_simulate_parser", "SCENES"]

#: verification scenes by name (contactcp.scenarios.timestepping)
SCENES = {
    "bouncing-ball": ("bouncing_ball", {}),
    "slope-stick": ("slope_box", {"mu": 0.5}),
    "slope-slide": ("slope_box", {"mu": 0.3}),
    "rolling-sphere": ("rolling_sphere", {}),
    "box-stack": ("box_stack", {}),
    "box-pile-25": ("box_pile", {"n": 25}),
    "box-pile-50": ("box_pile", {"n": 50}),
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
    sm.add_argument("--json", action="store_true", help="print one JSON object")
    sm.set_defaults(func=_cmd_simulate)


def _scene(name: str):
    if name in SCENES and not Path(name).exists():
        from contactcp.models.scene import DEFAULT_MARGIN
        from contactcp.scenarios import timestepping

        builder, kwargs = SCENES[name]
        return getattr(timestepping, builder)(**kwargs), DEFAULT_MARGIN
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
    scene, margin = _scene(args.scene)
    margin = margin if args.margin is None else args.margin
    progress = _Progress() if sys.stderr.isatty() else None
    traj = simulate(
        scene, args.duration, args.dt, restitution=args.restitution, margin=margin, tol=args.tol, progress=progress
    )
    if args.out:
        traj.to_hdf5(args.out)
    if args.json:
        print_json(traj.to_dict())
    else:
        print(traj.summary())
        if args.out:
            print(f"  trajectory written to {args.out}")
    return 0 if traj.success else 1

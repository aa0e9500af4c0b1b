"""Many solves of the three-PUMA-560-finger grasp (Buffo & Maciel 2006), through the sweep layer.

* :func:`grasp_map` — the contact modes over two joint efforts added to one finger's (the grasp's
  own efforts hold it; the map says where extra shoulder and elbow torque keeps every contact
  rolling, makes some slide, or breaks one): Yashima & Yamaguchi's decomposition on the 3D grasp
  (:func:`contactcp.analysis.modemap.effort_map`; classes :func:`~contactcp.analysis.modemap.mode_classes`
  of three contacts, ``"RRR"`` ... ``"SSS"``, breaking, not determinate);
* :func:`grasp_scan` — a μ-scan: the grasp solved with the Coulomb cone at each friction value;
* :func:`grasp_ensemble` — an ensemble of short simulations (:func:`advance_grasp`) over friction
  values and squeeze forces: where the sphere is held and where it slips.

Each takes ``workers``, ``store``, ``resume``, ``scheduler`` and ``progress`` as
:func:`contactcp.sweep.sweep` does (worker processes, a resumable Parquet store, a Dask cluster).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from contactcp._validate import number, vector
from contactcp.errors import InvalidProblemError
from contactcp.models.system import Arm, MultibodySystem
from contactcp.scenarios.buffo2006 import puma3_grasp
from contactcp.sweep import Table, grid, sweep

__all__ = ["grasp_model", "grasp_map", "grasp_scan", "grasp_ensemble", "SCAN_COLUMNS"]

_MODE = {"rolling": 0, "sliding": 1, "breaking": 2, "separated": 3}


def _grasp_system(mu: float, finger: int, joints: tuple[int, int], tau_a: float, tau_b: float) -> MultibodySystem:
    g = puma3_grasp(mu, "rolling")
    arms = list(g.system.arms)
    arm = arms[finger]
    tau = np.array(arm.tau, dtype=float)
    tau[joints[0]] += tau_a
    tau[joints[1]] += tau_b
    arms[finger] = Arm(arm.manipulator, arm.q, arm.qdot, tau)
    return MultibodySystem(g.system.bodies, g.system.contacts, arms)


@functools.lru_cache(maxsize=8)
def grasp_model(mu: float, finger: int = 0, joints: tuple[int, int] = (1, 2)):
    """The effort-independent part of the grasp's map (cached per process): efforts ``tau_a``,
    ``tau_b`` added to joints ``joints`` (0-based) of finger ``finger`` (0, 1, 2)."""
    from contactcp.analysis.modemap import effort_model

    mu = number(mu, "mu")
    if finger not in (0, 1, 2):
        raise InvalidProblemError("finger", f"must be 0, 1 or 2, got {finger!r}")
    if len(joints) != 2 or not all(j in range(6) for j in joints) or joints[0] == joints[1]:
        raise InvalidProblemError("joints", f"must be two different joint indices in 0..5, got {joints!r}")
    return effort_model(functools.partial(_grasp_system, mu, finger, tuple(joints)), ("tau_a", "tau_b"))


def grasp_map(
    mu: float,
    tau_a: Any,
    tau_b: Any,
    *,
    finger: int = 0,
    joints: tuple[int, int] = (1, 2),
    workers: int | None = None,
    progress: bool = True,
    store: Any = None,
    resume: bool = False,
    scheduler: Any = None,
) -> Table:
    """The contact-mode map of the grasp over ``tau_a x tau_b`` (N m added to the two joints)."""
    from contactcp.analysis.modemap import acceleration_names, effort_map

    return effort_map(
        grasp_model(number(mu, "mu"), finger, tuple(joints)),
        {"tau_a": tau_a, "tau_b": tau_b},
        workers=workers,
        progress=progress,
        desc=f"grasp map mu={mu:g}",
        store=store,
        resume=resume,
        scheduler=scheduler,
        names=acceleration_names("a_x", "a_y", "a_z"),
    )


#: the columns of :func:`grasp_scan`: status (1 solved), residual, each contact's mode code
#: (0 rolling, 1 sliding, 2 breaking) and force ``(c_n, c_t, c_o)``, the sphere's acceleration
SCAN_COLUMNS = ("solved", "residual", "modes", "c", "sphere_acc")


def _scan_point(state: str, mu: float) -> dict[str, Any]:
    from contactcp.simulate.instant import solve_dynamic

    out = solve_dynamic(puma3_grasp(mu, state).system, friction="cone")
    ok = out.success and out.contacts
    return {
        "solved": bool(out.success),
        "residual": float("nan") if out.residual is None else out.residual,
        "modes": np.array([_MODE[o.mode] for o in out.contacts] if ok else [-1, -1, -1]),
        "c": np.concatenate([o.c for o in out.contacts]) if ok else np.full(9, np.nan),
        "sphere_acc": out.accelerations[:3] if ok else np.full(3, np.nan),
    }


def grasp_scan(mus: Any, state: str = "rolling", **sweep_options: Any) -> Table:
    """The grasp with the Coulomb cone at each friction value of ``mus`` (columns :data:`SCAN_COLUMNS`)."""
    if state not in ("rolling", "sliding"):
        raise InvalidProblemError("state", f"must be 'rolling' or 'sliding', got {state!r}")
    pts = grid(mu=vector(mus, "mus"))
    sweep_options.setdefault("desc", f"mu-scan ({state})")
    return sweep(functools.partial(_scan_point, state), pts, **sweep_options)


def _ensemble_point(steps: int, dt: float, state: str, mu: float, squeeze: float) -> dict[str, Any]:
    from contactcp.scenarios.buffo2006_steps import advance_grasp

    hist = advance_grasp(puma3_grasp(mu, state, squeeze=squeeze), dt=dt, steps=steps, friction="cone")
    last = hist[-1]
    return {
        "t": last.t,
        "modes": np.array([_MODE.get(m, 3) for m in last.modes]),
        "sphere_dz": float(last.sphere_p[2] - hist[0].sphere_p[2]),
        "sphere_vz": float(last.sphere_v[2]),
        "held": all(m == "rolling" for m in last.modes),
    }


def grasp_ensemble(
    mus: Any, squeezes: Any, *, state: str = "rolling", steps: int = 10, dt: float = 1e-3, **sweep_options: Any
) -> Table:
    """Short simulations of the grasp (:func:`~contactcp.scenarios.buffo2006_steps.advance_grasp`, the
    cone law) over friction values x squeeze forces (N): the final time, modes (code 3: separated),
    the sphere's drop and vertical velocity, and ``held`` (every contact rolling at the end)."""
    if state not in ("rolling", "sliding"):
        raise InvalidProblemError("state", f"must be 'rolling' or 'sliding', got {state!r}")
    pts = grid(mu=vector(mus, "mus"), squeeze=vector(squeezes, "squeezes"))
    sweep_options.setdefault("desc", "grasp ensemble")
    return sweep(functools.partial(_ensemble_point, int(steps), number(dt, "dt"), state), pts, **sweep_options)

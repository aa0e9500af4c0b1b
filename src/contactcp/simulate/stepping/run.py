"""Run the Moreau–Jean time stepper over an interval: :func:`simulate`.

>>> from contactcp.models.scene import Scene
>>> scene = Scene()
>>> scene.add_fixed("floor", {"type": "plane"}, friction=0.5)
>>> _ = scene.add_body("box", {"type": "box", "size": [0.1, 0.1, 0.1]}, mass=1.0, placement={"p": [0, 0, 0.05]})
>>> traj = simulate(scene, duration=0.1, dt=0.001)
>>> traj.status.name, traj.failed_steps, len(traj.t)
('SOLVED', 0, 101)
>>> bool(abs(traj.body("box")[0][-1, 2] - 0.05) < 1e-9)  # the box rests: no sinking, no drift
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from contactcp._validate import check_memory, number
from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.linalg.blas_threads import one_blas_thread
from contactcp.models.scene.detect import DEFAULT_MARGIN
from contactcp.models.scene.scene import Scene
from contactcp.result import Status
from contactcp.simulate.stepping.bodyshapes import scene_shapes
from contactcp.simulate.stepping.moreau_jean import Scheme
from contactcp.simulate.stepping.substeps import advance_certified
from contactcp.simulate.stepping.systems import LinearSystem, SceneSystem
from contactcp.simulate.stepping.trajectory import Trajectory

__all__ = ["simulate", "pd_efforts"]


def _steps(duration: Any, dt: Any) -> tuple[int, float]:
    duration, dt = number(duration, "duration"), number(dt, "dt")
    if not dt > 0:
        raise InvalidOptionError("dt", f"must be a positive number of seconds, got {dt!r}")
    if not duration >= 0:
        raise InvalidOptionError("duration", f"must be >= 0 seconds, got {duration!r}")
    ratio = duration / dt
    if not ratio <= 1e8:
        raise InvalidOptionError("duration", f"{ratio:.3g} steps of {dt:g} s: more than 1e8 steps")
    return math.ceil(ratio - 1e-9), dt


def simulate(
    system: Any,
    duration: float,
    dt: float,
    restitution: float | None = None,
    margin: float = DEFAULT_MARGIN,
    efforts: Any = None,
    scheme: Scheme | None = None,
    stop_on_failure: bool = False,
    progress: Callable[[int, int], None] | None = None,
    name: str | None = None,
    **scheme_options: Any,
) -> Trajectory:
    """Simulate ``system`` (a :class:`~contactcp.models.scene.Scene`, a
    :class:`~contactcp.simulate.stepping.systems.SceneSystem` or a
    :class:`~contactcp.simulate.stepping.systems.LinearSystem`) from its state for ``duration``
    seconds in steps of ``dt`` by the Moreau–Jean scheme
    (:mod:`~contactcp.simulate.stepping.moreau_jean`; ``scheme`` or its fields as keywords:
    ``theta``, ``gamma``, ``activation_gap``, ``projection``, ``tol``, ...).

    For a scene: ``restitution`` is the coefficient of pairs the scene sets none for (default 0),
    ``margin`` the detection margin (m), ``efforts`` the joint efforts (an array, or a callable
    ``(t, q, v) -> tau``; default the scene's ``tau``).  The scene is left in the final state.
    ``progress(k, n)`` is called after each step.  The last step ends at or just after
    ``duration`` (a whole number of steps).  A state that stops being finite ends the run.  A step
    whose problem is not certified is taken again in sub-steps (``scheme.max_halvings``,
    :mod:`~contactcp.simulate.stepping.substeps`); if they do not certify either, it is counted in
    ``failed_steps`` (the run goes on from its best point unless ``stop_on_failure``).  BLAS runs
    on one thread meanwhile, so that the trajectory does not depend on the caller's thread settings.
    """
    if scheme is None:
        unknown = sorted(set(scheme_options) - set(Scheme.__dataclass_fields__))
        if unknown:
            raise InvalidOptionError(
                unknown[0], f"unknown option; the scheme's are {sorted(Scheme.__dataclass_fields__)}"
            )
        scheme = Scheme(**scheme_options)
    elif scheme_options:
        raise InvalidOptionError("scheme", "give either a Scheme or its fields as keywords, not both")
    n, dt = _steps(duration, dt)
    if isinstance(system, Scene):
        label = system.name
        system = SceneSystem(system, margin, 0.0 if restitution is None else restitution, efforts)
    elif isinstance(system, (SceneSystem, LinearSystem)):
        label = type(system).__name__
        for field, value in (("restitution", restitution), ("efforts", efforts)):
            if value is not None:
                raise InvalidOptionError(field, "is set on the SceneSystem or LinearSystem itself")
    else:
        raise InvalidProblemError(
            "system", f"must be a Scene, SceneSystem or LinearSystem, got {type(system).__name__}"
        )
    if progress is not None and not callable(progress):
        raise InvalidOptionError("progress", "must be a callable (k, n)")
    scheme.check_method(system.dim)
    q, v = system.initial_state()
    nb = len(system.body_names)
    # the arrays and one record of a few contacts per step
    check_memory((n + 1) * 8.0 * (system.nq + system.nv + 7 * nb + 2) + n * 2000.0, "duration", f"{n} steps")
    t = np.arange(n + 1) * dt
    Q, V = np.zeros((n + 1, system.nq)), np.zeros((n + 1, system.nv))
    pos, quat = np.zeros((n + 1, nb, 3)), np.zeros((n + 1, nb, 4))
    energy = np.zeros(n + 1)
    Q[0], V[0], energy[0] = q, v, system.energy(q, v)
    pos[0], quat[0] = system.poses(q)
    steps: list = []
    start = time.perf_counter()
    with one_blas_thread():  # the answer must not depend on the caller's BLAS threads (and is faster)
        q, v, stopped = _run(system, scheme, t, dt, q, v, (Q, V, pos, quat, energy), steps, progress, stop_on_failure)
    wall = time.perf_counter() - start
    m = len(steps) + 1
    if isinstance(system, SceneSystem):
        system.scene.q, system.scene.v = q.copy(), v.copy()
    return Trajectory(
        name if name is not None else label,
        dt,
        scheme,
        t[:m],
        Q[:m],
        V[:m],
        list(system.body_names),
        pos[:m],
        quat[:m],
        energy[:m],
        steps,
        wall,
        stopped,
        scene_shapes(system.scene) if isinstance(system, SceneSystem) else [],
    )


def _run(system, scheme, t, dt, q, v, out, steps, progress, stop_on_failure):
    """The steps of :func:`simulate` into ``out = (Q, V, pos, quat, energy)`` and ``steps``:
    ``(q, v, stopped)`` at the end."""
    Q, V, pos, quat, energy = out
    n = t.size - 1
    memory: dict = {}
    for k in range(n):
        with np.errstate(all="ignore"):  # a run-away state is reported below, not warned about
            q, v, record = advance_certified(system, float(t[k]), q, v, dt, scheme, memory)
            e = system.energy(q, v) if np.all(np.isfinite(q)) and np.all(np.isfinite(v)) else np.nan
        steps.append(record)
        Q[k + 1], V[k + 1], energy[k + 1] = q, v, e
        if not np.isfinite(e):
            record.status = Status.NUMERICAL_FAILURE
            record.notes.append("the state (or its energy) is no longer finite: the run stops")
            return q, v, True
        pos[k + 1], quat[k + 1] = system.poses(q)
        if progress is not None:
            progress(k + 1, n)
        if stop_on_failure and not record.success:
            return q, v, True
    return q, v, False


def pd_efforts(
    scene: Scene, targets: dict[str, Any], kp: float, kd: float, feedforward: Any = None
) -> Callable[[float, np.ndarray, np.ndarray], np.ndarray]:
    """Joint efforts of a PD controller: ``tau_j = kp (target_j(t) - q_j) - kd v_j (+ feedforward)``
    for the named one-degree-of-freedom joints, ``targets`` ``{joint: position or callable t ->
    position}``; other joints get the feedforward (an array, a callable ``(t, q, v)``, or zero)."""
    kp, kd = number(kp, "kp"), number(kd, "kd")
    if kp < 0 or kd < 0:
        raise InvalidOptionError("kp", f"gains must be >= 0, got kp={kp!r}, kd={kd!r}")
    joints = []
    for name, target in targets.items():
        j = scene.joint(name)
        if j.free or j.q.stop - j.q.start != 1 or j.v.stop - j.v.start != 1:
            raise InvalidOptionError("targets", f"joint {name!r} is not a one-degree-of-freedom robot joint")
        joints.append((j.q.start, j.v.start, target if callable(target) else (lambda t, x=number(target, name): x)))
    nv = scene.model.nv

    def efforts(t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        if callable(feedforward):
            tau = np.array(feedforward(t, q, v), dtype=float)
        else:
            tau = np.zeros(nv) if feedforward is None else np.array(feedforward, dtype=float)
        for iq, iv, target in joints:
            tau[iv] += kp * (target(t) - q[iq]) - kd * v[iv]
        return tau

    return efforts

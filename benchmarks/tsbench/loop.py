"""The stepping loop of every worker, whatever the simulator (numpy only).

A simulator adapter (``peer_*.Peer``) has ``step()`` (one step of ``dt``), ``state()`` (world
positions (nb, 3), quaternions (nb, 4: w, x, y, z), linear and angular velocities (nb, 3) of the body
frames), ``contacts()`` (the contacts of the last step), ``failed()`` (whether the simulator said the
last step failed), ``ground_force()`` (the vertical force of the floor on the bodies at the last
step, N, or None) and ``info`` (a dict of what it ran).  A step that raises ends the run with the
steps done so far (``meta["stopped"]`` says why).  The loop records the state after every step
and times the ``step()`` calls only, in CPU time (``time.process_time``; also their wall time,
``time.perf_counter``, for the real-time factor), stopping early when their CPU sum passes ``budget``
seconds.
"""

from __future__ import annotations

import time

import numpy as np


def run(peer, steps: int, budget: float) -> dict:
    """Step ``peer`` ``steps`` times (or until ``budget`` CPU seconds); the arrays and counts."""
    pos, quat, lin, ang = peer.state()
    nb = pos.shape[0]
    out = {key: np.zeros((steps + 1, nb, dim)) for key, dim in (("pos", 3), ("quat", 4), ("lin", 3), ("ang", 3))}
    for key, value in zip(("pos", "quat", "lin", "ang"), (pos, quat, lin, ang)):
        out[key][0] = value
    contacts = np.zeros(steps, dtype=np.int64)
    cpu, wall, failed, done, stopped = 0.0, 0.0, 0, 0, None
    for k in range(steps):
        start, wall_start = time.process_time(), time.perf_counter()
        try:
            peer.step()
        except Exception as exc:  # noqa: BLE001 - a simulator giving up is a result: the steps done are kept
            stopped = f"stopped at step {k + 1}: {type(exc).__name__}: {str(exc)[:200]}"
            break
        cpu += time.process_time() - start
        wall += time.perf_counter() - wall_start
        for key, value in zip(("pos", "quat", "lin", "ang"), peer.state()):
            out[key][k + 1] = value
        contacts[k] = peer.contacts()
        failed += int(peer.failed())
        done = k + 1
        if not np.all(np.isfinite(out["pos"][k + 1])) or cpu > budget:
            break
    for key in ("pos", "quat", "lin", "ang"):
        out[key] = out[key][: done + 1]
    out["contacts"] = contacts[:done]
    out["meta"] = {"cpu": cpu, "wall": wall, "steps": done, "failed_steps": failed, "ground_force": peer.ground_force()}
    if stopped:
        out["meta"]["stopped"] = stopped
    return out

"""contactcp's Moreau–Jean stepper as a benchmark peer.

The scene is rebuilt by contactcp itself (``spec["factory"]`` of ``contactcp.scenarios.timestepping``,
or of ``spec["module"]``, with ``spec["margin"]`` when given: the grasp); one step is
:func:`contactcp.simulate.stepping.substeps.advance_certified` (``advance``, taken again in halves
when not certified) with the default :class:`~contactcp.simulate.stepping.Scheme` and a memory
carried from step to step, the loop of :func:`contactcp.simulate.stepping.simulate` without its
trajectory arrays.  Setting ``default`` (the only one).  The warm-up (untimed) runs three
small scenes (the last a six-box stack, for the global form's band factorisation; three
steps of the grasp itself; for a pile, :data:`PILE_WARMUP` of a pile of the same size and the next
seed, then three steps of the pile itself) so that the numba kernels are compiled or loaded from
their cache, and the modules the steps import are imported, before the timing (on a 25-box pile
the first 150 steps took 0.13 s with the three small scenes alone, 0.075 s after a first pile: a
script).  The state recorded is that of the spec's bodies (the grasp: the sphere only).
"""

from __future__ import annotations

import importlib

import numpy as np
import pinocchio as pin

from contactcp._version import __version__
from contactcp.models.scene.detect import DEFAULT_MARGIN
from contactcp.models.scene.scene import WORLD
from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import SceneSystem, Scheme, simulate
from contactcp.simulate.stepping.substeps import advance_certified

#: seconds of the warm-up's pile (its lowest layer lands within 0.05 s, the next ones by 0.3 s)
PILE_WARMUP = 0.3


class Peer:
    """See the module docstring."""

    def __init__(self, spec: dict, setting: str, dt: float):
        simulate(ts.box_stack(2), 0.003, dt)  # warm-up: friction cones, LCPs, projection
        simulate(ts.box_stack(6), 0.002, dt)  # and the global form's band factorisation
        simulate(ts.bouncing_ball(), 0.5, 0.01)
        module = importlib.import_module(f"contactcp.scenarios.{spec['module']}") if "module" in spec else ts
        margin = spec.get("margin", DEFAULT_MARGIN)
        if "module" in spec:  # the grasp: its sphere-sphere contacts and robot joints
            simulate(getattr(module, spec["factory"])(**spec["kwargs"]), 3 * dt, dt, margin=margin)
        if spec["factory"] == "box_pile":  # a pile of another seed, landed: every kernel and module a
            # pile's steps use is loaded before the timing (else the first steps load them); then
            # three steps of the pile itself (its first steps' residual kernels took three more
            # signatures from the cache, 21 ms in the timed steps: a script logging numba's loads)
            kwargs = dict(spec["kwargs"], seed=spec["kwargs"].get("seed", 0) + 1)
            simulate(ts.box_pile(**kwargs), PILE_WARMUP, dt)
            simulate(ts.box_pile(**spec["kwargs"]), 3 * dt, dt)
        scene = getattr(module, spec["factory"])(**spec["kwargs"])
        self.system = SceneSystem(scene, margin)
        self.scheme = Scheme()
        self.q, self.v = self.system.initial_state()
        self.dt, self.t, self.memory, self.record = dt, 0.0, {}, None
        names = [b["name"] for b in spec["bodies"]]
        self.index = [self.system.body_names.index(b) for b in names]
        self.slices = [scene.joint(b).v for b in names]
        self.info = {"version": __version__, "scheme": repr(self.scheme)}
        # the worker runs this peer only: a run-away state is the stepper's to report (as simulate's
        # loop does under np.errstate), not numpy's to warn about; set once, not around each step
        np.seterr(all="ignore")

    def step(self) -> None:
        self.q, self.v, self.record = advance_certified(
            self.system, self.t, self.q, self.v, self.dt, self.scheme, self.memory
        )
        self.t += self.dt

    def state(self):
        pos, quat = self.system.poses(self.q)
        pos, quat = pos[self.index], quat[self.index]
        lin, ang = np.zeros_like(pos), np.zeros_like(pos)
        for i, s in enumerate(self.slices):
            R = pin.Quaternion(*quat[i]).toRotationMatrix()  # (w, x, y, z)
            lin[i], ang[i] = R @ self.v[s][:3], R @ self.v[s][3:]
        return pos, quat, lin, ang

    def contacts(self) -> int:
        """The active contacts of the last step (those in its impulse problem)."""
        return int(np.count_nonzero(self.record.active))

    def failed(self) -> bool:
        return not self.record.success

    def ground_force(self) -> float | None:
        r = self.record
        if r is None:
            return None
        z = 0.0
        for j, (a, b) in enumerate(r.bodies):
            if WORLD in (a, b):
                z += (1.0 if b == WORLD else -1.0) * r.impulse_world[j, 2]
        return float(z / self.dt)

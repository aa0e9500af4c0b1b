"""A small three-dimensional step in one compiled call (moreau_jean._advance_local, local_kernels):
the same trajectory, statuses, modes and sweeps as the general path it replaces, on the scenes
whose steps it takes (a grasp, boxes sticking and sliding, a bouncing ball, a two-box stack), and
the general path for what it leaves (no warm start, an uncertified NSGS)."""

import importlib

import numpy as np
import pytest

from contactcp.scenarios.timestepping import bouncing_ball, box_stack, slope_box
from contactcp.scenarios.timestepping_robots import PUMA_MARGIN, puma_grasp
from contactcp.simulate.stepping import SceneSystem, Scheme
from contactcp.simulate.stepping.memory import LAST_STEP, last_impulses
from contactcp.simulate.stepping.substeps import advance_certified

MJ = importlib.import_module("contactcp.simulate.stepping.moreau_jean")


def _run(system, steps, h, scheme):
    q, v = system.initial_state()
    memory, out = {}, []
    for k in range(steps):
        q, v, rec = advance_certified(system, k * h, q, v, h, scheme, memory)
        out.append((q.copy(), v.copy(), rec))
    return out


def _both(make, steps, h=1e-3, scheme=None, monkeypatch=None):
    scheme = scheme or Scheme()
    taken = []
    compiled = MJ._advance_local

    def counting(*args):
        got = compiled(*args)
        taken.append(got[0] is not None)
        return got

    monkeypatch.setattr(MJ, "_advance_local", counting)
    fast = _run(make(), steps, h, scheme)
    monkeypatch.setattr(MJ, "_advance_local", lambda *args: (None, None, None))  # the general path only
    general = _run(make(), steps, h, scheme)
    return fast, general, taken


SCENES = {
    "grasp": (lambda: SceneSystem(puma_grasp(mu=0.4), PUMA_MARGIN), 200, 1e-3),
    "grasp_slips": (lambda: SceneSystem(puma_grasp(mu=0.1), PUMA_MARGIN), 150, 1e-3),
    "sticks": (lambda: SceneSystem(slope_box(0.5, direction=35.0)), 300, 1e-3),
    "slides": (lambda: SceneSystem(slope_box(0.3, direction=60.0)), 300, 1e-3),
    "ball": (lambda: SceneSystem(bouncing_ball(), restitution=0.9), 700, 2e-3),
    "stack": (lambda: SceneSystem(box_stack(2)), 200, 1e-3),
}


@pytest.mark.parametrize("name", sorted(SCENES))
def test_the_compiled_step_is_the_general_step(name, monkeypatch):
    make, steps, h = SCENES[name]
    fast, general, taken = _both(make, steps, h, monkeypatch=monkeypatch)
    assert sum(taken) >= 0.85 * steps  # the compiled step took most steps (a slipping grasp: 134 of 150)
    scale = max(1.0, max(np.abs(g[0]).max() for g in general))
    for (q1, v1, a), (q2, v2, b) in zip(fast, general):
        assert np.abs(q1 - q2).max() <= 1e-11 * scale
        assert np.abs(v1 - v2).max() <= 1e-9 * max(1.0, np.abs(v2).max())
        assert a.status is b.status and a.success
        assert a.keys == b.keys and np.array_equal(a.active, b.active)
        assert np.array_equal(a.mode, b.mode) and a.transitions == b.transitions
        assert a.projected == b.projected and a.method == b.method
        assert abs(a.iterations - b.iterations) <= 2  # NSGS sweeps: the same start, rounding apart
        assert a.residual <= 1e-10 and np.abs(a.impulse - b.impulse).max(initial=0) <= 1e-9 * max(
            1e-3, np.abs(b.impulse).max(initial=0)
        )


def _parts(system, q, v, h):
    M, f = system.dynamics(0.0, q, v)
    return M, f, system.contacts(q, v, h)


def _local(system, q, v, scheme, memory):
    """The compiled step's answer, ``(q1, v1, record)`` or None."""
    M, f, C = _parts(system, q, v, 1e-3)
    return MJ._advance_local(system, 0.0, q, v, 1e-3, scheme, memory, M, f, C, last_impulses(C, memory))[0]


def test_what_the_compiled_step_leaves_to_the_general_path(monkeypatch):
    # no last impulses (the first step), too many unknowns, an NSGS that cannot certify in its
    # sweeps: None, and advance takes the step the general way, certified all the same
    system = SceneSystem(slope_box(0.5))
    q, v = system.initial_state()
    memory: dict = {}
    assert _local(system, q, v, Scheme(), memory) is None
    for k in range(3):
        q, v, rec = MJ.advance(system, k * 1e-3, q, v, 1e-3, Scheme(), memory)
        assert rec.success
    before = dict(memory)
    assert _local(system, q, v, Scheme(), memory) is not None
    memory.clear()
    memory.update(before)
    monkeypatch.setattr(MJ, "_LOCAL_COUNTS", (3, 50, 10, 2))  # four contacts, 12 unknowns
    assert _local(system, q, v, Scheme(), memory) is None
    monkeypatch.setattr(MJ, "_LOCAL_COUNTS", (60, 1, 10, 2))
    scheme = Scheme(tol=1e-15)  # one sweep from a start off by rounding: not within 1e-15
    last = before[LAST_STEP]
    memory = {LAST_STEP: last._replace(impulse=last.impulse * 1.01)}
    assert _local(system, q, v, scheme, memory) is None


def test_hit_contacts_within_the_tolerance_of_their_targets_are_not_corrected():
    """The compiled step's rule (that of the general path): the least squares runs only when some
    hit contact's predicted gap is more than ``projection_tol`` from its target."""
    from contactcp.simulate.stepping.impact_kernels import off_target

    target, g_pred = np.array([0.0, 0.0, 2e-6]), np.array([3e-16, -5e-11, 2e-6 - 1e-11])
    hits = np.array([0, 1, 2])
    assert not off_target(hits, target, g_pred, 1e-10)
    g_pred[1] = -2e-10
    assert off_target(hits, target, g_pred, 1e-10) and not off_target(np.array([0, 2]), target, g_pred, 1e-10)

"""The papers' robot scenes under the time stepper (contactcp.scenarios.timestepping_robots).

Buffo & Maciel's three-PUMA grasp is held at rest by its equilibrium efforts and slips below the
least friction its forces need; Yashima & Yamaguchi's hand starts in the mode its map predicts.
"""

import math

import numpy as np
import pytest

from contactcp.analysis.modemap import MODE_CLASSES
from contactcp.cli.simulate import SCENES, _scene
from contactcp.errors import InvalidProblemError
from contactcp.experiments.timestepping_robots import hand_class, sphere_drift
from contactcp.scenarios import timestepping_robots as tr
from contactcp.scenarios.yashima import hand_states
from contactcp.simulate.stepping import simulate

H = 1e-3
MU_MIN = 9.81 / ((2 + 2 * math.cos(math.pi / 4)) * tr.PUMA_SQUEEZE)  # m g / ((2 + 2 cos sigma) squeeze)


def test_grasp_equilibrium_forces():
    scene = tr.puma_grasp(0.4)
    eq = tr.grasp_equilibrium(scene)
    f = eq["forces"]
    # normals 20, 20, 2 cos(45 deg) 20 balance in the plane; each contact carries the weight in proportion
    assert np.allclose(f[:, 0], [20.0, 20.0, 20.0 * math.sqrt(2.0)], rtol=1e-12)
    assert np.allclose(eq["ratio"], MU_MIN, rtol=1e-12)
    assert abs(tr.min_friction() - MU_MIN) < 1e-12
    assert np.allclose(scene.tau, eq["tau"]) and np.all(scene.tau[scene.joint("sphere").v] == 0)
    # the file's stored efforts carry c_des = (20, 0, m g / 3) at every contact: no equilibrium
    stored = tr.puma_grasp(0.4, efforts="stored")
    assert np.abs(stored.tau - scene.tau).max() > 1.0


def test_puma_grasp_held():
    traj = simulate(tr.puma_grasp(0.4), 0.1, H, margin=tr.PUMA_MARGIN)
    assert traj.success and traj.failed_steps == 0
    assert sphere_drift(traj) < 1e-9
    counts = traj.mode_counts()
    assert counts["sticking"] == 3 * len(traj.steps) and sum(counts.values()) == counts["sticking"]
    last = traj.steps[-1]
    assert np.allclose(np.sort(last.impulse[:, 0] / H), [20.0, 20.0, 20.0 * math.sqrt(2.0)], rtol=1e-6)


def test_puma_grasp_slips_below_the_least_friction():
    traj = simulate(tr.puma_grasp(tr.PUMA_SLIP_MU), 0.1, H, margin=tr.PUMA_MARGIN)
    assert traj.failed_steps == 0
    assert list(traj.steps[0].mode) == [2, 2, 2]  # all sliding from the first step
    z = traj.body("sphere")[0][:, 2]
    # friction holds at most mu (2 + sqrt 2) 20 N = 6.8 N of the 9.81 N weight: it slides down
    assert z[0] - z[-1] > 5e-3
    a0 = 2 * (z[0] - z[10]) / (10 * H) ** 2  # its first 10 ms: about g - mu (2 + sqrt 2) squeeze / m
    assert 0.5 * (9.81 - 6.83) < a0 < 9.81


@pytest.mark.parametrize("factor, held", [(1.01, True), (0.99, False)])
def test_puma_grasp_threshold(factor, held):
    traj = simulate(tr.puma_grasp(factor * MU_MIN), 0.02, H, margin=tr.PUMA_MARGIN)
    assert list(traj.steps[0].mode) == ([1, 1, 1] if held else [2, 2, 2])
    drop = traj.body("sphere")[0][0, 2] - traj.body("sphere")[0][-1, 2]
    assert (drop < 1e-9) if held else (drop > 1e-6)


@pytest.mark.parametrize("predicted", list(tr.HAND_CASES))
def test_yashima_hand_first_step_is_the_maps_mode(predicted):
    t1, t2 = tr.HAND_CASES[predicted]
    ref = hand_states(np.array([t1]), np.array([t2]), mu=0.4)
    assert MODE_CLASSES[int(ref["cls"][0])] == predicted
    scene = tr.yashima_hand(0.4, t1, t2)
    o = scene.joint("object").v.start
    traj = simulate(scene, 0.01, H)
    assert traj.failed_steps == 0
    assert hand_class(traj.steps[0]) == predicted
    # the object's first-step acceleration is the map's (a_x, a_z, alpha) to O(h)
    acc = ((traj.v[1] - traj.v[0]) / H)[[o, o + 1, o + 5]]
    want = np.array([ref["a_x"][0], ref["a_z"][0], ref["alpha"][0]])
    assert np.abs(acc - want).max() < 0.05 * np.abs(want).max()


def test_yashima_hand_stays_planar_and_rolls_up():
    scene = tr.yashima_hand(0.4, 3.0, 3.0)
    traj = simulate(scene, 0.05, H)
    p = traj.body("object")[0]
    assert np.abs(p[:, 2]).max() < 1e-9  # no motion out of the plane
    assert {hand_class(s) for s in traj.steps} == {"RR"}
    # a_z = 1.0965 m/s^2 from the map: the object rises by about a_z t^2 / 2
    assert abs((p[-1, 1] - p[0, 1]) / (0.5 * 1.0965 * 0.05**2) - 1) < 0.05


def test_yashima_hand_rejects_bad_input():
    with pytest.raises(InvalidProblemError, match="mu"):
        tr.yashima_hand(-1.0)
    with pytest.raises(InvalidProblemError, match="nope"):
        tr.yashima_hand(0.4, nope=1.0)
    with pytest.raises(InvalidProblemError, match="efforts"):
        tr.puma_grasp(0.4, efforts="nope")


def test_cli_names():
    for name in ("puma-grasp", "puma-grasp-slip", "yashima-hand", "yashima-hand-rs"):
        assert name in SCENES
    scene, margin = _scene("puma-grasp-slip")
    assert scene.default_friction == tr.PUMA_SLIP_MU and margin == tr.PUMA_MARGIN
    scene, _ = _scene("yashima-hand")
    assert "object" in scene.bodies

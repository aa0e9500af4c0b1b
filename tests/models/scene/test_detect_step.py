"""The time step's contacts in two compiled passes (detect_step) against the detection and the contact
Jacobian they fuse (detect.contact_set, dynamics.contact_jacobian): the same rows to the bit, on free
bodies, robot links and pairs left to coal; and the margin that grows with the speed."""

import importlib

import numpy as np
import pinocchio as pin
import pytest

from contactcp.models.scene import Scene
from contactcp.models.scene.detect_step import step_contacts
from contactcp.models.scene.dynamics import contact_jacobian
from contactcp.scenarios.timestepping import box_pile
from contactcp.scenarios.timestepping_robots import PUMA_MARGIN, puma_grasp, yashima_hand
from contactcp.simulate.stepping import SceneSystem, simulate

D = importlib.import_module("contactcp.models.scene.detect")


def _capsule_and_boxes() -> Scene:
    s = Scene()
    s.add_fixed("floor", {"type": "plane"}, friction=0.4)
    s.add_body("capsule", {"type": "capsule", "radius": 0.05, "length": 0.3}, 1.0, {"p": [0, 0, 0.0505]})
    s.add_body("box", {"type": "box", "size": [0.1, 0.1, 0.1]}, 1.0, {"p": [0.3, 0.0, 0.0502], "rpy": [0, 0, 0.3]})
    return s


def _settled_pile() -> Scene:
    scene = box_pile(12, seed=2)
    tr = simulate(scene, 0.25, 1e-3)
    scene.q, scene.v = tr.q[-1].copy(), tr.v[-1].copy()
    return scene


SCENES = {
    "pile": _settled_pile,
    "grasp": puma_grasp,
    "hand": yashima_hand,
    "coal": _capsule_and_boxes,
}


@pytest.mark.parametrize("which", sorted(SCENES))
def test_step_contacts_are_the_detection_and_its_jacobian_to_the_bit(which):
    scene = SCENES[which]()
    margin = PUMA_MARGIN if which == "grasp" else 2e-3
    system = SceneSystem(scene, margin)
    speed = (system._g_first, system._g_arm, system._other_joints, system._other_arms)
    v = np.zeros(scene.model.nv)  # at rest the margin is the system's own
    names, bodies, points, frames, gap, mu, H, blocks = step_contacts(scene, v, 1e-3, margin, speed)
    want = D.contact_set(scene, margin)
    assert len(want) > 0 and names == want.names and bodies == want.bodies
    for got, ref in ((points, want.points), (frames, want.frames), (gap, want.gap), (mu, want.mu)):
        assert got.shape == ref.shape and np.array_equal(got, ref)
    assert np.array_equal(H, contact_jacobian(scene, want)[0])
    # blocks: for free bodies only (the pile), every entry of H in its contact's sides' 6 rows
    assert (blocks is None) == (which != "pile")
    if blocks is not None:
        inside = np.zeros(H.shape, dtype=bool)
        for j, sides in enumerate(blocks):
            for r0 in sides[sides >= 0]:
                inside[r0 : r0 + 6, 3 * j : 3 * j + 3] = True
        assert blocks.shape == (len(names), 2) and not H[~inside].any() and (blocks >= 0).any()


def test_a_moving_scene_looks_as_far_as_its_fastest_point_can_go_in_two_steps():
    # a box 4 mm above the floor: beyond the 1 mm margin at rest; falling at 1.4 m/s it can close
    # 2.8 mm in two steps of 1 ms, and its corners turning at 10 rad/s add 1.7 mm more
    s = Scene()
    s.add_fixed("floor", {"type": "plane"})
    s.add_body("box", {"type": "box", "size": [0.1, 0.1, 0.1]}, 1.0, {"p": [0.0, 0.0, 0.054]})
    system = SceneSystem(s, 1e-3)
    speed = (system._g_first, system._g_arm, system._other_joints, system._other_arms)
    assert step_contacts(s, np.zeros(6), 1e-3, 1e-3, speed)[0] == []
    v = np.zeros(6)
    v[2] = -1.4
    assert step_contacts(s, v, 1e-3, 1e-3, speed)[0] == []  # 1 + 2.8 mm < 4 mm
    v[5] = 10.0  # the reach of the box's corners, 87 mm, at 10 rad/s: 0.87 m/s more
    names, _, _, _, gap, _, H, blocks = step_contacts(s, v, 1e-3, 1e-3, speed)
    assert len(names) == 4 and np.allclose(gap, 0.004, atol=1e-12) and H.shape == (6, 12)
    assert np.array_equal(blocks, [[0, -1]] * 4)  # the box's rows 0-5, the floor's none


def test_robot_links_at_moved_joints_agree_with_pinocchio():
    scene = puma_grasp()
    rng = np.random.default_rng(5)
    system = SceneSystem(scene, 0.5)  # a wide margin: the links' pairs near each other are found
    speed = (system._g_first, system._g_arm, system._other_joints, system._other_arms)
    for _ in range(3):
        scene.q = pin.integrate(scene.model, puma_grasp().q, 0.05 * rng.normal(size=scene.model.nv))
        names, bodies, points, frames, gap, mu, H, blocks = step_contacts(
            scene, np.zeros(scene.model.nv), 1e-3, 0.5, speed
        )
        assert blocks is None  # robot links: their columns follow the joints
        want = D.contact_set(scene, 0.5)
        assert names == want.names and np.array_equal(points, want.points)
        assert np.array_equal(H, contact_jacobian(scene, want)[0])


def test_the_kept_plan_follows_the_scenes_friction_exclusions_and_bodies():
    """What step_contacts reads of the scene's structure is kept between steps, and gathered again
    when the friction, the excluded pairs or the bodies change (each answer is the detection's)."""
    s = _capsule_and_boxes()
    system = SceneSystem(s, 2e-3)
    speed = (system._g_first, system._g_arm, system._other_joints, system._other_arms)

    def ask():
        got = step_contacts(s, np.zeros(s.model.nv), 1e-3, 2e-3, speed)
        want = D.contact_set(s, 2e-3)
        assert got[0] == want.names and np.array_equal(got[5], want.mu)
        return got

    names = ask()[0]
    assert len(names) == 5 and s._step_plan is not None
    kept = s._step_plan
    ask()
    assert s._step_plan is kept  # nothing changed: the same plan
    s.pair_friction[frozenset(("box", "world"))] = 0.3
    mu = ask()[5]
    assert s._step_plan is not kept and mu.tolist() == [1.0, 0.3, 0.3, 0.3, 0.3]
    s.excluded.add(frozenset(("box", "world")))
    assert ask()[0] == ["capsule/floor"]
    s.add_body("ball", {"type": "sphere", "radius": 0.05}, 1.0, {"p": [-0.3, 0.0, 0.0501]})
    system = SceneSystem(s, 2e-3)
    speed = (system._g_first, system._g_arm, system._other_joints, system._other_arms)
    assert len(ask()[0]) == 2

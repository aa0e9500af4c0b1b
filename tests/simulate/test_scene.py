"""Detect-and-solve on scenes, each answer checked against statics or dynamics worked out here."""

import numpy as np
import pinocchio as pin
import pytest

from contactcp.io.scene_files import example_scene, load_scene
from contactcp.models.scene import Scene
from contactcp.result import Status
from contactcp.simulate.scene import solve_scene

G = 9.81


def _body_balance(out, body, mass, g=(0.0, 0.0, -G)):
    """Net force and net torque (about the body origin) on ``body``: contacts plus weight."""
    scene = out.scene
    origin = scene.placement(body).translation
    F, T = mass * np.asarray(g), np.zeros(3)
    for c in out.contacts:
        sign = 1.0 if c.bodies[0] == body else -1.0 if c.bodies[1] == body else 0.0
        F = F + sign * c.force_world
        T = T + sign * np.cross(c.point - origin, c.force_world)
    return F, T


@pytest.mark.parametrize("friction", ["pyramid", "cone"])
def test_box_on_a_plane_rests_and_its_weight_is_carried(friction):
    # the balances below to 1e-9 N of a 9.81 N weight: asked of the solver (tol relative to ||q||)
    out = solve_scene(load_scene(example_scene("box_on_plane.xml"))[0], friction=friction, tol=1e-11)
    assert out.status is Status.SOLVED
    assert [c.mode for c in out.contacts] == ["rolling"] * 4
    F, T = _body_balance(out, "box", 1.0)
    np.testing.assert_allclose(F, 0.0, atol=1e-9)
    np.testing.assert_allclose(T, 0.0, atol=1e-9)
    np.testing.assert_allclose(out.accelerations, 0.0, atol=1e-9)
    for c in out.contacts:  # world force = frame @ contact-frame force, normal first
        np.testing.assert_allclose(c.force_world, c.frame @ c.force)
        limit = np.abs(c.force[1:]).max() if friction == "pyramid" else np.linalg.norm(c.force[1:])
        assert c.force[0] >= -1e-12 and limit <= 0.5 * c.force[0] * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize("friction", ["pyramid", "cone"])
def test_sphere_rolls_down_the_slope_at_five_sevenths_g_sin_theta(friction):
    out = solve_scene(load_scene(example_scene("sphere_on_slope.xml"))[0], friction=friction)
    assert out.status is Status.SOLVED
    (c,) = out.contacts
    th, m = np.radians(20.0), 0.5
    assert c.mode == "rolling"
    assert c.force[0] == pytest.approx(m * G * np.cos(th), rel=1e-9)
    assert np.linalg.norm(c.force[1:]) == pytest.approx(2 / 7 * m * G * np.sin(th), rel=1e-9)
    # the ball's centre accelerates down the slope at 5/7 g sin(theta): free-flyer velocity is local
    scene = out.scene
    R = scene.placement("ball").rotation
    a_world = R @ out.accelerations[:3]
    down = np.array([np.cos(th), 0.0, -np.sin(th)])  # the slope is turned +20 deg about y: n = (sin, 0, cos)
    np.testing.assert_allclose(a_world, 5 / 7 * G * np.sin(th) * down, atol=1e-9)


@pytest.mark.parametrize("mu", [0.1, 0.3])
def test_box_slides_down_a_steep_slope_at_g_sin_minus_mu_cos(mu):
    th = np.radians(30.0)
    s = Scene()
    s.add_fixed("slope", {"type": "plane"}, {"rpy": [0, th, 0]}, friction=mu)
    n = np.array([np.sin(th), 0.0, np.cos(th)])
    box = {"type": "box", "size": [0.2, 0.2, 0.2]}
    s.add_body("box", box, 2.0, {"p": (0.1 * n).tolist(), "rpy": [0, th, 0]}, friction=mu)
    out = solve_scene(s, friction="cone")
    assert out.status is Status.SOLVED and {c.mode for c in out.contacts} == {"sliding"}
    F, _ = _body_balance(out, "box", 2.0)
    down = np.array([np.cos(th), 0.0, -np.sin(th)])
    np.testing.assert_allclose(F / 2.0, G * (np.sin(th) - mu * np.cos(th)) * down, atol=1e-8)
    normal = sum(c.force[0] for c in out.contacts)
    assert normal == pytest.approx(2.0 * G * np.cos(th), rel=1e-9)


def test_a_push_below_the_friction_limit_is_resisted_in_the_world_frame():
    """A +x push of 3 N on a 1 kg box (mu 0.5): friction -3 N along world x, whatever the contact frames."""
    s = Scene()
    s.add_fixed("floor", {"type": "plane"}, friction=0.5)
    s.add_body("box", {"type": "box", "size": [0.2, 0.2, 0.2]}, 1.0, {"p": [0, 0, 0.1]}, friction=0.5)
    s.set_wrench("box", [3.0, 0.0, 0.0])
    for friction in ("pyramid", "cone"):
        out = solve_scene(s, friction=friction)
        assert out.status is Status.SOLVED and {c.mode for c in out.contacts} == {"rolling"}
        np.testing.assert_allclose(sum(c.force_world for c in out.contacts), [-3.0, 0.0, G], atol=1e-9)
    s.set_wrench("box", [6.0, 0.0, 0.0])  # above mu m g = 4.905: it slides, friction -mu m g
    out = solve_scene(s, friction="cone")
    assert out.status is Status.SOLVED and {c.mode for c in out.contacts} == {"sliding"}
    np.testing.assert_allclose(sum(c.force_world for c in out.contacts), [-0.5 * G, 0.0, G], atol=1e-8)
    np.testing.assert_allclose(out.accelerations[:3], [6.0 - 0.5 * G, 0.0, 0.0], atol=1e-8)


def test_gripper_holds_the_box_and_the_pads_balance():
    scene, margin = load_scene(example_scene("gripper.json"))
    out = solve_scene(scene, margin=margin)
    assert out.status is Status.SOLVED and len(out.contacts) == 8
    assert {c.mode for c in out.contacts} == {"rolling"}
    F, T = _body_balance(out, "box", 0.2)
    np.testing.assert_allclose(F, 0.0, atol=1e-9)
    np.testing.assert_allclose(T, 0.0, atol=1e-9)
    squeeze = [c.force_world[0] for c in out.contacts if c.bodies[1] == "left_finger"]
    assert sum(squeeze) == pytest.approx(20.0, rel=1e-9)  # the pad's effort goes into the box


def test_box_stack_every_body_in_equilibrium():
    scene, _ = load_scene(example_scene("box_stack.json"))
    out = solve_scene(scene)
    assert out.status is Status.SOLVED
    assert sum(1 for c in out.contacts if c.bodies == ("top", "bottom")) == 5  # a rotated square on a square
    for body, m in (("bottom", 2.0), ("top", 1.0)):
        F, T = _body_balance(out, body, m)
        np.testing.assert_allclose(F, 0.0, atol=1e-9)
        np.testing.assert_allclose(T, 0.0, atol=1e-9)


def test_allegro_hand_holds_a_ball():
    pytest.importorskip("cmeel")
    try:
        scene, margin = load_scene(example_scene("allegro_sphere.json"))
    except Exception as exc:  # example-robot-data missing
        pytest.skip(f"example-robot-data not installed ({exc})")
    assert scene.model.nv == 16 + 6
    out = solve_scene(scene, margin=margin, friction="cone", tol=1e-11)  # balances to 1e-9 below
    assert out.status is Status.SOLVED
    assert sorted(c.bodies[1] for c in out.contacts) == ["link_15.0_tip", "link_3.0_tip"]
    assert {c.mode for c in out.contacts} == {"rolling"}
    F, T = _body_balance(out, "ball", 0.05)
    np.testing.assert_allclose(F, 0.0, atol=1e-9)
    np.testing.assert_allclose(T, 0.0, atol=1e-9)
    # the hand's joints balance too: tau - g(q) + J^T (force on the finger) = 0
    model, model_data = scene.model, scene.model.createData()
    pin.computeJointJacobians(model, model_data, scene.q)
    res = scene.tau - pin.computeGeneralizedGravity(model, model_data, scene.q)
    for c in out.contacts:
        fid = model.getFrameId(c.bodies[1])
        j = model.frames[fid].parentJoint
        local = model_data.oMi[j].actInv(c.point)
        J = pin.getFrameJacobian(model, model_data, j, pin.SE3(np.eye(3), local), pin.LOCAL_WORLD_ALIGNED)[:3]
        res = res - J.T @ c.force_world
    np.testing.assert_allclose(res[:16], 0.0, atol=1e-9)
    np.testing.assert_allclose(out.accelerations, 0.0, atol=1e-7)


@pytest.mark.parametrize(
    "mu, state", [(0.1, "sliding"), (0.5, "sliding"), (0.1, "rolling"), (0.4, "rolling"), (0.8, "rolling")]
)
def test_puma3_grasp_from_description_files_matches_the_hand_built_one(mu, state):
    """Buffo & Maciel's three PUMA-560 fingers, rebuilt from an MJCF + JSON scene (arms, fingertip
    spheres, the held sphere): coal finds the three contacts, and the forces and modes are the
    hand-built model's (:mod:`contactcp.scenarios.buffo2006`)."""
    from contactcp.scenarios.buffo2006 import puma3_grasp
    from contactcp.simulate.instant import solve_dynamic

    grasp = puma3_grasp(mu, state)
    ref = solve_dynamic(grasp.system, friction="cone", tol=1e-12)
    scene, margin = load_scene(example_scene("puma3_grasp.json"))
    scene.default_friction = mu
    scene.set_body("sphere", {"p": [0, 0, grasp.params.a_cm]}, v=grasp.system.bodies[0].v)
    out = solve_scene(scene, friction="cone", margin=margin, tol=1e-12)
    assert ref.success and out.success
    assert [c.bodies for c in out.contacts] == [("sphere", f"f{j}_link6") for j in (1, 2, 3)]
    for c, o, hand in zip(out.contacts, ref.contacts, grasp.system.contacts):
        np.testing.assert_allclose(c.point, hand.point, atol=1e-12)
        np.testing.assert_allclose(c.force_world, hand.frame @ o.c, rtol=0, atol=1e-7 * np.abs(o.c).max())
        assert c.mode == o.mode


def test_scene_contacts_feed_the_decomposition_and_the_merit_law():
    """A ball sliding at 0.5 m/s on a floor (mu 0.3) decelerates at mu g and spins up at 5 mu g / (2 r);
    pushed from rest by 2 N it rolls at F / (m + I / r^2) = F / (7/5 m): Yashima-Yamaguchi's
    decomposition (analysis.determinacy) and Buffo-Maciel's mixed NCP (merit) on detected contacts."""
    from contactcp.analysis.determinacy import analyse
    from contactcp.models.scene import detect, scene_dynamics

    s = Scene()
    s.add_fixed("floor", {"type": "plane"}, friction=0.3)
    s.add_body("ball", {"type": "sphere", "radius": 0.1}, 1.0, {"p": [0, 0, 0.1]}, v=[0.5, 0, 0], friction=0.3)
    out = analyse(scene_dynamics(s, detect(s)))
    assert out.verdict == "determinate" and out.modes == ["sliding"]
    np.testing.assert_allclose(out.accelerations, [-0.3 * G, 0, 0, 0, 5 * 0.3 * G / 0.2, 0], atol=1e-9)
    merit = solve_scene(s, friction="mncp")
    assert merit.success and merit.contacts[0].mode == "sliding"
    np.testing.assert_allclose(merit.contacts[0].force_world, [-0.3 * G, 0, G], atol=1e-8)
    s.set_body("ball", {"p": [0, 0, 0.1]})
    s.set_wrench("ball", [2.0, 0.0, 0.0])
    out = analyse(scene_dynamics(s, detect(s)))
    assert out.verdict == "determinate" and out.modes == ["rolling"]
    np.testing.assert_allclose(out.accelerations[0], 2.0 / 1.4, rtol=1e-12)
    merit = solve_scene(s, friction="mncp")
    assert merit.success and merit.contacts[0].mode == "rolling"
    np.testing.assert_allclose(merit.contacts[0].force_world, [2.0 / 1.4 - 2.0, 0, G], atol=1e-8)  # m a - F

"""Steps posed in global form (more than LOCAL_UP_TO impulse unknowns): certified by the global
problem's residual, also when the step's q cancels to rounding; and the pieces they rest on
(vectorised free-body Jacobian columns, contact frames)."""

import numpy as np
import pytest

from contactcp.models.contacts import contact_frame, contact_frames
from contactcp.models.scene import Scene
from contactcp.models.scene import dynamics as dyn
from contactcp.models.scene.detect import detect
from contactcp.scenarios.timestepping import G, box_pile, box_stack
from contactcp.simulate.stepping import simulate
from contactcp.simulate.stepping.impulses import LOCAL_UP_TO
from contactcp.solvers.cone.newton_global_direct import Prepared
from support.box_scenes import row_of_cubes, sunk_cube_under_a_hovering_one


def _general_path(monkeypatch):
    """Steps by the general path only: the compiled global step (moreau_jean._advance_global, the
    same arithmetic, tested in test_global_step.py) answers only Newtons it certifies, without
    the retries and corrections these tests watch."""
    from contactcp.simulate.stepping import moreau_jean

    monkeypatch.setattr(moreau_jean, "_advance_global", lambda *args: None)


def _coulomb_violation(step) -> float:
    """The test's own check of each active contact's impulse and end velocity: the cone, the
    dual cone of De Saxcé's velocity and their complementarity, relative to the step's scale."""
    r, u = step.impulse[step.active], step.velocity[step.active]
    mu = 0.5
    scale = max(np.abs(r).max(), 1e-300) * max(np.abs(u).max(), 1e-3)
    cone = np.maximum(np.hypot(r[:, 1], r[:, 2]) - mu * r[:, 0], 0).max() / np.abs(r).max()
    un = u[:, 0] + mu * np.hypot(u[:, 1], u[:, 2])
    comp = np.abs(r[:, 0] * un + r[:, 1] * u[:, 1] + r[:, 2] * u[:, 2]).max() / scale
    return float(max(cone, comp, np.maximum(-r[:, 0], 0).max() / np.abs(r).max()))


def test_a_stack_of_seven_takes_the_global_form_and_stands():
    scene = box_stack(7)
    traj = simulate(scene, 0.05, 1e-3)
    assert traj.failed_steps == 0
    assert all(s.method == "newton-global" for s in traj.steps)
    assert all(3 * int(s.active.sum()) > LOCAL_UP_TO for s in traj.steps)
    assert max(_coulomb_violation(s) for s in traj.steps) <= 1e-9
    pos = traj.body_pos
    assert np.abs(pos - pos[0]).max() <= 1e-9
    last = traj.steps[-1]
    ground = [i for i, b in enumerate(last.bodies) if b[1] == "world"]
    assert abs(last.impulse_world[ground, 2].sum() / 1e-3 / (7 * G) - 1) <= 1e-9


def test_boxes_falling_together_are_certified_although_their_q_cancels():
    """Seven boxes stacked in the air: each step's q = H^T v_free is rounding only (the boxes fall
    alike); posed in the velocity change it is the local q itself, and the global form certifies it."""
    scene = Scene(name="falling")
    scene.gravity = [0.0, 0.0, -G]
    for i in range(7):
        scene.add_body(f"b{i}", {"type": "box", "size": [0.1] * 3}, 1.0, {"p": [0, 0, 1 + 0.1 * i]}, friction=0.5)
    traj = simulate(scene, 0.02, 1e-3)
    assert traj.failed_steps == 0
    assert {s.method for s in traj.steps} == {"newton-global"}
    z = traj.body_pos[-1, :, 2] - traj.body_pos[0, :, 2]
    assert np.allclose(z, z[0], atol=1e-12)  # they stay stacked
    assert np.allclose(traj.v[-1][2::6], traj.v[-1][2], atol=1e-12)


@pytest.mark.parametrize("seed", [0, 3])
def test_free_body_jacobian_columns_equal_pinocchios_point_jacobians(seed):
    scene = box_pile(12, seed=seed)
    rng = np.random.default_rng(seed)
    scene.q = scene.q.copy()
    for k in range(12):  # bring the boxes down together so that they touch each other
        scene.q[7 * k + 2] *= 0.52
    scene.v = rng.normal(size=scene.model.nv)
    found = detect(scene, 0.05)
    assert len(found) > 20 and any(c.bodies[1] != "world" for c in found)
    fast, _ = dyn.contact_jacobian(scene, found)
    full, _ = dyn.contact_jacobian(scene, found, accelerations=True)  # pinocchio's point Jacobians
    assert np.abs(fast - full).max() <= 1e-14 * np.abs(full).max()


@pytest.mark.parametrize("scene", ["grasp", "hand"])
def test_robot_link_jacobian_columns_equal_pinocchios_point_jacobians(scene):
    # robot_links.link_columns (from pinocchio's joint Jacobians) against getFrameJacobian of a
    # frame at each point: the fingertips on the free sphere (link and free body), the hand's links
    from contactcp.scenarios.timestepping_robots import PUMA_MARGIN, puma_grasp, yashima_hand

    s, margin = (puma_grasp(), PUMA_MARGIN) if scene == "grasp" else (yashima_hand(), 1e-3)
    rng = np.random.default_rng(3)
    s.q = s.q + np.concatenate([1e-3 * rng.normal(size=s.model.nv - 6), np.zeros(7)])[: s.model.nq]
    s.v = rng.normal(size=s.model.nv)
    found = detect(s, margin + 0.01)
    assert len(found) >= 2 and all(c.bodies[1] != "world" for c in found)
    fast, _ = dyn.contact_jacobian(s, found)
    full, _ = dyn.contact_jacobian(s, found, accelerations=True)
    assert np.abs(full).max() > 0.1
    assert np.abs(fast - full).max() <= 1e-14 * np.abs(full).max()


def test_contact_frames_are_bit_for_bit_contact_frame():
    rng = np.random.default_rng(7)
    normals = np.vstack([rng.normal(size=(2000, 3)), np.eye(3), -np.eye(3), [[1, 1, 0], [1, 1, 1], [0, 2, 2]]])
    frames = contact_frames(normals)
    assert all(np.array_equal(frames[i], contact_frame(normals[i])) for i in range(len(normals)))
    eye = np.einsum("nji,njk->nik", frames, frames)
    assert np.abs(eye - np.eye(3)).max() <= 8 * np.finfo(float).eps
    assert np.allclose(np.linalg.det(frames), 1.0, atol=1e-15)


@pytest.mark.parametrize(
    "options, system",
    [
        ({"method": "newton-global"}, "ball"),  # frictionless: an LCP
        ({"method": "lemke"}, "box"),  # the cone: not an LCP method
        ({"friction": "pyramid", "method": "newton"}, "box"),  # the pyramid: an LCP
        ({"method": "no-such-method"}, "box"),
    ],
)
def test_a_method_that_does_not_fit_the_steps_problem_is_refused_before_the_run(options, system):
    from contactcp import UnknownMethodError
    from contactcp.scenarios.timestepping import siconos_ball, slope_box

    scene = siconos_ball() if system == "ball" else slope_box(0.5)
    with pytest.raises(UnknownMethodError, match=options["method"]):
        simulate(scene, 0.01, 1e-3, **options)


def test_a_newton_not_certified_is_tried_again_damped_before_the_chain(monkeypatch):
    """A step's Newton stopped after one iteration is not certified: the same Newton from the same
    start with the larger proximal term RETRY_EPS comes next, and when that certifies the step, no
    chain of other solvers runs."""
    from contactcp.simulate.stepping import impulses

    calls = []
    real = Prepared.newton

    def spy(prepared, tol, r0=None, **options):  # the stepper's Newton, on arrays
        if "eps" not in options:
            options["max_iter"] = 1
        res = real(prepared, tol, r0, **options)
        if prepared.d == 3:
            calls.append(("newton-global", options.get("eps"), r0 is not None, res.success))
        return res

    def no_chain(*args):
        raise AssertionError("the chain ran")

    _general_path(monkeypatch)
    monkeypatch.setattr(Prepared, "newton", spy)
    monkeypatch.setattr(impulses, "solve_chain", no_chain)
    traj = simulate(box_stack(7), 0.003, 1e-3)
    assert traj.failed_steps == 0 and all(s.method == "newton-global" for s in traj.steps)
    first, again = calls[0], calls[1]
    assert first == ("newton-global", None, False, False)  # cold, stopped: not certified
    assert again == ("newton-global", impulses.RETRY_EPS, False, True)  # from the same start, damped


def test_a_position_projection_not_certified_is_tried_again_before_the_lcp(monkeypatch):
    """Seven cubes stacked, each sunk 0.1 mm into the one below (28 contacts: the projection's
    problem in global form): its Newton stopped after one iteration is not certified; the same
    Newton with GAP_RETRY_EPS comes next and certifies it, and no LCP is solved.  The stack is then
    at zero gap."""
    from contactcp.problems import LCP
    from contactcp.simulate.stepping import moreau_jean

    scene = Scene()
    scene.gravity = [0.0, 0.0, -G]
    scene.add_fixed("floor", {"type": "plane"}, friction=0.5)
    for i in range(7):
        sunk = {"p": [0, 0, 0.05 + 0.0999 * i]}
        scene.add_body(f"box{i}", {"type": "box", "size": [0.1] * 3}, 1.0, sunk, friction=0.5)
    calls = []
    real, solve = Prepared.newton, moreau_jean.solve

    def spy(prepared, tol, r0=None, **options):  # the projection's Newton, on arrays
        if "eps" not in options:
            options["max_iter"] = 1
        res = real(prepared, tol, r0, **options)
        if prepared.d == 1:  # the projection (one normal column a contact)
            calls.append((options.get("eps"), res.success))
        return res

    def no_lcp(problem, *args, **options):
        if isinstance(problem, LCP):
            raise AssertionError("the LCP ran")
        return solve(problem, *args, **options)

    _general_path(monkeypatch)
    monkeypatch.setattr(Prepared, "newton", spy)
    monkeypatch.setattr(moreau_jean, "solve", no_lcp)
    traj = simulate(scene, 1e-3, 1e-3)
    assert traj.failed_steps == 0 and traj.steps[0].projected
    assert calls[:2] == [(None, False), (moreau_jean.GAP_RETRY_EPS, True)]
    z = traj.body_pos[-1][:, 2]
    np.testing.assert_allclose(z, 0.05 + 0.1 * np.arange(7), rtol=0, atol=1e-12)  # from 0.1 mm into one another


def test_a_stack_at_rest_is_not_corrected_and_a_landing_one_is(monkeypatch):
    """At rest every contact of a stack of seven (28 contacts: the general path's least squares, by
    groups of contacts joined by bodies) is hit, within rounding of its zero target: no least
    squares runs, and no box moves.  Seven boxes side by side dropped from 1 mm land in one step,
    their 28 hit contacts off their targets: they are corrected, and the boxes end at zero gap."""
    from contactcp.simulate.stepping import moreau_jean

    calls = []
    real = moreau_jean.grouped_hit_correction

    def spy(*args):
        calls.append(args[5].shape[0])  # the hit contacts
        return real(*args)

    _general_path(monkeypatch)
    monkeypatch.setattr(moreau_jean, "grouped_hit_correction", spy)
    traj = simulate(box_stack(7), 0.01, 1e-3)
    # from the second step on, every step has hit contacts (the first starts without impulses)
    assert traj.failed_steps == 0 and all(s.projected for s in traj.steps[1:]) and calls == []
    assert np.abs(traj.body_pos - traj.body_pos[0]).max() <= 1e-9
    traj = simulate(row_of_cubes(), 0.03, 1e-3)
    assert traj.failed_steps == 0 and calls and max(calls) == 28
    np.testing.assert_allclose(traj.body_pos[-1][:, 2], 0.05, rtol=0, atol=1e-12)


@pytest.mark.parametrize("reach", [3.0, 0.5])
def test_the_projection_is_posed_on_the_contacts_within_reach(monkeypatch, reach):
    """The top cube 0.4 mm (reach 3: beyond three times the 0.1 mm shortfall) or 0.08 mm (reach
    0.5: beyond 0.05 mm) above the sunk one: its four contacts are left out of the projection's
    first problem (24 contacts).  At 0.4 mm lifting the sunk cube leaves them open, and that answer
    is taken; at 0.08 mm it would close them, so the whole problem (28) is solved.  Either way the
    sunk cube ends at zero gap and the top one above it."""
    from contactcp.simulate.stepping import moreau_jean

    monkeypatch.setattr(moreau_jean, "GAP_REACH", reach)
    hover = 4e-4 if reach == 3.0 else 8e-5
    sizes = []
    real = Prepared.newton

    def spy(prepared, tol, r0=None, **options):  # the projection's Newton, on arrays
        res = real(prepared, tol, r0, **options)
        if prepared.d == 1:  # the projection (one normal column a contact)
            sizes.append((prepared.w.size, res.success))
        return res

    _general_path(monkeypatch)
    monkeypatch.setattr(Prepared, "newton", spy)
    traj = simulate(sunk_cube_under_a_hovering_one(hover), 1e-3, 1e-3)
    step = traj.steps[0]
    assert traj.failed_steps == 0 and step.projected and step.projection_residual <= moreau_jean.PROJECTION_TOL
    assert sizes == ([(24, True)] if reach == 3.0 else [(24, True), (28, True)])
    z = traj.body_pos[-1][:, 2]
    assert abs(z[5] - 0.05) <= 1e-12
    if reach == 3.0:  # the top cube fell freely for the step: g h^2 / 2 with the trapezoidal rule
        assert abs(z[6] - z[5] - 0.1 - (hover - 1e-4 - 0.5 * G * 1e-6)) <= 1e-12
    else:  # pushed up by the sunk one, to touch it
        assert abs(z[6] - z[5] - 0.1) <= 1e-12


def test_the_dense_least_squares_lands_seven_boxes_as_the_groups_do(monkeypatch):
    """The hit contacts' correction without groups (a system whose contacts' rows are not known,
    e.g. on robot links: W_hh whole, by LAPACK's gelsy) lands the seven boxes of the test above as
    the grouped one does, to rounding."""
    from contactcp.simulate.stepping import moreau_jean

    _general_path(monkeypatch)
    grouped = simulate(row_of_cubes(), 0.03, 1e-3)
    calls = []
    real = moreau_jean.sla.lstsq

    def spy(*args, **kwargs):
        calls.append(args[0].shape[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(moreau_jean.sla, "lstsq", spy)
    monkeypatch.setattr(moreau_jean, "_grouped_correction", lambda *args: None)
    dense = simulate(row_of_cubes(), 0.03, 1e-3)
    assert dense.failed_steps == 0 and calls and max(calls) == 28
    np.testing.assert_allclose(dense.body_pos, grouped.body_pos, rtol=0, atol=1e-12)
    np.testing.assert_allclose(dense.v, grouped.v, rtol=0, atol=1e-9)

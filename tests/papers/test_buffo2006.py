"""The three-PUMA-finger grasp of Buffo & Maciel (2006): geometry, frames, postures, answers."""

import numpy as np
import pytest

from contactcp import InvalidProblemError
from contactcp.scenarios.buffo2006 import GraspParameters, contact_points, palm_inertia, puma3_grasp
from contactcp.simulate.instant import solve_dynamic


def Qz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def Qy(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])


@pytest.fixture(scope="module")
def grasp():
    return puma3_grasp(0.4, "rolling")


def test_fingertips_touch_the_contact_points(grasp):
    for j, arm in enumerate(grasp.arms):
        tip = arm.manipulator.link_pose(arm.q, -1)[:3, 3]
        np.testing.assert_allclose(tip, grasp.points[:, j], atol=1e-9)
    # contact points lie on the sphere
    center = np.array([0, 0, grasp.params.a_cm])
    np.testing.assert_allclose(np.linalg.norm(grasp.points - center[:, None], axis=0), grasp.params.r, rtol=1e-12)


def test_frames_match_the_paper_where_it_is_unambiguous(grasp):
    p = grasp.params
    # R_{P,C1} = Qz(-sigma) Qy(-pi/2): its third column is the inward normal at C1
    R1 = Qz(-p.sigma) @ Qy(-np.pi / 2)
    C = grasp.system.contacts[0].frame
    np.testing.assert_allclose(C[:, 0], R1[:, 2], atol=1e-12)
    for c in grasp.system.contacts:
        F = c.frame
        np.testing.assert_allclose(F.T @ F, np.eye(3), atol=1e-12)
        np.testing.assert_allclose(F[:, 2], [0, 0, 1], atol=1e-12)  # o is vertical on the equator


def test_palm_inertia_is_the_parallel_axis_theorem():
    p = GraspParameters()
    I = palm_inertia(p)
    a = p.a_cm
    np.testing.assert_allclose(np.diag(I), [0.4 * p.m * p.r**2 + p.m * a * a] * 2 + [0.4 * p.m * p.r**2])
    assert np.allclose(I, I.T)


def test_low_friction_slips_high_friction_holds():
    slip = solve_dynamic(puma3_grasp(0.1, "rolling").system, "cone")
    hold = solve_dynamic(puma3_grasp(0.6, "rolling").system, "cone")
    assert slip.success and hold.success
    assert [o.transition for o in slip.contacts] == ["rolling->sliding"] * 3
    assert [o.mode for o in hold.contacts] == ["rolling"] * 3
    # rolling contacts keep a = 0 and forces strictly inside the cone: with r strictly inside, the
    # natural map is u + mu |u_T| e_N, whose norm the certified residual bounds by B = tol * ||q||;
    # then |u_T| <= B and |u_N| <= |u_N + mu |u_T|| + mu |u_T| <= sqrt(1 + mu^2) B
    bound = hold.result.tol * hold.result.residual.scale
    assert bound < 1e-7
    for o in hold.contacts:
        np.testing.assert_allclose(o.a, 0.0, atol=np.sqrt(1 + 0.6**2) * bound)
        assert np.linalg.norm(o.c[1:]) < 0.6 * o.c[0]
    assert slip.theorem2["holds"] and hold.theorem2["holds"]


@pytest.mark.parametrize("mu", [0.1, 0.5])
def test_sliding_grasp_friction_opposes_the_slip(mu):
    # slipping down (v = (0, -0.02)): cone friction is +mu c_n along o; in the pyramid
    # the o direction is on the edge and the t direction (zero velocity) behaves as rolling
    g = puma3_grasp(mu, "sliding")
    pyr = solve_dynamic(g.system, "pyramid")
    cone = solve_dynamic(g.system, "cone")
    assert pyr.success and cone.success
    # the original conditions, checked row by row on their own scales, within 10 tol: the solver's
    # certified residual (<= tol) is measured on the problem's scale, not row by row
    assert pyr.max_violation < 10 * pyr.result.tol and cone.max_violation < 10 * cone.result.tol
    assert cone.result.tol <= 1e-9
    for o in cone.contacts:
        np.testing.assert_allclose(o.c[1:], [0.0, mu * o.c[0]], atol=1e-9 * o.c[0])
        assert o.mode == "sliding" and o.loaded
    for o in pyr.contacts:
        assert o.c[2] == pytest.approx(mu * o.c[0], rel=1e-9)
        assert abs(o.c[1]) <= mu * o.c[0] * (1 + 1e-9)


def test_bad_parameters():
    with pytest.raises(InvalidProblemError, match="b_tilde"):
        GraspParameters(b_tilde=0.1)
    with pytest.raises(InvalidProblemError, match="state"):
        puma3_grasp(0.4, "flying")
    assert contact_points(GraspParameters()).shape == (3, 3)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"sigma": 0.0}, "sigma"),
        ({"sigma": np.pi}, "sigma"),
        ({"sigma": np.nan}, "sigma"),
        ({"tool_length": -1.0}, "tool_length"),
        ({"lift": -0.5}, "lift"),
        ({"slip_speed": 0.0}, "slip_speed"),
        ({"r": "x"}, "r"),
        ({"gravity": "abc"}, "gravity"),
        ({"gravity": [0, 0]}, "gravity"),
        ({"foo": 1}, "foo"),
        ({"mu": "a"}, "mu"),
        ({"mu": -0.1}, "mu"),
        ({"params": {"r": 1}}, "params"),
    ],
)
def test_grasp_parameters_are_validated_with_project_errors(kwargs, field):
    kwargs = {"mu": 0.4, **kwargs}
    with pytest.raises(InvalidProblemError) as err:
        puma3_grasp(**kwargs)
    assert err.value.field == field


def test_advancing_the_grasp_slip_stops_with_enough_friction():
    from contactcp.scenarios.buffo2006_steps import advance_grasp

    high = advance_grasp(puma3_grasp(0.8, "sliding"), dt=2e-3, steps=8)
    assert high[0].modes == ["sliding"] * 3
    assert high[-1].modes == ["rolling"] * 3
    assert high[-1].t > 2e-3  # the slip stopped at an event, then full steps went on
    low = advance_grasp(puma3_grasp(0.1, "sliding"), dt=2e-3, steps=4)
    assert all(s.modes == ["sliding"] * 3 for s in low)
    assert low[-1].sphere_v[2] < -GraspParameters().slip_speed  # keeps slipping down, faster
    assert all(s.status == "SOLVED" for s in high + low)


def test_cli_grasp_json_and_picture(tmp_path, capsys):
    import json

    from contactcp.cli import main

    pic = tmp_path / "grasp.png"
    assert main(["grasp", "puma3", "--mu", "0.1", "--json", "--picture", str(pic)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "SOLVED" and d["success"] and d["friction"] == "cone"
    assert [c["transition"] for c in d["contacts"]] == ["rolling->sliding"] * 3
    assert all(set(c) >= {"c", "a", "mode", "transition"} for c in d["contacts"])
    assert pic.stat().st_size > 10_000
    assert main(["grasp", "puma3", "--method", "simplex"]) == 2
    assert "available" in capsys.readouterr().err


def test_advancing_a_slipping_grasp_keeps_the_slip_velocity():
    """Contacts that start sliding (a2) are not projected back to zero slip: the sphere's downward
    velocity grows by about a_z dt per step (a_z from the first solve), and the position follows it."""
    from contactcp.scenarios.buffo2006_steps import advance_grasp
    from contactcp.simulate.instant import solve_dynamic

    g = puma3_grasp(0.1, "rolling")
    az = solve_dynamic(g.system, friction="cone").accelerations[2]
    assert az < -1.0
    hist = advance_grasp(g, dt=1e-3, steps=5)
    vz = np.array([h.sphere_v[2] for h in hist])
    np.testing.assert_allclose(np.diff(vz), az * 1e-3, rtol=0.05)
    z = np.array([h.sphere_p[2] for h in hist])
    np.testing.assert_allclose(np.diff(z), vz[1:] * 1e-3, rtol=1e-4)  # up to the normal-velocity projection
    assert all(h.modes == ["sliding"] * 3 for h in hist)


def test_cli_grasp_default_falls_back_when_newton_stalls(capsys):
    """At mu = 1.5 (rolling) the semismooth Newton method stalls at a stationary point; the default
    method is the chain Newton -> proximal point -> NSGS, which certifies an answer, while
    --method newton alone reports the stall as such (exit 1, never SOLVED)."""
    import json

    from contactcp.cli import main

    assert main(["grasp", "puma3", "--mu", "1.5", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "SOLVED" and d["method"] in ("prox", "nsgs") and d["max_violation"] <= 1e-7
    assert main(["grasp", "puma3", "--mu", "1.5", "--method", "newton", "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert d["status"] != "SOLVED" and not d["success"]
    assert main(["grasp", "puma3", "--mu", "1.5", "--method", "newton"]) == 1
    assert "no certified solution" in capsys.readouterr().out

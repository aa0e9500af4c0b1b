"""The time stepper on the verification scenes, against their analytic answers and Siconos' reference.

The accuracy tests run with ``tol = 1e-12``: every step is then certified to 1e-12 of its own data,
so over 500 steps the accumulated error stays far below what they assert (1e-9 relative, 1e-10 m/s),
whichever solver path or BLAS produced the steps.

Every number is a known answer: Siconos' BouncingBallTS.ref, the apexes ``e^(2k) h0`` and the rest
time of a bouncing ball, ``a = g (sin - mu cos)`` on a slope, ``a = 5/7 g sin`` for a rolling
ball, a stack's ground force ``n m g``.
"""

import math

import numpy as np
import pytest

from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import Scheme, simulate
from support.paths import SHARED

REF = SHARED / "timestepping" / "BouncingBallTS.ref"
#: the steps' tolerance in the accuracy tests (module docstring)
TOL = 1e-12


@pytest.mark.skipif(not REF.is_file(), reason="../shared/timestepping is not here")
def test_siconos_scheme_reproduces_the_bouncing_ball_reference():
    ref = np.loadtxt(REF, skiprows=1)
    traj = simulate(ts.siconos_ball(), 10.0, 0.005, scheme=Scheme.siconos())
    assert traj.success and len(traj.t) == len(ref) == 2001
    impulse = np.array([0.0] + [s.impulse[0, 0] for s in traj.steps])
    np.testing.assert_allclose(traj.t, ref[:, 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(traj.q[:, 0], ref[:, 1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(traj.v[:, 0], ref[:, 2], rtol=0, atol=1e-12)
    np.testing.assert_allclose(impulse, ref[:, 4], rtol=0, atol=1e-12)
    assert (ref[:, 1] < -1e-3).any()  # Siconos' scheme lets the ball sink (the default scheme does not)


def _apexes(z: np.ndarray, vz: np.ndarray) -> list[float]:
    """Apex heights of the flights (the parabola through the last rising state)."""
    return [z[k] + vz[k] ** 2 / (2 * ts.G) for k in range(len(z) - 1) if vz[k] > 0 >= vz[k + 1]]


def test_bouncing_ball_apexes_rest_time_no_penetration_no_energy_gain():
    traj = simulate(ts.bouncing_ball(0.9, 1.0), 9.0, 1e-3)
    assert traj.success
    z = traj.body("ball")[0][:, 2] - 0.1
    apex = _apexes(z, traj.v[:, 2])
    exact = [0.81 ** (k + 1) for k in range(5)]
    np.testing.assert_allclose(apex[:5], exact, rtol=1e-4)
    assert z.min() > -1e-9  # no penetration (the goal is 0.1 mm)
    assert traj.max_energy_gain < 1e-12 * traj.energy[0]
    moving = np.flatnonzero(np.abs(traj.v[:, 2]) > 1e-6)
    rest = traj.t[moving[-1] + 1]
    assert rest == pytest.approx(ts.ball_rest_time(0.9, 1.0), rel=0.01)


def test_timed_impacts_are_what_keeps_the_apexes():
    """Newton's law on the end-of-step velocity (impact_timing=False) ignores gravity within the step:
    0.26 % on the second apex at 1 ms (the module docstring's number); timed, 1e-9."""
    errors = {}
    for timing in (True, False):
        traj = simulate(ts.bouncing_ball(0.9, 1.0), 2.2, 1e-3, impact_timing=timing)
        apex = _apexes(traj.body("ball")[0][:, 2] - 0.1, traj.v[:, 2])
        errors[timing] = abs(apex[1] / 0.81**2 - 1)
    assert errors[True] < 1e-8
    assert 2e-3 < errors[False] < 3e-3


@pytest.mark.parametrize("dt", [2e-3, 5e-3, 1e-2])
def test_bouncing_ball_never_gains_energy_at_large_steps(dt):
    traj = simulate(ts.bouncing_ball(0.9, 1.0), 3.0, dt)
    assert traj.success
    assert traj.max_energy_gain < 1e-12 * traj.energy[0]
    assert (traj.body("ball")[0][:, 2] - 0.1).min() > -1e-9


@pytest.mark.parametrize("direction", [0.0, 35.0, 90.0])
def test_box_sticks_on_a_20_degree_slope_with_mu_half(direction):
    traj = simulate(ts.slope_box(0.5, 20.0, direction), 0.5, 1e-3, tol=TOL)
    assert traj.success
    pos = traj.body("box")[0]
    assert np.abs(pos - pos[0]).max() <= 1e-9  # no drift, no sinking
    assert np.linalg.norm(traj.v, axis=1).max() <= 1e-10
    assert traj.mode_counts()["sliding"] == 0


@pytest.mark.parametrize("direction", [0.0, 45.0, 70.0])
def test_box_slides_at_the_analytic_speed_with_mu_03(direction):
    T = 0.5
    traj = simulate(ts.slope_box(0.3, 20.0, direction), T, 1e-3, tol=TOL)
    assert traj.success
    pos = traj.body("box")[0]
    speed = np.linalg.norm(pos[-1, :2] - pos[-2, :2]) / 1e-3  # constant acceleration: the mean speed
    exact = ts.sliding_speed(0.3, T - 0.5e-3)
    assert speed == pytest.approx(exact, rel=1e-9)
    d = math.radians(direction)
    heading = (pos[-1, :2] - pos[0, :2]) / np.linalg.norm(pos[-1, :2] - pos[0, :2])
    np.testing.assert_allclose(heading, [math.cos(d), math.sin(d)], atol=1e-9)
    assert np.abs(pos[:, 2] - 0.05).max() <= 1e-9  # no lift-off
    slides = [s for s in traj.steps if (s.mode == 2).any()]
    assert len(slides) == len(traj.steps)
    s = slides[-1]
    np.testing.assert_allclose(
        s.slide_direction[s.mode == 2][:, :2], np.tile([math.cos(d), math.sin(d)], (4, 1)), atol=1e-9
    )


def test_ball_rolls_without_slipping_at_five_sevenths_g_sin():
    traj = simulate(ts.rolling_sphere(0.6, 20.0), 0.5, 1e-3, tol=TOL)
    assert traj.success
    x = traj.body("ball")[0][-1, 0]
    assert x == pytest.approx(0.5 * 5 / 7 * ts.G * math.sin(math.radians(20.0)) * 0.5**2, rel=1e-9)
    assert traj.mode_counts()["sliding"] == 0


def test_stack_of_boxes_stands_still_and_weighs_n_m_g():
    traj = simulate(ts.box_stack(3), 0.5, 1e-3, tol=TOL)
    assert traj.success
    pos = traj.body_pos
    assert np.abs(pos - pos[0]).max() <= 1e-9
    last = traj.steps[-1]
    ground = [i for i, b in enumerate(last.bodies) if b[1] == "world"]
    force = last.impulse_world[ground].sum(axis=0) / traj.dt
    np.testing.assert_allclose(force, [0, 0, 3 * ts.G], rtol=1e-9, atol=1e-9 * ts.G)


def test_reproduce_timestepping_quick_meets_the_goals_it_prints(tmp_path, monkeypatch):
    import csv

    from contactcp.experiments import run

    if REF.is_file():
        monkeypatch.setenv("CONTACTCP_BOUNCING_REF", str(REF))
    files = run("timestepping", tmp_path, quick=True)
    assert {f.name for f in files} == {"timestepping.md", "table.csv"}
    rows = list(csv.DictReader((tmp_path / "timestepping" / "table.csv").open()))
    checked = 0
    for r in rows:
        if r["goal"].startswith("<= "):
            goal = r["goal"][3:]
            limit = float(goal[:-1]) / 100 if goal.endswith("%") else float(goal)
            assert float(r["value"]) <= limit, r
            checked += 1
        elif r["goal"] == "0":
            assert float(r["value"]) <= 1e-12, r
            checked += 1
    assert checked >= 15

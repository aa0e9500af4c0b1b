"""The friction-pyramid option of the time stepper (Stewart–Trinkle / Anitescu–Potra LCP by Lemke):
exact along its edges, the inscribed polygon's lower friction between them, and its LCP certified."""

import math

import numpy as np
import pytest

from contactcp import InvalidOptionError
from contactcp.scenarios.timestepping import G, sliding_speed, slope_box
from contactcp.simulate.stepping import Scheme, simulate
from contactcp.simulate.stepping.impulses import pyramid_directions

SLOPE = math.radians(20.0)


def test_pyramid_directions_are_unit_and_evenly_spaced():
    d = pyramid_directions(8)
    assert np.allclose(np.hypot(d[:, 0], d[:, 1]), 1.0, atol=1e-15)
    assert np.allclose(d.sum(axis=0), 0.0, atol=1e-15)
    assert np.allclose(np.arctan2(d[1, 1], d[1, 0]), math.pi / 4, atol=1e-15)


@pytest.mark.parametrize("direction", [0.0, 22.5, 45.0])
def test_a_box_sticks_on_the_pyramid_where_mu_cos_pi_over_k_exceeds_tan_slope(direction):
    # 0.5 cos(pi / 8) = 0.46 > tan 20 deg = 0.36: every direction holds
    traj = simulate(slope_box(0.5, 20.0, direction), 0.3, 1e-3, friction="pyramid", pyramid_edges=8)
    assert traj.failed_steps == 0
    p = traj.body("box")[0]
    assert np.abs(p - p[0]).max() <= 1e-9
    assert {s.method.split("+")[0] for s in traj.steps if s.method != "free"} <= {"lemke", "interior-point", "merit"}


def test_sliding_along_an_edge_is_coulombs_and_between_edges_the_polygons():
    T = 0.5
    along = simulate(slope_box(0.3, 20.0, 0.0), T, 1e-3, friction="pyramid", pyramid_edges=8)
    assert along.failed_steps == 0
    assert abs(np.linalg.norm(along.v[-1][:3]) / sliding_speed(0.3, T) - 1) <= 1e-9
    between = simulate(slope_box(0.3, 20.0, 22.5), T, 1e-3, friction="pyramid", pyramid_edges=8)
    assert between.failed_steps == 0
    # the inscribed octagon's edge lies at mu cos(pi / 8) from the centre: a weaker friction
    mu_eff = 0.3 * math.cos(math.pi / 8)
    expected = G * (math.sin(SLOPE) - mu_eff * math.cos(SLOPE)) * T
    assert abs(np.linalg.norm(between.v[-1][:3]) / expected - 1) <= 1e-9
    cone = simulate(slope_box(0.3, 20.0, 22.5), T, 1e-3)
    assert abs(np.linalg.norm(cone.v[-1][:3]) / sliding_speed(0.3, T) - 1) <= 1e-9


@pytest.mark.parametrize(
    "field, value", [("friction", "ellipse"), ("pyramid_edges", 2), ("pyramid_edges", 4.0), ("pyramid_edges", True)]
)
def test_bad_pyramid_options_name_their_field(field, value):
    with pytest.raises(InvalidOptionError, match=field):
        Scheme(**{field: value})


def test_frictionless_contacts_take_no_edges_and_lemke_solves_them():
    traj = simulate(slope_box(0.0, 20.0, 0.0), 0.1, 1e-3, friction="pyramid")
    assert traj.failed_steps == 0
    assert all(s.method.startswith("lemke") for s in traj.steps if s.method != "free")
    expected = G * math.sin(SLOPE) * 0.1  # no friction: g sin(theta) t
    assert abs(np.linalg.norm(traj.v[-1][:3]) / expected - 1) <= 1e-9

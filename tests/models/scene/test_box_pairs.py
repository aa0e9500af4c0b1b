"""Boxes on boxes and half-spaces in closed form (box_pairs): exact gaps, normals and patches, coal's
answer where the closed form does not decide, and agreement with coal on random pairs."""

import importlib
import math

import numpy as np
import pinocchio as pin
import pytest

from contactcp.models.scene import Scene, detect
from contactcp.models.scene import box_pairs as bp

DETECT = importlib.import_module("contactcp.models.scene.detect")


def _pair(size_a, pose_a, size_b, pose_b) -> Scene:
    s = Scene()
    s.add_body("b", {"type": "box", "size": list(size_b)}, 1.0, pose_b)
    s.add_body("a", {"type": "box", "size": list(size_a)}, 1.0, pose_a)  # the later joint: first
    return s


def _coal_only(scene, margin=1e-3):
    """detect with every pair asked of coal (the closed form told it knows no shape)."""
    closed = DETECT.near_pairs
    DETECT.near_pairs = lambda kinds, *a: closed(kinds * 0, *a)
    try:
        return detect(scene, margin)
    finally:
        DETECT.near_pairs = closed


def _one(c_a, R_a, e_a, c_b, R_b, e_b, margin=1e-3):
    """pair_contacts on one pair of boxes (geometry 0 first)."""
    args = (
        np.array([bp.BOX, bp.BOX]),
        np.array([R_a, R_b], dtype=float),
        np.array([c_a, c_b], dtype=float),
        np.array([e_a, e_b], dtype=float),
        np.zeros((2, 3)),
        np.zeros(2),
        np.array([0]),
        np.array([1]),
        margin,
    )
    code, normal, gap, count, points = bp.pair_contacts(*args)
    return int(code[0]), normal[0], float(gap[0]), points[0, : count[0]]


@pytest.mark.parametrize("gap", [0.0, 4e-4, -3e-4])
def test_a_cube_turned_45_degrees_on_a_cube_touches_on_the_octagon(gap):
    s = _pair([1, 1, 1], {"p": [0, 0, 1.5 + gap], "rpy": [0, 0, math.pi / 4]}, [1, 1, 1], {"p": [0, 0, 0.5]})
    cs = detect(s)
    r = math.sqrt(0.5) - 0.5  # where the turned square's edges cross the other's
    want = sorted([(x, y) for x in (0.5, -0.5) for y in (r, -r)] + [(x, y) for x in (r, -r) for y in (0.5, -0.5)])
    got = sorted(tuple(c.point[:2].round(12)) for c in cs)
    np.testing.assert_allclose(got, want, atol=1e-14)
    for c in cs:
        assert c.bodies == ("a", "b")
        np.testing.assert_array_equal(c.normal, [0.0, 0.0, 1.0])  # the face normal, exactly
        assert c.gap == pytest.approx(gap, abs=1e-15)
        assert c.point[2] == pytest.approx(1.0 + gap / 2, abs=1e-15)  # half-way between the faces


@pytest.mark.parametrize("gap", [2e-4, -2e-4])
def test_an_edge_across_an_edge_touches_at_one_point(gap):
    h = math.sqrt(0.5)  # a unit cube turned 45 degrees about an axis reaches this far along the others
    Ra, Rb = pin.rpy.rpyToMatrix(0, math.pi / 4, 0), pin.rpy.rpyToMatrix(math.pi / 4, 0, 0)
    code, normal, g, points = _one([0.1, 0.2, 2 * h + gap], Ra, [0.5] * 3, [0.1, 0.2, 0.0], Rb, [0.5] * 3)
    assert code == bp.FOUND
    np.testing.assert_allclose(normal, [0, 0, 1], atol=1e-15)
    assert g == pytest.approx(gap, abs=1e-14)
    np.testing.assert_allclose(points, [[0.1, 0.2, h + gap / 2]], atol=1e-14)


def test_a_penetration_is_the_least_translation_that_separates():
    # a small cube pushed 2 mm into a big one's side, near its top edge: the side's normal, 2 mm
    code, normal, g, points = _one([0.5 + 0.05 - 2e-3, 0, 0.4], np.eye(3), [0.05] * 3, [0, 0, 0], np.eye(3), [0.5] * 3)
    assert code == bp.FOUND and g == pytest.approx(-2e-3, abs=1e-15)
    np.testing.assert_array_equal(normal, [1.0, 0.0, 0.0])
    assert len(points) == 4


def test_a_corner_passing_a_corner_is_the_corners_distance():
    # apart along the diagonal: no face or edge axis gives the distance, the corners' distance does
    d = 3e-4
    c_a = np.full(3, 1.0 + d / math.sqrt(3))
    code, normal, g, points = _one(c_a, np.eye(3), [0.5] * 3, [0, 0, 0], np.eye(3), [0.5] * 3)
    assert code == bp.FOUND and g == pytest.approx(d, rel=1e-12)
    np.testing.assert_allclose(normal, np.full(3, 1 / math.sqrt(3)), rtol=1e-12)
    np.testing.assert_allclose(points, [np.full(3, 0.5 + d / (2 * math.sqrt(3)))], rtol=1e-12)  # half-way
    s = _pair([1, 1, 1], {"p": c_a.tolist()}, [1, 1, 1], {"p": [0, 0, 0]})
    (c,) = _coal_only(s)  # coal's answer, to its GJK tolerance
    assert c.gap == pytest.approx(d, abs=1e-9)
    np.testing.assert_allclose(c.normal, normal, atol=1e-6)
    # the same corners beyond the margin (1 mm; the axes' lower bound, 1.15 mm, is within it): none
    far = np.full(3, 1.0 + 2e-3 / math.sqrt(3))
    assert _one(far, np.eye(3), [0.5] * 3, [0, 0, 0], np.eye(3), [0.5] * 3)[0] == bp.NONE


def test_closest_points_of_boxes_apart_agree_with_coal():
    """box_distance against coal's distance with GJK at 1e-12: random sizes, turns and places, the
    pairs at least 0.1 mm apart, each point on its box's surface; and two cubes apart along the
    diagonal of x and y, their vertical edges facing (a segment of closest pairs: the distance,
    exactly)."""
    import coal

    from contactcp.models.scene.box_distance import closest_points

    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(300):
        ea, eb = rng.uniform(0.05, 0.5, 3), rng.uniform(0.05, 0.5, 3)
        Ra, Rb = pin.rpy.rpyToMatrix(*rng.uniform(-3, 3, 3)), pin.rpy.rpyToMatrix(*rng.uniform(-3, 3, 3))
        ca = rng.normal(size=3) * rng.uniform(0.3, 2.0)
        req, res = coal.DistanceRequest(), coal.DistanceResult()
        req.gjk_tolerance = 1e-12
        pa_, pb_ = coal.Transform3s(Ra, ca), coal.Transform3s(Rb, np.zeros(3))
        want = coal.distance(coal.Box(*(2 * ea)), pa_, coal.Box(*(2 * eb)), pb_, req, res)
        if want < 1e-4:
            continue
        dist, pa, pb = closest_points(ca, Ra, ea, np.zeros(3), Rb, eb)
        assert dist == pytest.approx(want, abs=1e-9)
        assert np.linalg.norm(pa - pb) == pytest.approx(dist, rel=1e-12)
        for p, c, R, e in ((pa, ca, Ra, ea), (pb, np.zeros(3), Rb, eb)):  # each point on its box
            local = R.T @ (p - c)
            assert np.all(np.abs(local) <= e + 1e-12) and np.max(np.abs(local) - e) > -1e-12
        checked += 1
    assert checked > 150
    half, I3 = np.full(3, 0.5), np.eye(3)
    dist, pa, pb = closest_points(np.array([1.003, 1.004, 0.2]), I3, half, np.zeros(3), I3, half)
    assert dist == pytest.approx(5e-3, rel=1e-12)
    np.testing.assert_allclose((pa - pb)[:2], [3e-3, 4e-3], rtol=1e-12)


def test_beyond_the_margin_and_small_boxes():
    assert _one([0, 0, 1.0 + 2e-3], np.eye(3), [0.5] * 3, [0, 0, 0], np.eye(3), [0.5] * 3)[0] == bp.NONE
    # a box thinner than the patch tolerance has support sets of more than one face: coal's
    assert _one([0, 0, 0.5005], np.eye(3), [0.1, 0.1, 5e-4], [0, 0, 0], np.eye(3), [0.5] * 3)[0] == bp.ASK_COAL


@pytest.mark.parametrize(("tilt", "points"), [(0.004, 4), (0.006, 2)])
def test_a_tilted_box_on_a_plane_keeps_the_corners_within_the_patch_tolerance(tilt, points):
    # a 0.2 m cube turned by tilt: its far corners are 0.2 tilt above the lowest (0.8 and 1.2 mm)
    s = Scene()
    s.add_fixed("floor", {"type": "plane"})
    z = 0.1 * math.cos(tilt) + 0.1 * math.sin(tilt) + 1e-4
    s.add_body("box", {"type": "box", "size": [0.2] * 3}, 1.0, {"p": [0, 0, z], "rpy": [tilt, 0, 0]})
    cs, ref = detect(s), _coal_only(s)
    assert len(cs) == len(ref) == points
    for c in cs:
        assert c.gap == pytest.approx(1e-4, abs=1e-15) and c.point[2] == pytest.approx(5e-5, abs=1e-15)
        np.testing.assert_array_equal(c.normal, [0.0, 0.0, 1.0])
    np.testing.assert_allclose(sorted(c.point.tolist() for c in cs), sorted(c.point.tolist() for c in ref), atol=1e-9)


def test_a_half_space_first_gets_the_normal_into_it():
    kinds = np.array([bp.HALFSPACE, bp.BOX])
    rot, pos = np.array([np.eye(3), np.eye(3)]), np.array([[0, 0, 0], [0, 0, 0.5 + 1e-4]])
    half, plane_n, plane_d = np.array([[0, 0, 0], [0.5] * 3]), np.array([[0, 0, 1.0], [0, 0, 0]]), np.zeros(2)
    for first, second, sign in ((0, 1, -1.0), (1, 0, 1.0)):
        code, normal, gap, count, _ = bp.pair_contacts(
            kinds, rot, pos, half, plane_n, plane_d, np.array([first]), np.array([second]), 1e-3
        )
        assert code[0] == bp.FOUND and count[0] == 4 and gap[0] == pytest.approx(1e-4, abs=1e-15)
        np.testing.assert_array_equal(normal[0], [0, 0, sign])


def _random_pair(rng):
    """Two boxes of random sizes and turns, the first moved along a random direction to a random
    signed distance (found by bisection on coal's distance) from the second."""
    import coal

    flat = rng.integers(2) == 0
    size_a, size_b = rng.uniform(0.05, 0.5, 3), rng.uniform(0.05, 0.5, 3)
    rpy_b = [0, 0, rng.uniform(-3, 3)] if flat else rng.uniform(-3, 3, 3)
    rpy_a = [rng.normal(0, 1e-3) * rng.integers(2), 0, rng.uniform(-3, 3)] if flat else rng.uniform(-3, 3, 3)
    d = np.array([rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1), 1.0]) if flat else rng.normal(size=3)
    d /= np.linalg.norm(d)
    Ra, Rb = pin.rpy.rpyToMatrix(*rpy_a), pin.rpy.rpyToMatrix(*rpy_b)
    ga, gb = coal.Box(*size_a), coal.Box(*size_b)
    lo, hi = 0.0, 2.0
    for _ in range(60):
        m = 0.5 * (lo + hi)
        dist = coal.distance(
            ga,
            coal.Transform3s(Ra, d * m),
            gb,
            coal.Transform3s(Rb, np.zeros(3)),
            coal.DistanceRequest(),
            coal.DistanceResult(),
        )
        lo, hi = (m, hi) if dist <= 0 else (lo, m)
    p = d * (hi + rng.choice([0.0, 3e-4, -2e-4, 5e-4]))
    return _pair(size_a, {"p": p.tolist(), "rpy": list(rpy_a)}, size_b, {"p": [0, 0, 0], "rpy": list(rpy_b)})


def test_random_pairs_agree_with_coal():
    """Coal's gap is within its GJK tolerance; its patch of an edge across an edge is a segment of one
    edge through the crossing (where the closed form gives the crossing itself)."""
    rng = np.random.default_rng(7)
    crossings = 0
    for _ in range(120):
        s = _random_pair(rng)
        ours, ref = detect(s), _coal_only(s)
        if not ref:
            assert not ours
            continue
        assert abs(ours[0].gap - ref[0].gap) < 2e-6
        np.testing.assert_allclose(ours[0].normal, ref[0].normal, atol=1e-4)
        if len(ours) == 1 and len(ref) == 2:  # the crossing lies on coal's segment
            a, b, x = ref[0].point, ref[1].point, ours[0].point
            t = (x - a) @ (b - a) / ((b - a) @ (b - a))
            assert -1e-9 <= t <= 1 + 1e-9 and np.linalg.norm(a + t * (b - a) - x) < 1e-6
            crossings += 1
            continue
        got, want = np.array([c.point for c in ours]), np.array([c.point for c in ref])
        assert got.shape == want.shape
        dist = np.linalg.norm(got[:, None, :] - want[None, :, :], axis=2)  # each point near one of the other's
        assert dist.min(axis=1).max() < 2e-5 and dist.min(axis=0).max() < 2e-5
    assert crossings > 5


def test_a_box_resting_on_a_box_within_rounding_of_aligned_stays_in_closed_form():
    # turned by 1e-10 rad and shifted by 1e-11 m (a stack after a while): a corner of the lower box
    # is 1e-11 outside the upper face's projection, within the check's tolerance, not coal's case
    Ra = pin.rpy.rpyToMatrix(9e-11, -3e-11, 1e-14)
    code, normal, g, points = _one([1e-11, 1e-11, 0.1 + 1e-16], Ra, [0.05] * 3, [0, 0, 0], np.eye(3), [0.05] * 3)
    assert code == bp.FOUND and len(points) == 4
    assert abs(g) < 1e-11 and abs(normal[2] - 1.0) < 1e-15


def test_clip_reads_only_the_polygon_it_keeps():
    """_clip's vertex before the first is its polygon's last (row n - 1), never a row past the
    polygon a merging hull left shorter: here those rows hold NaN (memory the hull did not write),
    and a square with a doubled corner, clipped by a larger square, is the square."""
    from contactcp.models.scene.box_pairs import _clip

    P = np.full((12, 2), np.nan)
    P[:5] = [[0.0, 0.0], [1e-12, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]  # two corners within eps: merged
    Q = np.array([[-1.0, -1.0], [2.0, -1.0], [2.0, 2.0], [-1.0, 2.0]])
    out, n = _clip(P, 5, Q, 4, 1e-9, np.full((12, 2), np.nan))
    assert n == 4
    assert sorted(map(tuple, out[:n].tolist())) == [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)]

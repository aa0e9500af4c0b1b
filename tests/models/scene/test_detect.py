"""Contact detection (coal): points, normals into the first body, gaps, patches, pairs, friction."""

import numpy as np
import pytest

from contactcp.errors import ContactCPError, InvalidProblemError
from contactcp.models.scene import Scene, collision_pairs, detect


def _on_floor(shape, z, mass=1.0, floor_mu=0.5, body_mu=None, rpy=(0.0, 0.0, 0.0)):
    s = Scene()
    s.add_fixed("floor", {"type": "plane"}, friction=floor_mu)
    s.add_body("obj", shape, mass, {"p": [0.1, -0.2, z], "rpy": list(rpy)}, friction=body_mu)
    return s


def test_box_flat_on_a_plane_gives_its_four_corners():
    s = _on_floor({"type": "box", "size": [0.2, 0.1, 0.3]}, 0.15)
    cs = detect(s)
    assert len(cs) == 4
    P = np.array(sorted(c.point[:2].round(12).tolist() for c in cs))
    np.testing.assert_allclose(P, [[0.0, -0.25], [0.0, -0.15], [0.2, -0.25], [0.2, -0.15]], atol=1e-9)
    for c in cs:
        assert c.bodies == ("obj", "world")
        np.testing.assert_allclose(c.normal, [0, 0, 1], atol=1e-9)  # into the box, the first body
        assert abs(c.gap) < 1e-9 and abs(c.point[2]) < 1e-9


@pytest.mark.parametrize("lift", [5e-4, -2e-4])
def test_gap_is_the_signed_distance_within_the_margin(lift):
    s = _on_floor({"type": "box", "size": [0.2, 0.2, 0.2]}, 0.1 + lift)
    cs = detect(s, margin=1e-3)
    assert len(cs) == 4
    assert all(c.gap == pytest.approx(lift, abs=1e-9) for c in cs)


def test_nothing_beyond_the_margin():
    s = _on_floor({"type": "box", "size": [0.2, 0.2, 0.2]}, 0.1 + 2e-3)
    assert detect(s, margin=1e-3) == []
    assert len(detect(s, margin=3e-3)) == 4


def test_box_on_a_box_gives_the_corners_of_the_overlap():
    s = Scene()
    s.add_body("lower", {"type": "box", "size": [1.0, 1.0, 1.0]}, 1.0, {"p": [0, 0, 0.5]})
    s.add_body("upper", {"type": "box", "size": [1.0, 1.0, 1.0]}, 1.0, {"p": [0.3, 0.2, 1.5]})
    cs = detect(s)
    assert len(cs) == 4
    P = np.array(sorted(c.point.round(9).tolist() for c in cs))
    np.testing.assert_allclose(P[:, :2], [[-0.2, -0.3], [-0.2, 0.5], [0.5, -0.3], [0.5, 0.5]], atol=1e-6)
    np.testing.assert_allclose(P[:, 2], 1.0, atol=1e-6)
    assert all(c.bodies == ("upper", "lower") for c in cs)  # the later joint first
    assert all(np.allclose(c.normal, [0, 0, 1], atol=1e-5) for c in cs)


def test_sphere_capsule_cylinder_and_convex_mesh():
    sphere = detect(_on_floor({"type": "sphere", "radius": 0.05}, 0.05))
    assert len(sphere) == 1 and np.allclose(sphere[0].point, [0.1, -0.2, 0.0], atol=1e-9)
    capsule = detect(_on_floor({"type": "capsule", "radius": 0.05, "length": 0.4}, 0.05, rpy=(np.pi / 2, 0, 0)))
    assert sorted(round(float(c.point[1]), 9) for c in capsule) == [-0.4, 0.0]
    cylinder = detect(_on_floor({"type": "cylinder", "radius": 0.05, "length": 0.2}, 0.1))
    assert len(cylinder) >= 3
    r = [np.hypot(c.point[0] - 0.1, c.point[1] + 0.2) for c in cylinder]
    np.testing.assert_allclose(r, 0.05, rtol=1e-6)
    cube = [[x, y, z] for x in (-0.1, 0.1) for y in (-0.1, 0.1) for z in (-0.1, 0.1)]
    mesh = detect(_on_floor({"type": "mesh", "vertices": cube}, 0.1))
    assert len(mesh) == 4


def test_pair_friction_is_the_larger_geometry_value_unless_the_scene_says():
    s = _on_floor({"type": "sphere", "radius": 0.05}, 0.05, floor_mu=0.3, body_mu=0.7)
    assert detect(s)[0].mu == 0.7
    s.pair_friction[frozenset(("obj", "world"))] = 0.25
    assert detect(s)[0].mu == 0.25
    s2 = _on_floor({"type": "sphere", "radius": 0.05}, 0.05, floor_mu=0.3)
    assert detect(s2)[0].mu == 1.0  # the sphere names none: MuJoCo's default 1


def test_excluded_pairs_and_world_pieces_are_not_checked():
    s = _on_floor({"type": "sphere", "radius": 0.05}, 0.05)
    s.add_fixed("wall", {"type": "box", "size": [0.1, 1, 1]}, {"p": [0, 0, 0]})
    names = {(s.collision.geometryObjects[i].name, s.collision.geometryObjects[k].name) for i, k in collision_pairs(s)}
    assert names == {("obj", "floor"), ("obj", "wall")}
    s.excluded.add(frozenset(("obj", "world")))
    assert collision_pairs(s) == []


@pytest.mark.parametrize(
    "shape, field",
    [
        ({"type": "cone", "radius": 1}, "obj.shape.type"),
        ({"type": "sphere", "radius": -1}, "obj.shape.radius"),
        ({"type": "box", "size": [1, 0, 1]}, "obj.shape.size"),
        ({"type": "sphere", "radius": 1, "size": 2}, "obj.shape"),
        ({"type": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]}, "obj.shape.vertices"),
        ({"type": "plane"}, "obj.shape"),
    ],
)
def test_bad_shapes_name_the_field(shape, field):
    with pytest.raises(InvalidProblemError) as e:
        Scene().add_body("obj", shape, 1.0)
    assert e.value.field == field


def test_bad_margin_and_state():
    s = _on_floor({"type": "sphere", "radius": 0.05}, 0.05)
    with pytest.raises(ContactCPError, match="margin"):
        detect(s, margin=-1.0)
    s.q = s.q[:-1]
    with pytest.raises(InvalidProblemError, match="q"):
        detect(s)


def test_a_free_body_needs_a_unit_quaternion_and_no_effort():
    s = _on_floor({"type": "sphere", "radius": 0.05}, 0.05)
    s.q[-1] = 2.0
    with pytest.raises(InvalidProblemError, match="quaternion"):
        detect(s)
    s.q[-1] = 1.0
    s.tau[0] = 1.0
    with pytest.raises(InvalidProblemError, match="no joint effort"):
        detect(s)


@pytest.mark.parametrize("second", ["sphere", "halfspace"])
def test_sphere_pairs_in_closed_form_agree_with_coal(second):
    # the compiled closed form (box_pairs.pair_contacts -> sphere_pairs) against coal's query with its
    # lifts, on random poses and gaps on both sides of the margin: the same pairs found, the same
    # normal, gap and point
    import importlib

    import coal
    import pinocchio as pin

    from contactcp.models.scene import box_pairs as bp

    CP = importlib.import_module("contactcp.models.scene.coal_pairs")

    def closed_form(g1, M1, g2, M2):
        kinds = np.array([bp.SPHERE, bp.SPHERE if isinstance(g2, coal.Sphere) else bp.HALFSPACE])
        half = np.array([[g1.radius] * 3, [g2.radius if kinds[1] == bp.SPHERE else 0.0] * 3])
        plane_n = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0] if kinds[1] == bp.SPHERE else list(g2.n)])
        plane_d = np.array([0.0, 0.0 if kinds[1] == bp.SPHERE else g2.d])
        rot, pos = np.array([M1.rotation, M2.rotation]), np.array([M1.translation, M2.translation])
        code, normal, gap, count, points = bp.pair_contacts(
            kinds, rot, pos, half, plane_n, plane_d, np.array([0]), np.array([1]), margin
        )
        assert code[0] in (bp.NONE, bp.FOUND) and count[0] == (code[0] == bp.FOUND)
        return (normal[0], gap[0], [points[0, 0]]) if code[0] == bp.FOUND else None

    rng = np.random.default_rng(7 if second == "sphere" else 8)
    margin, found = 1e-3, 0
    for _ in range(300):
        r1 = rng.uniform(0.01, 0.2)
        g1 = coal.Sphere(r1)
        gap = rng.uniform(-1e-3, 2e-3)
        R1, R2 = pin.exp3(rng.normal(size=3)), pin.exp3(rng.normal(size=3))
        if second == "sphere":
            r2 = rng.uniform(0.01, 0.2)
            g2 = coal.Sphere(r2)
            n = rng.normal(size=3)
            n /= np.linalg.norm(n)
            c1 = 0.1 * rng.normal(size=3)
            M1, M2 = pin.SE3(R1, c1), pin.SE3(R2, c1 - (r1 + r2 + gap) * n)
            apart = M1.translation - M2.translation
        else:
            hn = rng.normal(size=3)
            hn /= np.linalg.norm(hn)
            g2 = coal.Halfspace(hn, 0.1 * rng.normal())
            M2 = pin.SE3(R2, 0.1 * rng.normal(size=3))
            nw = M2.rotation @ hn
            off = g2.d + nw @ M2.translation
            c1 = M2.translation + 0.1 * rng.normal(size=3)
            M1 = pin.SE3(R1, c1 - (nw @ c1 - off) * nw + (r1 + gap) * nw)
            apart = nw
        closed = closed_form(g1, M1, g2, M2)
        coal_answer = CP._collide(g1, CP._transform(M1), g2, CP._transform(M2), margin)
        if coal_answer is not None and abs(coal_answer[1]) < CP._NEAR:  # coal's own answer needs its lift here
            coal_answer = CP._lift(g1, M1, g2, CP._transform(M2), margin, apart / np.linalg.norm(apart))
        assert (closed is None) == (coal_answer is None)
        if closed is None:
            continue
        found += 1
        assert closed[1] == pytest.approx(gap, abs=1e-15)
        assert np.abs(closed[0] - coal_answer[0]).max() <= 1e-12
        assert abs(closed[1] - coal_answer[1]) <= 1e-12
        assert np.abs(closed[2][0] - coal_answer[2][0]).max() <= 1e-12
    assert 150 <= found < 300  # both sides of the margin were tried


@pytest.mark.parametrize("which", ["pile", "grasp", "hand"])
def test_compiled_geometry_placements_are_pinocchios(which):
    # detect.placements and its joints' (free bodies from q, robot links from the forward kinematics, the world
    # fixed) against pinocchio's updateGeometryPlacements, on turned free bodies and moved joints
    import importlib

    import pinocchio as pin

    from contactcp.scenarios.timestepping import box_pile
    from contactcp.scenarios.timestepping_robots import puma_grasp, yashima_hand

    D = importlib.import_module("contactcp.models.scene.detect")
    scene = {"pile": lambda: box_pile(12, seed=2), "grasp": puma_grasp, "hand": yashima_hand}[which]()
    scene.q = pin.randomConfiguration(scene.model, -np.ones(scene.model.nq), np.ones(scene.model.nq))
    gdata = pin.GeometryData(scene.collision)
    pin.updateGeometryPlacements(scene.model, scene._data, scene.collision, gdata, scene.q)
    R, T, joint_R, joint_O = D.placements(scene)
    for g in range(scene.collision.ngeoms):
        assert np.abs(R[g] - gdata.oMg[g].rotation).max() <= 4e-16
        assert np.abs(T[g] - gdata.oMg[g].translation).max() <= 4e-15 * (1 + np.abs(T[g]).max())
        j = scene.collision.geometryObjects[g].parentJoint  # its joint's placement, as pinocchio's
        assert np.abs(joint_R[j] - scene._data.oMi[j].rotation).max() <= 4e-16
        assert np.abs(joint_O[j] - scene._data.oMi[j].translation).max() <= 4e-15 * (1 + np.abs(joint_O[j]).max())

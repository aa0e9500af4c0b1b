"""Scene files: URDF (path or text), MJCF through pinocchio plus what it leaves out, the JSON format."""

import json

import numpy as np
import pytest

from contactcp.errors import InvalidProblemError
from contactcp.io.scene_files import EXAMPLE_SCENES, example_scene, load_scene, scene_from_dict
from contactcp.models.scene import Scene, detect

MJCF = """<mujoco model="m">
  <option gravity="0 0 -3.5"/>
  <default>
    <geom friction="0.7 0.005 0.0001"/>
    <default class="slippery"><geom friction="0.1"/></default>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1" friction="0.4"/>
    <body name="a" pos="0 0 0.05"><freejoint/><geom name="ga" type="box" size="0.05 0.05 0.05" mass="1"/></body>
    <body name="b" pos="0.3 0 0.05" childclass="slippery">
      <freejoint/><geom type="sphere" size="0.05" mass="0.5"/>
      <geom name="ghost" type="sphere" size="0.05" contype="0" conaffinity="0"/>
    </body>
    <body name="table" pos="1 0 0"><geom name="top" type="box" size="0.2 0.2 0.01"/></body>
  </worldbody>
</mujoco>"""

URDF = """<robot name="pendulum">
  <link name="base"><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <link name="arm">
    <inertial><mass value="1"/><origin xyz="0 0 -0.5"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 -1"/><geometry><sphere radius="0.1"/></geometry></collision>
  </link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
</robot>"""


def test_mjcf_every_root_body_gravity_friction_and_contype(tmp_path):
    f = tmp_path / "m.xml"
    f.write_text(MJCF)
    scene, margin = load_scene(f)
    assert margin == 1e-3
    assert sum(j.free for j in scene.joints) == 2 and scene.model.nv == 12  # both root bodies, not the first only
    np.testing.assert_array_equal(scene.gravity, [0, 0, -3.5])
    names = [g.name for g in scene.collision.geometryObjects]
    assert "ghost" not in names and {"floor", "ga", "top"} <= set(names)
    assert scene.friction["floor"] == 0.4 and scene.friction["ga"] == 0.7
    unnamed = [n for n in names if n.startswith("geom")]
    assert len(unnamed) == 1 and scene.friction[unnamed[0]] == 0.1  # the body's childclass
    assert set(scene.bodies) == {"world", "a", "b", "table"}
    cs = detect(scene)
    assert {c.bodies for c in cs} == {("a", "world"), ("b", "world")}
    assert {c.mu for c in cs if c.bodies[0] == "b"} == {0.4}  # max(0.1, 0.4), MJCF's rule
    np.testing.assert_allclose(scene.placement("b").translation, [0.3, 0, 0.05])


def test_urdf_from_path_and_from_text_agree(tmp_path):
    f = tmp_path / "p.urdf"
    f.write_text(URDF)
    a, b = Scene.from_urdf(f), Scene.from_urdf(URDF)
    assert [j.name for j in a.joints] == [j.name for j in b.joints] == ["hinge"]
    assert a.bodies == b.bodies == ["arm", "base"]
    a.set_joint("hinge", 0.3)
    np.testing.assert_allclose(a.placement("arm").rotation[0, 2], np.sin(0.3))
    np.testing.assert_allclose(a.gravity_torques(), [9.81 * 0.5 * np.sin(0.3)], rtol=1e-12)


def test_urdf_base_placement_and_floating(tmp_path):
    s = Scene.from_urdf(URDF, base={"p": [0, 0, 2.0]})
    assert s.placement("arm").translation[2] == pytest.approx(2.0)
    assert detect(s) == []
    fl = Scene.from_urdf(URDF, floating=True, base={"p": [0, 0, 1.1]})
    assert fl.model.nv == 7 and fl.joints[0].free


def test_json_scene_with_a_robot_objects_and_state(tmp_path):
    (tmp_path / "p.urdf").write_text(URDF)
    d = {
        "robot": {
            "urdf": "p.urdf",
            "base": {"p": [0, 0, 1.2]},
            "joints": {"hinge": {"position": 0.0, "effort": 0.5}},
            "gravity_compensation": True,
        },
        "fixed": [{"name": "floor", "shape": {"type": "plane"}, "friction": 0.3}],
        "objects": [
            {
                "name": "ball",
                "shape": {"type": "sphere", "radius": 0.05},
                "mass": 0.2,
                "pose": {"p": [0, 0, 0.05]},
                "v": [0.1, 0, 0],
                "force": [1, 0, 0],
            }
        ],
        "friction": {"default": 0.6, "pairs": [["ball", "world", 0.25]]},
        "exclude": [["arm", "ball"]],
        "margin": 0.002,
    }
    (tmp_path / "s.json").write_text(json.dumps(d))
    scene, margin = load_scene(tmp_path / "s.json")
    assert margin == 0.002 and scene.default_friction == 0.6
    assert scene.tau[scene.joint("hinge").v][0] == pytest.approx(0.5)  # g(q) = 0 hanging straight
    np.testing.assert_allclose(scene.v[scene.joint("ball").v], [0.1, 0, 0, 0, 0, 0])
    (c,) = detect(scene, margin)
    assert c.bodies == ("ball", "world") and c.mu == 0.25
    np.testing.assert_allclose(scene.wrenches["ball"], [1, 0, 0, 0, 0, 0])


def test_example_scenes_are_shipped_and_named():
    names = sorted(p.name for p in EXAMPLE_SCENES.iterdir())
    assert {"box_on_plane.xml", "sphere_on_slope.xml", "gripper.xml", "gripper.json", "box_stack.json"} <= set(names)
    with pytest.raises(InvalidProblemError, match="box_on_plane.xml"):
        example_scene("nope.xml")


@pytest.mark.parametrize(
    "d, field",
    [
        ({"objects": [{"name": "b", "shape": {"type": "sphere", "radius": 1}}]}, "objects[0].mass"),
        ({"objects": [{"name": "world", "shape": {"type": "sphere", "radius": 1}, "mass": 1}]}, "name"),
        (
            {"fixed": [{"name": "f", "shape": {"type": "plane"}, "pose": {"p": [0, 0, 0], "quat": [0, 0, 0, 0]}}]},
            "f.pose.quat",
        ),
        (
            {"fixed": [{"name": "f", "shape": {"type": "plane"}, "pose": {"R": [[1, 0, 0], [0, 1, 0], [0, 0, 2]]}}]},
            "f.pose.R",
        ),
        ({"robot": {"urdf": "a.urdf", "mjcf": "b.xml"}}, "robot"),
        ({"robot": {"mjcf": "b.xml", "base": {"p": [0, 0, 1]}}}, "robot.base"),
        ({"robot": {"urdf": "package://nothing/x.urdf"}}, "robot.urdf"),
        ({}, "scene"),
    ],
)
def test_bad_json_scenes_name_the_field(tmp_path, d, field):
    with pytest.raises(InvalidProblemError) as e:
        scene_from_dict(d, tmp_path)
    assert e.value.field == field


def test_a_mesh_file_becomes_its_convex_hull(tmp_path):
    """A cube written as an OBJ mesh (8 vertices, 12 triangles), next to the JSON scene that names it:
    coal reads it, the hull rests on the floor on its four corners, and its mass properties are a
    uniform cube's."""
    v = [(x, y, z) for x in (-0.1, 0.1) for y in (-0.1, 0.1) for z in (-0.1, 0.1)]
    faces = [
        (1, 2, 4),
        (1, 4, 3),
        (5, 7, 8),
        (5, 8, 6),
        (1, 5, 6),
        (1, 6, 2),
        (3, 4, 8),
        (3, 8, 7),
        (1, 3, 7),
        (1, 7, 5),
        (2, 6, 8),
        (2, 8, 4),
    ]
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "cube.obj").write_text(
        "".join(f"v {x} {y} {z}\n" for x, y, z in v) + "".join(f"f {a} {b} {c}\n" for a, b, c in faces)
    )
    d = {
        "fixed": [{"name": "floor", "shape": {"type": "plane"}}],
        "objects": [
            {
                "name": "cube",
                "shape": {"type": "mesh", "file": "meshes/cube.obj"},
                "mass": 2.0,
                "pose": {"p": [0, 0, 0.1]},
            }
        ],
    }
    (tmp_path / "s.json").write_text(json.dumps(d))
    scene, _ = load_scene(tmp_path / "s.json")
    cs = detect(scene)
    assert len(cs) == 4 and all(abs(c.gap) < 1e-8 for c in cs)  # GJK/EPA on a polytope: to ~1e-9
    I = scene.model.inertias[scene.joint("cube").index]
    assert I.mass == 2.0
    np.testing.assert_allclose(I.inertia, 2.0 * (0.04 + 0.04) / 12 * np.eye(3), atol=1e-12)


def test_a_joint_that_moves_no_mass_is_named():
    """A link without <inertial>: the mass matrix is singular, and the error says which joint."""
    from contactcp.simulate.scene import solve_scene

    massless = URDF.replace(
        """<inertial><mass value="1"/><origin xyz="0 0 -0.5"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>""",
        "",
    )
    scene = Scene.from_urdf(massless, base={"p": [0, 0, 1.1]})
    scene.add_fixed("floor", {"type": "plane"})
    with pytest.raises(InvalidProblemError, match=r"mass matrix: .*\['hinge'\] move no mass"):
        solve_scene(scene)

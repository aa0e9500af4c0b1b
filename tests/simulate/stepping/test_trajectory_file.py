"""A trajectory file read back: every array, every step's contacts, the scheme and the bodies' shapes;
bad files refused with the project's own error."""

import h5py
import numpy as np
import pinocchio as pin
import pytest

from contactcp.errors import InvalidProblemError
from contactcp.models.scene import Scene
from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import Scheme, Trajectory, simulate
from contactcp.simulate.stepping.bodyshapes import BodyShape, scene_shapes


@pytest.fixture(scope="module")
def stack():
    return simulate(ts.box_stack(2), 0.05, 1e-2)


def _mixed_scene():
    scene = Scene(name="mixed")
    scene.add_fixed("floor", {"type": "plane"})
    scene.add_fixed("wall", {"type": "plane", "normal": [1, 0, 0], "offset": 2.0}, placement={"p": [0, 0, 1]})
    scene.add_body("ball", {"type": "sphere", "radius": 0.1}, 1.0, {"p": [0, 0, 0.5]})
    scene.add_body("pill", {"type": "capsule", "radius": 0.05, "length": 0.2}, 1.0, {"p": [1, 0, 0.5]})
    scene.add_body("can", {"type": "cylinder", "radius": 0.05, "length": 0.1}, 1.0, {"p": [2, 0, 0.5]})
    tetra = [[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]
    scene.add_body("tetra", {"type": "mesh", "vertices": tetra}, 1.0, {"p": [3, 0, 0.5], "rpy": [0.1, 0.2, 0.3]})
    scene.add_body("brick", {"type": "box", "size": [0.3, 0.2, 0.1]}, 1.0, {"p": [4, 0, 0.5]})
    return scene


def test_scene_shapes_describe_every_geometry():
    shapes = {s.name: s for s in scene_shapes(_mixed_scene())}
    assert [shapes[n].kind for n in ("floor", "wall", "ball", "pill", "can", "tetra", "brick")] == [
        "plane",
        "plane",
        "sphere",
        "capsule",
        "cylinder",
        "mesh",
        "box",
    ]
    assert shapes["floor"].body == "world" and shapes["ball"].body == "ball"
    np.testing.assert_allclose(shapes["wall"].params, [1, 0, 0, 2.0])
    np.testing.assert_allclose(shapes["wall"].placement[:3, 3], [0, 0, 1])
    np.testing.assert_allclose(shapes["pill"].params, [0.05, 0.2, 0, 0])
    np.testing.assert_allclose(shapes["brick"].params, [0.3, 0.2, 0.1, 0])
    assert shapes["tetra"].vertices.shape == (4, 3)
    np.testing.assert_allclose(shapes["ball"].placement, np.eye(4))


def test_a_robot_links_geometry_is_placed_in_the_links_frame():
    model, collision = pin.Model(), pin.GeometryModel()
    j = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "j")
    model.appendBodyToJoint(j, pin.Inertia.Random(), pin.SE3.Identity())
    link_in_joint = pin.SE3(pin.rpy.rpyToMatrix(0.3, 0, 0), np.array([0.0, 0.0, 0.5]))
    f = model.addFrame(pin.Frame("link", j, link_in_joint, pin.FrameType.BODY))
    geom_in_joint = pin.SE3(np.eye(3), np.array([0.1, 0.0, 0.5]))
    import coal

    collision.addGeometryObject(pin.GeometryObject("g", j, f, geom_in_joint, coal.Sphere(0.1)))
    (shape,) = scene_shapes(Scene(model, collision))
    assert shape.body == "link"
    np.testing.assert_allclose(shape.placement, (link_in_joint.inverse() * geom_in_joint).homogeneous, atol=1e-15)


def test_the_file_reads_back_equal(stack, tmp_path):
    path = tmp_path / "stack.h5"
    stack.to_hdf5(path)
    back = Trajectory.from_hdf5(path)
    for key in ("t", "q", "v", "body_pos", "body_quat", "energy"):
        np.testing.assert_array_equal(getattr(back, key), getattr(stack, key))
    assert back.body_names == stack.body_names and back.name == stack.name and back.dt == stack.dt
    assert back.scheme == stack.scheme and back.status is stack.status and back.mode_counts() == stack.mode_counts()
    assert back.wall_time == stack.wall_time and back.stopped is False
    assert len(back.steps) == len(stack.steps) == 5
    for a, b in zip(back.steps, stack.steps):
        assert (a.t, a.status, a.residual, a.method, a.keys, a.bodies) == (
            b.t,
            b.status,
            b.residual,
            b.method,
            b.keys,
            b.bodies,
        )
        for key in ("points", "normals", "gap", "active", "impulse", "impulse_world", "velocity", "mode"):
            np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
    assert [(s.body, s.kind) for s in back.shapes] == [("world", "plane"), ("box0", "box"), ("box1", "box")]
    for a, b in zip(back.shapes, stack.shapes):
        np.testing.assert_array_equal(a.params, b.params)
        np.testing.assert_array_equal(a.placement, b.placement)


def test_mesh_vertices_and_scheme_options_survive_the_file(tmp_path):
    traj = simulate(_mixed_scene(), 0.02, 1e-2, scheme=Scheme.siconos())
    traj.to_hdf5(tmp_path / "m.h5")
    back = Trajectory.from_hdf5(tmp_path / "m.h5")
    assert back.scheme == Scheme.siconos()
    (tetra,) = [s for s in back.shapes if s.kind == "mesh"]
    np.testing.assert_array_equal(tetra.vertices, [s for s in traj.shapes if s.kind == "mesh"][0].vertices)
    assert len(back.shapes) == 7


def test_a_linear_system_has_no_shapes_and_its_file_reads_back(tmp_path):
    traj = simulate(ts.siconos_ball(), 0.05, 1e-2)
    assert traj.shapes == [] and traj.body_names == []
    traj.to_hdf5(tmp_path / "l.h5")
    back = Trajectory.from_hdf5(tmp_path / "l.h5")
    assert back.shapes == [] and back.body_pos.shape == (6, 0, 3)


def _replace(h5, key, change):
    """Dataset ``key`` replaced by ``change`` of its values, as floats."""
    values = change(h5[key][()].astype(float))
    del h5[key]
    h5.create_dataset(key, data=values)


def _broken(tmp_path, stack, edit):
    path = tmp_path / "b.h5"
    stack.to_hdf5(path)
    with h5py.File(path, "a") as h5:
        edit(h5)
    return path


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda h5: h5.__delitem__("q"), "no 'q'"),
        (lambda h5: h5.__delitem__("steps"), "no 'steps'"),
        (lambda h5: (h5.__delitem__("energy"), h5.create_dataset("energy", data=np.zeros(3))), "'energy' has shape"),
        (
            lambda h5: (h5.__delitem__("shapes/params"), h5.create_dataset("shapes/params", data=np.zeros((2, 4)))),
            "'shapes/body' must hold 2",
        ),
        (lambda h5: h5["contacts/offset"].__setitem__(-1, 10**6), "must hold 1000000"),
        (lambda h5: h5["shapes/kind"].__setitem__(0, "torus"), "torus"),
        (lambda h5: h5["steps/status"].__setitem__(0, "GREAT"), "GREAT"),
        (lambda h5: h5.attrs.__setitem__("dt", -1.0), "dt"),
        (lambda h5: h5["steps/substeps"].__setitem__(0, 0), "whole numbers >= 1"),
        (lambda h5: _replace(h5, "steps/substeps", lambda a: np.where(np.arange(a.size) == 0, 1.5, a)), "whole"),
        (lambda h5: _replace(h5, "steps/substeps", lambda a: np.where(np.arange(a.size) == 0, np.nan, a)), "whole"),
        (
            lambda h5: (h5.__delitem__("steps/substeps"), h5.create_dataset("steps/substeps", data=[1, 1])),
            "'steps/substeps' has shape",
        ),
    ],
)
def test_a_malformed_file_is_refused(stack, tmp_path, edit, words):
    path = _broken(tmp_path, stack, edit)
    with pytest.raises(InvalidProblemError, match=words) as err:
        Trajectory.from_hdf5(path)
    assert str(path) in str(err.value)


def test_a_missing_or_foreign_file_is_refused(tmp_path):
    with pytest.raises(InvalidProblemError, match="no such file"):
        Trajectory.from_hdf5(tmp_path / "none.h5")
    (tmp_path / "text.h5").write_text("not hdf5")
    with pytest.raises(InvalidProblemError, match="not a readable HDF5 file"):
        Trajectory.from_hdf5(tmp_path / "text.h5")
    with h5py.File(tmp_path / "other.h5", "w") as h5:
        h5["x"] = np.zeros(3)
    with pytest.raises(InvalidProblemError, match="not a contactcp trajectory file"):
        Trajectory.from_hdf5(tmp_path / "other.h5")


def test_body_shape_defaults():
    s = BodyShape("b", "b", "sphere", np.array([1.0, 0, 0, 0]))
    np.testing.assert_array_equal(s.placement, np.eye(4))
    assert s.vertices.shape == (0, 3)

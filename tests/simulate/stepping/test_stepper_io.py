"""The stepper's interface: the trajectory file, the command line, inputs, bad options, mode records."""

import json
import subprocess
import sys

import h5py
import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contactcp.errors import ContactCPError, InvalidOptionError, InvalidProblemError
from contactcp.io.scene_files import example_scene, load_scene
from contactcp.models.scene import Scene, detect
from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import LinearSystem, Scheme, pd_efforts, simulate


def test_hdf5_trajectory_has_the_layout_and_the_numbers(tmp_path):
    traj = simulate(ts.slope_box(0.3, 20.0, 0.0), 0.02, 1e-3)
    path = tmp_path / "slide.h5"
    traj.to_hdf5(path)
    with h5py.File(path, "r") as h5:
        assert h5.attrs["status"] == "SOLVED" and h5.attrs["dt"] == 1e-3
        np.testing.assert_array_equal(h5["t"][()], traj.t)
        assert h5["q"].shape == (21, 7) and h5["v"].shape == (21, 6)
        assert [n.decode() for n in h5["body_names"][()]] == ["box"]
        assert h5["body_pos"].shape == (21, 1, 3) and h5["body_quat"].shape == (21, 1, 4)
        np.testing.assert_allclose(h5["body_quat"][0, 0], [1, 0, 0, 0])  # w, x, y, z
        off = h5["contacts/offset"][()]
        assert off[0] == 0 and off[-1] == h5["contacts/impulse"].shape[0] == 4 * 20
        modes = h5["contacts"].attrs["modes"].split(",")
        assert {modes[m] for m in h5["contacts/mode"][()]} == {"sliding"}
        assert set(h5["steps/status"].asstr()[()]) == {"SOLVED"}
        k = 7  # step 7's contacts: their normal impulses carry the weight's normal part
        rows = slice(off[k], off[k + 1])
        total = h5["contacts/impulse"][rows][:, 0].sum() / 1e-3
        assert total == pytest.approx(ts.G * np.cos(np.radians(20.0)), rel=1e-9)


def test_a_failed_write_leaves_the_old_file(tmp_path, monkeypatch):
    traj = simulate(ts.bouncing_ball(), 0.01, 1e-3)
    path = tmp_path / "t.h5"
    path.write_bytes(b"old")
    monkeypatch.setattr(h5py.File, "create_group", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        traj.to_hdf5(path)
    assert path.read_bytes() == b"old" and list(tmp_path.iterdir()) == [path]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "contactcp.cli", "simulate", *args], capture_output=True, text=True)


def test_cli_prints_the_run_as_json_and_writes_the_file(tmp_path):
    out = tmp_path / "ball.h5"
    p = _cli("bouncing-ball", "--duration", "0.6", "--dt", "1e-3", "--restitution", "0.5", "--json", "--out", str(out))
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert {"status", "success", "steps", "failed_steps", "final_time", "wall_time", "max_residual"} <= set(d)
    assert d["status"] == "SOLVED" and d["steps"] == 600 and d["failed_steps"] == 0 and d["final_time"] == 0.6
    with h5py.File(out) as h5:
        z = h5["body_pos"][:, 0, 2] - 0.1
    # the scene sets e = 0.9 itself: --restitution is for pairs it does not set
    assert z[-1] > 0.3


@pytest.mark.parametrize(
    "args, field",
    [
        (["nowhere.json", "--duration", "1"], "nowhere.json"),
        (["box-stack", "--duration", "-1"], "duration"),
        (["box-stack", "--duration", "1", "--dt", "0"], "dt"),
        (["box-stack", "--duration", "1", "--restitution", "1.5"], "restitution"),
        (["box-stack", "--duration", "1", "--out", "x.txt"], "--out"),
        (["box-stack", "--duration", "nan"], "duration"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args, field):
    p = _cli(*args)
    assert p.returncode == 2
    assert p.stdout == "" and len(p.stderr.strip().splitlines()) == 1 and field in p.stderr


def test_restitution_from_json_scene_file(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(
        json.dumps(
            {
                "fixed": [{"name": "floor", "shape": {"type": "plane"}}],
                "objects": [
                    {"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "pose": {"p": [0, 0, 1.1]}}
                ],
                "restitution": {"default": 0.5, "pairs": [["ball", "world", 0.8]]},
            }
        )
    )
    scene, _ = load_scene(f)
    assert scene.restitution(("ball", "world")) == 0.8 and scene.restitution(("a", "b")) == 0.5
    f.write_text(json.dumps({"fixed": [{"name": "floor", "shape": {"type": "plane"}}], "restitution": {"default": -1}}))
    with pytest.raises(InvalidProblemError, match="restitution.default"):
        load_scene(f)


@pytest.mark.parametrize(
    "options, field",
    [
        ({"theta": 0.3}, "theta"),
        ({"gamma": 2.0}, "gamma"),
        ({"tol": 0.0}, "tol"),
        ({"activation_gap": -1.0}, "activation_gap"),
        ({"theta": "half"}, "theta"),
        ({"projection": "no"}, "projection"),
        ({"method": "bogus"}, "bogus"),
    ],
)
def test_bad_scheme_options_name_their_field(options, field):
    with pytest.raises(ContactCPError, match=field):
        simulate(ts.bouncing_ball(), 0.01, 1e-3, **options)


def test_bad_systems_name_their_field():
    with pytest.raises(InvalidProblemError, match="^M:"):
        LinearSystem([[1.0, 0.0], [0.0, 0.0]], [0, 0], [[1.0], [0.0]], [1, 0])
    with pytest.raises(InvalidProblemError, match=r"^e\[0\]"):
        LinearSystem(np.eye(1), [-1.0], [[1.0]], [1.0], e=1.5)
    with pytest.raises(InvalidProblemError, match="^H:"):  # constraints as rows: refused, not reshaped
        LinearSystem(np.eye(3), [0, 0, -1.0], [[1.0, 0, 0], [0, 1.0, 0]], [1, 1, 1])
    with pytest.raises(InvalidProblemError, match="^system"):
        simulate("ball.json", 0.1, 1e-3)
    with pytest.raises(InvalidOptionError, match="thet"):
        simulate(ts.bouncing_ball(), 0.1, 1e-3, thet=0.6)
    with pytest.raises(InvalidOptionError, match="duration"):
        simulate(ts.bouncing_ball(), 1e300, 1e-10)
    with pytest.raises(InvalidOptionError, match="scheme"):
        simulate(ts.bouncing_ball(), 0.01, 1e-3, scheme=Scheme(), theta=0.6)
    with pytest.raises(InvalidProblemError, match="efforts"):
        simulate(ts.bouncing_ball(), 0.01, 1e-3, efforts=np.ones(6))


def test_pd_efforts_drive_a_gripper_finger_to_its_target():
    scene, margin = load_scene(example_scene("gripper.json"))
    scene.tau[:] = 0.0
    name = "left_slide"
    j = scene.joint(name)
    traj = simulate(scene, 0.5, 1e-3, efforts=pd_efforts(scene, {name: 0.01}, kp=400.0, kd=40.0), margin=margin)
    assert traj.success
    assert traj.q[-1, j.q.start] == pytest.approx(0.01, abs=1e-4)


def test_two_boxes_face_to_face_give_four_corners_and_the_exact_normal():
    s = ts.box_stack(2)
    cs = [c for c in detect(s) if c.bodies == ("box1", "box0")]
    assert len(cs) == 4
    assert all(np.allclose(c.normal, [0, 0, 1], atol=1e-9) for c in cs)
    assert all(abs(c.gap) < 1e-9 for c in cs)


@settings(max_examples=30, deadline=None)
@given(
    e=st.floats(0.0, 1.0),
    h0=st.one_of(st.floats(0.01, 2.0), st.sampled_from([0.0, -1e-9, 1e-12])),
    v0=st.one_of(st.just(0.0), st.floats(-1.0, 1.0)),
    dt=st.sampled_from([1e-3, 4e-3, 1e-2]),
)
def test_a_dropped_ball_never_gains_energy_nor_sinks(e, h0, v0, dt):
    """Siconos' linear ball with the default scheme, from above, on or a nanometre into the floor,
    moving up or down: its energy never rises beyond rounding and it does not stay in the floor."""
    system = LinearSystem(
        np.diag([1.0, 1.0, 0.004]), [-ts.G, 0.0, 0.0], [[1.0], [0.0], [0.0]], [h0, 0.0, 0.0], v0=[v0, 0, 0], e=e
    )
    traj = simulate(system, 1.5, dt)
    assert traj.success
    gain = np.diff(traj.energy)
    gain[0] = min(gain[0], 0.0)  # a start inside the floor is pushed out in the first step
    assert gain.max() <= 1e-12 * (1.0 + abs(traj.energy[0]))
    assert traj.q[1:, 0].min() >= -1e-12


def test_a_scene_is_left_in_its_final_state():
    scene = Scene()
    scene.add_body("ball", {"type": "sphere", "radius": 0.1}, 1.0, {"p": [0, 0, 1.0]})
    traj = simulate(scene, 0.1, 1e-3)  # free fall, no contact: the trapezoidal rule is exact
    assert traj.steps[-1].method == "free"
    assert scene.q[2] == pytest.approx(1.0 - 0.5 * 9.81 * 0.1**2, rel=1e-12) == traj.q[-1, 2]


def test_a_projection_that_turns_a_body_keeps_its_world_velocity():
    """A tilted spinning box hitting the floor: the projection's rotation must not turn its velocity."""
    scene = Scene()
    scene.add_fixed("floor", {"type": "plane"}, friction=0.5)
    scene.add_body(
        "box",
        {"type": "box", "size": [0.1] * 3},
        1.0,
        {"p": [0, 0, 0.07], "rpy": [0.3, 0.2, 0.0]},
        v=[1, 0, -2],
        omega=[0, 0, 5],
    )
    scene.default_restitution = 0.5
    traj = simulate(scene, 0.05, 1e-3)
    assert traj.success
    # the world velocity of the origin (the centre): constant sideways in flight, and a projected
    # step changes it only by its impulse (along the normal and friction), not by the turn
    R = [pin.Quaternion(*traj.body_quat[k, 0]).toRotationMatrix() for k in range(len(traj.t))]
    vw = np.array([R[k] @ traj.v[k, :3] for k in range(len(traj.t))])
    free = [k for k, s in enumerate(traj.steps) if not s.keys]
    assert free and any(s.projected for s in traj.steps)
    for k in free:
        np.testing.assert_allclose(vw[k + 1], vw[k] + [0, 0, -9.81e-3], atol=1e-12)
    for k, s in enumerate(traj.steps):
        if s.projected:
            np.testing.assert_allclose(vw[k + 1] - vw[k], s.impulse_world.sum(axis=0) + [0, 0, -9.81e-3], atol=1e-9)


def test_singular_mass_and_divergence_are_reported_not_crashed():
    system = LinearSystem(np.eye(1), [-9.81], [[1.0]], [1.0])
    system.M = np.zeros((1, 1))  # as if a joint moved no mass
    with pytest.raises(InvalidProblemError, match="mass matrix"):
        simulate(system, 0.01, 1e-3)
    runaway = LinearSystem([[1e-300]], [1e10], [[1.0]], [1.0])  # an acceleration beyond double range
    traj = simulate(runaway, 0.01, 1e-3)
    assert not traj.success and traj.stopped and traj.steps[-1].status.name == "NUMERICAL_FAILURE"


def test_a_ball_leaving_the_floor_slowly_comes_back_without_gaining_energy():
    """Found in review: a contact at zero gap moving up at 1 mm/s returns within the step."""
    traj = simulate(LinearSystem(np.eye(1), [-9.81], [[1.0]], [0.0], v0=[1e-3], e=0.9), 0.05, 1e-3)
    assert traj.success
    assert np.diff(traj.energy).max() <= 1e-15 and traj.q[:, 0].min() >= -1e-15

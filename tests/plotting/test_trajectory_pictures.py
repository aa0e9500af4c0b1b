"""Pictures of a trajectory: the plotted data are the trajectory's, the files are valid PNG/GIF/HTML
with the expected frames, written from a run or from its file alone, and bad input is refused."""

import json
import subprocess
import sys

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image

from contactcp.errors import InvalidOptionError, InvalidProblemError, MissingDependencyError
from contactcp.plotting.animation import (
    animate_trajectory,
    animation_frames,
    quaternion_matrices,
    shape_surface,
)
from contactcp.plotting.trajectory import mode_raster, mode_series, plot_trajectory
from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import MODES, simulate
from contactcp.simulate.stepping.bodyshapes import BodyShape, scene_shapes


@pytest.fixture(scope="module")
def ball():
    return simulate(ts.bouncing_ball(h0=1.0), 0.2, 1e-2)  # falls free: no contact yet


@pytest.fixture(scope="module")
def stack():
    return simulate(ts.box_stack(2), 0.1, 1e-2)


def test_the_panels_show_the_trajectorys_numbers(stack, tmp_path):
    fig = plot_trajectory(stack, tmp_path / "s.png")
    pos, energy, change, counts_ax, raster_ax = fig.axes
    lines = {line.get_label(): line for line in pos.lines}
    assert set(lines) == {f"box{i} {c}" for i in range(2) for c in "xyz"}
    np.testing.assert_array_equal(lines["box1 z"].get_xdata(), stack.t)
    np.testing.assert_array_equal(lines["box1 z"].get_ydata(), stack.body("box1")[0][:, 2])
    np.testing.assert_array_equal(energy.lines[0].get_ydata(), stack.energy)
    np.testing.assert_array_equal(change.lines[0].get_ydata(), np.diff(stack.energy))
    keys, raster = mode_raster(stack)
    np.testing.assert_array_equal(raster_ax.images[0].get_array(), raster + 1)
    assert len(keys) == 8  # four corners on the floor, four between the boxes
    with Image.open(tmp_path / "s.png") as im:
        assert im.format == "PNG" and im.size[0] > 500
    plt.close(fig)


def test_mode_counts_per_step_add_up(stack):
    t, counts = mode_series(stack)
    np.testing.assert_array_equal(t, stack.t[1:])
    assert counts.shape == (10, len(MODES))
    for k, s in enumerate(stack.steps):
        assert counts[k].sum() == len(s.keys)
        assert counts[k, MODES.index("sticking")] == int(np.sum(s.mode == MODES.index("sticking")))
    assert counts.sum(axis=0).tolist() == list(stack.mode_counts().values())


def test_bodies_can_be_chosen_and_unknown_ones_are_refused(stack):
    fig = plot_trajectory(stack, bodies="box0")
    assert {line.get_label() for line in fig.axes[0].lines} == {"box0 x", "box0 y", "box0 z"}
    plt.close(fig)
    with pytest.raises(InvalidProblemError, match="no body 'lid'"):
        plot_trajectory(stack, bodies=["lid"])
    with pytest.raises(InvalidProblemError, match="must be a Trajectory"):
        plot_trajectory({"t": [0]})


def test_a_run_without_contacts_is_drawn(ball, tmp_path):
    fig = plot_trajectory(ball, tmp_path / "b.svg")
    assert (tmp_path / "b.svg").read_text().lstrip().startswith("<?xml")
    assert fig.axes[4].images[0].get_array().shape == (0, len(ball.steps))
    plt.close(fig)


def test_the_gif_has_one_frame_per_shown_state(ball, tmp_path):
    frames = animation_frames(ball, fps=25, stride=3)
    np.testing.assert_array_equal(frames, [0, 3, 6, 9, 12, 15, 18, 20])
    n = animate_trajectory(ball, tmp_path / "b.gif", stride=3)
    with Image.open(tmp_path / "b.gif") as im:
        assert im.format == "GIF" and im.n_frames == n == 8


def test_real_time_frames_and_the_cap(ball):
    assert len(animation_frames(ball, fps=25)) == 6  # 4 steps of 10 ms per frame of 40 ms, and the last
    assert len(animation_frames(ball, fps=100, max_frames=5)) <= 6


def test_an_animation_from_the_file_alone(stack, tmp_path):
    stack.to_hdf5(tmp_path / "s.h5")
    n = animate_trajectory(tmp_path / "s.h5", tmp_path / "s.html", stride=5)
    text = (tmp_path / "s.html").read_text()
    assert n == 3 and text.count("data:image/png;base64") == n


def test_shape_surfaces_are_the_shapes():
    box = BodyShape("b", "b", "box", np.array([0.2, 0.4, 0.6, 0.0]))
    V, F = shape_surface(box)
    np.testing.assert_allclose(V.max(axis=0), [0.1, 0.2, 0.3]) and F.shape == (6, 4)
    T = np.eye(4)
    T[:3, 3] = [1, 2, 3]
    sphere = BodyShape("b", "b", "sphere", np.array([0.5, 0, 0, 0]), T)
    V, _ = shape_surface(sphere)
    np.testing.assert_allclose(np.linalg.norm(V - [1, 2, 3], axis=1), 0.5)
    capsule = BodyShape("b", "b", "capsule", np.array([0.1, 0.4, 0, 0]))
    V, _ = shape_surface(capsule)
    np.testing.assert_allclose([V[:, 2].min(), V[:, 2].max()], [-0.3, 0.3])
    assert shape_surface(BodyShape("w", "f", "plane", np.array([0, 0, 1.0, 0]))) is None


def test_quaternions_turn_as_pinocchio_does():
    import pinocchio as pin

    q = pin.Quaternion(pin.rpy.rpyToMatrix(0.3, -0.2, 1.1))
    np.testing.assert_allclose(quaternion_matrices([q.w, q.x, q.y, q.z]), q.toRotationMatrix(), atol=1e-15)


def test_a_scene_can_give_the_shapes(stack, tmp_path):
    bare = simulate(ts.box_stack(2), 0.02, 1e-2)
    bare.shapes = []
    n = animate_trajectory(bare, tmp_path / "a.gif", geometry=ts.box_stack(2), stride=1)
    assert n == 3 and len(scene_shapes(ts.box_stack(2))) == 3
    assert animate_trajectory(bare, tmp_path / "dots.gif") == 2  # no shapes: the bodies as dots


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"path": "a.mp4"}, InvalidProblemError, "must end in .gif"),
        ({"fps": 0}, InvalidOptionError, "fps"),
        ({"stride": 0}, InvalidOptionError, "stride"),
        ({"stride": 1.5}, InvalidOptionError, "stride"),
        ({"geometry": "floor"}, InvalidProblemError, "geometry"),
    ],
)
def test_bad_animation_options_are_refused(ball, tmp_path, kwargs, error, words):
    args = {"path": "a.gif", **kwargs}
    args["path"] = tmp_path / args["path"]
    with pytest.raises(error, match=words):
        animate_trajectory(ball, **args)
    assert list(tmp_path.iterdir()) == []


def test_a_linear_system_has_nothing_to_draw(tmp_path):
    with pytest.raises(InvalidProblemError, match="no bodies"):
        animate_trajectory(simulate(ts.siconos_ball(), 0.02, 1e-2), tmp_path / "x.gif")


def test_meshcat_missing_raises_the_projects_error(ball, monkeypatch):
    from contactcp.plotting import meshcat_view

    monkeypatch.setitem(sys.modules, "meshcat", None)
    assert not meshcat_view.meshcat_available()
    with pytest.raises(MissingDependencyError, match="pip install"):
        meshcat_view.show_meshcat(ball)


def test_meshcat_view_writes_a_page(ball, tmp_path):
    pytest.importorskip("meshcat")
    from contactcp.plotting.meshcat_view import show_meshcat

    vis = show_meshcat(ball, html=tmp_path / "m.html", stride=5)
    try:
        text = (tmp_path / "m.html").read_text()
        assert "<html>" in text and len(text) > 10_000
    finally:
        vis.window.server_proc.kill()
        vis.window.server_proc.wait()


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "contactcp.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_simulate_plots_and_animates_then_view_reads_the_file(tmp_path):
    p = _cli(
        "simulate",
        "bouncing-ball",
        "--duration",
        "0.2",
        "--dt",
        "1e-2",
        "--out",
        "b.h5",
        "--plot",
        "b.png",
        "--animate",
        "b.gif",
        "--json",
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["plot"] == "b.png" and d["animation"] == "b.gif" and d["frames"] == 6
    with Image.open(tmp_path / "b.gif") as im:
        assert im.n_frames == 6
    p = _cli("view", "b.h5", "--animate", "v.html", "--stride", "10", "--plot", "v.pdf", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "animation (3 frames) written to v.html" in p.stdout and "SOLVED" in p.stdout
    assert (tmp_path / "v.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize(
    "args, words",
    [
        (["view", "none.h5"], "none.h5: no such file"),
        (["view", "bad.h5"], "bad.h5: is not a readable HDF5 file"),
        (["view", "bad.h5", "--animate", "x.mp4"], "--animate: must end in .gif"),
        (["simulate", "bouncing-ball", "--duration", "0.1", "--plot", "x.gif"], "--plot: must end in .png"),
        (["simulate", "bouncing-ball", "--duration", "0.1", "--animate", "x.gif", "--fps", "0"], "--fps"),
        (["view", "bad.h5", "--stride", "0"], "--stride"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, args, words):
    (tmp_path / "bad.h5").write_text("not an HDF5 file")
    p = _cli(*args, cwd=tmp_path)
    assert p.returncode == 2 and words in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["bad.h5"]

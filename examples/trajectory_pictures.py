"""Pictures of a run: positions, energy and contact modes over time, and a 3-D animation of the motion.

A ball bounces on a floor and a box slides down a slope.  The pictures are written from the run,
then again from its HDF5 file alone (the file keeps the bodies' collision shapes), as a PNG, an
animated GIF and a self-contained HTML page.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from PIL import Image

from contactcp.plotting.animation import animate_trajectory
from contactcp.plotting.trajectory import mode_series, plot_trajectory
from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import MODES, Trajectory, simulate

ball = simulate(ts.bouncing_ball(e=0.7, h0=0.5), duration=1.5, dt=5e-3)
box = simulate(ts.slope_box(mu=0.3), duration=0.3, dt=1e-2)

with tempfile.TemporaryDirectory() as folder:
    folder = Path(folder)
    fig = plot_trajectory(ball, folder / "ball.png")  # positions, energy, its change per step, modes
    plt.close(fig)
    t, counts = mode_series(box)  # the numbers behind the modes panel: contacts per mode per step
    print("box on the slope, contacts in the last step by mode:", dict(zip(MODES, counts[-1].tolist())))
    assert (counts[:, 2] == 4).all()  # its four corners slide at every step

    frames = animate_trajectory(ball, folder / "ball.gif", fps=20)  # real time at 20 frames per second
    with Image.open(folder / "ball.gif") as gif:
        print(f"ball.gif: {gif.n_frames} frames of {gif.size[0]} x {gif.size[1]} pixels")
        assert gif.n_frames == frames

    # from the file alone: the trajectory and its shapes come back
    box.to_hdf5(folder / "box.h5")
    again = Trajectory.from_hdf5(folder / "box.h5")
    assert np.array_equal(again.body_pos, box.body_pos) and [s.kind for s in again.shapes] == ["plane", "box"]
    frames = animate_trajectory(folder / "box.h5", folder / "box.html", stride=3)
    print(f"box.html: {frames} frames, {(folder / 'box.html').stat().st_size / 1e6:.1f} MB, no video encoder needed")

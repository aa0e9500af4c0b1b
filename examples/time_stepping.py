"""Time stepping: a ball bouncing with restitution, a box sliding down a slope, a certified step each.

Every step's impulse problem is solved and certified (its own residual within ``tol``), so the run
reports how many steps were not; the numbers below are checked against the analytic answers.
"""

import math
import tempfile
from pathlib import Path

import h5py
import numpy as np

from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import simulate

# a ball dropped from 1 m on a frictionless floor, e = 0.9, steps of 1 ms
ball = simulate(ts.bouncing_ball(e=0.9, h0=1.0), duration=4.0, dt=1e-3)
print(ball.summary())
z, vz = ball.body("ball")[0][:, 2] - 0.1, ball.v[:, 2]
apexes = [z[k] + vz[k] ** 2 / (2 * ts.G) for k in range(len(z) - 1) if vz[k] > 0 >= vz[k + 1]]
print("apexes:", np.round(apexes[:4], 6), "exact:", [round(0.81**k, 6) for k in range(1, 5)])
assert ball.success and np.allclose(apexes[:4], [0.81**k for k in range(1, 5)], rtol=1e-4)
assert z.min() > -1e-9 and ball.max_energy_gain < 1e-12  # no penetration, never an energy gain

# a 1 kg cube on a 20-degree slope (gravity tilted 30 degrees off the x axis), mu = 0.3: it slides
box = simulate(ts.slope_box(mu=0.3, slope=20.0, direction=30.0), duration=1.0, dt=1e-3)
p = box.body("box")[0]
speed = np.linalg.norm(p[-1, :2] - p[-2, :2]) / 1e-3
exact = ts.G * (math.sin(math.radians(20)) - 0.3 * math.cos(math.radians(20))) * (1.0 - 0.5e-3)
print(f"sliding speed {speed:.12f} m/s, exact {exact:.12f}; modes {box.mode_counts()}")
assert box.success and abs(speed - exact) <= 1e-9 * exact

# the whole trajectory, every step's contacts and statuses, in one HDF5 file
with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "slide.h5"
    box.to_hdf5(path)
    with h5py.File(path) as h5:
        print("file:", sorted(h5), "contact rows:", h5["contacts/impulse"].shape[0])

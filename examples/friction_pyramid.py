"""Coulomb's cone against the Stewart–Trinkle friction pyramid: a box sliding on a slope.

The pyramid (``friction="pyramid"``, an LCP solved by Lemke) is exact along its edges and weaker
between them; the cone is exact in every direction.
"""

import math

import numpy as np

from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import simulate

T, k = 1.0, 8
exact = ts.sliding_speed(0.3, T)
for direction in (0.0, 22.5):
    scene = ts.slope_box(mu=0.3, slope=20.0, direction=direction)
    pyramid = simulate(scene, duration=T, dt=1e-3, friction="pyramid", pyramid_edges=k)
    cone = simulate(ts.slope_box(mu=0.3, slope=20.0, direction=direction), duration=T, dt=1e-3)
    vp, vc = np.linalg.norm(pyramid.v[-1][:3]), np.linalg.norm(cone.v[-1][:3])
    print(f"direction {direction:4.1f} deg: cone {vc:.9f}  pyramid {vp:.9f}  exact {exact:.9f} m/s")
    assert pyramid.success and cone.success
    assert abs(vc / exact - 1) <= 1e-9
# between two edges the octagon's friction is mu cos(pi / 8): the box slides faster
mu_eff = 0.3 * math.cos(math.pi / k)
assert abs(vp / (ts.G * (math.sin(math.radians(20)) - mu_eff * math.cos(math.radians(20))) * T) - 1) <= 1e-9

"""Time stepping the papers' grasps: three PUMA-560 fingers hold a sphere (Buffo & Maciel 2006), and
slip it below the least friction their forces need; Yashima & Yamaguchi's two-finger hand starts in
the contact modes its map predicts for the torques.

Run: python examples/timestepping_robots.py
"""

import numpy as np

from contactcp.scenarios import timestepping_robots as tr
from contactcp.scenarios.yashima import hand_states
from contactcp.simulate.stepping import simulate
from contactcp.simulate.stepping.moreau_jean import MODES

# 1. the grasp held by its equilibrium efforts (mu = 0.4): the sphere does not move, every contact sticks
held = simulate(tr.puma_grasp(mu=0.4), duration=0.2, dt=1e-3, margin=tr.PUMA_MARGIN)
p = held.body("sphere")[0]
drift = float(np.linalg.norm(p - p[0], axis=1).max())
print(held.summary())
print(f"sphere moved {drift:.2e} m in 0.2 s; {held.wall_time / len(held.steps) * 1e3:.2f} ms per step")
assert held.success and drift < 1e-9 and held.mode_counts()["sticking"] == 3 * len(held.steps)

# 2. the least friction those forces need, and the same efforts with less: the sphere slides out
mu_min = tr.min_friction()
slip = simulate(tr.puma_grasp(mu=tr.PUMA_SLIP_MU), duration=0.1, dt=1e-3, margin=tr.PUMA_MARGIN)
z = slip.body("sphere")[0][:, 2]
print(f"least mu {mu_min:.4f}; at mu = {tr.PUMA_SLIP_MU}: first modes {[MODES[m] for m in slip.steps[0].mode]},")
print(f"  the sphere drops {z[0] - z[-1]:.4f} m in 0.1 s")
assert abs(mu_min - 0.143664) < 1e-6 and all(m == 2 for m in slip.steps[0].mode) and z[0] - z[-1] > 5e-3

# 3. the hand at (tau1, tau2) = (8, 1) N m, mu = 0.4: the map says finger 1 rolls, finger 2 slides (RS)
ref = hand_states(np.array([8.0]), np.array([1.0]), mu=0.4)
hand = simulate(tr.yashima_hand(mu=0.4, tau1=8.0, tau2=1.0), duration=0.05, dt=1e-3)
first = dict(zip(hand.steps[0].keys, (MODES[m] for m in hand.steps[0].mode)))
print(
    "map: contact 1",
    ["rolling", "sliding"][int(ref["mode1"][0])],
    "contact 2",
    ["rolling", "sliding"][int(ref["mode2"][0])],
)
print("stepper, first step:", first)
assert first == {"object/finger1_link2": "sticking", "object/finger2_link2": "sliding"} and hand.success

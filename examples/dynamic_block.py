"""A block on a table pushed sideways: contact forces, accelerations and modes (Trinkle et al. 1995).

Run: python examples/dynamic_block.py
"""

import numpy as np

from contactcp.models import Contact, MultibodySystem, RigidBody
from contactcp.simulate.instant import solve_dynamic

# 1 kg block, corners at (+-1, +-1, 0) on the table, mu = 0.5; gravity is added to the applied wrench
push = 6.0  # N, more than mu m g = 4.905 N
block = RigidBody(mass=1.0, wrench=[push, 0, 0, 0, 0, 0])
corners = [Contact(0, [x, y, 0], [0, 0, 1], mu=0.5) for x in (-1, 1) for y in (-1, 1)]
system = MultibodySystem([block], corners)
for law in ("pyramid", "cone"):
    out = solve_dynamic(system, friction=law)
    a_x = out.accelerations[0]
    print(f"{law:8s} {out.status.name}  a_x = {a_x:.4f} m/s^2  modes {sorted({c.mode for c in out.contacts})}")
    assert out.success
    # the block slides: a_x = push / m - mu g
    assert np.isclose(a_x, push - 0.5 * 9.81, rtol=1e-6)

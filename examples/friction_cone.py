"""The Coulomb-cone problem (FC3D): a block pushed on a table, solved and checked.

Run: python examples/friction_cone.py
"""

import numpy as np

import contactcp as ccp

# one contact, W the Delassus operator of a unit mass, q the free velocity: pushed along x at 2 m/s,
# pressed down at 1 m/s; mu = 0.5
W = np.eye(3)
q = np.array([-1.0, 2.0, 0.0])  # normal first, then the two tangential components
p = ccp.FrictionContactProblem(W, q, mu=0.5)
res = ccp.solve(p)  # the default chain: NSGS, proximal point, Newton, ADMM (while inconclusive)
r, u = res.x, res.w
print(res.status.name, "r =", r.round(6), "u =", u.round(6))
assert res.success
# it slides: the friction force is on the cone's boundary, opposite to the sliding velocity
assert np.isclose(np.linalg.norm(r[1:]), 0.5 * r[0]) and r[1] < 0 and u[1] > 0

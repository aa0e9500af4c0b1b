"""Many small friction-contact problems in one call: solve_friction_batch (compiled NSGS, parallel
over the problems, each answer certified by the problem's own measure).

Run: python examples/friction_batch.py
"""

import numpy as np

import contactcp as ccp

# one contact with W = I, pushed sideways by q_T: it sticks (r_T = -q_T) while |q_T| <= mu r_N, else slides
push = np.linspace(-2.0, 2.0, 401)
q = np.stack([-np.ones_like(push), push, np.zeros_like(push)], axis=1)
batch = ccp.solve_friction_batch(np.eye(3), q, mu=0.5, tol=1e-12)
print(batch)
assert batch.success.all()
np.testing.assert_allclose(batch.x[:, 1], -np.clip(push, -0.5, 0.5), atol=1e-10)

# four contacts per problem, each problem its own W, q and mu
rng = np.random.default_rng(0)
K, m = 2000, 12
A = rng.standard_normal((K, m, m))
W = A @ A.transpose(0, 2, 1) / m + 0.1 * np.eye(m)
q = rng.standard_normal((K, m))
mu = rng.uniform(0.2, 1.0, (K, 4))
batch = ccp.solve_friction_batch(W, q, mu)
print(batch.count(), f"largest certified residual {batch.residual.max():.1e}")
assert batch.success.all() and batch.residual.max() <= 1e-9

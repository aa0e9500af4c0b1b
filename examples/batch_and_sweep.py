"""Many small problems: solve_batch (compiled, parallel) and a sweep over a grid.

Run: python examples/batch_and_sweep.py
"""

import numpy as np

import contactcp as ccp
from contactcp.sweep import grid, sweep

rng = np.random.default_rng(0)
K, n = 10000, 4
A = rng.standard_normal((K, n, n))
M = A @ A.transpose(0, 2, 1) + np.eye(n)  # positive definite: every LCP has one solution
q = rng.standard_normal((K, n))
batch = ccp.solve_batch(M, q)
print(batch.count())
assert batch.success.all()


def radius(a, b):
    return {"r": float(np.hypot(a, b))}


if __name__ == "__main__":
    table = sweep(radius, grid(a=np.linspace(-1, 1, 50), b=np.linspace(-1, 1, 50)), workers=1, progress=False)
    print(table, table.grid("r").shape)

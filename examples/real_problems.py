"""Real-sized frictional contact: a generated brick wall in global form, its local form, FCLIB files,
and a check of the answer by hand.

Run: python examples/real_problems.py
"""

import tempfile
from pathlib import Path

import numpy as np

import contactcp as ccp
from contactcp.io.fclib import FclibGlobal, FclibSolution, read_fclib, write_global
from contactcp.scenarios import piles

# one time step of a running-bond wall: 4 rows of 5 bricks, each brick resting on two below
# (M v = H r + f, u = H^T v + w; v the bricks' velocities, r the contact impulses)
g = piles.box_wall(rows=4, bricks=5, mu=0.6, seed=1)
local = g.local()  # W = H^T M^-1 H (sparse), q = w + H^T M^-1 f
rank = np.linalg.matrix_rank(local.W.toarray())
print(f"{g}: rank(W) / 3 n_c = {rank / local.size:.2f}")  # many contacts on few bodies

res = ccp.solve(g, tol=1e-8)  # the cone chain on the local form, certified on the global problem
v, r = g.split(res.x)
print(res.status.name, "by", res.method, f"residual {res.residual.value:.1e}")
print("chain:", [(s["method"], s["status"]) for s in res.stats["chain"]])
assert res.success

# the check, by hand: equilibrium, and Coulomb's law at every contact
assert np.abs(g.M @ v - g.H @ r - g.f).max() <= 1e-12 * np.abs(g.f).max()
u = g.H.T @ v + g.w
R, U = r.reshape(-1, 3), u.reshape(-1, 3)
inside = np.linalg.norm(R[:, 1:], axis=1) <= g.mu * R[:, 0] + 1e-9 * np.abs(R).max()
print(
    f"{int((R[:, 0] > 1e-9 * R[:, 0].max()).sum())} of {g.n_c} contacts carry load; all inside their cones:",
    inside.all(),
)
print(f"smallest normal velocity {U[:, 0].min():.1e} (>= 0 up to tol * ||q|| = {1e-8 * np.linalg.norm(local.q):.1e})")
assert inside.all() and U[:, 0].min() >= -1e-8 * np.linalg.norm(local.q)

# FCLIB: write the problem with its solution, read it back, solve the file's local form the same way
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "wall.hdf5"
    write_global(path, FclibGlobal.from_problem(g), FclibSolution(v=v, u=u, r=r))
    back = read_fclib(path)
    again = back.global_.to_problem()
    print(
        "read back:",
        again,
        "stored solution residual",
        f"{again.residual(np.concatenate([back.solutions[0].v, back.solutions[0].r])).value:.1e}",
    )
    loc = ccp.solve(again.local(), tol=1e-8)
    print("local form:", loc.status.name, "by", loc.method)
    assert loc.success

"""LCPs without structure: the MILP search solves what pivoting cannot start on.

Lemke's method needs structure in M (P, copositive-plus); on an indefinite or negative definite M it
can end on a ray although the problem has a solution.  ``method="milp"`` (the last step of the
linear default chains) searches the complementarity choices with a mixed-integer program, then
solves the support it finds on the problem's own data; the answer is certified like any other.

Run: python examples/nonmonotone_lcp.py
"""

import numpy as np

import contactcp as ccp

# a bimatrix game as an LCP (M = [[0, A], [B, 0]], q = -1): Lemke cannot even start
A = np.array([[3.0, 1.0], [0.0, 2.0]])
B = np.array([[2.0, 0.0], [1.0, 3.0]])
M = np.block([[np.zeros((2, 2)), A], [B.T, np.zeros((2, 2))]])
p = ccp.LCP(M, -np.ones(4))
print("lemke:", ccp.solve(p, "lemke").status.name)
for method in ("milp", None):  # the MILP alone, then the default chain (which tries it last)
    res = ccp.solve(p, method)
    print(res.status.name, res.x, "by", res.method, f"residual {res.residual.value:.1e}")
    assert res.success
    w = M @ res.x - 1.0
    assert np.all(res.x >= 0) and np.all(w >= -1e-12) and abs(res.x @ w) <= 1e-12

# a box LCP with a negative definite M and bounds of every kind, scaled by 2^+-300 (exactly):
# the MILP runs on the problem equilibrated by powers of two, the polish on the data as given
rng = np.random.default_rng(3)
C = rng.integers(-9, 10, (5, 5)).astype(float)
M = -(C @ C.T) - np.eye(5)
z_star = np.array([1.0, -2.0, 0.0, 3.0, 0.5])
w_star = np.array([0.0, 0.0, 4.0, -1.0, 0.0])  # inside, inside, at lower, at upper, inside
lower = np.array([-5.0, -np.inf, 0.0, -1.0, 0.0])
upper = np.array([5.0, np.inf, np.inf, 3.0, 1.0])
s = np.ldexp(1.0, np.array([300, -300, 0, 150, -150]))
p = ccp.BoxLCP(s[:, None] * M, s * (w_star - M @ z_star), lower, upper)
res = ccp.solve(p, "milp")
print(res.status.name, res.x, res.message)
assert res.success  # a solution (this M has several), checked here on rows scaled back to size 1:
z, w = res.x, (M @ res.x + (w_star - M @ z_star))
assert np.all((z >= lower) & (z <= upper))
inside = (z > lower) & (z < upper)
assert np.all(np.abs(w[inside]) <= 1e-9) and np.all(w[z == lower] >= -1e-9) and np.all(w[z == upper] <= 1e-9)

# the same problem solved by enumerating its supports (3 * 1 * 2 * 3 * 3 = 54 here), each in
# rational arithmetic: the last step of the mixed and box chains, for data whose scales floats
# cannot span (the MILP's tolerances are relative to the equilibrated data)
res = ccp.solve(p, "enumerate")
print(res.status.name, res.x, res.message)
assert res.success and res.residual.value <= 1e-15
z, w = res.x, (M @ res.x + (w_star - M @ z_star))
assert np.all((z >= lower) & (z <= upper))

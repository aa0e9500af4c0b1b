"""Linear complementarity problems: certified answers, and proofs of "no solution".

Run: python examples/lcp_certified.py
"""

from fractions import Fraction

import numpy as np

import contactcp as ccp

# a solvable LCP: the default chain (Lemke first) returns a certified point
p = ccp.LCP(M=[[2.0, 1.0], [1.0, 2.0]], q=[-5.0, -6.0])
res = ccp.solve(p)
print(res.status.name, res.x, f"residual {res.residual.value:.1e}")
assert res.success and np.allclose(res.x, [4 / 3, 7 / 3])

# an infeasible one: the answer is a Farkas vector, checked exactly on the data as given
bad = ccp.LCP([[-0.1, 0.1], [0.3, -0.3]], [-1.0, 0.0])
res = ccp.solve(bad)
cert = res.certificate
print(res.status.name, cert.kind, "verified:", cert.verified)
# its proving vector needs rational numbers here (y_1 / y_0 = fl(0.1) / fl(0.3)): cert.exact holds it
y = cert.exact if cert.exact is not None else [Fraction(v) for v in cert.vector]
M = [[Fraction(v) for v in row] for row in bad.M.tolist()]
assert all(v >= 0 for v in y)
assert all(sum(M[i][j] * y[i] for i in range(2)) <= 0 for j in range(2))  # M^T y <= 0
assert sum(Fraction(v) * yi for v, yi in zip(bad.q.tolist(), y)) < 0  # q^T y < 0
print("y =", [str(v) for v in y])

# what was tried, and which methods apply to a problem
print([step["method"] for step in res.stats["chain"]], ccp.methods(p))

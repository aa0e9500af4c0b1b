"""Adding a solver: a method registered with contactcp.solvers.register is certified like the others.

Run: python examples/add_a_method.py
"""

import numpy as np

import contactcp as ccp
from contactcp.solvers import Raw, integer, register


@register("jacobi", ccp.LCP, description="projected Jacobi iteration (an example)", options={"max_sweeps": integer(1)})
def jacobi(problem, tol, *, max_sweeps: int = 500):
    """z <- max(0, z - (M z + q) / diag(M)), all components at once."""
    M, q = problem.M, problem.q
    d = np.diag(M)
    z = np.zeros(problem.n)
    for k in range(1, max_sweeps + 1):
        z = np.maximum(0.0, z - (M @ z + q) / d)
        if problem.residual(z).value <= 0.5 * tol:
            return Raw(z, ccp.Status.SOLVED, k, "converged")
    return Raw(z, ccp.Status.ITERATION_LIMIT, max_sweeps, "no convergence")


p = ccp.LCP([[4.0, 1.0], [1.0, 3.0]], [-1.0, -2.0])
res = ccp.solve(p, "jacobi", max_sweeps=200)
print(res, res.x)
assert res.success and "jacobi" in ccp.methods(p)
try:
    ccp.solve(p, "jacobi", max_sweeps=0)  # the registry checks the declared options
except ccp.InvalidOptionError as exc:
    print("refused:", exc)

"""Friction contact with W nearly singular and slightly non-symmetric: the last step of the chain.

Eight contacts on one body give a Delassus matrix of rank 6; a perturbation of relative size 1e-8
(real data are rarely exactly symmetric) makes it nonsingular, with singular values of that size.
The answer of the problem as given then lies far, along directions W nearly annihilates, from
the points that solve the unperturbed problem, whose residuals stay near 1e-8; every line search
stalls there.  The default chain ends, for problems of at most 300 unknowns, with
``newton-minnorm``: full semismooth Newton steps of minimum norm, with restarts.

Run: python examples/nearly_singular_friction.py
"""

import numpy as np

import contactcp as ccp

n_c, mu = 8, 0.5
solved = 0
for seed in range(10):
    rng = np.random.default_rng(seed)
    H = rng.normal(size=(3 * n_c, 6))
    W = H @ H.T
    W = W + 1e-8 * np.abs(W).max() * rng.normal(size=W.shape)
    # a planted answer: contacts 0-2 stick, 3-5 slide, 6-7 separate
    r = np.zeros(3 * n_c)
    u = np.zeros(3 * n_c)
    for i in range(n_c):
        s = slice(3 * i, 3 * i + 3)
        if i < 3:
            r[s] = [8.0, 1.0, -2.0]
        elif i < 6:
            r[s] = [10.0, -3.0, -4.0]
            u[s] = [0.0, 3.0, 4.0]
        else:
            u[s] = [2.0, 1.0, 1.0]
    p = ccp.FrictionContactProblem(W, u - W @ r, mu)
    res = ccp.solve(p)
    steps = " -> ".join(c["method"] for c in res.stats.get("chain", [{"method": res.method}]))
    print(f"seed {seed}: {res.status.name:16s} residual {res.residual.value:.1e}  ({steps})")
    if res.success:
        solved += 1
        # the answer checked here with numpy: the natural map of De Saxce's form, relative to ||q||
        R, U = res.x.reshape(-1, 3), (W @ res.x + p.q).reshape(-1, 3)
        Y = R - U
        Y[:, 0] -= mu * np.linalg.norm(U[:, 1:], axis=1)
        nt = np.linalg.norm(Y[:, 1:], axis=1)
        P = np.where((nt <= mu * Y[:, 0])[:, None], Y, 0.0)  # inside the cone, or its polar
        mid = (nt > mu * Y[:, 0]) & (mu * nt > -Y[:, 0])
        pn = (mu * nt[mid] + Y[mid, 0]) / (1 + mu**2)
        P[mid, 0] = pn
        P[mid, 1:] = (mu * pn / nt[mid])[:, None] * Y[mid, 1:]
        assert np.linalg.norm(R - P) / np.linalg.norm(p.q) <= 1.01e-9
print(f"{solved} of 10 certified")

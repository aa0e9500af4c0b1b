"""FrictionContactProblem cases: W = H M^-1 H^T of many contacts on few bodies (rank deficient).

Planted cases pick each contact's mode (sticking inside the cone, sliding on its
boundary with u_T = -alpha r_T, separating, or zero) with dyadic numbers and
Pythagorean triples, so the cone boundary is exact; ``q = u* - W r*`` is
rounded once, and the planted ``r*`` is accepted only if the harness's own
residual of it on the float data is below 1e-13.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from .case import Case, warm_starts
from .exact import exact_affine
from .exact_nl import fc_residual

__all__ = ["make_fc", "FC_FAMILIES"]

FC_FAMILIES = ["random", "planted", "degenerate", "scaled", "huge", "integer", "tiny", "warm", "nonsym"]
TRIPLES = [(3, 4, 5), (5, 12, 13), (8, 15, 17), (1, 0, 1), (0, 1, 1), (7, 24, 25)]
MUS = [0.25, 0.5, 0.75, 1.0]


def _frame(rng, dim, integer):
    if dim == 2:
        if integer:
            return np.array([[0.0, 1.0], [1.0, 0.0]])
        a = rng.normal(0, 0.3)
        n = np.array([np.sin(a), np.cos(a)])
        return np.array([[n[0], n[1]], [n[1], -n[0]]])
    if integer:
        return np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    n = np.array([0.0, 0.0, 1.0]) + rng.normal(0, 0.3, 3)
    n /= np.linalg.norm(n)
    t1 = np.cross(n, rng.normal(size=3))
    t1 /= np.linalg.norm(t1)
    return np.array([n, t1, np.cross(n, t1)])


def delassus(rng, n_c, dim, n_bodies, spread, integer=False, duplicate=False):
    """W = H M^-1 H^T for n_c contacts (one or two bodies each) on n_bodies rigid bodies."""
    dof = 6 if dim == 3 else 3
    H = np.zeros((dim * n_c, dof * n_bodies))
    minv = []
    for _ in range(n_bodies):
        m = 1.0 if integer else 10.0 ** rng.uniform(-spread, spread)
        inertia = [1.0] * (dof - dim) if integer else list(m * 10.0 ** rng.uniform(-1, 1, 3 if dim == 3 else 1))
        minv += [1.0 / m] * (3 if dim == 3 else 2) + [1.0 / i for i in inertia]
    for c in range(n_c):
        if duplicate and c > 0 and rng.random() < 0.3:
            H[c * dim : (c + 1) * dim] = H[(c - 1) * dim : c * dim]
            continue
        F = _frame(rng, dim, integer)
        bodies = [int(rng.integers(n_bodies))]
        if n_bodies > 1 and rng.random() < 0.3:
            bodies.append(int((bodies[0] + 1 + rng.integers(n_bodies - 1)) % n_bodies))
        for k, b in enumerate(bodies):
            p = rng.integers(-2, 3, dim).astype(float) if integer else rng.uniform(-1, 1, dim)
            sgn = 1.0 if k == 0 else -1.0
            for a in range(dim):
                d = F[a]
                ang = np.cross(p, d) if dim == 3 else np.array([p[0] * d[1] - p[1] * d[0]])
                H[c * dim + a, b * dof : (b + 1) * dof] = sgn * np.concatenate([d, np.atleast_1d(ang)])
    return (H * np.array(minv)) @ H.T


def plant(rng, n_c, dim, mu, scale):
    """r*, u* (integers times `scale`, a power of two) satisfying Coulomb's law contact by contact."""
    r = np.zeros(n_c * dim, dtype=object)
    u = np.zeros(n_c * dim, dtype=object)
    modes = []
    for c in range(n_c):
        s = slice(c * dim, (c + 1) * dim)
        mode = str(rng.choice(["stick", "slide", "slide", "separate", "zero"]))
        m = Fraction(mu[c])
        if mode == "slide" and m == 0:
            mode = "separate"
        if mode == "stick":
            rn = int(rng.integers(4, 65))
            lim = int(m * rn) // 2
            rt = [int(rng.integers(-lim, lim + 1)) if lim else 0 for _ in range(dim - 1)]
            r[s] = [rn] + rt
        elif mode == "slide":
            k = int(rng.integers(1, 9)) * 3
            if dim == 3:
                a, b, hyp = TRIPLES[rng.integers(len(TRIPLES))]
                if rng.random() < 0.5:
                    a, b = b, a
                rt = [k * a * int(rng.choice([-1, 1])), k * b * int(rng.choice([-1, 1]))]
                rn = Fraction(k * hyp) / m
            else:
                rn = Fraction(4 * k)
                rt = [rn * m * int(rng.choice([-1, 1]))]
            alpha = Fraction(int(rng.integers(1, 9)), 8)
            r[s] = [rn] + rt
            u[s] = [0] + [-alpha * t for t in rt]
        elif mode == "separate":
            u[s] = [int(rng.integers(1, 65))] + [int(rng.integers(-64, 65)) for _ in range(dim - 1)]
        modes.append(mode)
    return r, u, modes


def make_fc(ccp, family: str, index: int, rng) -> Case:
    FCP = getattr(ccp, "FrictionContactProblem", None)
    if FCP is None:
        from contactcp.problems import FrictionContactProblem as FCP
    dim = 3 if rng.random() < 0.8 else 2
    n_c = 1 if family == "tiny" else int(rng.integers(2, 13))
    n_bodies = 1 if family == "tiny" else int(rng.integers(1, max(2, n_c // 3) + 1))
    integer = family == "integer"
    spread = 6 if family == "scaled" else 1
    W = delassus(rng, n_c, dim, n_bodies, spread, integer, duplicate=family == "degenerate")
    note = [f"n_c={n_c}, bodies={n_bodies}, dim={dim}, rank {np.linalg.matrix_rank(W)}/{W.shape[0]}"]
    if family == "nonsym":
        W = W + 1e-8 * np.abs(W).max() * rng.normal(size=W.shape)
        note.append("W + 1e-8 |W| noise (non-symmetric)")
    mu = np.array([MUS[i] for i in rng.integers(0, len(MUS), n_c)])
    if family == "degenerate":
        mu[rng.random(n_c) < 0.3] = 0.0
        note.append("mu = 0 on some contacts, duplicated contacts")
    truth = (
        "unknown" if family == "random" or (family in ("integer", "degenerate") and rng.random() < 0.3) else "solvable"
    )
    m = W.shape[0]
    if truth == "solvable":
        wscale = 2.0 ** round(float(np.log2(max(np.abs(np.diag(W)).mean(), 1e-300))))
        r, u, modes = plant(rng, n_c, dim, mu, 1)
        note.append("modes " + "".join(x[1] for x in modes))
        uW = [Fraction(v) * Fraction(wscale) for v in u]  # velocities of W's size
        Wr = exact_affine(W, [float(v) for v in r], [0.0] * m) if all(Fraction(float(v)) == v for v in r) else None
        rf = np.array([float(v) for v in r])
        qf = np.array([float(a - b) for a, b in zip(uW, Wr)]) if Wr is not None else None
        if qf is None:
            truth = "unknown"
            qf = rng.normal(size=m)
    else:
        rf = None
        qf = rng.normal(size=m) * np.abs(W).max() if not integer else rng.integers(-9, 10, m).astype(float)
        note.append("random q")
    if family == "huge":
        k = int(rng.choice([-498, -300, 300, 498, 1000]))
        if k == 1000:  # q entries near overflow
            k = 1020 - int(np.ceil(np.log2(np.abs(qf).max())))
        qf = qf * 2.0**k
        if rf is not None:
            rf = rf * 2.0**k
        note.append(f"q and r* scaled by 2^{k}")
    data = {"W": W, "q": qf, "mu": mu, "dim": dim}
    Wp = sp.csr_matrix(W) if rng.random() < 0.2 else W
    if Wp is not W:
        note.append("sparse W")
    case = Case("FrictionContact", family, index, FCP(Wp, qf, mu, dim), data, truth, "; ".join(note))
    if truth == "solvable":
        case.planted = rf
        res = fc_residual(W, qf, mu, dim, rf)
        if res is None or res > 1e-13:
            case.truth = "unknown"
            case.note += f"; planted residual {res:.2e}" if res is not None else "; planted point not finite"
    if family == "warm":
        case.starts = warm_starts(ccp, case.problem, m, rng)
    return case

"""UCP and MixedNCP cases.

UCP: ``X = {x >= 0: A_x x = b_x}``, ``Y`` likewise, with integer data; planted
solvable (complementary x*, y*), planted infeasible (X empty with an exact
Farkas vector, or X forcing x_1 + x_2 = 1 while Y forces y_1 = y_2 = 1),
degenerate, scaled rows, random (decided exactly by the oracle when small).
MixedNCP: ``F, G = K x + k + c * x[pi]**3`` (polynomial, so the harness evaluates
it exactly), planted with integer data.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .case import Case, warm_starts
from .exact import farkas_polyhedron, ucp_residual
from .exact_nl import ncp_residual
from .plant import KINDS, int_matrix

__all__ = ["make_ucp", "make_ncp", "UCP_FAMILIES", "NCP_FAMILIES"]

UCP_FAMILIES = ["random", "planted", "infeasible", "degenerate", "scaled", "integer", "tiny"]
NCP_FAMILIES = ["random", "planted", "degenerate", "scaled", "tiny", "warm"]


def _nonneg_point(rng, n, support):
    x = np.zeros(n, dtype=np.int64)
    x[support] = rng.integers(1, 6, len(support))
    return x


def _ucp_degenerate(rng, n, Ax, Ay, note):
    for A in (Ax, Ay):
        k = int(rng.integers(0, 3))
        if k == 0 and A.shape[0] > 1:
            A[1] = A[0]
            note.append("repeated row")
        elif k == 1:
            A[:, rng.integers(n)] = 0
            note.append("zero column")
        else:
            A[rng.integers(A.shape[0])] = 0
            note.append("zero row")


def _ucp_solvable(rng, n, family, Ax, Ay, note):
    """Complementary x*, y* >= 0 (disjoint supports, some pairs both zero); b = A x*."""
    perm = rng.permutation(n)
    cut = int(rng.integers(0, n + 1))
    sx = [i for i in perm[:cut] if rng.random() < 0.8]
    sy = [i for i in perm[cut:] if rng.random() < 0.8]
    if family == "degenerate" and rng.random() < 0.3:
        sx, sy = [], []
        note.append("x* = y* = 0")
    x, y = _nonneg_point(rng, n, sx), _nonneg_point(rng, n, sy)
    return Ax, Ay, Ax @ x, Ay @ y, (x.astype(float), y.astype(float)), None


def _ucp_infeasible(rng, n, Ax, Ay, note):
    """Either x1 + x2 = 1 in X against y1 = y2 = 1 in Y (margin 1/3), or X empty by an exact Farkas vector."""
    mx = Ax.shape[0]
    if rng.random() < 0.5 and n >= 2:
        Ax[0] = 0
        Ax[0, :2] = 1
        x = _nonneg_point(rng, n, [int(rng.integers(0, 2))])
        x[:2] = [1, 0] if x[0] else [0, 1]
        x[2:] = rng.integers(0, 3, n - 2)
        Ay = np.vstack([np.eye(n, dtype=np.int64)[:2], Ay])
        y = rng.integers(0, 3, n)
        y[:2] = 1
        note.append("x1 + x2 = 1 against y1 = y2 = 1")
        return Ax, Ay, Ax @ x, Ay @ y, None, Fraction(1, 3)
    uf = np.zeros(mx, dtype=np.int64)
    uf[rng.random(mx) < 0.6] = rng.integers(-3, 4)
    uf[0] = 1
    h = rng.integers(0, 4, n)
    Ax[0] = h - uf[1:] @ Ax[1:]
    bx = rng.integers(-5, 6, mx)
    mm = int(rng.integers(1, 9))
    bx[0] = -mm - uf[1:] @ bx[1:]
    y = _nonneg_point(rng, n, list(range(n)))
    s = [max([abs(int(bx[k]))] + [abs(int(v)) for v in Ax[k]]) for k in range(mx)]
    margin = Fraction(mm, int(h.sum()) + sum(abs(int(uf[k])) * s[k] for k in range(mx)))
    note.append("X empty (Farkas)")
    return Ax, Ay, bx, Ay @ y, tuple(Fraction(int(v)) for v in uf), margin


def _ucp_random(rng, n, Ax, Ay, note):
    x = rng.integers(0, 4, n) * (rng.random(n) < 0.7)
    y = rng.integers(0, 4, n) * (rng.random(n) < 0.7)
    bx, by = Ax @ x, Ay @ y
    if rng.random() < 0.3:
        bx = bx + rng.integers(-2, 3, Ax.shape[0])
        note.append("perturbed b")
    return Ax, Ay, bx, by, None, None


def _ucp_scale(rng, truth, Ax, bx, Ay, by, planted, note):
    """Rows by 2^+-40 (exact; a planted Farkas vector scales inversely) or by 1e+-150 (truth unknown)."""
    mx, my = Ax.shape[0], Ay.shape[0]
    if truth == "unknown":
        dx, dy = 10.0 ** rng.integers(-150, 151, mx), 10.0 ** rng.integers(-150, 151, my)
        note.append("decimal rows 1e+-150")
    else:
        dx, dy = 2.0 ** rng.integers(-40, 41, mx), 2.0 ** rng.integers(-40, 41, my)
        note.append("rows 2^+-40")
        if isinstance(planted, tuple) and planted and isinstance(planted[0], Fraction):
            planted = tuple(v / Fraction(float(d)) for v, d in zip(planted, dx))
    return dx[:, None] * Ax, dx * bx, dy[:, None] * Ay, dy * by, planted


def make_ucp(ccp, family: str, index: int, rng) -> Case:
    n = (
        int(rng.integers(1, 3))
        if family == "tiny"
        else int(rng.integers(2, 7 if family != "random" or rng.random() < 0.8 else 10))
    )
    mx, my = int(rng.integers(1, n + 1)), int(rng.integers(1, n + 1))
    r = int(rng.choice([1, 3, 9]))
    Ax = rng.integers(-r, r + 1, (mx, n))
    Ay = rng.integers(-r, r + 1, (my, n))
    note: list[str] = []
    u = rng.random()
    truth = {"random": "unknown", "planted": "solvable", "infeasible": "infeasible", "integer": "unknown"}.get(
        family, "solvable" if u < 0.6 else ("infeasible" if u < 0.8 else "unknown")
    )
    if family == "degenerate":
        _ucp_degenerate(rng, n, Ax, Ay, note)
    build = {
        "solvable": lambda: _ucp_solvable(rng, n, family, Ax, Ay, note),
        "infeasible": lambda: _ucp_infeasible(rng, n, Ax, Ay, note),
    }.get(truth, lambda: _ucp_random(rng, n, Ax, Ay, note))
    Ax, Ay, bx, by, planted, margin = build()
    Ax, Ay, bx, by = (np.asarray(v, dtype=float) for v in (Ax, Ay, bx, by))
    if family == "scaled":
        Ax, bx, Ay, by, planted = _ucp_scale(rng, truth, Ax, bx, Ay, by, planted, note)
    data = {"A_x": Ax, "b_x": bx, "A_y": Ay, "b_y": by}
    case = Case("UCP", family, index, ccp.UCP(Ax, bx, Ay, by), data, truth, "; ".join(note), planted=planted)
    case.margin = None if margin is None else float(margin)
    if truth == "solvable":
        v, _ = ucp_residual(Ax, bx, Ay, by, *planted)
        if v != 0:
            case.truth = "unknown"
    elif truth == "infeasible" and isinstance(planted, tuple):
        if not farkas_polyhedron(Ax, bx, planted)[0]:
            case.truth = "unknown"
    return case


def _ncp_funcs(spec):
    K, k, c, pi, p = spec["K"], spec["k"], spec["c"], np.asarray(spec["pi"]), spec["p"]
    n = len(k)

    def full(x):
        return K @ x + k + c * x[pi] ** 3

    def jac(x):
        J = K.copy()
        J[np.arange(n), pi] += 3.0 * c * x[pi] ** 2
        return J

    return ((lambda x: full(x)[:p]), (lambda x: full(x)[p:]), (lambda x: jac(x)[:p]), (lambda x: jac(x)[p:]))


def make_ncp(ccp, family: str, index: int, rng) -> Case:
    p = int(rng.integers(1, 3)) if family == "tiny" else int(rng.integers(1, 7))
    m = int(rng.integers(0, 2)) if family == "tiny" else int(rng.integers(0, 4))
    n = p + m
    truth = "unknown" if family == "random" or (family == "degenerate" and rng.random() < 0.3) else "solvable"
    note = []
    pi = rng.integers(0, n, n)
    if truth == "unknown":
        A = rng.normal(size=(n, n))
        K = A @ A.T + 0.1 * np.eye(n) if rng.random() < 0.5 else A
        k = rng.normal(size=n)
        c = rng.uniform(0, 1, n) * (rng.random(n) < 0.5)
        note.append("random floats")
        planted = None
    else:
        kind = str(rng.choice(KINDS[:4])) if family != "degenerate" else str(rng.choice(["psd", "zero_diag", "indef"]))
        K = int_matrix(rng, n, kind, 3).astype(np.int64)
        if m:  # keep G's free block invertible-ish for planting
            K[p:, p:] += np.eye(m, dtype=np.int64) * 4
        c = rng.integers(0, 3, n) * (rng.random(n) < 0.6)
        x = np.zeros(n, dtype=np.int64)
        target = np.zeros(n, dtype=np.int64)
        for i in range(p):
            mode = rng.integers(0, 3)
            if mode == 0:
                x[i] = rng.integers(1, 5)
            elif mode == 1:
                target[i] = rng.integers(1, 9)
        if family == "degenerate":
            K[rng.integers(n)] = 0
            note.append("a zero row of K, both-zero pairs")
        x[p:] = rng.integers(-4, 5, m)
        k = target - K @ x - c * x[pi] ** 3
        planted = x.astype(float)
        note.append(f"integer {kind}")
        K, k, c = K.astype(float), k.astype(float), c.astype(float)
    if family == "scaled":
        e = rng.integers(-20, 21, n)
        K, k, c = K * 2.0 ** e[:, None], k * 2.0**e, c * 2.0**e
        note.append("rows 2^+-20")
    scale = max(1.0, float(np.abs(k).max(initial=0.0)))
    spec = {"K": K, "k": k, "c": c, "pi": [int(v) for v in pi], "p": p, "scale": scale}
    F, G, JF, JG = _ncp_funcs(spec)
    prob = ccp.MixedNCP(F, G if m else None, p, m, jac_F=JF, jac_G=JG if m else None, scale=scale)
    case = Case("MixedNCP", family, index, prob, spec, truth, "; ".join(note), planted=planted)
    if truth == "solvable" and ncp_residual(spec, planted) != 0:
        case.truth = "unknown"
    if family == "warm":
        case.starts = warm_starts(ccp, prob, n, rng)
    return case

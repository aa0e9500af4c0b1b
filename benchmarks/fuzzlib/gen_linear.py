"""LCP, MixedLCP and BoxLCP cases: random, planted solvable, planted infeasible, degenerate, scaled.

Planted data are integers (or dyadics), so ``q = w* - M z*`` is exactly the float
stored, and scaling by powers of two keeps everything exact; each planted case
is verified exactly by the harness's own residual (0) or Farkas check (with the
margin) before it is used, else it is labelled "unknown".
"""

from __future__ import annotations

import numpy as np

from .case import Case
from .case import warm_starts as _warm
from .exact import box_residual, lcp_residual
from .plant import (
    INF,
    KINDS,
    bound_types,
    degenerate_matrix,
    infeasible_margin,
    int_matrix,
    near_overflow,
    plant_farkas,
    plant_solution,
    scale_pow2,
)

__all__ = ["make_linear", "LINEAR_FAMILIES", "infeasible_margin"]

LINEAR_FAMILIES = ["random", "planted", "infeasible", "degenerate", "scaled", "huge", "integer", "tiny", "warm"]
MARGIN = 1e-5  # planted infeasible cases: no point has a contract residual below this


# ---------------------------------------------------------------- the cases
def _problem(ccp, ptype, M, q, lo, hi):
    if ptype == "LCP":
        return ccp.LCP(M, q)
    if ptype == "MixedLCP":
        return ccp.MixedLCP(M, q, np.isinf(lo) & np.isinf(hi))
    return ccp.BoxLCP(M, q, lo, hi)


def _data(ptype, M, q, lo, hi):
    d = {"M": np.array(M, dtype=float), "q": np.array(q, dtype=float)}
    if ptype == "MixedLCP":
        d["free"] = np.isinf(lo) & np.isinf(hi)
    if ptype == "BoxLCP":
        d["lower"], d["upper"] = np.array(lo, dtype=float), np.array(hi, dtype=float)
    return d


def check_planted(ptype, d, z) -> bool:
    if ptype == "BoxLCP":
        v, _ = box_residual(d["M"], d["q"], d["lower"], d["upper"], z)
    else:
        v, _ = lcp_residual(d["M"], d["q"], z, d.get("free"))
    return v == 0


def _exps(rng, n, family):
    if family == "scaled":
        return rng.integers(-40, 41, n), rng.integers(-40, 41, n), "2^+-40 rows and columns", None
    t = rng.integers(0, 3)
    if t == 0:  # about 10^+-150 on rows and columns
        return (
            rng.choice([-498, 0, 498], n),
            rng.choice([-480, 0, 480], n),
            "2^+-498 (1e+-150) rows, 2^+-480 columns",
            None,
        )
    if t == 1:  # products near overflow
        rows = np.flatnonzero(rng.random(n) < 0.5)
        return np.zeros(n, dtype=int), np.zeros(n, dtype=int), "rows with terms near 2^1021 (overflow)", rows
    return rng.integers(-30, 31, n), rng.integers(-498, 499, n), "columns 2^+-498", None


def _size(rng, ptype, family) -> int:
    """LCP mostly n <= 8 (enumerate, which runs on every LCP, costs ~2^n LPs), a tail at 9-10 and
    random ones beyond enumerate's reach; the mixed and box problems up to 14."""
    if family == "tiny":
        return int(rng.integers(1, 4))
    if family == "random" and rng.random() < 0.08:
        return int(rng.integers(17, 31))
    if ptype != "LCP":
        return int(rng.integers(2, 15))
    return int(rng.integers(9, 11)) if rng.random() < 0.06 else int(rng.integers(2, 9))


def _truth(rng, family) -> str:
    u = rng.random()
    if family == "random":
        return "unknown"
    if family == "infeasible":
        return "infeasible"
    if family in ("planted", "degenerate"):
        return "solvable" if (family == "planted" or u < 0.75) else "unknown"
    if family in ("scaled", "huge", "tiny"):
        return "solvable" if u < 0.55 else ("infeasible" if u < 0.85 else "unknown")
    if family == "integer":
        return "solvable" if u < 0.6 else "unknown"
    return "solvable" if u < 0.8 else "infeasible"  # warm


def _matrix(rng, ptype, family, n, bounds, floaty, note):
    """The integer matrix (20-bit entries for the float-looking data), with an ill-conditioned free
    block (determinant 1) in some planted mixed LCPs."""
    r = 2**20 if floaty else int(rng.choice([1, 3, 9, 100]))
    if family == "degenerate":
        Mi, what = degenerate_matrix(rng, n, 3)
        note.append(what)
    else:
        kind = str(rng.choice(KINDS))
        Mi = int_matrix(rng, n, kind, r if kind not in ("pd", "psd", "pdns", "nsd") or not floaty else 2**10)
        note.append(kind)
    if ptype == "MixedLCP" and family == "planted" and rng.random() < 0.3:
        F = [i for i, b in enumerate(bounds) if b == (-INF, INF)]
        if len(F) >= 2:
            k = int(rng.integers(2**6, 2**12))
            a, b = F[0], F[1]
            Mi = np.array(Mi, dtype=object)
            Mi[a, a], Mi[a, b], Mi[b, a], Mi[b, b] = k * k + 1, k, k, 1
            note.append(f"free block [[{k * k + 1}, {k}], [{k}, 1]]")
    return Mi


def _exponents(rng, family, truth, n, floaty, M, q, z, note):
    """Power-of-two row and column exponents: the float-looking scale, then the family's scaling."""
    rexp = np.zeros(n, dtype=int)
    cexp = np.zeros(n, dtype=int)
    if floaty:
        rexp -= 32 if truth == "solvable" else 20
        cexp += 12 if truth == "solvable" else 0
        note.append("dyadic data of 20-bit entries")
    if (
        family in ("scaled", "huge")
        or (family == "tiny" and rng.random() < 0.5)
        or (family == "infeasible" and rng.random() < 0.4)
    ):
        rows = None
        if family == "infeasible" or family == "tiny":
            re, ce, what = rng.integers(-30, 31, n), np.zeros(n, dtype=int), "rows 2^+-30"
        else:
            re, ce, what, rows = _exps(rng, n, family)
            if truth == "infeasible" and rng.random() < 0.6:  # column scaling eats the margin
                ce = np.zeros(n, dtype=int)
                what += " (rows only)"
        rexp, cexp = rexp + re, cexp + ce
        if rows is not None:
            rexp = near_overflow(M, q, z, rexp, cexp, rows, rng)
        note.append(what)
    return rexp, cexp


def _verify(case: Case, lo, hi, zs, ys) -> None:
    """Label the case by what the harness proves exactly: residual 0 at the planted point, or the
    planted Farkas vector's margin."""
    d = case.data
    if case.truth == "solvable":
        case.planted = zs
        if not check_planted(case.ptype, d, zs):
            case.truth, case.note = "unknown", case.note + "; planted point failed the exact check"
        return
    case.planted = ys
    mg = infeasible_margin(d["M"], d["q"], lo, hi, ys)
    if mg is None or mg < MARGIN:
        case.truth = "infeasible-nomargin" if mg is not None else "unknown"
        case.note += f"; margin {float(mg) if mg is not None else 'none'}"
    case.margin = None if mg is None else float(mg)


def make_linear(ccp, ptype: str, family: str, index: int, rng) -> Case:
    """One LCP / MixedLCP / BoxLCP case of the family."""
    n = _size(rng, ptype, family)
    truth = _truth(rng, family)
    if truth == "unknown":
        return _unknown(ccp, ptype, family, index, rng, n)
    bounds = bound_types(rng, n, ptype)
    floaty = family in ("planted", "warm", "scaled", "huge") and rng.random() < 0.6
    note: list[str] = []
    Mi = _matrix(rng, ptype, family, n, bounds, floaty, note)
    if truth == "solvable":
        zb, wb = (12, 32) if floaty else (int(rng.integers(1, 6)), int(rng.integers(1, 6)))
        z, w, q = plant_solution(rng, Mi, bounds, zb, wb)
        y, M = None, Mi
    else:
        out = plant_farkas(rng, Mi, bounds, 10 if floaty else 3)
        if out is None:  # a box of finite bounds only: always solvable
            return make_linear(ccp, ptype, family, index, rng)
        M, q, y = out
        z = w = None
    rexp, cexp = _exponents(rng, family, truth, n, floaty, M, q, z, note)
    out = scale_pow2(M, q, bounds, z, w, y, rexp, cexp)
    if out is None:  # lost bits: drop the column scaling, then all
        out = scale_pow2(M, q, bounds, z, w, y, rexp, np.zeros(n, dtype=int)) or scale_pow2(
            M, q, bounds, z, w, y, np.zeros(n, dtype=int), np.zeros(n, dtype=int)
        )
        note.append("(scaling reduced to stay exact)")
    Mf, qf, lo, hi, zs, ys = out
    d = _data(ptype, Mf, qf, lo, hi)
    case = Case(ptype, family, index, _problem(ccp, ptype, Mf, qf, lo, hi), d, truth, "; ".join(note))
    _verify(case, lo, hi, zs, ys)
    if family == "warm":
        case.starts = warm_starts(ccp, case, rng)
    return case


def _unknown(ccp, ptype, family, index, rng, n) -> Case:
    """Truth unknown: random floats (possibly decimal-scaled), random integers, degenerate patterns."""
    bounds = bound_types(rng, n, ptype)
    lo = np.array([b[0] for b in bounds], dtype=float)
    hi = np.array([b[1] for b in bounds], dtype=float)
    note = []
    if family in ("integer", "degenerate", "tiny") or rng.random() < 0.2:
        if family == "degenerate":
            M, what = degenerate_matrix(rng, n, 3)
            note.append(what)
        else:
            kind = str(rng.choice(KINDS))
            M = int_matrix(rng, n, kind, int(rng.choice([1, 2, 9])))
            note.append(f"integer {kind}")
        q = rng.integers(-5, 6, n).astype(float)
        if family == "degenerate" and rng.random() < 0.5:
            q = np.full(n, float(rng.integers(-2, 3)))
            note.append("tied q")
        M = M.astype(float)
    else:
        kind = str(rng.choice(["gauss", "spd", "psd", "skew+I", "tri"]))
        A = rng.normal(size=(n, n))
        M = {
            "gauss": A,
            "spd": A @ A.T + 0.1 * np.eye(n),
            "psd": A[:, : max(1, n // 2)] @ A[:, : max(1, n // 2)].T,
            "skew+I": A - A.T + np.eye(n),
            "tri": np.triu(A) + np.diag(np.abs(np.diag(A)) + 0.1),
        }[kind]
        q = rng.normal(size=n) * 10 ** rng.uniform(-3, 3)
        note.append(f"float {kind}")
    if family in ("scaled", "huge"):
        k = 40 if family == "scaled" else 150
        D1 = 10.0 ** rng.integers(-k, k + 1, n)
        D2 = 10.0 ** rng.integers(-k // 3, k // 3 + 1, n)
        M = D1[:, None] * M * D2[None, :]
        q = D1 * q
        finite = np.isfinite(lo)
        lo[finite] /= D2[finite]
        finite = np.isfinite(hi)
        hi[finite] /= D2[finite]
        note.append(f"decimal rows 1e+-{k}, columns 1e+-{k // 3}")
    d = _data(ptype, M, q, lo, hi)
    case = Case(ptype, family, index, _problem(ccp, ptype, M, q, lo, hi), d, "unknown", "; ".join(note))
    if family == "warm":
        case.starts = warm_starts(ccp, case, rng)
    return case


def warm_starts(ccp, case: Case, rng) -> dict:
    return _warm(ccp, case.problem, case.size, rng)

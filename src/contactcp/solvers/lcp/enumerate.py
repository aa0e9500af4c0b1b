"""Exhaustive enumeration of complementary supports: every solution of a small LCP.

For each support ``a`` (the indices where ``z`` may be positive) the set
``{z : z_a >= 0, z_rest = 0, (M z + q)_a = 0, (M z + q)_rest >= 0}`` is a
polyhedron; the LCP is solvable iff one of the ``2^n`` polyhedra is nonempty.
A nonsingular ``M_aa`` gives a single candidate point; a singular one is
decided by an LP (HiGHS).  Exhausting all supports without a point is a proof
that the LCP has no solution.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog

from contactcp.errors import InvalidOptionError
from contactcp.linalg.dot2 import affine_dot2
from contactcp.linalg.exact import det_sign
from contactcp.linalg.lp import Farkas, check_farkas
from contactcp.linalg.rational import rational_solve
from contactcp.linalg.verified import verified_solve
from contactcp.problems import LCP
from contactcp.result import Certificate, Status
from contactcp.solvers.registry import Raw, boolean, integer, register


def enumerate_lcp(M: np.ndarray, q: np.ndarray, tol: float, limit: int | None = None):
    """All solutions found by support enumeration (one point per support), and stats."""
    n = q.shape[0]
    sols: list[np.ndarray] = []
    lps = singular = continua = unproved = unrepresentable = 0
    scale = max(1.0, float(np.abs(q).max()), float(np.abs(M).max()))
    for r in range(n + 1):
        for a in itertools.combinations(range(n), r):
            a = list(a)
            z = np.zeros(n)
            from_lp = False
            if not a:
                if np.any(q < 0):
                    continue  # z = 0 and w = q: exact
            else:
                Maa = M[np.ix_(a, a)]
                ver = verified_solve(Maa, -q[a])
                try:
                    if ver is not None:
                        z[a], err = ver
                        verdict = _support_point(M, q, a, z, err)
                    elif det_sign(Maa) != 0:
                        # too ill-conditioned to bound in floats but nonsingular: its one point, exactly
                        verdict = _support_point(M, q, a, z, None)
                    else:
                        verdict = _SINGULAR
                except _Unrepresentable:
                    unrepresentable += 1  # a solution beyond the float range: no point, no proof
                    continue
                if verdict is None:
                    continue  # provably no point on this support
                if verdict is not _SINGULAR:
                    z = verdict
                else:
                    singular += 1
                    lps += 1
                    z_lp = _support_lp(M, q, a)
                    if z_lp is None:
                        unproved += not _support_empty_proved(M, q, a)
                        continue
                    z, from_lp = z_lp, True
            # a point of _support_point is a solution for certain (signs bounded or exact); an LP's
            # point is checked here in floats (its residual is certified with the answer)
            w = M @ z + q if from_lp else None
            if not from_lp or (z.min(initial=0) >= -tol * scale and w.min() >= -tol * scale):
                continua += from_lp
                if not any(np.allclose(z, s, atol=1e-9 * scale) for s in sols):
                    sols.append(np.maximum(z, 0.0))
                if limit is not None and len(sols) >= limit:
                    return sols, {
                        "supports": None,
                        "lps": lps,
                        "singular_blocks": singular,
                        "singular_points": continua,
                        "unproved_empty": unproved,
                        "unrepresentable": unrepresentable,
                    }
    # singular_points: supports with a singular block that admit a solution (one LP point of a
    # possibly larger solution set is listed)
    return sols, {
        "supports": 2**n,
        "lps": lps,
        "singular_blocks": singular,
        "singular_points": continua,
        "unproved_empty": unproved,
        "unrepresentable": unrepresentable,
    }


def _support_point(M: np.ndarray, q: np.ndarray, a: list[int], z: np.ndarray, err: float | None) -> np.ndarray | None:
    """Support ``a`` with a nonsingular block: its only candidate is ``z`` (``z_a`` within ``err`` of
    the exact solution).  None when the candidate provably violates ``z >= 0`` or ``w >= 0`` (a sign
    beyond the error bound); otherwise the point to test (recomputed in rational arithmetic when
    a sign is within the bound, so that a rejection is always exact).  ``err=None``: no float bound
    (the block was too ill-conditioned to bound); the block is solved in rational arithmetic, and
    None also means that it is singular."""
    n = q.shape[0]
    rest = np.setdiff1d(np.arange(n), a)
    if err is None:
        return _exact_support_point(M, q, a, rest)
    za = z[a]
    if np.any(za < -err):
        return None
    w, allow, risky = affine_dot2(np.ascontiguousarray(M[rest]), np.ascontiguousarray(z), np.ascontiguousarray(q[rest]))
    if risky.any():  # a product or a sum may have overflowed: no valid bound, the signs in rational arithmetic
        return _exact_support_point(M, q, a, rest)
    spread = np.abs(M[np.ix_(rest, a)]).sum(axis=1) * err + allow
    if np.any(w < -spread * (1 + 1e-12) - 1e-300):
        return None
    if np.all(za > err) and np.all(w > spread):
        return z  # every sign certain: a solution
    return _exact_support_point(M, q, a, rest)


def _exact_support_point(M: np.ndarray, q: np.ndarray, a: list[int], rest: np.ndarray) -> np.ndarray | None:
    n = q.shape[0]
    exact = rational_solve(M[np.ix_(a, a)], -q[a])
    if exact is None or any(v < 0 for v in exact):
        return None
    for i in rest.tolist():
        wi = Fraction(float(q[i])) + sum(Fraction(float(M[i, j])) * v for j, v in zip(a, exact) if M[i, j] != 0)
        if wi < 0:
            return None
    out = np.zeros(n)
    try:
        out[a] = [float(v) for v in exact]
    except OverflowError:
        raise _Unrepresentable from None
    return out


class _Unrepresentable(ArithmeticError):
    """A support holds a solution whose entries exceed the float range."""


_SINGULAR = np.zeros(0)  # marker: the block is singular (decided by an LP below)


def _support_empty_proved(M: np.ndarray, q: np.ndarray, a: list[int]) -> bool:
    """An exact Farkas proof that support ``a`` admits no point: ``{(z_a, s) >= 0 : M_aa z_a = -q_a,
    M_ra z_a - s = -q_r}`` is empty, i.e. ``u`` with ``A^T u >= 0`` and ``b^T u < 0`` (found by an
    LP, then checked exactly by :func:`contactcp.linalg.lp.check_farkas`)."""
    n = q.shape[0]
    rest = [i for i in range(n) if i not in a]
    A = np.block([[M[np.ix_(a, a)], np.zeros((len(a), len(rest)))], [M[np.ix_(rest, a)], -np.eye(len(rest))]])
    b = -np.concatenate([q[a], q[rest]])
    res = linprog(b, A_ub=-A.T, b_ub=np.zeros(A.shape[1]), bounds=(-1, 1), method="highs")
    if res.status != 0 or not res.fun < 0:
        return False
    return check_farkas(A, b, Farkas(res.x, np.arange(A.shape[1]), 0.0, float(b @ res.x))) is not None


def _support_lp(M: np.ndarray, q: np.ndarray, a: list[int]) -> np.ndarray | None:
    n = q.shape[0]
    rest = [i for i in range(n) if i not in a]
    A_eq = M[np.ix_(a, a)]
    b_eq = -q[a]
    A_ub = -M[np.ix_(rest, a)] if rest else None
    b_ub = q[rest] if rest else None
    res = linprog(np.zeros(len(a)), A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if res.status != 0:
        return None
    z = np.zeros(n)
    z[a] = res.x
    return z


def _enumerate_applies(problem: LCP) -> str:
    return "" if problem.n <= 16 else f"n = {problem.n} needs 2^{problem.n} solves (max_n = 16 by default)"


@register(
    "enumerate",
    LCP,
    description="all 2^n complementary supports (small n): every solution, or a proof of none",
    options={"max_n": integer(1, 30), "all_solutions": boolean()},
    applies=_enumerate_applies,
)
def enumerate_method(problem: LCP, tol: float, *, max_n: int = 16, all_solutions: bool = True) -> Raw:
    """Support enumeration.

    Options
    -------
    max_n : refuse problems larger than this (the work is ``2^n`` solves)
    all_solutions : collect every solution (``stats["solutions"]``); False stops at the first
    """
    n = problem.n
    if n > max_n:
        raise InvalidOptionError("max_n", f"enumeration of n = {n} needs 2^{n} solves; raise max_n to allow it")
    sols, stats = enumerate_lcp(problem.M, problem.q, tol, None if all_solutions else 1)
    stats["solutions"] = sols
    if sols:
        best = min(sols, key=lambda s: problem.residual(s).value)
        return Raw(
            best,
            Status.SOLVED,
            len(sols),
            f"{len(sols)} solution(s) found" + ("" if all_solutions else " (stopped at the first)"),
            stats=stats,
        )
    if stats["unrepresentable"]:
        return Raw(
            None,
            Status.NUMERICAL_FAILURE,
            2**n,
            f"{stats['unrepresentable']} support(s) hold a solution beyond the float range",
            stats=stats,
        )
    if stats["unproved_empty"]:
        return Raw(
            None,
            Status.INACCURATE,
            2**n,
            f"no support admits a solution, but {stats['unproved_empty']} ill-conditioned support(s) "
            "were ruled out by an LP verdict that no exact Farkas proof confirms",
            stats=stats,
        )
    cert = Certificate(
        kind="enumeration",
        vector=np.zeros(0),
        description=f"all {2**n} complementary supports checked, none admits a solution "
        "(a block proved nonsingular by a verified solve: signs beyond its rigorous "
        "error bound, the others decided in rational arithmetic; the remaining blocks "
        "by an LP whose emptiness verdict is confirmed by an exact Farkas proof)",
        checks={"supports": float(2**n), "lps": float(stats["lps"])},
        verified=True,
    )
    return Raw(None, Status.NO_SOLUTION, 2**n, "no support admits a solution", certificate=cert, stats=stats)

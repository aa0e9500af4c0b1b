"""A mixed-integer search for a solution of a linear complementarity problem (any matrix).

Pivoting and interior-point methods need structure in ``M`` (P, copositive-plus, monotone); on an
indefinite or negative semidefinite ``M`` Lemke may end on a ray although a solution exists, and a
local method may stall at a stationary point.  Writing each complementarity pair as a binary choice
turns the problem into a mixed-integer feasibility problem that a branch-and-bound solver explores
completely (Hu, Mitchell, Pang, Bennett & Kunapuli, "On the global solution of linear programs with
linear complementarity constraints", SIAM J. Optim. 19, 2008).  For a box LCP (an LCP and a mixed
LCP are box LCPs with bounds ``[0, inf)`` and ``(-inf, inf)``) with ``w = M z + q = w+ - w-``::

    l_i finite:  z_i - l_i <= U (1 - b_i),   0 <= w+_i <= W b_i        ((z_i - l_i) w+_i = 0)
    u_i finite:  u_i - z_i <= U (1 - c_i),   0 <= w-_i <= W c_i        ((u_i - z_i) w-_i = 0)
    l_i = -inf:  w+_i = 0;   u_i = +inf:  w-_i = 0

with binaries ``b``, ``c`` and big-M bounds ``U``, ``W``.  HiGHS (``highspy``)
solves it on the problem equilibrated by powers of two (rows and columns of ``M``, then the size of
``q`` and the bounds), which is exact, so the big-M bounds are relative to a well-scaled problem;
they grow in steps when the search finds nothing.  The binaries name a support; the point is then
polished on the problem's own data (:func:`contactcp.solvers.lcp.polish.box_candidates`: the
interior rows solved with residuals in doubled precision, sign flips as a block pivot) and
certified like every answer.  An infeasible MILP is no proof (the big-M bounds cut the space):
the method then says so and returns no verdict.
"""

from __future__ import annotations

import time

import highspy
import numpy as np
from scipy.sparse import coo_array, csr_array, hstack, identity, vstack

from contactcp.errors import InvalidOptionError
from contactcp.linalg.lp import _new_highs, run_highs
from contactcp.problems import LCP, BoxLCP, MixedLCP
from contactcp.result import Status
from contactcp.solvers.lcp.polish import as_box, best_box_point, exact_box_point
from contactcp.solvers.registry import Raw, integer, real, register

__all__ = ["equilibrate_pow2", "milp_method"]

#: big-M bounds tried in turn (on the equilibrated problem, whose data are at most about 1)
BIG_M = (1e3, 1e6)
#: supports solved in exact arithmetic when the polish falls short, up to this size
_EXACT_N = 40
#: HiGHS: quiet, no presolve (it declared feasible MILPs with small data infeasible), tight
#: tolerances (a binary 1e-6 from its value lets a big-M bound leak), one thread (reproducible; as
#: every instance of :func:`~contactcp.linalg.lp._new_highs`, since they share HiGHS's scheduler)
_HIGHS_OPTIONS = {
    "output_flag": False,
    "presolve": "off",
    "mip_feasibility_tolerance": 1e-9,
    "primal_feasibility_tolerance": 1e-9,
    "random_seed": 0,
    "threads": 1,
}


def _exp2(v: np.ndarray) -> np.ndarray:
    """The integer ``e`` with ``2^(e-1) <= v < 2^e`` for positive finite ``v``, 0 elsewhere."""
    ok = np.isfinite(v) & (v > 0)
    return np.where(ok, np.frexp(np.where(ok, v, 1.0))[1], 0).astype(np.int64)


def equilibrate_pow2(M: np.ndarray, rounds: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Row and column exponents ``(r, c)`` so that ``2^r_i M_ij 2^c_j`` has row and column
    max-norms in ``[1/2, 2)`` or so: Ruiz's iteration (each step divides a row or column by the
    square root of its max-norm), rounded to powers of two so that the scaling is exact.

    Not Lemke's :func:`~contactcp.solvers.lcp.lemke_kernel.equilibrate`, which divides rows, then
    columns, by their whole max-norm: on the 255 planted mixed and box LCPs of the fuzz that
    Lemke's chain left unsolved on 5c494a3, the MILP left 4 unsolved with this balance and 6 with
    Lemke's (the MILP alone on each, its answer certified by the residual)."""
    n, m = M.shape
    r = np.zeros(n, dtype=np.int64)
    c = np.zeros(m, dtype=np.int64)
    A = np.abs(M)
    for _ in range(rounds):
        S = np.ldexp(np.ldexp(A, r[:, None]), c[None, :])
        dr = -(_exp2(S.max(axis=1, initial=0.0)) // 2) if n else r
        S = np.ldexp(S, dr[:, None])
        dc = -(_exp2(S.max(axis=0, initial=0.0)) // 2) if m else c
        if not dr.any() and not dc.any():
            break
        r += dr
        c += dc
    return r, c


def _scaled(M, q, lo, hi):
    """The equilibrated box LCP ``(2^r M 2^c, 2^(r+e) q, 2^(e-c) l, 2^(e-c) u)`` and the map of its
    ``y`` back to ``z = 2^(c-e) y``.  Exact but for values that leave the normal range; those only
    steer the search (its supports are solved on the problem's own data), so entries below
    ``2^-600`` are dropped, which HiGHS's tolerances would do anyway."""
    r, c = equilibrate_pow2(M)
    Ms = np.ldexp(np.ldexp(M, r[:, None]), c[None, :])
    # the overall exponent e from the exponents alone, so that no intermediate value overflows
    tops = [_exp2(np.abs(q))[q != 0] + r[q != 0]]
    for b in (lo, hi):
        f = np.isfinite(b) & (b != 0)
        tops.append(_exp2(np.abs(b[f])) - c[f])
    top = np.concatenate(tops)
    e = -int(top.max()) if top.size else 0
    qs = np.ldexp(q, r + e)
    los, his = np.ldexp(lo, e - c), np.ldexp(hi, e - c)
    for a in (Ms, qs):
        a[np.abs(a) < 2.0**-600] = 0.0

    def back(y: np.ndarray) -> np.ndarray:
        return np.ldexp(y, c - e)

    return Ms, qs, los, his, back


class _Search:
    """The MILP of the module docstring for one big-M bound, re-solved with no-good cuts that exclude
    the supports already tried."""

    def __init__(self, M, q, lo, hi, U: float):
        n = q.shape[0]
        lf, uf = np.isfinite(lo), np.isfinite(hi)
        self.fixed = fixed = lf & uf & (lo == hi)
        self.bi = bi = np.flatnonzero(lf & ~fixed)
        self.ci = ci = np.flatnonzero(uf & ~fixed)
        nb, nc = bi.size, ci.size
        self.n, self.nbin = n, nb + nc
        W = U * (1.0 + np.abs(M).sum(axis=1).max(initial=0.0)) + 1.0
        N = self.N = 3 * n + nb + nc
        # x = [y, w+, w-, b, c]
        xlo = np.concatenate([np.where(lf, lo, -U), np.zeros(2 * n + nb + nc)])
        xhi = np.concatenate([np.where(uf, hi, U), np.where(lf, W, 0.0), np.where(uf, W, 0.0), np.ones(nb + nc)])
        eye = identity(n, format="csr")
        rows = [hstack([csr_array(M), -eye, eye, csr_array((n, nb + nc))])]
        lb, ub = [-q], [-q]
        width = np.where(lf & uf, hi - lo, U)
        for idx, wcol, sign, off in ((bi, n, 1.0, 3 * n), (ci, 2 * n, -1.0, 3 * n + nb)):
            k = idx.size
            if not k:
                continue
            ar = np.arange(k)
            Ui = np.minimum(width[idx], U)
            # sign (y_i - bound_i) + Ui bin_i <= Ui: the variable sits on its bound when bin_i = 1
            data = np.concatenate([np.full(k, sign), Ui])
            rows.append(coo_array((data, (np.tile(ar, 2), np.concatenate([idx, off + ar]))), shape=(k, N)).tocsr())
            lb.append(np.full(k, -np.inf))
            ub.append(Ui + sign * np.where(sign > 0, lo[idx], hi[idx]))
            # w_i - W bin_i <= 0: its multiplier vanishes when bin_i = 0
            data = np.concatenate([np.ones(k), np.full(k, -W)])
            rows.append(
                coo_array((data, (np.tile(ar, 2), np.concatenate([wcol + idx, off + ar]))), shape=(k, N)).tocsr()
            )
            lb.append(np.full(k, -np.inf))
            ub.append(np.zeros(k))
        A = vstack(rows).tocsc()
        h = _new_highs()
        for key, val in _HIGHS_OPTIONS.items():
            h.setOptionValue(key, val)
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = N, A.shape[0]
        lp.col_cost_ = np.zeros(N)
        lp.col_lower_, lp.col_upper_ = xlo, xhi
        lp.row_lower_, lp.row_upper_ = np.concatenate(lb), np.concatenate(ub)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
        lp.integrality_ = [highspy.HighsVarType.kContinuous] * (3 * n) + [highspy.HighsVarType.kInteger] * (nb + nc)
        h.passModel(lp)
        self.h = h
        self.bins = np.arange(3 * n, N, dtype=np.int32)

    def next(self, time_limit: float):
        """``(y, at_lower, at_upper)`` of a support not tried yet, or None (none within the bounds)."""
        n, h = self.n, self.h
        h.setOptionValue("time_limit", max(time_limit, 1e-3))
        run_highs(h)  # not h.run(): HiGHS refuses to start when another thread count came first
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        x = np.asarray(h.getSolution().col_value, dtype=float)
        if x.shape != (self.N,) or not np.all(np.isfinite(x)):
            return None
        pat = x[3 * n :] > 0.5
        # cut this support off: sum_{bin = 1} (1 - x) + sum_{bin = 0} x >= 1
        h.addRow(1.0 - pat.sum(), highspy.kHighsInf, self.nbin, self.bins, np.where(pat, -1.0, 1.0))
        at_lo = self.fixed.copy()
        at_hi = np.zeros(n, dtype=bool)
        at_lo[self.bi] |= pat[: self.bi.size]
        at_hi[self.ci] = pat[self.bi.size :]
        return x[:n], at_lo, at_hi


#: the largest problem the method takes (HiGHS's search is exponential in the worst case)
MAX_N = 400


def _applies(problem) -> str:
    return "" if problem.q.shape[0] <= MAX_N else f"more than {MAX_N} variables"


@register(
    "milp",
    LCP,
    MixedLCP,
    BoxLCP,
    description="branch and bound on the complementarity choices (HiGHS MILP): any matrix, small n",
    options={"time_limit": real(0.0, None), "max_n": integer(1, MAX_N), "max_supports": integer(1, None)},
    applies=_applies,
)
def milp_method(problem, tol: float, *, time_limit: float = 10.0, max_n: int = MAX_N, max_supports: int = 64) -> Raw:
    """Search the complementarity choices with a mixed-integer program (see the module docstring).

    Each support the MILP proposes is polished on the problem's own data, and solved in exact
    arithmetic when the problem is small (``n <= 40``) and the polish falls short; a support that
    holds no certified point is cut off and the MILP solved again.

    Options
    -------
    time_limit : seconds for the whole search (HiGHS's limit for each MILP is what is left)
    max_n : refuse problems larger than this
    max_supports : supports tried per big-M bound
    """
    if not time_limit > 0:
        raise InvalidOptionError("time_limit", f"must be positive, got {time_limit!r}")
    M, q, lo, hi = as_box(problem)
    n = q.shape[0]
    if n > max_n:
        return Raw(None, Status.NUMERICAL_FAILURE, 0, f"{n} variables exceed max_n={max_n}")
    Ms, qs, los, his, back = _scaled(M, q, lo, hi)
    t_end = time.perf_counter() + time_limit
    best = None
    tried = 0
    for U in BIG_M:
        search = _Search(Ms, qs, los, his, U)
        for _ in range(max_supports):
            left = t_end - time.perf_counter()
            if left <= 0:
                break
            found = search.next(left)
            if found is None:
                break
            tried += 1
            y, at_lo, at_hi = found
            z, value = best_box_point(problem, back(y), at_lo, at_hi)
            if value > tol and n <= _EXACT_N:
                ze = exact_box_point(M, q, lo, hi, at_lo, at_hi)
                ve = problem.residual(ze).value if ze is not None else np.inf
                if ve < value:
                    z, value = ze, ve
            if best is None or value < best[1]:
                best = (z, value, U)
            if value <= tol:
                return Raw(
                    z,
                    Status.SOLVED,
                    tried,
                    f"MILP support {tried} (big-M {U:.0e} on the equilibrated problem), polished",
                )
    if best is None:
        return Raw(
            None,
            Status.ITERATION_LIMIT,
            tried,
            f"no point within the big-M bounds {', '.join(f'{u:.0e}' for u in BIG_M)} of the equilibrated "
            "problem (not a proof of infeasibility)",
        )
    z, value, U = best
    return Raw(z, Status.INACCURATE, tried, f"{tried} MILP supports tried, none certified (best: big-M {U:.0e})")

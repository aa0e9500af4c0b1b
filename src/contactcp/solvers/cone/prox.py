"""Proximal-point method for the Coulomb-cone problem, with semismooth Newton inner solves.

With ``W`` rank-deficient (many contacts on few bodies: the usual case in simulations) the
Alart–Curnier Newton matrix is singular on the null space of ``W`` and Newton alone stalls.  The
proximal-point iteration (Rockafellar 1976; the ``PROX`` solver of Acary, Brémond & Huber,
*On solving contact problems with Coulomb friction: formulations and numerical comparisons*,
2018) solves instead, at each outer step, the regularised problem

    ``r_{k+1}``: Coulomb's law with ``u = (W + rho I) r + (q - rho r_k)``,

whose operator ``W + rho I`` is positive definite, so its Newton iteration is well posed; a fixed
point ``r_{k+1} = r_k`` solves the original problem (the regularised ``u`` equals ``W r + q``).
Inner solves are inexact (to a tenth of the outer residual) and warm-started.  The weight follows
the residual, ``rho_k = sigma max_i W_ii min(1, e_k)`` with ``e_k`` the problem's own measure at
``r_k`` (the rule ``alpha = sigma e^nu`` of Siconos' PROX, which Acary, Brémond & Huber use, made
invariant to the scale of ``W``): the regularisation vanishes as the iterates converge, so the outer
iteration ends in a few steps, and it is strong where the point is far.  An inner solve that fails
multiplies the weight by 10, and that weight stays a floor that each solved inner problem lowers
by :data:`_FLOOR_DECAY` (without it, the weight fell back to where the inner problems had failed, on
the generated walls of boxes, and cycled).  Inner Newton iterations from zero, tol 1e-8, counted with
``contactcp.solve(p, "prox", restarts=6)`` (deterministic counts, not times), against the rule before
(the weight halved after each inner solve of at most 3 iterations), with the stall test below:
FCLIB's Capsules problems 71 -> 15 and 142 -> 23, the Kapla tower 13 -> 8, OneObject 28 -> 17,
PerioBox 73 -> 63; the four walls of ``scenarios.piles.box_wall(6, 5)`` 3464 -> 3948 in all (counted
in the run that solves; the one of seed 0 varies most, 971 -> 1564).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from contactcp.problems import FrictionContactProblem
from contactcp.result import Status
from contactcp.solvers.cone import scale as homogeneous
from contactcp.solvers.cone.newton import _newton, default_rho
from contactcp.solvers.registry import Raw, integer, real, register, vector

_TINY = float(np.finfo(float).tiny)
#: each solved inner problem multiplies the floor the last failure set by this
_FLOOR_DECAY = 0.7
#: in a first run, an inner solve at a weight below ``_STALL_BELOW max W_ii`` stops when ``_STALL``
#: Newton iterations have not halved its residual (``_newton``'s ``stall``): near-singular inner
#: problems where the Newton iteration crawls under its line search are restarted with a larger weight
#: instead (FCLIB's Capsules-i122-1617 from zero: 105 inner iterations -> 23, against 34 for Siconos'
#: PROX; its crawls were at 3e-7 and 2e-6 max W_ii); restarts run without the test (the generated wall
#: ``box_wall(6, 5, seed=0)`` needs the patient crawl to finish); above 1e-5 max W_ii the test cost
#: more than it saved (Capsules-i125-1213: 15 -> 27 with the test up to 1e-4)
_STALL = 5
_STALL_BELOW = 1e-5
#: a restart goes on from the end point of a run whose residual fell at least this much over its second
#: half (linear convergence, slow but sure), else from a random start.  FCLIB's rock pile
#: (RockPile_tob1) from zero: 2e-1 -> 5.8e-7 in 200 proximal steps, then 1.6e-8, then 8.7e-9 by
#: continuing, with progress 0.06 and 0.34; at 0.1 the chain took random starts after the second run
#: and ended at 1.6e-8 after 1400 steps (30 s)
_GOING = 0.5


def _regularised(problem: FrictionContactProblem, rho: float, r: np.ndarray) -> FrictionContactProblem:
    W = problem.W
    Wr = (W + rho * sp.identity(W.shape[0], format="csr")) if sp.issparse(W) else W + rho * np.eye(W.shape[0])
    return FrictionContactProblem(Wr, problem.q - rho * r, problem.mu, problem.dim)


@register(
    "prox",
    FrictionContactProblem,
    description="proximal point on W + rho I with semismooth Newton inner solves (rank-deficient W)",
    options={
        "max_outer": integer(1),
        "inner_iter": integer(1),
        "rho": real(0.0, lo_open=True, none=True),
        "sigma": real(0.0, lo_open=True),
        "r0": vector(),
        "restarts": integer(0),
        "seed": integer(0),
        "warm_within": real(1.0, none=True),
    },
)
def prox(
    problem: FrictionContactProblem,
    tol: float,
    *,
    max_outer: int = 200,
    inner_iter: int = 30,
    rho: float | None = None,
    sigma: float = 0.1,
    r0: object = None,
    restarts: int = 0,
    seed: int = 0,
    warm_within: float | None = None,
) -> Raw:
    """Proximal point with Newton inner solves.

    Options
    -------
    max_outer : outer (proximal) iterations (default 200)
    inner_iter : Newton iterations per inner solve (default 30; 12 or 15 left the generated wall
        ``box_wall(6, 5, seed=0)`` unsolved: its inner solves crawl and still get there)
    rho : a fixed proximal weight (default None: the weight follows the residual, see ``sigma``)
    sigma : after a solved inner problem the adaptive weight is ``sigma max_i W_ii min(1, e)`` at the
        new point's residual ``e``, at most half the last weight and at least the floor a failure set
        (default 0.1)
    r0 : starting reactions (default zero)
    restarts : when a run ends without a solution, start again this many times: from the end point
        when it was still converging (the residual at least halved over its second half,
        :data:`_GOING`), else, the first time, from the same start without the stall test of the
        inner solves (``_STALL``) when that test stopped one, else from seeded random reactions
        inside the cones, of the size the data give (``||q|| / max W_ii``);
        the best end point is kept (the Coulomb problem is not monotone: runs from different starts end at
        different points; default 0)
    seed : seed of those starts
    warm_within : start from ``r0`` only when its residual is at most this many times ``tol``, else
        from zero (default None: always from ``r0``).  The default chain sets 10 for the point NSGS
        left.  With the weight rule before this one (strongest at the start, shrinking only as the
        inner solves got easy) a far start made the method creep (``box_wall(6, 5, seed=0)``: the
        chain failed after 13.9 s; 100 was set then).  With the weight following the residual, a
        start NSGS left at 6e-7 on FCLIB's Capsules-i122-1617 (64 tol) took 44 proximal steps and
        409 inner iterations, where from zero 8 and 105 (a script, one run, tol 1e-8): the inner
        problems near such a point meet contact modes NSGS has not settled
    """
    r = np.zeros(problem.size) if r0 is None else r0.copy()
    if warm_within is not None and r0 is not None and problem.residual(r).value > warm_within * tol:
        r = np.zeros(problem.size)
    problem, r, k = homogeneous.apply(problem, r)
    first = r.copy()
    raw = _prox(problem, tol, max_outer, inner_iter, rho, sigma, r, _STALL)
    rng = None
    value = None
    for attempt in range(restarts):
        if raw.status is Status.SOLVED:
            break
        rng = rng or np.random.default_rng(seed)
        value = problem._certify(raw.x, None)[0].value if value is None else value
        # a run still converging (its residual at least halved over its second half) goes on from its
        # end point; else the first retry is the same start without the stall test (_STALL), when that
        # test stopped an inner solve (else the run would repeat itself); a stalled run starts again
        # from a random point
        going = raw.stats.get("progress", 1.0) < _GOING
        again_same = not going and attempt == 0 and raw.stats.get("stalls", 0) > 0
        start = first if again_same else raw.x if going else _random_start(problem, rng)
        again = _prox(problem, tol, max_outer, inner_iter, rho, sigma, start, 0)  # no stall test: the patient run
        again.stats["restart"] = attempt + 1
        again.stats["continued"] = going
        again.iterations += raw.iterations
        again_value = problem._certify(again.x, None)[0].value
        if again.status is Status.SOLVED or again_value < value:
            raw, value = again, again_value
        else:
            raw.iterations = again.iterations
            if going:  # the run is deterministic: continuing the same point again would repeat it
                raw.stats["progress"] = 1.0
    raw.x, raw.w = homogeneous.invert(raw.x, k), homogeneous.invert(raw.w, k)
    return raw


def _random_start(problem: FrictionContactProblem, rng: np.random.Generator) -> np.ndarray:
    """Reactions inside the cones, of the size the data give."""
    W, d = problem.W, problem.dim
    diag = W.diagonal() if sp.issparse(W) else np.diag(W)
    size = float(np.linalg.norm(problem.q)) / max(float(np.max(np.abs(diag), initial=0.0)), 1e-300)
    R = np.zeros((problem.n_c, d))
    R[:, 0] = rng.uniform(0.0, size, problem.n_c)
    t = rng.standard_normal((problem.n_c, d - 1))
    t *= (rng.uniform(0.0, 1.0, problem.n_c) * problem.mu * R[:, 0] / np.maximum(np.linalg.norm(t, axis=1), 1e-300))[
        :, None
    ]
    R[:, 1:] = t
    return R.reshape(-1)


def _prox(
    problem: FrictionContactProblem,
    tol: float,
    max_outer: int,
    inner_iter: int,
    rho: float | None,
    sigma: float,
    r: np.ndarray,
    stall: int,
) -> Raw:
    W = problem.W
    diag = W.diagonal() if sp.issparse(W) else np.diag(W)
    wmax = float(np.max(np.abs(diag), initial=0.0)) or 1.0
    lo, hi = 1e-12 * wmax, 10.0 * wmax
    res = problem._certify(r, None)[0].value
    qnorm = float(np.linalg.norm(problem.q)) or 1.0
    adapt = rho is None
    weight = float(rho) if not adapt else _follow(sigma, wmax, res, lo)
    floor = lo  # the weight of the last failure's retry, decaying: where the inner problems get hard
    status, msg, outer, inner_total = Status.ITERATION_LIMIT, f"no convergence in {max_outer} proximal steps", 0, 0
    stalls = 0
    half = np.inf
    for outer in range(1, max_outer + 1):
        if outer == max_outer // 2 + 1:
            half = res
        if res <= tol:
            status, msg = Status.SOLVED, "converged"
            outer -= 1
            break
        sub = _regularised(problem, weight, r)
        # the inner tolerance in the original problem's scale: the inner problem's own measure divides by
        # ||q - weight r||, which may be far larger than ||q|| (and then its start already "solved" it)
        inner_tol = max(0.1 * tol, min(1e-3, 0.1 * res)) * qnorm / max(float(np.linalg.norm(sub.q)), _TINY)
        crawl = stall if weight < _STALL_BELOW * wmax else 0
        raw = _newton(sub, inner_tol, inner_iter, None, default_rho(sub), False, r.copy(), 1e-4, "auto", 0, crawl)
        inner_total += raw.iterations
        stalls += bool(raw.stats.get("stalled"))
        ok = raw.x is not None and bool(np.all(np.isfinite(raw.x)))
        new = problem._certify(raw.x, None)[0].value if ok else np.inf
        halved = ok and new < 0.5 * res
        if ok and (raw.status is Status.SOLVED or new < res):
            r, res = raw.x, new
        if not adapt:
            if not ok:
                status, msg = Status.NUMERICAL_FAILURE, "an inner Newton solve failed"
                break
        elif ok and raw.status is Status.SOLVED:
            floor *= _FLOOR_DECAY
            # the residual's weight, and at most half the last (where the residual stalls, the weight
            # still shrinks: a contact with a tiny W_ii needs steps far longer than 1 / (sigma max W_jj))
            weight = max(min(_follow(sigma, wmax, res, lo), 0.5 * weight), floor)
        elif halved and raw.stats.get("stalled"):
            pass  # a crawl that halved the residual: a new proximal centre, the same weight
        else:
            weight = min(hi, 10.0 * weight)  # the inner problem is too hard: regularise more
            floor = weight
    else:
        if res <= tol:
            status, msg = Status.SOLVED, "converged"
    u = problem.W @ r + problem.q
    progress = res / half if half > 0 else 1.0
    stats = {"rho": weight, "inner_iterations": inner_total, "progress": progress, "stalls": stalls}
    return Raw(r, status, iterations=outer, message=msg, w=u, stats=stats)


def _follow(sigma: float, wmax: float, res: float, lo: float) -> float:
    """The proximal weight at a point of residual ``res``: ``sigma wmax min(1, res)``, at least ``lo``."""
    return max(lo, sigma * wmax * min(1.0, res))

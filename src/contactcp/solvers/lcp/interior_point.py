"""Interior-point method for the LCP (feasible start, infeasible-start fallback), with purification.

By default the method starts from a strictly feasible point (``z > 0``,
``w = M z + q > 0``: the default start when it is feasible, otherwise the
solution of a phase-1 LP maximising the smallest slack) and is then the
feasible path-following method; only when no strictly feasible point exists
(or ``start="infeasible"``) does it start from an infeasible point, as below.

The method follows the central path of Kojima, Megiddo, Noma & Yoshise, *A
Unified Approach to Interior Point Algorithms for Linear Complementarity
Problems* (LNCS 538, 1991): iterates keep ``z > 0, w > 0`` and are driven
towards ``z_i w_i = sigma mu`` with ``mu = z . w / n`` decreasing to zero.  The
start need not be feasible: the residual ``r = w - M z - q`` is driven to zero
alongside ``mu`` (each Newton step removes the fraction ``alpha`` of it).  A
start supplied by the user with ``w0 = M z0 + q`` (an interior feasible point)
makes ``r = 0`` throughout, i.e. the feasible method.

Each iteration solves the Newton system of
``w - M z - q = 0, Z W e = sigma mu e`` through the reduced system
``(M + diag(w / z)) dz = sigma mu / z - w + r`` with ``dw = M dz - r`` (one
dense factorisation: Cholesky when M is symmetric positive semidefinite, LU
otherwise).  The centering ``sigma`` is Mehrotra's adaptive choice
(``(mu_aff / mu)^3`` from an affine predictor, plus the second-order
corrector, sharing the factorisation) unless a fixed ``sigma`` is given
(a long-step method).  Mehrotra's corrector can make ``mu`` grow and cycle
even on monotone problems, so when its step is short (< 0.1) the KMNY long
step with ``sigma = 0.3`` is tried as well.  Every step stays in the wide
neighbourhood ``z_i w_i >= gamma mu`` with ``||r|| / mu <= beta ||r0|| / mu0``
(the condition that makes infeasible-start methods converge or detect
infeasibility) and must reduce ``mu`` by the fraction ``0.01 alpha``.

Interior iterates are never exactly complementary, so the method finishes with
a purification (crossover): it guesses the active set ``F = {i : z_i > w_i}``,
solves ``M_FF z_F = -q_F`` (as a correction of the iterate, least squares when
``M_FF`` is singular), sets the other ``z_i`` to zero, and keeps the result if its
residual is smaller (indices with the wrong sign change sides for up to two
more solves).  It is tried whenever the guess is stable once ``mu`` has fallen
by 100, so on nondegenerate problems the method stops after a handful of
iterations with an answer as accurate as a pivoting method's.

A point is reported as a solution only when its scaled residual is within
``tol`` and, in addition, its absolute violation is within
``tol * max(1, max|q|)`` or at rounding level at a point that has not diverged:
on infeasible problems the iterates diverge, and a point with ``||z|| ~ 1e12``
and ``w_i = -1`` has a tiny residual relative to its terms ``|M| |z|``.  When
the iterates diverge, or stop while ``w - M z - q`` is still far from zero,
the method looks for a Farkas certificate (``lcp_farkas``) and reports
NO_SOLUTION only with a verified one.

The convergence theory covers P_*(kappa) matrices, which include the positive
semidefinite (monotone) matrices and the P-matrices; ``stats["guarantee"]``
says which applies (the check is cheap and skipped above n = 2000).  A
monotone LCP whose solution set is unbounded (no strictly feasible point) has
a diverging central path; the purification usually ends the run before that
matters, but with ``purify=False`` such runs can end without a solution.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg as sla

from contactcp.errors import InvalidOptionError
from contactcp.problems import LCP
from contactcp.result import Residual, Status
from contactcp.solvers.lcp import polish
from contactcp.solvers.lcp.certificates import lcp_farkas
from contactcp.solvers.registry import Raw, boolean, choice, integer, real, register, vector

_GAMMA = 1e-5  # wide neighbourhood: min z_i w_i >= gamma mu
_BETA = 1e4  # ||r|| / mu <= beta ||r0|| / mu0
_ETA = 0.995  # fraction of the step to the boundary
_ARMIJO = 0.01  # required decrease: mu_new <= (1 - _ARMIJO alpha) mu
_SIGMA_LONG = 0.3  # centering of the fallback long step
_BLOWUP = 1e12  # ||(z, w)||_inf beyond this times the start's size: divergence
_PSD_RTOL = 1e-10  # symmetric part PSD if its smallest eigenvalue >= -_PSD_RTOL max|S_ij|
_PSD_MAX_N = 2000  # skip the matrix-class check above this size
_P_MAX_N = 10  # check all principal minors up to this size

GUARANTEE_PSD = "monotone (PSD): polynomial convergence guaranteed"
GUARANTEE_P = "P-matrix: convergence guaranteed (P_*)"
GUARANTEE_NONE = "no convergence guarantee for this matrix class"
GUARANTEE_UNCHECKED = "matrix class not checked (n > 2000): no convergence guarantee claimed"


# ---------------------------------------------------------------------------
# matrix class


def matrix_class(M: np.ndarray) -> tuple[str, bool]:
    """The convergence guarantee of the KMNY theory for ``M`` and whether M is monotone.

    PSD test: the Cholesky factorisation of ``(M + M^T)/2 + delta I`` with
    ``delta = 1e-10 max|S_ij|`` exists exactly when the smallest eigenvalue of
    the symmetric part is above ``-delta`` (up to rounding); it costs a sixth
    of ``eigvalsh``.  P-matrix test (n <= 10): all ``2^n - 1`` principal minors
    are positive (:func:`contactcp.linalg.pmatrix.p_matrix_test`, relative to the cancelling terms).
    """
    n = M.shape[0]
    if n > _PSD_MAX_N:
        return GUARANTEE_UNCHECKED, False
    S = 0.5 * (M + M.T)
    smax = float(np.abs(S).max())
    psd = smax == 0.0
    if not psd:
        A = S.copy()
        A.flat[:: n + 1] += _PSD_RTOL * smax
        try:
            sla.cho_factor(A, overwrite_a=True, check_finite=False)
            psd = True
        except np.linalg.LinAlgError:
            psd = False
    if psd:
        return GUARANTEE_PSD, True
    if n <= _P_MAX_N and _is_p_matrix(M):
        return GUARANTEE_P, False
    return GUARANTEE_NONE, False


def _is_p_matrix(M: np.ndarray) -> bool:
    """True when :func:`contactcp.linalg.pmatrix.p_matrix_test` proves M a P-matrix with a margin
    above ``1e-12`` (a barely-P matrix gets no convergence promise); an undecided verdict is False.
    The verdict only labels the method's convergence guarantee in its message."""
    from contactcp.linalg.pmatrix import p_matrix_test  # local: analysis sits above the solvers

    v = p_matrix_test(M)
    return v.is_p is True and v.margin is not None and v.margin > 1e-12


# ---------------------------------------------------------------------------
# linear algebra


def _factor(K: np.ndarray, cholesky: bool) -> Callable[[np.ndarray], np.ndarray] | None:
    """A solver for ``K x = b`` (K is overwritten), or None when K is singular."""
    if cholesky:
        try:
            c = sla.cho_factor(K, check_finite=False)
            return lambda b: sla.cho_solve(c, b, check_finite=False)
        except np.linalg.LinAlgError:
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sla.LinAlgWarning)
        lu, piv = sla.lu_factor(K, overwrite_a=True, check_finite=False)
    d = np.abs(np.diag(lu))
    if not np.all(np.isfinite(d)) or d.min() <= np.finfo(float).tiny * max(1.0, d.max()) * 1e10:
        return None
    return lambda b: sla.lu_solve((lu, piv), b, check_finite=False)


def _purify(problem: LCP, z: np.ndarray, w: np.ndarray, track: _Candidates, passes: int = 3) -> bool:
    """Crossover: the active-set polish of :mod:`contactcp.solvers.lcp.polish` from the iterate
    (support ``{z_i > w_i / s_i}``, least-squares correction when the block is singular, refinement,
    sign flips); every polished point is offered to ``track``; True when one is accepted."""
    for cand in polish.candidates(problem, z, None, passes):
        if track.offer(cand, problem.residual(cand), True):
            return True
    return False


# ---------------------------------------------------------------------------
# options and start


def _default_start(M: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A well-centred positive start of a size matched to the data (Mehrotra-style shifts).

    ``z = t e`` with ``t = sqrt(max|q| / mean|M_ii|)`` (at least 1);
    ``w = M z + q`` shifted to be positive; then both are shifted so that the
    products ``z_i w_i`` are comparable.
    """
    n = q.shape[0]
    qmax = float(np.abs(q).max())
    dscale = float(np.abs(np.diag(M)).mean())
    mscale = dscale if dscale > 0 else float(np.abs(M).max())
    t = max(1.0, qmax / mscale) if mscale > 0 else max(1.0, qmax)
    t = np.sqrt(t) if t > 1 else t
    z = np.full(n, t)
    w = M @ z + q
    w = w + max(0.0, -1.5 * float(w.min()))
    zw = float(z @ w)
    z = z + 0.5 * zw / max(float(w.sum()), 1e-300)
    w = w + 0.5 * zw / float(z.sum())
    floor = max(1.0, t) * 1e-2
    return np.maximum(z, floor), np.maximum(w, floor)


#: the phase-1 LP for a feasible start is tried up to this size
FEASIBLE_START_MAX_N = 2000


def _feasible_start(M: np.ndarray, q: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """A strictly feasible start (``z > 0``, ``w = M z + q > 0``) for the feasible method, or None.

    The default point ``z`` is used as is when ``M z + q > 0``; otherwise a phase-1 LP (HiGHS)
    maximises the smallest slack ``s`` in ``z >= s e``, ``M z + q >= s e`` with ``z, s`` bounded
    by a multiple of the data, so its optimum is well inside when the set has an interior.  None
    when it has none (then no feasible interior method can start: the infeasible one does)."""
    w = M @ z + q
    if np.all(w > 0):
        return z, w
    n = q.shape[0]
    if n > FEASIBLE_START_MAX_N:
        return None
    from scipy.optimize import linprog

    cap = 10.0 * float(z.max())
    # variables (z, s): maximise s; -M z + s e <= q; -z + s e <= 0
    A = np.block([[-M, np.ones((n, 1))], [-np.eye(n), np.ones((n, 1))]])
    c = np.zeros(n + 1)
    c[-1] = -1.0
    res = linprog(
        c, A_ub=A, b_ub=np.concatenate([q, np.zeros(n)]), bounds=[(0, cap)] * n + [(None, cap)], method="highs"
    )
    if res.status != 0 or not res.x[-1] > 1e-8 * max(1.0, float(np.abs(q).max())):
        return None
    zf = res.x[:n]
    wf = M @ zf + q
    if not (np.all(zf > 0) and np.all(wf > 0)):
        return None
    return zf, wf


def _start(M: np.ndarray, q: np.ndarray, z0: Any, w0: Any, start: str = "auto") -> tuple[np.ndarray, np.ndarray, str]:
    if z0 is None:
        if w0 is not None:
            raise InvalidOptionError("w0", "needs z0 as well")
        z, w = _default_start(M, q)
        if start == "auto":
            feas = _feasible_start(M, q, z)
            if feas is not None:
                return feas[0], feas[1], "feasible (default start, phase-1 LP when needed)"
            return z, w, "infeasible (no strictly feasible point found: the infeasible-start fallback)"
        return z, w, "infeasible (default start)"
    z = np.array(z0, dtype=float)
    Mzq = M @ z + q
    scale = max(1.0, float(np.max(np.abs(q) + np.abs(M) @ z)))
    if w0 is None:
        if np.all(Mzq > 0):
            return z, Mzq, "feasible (z0 given, w0 = M z0 + q > 0)"
        floor = max(1.0, float(np.abs(z).max()))
        return z, np.maximum(Mzq, floor), "infeasible (z0 given, M z0 + q not positive)"
    w = np.array(w0, dtype=float)
    if np.max(np.abs(w - Mzq)) <= 1e-10 * scale:
        return z, w, "feasible (z0, w0 given)"
    return z, w, "infeasible (z0, w0 given, w0 != M z0 + q)"


# ---------------------------------------------------------------------------
# the method


def _direction(solve, M: np.ndarray, rhs: np.ndarray, r: np.ndarray):
    """``dz`` from the reduced Newton system and ``dw = M dz - r``; (None, None) if not finite."""
    dz = solve(rhs)
    dw = M @ dz - r
    if not (np.all(np.isfinite(dz)) and np.all(np.isfinite(dw))):
        return None, None
    return dz, dw


def _max_step(v: np.ndarray, dv: np.ndarray) -> float:
    neg = dv < 0
    if not neg.any():
        return np.inf
    return float(np.min(-v[neg] / dv[neg]))


def _step_length(z, dz, w, dw, mu, rnorm, ratio_cap, n, decrease) -> float:
    """The largest step (backtracking from ``eta`` times the step to the boundary) that keeps
    the iterate in the wide neighbourhood and reduces ``mu`` to at most
    ``(1 - decrease * alpha) mu``; 0.0 when none is found."""
    amax = min(_max_step(z, dz), _max_step(w, dw))
    a = 1.0 if amax > 1.0 / _ETA else _ETA * amax
    for _ in range(60):
        if a < 1e-14:
            break
        zn = z + a * dz
        wn = w + a * dw
        prod = zn * wn
        mun = float(prod.sum()) / n
        if (
            np.isfinite(mun)
            and 0 < mun <= (1.0 - decrease * a) * mu
            and float(prod.min()) >= _GAMMA * mun
            and (1.0 - a) * rnorm <= ratio_cap * mun
            and zn.min() > 0
            and wn.min() > 0
        ):
            return a
        a *= 0.6
    return 0.0


@register(
    "interior-point",
    LCP,
    description="infeasible-start interior-point path following (Kojima–Megiddo–Noma–Yoshise) with purification",
    options={
        "max_iter": integer(1),
        "sigma": real(0.0, 1.0, lo_open=True, hi_open=True, none=True),
        "z0": vector(positive=True),
        "w0": vector(positive=True),
        "purify": boolean(),
        "start": choice("auto", "infeasible"),
    },
)
def interior_point(
    problem: LCP,
    tol: float,
    *,
    max_iter: int = 100,
    sigma: float | None = None,
    z0: Any = None,
    w0: Any = None,
    purify: bool = True,
    start: str = "auto",
) -> Raw:
    """Infeasible-start interior-point method (KMNY path following) with purification.

    Options
    -------
    max_iter : Newton iterations before giving up (default 100)
    sigma : centering parameter in (0, 1); None (default) uses Mehrotra's adaptive
        predictor–corrector choice
    z0, w0 : optional positive starting point; with ``w0 = M z0 + q`` (or ``w0``
        omitted and ``M z0 + q > 0``) the start is feasible and stays so
    purify : finish with the active-set purification (default True)
    start : ``"auto"`` (default): the feasible method from a strictly feasible point (the default
        point if feasible, else a phase-1 LP up to n = 2000), with the infeasible-start method as
        the fallback when there is none; ``"infeasible"``: always the infeasible-start method

    Stats
    -----
    mu, infeasibility : ``z . w / n`` and ``||w - M z - q||_inf`` at the last interior iterate
    purified : whether the returned point came from the purification
    guarantee : what the KMNY theory promises for this matrix class (also ends the message)
    start : which start was used (feasible or infeasible, default or given)
    """
    M, q = problem.M, problem.q
    n = q.shape[0]
    z, w, start = _start(M, q, z0, w0, start)
    guarantee, monotone = matrix_class(M)
    symmetric = bool(np.array_equal(M, M.T))
    cholesky = symmetric and monotone

    feasible_start = start.startswith("feasible")
    r = w - (M @ z + q)
    mu = float(z @ w) / n
    mu0 = mu
    rnorm = float(np.abs(r).max())
    ratio_cap = np.inf if feasible_start or rnorm == 0 else _BETA * rnorm / mu0
    size0 = max(1.0, float(z.max()), float(w.max()))

    track = _Candidates(problem, tol)
    tried: set[bytes] = set()
    prev_F: bytes | None = None
    its = 0
    slow = 0
    outcome = "limit"
    while True:
        if not (np.all(np.isfinite(z)) and np.all(np.isfinite(w)) and np.isfinite(mu)):
            outcome = "overflow"
            break
        if track.offer(z, problem.residual(z), False):
            outcome = "solved"
            break
        F = (z > w).tobytes()
        if purify and F not in tried and (F == prev_F or mu <= 1e-8 * mu0) and mu <= 1e-2 * mu0:
            tried.add(F)
            if _purify(problem, z, w, track):
                outcome = "solved"
                break
        prev_F = F
        if its >= max_iter:
            outcome = "limit"
            break
        if max(float(z.max()), float(w.max())) > _BLOWUP * size0:
            outcome = "diverged"
            break

        step = _step(M, z, w, r, mu, rnorm, ratio_cap, sigma, cholesky)
        if isinstance(step, str):
            outcome = step
            break
        its += 1
        dz, dw, alpha = step
        slow = slow + 1 if alpha < 1e-6 else 0
        z = z + alpha * dz
        w = w + alpha * dw
        r = w - (M @ z + q)
        mu = float(z @ w) / n
        rnorm = float(np.abs(r).max())
        if slow >= 5:
            outcome = "collapsed"
            break

    if outcome not in ("solved", "overflow") and purify and (z > w).tobytes() not in tried:
        if _purify(problem, z, w, track):
            outcome = "solved"

    stats = {"mu": mu, "infeasibility": rnorm, "purified": track.purified, "guarantee": guarantee, "start": start}
    return _answer(problem, tol, outcome, track, z, its, max_iter, mu, rnorm, guarantee, stats)


def _answer(
    problem: LCP,
    tol: float,
    outcome: str,
    track: _Candidates,
    z: np.ndarray,
    its: int,
    max_iter: int,
    mu: float,
    rnorm: float,
    guarantee: str,
    stats: dict,
) -> Raw:
    """The method's answer: the accepted point, a verified infeasibility proof, or the best point with
    why the iteration stopped."""
    q = problem.q
    tail = f"; {guarantee}"
    if outcome == "solved":
        how = "after purification" if track.purified else "at an interior iterate"
        return Raw(
            track.x,
            Status.SOLVED,
            its,
            f"residual {track.value:.1e} {how} after {its} interior iterations{tail}",
            stats=stats,
        )

    why = {
        "limit": f"iteration limit ({max_iter}) reached",
        "diverged": f"the iterates diverge (||(z, w)|| grew by {_BLOWUP:.0e})",
        "collapsed": "the step size collapsed",
        "singular": "the Newton matrix M + diag(w/z) is singular",
        "overflow": "the iterates left the floating-point range",
    }[outcome]
    why += f" at mu = {mu:.2e}, ||w - M z - q|| = {rnorm:.2e}"
    qscale = max(1.0, float(np.abs(q).max()))
    still_infeasible = rnorm > max(tol, 1e-8) * qscale
    if outcome != "overflow" and (outcome == "diverged" or still_infeasible):
        zn = float(z.sum())
        cert = lcp_farkas(problem, z / zn if zn > 0 else None, tol, "interior-point iterates stayed infeasible")
        if cert is not None:
            return Raw(
                None,
                Status.NO_SOLUTION,
                its,
                f"{why}; the LCP is infeasible (verified Farkas certificate){tail}",
                certificate=cert,
                stats=stats,
            )
        why += "; no Farkas certificate of infeasibility was found"
    status = {
        "limit": Status.ITERATION_LIMIT,
        "diverged": Status.ITERATION_LIMIT,
        "collapsed": Status.STATIONARY_NOT_SOLUTION,
        "singular": Status.NUMERICAL_FAILURE,
        "overflow": Status.NUMERICAL_FAILURE,
    }[outcome]
    best = "no acceptable point" if track.x is None else f"best residual {track.value:.1e}"
    return Raw(track.x, status, its, f"{why}; {best}{tail}", stats=stats)


def _step(
    M: np.ndarray,
    z: np.ndarray,
    w: np.ndarray,
    r: np.ndarray,
    mu: float,
    rnorm: float,
    ratio_cap: float,
    sigma: float | None,
    cholesky: bool,
):
    """One interior step ``(dz, dw, alpha)``, or the outcome that ends the iteration ("singular",
    "collapsed").  The Newton system is ``(M + diag(w/z)) dz = rhs``, ``dw = M dz - r``."""
    n = z.shape[0]
    K = M.copy()
    K.flat[:: n + 1] += w / z
    solve = _factor(K, cholesky)
    if solve is None:
        return "singular"
    alpha = 0.0
    if sigma is None:
        # Mehrotra: affine predictor, adaptive centering, second-order corrector
        dz = solve(r - w)
        dw = M @ dz - r
        a_aff = min(1.0, _max_step(z, dz), _max_step(w, dw))
        mu_aff = float((z + a_aff * dz) @ (w + a_aff * dw)) / n
        sig = min(1.0, max(0.0, mu_aff / mu) ** 3)
        dz, dw = _direction(solve, M, (sig * mu - dz * dw) / z - w + r, r)
        if dz is None:
            return "singular"
        alpha = _step_length(z, dz, w, dw, mu, rnorm, ratio_cap, n, _ARMIJO)
    if alpha < 0.1:
        # a long step with fixed centering (the KMNY direction): Mehrotra's corrector
        # can make mu grow (and cycle), this direction reduces mu for short enough steps
        sig = _SIGMA_LONG if sigma is None else sigma
        dz2, dw2 = _direction(solve, M, sig * mu / z - w + r, r)
        if dz2 is None:
            return "singular"
        alpha2 = _step_length(z, dz2, w, dw2, mu, rnorm, ratio_cap, n, _ARMIJO * (1 - sig))
        if alpha2 > alpha:
            dz, dw, alpha = dz2, dw2, alpha2
    if alpha < 1e-8:
        # a strongly centred step that only needs to stay in the neighbourhood
        dz, dw = _direction(solve, M, 0.5 * mu / z - w + r, r)
        if dz is None:
            return "singular"
        alpha = _step_length(z, dz, w, dw, np.inf, rnorm, ratio_cap, n, 0.0)
        if alpha == 0.0:
            return "collapsed"
    return dz, dw, alpha


class _Candidates:
    """The best point seen so far, and the acceptance test for a solution: the problem's own residual
    within ``tol`` (row-scaled, with a data-bounded scale, so a diverging iterate cannot pass)."""

    def __init__(self, problem: LCP, tol: float):
        self.tol = tol
        self.x: np.ndarray | None = None
        self.value = np.inf
        self.purified = False

    def offer(self, z: np.ndarray, res: Residual, purified: bool) -> bool:
        """Record ``z``; True when it is an accepted solution."""
        if res.value <= self.tol or res.value < self.value:
            self.x, self.value, self.purified = z.copy(), res.value, purified
        return res.value <= self.tol

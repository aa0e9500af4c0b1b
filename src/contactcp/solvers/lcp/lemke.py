"""Lemke's complementary pivoting method (Cottle–Pang–Stone 1992, Algorithm 4.4.5)."""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np

from contactcp._validate import index_mask, vector
from contactcp.errors import ContactCPError, InvalidOptionError
from contactcp.problems import LCP, BoxLCP, MixedLCP
from contactcp.problems._base import linear_residual
from contactcp.result import Residual, Result, Status
from contactcp.solvers.lcp import lemke_kernel as K
from contactcp.solvers.lcp.certificates import lcp_farkas
from contactcp.solvers.lcp.reductions import via_lcp
from contactcp.solvers.registry import Raw, boolean, certify, integer, real, register

_STATUS_TEXT = {
    K.SOLVED: "the artificial variable left the basis",
    K.ITER_LIMIT: "pivot limit reached",
    K.SINGULAR: "basis matrix became singular on refactorisation",
    K.BAD_START: "the covering vector does not cover the negative entries of q",
}


_NO_D = np.zeros(0)
_EQUILIBRATED = (
    f" on the equilibrated LCP (R M C, R q): the row or column max-norms of M spread over more than {K.SPREAD:.0f}"
)


def _default_max_iter(n: int) -> int:
    """The pivot limit ``max(1000, 50 n)`` of a run without ``max_iter`` (:data:`K.MAX_ITER_MIN`)."""
    return max(K.MAX_ITER_MIN, K.MAX_ITER_PER_ROW * n)


def _cold(problem: LCP) -> np.ndarray:
    """The compiled cold-start run with the default options (:func:`lemke`'s lean case)."""
    n = problem.q.shape[0]
    return K.lemke_cold_solve(problem.M, problem.q, _NO_D, _default_max_iter(n), K.PIV_TOL, K.LEXICO, K.CHECK_EVERY)


_SOLVED_TEXT = _STATUS_TEXT[K.SOLVED]
_COLD, _COLD_EQUILIBRATED = "cold start", "cold start" + _EQUILIBRATED
_SOLVED = Status.SOLVED


def _cold_stats(pivots: int, refactors: int, basic: np.ndarray, equilibrated: Any) -> dict[str, Any]:
    """The ``stats`` of a cold start that solved (``basic``: the boolean ``z_basic``)."""
    return {
        "pivots": pivots,
        "refactorizations": refactors,
        "z_basic": basic,
        "start": _COLD_EQUILIBRATED if equilibrated else _COLD,
    }


def _solved(out: np.ndarray, n: int) -> Raw:
    """The :class:`Raw` of a cold-start run that ended with the artificial variable out of the basis."""
    pivots = int(out[1])
    stats = _cold_stats(pivots, int(out[2]), out[4 + 2 * n : 4 + 3 * n].astype(bool), out[4 + 3 * n])
    return Raw(out[4 : 4 + n], _SOLVED, pivots, _SOLVED_TEXT, None, None, stats)


def chain_first(problem: LCP, tol: float) -> Result | None:
    """The default chain's first step, ``lemke`` without options, for :func:`contactcp.solve` on a
    plain LCP (and for ``solve(problem, "lemke")``): the same certified result as the registry's
    run, without its per-call handling (option checks, the chain's loop), and with the problem's
    own residual measured in the same compiled call as the cold start (:func:`K.lemke_first`: a
    small LCP's solve is mostly calls, their arguments and their returned arrays; at n = 10 the
    whole call is within 1.5x of Siconos' Lemke, ``benchmarks/results/lcp_small.md``).  A
    cold start that does not solve goes on as the registry's run does (restarts, Farkas proof),
    from that run.  None for another problem type and when a compiled call raises: the registry's
    run then does the step and reports the failure."""
    if type(problem) is not LCP:
        return None
    t0 = perf_counter()
    q = problem.q
    n = q.shape[0]
    m = 5 + 3 * n
    buf = np.empty(m + n)
    basic = np.empty(n, np.bool_)
    try:
        st, pivots, refactors, equilibrated, rows, parts = K.lemke_first(problem.M, q, problem._free, buf, basic)
    except (ArithmeticError, ValueError, RuntimeError):
        return None
    if st != K.SOLVED:
        return _after_cold(problem, tol, buf[:m], _default_max_iter(n), t0)
    x = buf[4 : 4 + n]
    if rows == 0:  # every row decided in floating point: the measure is complete
        residual, w = tuple.__new__(Residual, parts), buf[m:]
    else:  # rows to evaluate exactly: the problem's own measure in full
        residual, w = linear_residual(problem.M, q, x, problem._free)
    stats = _cold_stats(pivots, refactors, basic, equilibrated)
    if residual.value <= tol:  # what certify() makes of it, without the Raw in between (as NSGS's)
        return Result(x, _SOLVED, residual, "lemke", tol, pivots, perf_counter() - t0, _SOLVED_TEXT, w, None, stats)
    raw = Raw(x, _SOLVED, pivots, _SOLVED_TEXT, None, None, stats)
    raw.measured = residual, w
    return certify(problem, raw, tol, "lemke", perf_counter() - t0)


def _after_cold(problem: LCP, tol: float, out: np.ndarray, max_iter: int, t0: float) -> Result | None:
    """:func:`chain_first` after a cold start that did not solve: what the registry's run of ``lemke``
    does with it (:func:`lemke_lcp`'s restarts from its outcome, the Farkas proof of a ray), with the
    registry's floating-point handling; None when that raises (the registry's run then reports it)."""
    try:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            raw = lemke_lcp(problem, tol, first=_interpret(problem, tol, out, False, max_iter, "cold start"))
    except ContactCPError:
        raise
    except (ArithmeticError, np.linalg.LinAlgError, ValueError, RuntimeError):
        return None
    return certify(problem, raw, tol, "lemke", perf_counter() - t0)


def lemke_lcp(
    problem: LCP, tol: float, *, restarts: int = 3, seed: int = 0, first: Raw | None = None, **run: Any
) -> Raw:
    """Lemke's method on a standard LCP; see :func:`lemke` for the options.

    A ray termination without an infeasibility proof (possible when M is not
    copositive-plus, e.g. on degenerate contact LCPs) and a pivot limit are
    retried up to ``restarts`` times with seeded random covering vectors in
    ``[0.5, 2]^n``: another covering vector is another path, which may end in a
    solution or in a ray that proves infeasibility.  ``first`` is the outcome of
    the first run when the caller already has it.
    """
    raw = first if first is not None else _lemke_once(problem, tol, **run)
    rng = None
    tried = 0
    total = raw.iterations
    why = []
    while raw.status in _RETRY and tried < restarts:
        why.append("pivot limit" if raw.status is Status.ITERATION_LIMIT else "ray without proof")
        rng = rng or np.random.default_rng(seed)
        tried += 1
        raw = _lemke_once(problem, tol, **{**run, "d": rng.uniform(0.5, 2.0, problem.n), "basis": None})
        total += raw.iterations
    if tried:
        raw.iterations = total
        raw.stats["restarts"] = tried
        raw.message += f" (after {tried} restart(s) with random covering vectors, following: {', '.join(why)})"
    return raw


_RETRY = (Status.RAY_TERMINATION, Status.ITERATION_LIMIT)


def _lemke_once(
    problem: LCP,
    tol: float,
    d: Any = None,
    basis: Any = None,
    max_iter: int | None = None,
    piv_tol: float = K.PIV_TOL,
    lexicographic: bool = K.LEXICO,
    check_every: int = K.CHECK_EVERY,
) -> Raw:
    """One run of the kernel (options checked by the registry), cold or warm-started."""
    M, q = problem.M, problem.q
    n = q.shape[0]
    max_iter = _default_max_iter(n) if max_iter is None else max_iter
    if basis is None:
        note = "cold start"
        out = K.lemke_cold_solve(
            M, q, _NO_D if d is None else _covering(d, n), max_iter, float(piv_tol), bool(lexicographic), check_every
        )
    else:
        if d is not None:
            raise InvalidOptionError("d", "a warm start chooses its own covering vector; give d or basis, not both")
        AT, b, start, note = _warm_start(M, q, basis)
        out = K.lemke_solve(AT, b, start, max_iter, float(piv_tol), bool(lexicographic), check_every)
    return _interpret(problem, tol, out, basis is not None, max_iter, note)


def _interpret(problem: LCP, tol: float, out: np.ndarray, warm: bool, max_iter: int, note: str) -> Raw:
    """The :class:`Raw` answer of one kernel run (``out`` from :func:`K.lemke_solve`)."""
    status, z, zh, z0, pivots, refactors, z_basic, equilibrated = K.unpack(out, problem.q.shape[0])
    if equilibrated:
        note += _EQUILIBRATED
    stats = {"pivots": pivots, "refactorizations": refactors, "z_basic": z_basic, "start": note}
    if status == K.SOLVED:
        return Raw(z, Status.SOLVED, pivots, _STATUS_TEXT[status], stats=stats)
    if status == K.RAY:
        if warm:
            zh = None  # the ray of a transformed system is not a Farkas vector of the original
        cert = lcp_farkas(problem, zh, tol, "from Lemke's secondary ray" if zh is not None else "")
        stats["z0"] = float(z0)
        if zh is not None:
            stats["ray"] = zh
        if cert is not None:
            return Raw(
                None,
                Status.NO_SOLUTION,
                pivots,
                "ray termination; the LCP is infeasible (verified Farkas certificate)",
                certificate=cert,
                stats=stats,
            )
        return Raw(
            None,
            Status.RAY_TERMINATION,
            pivots,
            "ray termination, no conclusion: the feasible set is nonempty, so M is not "
            "copositive-plus here and Lemke's ray proves nothing",
            stats=stats,
        )
    if status == K.ITER_LIMIT:
        return Raw(z, Status.ITERATION_LIMIT, pivots, f"{_STATUS_TEXT[status]} ({max_iter})", stats=stats)
    return Raw(None, Status.NUMERICAL_FAILURE, pivots, _STATUS_TEXT[status], stats=stats)


def _covering(d: Any, n: int) -> np.ndarray:
    try:
        dv = vector(d, "d", n)
    except ValueError as exc:
        raise InvalidOptionError("d", str(exc)) from None
    if np.any(dv <= 0):
        raise InvalidOptionError("d", "the covering vector must be positive")
    return np.array(dv)


def _warm_start(M: np.ndarray, q: np.ndarray, basis: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Pre-multiply ``[I, -M, -d]`` by the inverse of the complementary basis ``B``.

    ``basis`` marks which ``z_i`` are basic (boolean mask or indices); the
    covering vector is ``d = B 1`` so that the artificial column of the
    transformed system is ``-1`` (the usual warm start of Lemke's method).
    """
    n = q.shape[0]
    try:
        zb = np.asarray(index_mask(basis, "basis", n))
    except ValueError as exc:
        raise InvalidOptionError("basis", str(exc)) from None
    AT = K.cold_start_columns(M, q, np.zeros(n))
    start = np.where(zb, n + np.arange(n), np.arange(n))
    B = AT[start].T
    try:
        lu = np.linalg.inv(B)
    except np.linalg.LinAlgError:
        raise InvalidOptionError("basis", "the complementary basis matrix is singular") from None
    AT = AT @ lu.T
    AT[2 * n] = -1.0
    # columns of the starting basis are exactly the identity after the transform
    AT[start] = np.eye(n)
    return np.ascontiguousarray(AT), lu @ q, start, f"warm start from a basis with {int(zb.sum())} z basic"


@register(
    "lemke",
    LCP,
    MixedLCP,
    BoxLCP,
    default=True,
    description="Lemke's complementary pivoting, lexicographic (CPS Algorithm 4.4.5)",
    options={
        "max_iter": integer(1, none=True),
        "piv_tol": real(0.0, 1.0, lo_open=True, hi_open=True),
        "lexicographic": boolean(),
        "check_every": integer(0),
        "restarts": integer(0),
        "seed": integer(0),
    },
)
def lemke(
    problem,
    tol: float,
    *,
    d: Any = None,
    basis: Any = None,
    max_iter: int | None = None,
    piv_tol: float = K.PIV_TOL,
    lexicographic: bool = K.LEXICO,
    check_every: int = K.CHECK_EVERY,
    restarts: int = 3,
    seed: int = 0,
) -> Raw:
    """Lemke's method.

    Options
    -------
    d : covering vector (positive; default all ones)
    basis : warm start: which ``z_i`` are basic (mask or indices), e.g.
        ``result.stats["z_basic"]`` of a previous solve
    max_iter : pivot limit (default ``max(1000, 50 n)``)
    piv_tol : a pivot must exceed ``piv_tol * ||row of B^-1||_1 * ||entering column||_inf``
    lexicographic : lexicographic ratio test (default True; False uses the
        first row among ties and may cycle on degenerate problems)
    check_every : check ``B x = b`` every this many pivots and refactorise on failure
    restarts : retries with random covering vectors after a ray termination that
        proves nothing or a pivot limit (default 3; 0 disables)
    seed : seed of those covering vectors

    Mixed and box LCPs are first reduced to a standard LCP
    (:mod:`contactcp.solvers.lcp.reductions`); the answer is certified against the
    original problem.
    """
    first = None
    if (
        type(problem) is LCP
        and d is None
        and basis is None
        and max_iter is None
        and piv_tol == K.PIV_TOL
        and lexicographic is K.LEXICO
        and check_every == K.CHECK_EVERY
    ):
        # the common case, kept lean: many small LCPs are solved one call at a time
        n = problem.q.shape[0]
        out = _cold(problem)
        if out[0] == K.SOLVED:
            return _solved(out, n)
        first = _interpret(problem, tol, out, False, _default_max_iter(n), "cold start")
    run = dict(
        d=d, basis=basis, max_iter=max_iter, piv_tol=piv_tol, lexicographic=lexicographic, check_every=check_every
    )
    if isinstance(problem, LCP):
        return lemke_lcp(problem, tol, restarts=restarts, seed=seed, first=first, **run)
    opts = dict(restarts=restarts, seed=seed, **run)
    return via_lcp(problem, tol, lemke_lcp, opts)

"""Box-constrained minimisation of the Buffo–Maciel merit function.

Buffo & Maciel (2006), section 3, solve the mixed nonlinear complementarity
problem ``u >= 0, F(u, v) >= 0, u . F(u, v) = 0, G(u, v) = 0`` (their eq. (2),
:class:`~contactcp.problems.MixedNCP`) by introducing the slacks ``z`` and
minimising, over the box ``u >= 0, z >= 0`` (eq. (3)),

    ``f(u, v, z) = ||F(u, v) - z||^2 + ||G(u, v)||^2 + (u . z)^2``      (eq. (4)).

``f`` is zero exactly at the solutions (with ``z = F``).  A box-constrained
minimiser only finds stationary points, and Andreani, Friedlander, Mello &
Santos (the paper's reference [1]) give conditions under which the stationary
points of (3)-(4) are global minimisers, i.e. solutions.  Without those
conditions a run can end at a stationary point with ``f > 0``: this module then
reports ``STATIONARY_NOT_SOLUTION`` (never ``SOLVED``), and ``multistart`` can
try again from random points.

The merit function is the sum of squares of ``R(u, v, z) = (F - z, G, u . z)``,
whose Jacobian is built from the problem's ``jac_F`` / ``jac_G``:

    ``[[J_F, -I], [J_G, 0], [(z, 0), u]]``  (columns ``(u, v)`` then ``z``).

Backends (option ``backend``):

* ``"trf"`` (default): :func:`scipy.optimize.least_squares` with the trust-region
  reflective method on ``R`` (Gauss–Newton model, dense SVD of the Jacobian);
* ``"lbfgsb"``: :func:`scipy.optimize.minimize` with L-BFGS-B on ``f`` and its
  gradient ``2 J^T R``.

Both stop as soon as the point passes the problem's own residual test (the one
:func:`contactcp.solve` certifies with), at a stationary point / small step, or
at ``max_iter`` iterations.  (``trust-constr`` is not offered: its bounds are
handled by an interior barrier too, and on small P-matrix LCPs it stopped after
about 85 iterations at residuals of 1e-6 to 1e-8, adding nothing to trf.)

Two additions to the paper's method, both on by default and both reported in
``stats``: an active-set Newton "polish" (every solution of the problem is a
degenerate minimiser of ``f``, so the minimisers approach the solutions on the
bounds slowly, trf's interior steps especially; once the guess
``{i : u_i > z_i}`` settles, solving ``F_A = 0, G = 0`` with ``u_i = 0`` off ``A``
finishes the job), and random restarts (``multistart``) when the paper's start
``x0 = 0`` leads to a stationary point that is not a solution.
``polish=False, multistart=0`` is the plain method.

A standard ``LCP(M, q)`` is the case ``F(u) = M u + q`` with no ``v``; a
``MixedLCP`` is split into ``u = x[~free]``, ``v = x[free]`` (no reduction to a
standard LCP is needed).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from contactcp._validate import vector
from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.linalg.blas_threads import one_blas_thread
from contactcp.problems import LCP, MixedLCP, MixedNCP
from contactcp.result import Status
from contactcp.solvers.ncp.merit_backends import _BACKEND_RUN, _Monitor, _Run  # noqa: F401
from contactcp.solvers.ncp.merit_model import _Merit, _Model, _polish, merit_value  # noqa: F401
from contactcp.solvers.registry import Raw, boolean, integer, real, register
from contactcp.solvers.registry import vector as vector_option

__all__ = ["merit", "merit_value", "BACKENDS"]

BACKENDS = ("trf", "lbfgsb")
_ALIASES = {"trf": "trf", "lbfgsb": "lbfgsb", "l-bfgs-b": "lbfgsb"}
_DEFAULT_MAX_ITER = {"trf": 500, "lbfgsb": 5000}
# a converged run ends at a stationary point when its projected gradient is below
# this fraction of its bound 2 ||J||_1 ||R||_inf
_KAPPA_STATIONARY = 1e-6


# ---------------------------------------------------------------------------
# options


def _vector_option(name: str, value: Any, size: int) -> np.ndarray:
    try:
        return np.array(vector(value, name, size), dtype=float)
    except (InvalidProblemError, ValueError, TypeError) as exc:
        raise InvalidOptionError(name, str(exc)) from None


def _start(model: _Model, x0: np.ndarray, z0: np.ndarray | None) -> np.ndarray:
    """``y0 = (u0, v0, z0)`` inside the box; ``z0 = max(F(x0), 0)`` unless given."""
    x = x0.copy()
    x[: model.p] = np.maximum(x[: model.p], 0.0)
    if z0 is None:
        F, _ = model.FG(x)
        z = np.maximum(F, 0.0)
        if not np.all(np.isfinite(z)):
            z = np.zeros(model.p)
    else:
        z = np.maximum(z0, 0.0)
    return np.concatenate([x, z])


def _finish(model: _Model, merit: _Merit, run: _Run) -> None:
    """Project the point onto the box and compute its merit value, residual and stationarity."""
    y = np.clip(run.y, merit.lb, merit.ub)
    run.y = y
    x, _, _ = merit.split(y)
    with model.uncounted():
        F, G = model.FG(x)
        R = merit.R(y)
        run.f = float(R @ R)
        run.residual, run.scale = model.residual(x, F, G)
        run.pg, run.kappa = merit.stationarity(y)


def _classify(run: _Run, ftol: float | None, tol: float) -> Status:
    if run.residual <= tol:
        return Status.SOLVED
    if run.ending == "overflow":
        return Status.NUMERICAL_FAILURE
    zero = run.f <= _threshold(run, ftol, tol)
    stationary = run.kappa <= _KAPPA_STATIONARY
    if run.ending == "limit":
        # stopped by the cap, possibly already at a stationary point with f > 0
        return Status.STATIONARY_NOT_SOLUTION if stationary and not zero else Status.ITERATION_LIMIT
    if zero:
        return Status.SOLVED  # a zero of f; the registry certifies it with the residual
    if run.ending == "converged" and stationary:
        return Status.STATIONARY_NOT_SOLUTION
    return Status.INACCURATE


def _threshold(run: _Run, ftol: float | None, tol: float) -> float:
    return (tol * run.scale) ** 2 if ftol is None else ftol


# ---------------------------------------------------------------------------
# the method


@register(
    "merit",
    LCP,
    MixedLCP,
    MixedNCP,
    description="Buffo–Maciel merit function (eq. (4)) minimised over the box (eq. (3)) "
    "by scipy's trf least squares or L-BFGS-B",
    options={
        "max_iter": integer(1, none=True),
        "ftol": real(0.0, none=True),
        "multistart": integer(0),
        "polish": boolean(),
        "x0": vector_option(),
    },
)
def merit(
    problem: Any,
    tol: float,
    *,
    backend: str = "trf",
    x0: Any = None,
    z0: Any = None,
    max_iter: int | None = None,
    ftol: float | None = None,
    multistart: int = 5,
    seed: Any = 0,
    polish: bool = True,
) -> Raw:
    """Minimise ``||F - z||^2 + ||G||^2 + (u . z)^2`` over ``u >= 0, z >= 0`` (Buffo–Maciel).

    The rows of ``F`` and ``G`` are scaled by powers of two when the sizes of their Jacobian's rows
    at the start spread over more than 2^8 (badly scaled rows would leave the sum of squares to the
    largest ones); the problem is the same and its residual is measured on the unscaled rows.

    Options
    -------
    backend : ``"trf"`` (default; ``scipy.optimize.least_squares(method="trf")`` on
        the residual vector ``(F - z, G, u . z)`` with its analytic Jacobian) or ``"lbfgsb"``
        (``scipy.optimize.minimize(method="L-BFGS-B")`` on ``f`` with gradient
        ``2 J^T R``).  A ``MixedNCP`` without ``jac_F``/``jac_G`` gets forward
        finite differences of ``F`` and ``G`` (the message says so).
    x0 : start for ``x = (u, v)`` in the problem's order (default zeros, the paper's
        ``x0 = 0``); ``u`` is projected onto ``u >= 0``
    z0 : start for the slacks (default ``max(F(x0), 0)``); projected onto ``z >= 0``
    max_iter : iterations per start (default 500 for trf, 5000 for lbfgsb)
    ftol : merit value at or below which an end point counts as a zero of ``f`` (a
        solution, which the registry then certifies with the problem's residual:
        ``SOLVED`` or ``INACCURATE``) rather than a stationary point that is not a
        solution.  Default ``(tol * scale)^2`` with ``scale`` the problem's residual
        scale at the end point, i.e. every entry of ``F - z``, ``G`` and ``u . z`` is
        within ``tol * scale``.  Runs do not stop on ``ftol``: they stop as soon as
        the problem's own residual is within ``tol`` (a small ``f`` does not imply
        that: at a degenerate pair ``u_i = z_i = t`` the merit is ``t^4``, the
        residual ``t``).
    multistart : number of extra starts, drawn at random, tried (until one succeeds)
        only when the first run ends at a stationary point that is not a solution, or was
        not run because the merit function overflows at ``x0`` (NUMERICAL_FAILURE)
        (default 5; 0 gives the single start of the paper).  Start ``k`` draws
        ``u ~ U(0, s 2^k)``, ``v ~ U(-s 2^k, s 2^k)`` with
        ``s = max(1, ||x0||_inf, ||x_end||_inf)`` (``s = 1`` after an overflowing ``x0``; a
        widening search) and ``z = max(F, 0)``.
    seed : seed of those random starts (default 0: results are reproducible)
    polish : active-set Newton step (default True): once the guess
        ``A = {i : u_i > z_i}`` repeats at two consecutive iterates, and at the end
        of a run, solve ``F_A = 0, G = 0`` with ``u_i = 0`` off ``A`` (exact for linear
        problems, up to 8 Newton steps otherwise; indices with the wrong sign change
        sides, up to 3 times) and stop if the result passes the residual test.  For
        nonlinear problems a guess is tried again once ``f`` has fallen 100-fold.
        The minimisers converge slowly to solutions on the bounds (every solution is
        a degenerate minimiser of ``f``: zero gradient, so the bounds carry zero
        multipliers, and trf's interior steps creep); ``polish=False`` gives the
        plain method of the paper.

    Status
    ------
    ``SOLVED`` when the problem's residual is within ``tol`` or ``f <= ftol`` (the
    registry certifies it); ``STATIONARY_NOT_SOLUTION`` when the backend converged
    (first-order optimality or no progress) or reached ``max_iter`` at a point with
    ``f > ftol`` whose projected gradient is at most ``1e-6`` of its bound
    ``2 ||J||_1 ||R||_inf``; ``ITERATION_LIMIT`` at ``max_iter`` elsewhere;
    ``INACCURATE`` when the backend stopped elsewhere (typically creeping towards a
    degenerate solution: ``f`` tiny, its gradient not relatively small).

    Stats (the quantities of Buffo–Maciel's Tables 1 and 3)
    -----
    outer_iterations : the backend's iterations ("BoxIt"), summed over the starts
    function_evaluations : evaluations of ``(F, G)`` ("FunEval"), finite-difference
        ones excluded (see ``fd_function_evaluations``), polish ones included
    inner_iterations : None: trf solves its trust-region subproblems with a dense
        SVD of the Jacobian and L-BFGS-B has no inner solver, so
        nothing corresponds to the paper's QUACAN iterations ("QuacanIt")
    jacobian_evaluations : evaluations of the Jacobian of ``(F, G)``
    matvecs : products with ``M`` or ``M^T`` for linear problems ("Matxvec"); None
        for a MixedNCP, whose ``F`` need not be a product
    final_f : merit value of the returned point ("f")
    projected_gradient, stationarity : ``||y - P(y - grad f)||_inf`` at the returned
        point, and the same divided by its bound ``2 ||J||_1 ||R||_inf`` (in [0, 1])
    backend, starts, start_f (the final ``f`` of every start), polish_attempts,
    polished (whether the returned point came from the polish), jacobian
    ("analytic" or "finite differences"), z (the slacks of the returned point),
    rows_equilibrated (whether the rows were scaled)
    """
    name = _ALIASES.get(backend.lower()) if isinstance(backend, str) else None
    if name is None:
        raise InvalidOptionError("backend", f"must be one of {', '.join(repr(b) for b in BACKENDS)}, got {backend!r}")
    max_iter = _DEFAULT_MAX_ITER[name] if max_iter is None else max_iter
    try:
        rng = np.random.default_rng(seed)
    except (TypeError, ValueError) as exc:
        raise InvalidOptionError("seed", f"not a valid seed ({exc})") from None

    model = _Model(problem)
    merit_ = _Merit(model)
    n, p = model.n, model.p
    x_start = np.zeros(n) if x0 is None else model.from_problem(x0)
    z_start = None if z0 is None else _vector_option("z0", z0, p)
    with model.uncounted(), np.errstate(all="ignore"):
        scaled = model.equilibrate(np.maximum(x_start, np.r_[np.zeros(p), np.full(n - p, -np.inf)]))
    if scaled and z_start is not None:
        z_start = z_start * model.dF

    run_backend = _BACKEND_RUN[name]
    attempts = 0

    def one_run(y0: np.ndarray) -> _Run:
        nonlocal attempts
        run = _Run(y0, "start", 0, "the start passes the residual test")
        _finish(model, merit_, run)
        if not math.isfinite(run.f):
            # a start so far out that f overflows: the backends' steps are meaningless there
            # (31 s of CPU for six starts of n = 7 at 1e99, in the fuzz), so it is not run
            run.ending, run.note = "overflow", "the merit function overflows at this start; not run"
            return run
        if run.residual > tol:
            mon = _Monitor(merit_, tol, max_iter, bool(polish))
            # small dense products: a multithreaded BLAS only adds synchronisation (on a busy 2-core
            # machine L-BFGS-B ran 20x slower with two OpenBLAS threads than with one)
            with one_blas_thread():
                run = run_backend(merit_, y0, mon)
            _finish(model, merit_, run)
            # by the residual, not the backend's ending: a run the monitor stopped as solved can end
            # a hair outside tol once the point is clipped to the box
            if polish and run.residual > tol and mon.try_polish(run.y, final=True):
                run.y, run.polished = mon.y, True
                run.note += "; then the active-set polish"
                _finish(model, merit_, run)
            attempts += mon.attempts
        return run

    runs = [one_run(_start(model, x_start, z_start))]
    # the random starts' width: the sizes of the given start and of the first run's end, when the
    # merit function is finite there (a start where it overflows says nothing of the answer's size)
    sizes = [x_start, runs[0].y[:n]] if math.isfinite(runs[0].f) else []
    spread = max([1.0] + [float(np.max(np.abs(v), initial=0.0)) for v in sizes])
    retry = _classify(runs[0], ftol, tol) in (Status.STATIONARY_NOT_SOLUTION, Status.NUMERICAL_FAILURE)
    for k in range(multistart if retry else 0):
        if _classify(runs[-1], ftol, tol) is Status.SOLVED:
            break
        width = spread * 2.0**k
        xk = np.concatenate([rng.uniform(0.0, width, p), rng.uniform(-width, width, n - p)])
        runs.append(one_run(_start(model, xk, None)))

    return _answer(problem, model, merit_, runs, name, max_iter, ftol, tol, attempts)


_ORDER = {
    Status.SOLVED: 0,
    Status.INACCURATE: 1,
    Status.ITERATION_LIMIT: 2,
    Status.STATIONARY_NOT_SOLUTION: 3,
    Status.NUMERICAL_FAILURE: 4,
}


def _message(best: _Run, status: Status, runs: list, model: _Model, max_iter: int, thr: float, tol: float) -> str:
    text = {
        Status.SOLVED: (
            "solution" + (" (active-set polish)" if best.polished else "")
            if best.residual <= tol
            else f"merit f = {best.f:.3e} <= ftol = {thr:.3e}"
        ),
        Status.STATIONARY_NOT_SOLUTION: (
            f"stationary point that is not a solution: f = {best.f:.3e} > "
            f"ftol = {thr:.3e}, relative projected gradient {best.kappa:.1e}"
        ),
        Status.ITERATION_LIMIT: f"no solution within max_iter = {max_iter} iterations (f = {best.f:.3e})",
        Status.NUMERICAL_FAILURE: "no start where the merit function is finite",
        Status.INACCURATE: (
            f"the backend stopped at f = {best.f:.3e} > ftol = {thr:.3e} short of a "
            f"stationary point (relative projected gradient {best.kappa:.1e})"
        ),
    }[status]
    msg = f"{text}; {best.note}"
    if len(runs) > 1:
        msg += f"; {len(runs)} starts"
    if not model.analytic:
        msg += "; Jacobian of (F, G) by forward finite differences (the problem has no jac_F/jac_G)"
    return msg


def _answer(
    problem: Any,
    model: _Model,
    merit_: _Merit,
    runs: list,
    name: str,
    max_iter: int,
    ftol: float | None,
    tol: float,
    attempts: int,
) -> Raw:
    """The best run, as the method's answer with the statistics of Buffo–Maciel's tables."""
    n = model.n
    best = min(runs, key=lambda r: (r.residual > tol, _ORDER[_classify(r, ftol, tol)], r.f))
    status = _classify(best, ftol, tol)
    x, _, z = merit_.split(best.y)
    x_out = model.to_problem(x)
    with model.uncounted():
        F, _ = model.unscaled(*model.FG(x))
    z = z / model.dF if model.scaled else z
    total_it = sum(r.nit for r in runs)
    msg = _message(best, status, runs, model, max_iter, _threshold(best, ftol, tol), tol)
    slack = np.zeros(n)
    slack[model.comp_index] = z
    stats = {
        "outer_iterations": total_it,
        "function_evaluations": model.nF,
        "fd_function_evaluations": model.nFD,
        "inner_iterations": None,
        "jacobian_evaluations": model.nJ,
        "matvecs": model.matvecs if model.linear else None,
        "final_f": best.f,
        "projected_gradient": best.pg,
        "stationarity": best.kappa,
        "backend": name,
        "starts": len(runs),
        "start_f": [r.f for r in runs],
        "polish_attempts": attempts,
        "polished": best.polished,
        "jacobian": "analytic" if model.analytic else "finite differences",
        "z": slack,
        "rows_equilibrated": model.scaled,
    }
    w = problem.M @ x_out + problem.q if model.linear else F
    return Raw(x_out, status, iterations=total_it, message=msg, w=w, stats=stats)

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

import contextlib
import math
import warnings
from typing import Any

import numpy as np
from scipy.optimize import least_squares, minimize
from threadpoolctl import ThreadpoolController

from contactcp.solvers.registry import Raw, boolean, integer, real, register
from contactcp.solvers.registry import vector as vector_option
from contactcp._validate import vector
from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.problems import LCP, MixedLCP, MixedNCP
from contactcp.problems._base import complementarity_residual, linear_residual
from contactcp.result import Status
from contactcp.linalg.dense import solve_or_lstsq

__all__ = ["merit", "merit_value", "BACKENDS"]

BACKENDS = ("trf", "lbfgsb")
_ALIASES = {"trf": "trf", "lbfgsb": "lbfgsb", "l-bfgs-b": "lbfgsb"}
_DEFAULT_MAX_ITER = {"trf": 500, "lbfgsb": 5000}
_POLISH_NEWTON = 8
_POLISH_PASSES = 3
_POLISH_RETRY = 1e-2
# a converged run ends at a stationary point when its projected gradient is below
# this fraction of its bound 2 ||J||_1 ||R||_inf
_KAPPA_STATIONARY = 1e-6

# backend tolerances: tight, so that a run stops at a solution through the residual
# test, and otherwise only when the backend can make no further progress
_LSQ_TOL = 1e-15
_LBFGSB_GTOL = 1e-14
_LBFGSB_MAXCOR = 20
_FD_STEP = math.sqrt(np.finfo(float).eps)


# ---------------------------------------------------------------------------
# the problem seen as u >= 0, F(u, v) >= 0, u.F = 0, G(u, v) = 0


class _Model:
    """``F``, ``G``, their Jacobians and the registry's residual in the internal order ``x = (u, v)``.

    Counts function and Jacobian evaluations and caches the last point (the
    backends' callbacks and Jacobian calls usually ask for the point just evaluated).
    """

    def __init__(self, problem: Any):
        self.problem = problem
        self.nF = 0          # evaluations of (F, G) asked for by the method
        self.nJ = 0          # evaluations of the Jacobians
        self.nFD = 0         # extra (F, G) evaluations spent on finite differences
        self.matvecs = 0     # products with M or M^T (linear problems only)
        self._key: bytes | None = None
        self._FG: tuple[np.ndarray, np.ndarray] | None = None
        if isinstance(problem, MixedNCP):
            self.linear = False
            self.p, self.m = problem.p, problem.m
            self.perm = None
            self.analytic = problem.has_jacobians
        else:
            self.linear = True
            free = np.asarray(problem._free, dtype=bool)
            self.p = int((~free).sum())
            self.m = int(free.sum())
            perm = np.r_[np.flatnonzero(~free), np.flatnonzero(free)]
            self.perm = None if np.array_equal(perm, np.arange(perm.size)) else perm
            Mp = problem.M if self.perm is None else problem.M[np.ix_(perm, perm)]
            qp = problem.q if self.perm is None else problem.q[perm]
            self.A, self.a = Mp[: self.p], qp[: self.p]
            self.C, self.c = Mp[self.p:], qp[self.p:]
            self.analytic = True
        self.n = self.p + self.m
        self.comp_index = np.arange(self.p) if self.perm is None else self.perm[: self.p]

    @contextlib.contextmanager
    def uncounted(self):
        """Evaluations made for diagnostics, not by the method, are left out of the counts."""
        saved = (self.nF, self.nJ, self.nFD, self.matvecs)
        try:
            yield
        finally:
            self.nF, self.nJ, self.nFD, self.matvecs = saved

    # -- ordering ------------------------------------------------------------

    def to_problem(self, x: np.ndarray) -> np.ndarray:
        if self.perm is None:
            return np.array(x, dtype=float)
        out = np.empty_like(x)
        out[self.perm] = x
        return out

    def from_problem(self, x: np.ndarray) -> np.ndarray:
        return np.array(x if self.perm is None else x[self.perm], dtype=float)

    # -- evaluations ---------------------------------------------------------

    def _raw_FG(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.linear:
            self.matvecs += 1
            return self.A @ x + self.a, self.C @ x + self.c
        xp = x  # MixedNCP is already in the order (u, v)
        return self.problem.eval_F(xp), self.problem.eval_G(xp)

    def FG(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = x.tobytes()
        if key != self._key:
            self._FG = self._raw_FG(x)
            self._key = key
            self.nF += 1
        return self._FG  # type: ignore[return-value]

    def jac(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.nJ += 1
        if self.linear:
            return self.A, self.C
        if self.analytic:
            return self.problem.eval_jac_F(x), self.problem.eval_jac_G(x)
        # forward differences of F and G together (the problem gives no Jacobians)
        F0, G0 = self.FG(x)
        JF = np.empty((self.p, self.n))
        JG = np.empty((self.m, self.n))
        for j in range(self.n):
            h = _FD_STEP * max(1.0, abs(x[j]))
            xj = x.copy()
            xj[j] += h                  # forward: stays in the box u >= 0
            h = xj[j] - x[j]
            Fj, Gj = self._raw_FG(xj)
            self.nFD += 1
            JF[:, j] = (Fj - F0) / h
            JG[:, j] = (Gj - G0) / h
        return JF, JG

    # -- the registry's residual ---------------------------------------------

    def residual(self, x: np.ndarray, F: np.ndarray, G: np.ndarray) -> tuple[float, float]:
        """``(value, scale)`` of the problem's own residual at ``x`` (F, G given at x)."""
        if self.linear:
            xp = np.ascontiguousarray(self.to_problem(x), dtype=np.float64)
            r = linear_residual(self.problem.M, self.problem.q, xp, self.problem._free)[0]
        else:
            if not (np.all(np.isfinite(F)) and np.all(np.isfinite(G))):
                return math.inf, max(1.0, self.problem.scale)
            eq = float(np.max(np.abs(G))) if G.size else 0.0
            r = complementarity_residual(x[: self.p], F, eq, max(1.0, self.problem.scale))
        return float(r.value), float(r.scale)


class _Merit:
    """``R(y) = (F - z, G, u . z)`` for ``y = (u, v, z)`` and its Jacobian."""

    def __init__(self, model: _Model):
        self.model = model
        p, n = model.p, model.n
        self.size = n + p
        self.lb = np.concatenate([np.zeros(p), np.full(model.m, -np.inf), np.zeros(p)])
        self.ub = np.full(self.size, np.inf)

    def split(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p, n = self.model.p, self.model.n
        return y[:n], y[:p], y[n:]

    def R(self, y: np.ndarray) -> np.ndarray:
        x, u, z = self.split(y)
        F, G = self.model.FG(x)
        return np.concatenate([F - z, G, [float(u @ z)]])

    def J(self, y: np.ndarray) -> np.ndarray:
        x, u, z = self.split(y)
        p, m, n = self.model.p, self.model.m, self.model.n
        JF, JG = self.model.jac(x)
        J = np.zeros((p + m + 1, n + p))
        J[:p, :n] = JF
        J[:p, n:] = -np.eye(p)
        J[p:p + m, :n] = JG
        J[p + m, :p] = z
        J[p + m, n:] = u
        return J

    def f_and_grad(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        R = self.R(y)
        J = self.J(y)
        if self.model.linear:
            self.model.matvecs += 1     # J^T R costs a product with M^T
        return float(R @ R), 2.0 * (J.T @ R)

    def stationarity(self, y: np.ndarray) -> tuple[float, float]:
        """``||y - P(y - grad f)||_inf`` (zero exactly at the stationary points of (3)) and that
        divided by its bound ``2 ||J||_1 ||R||_inf`` (a number in [0, 1])."""
        with np.errstate(all="ignore"):
            R = self.R(y)
            J = self.J(y)
            g = 2.0 * (J.T @ R)
            pg = float(np.max(np.abs(y - np.clip(y - g, self.lb, self.ub)), initial=0.0))
            bound = 2.0 * float(np.max(np.abs(J).sum(axis=0), initial=0.0)) * float(np.max(np.abs(R), initial=0.0))
        if not math.isfinite(pg):
            return math.inf, math.inf
        return pg, (pg / bound if bound > 0 else 0.0)


def merit_value(problem: Any, x: Any, z: Any = None) -> float:
    """The merit function (4) at ``x = (u, v)`` (problem order) and slacks ``z``
    (default ``max(F, 0)``, the best slack for the first term)."""
    model = _Model(problem)
    xi = model.from_problem(np.asarray(x, dtype=float).reshape(-1))
    F, G = model.FG(xi)
    zz = np.maximum(F, 0.0) if z is None else np.asarray(z, dtype=float).reshape(-1)
    u = xi[: model.p]
    return float((F - zz) @ (F - zz) + G @ G + (u @ zz) ** 2)


# ---------------------------------------------------------------------------
# the active-set polish


def _polish(model: _Model, x: np.ndarray, z: np.ndarray, tol: float) -> tuple[np.ndarray, float] | None:
    """Newton on the active set guessed from the iterate, with sign flips.

    With ``A = {i : u_i > z_i}`` (the pairs where ``u`` rather than ``F`` is
    positive), solve ``F_A(u, v) = 0, G(u, v) = 0`` for ``(u_A, v)`` with
    ``u_i = 0`` off ``A`` (one step for linear problems, which is exact; up to
    ``_POLISH_NEWTON`` Newton steps otherwise).  When the result has ``u_i < 0`` on
    ``A`` or ``F_i < 0`` off ``A`` those indices change sides and the system is
    solved again (a block principal pivot, Júdice & Pires), at most
    ``_POLISH_PASSES`` times.  Returns ``(x, residual)`` of the best point found,
    or None when nothing finite came out.
    """
    p, n = model.p, model.n
    act = x[:p] > z
    best: tuple[np.ndarray, float] | None = None
    seen: set[bytes] = set()
    for _ in range(_POLISH_PASSES):
        key = act.tobytes()
        if key in seen:
            break
        seen.add(key)
        cols = np.r_[np.flatnonzero(act), np.arange(p, n)]
        xk = x.copy()
        xk[:p][~act] = 0.0
        for it in range(1 if model.linear else _POLISH_NEWTON):
            F, G = model.FG(xk)
            if it and not model.linear:
                res, _ = model.residual(xk, F, G)
                if best is None or res < best[1]:
                    best = (xk.copy(), res)
                if res <= tol:
                    return best
            if cols.size == 0:
                break
            JF, JG = model.jac(xk)
            K = np.vstack([JF[act][:, cols], JG[:, cols]])
            d = solve_or_lstsq(K, -np.concatenate([F[act], G]))
            if d is None:
                break
            xk = xk.copy()
            xk[cols] += d
        if not np.all(np.isfinite(xk)):
            continue
        F, G = model.FG(xk)
        res, _ = model.residual(xk, F, G)
        if best is None or res < best[1]:
            best = (xk, res)
        if res <= tol:
            return best
        flip = np.where(act, xk[:p] < 0, F < 0)
        if not flip.any():
            break
        act = act ^ flip
    return best


# ---------------------------------------------------------------------------
# one run of a backend


class _Run:
    """The outcome of one start: point, merit value, how it ended and its counts."""

    def __init__(self, y: np.ndarray, ending: str, nit: int, note: str, polished: bool = False):
        self.y, self.ending, self.nit, self.note, self.polished = y, ending, nit, note, polished
        self.f = math.inf
        self.residual = math.inf
        self.scale = 1.0
        self.pg = math.inf
        self.kappa = math.inf


class _Monitor:
    """The callback the backends share: stop at a certified point or at the iteration cap.

    With ``polish``, once the guessed active set ``{u_i > z_i}`` is the same at two
    consecutive iterates the active-set Newton step is tried, and the run stops when
    its result passes the residual test.  A guess is tried once for linear problems
    (the step is exact, so another try gives the same answer); for nonlinear ones it
    is tried again whenever the merit has fallen by ``_POLISH_RETRY`` since its last
    try (Newton converges from close enough).
    """

    def __init__(self, merit: _Merit, tol: float, max_iter: int, polish: bool):
        self.merit, self.tol, self.max_iter, self.polish = merit, tol, max_iter, polish
        self.nit = 0
        self.stop: str | None = None
        self.y: np.ndarray | None = None
        self.polished = False
        self.attempts = 0
        self._prev: bytes | None = None
        self._tried: dict[bytes, float] = {}

    def __call__(self, y: np.ndarray, nit: int) -> None:
        self.nit = nit
        model = self.merit.model
        x, u, z = self.merit.split(y)
        F, G = model.FG(x)
        if model.residual(x, F, G)[0] <= self.tol:     # the backends keep u >= 0
            self._halt("solved", y)
        if self.polish and self.try_polish(y, require_repeat=True):
            raise StopIteration
        if nit >= self.max_iter:
            self._halt("limit", y)

    def try_polish(self, y: np.ndarray, require_repeat: bool = False) -> bool:
        model = self.merit.model
        x, u, z = self.merit.split(y)
        key = (u > z).tobytes()
        repeat, self._prev = key == self._prev, key
        if require_repeat and not repeat:
            return False
        R = self.merit.R(y)
        f = float(R @ R)
        if key in self._tried and (model.linear or not f < _POLISH_RETRY * self._tried[key]):
            return False
        self._tried[key] = f
        self.attempts += 1
        out = _polish(model, x, z, self.tol)
        if out is None or not out[1] <= self.tol:
            return False
        xp = out[0]
        F, _ = model.FG(xp)
        self.stop, self.polished = "solved", True
        self.y = np.concatenate([xp, np.maximum(F, 0.0)])
        return True

    def _halt(self, why: str, y: np.ndarray) -> None:
        self.stop, self.y = why, np.array(y)
        raise StopIteration


def _run_trf(merit: _Merit, y0: np.ndarray, mon: _Monitor) -> _Run:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = least_squares(merit.R, y0, jac=merit.J, bounds=(merit.lb, merit.ub), method="trf",
                            ftol=_LSQ_TOL, xtol=_LSQ_TOL, gtol=_LSQ_TOL, tr_solver="exact",
                            max_nfev=50 * mon.max_iter + 100,
                            callback=lambda intermediate_result: mon(intermediate_result.x,
                                                                     int(intermediate_result.nit)))
    if mon.stop is not None:
        ending = mon.stop
    elif res.status in (1, 2, 3, 4):
        ending = "converged"
    elif res.status == 0:
        ending = "limit"
    else:
        ending = "failed"
    y = mon.y if mon.y is not None else res.x
    return _Run(np.array(y), ending, mon.nit, f"least_squares(trf): {res.message}", mon.polished)


def _run_lbfgsb(merit: _Merit, y0: np.ndarray, mon: _Monitor) -> _Run:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = minimize(merit.f_and_grad, y0, jac=True, method="L-BFGS-B",
                       bounds=list(zip(merit.lb, merit.ub)),
                       callback=lambda intermediate_result: mon(intermediate_result.x, mon.nit + 1),
                       options={"maxiter": mon.max_iter + 1, "maxfun": 50 * mon.max_iter + 100,
                                "ftol": 0.0, "gtol": _LBFGSB_GTOL, "maxcor": _LBFGSB_MAXCOR})
    msg = str(res.message)
    if mon.stop is not None:
        ending = mon.stop
    elif res.status == 0 or "ABNORMAL" in msg.upper():
        # converged, or no decrease along the search direction: no further progress
        ending = "converged"
    elif res.status == 1:
        ending = "limit"
    else:
        ending = "failed"
    y = mon.y if mon.y is not None else res.x
    return _Run(np.array(y), ending, mon.nit, f"L-BFGS-B: {msg}", mon.polished)


_BACKEND_RUN = {"trf": _run_trf, "lbfgsb": _run_lbfgsb}

_CONTROLLER: ThreadpoolController | None = None


def _one_blas_thread():
    """A context limiting BLAS to one thread (the controller is built once: ~0.01 ms per use, not ~0.7 ms)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")


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
    zero = run.f <= _threshold(run, ftol, tol)
    stationary = run.kappa <= _KAPPA_STATIONARY
    if run.ending == "limit":
        # stopped by the cap, possibly already at a stationary point with f > 0
        return Status.STATIONARY_NOT_SOLUTION if stationary and not zero else Status.ITERATION_LIMIT
    if zero:
        return Status.SOLVED      # a zero of f; the registry certifies it with the residual
    if run.ending == "converged" and stationary:
        return Status.STATIONARY_NOT_SOLUTION
    return Status.INACCURATE


def _threshold(run: _Run, ftol: float | None, tol: float) -> float:
    return (tol * run.scale) ** 2 if ftol is None else ftol


# ---------------------------------------------------------------------------
# the method


@register("merit", LCP, MixedLCP, MixedNCP,
          description="Buffo–Maciel merit function (eq. (4)) minimised over the box (eq. (3)) "
                      "by scipy's trf least squares or L-BFGS-B",
          options={"max_iter": integer(1, none=True), "ftol": real(0.0, none=True), "multistart": integer(0),
                   "polish": boolean(), "x0": vector_option()})
def merit(problem: Any, tol: float, *, backend: str = "trf", x0: Any = None, z0: Any = None,
          max_iter: int | None = None, ftol: float | None = None, multistart: int = 5,
          seed: Any = 0, polish: bool = True) -> Raw:
    """Minimise ``||F - z||^2 + ||G||^2 + (u . z)^2`` over ``u >= 0, z >= 0`` (Buffo–Maciel).

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
        only when the first run ends at a stationary point that is not a solution
        (default 5; 0 gives the single start of the paper).  Start ``k`` draws
        ``u ~ U(0, s 2^k)``, ``v ~ U(-s 2^k, s 2^k)`` with
        ``s = max(1, ||x0||_inf, ||x_end||_inf)`` (a widening search) and ``z = max(F, 0)``.
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
    ("analytic" or "finite differences"), z (the slacks of the returned point)
    """
    name = _ALIASES.get(backend.lower()) if isinstance(backend, str) else None
    if name is None:
        raise InvalidOptionError("backend", f"must be one of {', '.join(repr(b) for b in BACKENDS)}, "
                                            f"got {backend!r}")
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

    run_backend = _BACKEND_RUN[name]
    attempts = 0

    def one_run(y0: np.ndarray) -> _Run:
        nonlocal attempts
        run = _Run(y0, "start", 0, "the start passes the residual test")
        _finish(model, merit_, run)
        if run.residual > tol:
            mon = _Monitor(merit_, tol, max_iter, bool(polish))
            # small dense products: a multithreaded BLAS only adds synchronisation (on a busy 2-core
            # machine L-BFGS-B ran 20x slower with two OpenBLAS threads than with one)
            with _one_blas_thread():
                run = run_backend(merit_, y0, mon)
            if polish and run.ending != "solved" and mon.try_polish(np.clip(run.y, merit_.lb, merit_.ub)):
                run.y, run.polished = mon.y, True
                run.note += "; then the active-set polish"
            attempts += mon.attempts
            _finish(model, merit_, run)
        return run

    runs = [one_run(_start(model, x_start, z_start))]
    spread = max(1.0, float(np.max(np.abs(x_start), initial=0.0)),
                 float(np.max(np.abs(runs[0].y[:n]), initial=0.0)))
    retry = _classify(runs[0], ftol, tol) is Status.STATIONARY_NOT_SOLUTION
    for k in range(multistart if retry else 0):
        if _classify(runs[-1], ftol, tol) is Status.SOLVED:
            break
        width = spread * 2.0 ** k
        xk = np.concatenate([rng.uniform(0.0, width, p), rng.uniform(-width, width, n - p)])
        runs.append(one_run(_start(model, xk, None)))

    order = {Status.SOLVED: 0, Status.INACCURATE: 1, Status.ITERATION_LIMIT: 2, Status.STATIONARY_NOT_SOLUTION: 3}
    best = min(runs, key=lambda r: (r.residual > tol, order[_classify(r, ftol, tol)], r.f))
    status = _classify(best, ftol, tol)
    x, _, z = merit_.split(best.y)
    x_out = model.to_problem(x)
    with model.uncounted():
        F, _ = model.FG(x)
    thr = _threshold(best, ftol, tol)
    total_it = sum(r.nit for r in runs)
    text = {
        Status.SOLVED: ("solution" + (" (active-set polish)" if best.polished else "")
                        if best.residual <= tol else f"merit f = {best.f:.3e} <= ftol = {thr:.3e}"),
        Status.STATIONARY_NOT_SOLUTION: (f"stationary point that is not a solution: f = {best.f:.3e} > "
                                         f"ftol = {thr:.3e}, relative projected gradient {best.kappa:.1e}"),
        Status.ITERATION_LIMIT: f"no solution within max_iter = {max_iter} iterations (f = {best.f:.3e})",
        Status.INACCURATE: (f"the backend stopped at f = {best.f:.3e} > ftol = {thr:.3e} short of a "
                            f"stationary point (relative projected gradient {best.kappa:.1e})"),
    }[status]
    msg = f"{text}; {best.note}"
    if len(runs) > 1:
        msg += f"; {len(runs)} starts"
    if not model.analytic:
        msg += "; Jacobian of (F, G) by forward finite differences (the problem has no jac_F/jac_G)"
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
    }
    w = problem.M @ x_out + problem.q if model.linear else F
    return Raw(x_out, status, iterations=total_it, message=msg, w=w, stats=stats)

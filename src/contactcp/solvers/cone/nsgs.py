"""Non-smooth Gauss–Seidel for the Coulomb-cone problem, with an exact local solve per contact.

One sweep visits the contacts in order; contact ``i`` solves its own local
problem ``u_i = W_ii r_i + (u_i - W_ii r_i)`` with the others frozen (Jean & Moreau's NSGS).  The
local problem is solved exactly, by cases (take-off, stick, slide;
:mod:`contactcp.solvers.cone.one_contact`), as Siconos' NSGS solves it with a local Newton method;
where no case gives a point (a block with no solution found), by projected fixed-point iterations
``r_i <- P_K(r_i - rho_i (u_i + mu ||u_T|| e_N))`` with ``rho_i = 1 / lambda_max(W_ii)``.  The
compiled run (:func:`~contactcp.solvers.cone.nsgs_kernels.nsgs_run`) sweeps a dense ``W`` with
:func:`contactcp.solvers.cone.kernels.gauss_seidel_sweeps` and a sparse one in block storage
(:mod:`~contactcp.solvers.cone.block_sparse`; no dense copy), accelerates the sweeps by Anderson's
method (:mod:`~contactcp.solvers.cone.anderson`) and places its stopping tests by the observed rate.
Sweeps to 1e-8 on FCLIB's sample (``contactcp.solve(p, "nsgs", tol=1e-8)``): with the exact local
solve and the rate-placed tests 95 -> 19 (Rover1039), 47 -> 12 (Rover4516), 7 -> 1 (NESpheres_30_1)
against the projected local solve; with the acceleration (against ``anderson=0``) 1066 -> 147 (Kapla
tower), 962 -> 154 (OneObject), 873 -> 94 (PerioBox), 79 -> 29 (Confeti).
The answer is certified by the problem's own residual: for data in floating-point range, its compiled
measure runs in the same compiled call as the sweeps
(:func:`~contactcp.solvers.cone.nsgs_kernels.nsgs_measured`; one call for a small problem, not two),
and the registry certifies with it.
"""

from __future__ import annotations

import math
import time

import numpy as np

from contactcp.problems import FrictionContactProblem
from contactcp.result import Result, Status
from contactcp.solvers.cone import scale as homogeneous
from contactcp.solvers.cone.nsgs_kernels import nsgs_measured, nsgs_run
from contactcp.solvers.registry import Raw, boolean, certify, integer, register, vector

#: nsgs's default sweeps and local iterations
_SWEEPS, _LOCAL_ITER = 1000, 10
#: the pairs of Anderson's acceleration by default (see :func:`nsgs`)
ANDERSON = 2
#: the options of the default chain's first step (:func:`chain_first`)
FIRST_OPTIONS = {"give_up": True}


@register(
    "nsgs",
    FrictionContactProblem,
    description="non-smooth Gauss–Seidel with exact local solves by cases (dense or sparse W)",
    options={
        "max_sweeps": integer(1),
        "local_iter": integer(1),
        "r0": vector(),
        "give_up": boolean(),
        "anderson": integer(0),
    },
)
def nsgs(
    problem: FrictionContactProblem,
    tol: float,
    *,
    max_sweeps: int = _SWEEPS,
    local_iter: int = _LOCAL_ITER,
    r0: object = None,
    give_up: bool = False,
    anderson: int = ANDERSON,
) -> Raw:
    """Non-smooth Gauss–Seidel over contacts.

    Options
    -------
    max_sweeps : sweeps over all contacts (default 1000)
    local_iter : fixed-point iterations of a local solve that the exact solve by cases leaves
        unsolved (default 10)
    r0 : starting reactions (default zero)
    give_up : stop early when the residual's observed rate of decrease (over the last 64 sweeps)
        cannot reach ``tol`` within four times the sweeps left (default False; the default chain
        sets it, so that a slowly converging first attempt hands over to the next method)
    anderson : accelerate the sweeps by Anderson's method on this many past pairs (0: plain NSGS;
        default 2; safeguarded, see :func:`~contactcp.solvers.cone.nsgs_kernels.nsgs_run`)
    """
    d = problem.dim
    W = problem.W if problem.sparse else np.ascontiguousarray(problem.W)
    mu = problem.mu
    problem, r, k = homogeneous.apply(problem, None if r0 is None else r0.copy())
    if r is None:
        r = np.zeros(problem.size)
    if k == 0:  # the data in range: the problem's own measure in the same compiled call
        return _measured_run(problem, W, r, tol, max_sweeps, local_iter, give_up, anderson)
    raw = _nsgs(problem, tol, W, problem.q, mu, d, r, max_sweeps, local_iter, give_up, anderson)
    raw.x, raw.w = homogeneous.invert(raw.x, k), homogeneous.invert(raw.w, k)
    return raw


def chain_first(problem: FrictionContactProblem, tol: float):
    """The default chain's first step, ``("nsgs", {"give_up": True})`` (:data:`FIRST_OPTIONS`), for
    :func:`contactcp.solve`: :func:`direct` from zero."""
    return direct(problem, tol, None, _SWEEPS, FIRST_OPTIONS["give_up"])


def direct(problem: FrictionContactProblem, tol: float, r0: np.ndarray | None, max_sweeps: int, give_up: bool):
    """``contactcp.solve(problem, "nsgs", tol=tol, r0=r0, max_sweeps=max_sweeps, give_up=give_up)``:
    the same certified result as the registry's run, without its per-call option handling (a small
    problem's solve is mostly that; the time stepper's warm start of each step).  ``r0`` a float64
    array of the problem's size (None: zero), ``max_sweeps >= 1``.  None for data outside
    floating-point range (:mod:`~contactcp.solvers.cone.scale`), for an ``r0`` of another shape or
    not finite, and when the compiled call raises: the registry's path then runs it (and reports such
    a failure as its status)."""
    if not -homogeneous.LIMIT <= problem._q_exponent <= homogeneous.LIMIT:
        return None
    size = problem.q.shape[0]
    if r0 is None:
        r = np.zeros(size)
    elif type(r0) is np.ndarray and r0.dtype == np.float64 and r0.shape == (size,) and np.isfinite(r0).all():
        r = r0.copy()
    else:
        return None
    t0 = time.perf_counter()
    W = problem.W if problem._sparse else np.ascontiguousarray(problem.W)
    try:
        raw = _measured_run(problem, W, r, tol, max_sweeps, _LOCAL_ITER, give_up, ANDERSON)
    except (ArithmeticError, ValueError, RuntimeError):  # the registry's run reports it (NUMERICAL_FAILURE)
        return None
    residual, u = raw.measured
    if raw.status is _SOLVED and residual.value <= tol:  # what certify() makes of it, in short
        return Result(r, _SOLVED, residual, "nsgs", tol, raw.iterations, time.perf_counter() - t0, raw.message, u)
    return certify(problem, raw, tol, "nsgs", time.perf_counter() - t0)


def _measured_run(problem, W, r, tol, max_sweeps, local_iter, give_up, anderson) -> Raw:
    """:func:`~contactcp.solvers.cone.nsgs_kernels.nsgs_measured` on data in range (``r`` updated in
    place): the :class:`Raw` with the problem's own measure of its point."""
    code, done, measure = nsgs_measured(
        *_storage(problem, W),
        problem.q,
        problem.mu,
        r,
        problem.dim,
        max_sweeps,
        local_iter,
        tol,
        give_up,
        anderson,
        problem._mu_max,
    )
    raw = _raw(r, code, done, max_sweeps, None)
    raw.measured = problem._measured(measure)
    return raw


_NO_INT = np.zeros(0, dtype=np.int32)
_NO_FLOAT = np.zeros(0)
_NO_DENSE = np.zeros((0, 0))
_SOLVED = Status.SOLVED
_MESSAGES = ("converged", "no convergence in {} sweeps", "converging too slowly after {} sweeps")


def _nsgs(problem, tol, W, q, mu, d, r, max_sweeps, local_iter, give_up, anderson) -> Raw:
    """One compiled call (:func:`~contactcp.solvers.cone.nsgs_kernels.nsgs_run`) for data scaled into
    range (:func:`nsgs`): the accelerated sweeps, the method's own stopping tests (unscaled by rounding
    bounds; the registry certifies the answer with the problem's residual) and, with ``give_up``, the
    rate test of :func:`hopeless`."""
    code, done, u = nsgs_run(*_storage(problem, W), q, mu, r, d, max_sweeps, local_iter, tol, give_up, anderson)
    return _raw(r, code, done, max_sweeps, u)


def _storage(problem, W) -> tuple:
    """``W`` as the kernels take it: CSR arrays or a dense array."""
    if problem._sparse:
        return W.indptr, W.indices, W.data, _NO_DENSE, True
    return _NO_INT, _NO_INT, _NO_FLOAT, W, False


def _raw(r, code: int, done: int, max_sweeps: int, u) -> Raw:
    status = Status.SOLVED if code == 0 else Status.ITERATION_LIMIT
    return Raw(r, status, iterations=int(done), message=_MESSAGES[code].format(max_sweeps if code == 1 else done), w=u)


def hopeless(history: list[tuple[int, float]], tol: float, left: int) -> bool:
    """Whether the rate observed over the last 64 (or more) sweeps cannot reach ``tol`` in ``4 * left`` sweeps
    (the readable reference of the compiled test in :func:`~contactcp.solvers.cone.kernels.nsgs_run`)."""
    done, value = history[-1]
    past = [(k, v) for k, v in history if k <= done - 64]
    if not past:
        return False
    k0, v0 = past[-1]
    if not (0 < value < v0):
        return value >= v0
    rate = math.log(value / v0) / (done - k0)  # log decrease per sweep (< 0)
    return math.log(tol / value) / rate > 4 * left

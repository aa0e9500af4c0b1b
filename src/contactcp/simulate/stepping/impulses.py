"""The impulse problem of one Moreau–Jean step, solved and certified: :func:`solve_impulses`.

The step's problem (:mod:`~contactcp.simulate.stepping.moreau_jean`, step 3) is
``M (v_{k+1} - v_free) = H r``, ``u = H^T v_{k+1} + w`` with Coulomb's law between ``r`` and ``u``.
It is posed in local form (``W = H^T M^{-1} H`` dense) when small, in global form when large; see
:data:`LOCAL_UP_TO`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sla

from contactcp.problems import LCP, FrictionContactProblem, GlobalFrictionContactProblem
from contactcp.result import Result
from contactcp.solvers.registry import methods_for, solve

__all__ = ["solve_impulses", "LOCAL_UP_TO"]


#: up to this many impulse unknowns (``d n_c``) a step's problem is posed in local form with a dense
#: ``W`` (cheaper there than the global form's sparse machinery: 1.5 against 3 ms a step for a box
#: on a slope); above, in global form (a pile of 25 boxes, 411 unknowns: 40-300 ms a step in local
#: form, where the rank-deficient Newton matrix needs GMRES or Levenberg-Marquardt)
LOCAL_UP_TO = 60


def solve_impulses(
    M: np.ndarray,
    chol: Any,
    Ha: np.ndarray,
    v_free: np.ndarray,
    w: np.ndarray,
    mu: np.ndarray,
    d: int,
    scheme: Any,
    r0: Any,
) -> tuple[Result, np.ndarray | None, np.ndarray | None]:
    """The step's impulse problem, certified: ``(result, v_{k+1}, r)`` (None when no point).

    Up to :data:`LOCAL_UP_TO` unknowns, and for frictionless contacts, the local form (an LCP, or
    :class:`~contactcp.problems.FrictionContactProblem` by Newton warm-started from ``r0``, else
    the default chain).  Above, the global problem ``M v = H r + M v_free``, ``u = H^T v + w``
    (:class:`~contactcp.problems.GlobalFrictionContactProblem`; ``W`` is not formed), by the
    global semismooth Newton warm-started from ``r0``, else the default chain.  The closer point
    when nothing is certified."""
    global_only = scheme.method is not None and scheme.method not in methods_for(FrictionContactProblem)
    if d == 1 or (Ha.shape[1] <= LOCAL_UP_TO and not global_only):
        return _solve_local(chol, Ha, v_free, w, mu, d, scheme, r0)
    problem = GlobalFrictionContactProblem(M, Ha, M @ v_free, w, mu, d)
    if scheme.method is not None:
        res = solve(problem, scheme.method, tol=scheme.tol)
    else:
        res = _closer(solve(problem, "newton-global", tol=scheme.tol, r0=r0), problem, None, scheme.tol)
    nv = M.shape[0]
    if not res.success:
        # q = w + H^T M^-1 f may cancel to rounding (two bodies falling together): relative to such
        # a q the global form's rounding bound cannot be met, but the local form built from the
        # same data can be certified (its q taken as given)
        method = scheme.method if scheme.method in methods_for(FrictionContactProblem) else None
        local = solve(problem.local(), method, tol=scheme.tol)
        if local.success:
            local.x = np.concatenate([problem.velocity(local.x), local.x])
            local.message += " (certified on the local form: q is within rounding of zero)"
            res = local
    if res.x is None:
        return res, None, None
    return res, res.x[:nv], res.x[nv:]


def _solve_local(chol: Any, Ha: np.ndarray, v_free: np.ndarray, w: np.ndarray, mu: np.ndarray, d: int, scheme, r0):
    """The local form ``u = W r + q``, ``W = H^T M^-1 H`` (dense), ``q = H^T v_free + w``."""
    MinvH = sla.cho_solve(chol, Ha)
    W = Ha.T @ MinvH
    W = 0.5 * (W + W.T)
    q = Ha.T @ v_free + w
    if d == 1:
        res = solve(LCP(W, q), scheme.method, tol=scheme.tol)
    else:
        problem = FrictionContactProblem(W, q, mu)
        if scheme.method is not None or r0 is None:
            res = solve(problem, scheme.method, tol=scheme.tol)
        else:
            res = _closer(solve(problem, "newton", tol=scheme.tol, r0=r0, max_iter=30), problem, None, scheme.tol)
    if res.x is None:
        return res, None, None
    return res, v_free + MinvH @ res.x, res.x


def _closer(res: Result, problem: Any, method: str | None, tol: float) -> Result:
    """``res`` if certified, else the default chain's answer if certified or closer."""
    if res.success:
        return res
    chain = solve(problem, method, tol=tol)  # the default chain, from zero
    if (
        chain.success
        or res.residual is None
        or (chain.residual is not None and chain.residual.value <= res.residual.value)
    ):
        return chain
    return res  # neither certified: the closer point

"""The impulse problem of one Moreau–Jean step, solved and certified: :func:`solve_impulses`.

The step's problem (:mod:`~contactcp.simulate.stepping.moreau_jean`, step 3) is
``M (v_{k+1} - v_free) = H r``, ``u = H^T v_{k+1} + w`` with Coulomb's law between ``r`` and ``u``.
It is posed in local form (``W = H^T M^{-1} H`` dense) when small, in global form when large; see
:data:`LOCAL_UP_TO`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from contactcp.problems import LCP, FrictionContactProblem, GlobalFrictionContactProblem
from contactcp.result import Result
from contactcp.solvers.cone import nsgs
from contactcp.solvers.cone.newton_global_direct import prepare
from contactcp.solvers.registry import methods_for, solve, solve_chain

__all__ = ["solve_impulses", "solve_pyramid", "pyramid_directions", "LOCAL_UP_TO"]


#: up to this many impulse unknowns (``d n_c``) a step's problem is posed in local form with a dense
#: ``W`` (cheaper there than the global form's sparse machinery: 1.5 against 3 ms a step for a box
#: on a slope); above, in global form (a pile of 25 boxes, 411 unknowns: 40-300 ms a step in local
#: form, where the rank-deficient Newton matrix needs GMRES or Levenberg-Marquardt)
LOCAL_UP_TO = 60

#: a global-form step whose warm Newton is not certified tries it once more from the same start with
#: this proximal term (``eps`` of :mod:`~contactcp.solvers.cone.newton_global`; the default
#: ``1e-3``): a larger term damps the steps where the semismooth iteration cycles on a nearly
#: degenerate pile.  On the first 30 such steps of ``simulate(box_pile(50, seed=0), 0.5, 1e-3)``
#: (a script): 18 certified, in 7 ms each, where a short chain (NSGS, one proximal-point run) took
#: 4-430 ms (about 100 typically); ``eps`` of 1e-2 certified 16, 3e-2 and 0.3 also 18.  A step that
#: can still be halved tries nothing more (``thorough=False``): its halves are cheaper than any
#: chain (:mod:`~contactcp.simulate.stepping.substeps`)
RETRY_EPS = 0.1
#: a local-form step starts with at most this many NSGS sweeps from the last step's impulses (exact
#: local solves: solvers/cone/one_contact.py), then Newton from the same start: on the last 100
#: steps of ``simulate(slope_box(0.5), 0.2, 1e-3)`` NSGS certified all in 1 sweep, 20 us a step
#: against Newton's 131 us; on the PUMA grasp in 7.3 sweeps on average, 22 us against 58 us
#: (one run of a script on this machine, ``contactcp.solve`` on the steps' problems).  In
#: ``benchmarks/results/timestepping.md`` the sticking box's whole step went from 1.21 to 0.986 ms
#: and the grasp's from 1.18 to 1.05 ms with this and the solver changes of the same commits
WARM_SWEEPS = 50


def solve_impulses(
    M: np.ndarray,
    chol: Any,
    H: np.ndarray,
    cols: np.ndarray,
    v_free: np.ndarray,
    w: np.ndarray,
    mu: np.ndarray,
    d: int,
    scheme: Any,
    r0: Any,
    thorough: bool = True,
    blocks: np.ndarray | None = None,
) -> tuple[Result, np.ndarray | None, np.ndarray | None]:
    """The step's impulse problem on the columns ``cols`` of the contact Jacobian ``H`` (the active
    contacts' ``H_a``), certified: ``(result, v_{k+1}, r)`` (None when no point).

    Up to :data:`LOCAL_UP_TO` unknowns, and for frictionless contacts, the local form (an LCP, or
    :class:`~contactcp.problems.FrictionContactProblem` by NSGS then Newton, both warm-started from
    ``r0`` (:data:`WARM_SWEEPS`), else the default chain).  Above, the global problem in the
    velocity change ``dv = v - v_free``, ``M dv = H r``, ``u = H^T dv + (H^T v_free + w)``
    (:class:`~contactcp.problems.GlobalFrictionContactProblem`; ``W`` is not formed), by the
    global semismooth Newton warm-started from ``r0``, then again with a larger proximal term
    (:data:`RETRY_EPS`), else (when ``thorough``: a step that can no longer be halved) the default
    chain.  The closer point when nothing is certified.  ``blocks``: the contacts' rows of ``H``
    when known (:class:`~contactcp.simulate.stepping.systems.StepContacts`)."""
    if d == 3 and scheme.friction == "pyramid":
        return solve_pyramid(chol, H[:, cols], v_free, w, mu, scheme)
    global_only = scheme.method is not None and scheme.method not in methods_for(FrictionContactProblem)
    if d == 1 or (cols.size <= LOCAL_UP_TO and not global_only):
        return _solve_local(chol, H[:, cols], v_free, w, mu, d, scheme, r0)
    # the velocity change dv = v_{k+1} - v_free: M dv = H r, u = H^T dv + (H^T v_free + w); the
    # constant H^T v_free + w is the local form's q, taken as given as there (posed with v itself,
    # q = w + H^T M^-1 (M v_free) would be formed again, and a q that cancels to rounding, two
    # bodies falling together, could not be certified relative to itself)
    newton = None
    if scheme.method is None:  # on arrays when it can (solvers/cone/newton_global_direct), the same answer
        prepared = prepare(chol, H, cols, 1, v_free, w, mu, d, blocks, d)
        if prepared is not None:
            newton = _retried(lambda **options: prepared.newton(scheme.tol, r0, **options))
        if newton is not None and (newton.success or not thorough):
            return _velocity(newton, v_free, M.shape[0])
    problem = GlobalFrictionContactProblem._derived(
        M, H, np.zeros(M.shape[0]), w, mu, d, cols=cols, shift=v_free, solver=chol
    )
    if scheme.method is not None:
        res = solve(problem, scheme.method, tol=scheme.tol)
    else:
        if newton is None:
            newton = _retried(lambda **options: solve(problem, "newton-global", tol=scheme.tol, r0=r0, **options))
        res = _closer(newton, problem, None, scheme.tol) if thorough else newton
    return _velocity(res, v_free, M.shape[0])


def _retried(newton) -> Result | None:
    """``newton()``, and if not certified ``newton(eps=RETRY_EPS)`` (damped), the better of the two
    (:func:`_better`); None when ``newton()`` is (the direct path does not apply)."""
    res = newton()
    if res is not None and not res.success:
        damped = newton(eps=RETRY_EPS)
        res = res if damped is None else _better(res, damped)
    return res


def _velocity(res: Result, v_free: np.ndarray, nv: int):
    """``(res, v_{k+1}, r)`` of a global-form answer ``x = (dv, r)``."""
    if res.x is None:
        return res, None, None
    return res, v_free + res.x[:nv], res.x[nv:]


def _solve_local(chol: Any, Ha: np.ndarray, v_free: np.ndarray, w: np.ndarray, mu: np.ndarray, d: int, scheme, r0):
    """The local form ``u = W r + q``, ``W = H^T M^-1 H`` (dense), ``q = H^T v_free + w``."""
    MinvH = chol.solve(Ha)
    W = Ha.T @ MinvH
    W = 0.5 * (W + W.T)
    q = Ha.T @ v_free + w
    if d == 1:
        res = solve(LCP(W, q), scheme.method, tol=scheme.tol)
    else:
        problem = FrictionContactProblem._derived(W, q, mu, d)  # W, q from checked data; mu the scene's
        if scheme.method is not None or r0 is None:
            res = solve(problem, scheme.method, tol=scheme.tol)
        else:
            res = nsgs.direct(problem, scheme.tol, r0, WARM_SWEEPS, False)
            if res is None:  # data out of range: the registry's run
                res = solve(problem, "nsgs", tol=scheme.tol, r0=r0, max_sweeps=WARM_SWEEPS)
            if not res.success:
                newton = solve(problem, "newton", tol=scheme.tol, r0=r0, max_iter=30)
                res = _closer(newton, problem, None, scheme.tol)
    if res.x is None:
        return res, None, None
    return res, v_free + MinvH @ res.x, res.x


def _closer(res: Result, problem: Any, chain: Any, tol: float) -> Result:
    """``res`` if certified, else the answer of ``chain`` (None: the default chain), from zero, if
    certified or closer."""
    if res.success:
        return res
    return _better(res, solve(problem, tol=tol) if chain is None else solve_chain(problem, chain, tol))


def _better(res: Result, other: Result) -> Result:
    """``other`` if certified or closer than ``res`` (not certified), else ``res``."""
    if (
        other.success
        or res.residual is None
        or (other.residual is not None and other.residual.value <= res.residual.value)
    ):
        return other
    return res  # neither certified: the closer point


def pyramid_directions(k: int) -> np.ndarray:
    """``(k, 2)``: the friction pyramid's edge directions ``(cos, sin)`` of ``2 pi j / k`` in each
    contact's tangent plane (axes ``t``, ``o``)."""
    a = 2.0 * np.pi * np.arange(k) / k
    return np.column_stack([np.cos(a), np.sin(a)])


def solve_pyramid(chol: Any, Ha: np.ndarray, v_free: np.ndarray, w: np.ndarray, mu: np.ndarray, scheme: Any):
    """The step with Coulomb's cone replaced by the pyramid of ``k = scheme.pyramid_edges`` edges:
    Stewart & Trinkle (1996), Anitescu & Potra (1997).  With ``H_N`` the normal columns, ``H_D`` the
    ``k`` edge columns of each contact and ``e`` a block of ones, the LCP in ``(lambda, beta, gamma)``

        ``0 <= lambda _|_ H_N^T v + w_N >= 0``,
        ``0 <= beta   _|_ H_D^T v + e gamma >= 0``,
        ``0 <= gamma  _|_ mu lambda - e^T beta >= 0``,   ``v = v_free + M^-1 (H_N lambda + H_D beta)``,

    solved by the LCP default chain (Lemke first) and certified as an LCP.  The impulse in the
    contact frame is ``(lambda, sum_j beta_j cos_j, sum_j beta_j sin_j)``."""
    from contactcp.problems import LCP

    k = int(scheme.pyramid_edges)
    n_c = Ha.shape[1] // 3
    dirs = pyramid_directions(k)
    fric = np.flatnonzero(mu > 0)  # a frictionless contact has no edges (its beta and gamma are 0)
    nf = fric.size
    Hn = Ha[:, 0::3]
    HD = np.einsum("vcj,kj->vck", Ha.reshape(-1, n_c, 3)[:, fric, 1:], dirs).reshape(Ha.shape[0], nf * k)
    G = np.hstack([Hn, HD])
    MinvG = chol.solve(G)
    A = G.T @ MinvG
    A = 0.5 * (A + A.T)
    E = np.kron(np.eye(nf), np.ones((k, 1)))  # (k n_f, n_f)
    nb = n_c + nf * k
    Mlcp = np.zeros((nb + nf, nb + nf))
    Mlcp[:nb, :nb] = A
    Mlcp[n_c:nb, nb:] = E
    Mlcp[nb:, fric] = np.diag(mu[fric])
    Mlcp[nb:, n_c:nb] = -E.T
    q = np.concatenate([Hn.T @ v_free + w[0::3], HD.T @ v_free, np.zeros(nf)])
    res = solve(LCP(Mlcp, q), scheme.method, tol=scheme.tol)
    if res.x is None:
        return res, None, None
    R = np.zeros((n_c, 3))
    R[:, 0] = res.x[:n_c]
    R[fric, 1:] = res.x[n_c:nb].reshape(nf, k) @ dirs
    return res, v_free + MinvG @ res.x[:nb], R.reshape(-1)

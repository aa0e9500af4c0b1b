"""Semismooth Newton on the global form, its linear systems reduced to the velocities (Woodbury).

For the global problem ``M v = H r + f``, ``u = H^T v + w``
(:class:`~contactcp.problems.GlobalFrictionContactProblem`) the Alart–Curnier function of the
reactions (:mod:`.newton`) has the Newton matrix ``J = I - D + D rho W`` with
``W = H^T M^{-1} H``.  With many contacts on few bodies (a pile, a stack, a grasp: ``d n_c``
rows, rank at most ``n_v``) ``W`` is rank-deficient, ``J`` is singular on its null space, and a
dense factorisation of the ``d n_c`` rows is the cost of every iteration.  Here ``W`` is never
formed:

* the Newton matrix is regularised proximally, ``J_eps = I - D + D rho (W + (eps / rho) I)``
  (``eps`` from ``1e-3`` down to ``1e-6`` as the residual falls: on the range of ``W`` the step
  is Newton's up to a factor about ``eps / (rho lambda)``, so convergence is fast; on its null space
  the step stays finite, and there any reactions of the same resultant are as good);
* ``J_eps = A + (D rho H^T)(M^{-1} H)`` with ``A = I - (1 - eps) D`` block diagonal, so by the
  Woodbury identity ``J_eps^{-1} b = A^{-1} b - Y (M + H Y)^{-1} H A^{-1} b`` with
  ``Y = A^{-1} D rho H^T``: one factorisation of the ``n_v x n_v`` matrix ``M + H Y`` (sparse,
  body by body) per iteration, whatever the number of contacts;
* the line search is Armijo's on ``||Phi||^2 / 2`` (as :mod:`.newton`), nonmonotone: against the
  largest merit of the last :data:`MEMORY` iterations.

When ``M^{-1}`` is sparse (rigid bodies) and ``M + H Y`` is a band in a bandwidth-reducing order
(:func:`_band_order`), the whole iteration is one compiled call
(:func:`~.newton_global_loop.prepared_newton`), island by island when contacts that share no body
make independent problems (:func:`~.newton_islands.island_newton`, which the time stepper's
problems on arrays run too: :mod:`~.newton_global_direct`); the loop here takes the other cases.

The answer ``x = (v, r)``, ``v = M^{-1}(H r + f)``, is certified by the registry with the global
problem's own residual (equilibrium row by row and Coulomb's law), like every global method.  This
is the method of the time stepper (:mod:`contactcp.simulate.stepping`), warm-started from the
previous step's reactions.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from contactcp.linalg.sparse_lu import factorize
from contactcp.problems._coulomb_global import transpose_matvec
from contactcp.problems.friction_global import GlobalFrictionContactProblem
from contactcp.result import Status
from contactcp.solvers.cone.kernels import ac_merit, ac_phi_D, desaxce_residual, residual_scale
from contactcp.solvers.cone.newton_global_loop import (
    ITERATION_LIMIT,
    LINE_SEARCH,
    NO_BAND,
    SINGULAR,
    SOLVED,
    band_step,
    block_rho_of,
)
from contactcp.solvers.cone.newton_islands import island_newton
from contactcp.solvers.cone.woodbury_kernels import (
    band_order,
    csr_columns,
    csr_symmetric,
    w_diagonal,
    w_matvec,
    woodbury_back,
    woodbury_step,
)
from contactcp.solvers.registry import Raw, integer, real, register, vector

__all__ = ["newton_global", "block_rho"]

#: the smallest proximal term (see ``eps`` of :func:`newton_global`)
EPS_FLOOR = 1e-6
#: the line search's memory: a step is accepted when its merit falls (Armijo's sufficient decrease)
#: below the largest merit of the last ``MEMORY`` iterations, not the current one (the nonmonotone
#: rule of Grippo, Lampariello and Lucidi 1986).  With the monotone rule a contact near the edge of
#: its cone, slipping at 1e-4 m/s, made every step cross the edge: the search cut it to 1/16, and
#: the residual crept from 4e-4 by 5 % an iteration to the limit of 50.  On the Newton calls
#: of a script (the band path, both the first try and the ``eps = 0.1`` retry of the stepper's
#: impulses): a falling 25-box pile's 3 such steps certified in 16 iterations (120 ordinary calls:
#: 7.1 iterations on average either way); a 50-box pile's (seed 4, 300 steps) 44 calls that
#: failed certified but 4 (monotone: 26 still failed), its 149 sampled ordinary calls in 8.8
#: iterations against 9.4.  On their first try alone memories 3, 5 and 10 certified 33, 36 and 38 of
#: the 44; resetting on a change of ``rho`` (the merit then changes) saved a few iterations more.
#: FCLIB's global problems (tests/data/fclib/global) take the same iterations as with the monotone
#: rule; spheres-in-a-box still stops at 50 (4e-6)
MEMORY = 5
#: the reduced matrix M + H Y is factored densely up to this many velocities, by SuperLU above
DENSE_UP_TO = 600
_GETRF, _GETRS = sla.lapack.dgetrf, sla.lapack.dgetrs
#: the reduced matrix is factored in band form (LU with partial pivoting, or Cholesky,
#: :mod:`~.band_kernels`) when the bandwidth-reducing order leaves a half-bandwidth ``kl`` with
#: ``BAND_FLOPS kl^2 < n_v^2``: about where band LU's ``4 n kl^2`` flops meet ``getrf``'s
#: ``2 n^3 / 3`` (at ``n_v = 150``, random band matrices, factor and solve by LAPACK: ``kl`` 10,
#: 30, 50, 60 took 19, 49, 74, 111 us, ``getrf`` 122).
#: A pile's reduced matrices (a script, 200 of each): 25 boxes, ``kl`` 13 on average of 150, 33
#: against 132 us; 50 boxes, ``kl`` 12 of 300, 51 against 712 us
BAND_FLOPS = 6


def block_rho(problem: GlobalFrictionContactProblem, MinvH: sp.spmatrix | None = None, diag=None) -> np.ndarray:
    """``rho_i = d / trace(W_ii)`` from the diagonal of ``W = H^T M^{-1} H`` (no ``W`` formed): given,
    or from ``M^{-1} H``."""
    d = problem.dim
    if diag is None:
        diag = np.asarray(problem.H.multiply(MinvH).sum(axis=0)).reshape(-1)
    return block_rho_of(np.ascontiguousarray(diag, dtype=np.float64), d)


def _reduced_step(problem, HT: sp.csr_matrix, D: np.ndarray, rho: np.ndarray, phi: np.ndarray, eps: float, dense=None):
    """``dr = -J_eps^{-1} phi`` by the Woodbury identity (module docstring); None if singular.

    ``dense``: ``(M, Hp, Hi, Hx, band)``, ``H`` in CSC form, when ``n_v <= DENSE_UP_TO``: ``M + H Y``
    is assembled by a compiled kernel and factored, in band form when ``band`` (:func:`_band_order`;
    the whole step compiled, :func:`~.newton_global_loop.band_step`), else dense by LAPACK
    (``M`` dense; :func:`~.woodbury_kernels.woodbury_step`); above, with sparse products and SuperLU."""
    d, n_c = problem.dim, D.shape[0]
    if dense is not None:
        M, Hp, Hi, Hx, band = dense
        if band is not None:  # compiled whole, as newton_band's steps
            dr, ok = band_step(band, (Hp, Hi, Hx), D, rho, phi, eps, d)
            return dr if ok else None
        K, rhs, B, z, ok = woodbury_step(M, Hp, Hi, Hx, D, rho, phi, eps, d)
        if not ok:
            return None
        try:
            # LAPACK's getrf and getrs as scipy's lu_factor and lu_solve call them, the same
            # values, without their wrappers and the warning filter (15 of 138 us an iteration
            # at n_v = 150); a singular K gives non-finite steps, refused below
            lu, piv, _ = _GETRF(K)
            s = _GETRS(lu, piv, rhs)[0]
        except (np.linalg.LinAlgError, ValueError):
            return None
        dr = woodbury_back(Hp, Hi, Hx, B, z, s, d)
        return dr if np.all(np.isfinite(dr)) else None
    A = np.eye(d)[None] - (1.0 - eps) * D
    try:
        Ainv = np.linalg.inv(A)
    except np.linalg.LinAlgError:
        return None
    B = Ainv @ (D * rho[:, None, None])  # A^-1 D rho, block by block
    z = -np.einsum("ijk,ik->ij", Ainv, phi.reshape(n_c, d)).reshape(-1)
    Bs = sp.bsr_matrix((B, np.arange(n_c), np.arange(n_c + 1)), shape=(d * n_c, d * n_c))
    Y = (Bs @ HT).tocsr()
    K = problem.M + problem.H @ Y
    rhs = problem.H @ z
    try:
        s = factorize(K)(rhs)
    except (np.linalg.LinAlgError, RuntimeError, ValueError):
        return None
    dr = z - Y @ s
    return dr if np.all(np.isfinite(dr)) else None


def csr64(A: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``A``'s CSR arrays with int64 indices and float64 values, as the compiled kernels take them."""
    return A.indptr.astype(np.int64), A.indices.astype(np.int64), np.ascontiguousarray(A.data, dtype=np.float64)


def _setup(problem: GlobalFrictionContactProblem, order: bool = True):
    """``(rho, dense, H^T)`` of :func:`newton_global`'s steps (see :func:`_reduced_step`; ``H^T`` only
    for the sparse path; ``order``: try the band order, else factor dense).  On the dense path with
    ``M^{-1}`` sparse (rigid bodies), ``diag(W)`` is one compiled pass
    (:func:`~.woodbury_kernels.w_diagonal`: 0.8 ms of scipy products before, per step of a 25-box
    pile)."""
    if problem.n_v > DENSE_UP_TO:
        MinvH = problem.solver.solve_sparse(problem.H).tocsr()
        return block_rho(problem, MinvH), None, sp.csr_matrix(problem.H.T)
    H = problem.H
    Hp, Hi, Hx = csr_columns(H.indptr, H.indices, H.data, H.shape[1])
    band = _band_order(problem.M, Hp, Hi, problem.dim) if order else None
    dense = (None if band is not None else problem.M.toarray(), Hp, Hi, Hx, band)
    inv = problem.solver.inverse()
    if inv is None:
        rho = block_rho(problem, problem.solver.solve_sparse(problem.H).tocsr())
    else:
        Ip, Ii = inv.indptr.astype(np.int64), inv.indices.astype(np.int64)
        rho = block_rho(problem, diag=w_diagonal(Hp, Hi, Hx, Ip, Ii, inv.data, problem.n_v))
    return rho, dense, None


def _band_order(M: sp.csr_matrix, Hp: np.ndarray, Hi: np.ndarray, d: int, flops: float = BAND_FLOPS):
    """``(Mp, Mi, Mx, iperm, kl, general)`` for the band factorisation of ``M + H B H^T`` (see
    :func:`_reduced_step`), or None when its half-bandwidth ``kl`` has ``flops kl^2 >= n_v^2``.  The
    order is the reverse Cuthill–McKee order of the pattern every ``B`` can fill
    (:func:`~.woodbury_kernels.band_order`): in a pile, a chain of bodies touching their
    neighbours, it is a band a few bodies wide.  ``general``: ``M`` is not symmetric (bit for bit),
    so that ``K`` is not either, whatever ``B``: LU only."""
    n = M.shape[0]
    Mp, Mi = M.indptr.astype(np.int64), M.indices.astype(np.int64)
    iperm, kl = band_order(Mp, Mi, Hp, Hi, d, n)
    if flops * kl * kl >= n * n:
        return None
    Mx = np.ascontiguousarray(M.data, dtype=np.float64)
    return Mp, Mi, Mx, iperm, kl, not csr_symmetric(Mp, Mi, Mx)


#: newton_band's outcomes as (status, message), the Python loop's
_OUTCOMES = {
    SOLVED: (Status.SOLVED, "converged"),
    ITERATION_LIMIT: (Status.ITERATION_LIMIT, "no convergence in {} iterations"),
    SINGULAR: (Status.NUMERICAL_FAILURE, "singular reduced Newton matrix"),
    LINE_SEARCH: (Status.STATIONARY_NOT_SOLUTION, "line search failed repeatedly"),
}


@register(
    "newton-global",
    GlobalFrictionContactProblem,
    options={
        "max_iter": integer(1),
        "r0": vector("reactions"),
        "armijo": real(0.0, 0.5, lo_open=True, hi_open=True),
        "eps": real(0.0, 1.0, lo_open=True, hi_open=True),
        "memory": integer(1),
    },
    description="semismooth Newton (Alart–Curnier) on the global form, proximal Woodbury steps on the velocities",
)
def newton_global(
    problem: GlobalFrictionContactProblem,
    tol: float,
    *,
    max_iter: int = 50,
    r0: object = None,
    armijo: float = 1e-4,
    eps: float = 1e-3,
    memory: int = MEMORY,
) -> Raw:
    """Semismooth Newton on the global form (see the module docstring).

    Options
    -------
    max_iter : Newton iterations (default 50)
    r0 : starting reactions (length ``d n_c``; default zero)
    armijo : sufficient-decrease constant of the line search
    eps : the largest proximal term, relative to each contact's ``1 / rho`` (default ``1e-3``); at
        an iterate of residual ``res`` the term is ``min(eps, max(1e-6, 1e-2 sqrt(res)))``
        (:data:`EPS_FLOOR`): on 20 steps of piles of 25 and 50 boxes this took 6–18 iterations where
        a fixed ``1e-3`` took 11–43 (linear convergence at the rate ``eps / (rho lambda)`` on the
        smallest eigenvalues of ``W``), while ``1e-8`` and less amplify the null space of ``W`` into
        steps the line search cuts to nothing
    memory : the line search accepts a step whose merit falls below the largest of the last
        ``memory`` iterations' (since ``rho`` last changed; :data:`MEMORY`; 1: monotone Armijo)
    """
    d, mu, m = problem.dim, problem.mu, problem.w.shape[0]
    r = np.zeros(m) if r0 is None else np.array(r0, dtype=float)
    H = problem.H
    q = problem.q
    qscale = float(residual_scale(q))
    zero = np.zeros(m)

    inv = problem.solver.inverse()  # M^-1 sparse (rigid bodies): W x in one compiled call

    def velocity_terms(x: np.ndarray) -> np.ndarray:  # W x = H^T M^-1 H x, W not formed
        if inv is not None:
            return w_matvec(H.indptr, H.indices, H.data, inv.indptr, inv.indices, inv.data, x)
        return transpose_matvec(H.indptr, H.indices, H.data, problem.solver.solve(H @ x), zero)

    # what the Newton steps need, built at the first step (a warm start that is already a solution,
    # a time step at rest, needs none of it)
    rho = dense = HT = None
    # aim below tol: the registry's global residual adds the rounding of v and u to the local measure
    aim = 0.5 * tol
    ordered = False  # the band order was tried, and refused (prepared_newton's NO_BAND)
    if inv is None or problem.n_v > DENSE_UP_TO:
        u = velocity_terms(r) + q
    else:  # the band path, compiled, by islands (newton_islands.island_newton); no band: below
        r, u, outcome, it, shrinks, discarded = island_newton(
            csr64(H), csr64(problem.M), csr64(inv), q, mu, d, r, qscale, tol, max_iter, eps, EPS_FLOOR,
            armijo, memory, float(BAND_FLOPS), 1.0,
        )  # fmt: skip
        ordered = outcome == NO_BAND
        if not ordered:
            status, msg = _OUTCOMES[outcome]
            if outcome == ITERATION_LIMIT:
                msg = msg.format(max_iter)
            stats = {"rho_shrinks": shrinks} | ({"discarded_island_iterations": discarded} if discarded else {})
            return Raw(_stacked(problem, r), status, iterations=it, message=msg, stats=stats)
    status, msg = Status.ITERATION_LIMIT, f"no convergence in {max_iter} iterations"
    best, since_best, shrinks, ls_fail, it = np.inf, 0, 0, 0, 0
    merits: list[float] = []  # since rho last changed
    for it in range(1, max_iter + 1):
        res = desaxce_residual(r, u, mu, d) / qscale
        if res <= aim:
            status, msg, it = Status.SOLVED, "converged", it - 1
            break
        if res < 0.5 * best:
            best, since_best = res, 0
        else:
            since_best += 1
            if since_best >= 6 and shrinks < 3:  # the semismooth iteration cycles: damp the projections
                rho, shrinks, since_best, ls_fail = rho * 0.1, shrinks + 1, 0, 0
                merits = []
        if rho is None:
            rho, dense, HT = _setup(problem, order=not ordered)
        phi, D = ac_phi_D(r, u, mu, rho, d, True)
        theta = 0.5 * phi @ phi
        merits = (merits + [theta])[-memory:]
        ref = max(merits)
        dr = _reduced_step(problem, HT, D, rho, phi, min(eps, max(EPS_FLOOR, 1e-2 * np.sqrt(res))), dense)
        if dr is None:
            status, msg = Status.NUMERICAL_FAILURE, "singular reduced Newton matrix"
            break
        du = velocity_terms(dr)
        t = 1.0
        while ac_merit(r, u, dr, du, t, mu, rho, d) > (1 - 2 * armijo * t) * theta + (ref - theta) and t >= 1e-10:
            t *= 0.5
        if t < 1e-10:
            ls_fail += 1
            if ls_fail > 5:
                status, msg = Status.STATIONARY_NOT_SOLUTION, "line search failed repeatedly"
                break
        r, u = r + t * dr, u + t * du
    else:
        if desaxce_residual(r, u, mu, d) / qscale <= tol:  # the last step landed within tol
            status, msg = Status.SOLVED, "converged"
    return Raw(_stacked(problem, r), status, iterations=it, message=msg, stats={"rho_shrinks": shrinks})


def _stacked(problem: GlobalFrictionContactProblem, r: np.ndarray) -> np.ndarray:
    """``x = (v, r)``, ``v = M^{-1} (H r + f)`` by the problem's block solver.  (A compiled pass with
    ``M^{-1}``'s sparse inverse saved 30 us a call on a 25-box pile, its ``v`` one rounding from
    this one (``b / m`` against ``b (1 / m)``); with it, 50-box seeds 6 and 9 met steps whose
    Newton was not certified 217 and 140 times in 0.5 s, against 56 and 80 with this one, while
    seed 2 went the other way (34 against 233 ms a step): a pile's trajectory is chaotic, and which
    seeds meet such hard steps changes with any rounding.  Not worth 30 us; the solver's own
    arithmetic stays.)"""
    return np.concatenate([problem.velocity(r), r])

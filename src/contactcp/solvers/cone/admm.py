"""ADMM for the Coulomb-cone problem, with De Saxcé's fixed point and an adaptive penalty.

With ``s_i = mu_i ||u_T,i||`` frozen, Coulomb's law ``K ∋ r ⟂ W r + q + s e_N ∈ K*`` is the
optimality condition of the convex problem ``min ½ rᵀ W r + (q + s e_N)ᵀ r`` over the cones ``K``
(for a symmetric positive semidefinite ``W``).  The alternating direction method of multipliers
on the splitting ``r = z``, ``z ∈ K`` (Boyd et al. 2011, §3.1.1, scaled form) iterates

    ``r ← (W + ρ I)^{-1} (ρ (z − ξ) − b)``,   ``z ← P_K(r + ξ)``,   ``ξ ← ξ + r − z``,

and updates ``b = q + s e_N`` from ``u = W z + q`` after every iteration (De Saxcé's fixed point,
as in the ADMM of Acary, Brémond & Huber, *On solving contact problems with Coulomb friction:
formulations and numerical comparisons*, 2018).  The penalty ``ρ`` follows the residual balancing
rule (Boyd et al., §3.4.1): doubled while the primal residual ``||r − z||`` exceeds ten times the
dual one ``ρ ||z − z_prev||``, halved in the opposite case.  Each new value factorises ``W + ρ I``
(sparse LU for sparse ``W``, so ``W`` stays sparse; dense LU otherwise); a penalty met again
among the last three reuses its factors (the penalty oscillates on FCLIB's Confeti problem).  A rank-deficient or
slightly non-symmetric ``W`` needs nothing special: ``W + ρ I`` is nonsingular for every ``ρ`` above
minus the most negative eigenvalue of ``W``'s symmetric part (for a positive semidefinite part,
every ``ρ > 0``); a smaller ``ρ`` on an indefinite ``W`` may leave it singular, and the factorisation
failure ends the method with ``NUMERICAL_FAILURE``.

The answer is ``z`` (in the cones), certified by the problem's own residual.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from contactcp.linalg.sparse_lu import factorize
from contactcp.problems import FrictionContactProblem
from contactcp.problems.friction import project_cones
from contactcp.result import Status
from contactcp.solvers.cone import scale as homogeneous
from contactcp.solvers.registry import Raw, boolean, integer, real, register, vector

#: iterations between two checks of the certified residual
_CHECK_EVERY = 10
#: the penalty changes when one residual exceeds this multiple of the other
_BALANCE = 10.0
#: factorisations kept for penalties met again (the last ones; an oscillation goes between two)
_KEEP_FACTORS = 3
#: the accelerated iteration restarts when its combined residual does not decrease by this factor
_RESTART = 0.999


def _factor(W, rho: float):
    """A solver of ``(W + rho I) x = b``."""
    n = W.shape[0]
    if sp.issparse(W):
        return factorize(W + rho * sp.identity(n, format="csc"))
    lu = sla.lu_factor(W + rho * np.eye(n), check_finite=False)
    return lambda b: sla.lu_solve(lu, b, check_finite=False)


def _desaxce_shift(u: np.ndarray, mu: np.ndarray, d: int) -> np.ndarray:
    """``s e_N`` with ``s_i = mu_i ||u_T,i||`` (zero tangential entries)."""
    U = u.reshape(-1, d)
    out = np.zeros_like(U)
    out[:, 0] = mu * np.sqrt(np.einsum("ij,ij->i", U[:, 1:], U[:, 1:]))
    return out.reshape(-1)


def default_penalty(W) -> float:
    """The mean of ``W``'s diagonal (the size of one contact's self-compliance)."""
    diag = W.diagonal() if sp.issparse(W) else np.diag(W)
    pos = np.abs(diag[diag != 0])
    return float(pos.mean()) if pos.size else 1.0


@register(
    "admm",
    FrictionContactProblem,
    description="ADMM on De Saxcé's fixed point with an adaptive penalty (sparse W stays sparse)",
    options={
        "max_iter": integer(1),
        "rho": real(0.0, lo_open=True, none=True),
        "r0": vector(),
        "max_refactor": integer(0),
        "accelerate": boolean(),
    },
)
def admm(
    problem: FrictionContactProblem,
    tol: float,
    *,
    max_iter: int = 20000,
    rho: float | None = None,
    r0: object = None,
    max_refactor: int = 40,
    accelerate: bool = True,
) -> Raw:
    """ADMM with residual balancing.

    Options
    -------
    max_iter : iterations (default 20000)
    rho : the initial penalty (default: the mean diagonal entry of ``W``)
    r0 : starting reactions (default zero)
    max_refactor : most changes of the penalty (each new value factorises ``W + rho I``; default 40)
    accelerate : Nesterov's extrapolation with restarts (Goldstein, O'Donoghue, Setzer & Baraniuk,
        *Fast alternating direction optimization methods*, 2014; default True)
    """
    r = np.zeros(problem.size) if r0 is None else np.asarray(r0, dtype=float).copy()
    problem, r, k = homogeneous.apply(problem, r)
    raw = _admm(problem, tol, r, max_iter, rho, max_refactor, accelerate)
    raw.x, raw.w = homogeneous.invert(raw.x, k), homogeneous.invert(raw.w, k)
    return raw


def _admm(
    problem: FrictionContactProblem, tol: float, r0, max_iter: int, rho, max_refactor: int, accelerate: bool
) -> Raw:
    W, q, mu, d = problem.W, problem.q, problem.mu, problem.dim
    rho = default_penalty(W) if rho is None else float(rho)
    solve = _factor(W, rho)
    factors = {rho: solve}  # the last penalties' factors: the penalty moves on powers of two, and may come back
    made = 1
    z = project_cones(r0, mu, d)
    b = q + _desaxce_shift(W @ z + q, mu, d)
    # a warm start is a point near a fixed point, where W z + b = -rho xi: start the multiplier there
    xi = -(W @ z + b) / rho if np.any(z) else np.zeros_like(z)
    zh, xih, alpha, c_prev = z, xi, 1.0, np.inf  # the extrapolated point (Goldstein et al. 2014)
    best, best_z, refactors = np.inf, z, 0
    status, msg, it = Status.ITERATION_LIMIT, f"no convergence in {max_iter} iterations", 0
    for it in range(1, max_iter + 1):
        r = solve(rho * (zh - xih) - b)
        z_new = project_cones(r + xih, mu, d)
        xi_new = xih + r - z_new
        if accelerate:
            c = float(np.sum((xi_new - xih) ** 2) + np.sum((z_new - zh) ** 2))
            if c < _RESTART * c_prev:
                alpha_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * alpha * alpha))
                beta = (alpha - 1.0) / alpha_new
                zh, xih, alpha, c_prev = z_new + beta * (z_new - z), xi_new + beta * (xi_new - xi), alpha_new, c
            else:  # restart from the last iterate
                zh, xih, alpha, c_prev = z, xi, 1.0, c_prev / _RESTART
        else:
            zh, xih = z_new, xi_new
        z_prev, z, xi = z, z_new, xi_new
        b = q + _desaxce_shift(W @ z + q, mu, d)
        if it % _CHECK_EVERY == 0 or it == max_iter:
            value = problem._certify(z, None)[0].value
            if value < best:
                best, best_z = value, z.copy()
            if value <= tol:
                status, msg = Status.SOLVED, "converged"
                break
            primal = float(np.linalg.norm(r - z))
            dual = rho * float(np.linalg.norm(z - z_prev))
            if refactors < max_refactor and (primal > _BALANCE * dual or dual > _BALANCE * primal):
                factor = 2.0 if primal > dual else 0.5
                rho *= factor
                xi /= factor  # the scaled multiplier is y / rho
                zh, xih, alpha, c_prev = z, xi, 1.0, np.inf
                solve = factors.pop(rho, None)
                if solve is None:
                    solve = _factor(W, rho)
                    made += 1
                factors[rho] = solve  # the most recent last
                while len(factors) > _KEEP_FACTORS:  # a drifting penalty keeps no pile of factors
                    del factors[next(iter(factors))]
                refactors += 1
    u = W @ best_z + q
    stats = {"rho": rho, "refactors": refactors, "factorizations": made}
    return Raw(best_z, status, iterations=it, message=msg, w=u, stats=stats)

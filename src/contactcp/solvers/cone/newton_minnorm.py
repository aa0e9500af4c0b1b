"""Pure semismooth Newton with minimum-norm steps: the Coulomb problems whose answer is decided by
directions that ``W`` nearly annihilates.

The Alart–Curnier iteration of :mod:`.newton` (same ``Phi``, same generalised Jacobian
``J = I - D + D rho W``) globalised by a line search on ``||Phi||^2`` stalls where the data leave
the answer to tiny singular values of ``W``: many contacts on one body give ``W`` rank 6, and a
perturbation of relative size ``1e-8`` (a slightly non-symmetric ``W``, as in real data) makes it
nonsingular with singular values of that size.  Points that solve the unperturbed problem then
have residuals near ``1e-8``, the solution of the problem as given lies far away along the nearly
annihilated directions (by a distance of the size of ``r`` itself), and every step towards it
first changes contact modes and raises ``||Phi||``, so the line search refuses it.

This method takes full steps, each the minimum-norm least-squares solution of ``J dr = -Phi``
(LAPACK's SVD-based ``gelsd``, which keeps singular values down to rounding level), and keeps the
best point: a local semismooth Newton method that crosses modes freely, and converges in one or
two steps once it lands on the solution's modes (each piece of ``Phi`` is nearly linear).  It
restarts from zero and with ``rho`` ten times smaller and larger when a run does not finish.  On the fuzz's 10
non-symmetric planted problems that the default chain left at 1.6e-9 to 1e-8 it solved 9 (from
the chain's best point or from zero, 6 to 74 steps).  Dense ``J``: problems up to
:data:`MAX_SIZE` unknowns.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from contactcp.problems import FrictionContactProblem
from contactcp.result import Status
from contactcp.solvers.cone import scale as homogeneous
from contactcp.solvers.cone.kernels import ac_phi_D
from contactcp.solvers.cone.newton import default_rho
from contactcp.solvers.registry import Raw, integer, register, vector

__all__ = ["MAX_SIZE", "newton_minnorm"]

#: the dense Jacobian and its SVD cost O(n^3) per step: larger problems are left to the other methods
MAX_SIZE = 300
#: the runs: (start, factor on rho), each for ``max_iter`` steps
_RUNS = (("r0", 1.0), ("r0", 0.1), ("r0", 10.0), ("zero", 1.0), ("zero", 0.1), ("zero", 10.0))


def _jacobian(W: np.ndarray, D: np.ndarray, rho: np.ndarray, d: int) -> np.ndarray:
    """``I - D + D rho W`` (``D`` block-diagonal, blocks ``(n_c, d, d)``), dense."""
    n_c = D.shape[0]
    n = n_c * d
    J = np.einsum("ijk,ikl->ijl", D * rho[:, None, None], W.reshape(n_c, d, n)).reshape(n, n)
    for i in range(n_c):
        s = slice(i * d, (i + 1) * d)
        J[s, s] += np.eye(d) - D[i]
    return J


def _applies(problem: FrictionContactProblem) -> str:
    return "" if problem.size <= MAX_SIZE else f"{problem.size} unknowns exceed {MAX_SIZE} (dense SVD steps)"


@register(
    "newton-minnorm",
    FrictionContactProblem,
    options={"max_iter": integer(1), "r0": vector()},
    applies=_applies,
    description="pure semismooth Newton (Alart–Curnier), minimum-norm full steps, restarts",
)
def newton_minnorm(problem: FrictionContactProblem, tol: float, *, max_iter: int = 80, r0: object = None) -> Raw:
    """Full semismooth Newton steps ``dr = -J^+ Phi`` from ``r0`` and from zero, each with ``rho``,
    ``rho / 10`` and ``10 rho`` (see the module docstring); the best point of the runs (the start
    itself when it is within ``tol``).  At most ``6 max_iter`` SVD steps: about 7 s at 300 unknowns.

    Options
    -------
    max_iter : steps per run (six runs at most, three without ``r0``)
    r0 : starting reactions (default zero; the default chain passes its best point)
    """
    start = np.zeros(problem.size) if r0 is None else r0.copy()
    problem, start, k = homogeneous.apply(problem, start)
    W = problem.W.toarray() if problem.sparse else np.asarray(problem.W)
    q, mu, d = problem.q, problem.mu, problem.dim
    rho0 = default_rho(problem)
    best_r, best_v, steps = start, problem.residual(start).value, 0
    if best_v <= tol:
        return Raw(homogeneous.invert(start, k), Status.SOLVED, 0, "the start is within tol")
    for which, factor in _RUNS:
        if which == "r0" and r0 is None:
            continue
        r = start.copy() if which == "r0" else np.zeros(problem.size)
        rho = rho0 * factor
        for _ in range(max_iter):
            u = W @ r + q
            if not (np.all(np.isfinite(u)) and np.all(np.isfinite(r))):
                break  # the iterate left the float range: no SVD of NaN
            phi, D = ac_phi_D(r, u, mu, rho, d, True)
            try:
                dr = sla.lstsq(_jacobian(W, D, rho, d), -phi, lapack_driver="gelsd", check_finite=False)[0]
            except (ValueError, np.linalg.LinAlgError):
                break
            if not np.all(np.isfinite(dr)):
                break
            r = r + dr
            steps += 1
            v = problem.residual(r).value
            if v < best_v:
                best_r, best_v = r, v
            if v <= tol:
                return Raw(homogeneous.invert(r, k), Status.SOLVED, steps, f"converged ({which} start, rho x {factor})")
    return Raw(
        homogeneous.invert(best_r, k),
        Status.ITERATION_LIMIT,
        steps,
        f"no run converged in {max_iter} steps (best residual {best_v:.2e})",
    )

"""Semismooth Newton method on the Alart–Curnier function for the Coulomb-cone problem.

With ``u = W r + q`` and ``y_i = r_i - rho_i u_i`` per contact (``rho_i > 0``),

    ``Phi_N = r_N - max(0, y_N)``,
    ``Phi_T = r_T - P_{D(mu max(0, y_N))}(y_T)``          (Alart & Curnier 1991)

where ``P_{D(R)}`` projects on the disc of radius ``R``.  ``Phi(r) = 0`` is
Coulomb's law with Signorini's condition.  Each iteration solves
``(I - D + D rho W) dr = -Phi`` with ``D`` the block-diagonal generalised
Jacobian of the projections, then backtracks on ``||Phi||^2 / 2`` (Armijo).
Rows whose ``D`` row is zero (separating contacts, the tangential rows of a
frictionless contact) read ``dr = -Phi`` and are eliminated, so only the other
rows enter the factorisation: dense LU (in single precision with
double-precision iterative refinement, as LAPACK's ``dsgesv``, falling back to
double precision), preconditioned GMRES for large dense systems, or SuperLU
when ``W`` is sparse.  Without a starting point the iteration starts after a
few non-smooth Gauss–Seidel sweeps from zero.

The numpy function :func:`alart_curnier` is the readable reference of
``Phi`` and ``D``; the iteration uses the compiled kernels of
:mod:`._fc_kernels`, tested against it.

Every answer is checked by :class:`~contactcp.problems.FrictionContactProblem`'s
own residual (the natural map of De Saxcé's form, not this function).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.linalg import lapack

from contactcp.linalg.sparse_lu import factorize
from contactcp.problems import FrictionContactProblem
from contactcp.result import Status
from contactcp.solvers.cone import scale as homogeneous
from contactcp.solvers.cone.kernels import (
    abs_row_sums,
    ac_merit,
    ac_phi_D,
    desaxce_residual,
    reduced_newton_apply,
    reduced_newton_system,
    residual_scale,
    sparse_newton_system,
)
from contactcp.solvers.cone.kernels import (
    sweeps as gs_sweeps,
)
from contactcp.solvers.registry import Raw, choice, integer, real, register, vector


def default_rho(problem: FrictionContactProblem) -> np.ndarray:
    """``rho_i = 1 / sqrt(mean diag(W_ii) * rms row norm of contact i's rows of W)``.

    The diagonal block alone ignores the coupling between contacts: with many
    contacts on one light object ``W`` has a large low-rank part, and the
    diagonal scaling makes the Alart–Curnier iteration cycle (n_c = 1000 in the
    friction benchmark); the row norm alone is too cautious on weakly coupled
    problems.  Their geometric mean converged in 6–9 iterations on both.
    """
    d = problem.dim
    W = problem.W
    if problem.sparse:
        sq = np.asarray(W.multiply(W).sum(axis=1)).reshape(-1)
        diag = W.diagonal()
    else:
        sq = np.einsum("ij,ij->i", W, W)
        diag = np.diag(W)
    rms = np.sqrt(sq.reshape(-1, d).sum(axis=1) / d)
    dg = np.abs(diag).reshape(-1, d).sum(axis=1) / d
    scale = np.sqrt(rms * np.maximum(dg, 1e-12 * rms))
    pos = scale[scale > 0]
    floor = pos.mean() * 1e-8 if pos.size else 1.0
    return 1.0 / np.maximum(scale, floor)


def alart_curnier(r: np.ndarray, u: np.ndarray, mu: np.ndarray, rho: np.ndarray, d: int, jacobian: bool = True):
    """``Phi(r)`` and the blocks ``D_i = dP/dy`` (shape ``(n_c, d, d)``) of the projection."""
    R = r.reshape(-1, d)
    Y = R - rho[:, None] * u.reshape(-1, d)
    yn = Y[:, 0]
    yt = Y[:, 1:]
    pn = np.maximum(yn, 0.0)
    rad = mu * pn
    nt = np.sqrt(np.einsum("ij,ij->i", yt, yt))
    out = nt > rad
    scale = np.ones_like(nt)
    np.divide(rad, nt, out=scale, where=out)
    P = np.empty_like(Y)
    P[:, 0] = pn
    P[:, 1:] = yt * scale[:, None]
    phi = (R - P).reshape(-1)
    if not jacobian:
        return phi, None
    n_c = R.shape[0]
    D = np.zeros((n_c, d, d))
    act = yn > 0
    D[act, 0, 0] = 1.0
    eye_t = np.eye(d - 1)
    inside = ~out
    D[:, 1:, 1:] = eye_t[None] * np.where(inside, 1.0, scale)[:, None, None]
    if out.any():
        e = np.zeros_like(yt)
        np.divide(yt, nt[:, None], out=e, where=(nt > 0)[:, None])
        D[out, 1:, 1:] -= scale[out, None, None] * np.einsum("ij,ik->ijk", e[out], e[out])
        D[out & act, 1:, 0] = mu[out & act, None] * e[out & act]
    return phi, D


GMRES_ABOVE = 400
#: ``_newton``'s ``stall`` test: the residual must have fallen below this fraction of its start
_STALL_FACTOR = 0.5


def _gmres_step(
    W: np.ndarray,
    rows: np.ndarray,
    Da: np.ndarray,
    rho_a: np.ndarray,
    eye_minus_D: np.ndarray,
    rhs: np.ndarray,
    d: int,
    forcing: float,
) -> np.ndarray | None:
    """Inexact Newton step by GMRES with the 3x3 block-diagonal of the Newton matrix as preconditioner.

    A product with the Newton matrix costs one product with ``W`` (no copy of
    its active block), against the ``O(m^3)`` of an LU factorisation.
    """
    m = W.shape[0]
    na = rows.size // d
    DrW = Da * rho_a[:, None, None]
    Wdiag = W[rows[:, None], rows.reshape(na, d)[:, None, :].repeat(d, axis=1).reshape(-1, d)]
    blocks = eye_minus_D + np.einsum("ijk,ikl->ijl", DrW, Wdiag.reshape(na, d, d))
    try:
        inv = np.linalg.inv(blocks)
    except np.linalg.LinAlgError:
        return None
    full = np.zeros(m)

    def matvec(x: np.ndarray) -> np.ndarray:
        full[rows] = x
        wx = (W @ full)[rows].reshape(na, d)
        X = x.reshape(na, d)
        return (np.einsum("ijk,ik->ij", eye_minus_D, X) + np.einsum("ijk,ik->ij", DrW, wx)).reshape(-1)

    A = spla.LinearOperator((rows.size, rows.size), matvec=matvec, dtype=float)
    P = spla.LinearOperator(
        (rows.size, rows.size), matvec=lambda x: np.einsum("ijk,ik->ij", inv, x.reshape(na, d)).reshape(-1), dtype=float
    )
    x, info = spla.gmres(A, rhs, M=P, rtol=forcing, atol=0.0, restart=60, maxiter=5)
    if info != 0 or not np.all(np.isfinite(x)):
        return None
    return x


def _newton_step(
    W,
    sparse: bool,
    phi: np.ndarray,
    D: np.ndarray,
    rho: np.ndarray,
    r: np.ndarray,
    d: int,
    linear: str = "auto",
    wabs: np.ndarray | None = None,
    single: list | None = None,
) -> np.ndarray | None:
    """Solve ``(I - D + D rho W) dr = -phi``, eliminating the rows with ``D = 0``.

    Dense ``W``: LU of the reduced system (rows whose ``D`` row is zero are
    solved trivially, see :func:`reduced_newton_system`), or preconditioned
    GMRES (inexact Newton, forcing term ``min(0.1, ||phi||^0.5)``) when more
    than ``GMRES_ABOVE`` rows of active contacts remain (``linear="auto"``),
    falling back to LU if GMRES does not converge.
    """
    if sparse:
        return _sparse_step(W, phi, D, rho, d)
    n_c = D.shape[0]
    active = np.abs(D).reshape(n_c, -1).max(axis=1) > 0
    if not (linear == "gmres" or (linear == "auto" and d * np.count_nonzero(active) > GMRES_ABOVE)):
        return _lu_step(W, D, rho, phi, d, wabs, single)
    dr = -phi.copy()
    if not active.any():
        return dr
    rows = (np.flatnonzero(active)[:, None] * d + np.arange(d)).reshape(-1)
    sep = (np.flatnonzero(~active)[:, None] * d + np.arange(d)).reshape(-1)
    Da = D[active]
    rho_a = rho[active]
    rhs = -phi[rows]
    if sep.size:
        coupling = W[np.ix_(rows, sep)] @ dr[sep]
        coupling = np.asarray(coupling).reshape(-1, d)
        rhs -= np.einsum("ijk,ik->ij", Da, rho_a[:, None] * coupling).reshape(-1)
    eye_minus_D = np.eye(d)[None] - Da
    forcing = float(min(0.1, np.sqrt(np.linalg.norm(phi))))
    step = _gmres_step(W, rows, Da, rho_a, eye_minus_D, rhs, d, max(forcing, 1e-12))
    if step is None:
        return _lu_step(W, D, rho, phi, d, wabs, single)
    if not np.all(np.isfinite(step)):
        return None
    dr[rows] = step
    return dr


def _sparse_step(W: sp.csr_matrix, phi: np.ndarray, D: np.ndarray, rho: np.ndarray, d: int) -> np.ndarray | None:
    """The Newton step for a sparse ``W``: the system built in CSR form by the compiled
    :func:`~contactcp.solvers.cone.kernels.sparse_newton_system` (separating contacts eliminated),
    factorised by SuperLU; None when the matrix is singular."""
    rows, indptr, indices, data, rhs, dr = sparse_newton_system(W.indptr, W.indices, W.data, D, rho, phi, d)
    if rows.size:
        J = sp.csr_matrix((data, indices, indptr), shape=(rows.size, rows.size)).tocsc()
        try:
            step = factorize(J)(rhs)
        except RuntimeError:
            return None
        dr[rows] = step
    return dr if np.all(np.isfinite(dr)) else None


SINGLE_ABOVE = 96


def _lu_step(
    W: np.ndarray,
    D: np.ndarray,
    rho: np.ndarray,
    phi: np.ndarray,
    d: int,
    wabs: np.ndarray | None = None,
    single: list | None = None,
) -> np.ndarray | None:
    """Dense Newton step on the reduced system (compiled :func:`reduced_newton_system`).

    Above ``SINGLE_ABOVE`` rows, mixed precision as LAPACK's ``dsgesv``: LU
    in single precision (``sgetrf``, about twice as fast as ``dgetrf``), then
    iterative refinement with double-precision residuals (computed with ``W``,
    see :func:`reduced_newton_apply`) until
    ``||rhs - J x||_inf <= ||x||_inf ||J||_inf eps sqrt(n)``, the backward error
    of a double-precision LU.  If the refinement stalls (``J`` too
    ill-conditioned for single precision) or the single-precision factor is
    singular: the double-precision LU (:func:`_lu_solve`), which is then used
    for the rest of the solve (``single`` is a one-element list holding that
    choice across iterations).  When the double-precision LU is singular too
    (redundant contacts make ``W`` singular): the Levenberg–Marquardt step
    ``(J^T J + delta I)^-1 J^T rhs``.
    """
    if wabs is None:
        wabs = abs_row_sums(W)
    if single is None:
        single = [True]
    if single[0] and phi.size > SINGLE_ABOVE:
        keep, J32, rhs, dr, jnorm = reduced_newton_system(W, D, rho, phi, d, np.empty(phi.size**2, np.float32), wabs)
        n = keep.size
        if n == 0:
            return dr if np.all(np.isfinite(dr)) else None
        if n > SINGLE_ABOVE:
            step = _refined_single(J32, rhs, jnorm, W, D, rho, keep, d, dr.size)
            if step is not None:
                dr[keep] = step
                return dr if np.all(np.isfinite(dr)) else None
            single[0] = False
    keep, J, rhs, dr, _ = reduced_newton_system(W, D, rho, phi, d, np.empty(phi.size**2), wabs)
    if keep.size == 0:
        return dr if np.all(np.isfinite(dr)) else None
    step = _lu_solve(J, rhs)
    if step is None:
        # J was overwritten by the factorisation: rebuild it (rare)
        _, J, rhs, _, _ = reduced_newton_system(W, D, rho, phi, d, np.empty(phi.size**2), wabs)
        step = _lm_solve(J, rhs)
        if step is None:
            return None
    dr[keep] = step
    return dr if np.all(np.isfinite(dr)) else None


def _refined_single(
    J32: np.ndarray,
    rhs: np.ndarray,
    jnorm: float,
    W: np.ndarray,
    D: np.ndarray,
    rho: np.ndarray,
    keep: np.ndarray,
    d: int,
    m: int,
) -> np.ndarray | None:
    """``sgetrf`` of ``J32^T`` (overwritten) and iterative refinement (see :func:`_lu_step`);
    None when the factor is singular or the refinement stalls."""
    n = keep.size
    with np.errstate(over="ignore", invalid="ignore"):
        lu32, piv32, info = lapack.sgetrf(J32.T, overwrite_a=1)
        if info != 0 or not np.isfinite(jnorm):
            return None
        dg = np.abs(np.diagonal(lu32))
        if not dg.min() > 1e-5 * dg.max():
            return None
        x = np.zeros(m)
        res = rhs
        prev = np.inf
        bound = jnorm * _EPS * np.sqrt(n)
        for _ in range(10):
            dx, info = lapack.sgetrs(lu32, piv32, res.astype(np.float32), trans=1)
            x[keep] += dx
            res = rhs - reduced_newton_apply(W @ x, x, D, rho, keep, d)
            nr = float(np.abs(res).max())
            if nr <= float(np.abs(x).max()) * bound:
                return x[keep]
            if not nr < 0.5 * prev:
                return None
            prev = nr
    return None


_EPS = float(np.finfo(float).eps)


def _lu_solve(J: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
    """Solve ``J x = rhs`` (``J`` C-ordered, overwritten): LAPACK ``dgetrf`` of the
    Fortran-ordered view ``J^T`` (no copy), ``dgetrs`` with the transpose.  None when
    a pivot is below ``1e-12`` times the largest."""
    lu, piv, info = lapack.dgetrf(J.T, overwrite_a=1)
    dg = np.abs(np.diagonal(lu))
    if info < 0 or not dg.min() > 1e-12 * max(dg.max(), 1e-300):
        return None
    x, info = lapack.dgetrs(lu, piv, rhs, trans=1)
    return x if info == 0 else None


def _lm_solve(J: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
    JtJ = J.T @ J
    delta = 1e-10 * max(float(np.abs(np.diag(JtJ)).max()), 1e-300)
    try:
        return sla.solve(JtJ + delta * np.eye(J.shape[0]), J.T @ rhs, assume_a="pos")
    except np.linalg.LinAlgError:
        return None


@register(
    "newton",
    FrictionContactProblem,
    default=True,
    options={
        "max_iter": integer(1),
        "rho": vector("scalar_or_n_c", positive=True),
        "r0": vector(),
        "armijo": real(0.0, 0.5, lo_open=True, hi_open=True),
        "linear": choice("auto", "lu", "gmres"),
        "sweeps": integer(0),
    },
    description="semismooth Newton on the Alart–Curnier function, Armijo line search",
)
def newton_ac(
    problem: FrictionContactProblem,
    tol: float,
    *,
    max_iter: int = 100,
    rho: object = None,
    r0: object = None,
    armijo: float = 1e-4,
    linear: str = "auto",
    sweeps: int = 4,
) -> Raw:
    """Semismooth Newton (Alart–Curnier).

    Options
    -------
    max_iter : Newton iterations (default 100)
    rho : per-contact penalty (scalar or ``(n_c,)``; default :func:`default_rho`)
    r0 : starting reactions (default: ``sweeps`` Gauss–Seidel sweeps from zero)
    armijo : sufficient-decrease constant of the line search
    sweeps : without ``r0``, the Newton iteration starts after
        this many non-smooth Gauss–Seidel sweeps from zero
        (:func:`~contactcp.solvers.cone.kernels.gauss_seidel_sweeps`, each costing
        one product with ``W``), kept only if they lower the residual; they saved
        1.5 to 3 Newton iterations on the random states of the friction benchmark
        (0 = start from zero)
    linear : Newton systems by ``"lu"``, ``"gmres"`` (dense W) or ``"auto"`` (GMRES above
        ``GMRES_ABOVE`` active rows)
    """
    if rho is None:
        rho_v = default_rho(problem)
    else:
        rho_v = rho.copy()
    r = np.zeros(problem.size) if r0 is None else r0.copy()
    problem, r, k = homogeneous.apply(problem, r)
    raw = _newton(problem, tol, max_iter, rho, rho_v, r0 is None, r, armijo, linear, sweeps)
    raw.x, raw.w = homogeneous.invert(raw.x, k), homogeneous.invert(raw.w, k)
    return raw


def _newton(
    problem: FrictionContactProblem,
    tol: float,
    max_iter: int,
    rho: object,
    rho_v: np.ndarray,
    cold: bool,
    r: np.ndarray,
    armijo: float,
    linear: str,
    sweeps: int,
    stall: int = 0,
) -> Raw:
    """The iteration of :func:`newton`; with ``stall > 0`` it stops (ITERATION_LIMIT, "stalled") when
    ``stall`` iterations have not halved the residual it started from: a semismooth Newton iteration
    that converges does so superlinearly, one that crawls under its line search is better restarted
    by its caller (the proximal method, with a larger weight)."""
    d, mu, W, q = problem.dim, problem.mu, problem.W, problem.q
    sparse = problem.sparse
    wabs = None if sparse else abs_row_sums(W)
    single = [True]  # single-precision LU with refinement until it fails once
    qscale = float(residual_scale(q))
    u = W @ r + q
    if cold and sweeps:
        start = r.copy()
        gs_sweeps(W, q, mu, start, d, int(sweeps), 5, np.zeros(mu.shape[0]), 0.0)
        u_start = W @ start + q
        if desaxce_residual(start, u_start, mu, d) < desaxce_residual(r, u, mu, d):
            r, u = start, u_start
    it = 0
    status, msg = Status.ITERATION_LIMIT, f"no convergence in {max_iter} iterations"
    ls_fail = 0
    best, since_best, shrinks, stalled = np.inf, 0, 0, False
    for it in range(1, max_iter + 1):
        # the problem's own measure (FrictionContactProblem.residual), compiled
        res = desaxce_residual(r, u, mu, d) / qscale
        if res <= tol:
            status, msg = Status.SOLVED, "converged"
            it -= 1
            break
        if it == 1:
            start = res
        elif stall and it > stall and not res <= _STALL_FACTOR * start:
            msg, stalled = f"stalled: {stall} iterations did not halve the residual", True
            it -= 1
            break
        if res < 0.5 * best:
            best, since_best = res, 0
        else:
            since_best += 1
            if since_best >= 6 and shrinks < 3 and rho is None:
                # the semismooth iteration cycles: a smaller penalty damps the projections
                rho_v = rho_v * 0.1
                shrinks += 1
                since_best = 0
                ls_fail = 0
        phi, D = ac_phi_D(r, u, mu, rho_v, d, True)
        theta = 0.5 * phi @ phi
        dr = _newton_step(W, sparse, phi, D, rho_v, r, d, linear, wabs, single)
        if dr is None:
            status, msg = Status.NUMERICAL_FAILURE, "singular Newton matrix"
            break
        du = W @ dr
        t = 1.0
        while ac_merit(r, u, dr, du, t, mu, rho_v, d) > (1 - 2 * armijo * t) * theta and t >= 1e-10:
            t *= 0.5
        if t < 1e-10:
            ls_fail += 1
            if ls_fail > 5:
                status, msg = Status.STATIONARY_NOT_SOLUTION, "line search failed repeatedly"
                break
        r, u = r + t * dr, u + t * du
    else:
        if problem._certify(r, None)[0].value <= tol:
            status, msg = Status.SOLVED, "converged"
    stats = {"rho": float(np.mean(rho_v)), "rho_shrinks": shrinks, "stalled": stalled}
    return Raw(r, status, iterations=it, message=msg, w=u, stats=stats)

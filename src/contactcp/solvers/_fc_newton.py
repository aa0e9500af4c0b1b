"""Semismooth Newton method on the Alart–Curnier function for the Coulomb-cone problem.

With ``u = W r + q`` and ``y_i = r_i - rho_i u_i`` per contact (``rho_i > 0``),

    ``Phi_N = r_N - max(0, y_N)``,
    ``Phi_T = r_T - P_{D(mu max(0, y_N))}(y_T)``          (Alart & Curnier 1991)

where ``P_{D(R)}`` projects on the disc of radius ``R``.  ``Phi(r) = 0`` is
Coulomb's law with Signorini's condition.  Each iteration solves
``(I - D + D rho W) dr = -Phi`` with ``D`` the block-diagonal generalised
Jacobian of the projections, then backtracks on ``||Phi||^2 / 2`` (Armijo).
Contacts whose ``y_N <= 0`` (separating) have ``D_i = 0``; their step is
``dr_i = -r_i`` and they are eliminated, so only the active contacts enter the
factorisation (dense LU, or SuperLU when ``W`` is sparse).

Every answer is checked by :class:`~contactcp.problems.FrictionContactProblem`'s
own residual (the natural map of De Saxcé's form, not this function).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .._registry import Raw, register
from ..errors import InvalidOptionError
from ..problems import FrictionContactProblem
from ..result import Status
from ._fc_kernels import ac_phi_D, desaxce_residual, newton_matrix


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


def alart_curnier(r: np.ndarray, u: np.ndarray, mu: np.ndarray, rho: np.ndarray, d: int,
                  jacobian: bool = True):
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


def _gmres_step(W: np.ndarray, rows: np.ndarray, Da: np.ndarray, rho_a: np.ndarray, eye_minus_D: np.ndarray,
                rhs: np.ndarray, d: int, forcing: float) -> np.ndarray | None:
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
    P = spla.LinearOperator((rows.size, rows.size),
                            matvec=lambda x: np.einsum("ijk,ik->ij", inv, x.reshape(na, d)).reshape(-1),
                            dtype=float)
    x, info = spla.gmres(A, rhs, M=P, rtol=forcing, atol=0.0, restart=60, maxiter=5)
    if info != 0 or not np.all(np.isfinite(x)):
        return None
    return x


def _newton_step(W, sparse: bool, phi: np.ndarray, D: np.ndarray, rho: np.ndarray, r: np.ndarray,
                 d: int, linear: str = "auto") -> np.ndarray | None:
    """Solve ``(I - D + D rho W) dr = -phi``, eliminating contacts with ``D_i = 0``.

    Dense ``W``: LU, or preconditioned GMRES (inexact Newton, forcing term
    ``min(0.1, ||phi||^0.5)``) when more than ``GMRES_ABOVE`` rows are active
    (``linear="auto"``), falling back to LU if GMRES does not converge.
    """
    n_c = D.shape[0]
    active = np.abs(D).reshape(n_c, -1).max(axis=1) > 0
    dr = -phi.copy()
    if not active.any():
        return dr
    rows = (np.flatnonzero(active)[:, None] * d + np.arange(d)).reshape(-1)
    sep = (np.flatnonzero(~active)[:, None] * d + np.arange(d)).reshape(-1)
    Da = D[active]
    rho_a = rho[active]
    rhs = -phi[rows]
    if sep.size:
        coupling = W[rows][:, sep] @ dr[sep] if sparse else W[np.ix_(rows, sep)] @ dr[sep]
        coupling = np.asarray(coupling).reshape(-1, d)
        rhs -= np.einsum("ijk,ik->ij", Da, rho_a[:, None] * coupling).reshape(-1)
    na = rows.size // d
    eye_minus_D = np.eye(d)[None] - Da
    if sparse:
        Waa = W[rows][:, rows].tocsr()
        blockD = sp.block_diag([Da[i] * rho_a[i] for i in range(na)], format="csr")
        blockI = sp.block_diag(list(eye_minus_D), format="csr")
        J = (blockI + blockD @ Waa).tocsc()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                step = spla.splu(J).solve(rhs)
        except RuntimeError:
            return None
    else:
        step = None
        if linear == "gmres" or (linear == "auto" and rows.size > GMRES_ABOVE):
            forcing = float(min(0.1, np.sqrt(np.linalg.norm(phi))))
            step = _gmres_step(W, rows, Da, rho_a, eye_minus_D, rhs, d, max(forcing, 1e-12))
            if step is not None:
                dr[rows] = step
                return dr
        J = newton_matrix(W, D, rho, np.flatnonzero(active), d)
        step = _dense_solve(J, rhs)
        if step is None:
            return None
    if not np.all(np.isfinite(step)):
        return None
    dr[rows] = step
    return dr


def _dense_solve(J: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
    """LU solve; when ``J`` is singular (redundant contacts make ``W`` singular), the
    Levenberg–Marquardt step ``(J^T J + delta I)^-1 J^T rhs`` instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sla.LinAlgWarning)
        lu, piv = sla.lu_factor(J, check_finite=False, overwrite_a=False)
    dg = np.abs(np.diag(lu))
    if dg.min() > 1e-12 * max(dg.max(), 1e-300):
        return sla.lu_solve((lu, piv), rhs, check_finite=False)
    JtJ = J.T @ J
    delta = 1e-10 * max(float(np.abs(np.diag(JtJ)).max()), 1e-300)
    try:
        return sla.solve(JtJ + delta * np.eye(J.shape[0]), J.T @ rhs, assume_a="pos")
    except np.linalg.LinAlgError:
        return None


@register("newton", FrictionContactProblem, default=True,
          description="semismooth Newton on the Alart–Curnier function, Armijo line search")
def newton_ac(problem: FrictionContactProblem, tol: float, *, max_iter: int = 100, rho: object = None,
              r0: object = None, armijo: float = 1e-4, linear: str = "auto") -> Raw:
    """Semismooth Newton (Alart–Curnier).

    Options
    -------
    max_iter : Newton iterations (default 100)
    rho : per-contact penalty (scalar or ``(n_c,)``; default ``d / trace(W_ii)``)
    r0 : starting reactions (default zero)
    armijo : sufficient-decrease constant of the line search
    linear : Newton systems by ``"lu"``, ``"gmres"`` (dense W) or ``"auto"`` (GMRES above
        ``GMRES_ABOVE`` active rows)
    """
    if linear not in ("auto", "lu", "gmres"):
        raise InvalidOptionError("linear", f"must be 'auto', 'lu' or 'gmres', got {linear!r}")
    if not isinstance(max_iter, int) or max_iter < 1:
        raise InvalidOptionError("max_iter", f"must be a positive integer, got {max_iter!r}")
    d, mu, W, q = problem.dim, problem.mu, problem.W, problem.q
    n_c = problem.n_c
    if rho is None:
        rho_v = default_rho(problem)
    else:
        rho_v = np.broadcast_to(np.asarray(rho, dtype=float), (n_c,)).copy()
        if not np.all(np.isfinite(rho_v)) or (rho_v <= 0).any():
            raise InvalidOptionError("rho", "must be positive and finite")
    r = np.zeros(problem.size) if r0 is None else np.asarray(r0, dtype=float).reshape(-1).copy()
    if r.shape != (problem.size,) or not np.all(np.isfinite(r)):
        raise InvalidOptionError("r0", f"must be a finite vector of length {problem.size}")
    sparse = problem.sparse
    u = W @ r + q
    it = 0
    status, msg = Status.ITERATION_LIMIT, f"no convergence in {max_iter} iterations"
    ls_fail = 0
    best, since_best, shrinks = np.inf, 0, 0
    nq = float(np.linalg.norm(q))
    qscale = nq if nq > np.finfo(float).tiny else 1.0
    for it in range(1, max_iter + 1):
        # the problem's own measure (FrictionContactProblem.residual), compiled
        res = desaxce_residual(r, u, mu, d) / qscale
        if res <= tol:
            status, msg = Status.SOLVED, "converged"
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
        dr = _newton_step(W, sparse, phi, D, rho_v, r, d, linear)
        if dr is None:
            status, msg = Status.NUMERICAL_FAILURE, "singular Newton matrix"
            break
        du = W @ dr
        t = 1.0
        while True:
            rn, un = r + t * dr, u + t * du
            pn, _ = ac_phi_D(rn, un, mu, rho_v, d, False)
            if 0.5 * pn @ pn <= (1 - 2 * armijo * t) * theta or t < 1e-10:
                break
            t *= 0.5
        if t < 1e-10:
            ls_fail += 1
            if ls_fail > 5:
                status, msg = Status.STATIONARY_NOT_SOLUTION, "line search failed repeatedly"
                break
        r, u = rn, un
    else:
        if problem._certify(r, None)[0].value <= tol:
            status, msg = Status.SOLVED, "converged"
    return Raw(r, status, iterations=it, message=msg, w=u,
               stats={"rho": float(np.mean(rho_v)), "rho_shrinks": shrinks})

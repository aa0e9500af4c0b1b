"""A small three-dimensional step's impulse problem and position correction in one compiled call
(for :func:`~contactcp.simulate.stepping.moreau_jean.advance`'s ``_advance_local``).

The arithmetic of :func:`~contactcp.simulate.stepping.moreau_jean.advance` for a step posed in
local form (:func:`~contactcp.simulate.stepping.impulses.solve_impulses`), given ``M^-1 H`` for
all its contacts:

1. :func:`~.impact_kernels.step_start` (``u_k``, ``a_N``, impact times, the active set, ``u*``);
2. ``W = H_a^T M^-1 H_a`` (symmetrised as there), ``q = H_a^T v_free + w``, the last step's
   impulses as the start, and the warm NSGS (:func:`~contactcp.solvers.cone.nsgs_kernels.
   nsgs_measured`, the sweeps and the problem's own measure of its answer, as
   :func:`~contactcp.solvers.cone.nsgs.direct` runs them);
3. ``v_{k+1} = v_free + M^-1 H_a r``, ``u = H^T v_{k+1}``, the position step, and the hit
   contacts' least-squares correction (:func:`~.impact_kernels.small_lstsq`).

It answers :data:`DONE` only when the measure certifies the point (``<= tol``); otherwise
:data:`GENERAL`, and the step is taken by the general path (which then solves the problem by
Newton and the chain): no start from the last step, data outside the range the measure is
evaluated in unscaled, more than :data:`~contactcp.simulate.stepping.impulses.LOCAL_UP_TO`
unknowns, NSGS not certified, or more than 16 hit contacts.

:func:`local_advance` wraps :func:`local_step` with what the stepper does around it in the same
call: a robot's mass matrix factored, the contacts' modes, and the motion to ``q_{k+1}``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from contactcp.linalg.dense_kernels import cholesky, cholesky_solve, cholesky_solve_columns
from contactcp.simulate.stepping.free_motion import integrate_joints, transported
from contactcp.simulate.stepping.impact_kernels import impact_targets, off_target, small_lstsq, step_start
from contactcp.simulate.stepping.mode_kernels import contact_modes
from contactcp.solvers.cone.nsgs_kernels import nsgs_measured

__all__ = ["local_advance", "local_step", "DONE", "GENERAL", "NOT_POSITIVE"]

DONE, GENERAL, NOT_POSITIVE = 0, 1, 2
#: the scaling range of :mod:`~contactcp.solvers.cone.scale` (``LIMIT``), the exponent of ``max |q|``
_LIMIT = 300
#: the most hit contacts corrected here (above: ``sla.lstsq`` with ``gelsy`` in the general path)
_HITS = 16

_NO_INT = np.zeros(0, dtype=np.int32)
_NO_BLOCKS = np.zeros((0, 2), dtype=np.int64)
_NO_FLOAT = np.zeros(0)


@njit(cache=True, nogil=True)
def local_advance(
    M, f, H, acc, MinvH, v, h, gap, e, mu, R0, warm, options, tol, counts, frames, slip_tol,
    q, qpos, vpos, vq, vv, move, L_out, work, need_out,
):  # fmt: skip
    """:func:`local_step`, the contacts' modes
    (:func:`~contactcp.simulate.stepping.mode_kernels.contact_modes`) and the motion in one call.
    ``M`` is factored here when it is given (a robot's mass matrix: ``L`` by
    :func:`~contactcp.linalg.dense_kernels.cholesky`, then ``acc = M^-1 f`` and ``M^-1 H``), else
    (``M`` empty) ``acc`` and ``MinvH`` are as given.  With ``move`` (the system's joints are free
    bodies, revolute and prismatic: ``qpos``, ``vpos``, ``vq``, ``vv`` as
    :func:`~contactcp.simulate.stepping.free_motion.integrate_joints` takes them), a certified step
    whose projection needs no gap LCP is also taken: ``q1 = q (+) step (+) dq`` and the end velocity
    carried to its axes, as the system's ``integrate`` and ``transport`` do.

    Returns ``(code, active, r, u1, modes, slide, world, projected, residual, sweeps, moved, q1,
    v_end)``; what the caller reads only within the step is written instead (a returned array costs
    a numba call about 0.4 us): ``L`` into ``L_out`` (when ``M`` is given), ``acc``, ``v1``,
    ``step`` and ``dq`` into the rows of ``work`` (4, nv), ``need`` into ``need_out[:n]``.  ``code``
    :data:`NOT_POSITIVE` when ``M`` is not positive definite to rounding."""
    n = H.shape[1] // 3
    if M.shape[0]:
        L, positive = cholesky(M)
        if not positive:
            none = np.zeros((n, 3))
            off, modes = np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.int8)
            return NOT_POSITIVE, off, none, none, modes, none, none, False, np.inf, 0, False, q, v
        L_out[:, :] = L
        acc = cholesky_solve(L, f)
        MinvH = cholesky_solve_columns(L, H)
    code, active, r, v1, u1, step, dq, projected, need, residual, sweeps = local_step(
        H, MinvH, v, acc, h, gap, e, mu, R0, warm, options, tol, counts
    )
    work[0], work[1], work[2], work[3] = acc, v1, step, dq
    need_out[:n] = need
    modes, slide, world = contact_modes(r, u1, frames, 3, mu, active, slip_tol)
    q1, v_end, moved = q, v1, False
    if move and code == DONE and not (projected and np.any(need < -options[5])):
        q1 = integrate_joints(q, step, qpos, vpos, vq, vv)
        v_end = transported(step, v1, vpos)
        if projected:
            q1 = integrate_joints(q1, dq, qpos, vpos, vq, vv)
            v_end = transported(dq, v_end, vpos)
        moved = True
    return code, active, r, u1, modes, slide, world, projected, residual, sweeps, moved, q1, v_end


@njit(cache=True, nogil=True)
def local_step(H, MinvH, v, acc, h, gap, e, mu, R0, warm, options, tol, counts):
    """The step (module docstring): ``H``, ``MinvH`` (nv, 3 n), ``v``, ``acc = M^-1 f``, the
    contacts' ``gap``, ``e``, ``mu``, the last impulses ``R0`` (n, 3) where ``warm``; ``options``
    ``(theta, gamma, activation_gap, impact_timing, projection, projection_tol)``, ``counts``
    ``(max unknowns, sweeps, local iterations, Anderson pairs)``.  Returns ``(code, active, r (n, 3),
    v1, u1 (n, 3), step, dq, projected, need, residual, sweeps)``; ``need`` the gaps' shortfall
    after the hit correction, ``g_pred + H_N^T dq - g*``."""
    theta, gamma, activation_gap, impact_timing, projection, projection_tol = options
    nv, m = H.shape
    n = m // 3
    timing = impact_timing > 0.5
    uk, a, tau, u_imp, active, u_star = step_start(H, v, acc, gap, e, h, 3, gamma, activation_gap, timing, _NO_BLOCKS)
    v_free = v + h * acc
    r = np.zeros((n, 3))
    v1 = v_free.copy()
    u1 = np.zeros((n, 3))
    step = np.zeros(nv)
    dq = np.zeros(nv)
    need = np.zeros(n)
    residual, done, projected = 0.0, 0, False
    idx = np.flatnonzero(active)
    if idx.shape[0]:
        ok, residual, done = _impulses(H, MinvH, v_free, u_star, mu, R0, warm, idx, tol, counts, r, v1)
        if not ok:
            return GENERAL, active, r, v1, u1, step, dq, projected, need, residual, done
    for i in range(nv):
        step[i] = h * (theta * v1[i] + (1.0 - theta) * v[i])
    for c in range(m):
        u1[c // 3, c % 3] = _dot_column(H, c, v1)
    if projection > 0.5 and n:
        g_pred = gap + h * (theta * u1[:, 0] + (1.0 - theta) * uk[:, 0])
        hit, target = impact_targets(e, a, tau, u_imp, r[:, 0].copy(), h)
        hits = np.flatnonzero(hit)
        if hits.shape[0] or np.any(g_pred < -projection_tol):
            projected = True
            if hits.shape[0] > _HITS:
                return GENERAL, active, r, v1, u1, step, dq, projected, need, residual, done
            if off_target(hits, target, g_pred, projection_tol):
                _hit_correction(H, MinvH, hits, target, g_pred, dq)
            need = g_pred - target
    return DONE, active, r, v1, u1, step, dq, projected, need, residual, done


@njit(cache=True, nogil=True)
def _dot_column(A, c, x):
    """``A[:, c] . x``."""
    s = 0.0
    for i in range(A.shape[0]):
        s += A[i, c] * x[i]
    return s


@njit(cache=True, nogil=True)
def _impulses(H, MinvH, v_free, u_star, mu, R0, warm, idx, tol, counts, r, v1):
    """The active contacts' (``idx``) problem by the warm NSGS (module docstring, 2), ``r`` and ``v1``
    filled when certified: ``(certified, residual, sweeps)``."""
    max_unknowns, sweeps, local_iter, anderson = counts
    na = idx.shape[0]
    k = 3 * na
    if k > max_unknowns:
        return False, np.inf, 0
    cols = np.empty(k, dtype=np.int64)
    for x in range(k):
        cols[x] = 3 * idx[x // 3] + x % 3
    W = np.empty((k, k))
    for x in range(k):
        for y in range(k):
            s = 0.0
            for i in range(H.shape[0]):
                s += H[i, cols[x]] * MinvH[i, cols[y]]
            W[x, y] = s
    W = 0.5 * (W + W.T)
    q = np.empty(k)
    ra = np.zeros(k)
    started, qmax, finite = False, 0.0, True
    for x in range(k):
        j = idx[x // 3]
        q[x] = _dot_column(H, cols[x], v_free) - (u_star[j] if x % 3 == 0 else 0.0)
        if not np.isfinite(q[x]):
            finite = False
        qmax = max(qmax, abs(q[x]))
        if warm[j]:
            ra[x] = R0[j, x % 3]
            started = True
    mu_a = mu[idx].copy()
    finite = finite and np.all(np.isfinite(W))
    if not (started and finite and abs(math.frexp(qmax)[1]) <= _LIMIT):
        return False, np.inf, 0
    status, done, measure = nsgs_measured(
        _NO_INT, _NO_INT, _NO_FLOAT, W, False, q, mu_a, ra, 3, sweeps, local_iter, tol, False, anderson, mu_a.max()
    )
    if not measure[1] <= tol:
        return False, measure[1], done
    for x in range(k):
        r[idx[x // 3], x % 3] = ra[x]
        for i in range(v1.shape[0]):
            v1[i] += MinvH[i, cols[x]] * ra[x]
    return True, measure[1], done


@njit(cache=True, nogil=True)
def _hit_correction(H, MinvH, hits, target, g_pred, dq):
    """The hit contacts to their target gaps (module docstring, 3): ``dq`` the least mass-weighted
    correction (least squares on ``W_hh``, symmetrised as in the general path), ``g_pred`` moved
    by it, both in place."""
    nh, nv = hits.shape[0], H.shape[0]
    A = np.empty((nh, nh))
    for x in range(nh):
        for y in range(nh):
            s = 0.0
            for i in range(nv):
                s += H[i, 3 * hits[x]] * MinvH[i, 3 * hits[y]]
            A[x, y] = s
    A = 0.5 * (A + A.T)
    b = np.empty(nh)
    for x in range(nh):
        b[x] = target[hits[x]] - g_pred[hits[x]]
    lam = small_lstsq(A, b)
    for x in range(nh):
        for i in range(nv):
            dq[i] += MinvH[i, 3 * hits[x]] * lam[x]
    for j in range(g_pred.shape[0]):
        g_pred[j] += _dot_column(H, 3 * j, dq)

"""A large three-dimensional step of free bodies in one compiled call (for
:func:`~contactcp.simulate.stepping.moreau_jean.advance`'s ``_advance_global``).

The arithmetic of :func:`~contactcp.simulate.stepping.moreau_jean.advance` when its impulse problem
is posed in global form (more than :data:`~contactcp.simulate.stepping.impulses.LOCAL_UP_TO`
active unknowns) on free bodies (a constant block-diagonal mass matrix, each contact's columns of
``H`` on its bodies' rows: ``blocks``), the same kernels in the same order, so the same bits:

1. :func:`~.impact_kernels.step_start` (``u_k``, ``a_N``, impact times, the active set, ``u*``);
2. the impulse problem as :func:`~contactcp.solvers.cone.newton_global_direct.prepare` poses it
   (``H``'s active columns in CSR form, :func:`~contactcp.problems._coulomb_global.blocks_to_csr`;
   ``w`` shifted by ``H^T v_free``; ``q``, ``||q||``), the warm global Newton
   (:func:`~contactcp.solvers.cone.newton_islands.island_newton`, the defaults of
   :meth:`~contactcp.solvers.cone.newton_global_direct.Prepared.newton`), the velocity by the
   mass matrix's block inverses as :meth:`~contactcp.linalg.blockinv.BlockSolver.solve` computes
   it, and the problem's own certified measure
   (:func:`~contactcp.problems._coulomb_global.global_residual`);
3. the position step, ``u_{k+1}``, the contacts' modes, and the projection's first part: the hit
   contacts' correction by groups (:func:`~.hit_kernels.grouped_hit_correction`) and each
   contact's remaining shortfall ``need``.

It answers :data:`DONE` only when the Newton stopped solved and the measure certifies its point
(``<= tol``); otherwise :data:`GENERAL`, and the general path takes the step from its start (its
retries, the registry's chain): fewer active unknowns than the global form's least, a start that
is not finite, an ``H`` with a non-finite entry, a reduced matrix that is not a band, a Newton that
did not certify, or a hit contact's ``M^-1`` rows that reach another body.  When some contact still
falls short after the hit correction, the gap LCP's global Newton runs here too (:func:`gap_global`,
the general path's :func:`~contactcp.simulate.stepping.moreau_jean._gap_global`); only when that is
not certified here (``lcp``) does the caller solve it, by the general path's code
(:func:`~contactcp.simulate.stepping.moreau_jean._lcp_correction`, from ``need`` and ``dq``), and
move the bodies.  Otherwise the motion to ``q_{k+1}`` is taken here, as the system's
``integrate`` and ``transport`` take it.  On 500 steps of a 25-box pile (a script,
``process_time`` a step, the trajectory the same to the bit) a step took 0.58 ms instead of 0.72
(landing 0.94 instead of 1.20, at rest 0.30 instead of 0.39): the Python between these kernels had
cost about as much as the kernels themselves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from contactcp.problems._coulomb_global import blocks_to_csr, global_residual, transpose_matvec
from contactcp.simulate.stepping.free_motion import integrate_joints, transported
from contactcp.simulate.stepping.hit_kernels import grouped_hit_correction
from contactcp.simulate.stepping.impact_kernels import impact_targets, off_target, step_start, transpose_times
from contactcp.simulate.stepping.mode_kernels import contact_modes
from contactcp.solvers.cone.kernels import residual_scale
from contactcp.solvers.cone.newton_global_loop import SOLVED
from contactcp.solvers.cone.newton_islands import island_newton
from contactcp.solvers.cone.woodbury_kernels import csr_matvec

__all__ = [
    "global_advance",
    "global_impulses",
    "gap_global",
    "gap_newton",
    "newton_certified",
    "far_open",
    "block_solve",
    "DONE",
    "GENERAL",
]

DONE, GENERAL = 0, 1

_NO_VECTOR = np.zeros(0)


@njit(cache=True, nogil=True)
def block_solve(small, has_small, diag_rows, diag, b):
    """``M^-1 b`` as :meth:`~contactcp.linalg.blockinv.BlockSolver.solve` computes it for a matrix of
    one-entry and small blocks: the small blocks' inverses (one CSR matrix, ``has_small``) times
    ``b``, row by row in order, then each one-entry block's row ``b_i / M_ii``."""
    out = csr_matvec(small[0], small[1], small[2], b) if has_small else np.empty(b.shape[0])
    for k in range(diag_rows.shape[0]):
        i = diag_rows[k]
        out[i] = b[i] / diag[k]
    return out


@njit(cache=True, nogil=True)
def newton_certified(H, blocks, cols, shift, w, mu, d, r, tol, eps, rho_scale, mass, newton):
    """One global problem on ``H``'s columns ``cols`` as :func:`~contactcp.solvers.cone.
    newton_global_direct.prepare` poses it (``w`` shifted by ``H[:, cols]^T shift`` when ``shift``
    is not empty; ``w`` is changed), :meth:`~contactcp.solvers.cone.newton_global_direct.Prepared.
    newton` from ``r`` (proximal term ``eps``, ``rho`` times ``rho_scale``), the velocity by the
    block inverses and the problem's certified measure: ``(outcome, v, r, residual, iterations)``,
    ``outcome`` 0 when the Newton stopped solved (``residual`` the measure, inf when not finite), 1
    when it stopped otherwise, a column of ``H`` is not finite or the band path does not apply.
    ``newton``: ``(max_iter, eps (unused: given apart), eps_floor, armijo, memory, flops)``;
    ``mass``: ``(M_csr, inv, most entries in a row of M, small, has_small, diag_rows, diag)``."""
    M_csr, inv, m_most, small, has_small, diag_rows, diag = mass
    nv = H.shape[0]
    Hp, Hi, Hx, finite, row_most, column_most, Htv = blocks_to_csr(H, cols, 1, shift, blocks, 3)
    if not finite:
        return 1, np.zeros(nv), r, np.inf, 0
    if shift.shape[0]:
        for x in range(w.shape[0]):
            w[x] += Htv[x]
    f = np.zeros(nv)
    q = transpose_matvec(Hp, Hi, Hx, f, w)
    max_iter, _, eps_floor, armijo, memory, flops = newton
    r, u, outcome, its, shrinks, discarded = island_newton(
        (Hp, Hi, Hx), M_csr, inv, q, mu, d, r, residual_scale(q), tol, int(max_iter), eps, eps_floor, armijo,
        int(memory), flops, rho_scale,
    )  # fmt: skip
    if outcome != SOLVED:
        return 1, np.zeros(nv), r, np.inf, its
    b = csr_matvec(Hp, Hi, Hx, r)
    for i in range(nv):
        b[i] += f[i]
    v = block_solve(small, has_small, diag_rows, diag, b)
    terms = (max(m_most, 1) + max(row_most, 1) + 2, column_most + 2)
    mu_max = 0.0
    for x in range(mu.shape[0]):
        mu_max = max(mu_max, mu[x])
    xs = np.concatenate((v, r))
    ok, value = global_residual(*M_csr, Hp, Hi, Hx, xs, f, w, q, mu, d, mu_max, terms[0], terms[1])[:2]
    return 0, v, r, (value if ok else np.inf), its


@njit(cache=True, nogil=True)
def global_impulses(H, blocks, active, u_star, v_free, mu, R0, warm, tol, newton, mass):
    """The impulse problem of the active contacts in global form (module docstring, 2,
    :func:`newton_certified`): ``(certified, r (n, 3), v1, residual, iterations)``."""
    n, nv = active.shape[0], v_free.shape[0]
    idx = np.flatnonzero(active)
    k = 3 * idx.shape[0]
    R = np.zeros((n, 3))
    cols = np.empty(k, dtype=np.int64)
    w = np.zeros(k)
    r = np.zeros(k)
    mu_a = np.empty(idx.shape[0])
    started = False
    for x in range(k):
        j = idx[x // 3]
        cols[x] = 3 * j + x % 3
        started = started or warm[j]
    for x in range(idx.shape[0]):
        w[3 * x] = -u_star[idx[x]]
        mu_a[x] = mu[idx[x]]
    if started:
        for x in range(k):
            r[x] = R0[idx[x // 3], x % 3]
            if not np.isfinite(r[x]):
                return False, R, v_free, np.inf, 0
    outcome, dv, r, value, its = newton_certified(
        H, blocks, cols, v_free, w, mu_a, 3, r, tol, newton[1], 1.0, mass, newton
    )
    if outcome or not value <= tol:
        return False, R, v_free, value, its
    for x in range(k):
        R[idx[x // 3], x % 3] = r[x]
    v1 = np.empty(nv)
    for i in range(nv):
        v1[i] = v_free[i] + dv[i]
    return True, R, v1, value, its


@njit(cache=True, nogil=True)
def gap_newton(H, blocks, need, which, tol, eps, mass, newton):
    """The position projection's problem of the contacts ``which`` in global form, one normal column
    a contact (:func:`~contactcp.simulate.stepping.moreau_jean._gap_newton`: ``rho`` twice the
    registry's, ``eps`` the proximal term), by :func:`newton_certified` from zero: ``(outcome, dq,
    residual)`` as there."""
    k = which.shape[0]
    cols = np.empty(k, dtype=np.int64)
    w = np.empty(k)
    for x in range(k):
        cols[x] = 3 * which[x]
        w[x] = need[which[x]]
    outcome, dq, _, value, _ = newton_certified(
        H, blocks, cols, _NO_VECTOR, w, np.zeros(k), 1, np.zeros(k), tol, eps, 2.0, mass, newton
    )
    return outcome, dq, value


@njit(cache=True, nogil=True)
def far_open(H, blocks, need, far, dq, d):
    """Whether every contact ``far`` (a mask) stays open after the correction ``dq``:
    ``need_j + (H_N^T dq)_j > 0``, ``H_N`` every ``d``-th column of ``H``, ``H_N^T dq`` summed by
    rows in order (:func:`~.impact_kernels.transpose_times`: on each contact's rows of ``blocks``,
    or on every row when ``blocks`` is empty)."""
    moved = transpose_times(H, blocks, dq, _NO_VECTOR, d)[0]
    for j in range(need.shape[0]):
        if far[j] and not need[j] + moved[d * j] > 0.0:
            return False
    return True


@njit(cache=True, nogil=True)
def gap_global(H, blocks, need, tol, reach, retry_eps, mass, newton):
    """:func:`~contactcp.simulate.stepping.moreau_jean._gap_global` (the contacts within reach first,
    the others checked open, then all, then all with ``retry_eps``): ``(outcome, dq, residual)``,
    ``outcome`` 0 when solved and certified, 1 when some Newton stopped otherwise or none
    certified (the general path's code then takes the whole projection, its statuses and chain)."""
    n = need.shape[0]
    worst = 0.0
    for j in range(n):
        worst = max(worst, -need[j])
    near = np.flatnonzero(need <= reach * worst)
    if near.shape[0] < n:
        outcome, dq, value = gap_newton(H, blocks, need, near, tol, newton[1], mass, newton)
        if outcome:
            return 1, dq, value
        if value <= tol:
            far = np.ones(n, dtype=np.bool_)
            far[near] = False
            if far_open(H, blocks, need, far, dq, 3):
                return 0, dq, value
    everyone = np.arange(n)
    outcome, dq, value = gap_newton(H, blocks, need, everyone, tol, newton[1], mass, newton)
    if outcome == 0 and not value <= tol:
        outcome, dq, value = gap_newton(H, blocks, need, everyone, tol, retry_eps, mass, newton)
    return (0 if outcome == 0 and value <= tol else 1), dq, value


@njit(cache=True, nogil=True)
def global_advance(
    H, blocks, v, acc, h, gap, e, mu, R0, warm, options, tol, least, newton, mass, frames, slip_tol,
    q, qpos, vpos, vq, vv, gap_options,
):  # fmt: skip
    """The step (module docstring): ``(code, active, r (n, 3), u1 (n, 3), modes, slide, world,
    residual, iterations, projected, lcp, q1, v_end, need, dq, projection residual)``.
    ``options``: ``(theta, gamma, activation_gap, impact_timing, projection, projection_tol)``;
    ``least``: the most unknowns the local form takes
    (:data:`~contactcp.simulate.stepping.impulses.LOCAL_UP_TO`: a step with no more active ones is
    the general path's); ``newton``, ``mass``: :func:`newton_certified`'s; ``gap_options``: the gap
    LCP's ``(tol, reach, retry eps)`` (:func:`gap_global`).  ``q1``, ``v_end`` are the step's end
    but when ``lcp``: then the gap LCP was not certified here, ``q1`` and ``v_end`` are the motion
    by the position step alone, and the caller's general code solves it from ``need`` and ``dq``."""
    theta, gamma, activation_gap, impact_timing, projection, projection_tol = options
    nv, n = H.shape[0], H.shape[1] // 3
    uk, a, tau, u_imp, active, u_star = step_start(
        H, v, acc, gap, e, h, 3, gamma, activation_gap, impact_timing > 0.5, blocks
    )
    v_free = v + h * acc
    r, v1, residual, its = np.zeros((n, 3)), v_free, 0.0, 0
    need, dq = np.zeros(n), np.zeros(nv)
    count = 0
    for j in range(n):
        count += active[j]
    general = (GENERAL, active, r, r, np.zeros(n, dtype=np.int8), r, r, np.inf, 0, False, False, q, v, need, dq, 0.0)
    if count:
        if 3 * count <= least:
            return general
        ok, r, v1, residual, its = global_impulses(H, blocks, active, u_star, v_free, mu, R0, warm, tol, newton, mass)
        if not ok:
            return general
    step = np.empty(nv)
    for i in range(nv):
        step[i] = h * (theta * v1[i] + (1.0 - theta) * v[i])
    q1 = integrate_joints(q, step, qpos, vpos, vq, vv)
    u1 = transpose_times(H, blocks, v1, _NO_VECTOR, 3)[0].reshape(n, 3)
    modes, slide, world = contact_modes(r, u1, frames, 3, mu, active, slip_tol)
    projected, lcp = False, False
    if projection > 0.5 and n:
        g_pred = gap + h * (theta * u1[:, 0] + (1.0 - theta) * uk[:, 0])
        hit, target = impact_targets(e, a, tau, u_imp, r[:, 0], h)
        hits = np.flatnonzero(hit)
        if hits.shape[0] or np.any(g_pred < -projection_tol):
            projected = True
            if off_target(hits, target, g_pred, projection_tol):
                inv = mass[1]
                dq, ok = grouped_hit_correction(H, blocks, inv[0], inv[1], inv[2], hits, target[hits] - g_pred[hits], 3)
                if not ok:
                    return general
                g_pred = g_pred + transpose_times(H, blocks, dq, _NO_VECTOR, 3)[0][::3]
            need = g_pred - target
            lcp = np.any(need < -projection_tol)
    gap_residual = 0.0
    if lcp:
        gap_tol, reach, retry_eps = gap_options
        outcome, dl, gap_residual = gap_global(H, blocks, need, gap_tol, reach, retry_eps, mass, newton)
        if outcome == 0:
            lcp = False
            dq = dq + dl
    v_end = transported(step, v1, vpos)
    if projected and not lcp:
        q1 = integrate_joints(q1, dq, qpos, vpos, vq, vv)
        v_end = transported(dq, v_end, vpos)
    return DONE, active, r, u1, modes, slide, world, residual, its, projected, lcp, q1, v_end, need, dq, gap_residual

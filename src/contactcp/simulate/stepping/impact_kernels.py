"""The impact timing of a Moreau–Jean step, contact by contact, compiled
(:func:`~contactcp.simulate.stepping.moreau_jean.impact_time` and the step's normal and gap
targets): the same arithmetic as the array formulas they replace, in the same order, one compiled
call each instead of a dozen array operations on a few contacts."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from contactcp.linalg.dense_kernels import cholesky, cholesky_solve
from contactcp.problems._coulomb_global import contact_sides

__all__ = [
    "impact_times",
    "normal_targets",
    "impact_targets",
    "off_target",
    "small_lstsq",
    "step_start",
    "transpose_times",
]


@njit(cache=True, nogil=True)
def impact_times(g, u, a, h):
    """``(tau, u_imp)`` of :func:`~contactcp.simulate.stepping.moreau_jean.impact_time`."""
    n = g.shape[0]
    tau = np.empty(n)
    u_imp = np.empty(n)
    for j in range(n):
        gj = g[j] if g[j] > 0.0 else 0.0
        uj, aj = u[j], a[j]
        tj = h
        disc = uj * uj - 2.0 * aj * gj
        ok = disc >= 0
        root = math.sqrt(disc) if ok else 0.0
        den = -uj + root
        if den > 0:
            t1 = 2.0 * gj / den
        elif aj < 0:
            t1 = (uj + root) / -aj
        else:
            t1 = np.inf
        if ok and gj == 0 and uj <= 0:
            t1 = 0.0
        if ok and t1 >= 0 and t1 <= h:
            tj = t1
        tau[j] = tj
        u_imp[j] = uj + aj * tj
    return tau, u_imp


@njit(cache=True, nogil=True)
def normal_targets(e, u0, a, tau, u_imp, h):
    """The least normal velocities ``u*_j`` at the end of the step with impact timing
    (:mod:`~contactcp.simulate.stepping.moreau_jean`, step 3): for a contact closing at ``tau``
    within the step, ``max(0, -e u_imp + a (h - tau))``, the rebound at the impact, then free
    motion; else Siconos' ``-e u_N(v_k)``."""
    n = e.shape[0]
    out = np.empty(n)
    for j in range(n):
        if tau[j] < h and u_imp[j] < 0:
            x = -e[j] * u_imp[j] + a[j] * (h - tau[j])
            out[j] = 0.0 if x < 0.0 else x
        else:
            out[j] = -e[j] * u0[j]
    return out


@njit(cache=True, nogil=True)
def impact_targets(e, a, tau, u_imp, r_n, h):
    """``(hit, target gap)`` of the contacts that closed within the step with an impulse."""
    n = e.shape[0]
    hit = np.zeros(n, dtype=np.bool_)
    target = np.zeros(n)
    for j in range(n):
        if r_n[j] > 0 and tau[j] < h and u_imp[j] < 0:
            hit[j] = True
            rest = h - tau[j]
            x = -e[j] * u_imp[j] * rest + 0.5 * a[j] * rest * rest
            target[j] = 0.0 if x < 0.0 else x
    return hit, target


@njit(cache=True, nogil=True)
def off_target(hits, target, g_pred, tol):
    """Whether some hit contact's predicted gap is more than ``tol`` from its target (else the
    correction is skipped: at rest, every contact is hit and within rounding of its target)."""
    for j in hits:
        if abs(target[j] - g_pred[j]) > tol:
            return True
    return False


@njit(cache=True, nogil=True)
def small_lstsq(A, b):
    """A least-squares solution of ``A x = b`` (``A`` square, symmetric positive semi-definite: the
    hit contacts' ``W_hh``): by Cholesky's factorisation when every pivot ``L_aa^2`` exceeds
    :data:`_PIVOT` times ``A``'s largest diagonal entry (``A`` positive definite and far from
    singular: the solution is unique, found to about ``cond(A) eps``), else by LAPACK's SVD-based
    ``gelsd`` with numpy's default cut-off (singular values below ``n eps`` of the largest count as
    zero), what ``np.linalg.lstsq(A, b, rcond=None)`` computes (a contact redundant with others: a
    box's fourth corner on a plane).  One compiled call either way (the Python wrapper of
    ``lstsq`` was 40 of the 57 microseconds a three-contact position projection took; ``gelsd``
    alone is 3 of a grasp step's microseconds, Cholesky's 0.1)."""
    n = A.shape[0]
    L, positive = cholesky(A)
    if positive:
        big = 0.0
        for a in range(n):
            big = max(big, A[a, a])
        for a in range(n):
            if not L[a, a] * L[a, a] > _PIVOT * big:
                positive = False
        if positive:
            return cholesky_solve(L, b)
    return np.linalg.lstsq(A, b, rcond=n * 2.220446049250313e-16)[0]


#: :func:`small_lstsq`'s least pivot, relative to the largest diagonal entry, for Cholesky's answer
_PIVOT = 1e-8


@njit(cache=True, nogil=True)
def transpose_times(H, blocks, v, acc, d):
    """``(H^T v, a)``, ``a`` the normal rows (every ``d``-th) of ``H^T acc`` (``acc`` empty: none).
    With ``blocks`` (``(n, 2)``: each contact's two sides' first of 6 velocity rows, -1 for none;
    :class:`~contactcp.simulate.stepping.systems.StepContacts`), a contact's columns are read on
    those rows only, else (``blocks`` empty) on every row.  Each column's sum runs over its rows
    in increasing order either way, and the rows left out hold zeros that add nothing: the same
    bits (the rows of a 25-box pile's H are 12 of 150)."""
    nv, m = H.shape
    n = m // d
    u = np.zeros(m)
    a = np.zeros(n if acc.shape[0] else 0)
    if blocks.shape[0] != n or n == 0:
        # H read by rows, as it is stored; each column's sum still runs over i in order
        for i in range(nv):
            vi = v[i]
            for c in range(m):
                u[c] += H[i, c] * vi
            if acc.shape[0]:
                ai = acc[i]
                for j in range(n):
                    a[j] += H[i, j * d] * ai
        return u, a
    for j in range(n):
        for b in contact_sides(blocks, j):
            if b < 0:
                continue
            for i in range(b, b + 6):
                vi = v[i]
                for k in range(d):
                    u[j * d + k] += H[i, j * d + k] * vi
                if acc.shape[0]:
                    a[j] += H[i, j * d] * acc[i]
    return u, a


@njit(cache=True, nogil=True)
def step_start(H, v, acc, gap, e, h, d, gamma, activation_gap, impact_timing, blocks):
    """What a step reads of its contacts before its impulse problem
    (:func:`~contactcp.simulate.stepping.moreau_jean.advance`, steps 2 and 3), in one call:
    ``(u_k (n, d), a_N, tau, u_imp, active, u*)``, ``u_k = H^T v`` by contact, ``a_N`` the normal
    rows of ``H^T acc`` (:func:`transpose_times`, ``blocks`` as there), ``(tau, u_imp)`` by
    :func:`impact_times`, ``active`` Siconos' rule ``g + gamma h u_N <= activation_gap`` or
    (``impact_timing``) closing within the step in free motion, and the least normal velocities
    ``u*`` at the end of the step: ``-e u_N`` (Siconos), or with ``impact_timing``
    :func:`normal_targets`."""
    n = H.shape[1] // d
    u, a = transpose_times(H, blocks, v, acc, d)
    uk = u.reshape(n, d)
    u0 = uk[:, 0].copy()
    tau, u_imp = impact_times(gap, u0, a, h)
    active = np.empty(n, dtype=np.bool_)
    for j in range(n):
        active[j] = gap[j] + gamma * h * u0[j] <= activation_gap or (impact_timing and tau[j] < h and u_imp[j] < 0)
    if impact_timing:
        u_star = normal_targets(e, u0, a, tau, u_imp, h)
    else:
        u_star = -e * u0
    return uk, a, tau, u_imp, active, u_star

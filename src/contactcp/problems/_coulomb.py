"""Compiled per-contact arithmetic of the friction-contact residual (one pass over the contacts
instead of a dozen numpy calls: the measure of a one-contact problem in microseconds).

:func:`coulomb_parts` computes, for ``r`` and ``u`` (already scaled into range), what
:meth:`contactcp.problems.FrictionContactProblem.residual` reports: the 2-norm of the natural map
``r - P_K(r - u - mu ||u_T|| e_N)``, the violations of ``r ∈ K`` and of ``u + mu ||u_T|| e_N ∈ K*``,
``|r · (u + mu ||u_T|| e_N)|`` and the 2-norms of ``r`` and ``u``; the numpy functions of
:mod:`contactcp.problems.friction` (``project_cones``, ``desaxce``, ``cone_violation``) are the
readable reference and the tests compare the two.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True, inline="always")
def project_cone(x, mu, d):
    """Project ``x`` (length ``d``, normal first) on ``{||x_T|| <= mu x_N}`` in place.  Inside means
    ``x_N >= 0`` too (which matters when ``mu = 0``)."""
    nt2 = 0.0
    for k in range(1, d):
        nt2 += x[k] * x[k]
    nt = np.sqrt(nt2)
    if x[0] >= 0.0 and nt <= mu * x[0]:
        return
    if mu * nt <= -x[0]:
        for k in range(d):
            x[k] = 0.0
        return
    pn = (mu * nt + x[0]) / (1.0 + mu * mu)
    x[0] = pn
    for k in range(1, d):
        x[k] = mu * pn * x[k] / nt


@njit(cache=True, nogil=True)
def coulomb_parts(r, u, mu, d):
    """``(||natural map||, cone violation, dual violation, |r . uhat|, ||r||, ||u||)`` (unscaled)."""
    nat2 = 0.0
    cone = 0.0
    dual = 0.0
    comp = 0.0
    rr = 0.0
    uu = 0.0
    x = np.empty(d)
    for i in range(mu.shape[0]):
        o = i * d
        m = mu[i]
        ut2 = 0.0
        rt2 = 0.0
        for k in range(1, d):
            ut2 += u[o + k] * u[o + k]
            rt2 += r[o + k] * r[o + k]
        ut = np.sqrt(ut2)
        uhat_n = u[o] + m * ut
        # the natural map: x = r - uhat, projected on the cone
        x[0] = r[o] - uhat_n
        for k in range(1, d):
            x[k] = r[o + k] - u[o + k]
        project_cone(x, m, d)
        for k in range(d):
            diff = r[o + k] - x[k]
            nat2 += diff * diff
        # the violations and the complementarity
        rt = np.sqrt(rt2)
        cone = max(cone, rt - m * r[o], -r[o])
        dual = max(dual, m * ut - uhat_n)
        dot = r[o] * uhat_n
        for k in range(1, d):
            dot += r[o + k] * u[o + k]
        comp += dot
        rr += r[o] * r[o] + rt2
        uu += u[o] * u[o] + ut2
    return np.sqrt(nat2), max(cone, 0.0), max(dual, 0.0), abs(comp), np.sqrt(rr), np.sqrt(uu)


@njit(cache=True, nogil=True)
def scaled_velocity(indptr, indices, data, W, sparse, r, q, k):
    """``(u, r, ||  |W| |r| + |q|  ||_2, ||q||_2, finite)`` for ``r`` and ``q`` scaled by ``2^-k`` (exact), with ``W``
    dense (``W``) or in CSR form (``indptr``, ``indices``, ``data``; ``W`` then unused).

    One pass over ``W``'s entries in row order, as :meth:`FrictionContactProblem._certify` describes:
    ``u = W (2^-k r) + 2^-k q``, and the 2-norm of the row sums of ``|W_ij| |r_j| + |q_i|`` that bounds
    the rounding of ``u``; ``finite`` is False when either overflowed."""
    n = q.shape[0]
    rs = np.empty(n)
    down = math.ldexp(1.0, -k)  # a product by a power of two is the ldexp (both round alike below the
    exact = -1000 < k < 1000  # normal range); only outside that range is ldexp itself called
    for j in range(n):
        rs[j] = r[j] * down if exact else math.ldexp(r[j], -k)
    u = np.empty(n)
    bound2 = 0.0
    q2 = 0.0
    finite = True
    for i in range(n):
        qs = q[i] * down if exact else math.ldexp(q[i], -k)
        q2 += qs * qs
        acc = qs
        aacc = abs(qs)
        if sparse:
            for p in range(indptr[i], indptr[i + 1]):
                t = data[p] * rs[indices[p]]
                acc += t
                aacc += abs(t)
        else:
            for j in range(n):
                t = W[i, j] * rs[j]
                acc += t
                aacc += abs(t)
        u[i] = acc
        bound2 += aacc * aacc
        if not (np.isfinite(acc) and np.isfinite(aacc)):
            finite = False
    return u, rs, np.sqrt(bound2), np.sqrt(q2), finite


_EPS = 2.0**-52


@njit(cache=True, nogil=True)
def coulomb_measure(indptr, indices, data, W, sparse, r, q, mu, d, mu_max):
    """The certified Coulomb measure of :meth:`FrictionContactProblem._certify`, compiled.

    Returns ``(finite, value, nat, cone, dual, comp, nq, k, u)``: the data scaled by ``2^-k`` into range
    (``k`` from the largest entry of ``q`` and ``r``), ``u = W r + q`` and its rounding bound
    (:func:`scaled_velocity`), the parts of the natural map (:func:`coulomb_parts`; ``nat``, ``cone``,
    ``dual``, ``comp``, ``nq`` still scaled by ``2^-k``, ``comp`` by ``2^-2k``), and ``value``, the
    natural map plus the bound of what rounding can change in it, divided by ``||q||`` (absolute when
    ``q = 0``, then scaled by ``2^-k`` too), times ``1 + (2 n + 16) eps`` (the two norms' roundings);
    ``u`` is unscaled.  ``finite`` is
    False when ``r`` is not finite or ``u`` overflowed (``value`` is then inf)."""
    n = q.shape[0]
    big = 0.0
    for i in range(n):
        if not np.isfinite(r[i]):
            return False, np.inf, np.inf, np.inf, np.inf, np.inf, 0.0, 0, np.full(n, np.nan)
        big = max(big, abs(q[i]), abs(r[i]))
    k = math.frexp(big)[1] if big > 0.0 else 0
    us, rs, bound, nq, finite = scaled_velocity(indptr, indices, data, W, sparse, r, q, k)
    if not finite:
        for i in range(n):
            us[i] = math.ldexp(us[i], k)
        return False, np.inf, np.inf, np.inf, np.inf, np.inf, 0.0, k, us
    nat, cone, dual, comp, norm_r, norm_u = coulomb_parts(rs, us, mu, d)
    # an upper bound of what rounding can change: the error of u (a dot product of n terms), times the
    # Lipschitz constant 1 + mu of the natural map in u, plus the map's own few roundings
    gamma = (n + 2) * _EPS / (1.0 - (n + 2) * _EPS)
    slack = (1.0 + mu_max) * gamma * bound + 32.0 * _EPS * (norm_r + (1.0 + mu_max) * norm_u) + 1e-300
    value = (nat + slack) / nq if nq > 0.0 else nat + slack
    up = math.ldexp(1.0, k)
    for i in range(n):
        us[i] = us[i] * up if -1000 < k < 1000 else math.ldexp(us[i], k)
    # the norms are sums of n squares: each can be off by (n + 1) unit roundoffs relative, nat low and
    # ||q|| high, which (2 n + 16) eps covers with the division's and the sum's own roundings
    return True, value * (1.0 + (2 * n + 16) * _EPS), nat, cone, dual, comp, nq, k, us


@njit(cache=True, nogil=True)
def coulomb_residual(indptr, indices, data, W, sparse, r, q, mu, d, mu_max):
    """:func:`coulomb_measure` with its parts scaled back (``ldexp`` by ``k``, to ``inf`` where they overflow):
    ``(finite, value, nat, cone, dual, comp, scale, u)``, the fields of
    :class:`~contactcp.result.Residual` (``scale`` the 2-norm of ``q``, 1 when ``q = 0``; ``value`` then
    absolute).  :meth:`FrictionContactProblem._certify` reads it in one compiled call (the scaling back
    was five Python calls)."""
    finite, value, nat, cone, dual, comp, nq, k, u = coulomb_measure(
        indptr, indices, data, W, sparse, r, q, mu, d, mu_max
    )
    if not finite:
        return False, np.inf, np.inf, np.inf, np.inf, np.inf, 1.0, u
    parts = (math.ldexp(nat, k), math.ldexp(cone, k), math.ldexp(dual, k), math.ldexp(comp, 2 * k))
    if nq > 0.0:
        return True, value, parts[0], parts[1], parts[2], parts[3], math.ldexp(nq, k), u
    return True, math.ldexp(value, k), parts[0], parts[1], parts[2], parts[3], 1.0, u


@njit(cache=True, parallel=True)
def coulomb_measure_batch(W, q, mu, R, d):
    """:func:`coulomb_measure` of ``K`` problems with dense ``W[k]`` at once: ``(values, U)`` (``values``
    scale-free; for ``q[k] = 0`` the absolute value, unscaled)."""
    K, n = q.shape
    values = np.empty(K)
    U = np.empty((K, n))
    none_i = np.zeros(0, dtype=np.int64)
    none_f = np.zeros(0)
    for k in prange(K):
        mu_max = 0.0
        for i in range(mu.shape[1]):
            mu_max = max(mu_max, mu[k, i])
        finite, value, _, _, _, _, nq, e, u = coulomb_measure(
            none_i, none_i, none_f, W[k], False, R[k], q[k], mu[k], d, mu_max
        )
        values[k] = value if (nq > 0.0 or not finite) else math.ldexp(value, e)
        U[k] = u
    return values, U

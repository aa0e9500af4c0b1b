"""Compiled pieces of the semismooth Newton method for the Coulomb-cone problem.

They compute exactly what :func:`contactcp.solvers._fc_newton.alart_curnier`
documents (kept there in numpy as the readable reference, and checked against
these kernels in the tests); compiling them removes the per-iteration Python
overhead that dominated small and medium problems.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def ac_phi_D(r, u, mu, rho, d, want_D):
    """Alart–Curnier ``Phi`` and the projection Jacobian blocks ``D`` (``(n_c, d, d)``)."""
    n_c = mu.shape[0]
    phi = np.empty(n_c * d)
    D = np.zeros((n_c, d, d)) if want_D else np.zeros((0, d, d))
    for i in range(n_c):
        o = i * d
        yn = r[o] - rho[i] * u[o]
        pn = yn if yn > 0.0 else 0.0
        rad = mu[i] * pn
        nt2 = 0.0
        for k in range(1, d):
            yk = r[o + k] - rho[i] * u[o + k]
            nt2 += yk * yk
        nt = np.sqrt(nt2)
        phi[o] = r[o] - pn
        out = nt > rad
        scale = rad / nt if out else 1.0
        for k in range(1, d):
            yk = r[o + k] - rho[i] * u[o + k]
            phi[o + k] = r[o + k] - yk * scale
        if want_D:
            if yn > 0.0:
                D[i, 0, 0] = 1.0
            for k in range(1, d):
                D[i, k, k] = scale
            if out and nt > 0.0:
                for k in range(1, d):
                    ek = (r[o + k] - rho[i] * u[o + k]) / nt
                    for l in range(1, d):
                        el = (r[o + l] - rho[i] * u[o + l]) / nt
                        D[i, k, l] -= scale * ek * el
                    if yn > 0.0:
                        D[i, k, 0] = mu[i] * ek
    return phi, D


@njit(cache=True, nogil=True)
def newton_matrix(W, D, rho, act, d):
    """``I - D + D rho W`` restricted to the active contacts ``act`` (dense).

    Row by row: ``J[(i,k), :] = sum_t rho_i D[i,k,t] W[(i,t), act]``, skipping the
    zero entries of ``D`` (most blocks are diagonal or rank one).
    """
    na = act.shape[0]
    m = na * d
    cols = np.empty(m, dtype=np.int64)
    for b in range(na):
        for l in range(d):
            cols[b * d + l] = act[b] * d + l
    J = np.zeros((m, m))
    for a in range(na):
        i = act[a]
        for k in range(d):
            row = a * d + k
            for t in range(d):
                c = rho[i] * D[i, k, t]
                if c != 0.0:
                    src = i * d + t
                    for col in range(m):
                        J[row, col] += c * W[src, cols[col]]
            for l in range(d):
                J[row, a * d + l] += (1.0 if k == l else 0.0) - D[i, k, l]
    return J


@njit(cache=True, nogil=True)
def desaxce_residual(r, u, mu, d):
    """``||r - P_K(r - u - mu ||u_T|| e_N)||_2`` (unscaled)."""
    n_c = mu.shape[0]
    total = 0.0
    x = np.empty(d)
    for i in range(n_c):
        o = i * d
        ut2 = 0.0
        for k in range(1, d):
            ut2 += u[o + k] * u[o + k]
        x[0] = r[o] - (u[o] + mu[i] * np.sqrt(ut2))
        xt2 = 0.0
        for k in range(1, d):
            x[k] = r[o + k] - u[o + k]
            xt2 += x[k] * x[k]
        nt = np.sqrt(xt2)
        m = mu[i]
        if nt <= m * x[0]:
            pass
        elif m * nt <= -x[0]:
            for k in range(d):
                x[k] = 0.0
        else:
            pn = (m * nt + x[0]) / (1.0 + m * m)
            x[0] = pn
            for k in range(1, d):
                x[k] = m * pn * x[k] / nt
        for k in range(d):
            diff = r[o + k] - x[k]
            total += diff * diff
    return np.sqrt(total)

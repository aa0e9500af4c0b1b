"""Compiled pieces of the global semismooth Newton (:mod:`~contactcp.solvers.cone.newton_global`):
its proximal Newton step reduced to the velocities by the Woodbury identity, on a dense reduced
matrix (``n_v <= DENSE_UP_TO``).  :func:`woodbury_step` assembles ``M + H B H^T`` contact by contact
from ``H`` in CSC form, :func:`woodbury_back` maps the velocities' solution back to the reactions;
the tests check the step against the dense solve of the regularised Newton system, in three and two
dimensions.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def woodbury_step(K0, Hp, Hi, Hx, D, rho, phi, eps, d):
    """The proximal Newton step of :mod:`~contactcp.solvers.cone.newton_global` on a dense reduced matrix.

    With ``A_i = I - (1 - eps) D_i``, ``B_i = A_i^{-1} D_i rho_i`` and ``z_i = -A_i^{-1} phi_i``
    (block by block): ``K = K0 + H B H^T`` (dense, ``K0 = M`` dense)
    and ``rhs = H z``, from ``H`` in CSC form (``Hp``, ``Hi``, ``Hx``).  The step is then
    ``dr = z - B H^T K^{-1} rhs`` (:func:`woodbury_back`).  ``K`` is accumulated contact by contact,
    column pair by column pair of the contact's ``d`` columns of ``H`` (the pairs of bodies a contact
    touches).  Returns ``(K, rhs, B, z, ok)``, ``ok`` False when some ``A_i`` is singular."""
    n_c = phi.shape[0] // d
    n = K0.shape[0]
    K = K0.copy()
    rhs = np.zeros(n)
    B = np.zeros((n_c, d, d))
    z = np.zeros(n_c * d)
    A = np.empty((d, d))
    for i in range(n_c):
        for a in range(d):
            for b in range(d):
                A[a, b] = (1.0 if a == b else 0.0) - (1.0 - eps) * D[i, a, b]
        # A_i = I - (1 - eps) D_i has the zero rows of D as identity rows: Gaussian elimination with
        # partial pivoting on the d x d block (d <= 3), solved for the d + 1 right-hand sides
        R = np.zeros((d, d + 1))
        for a in range(d):
            for b in range(d):
                R[a, b] = D[i, a, b] * rho[i]
            R[a, d] = -phi[i * d + a]
        L = A.copy()
        for c in range(d):
            p = c
            for a in range(c + 1, d):
                if abs(L[a, c]) > abs(L[p, c]):
                    p = a
            if L[p, c] == 0.0:
                return K, rhs, B, z, False
            if p != c:
                for b in range(d):
                    L[c, b], L[p, b] = L[p, b], L[c, b]
                for b in range(d + 1):
                    R[c, b], R[p, b] = R[p, b], R[c, b]
            for a in range(c + 1, d):
                f = L[a, c] / L[c, c]
                if f != 0.0:
                    for b in range(c, d):
                        L[a, b] -= f * L[c, b]
                    for b in range(d + 1):
                        R[a, b] -= f * R[c, b]
        for c in range(d - 1, -1, -1):
            for b in range(d + 1):
                s = R[c, b]
                for a in range(c + 1, d):
                    s -= L[c, a] * R[a, b]
                R[c, b] = s / L[c, c]
        for a in range(d):
            for b in range(d):
                B[i, a, b] = R[a, b]
            z[i * d + a] = R[a, d]
        for k in range(d):
            ca = i * d + k
            zk = z[ca]
            for p in range(Hp[ca], Hp[ca + 1]):
                rhs[Hi[p]] += Hx[p] * zk
            for l in range(d):
                c = B[i, k, l]
                if c == 0.0:
                    continue
                cb = i * d + l
                for p in range(Hp[ca], Hp[ca + 1]):
                    hp = Hx[p] * c
                    row = Hi[p]
                    for s in range(Hp[cb], Hp[cb + 1]):
                        K[row, Hi[s]] += hp * Hx[s]
    return K, rhs, B, z, True


@njit(cache=True, nogil=True)
def woodbury_back(Hp, Hi, Hx, B, z, s, d):
    """``dr = z - B H^T s`` block by block (``H`` in CSC form; see :func:`woodbury_step`)."""
    n_c = z.shape[0] // d
    dr = z.copy()
    t = np.empty(d)
    for i in range(n_c):
        for k in range(d):
            c = i * d + k
            acc = 0.0
            for p in range(Hp[c], Hp[c + 1]):
                acc += Hx[p] * s[Hi[p]]
            t[k] = acc
        for a in range(d):
            acc = 0.0
            for k in range(d):
                acc += B[i, a, k] * t[k]
            dr[i * d + a] -= acc
    return dr


@njit(cache=True, nogil=True)
def w_diagonal(Hp, Hi, Hx, Ip, Ii, Ix, n):
    """The diagonal of ``W = H^T M^{-1} H`` from ``H`` in CSC form and ``M^{-1}`` in CSR form
    (``n`` rows): ``W_jj = sum_{r, s} H_rj (M^{-1})_rs H_sj`` over column ``j``'s entries."""
    m = Hp.shape[0] - 1
    out = np.zeros(m)
    x = np.zeros(n)
    for j in range(m):
        for p in range(Hp[j], Hp[j + 1]):
            x[Hi[p]] = Hx[p]
        acc = 0.0
        for p in range(Hp[j], Hp[j + 1]):
            r = Hi[p]
            for k in range(Ip[r], Ip[r + 1]):
                acc += Hx[p] * Ix[k] * x[Ii[k]]
        out[j] = acc
        for p in range(Hp[j], Hp[j + 1]):
            x[Hi[p]] = 0.0
    return out

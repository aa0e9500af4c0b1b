"""Anderson's extrapolation for fixed-point iterations, compiled (the NSGS sweeps' acceleration).

For a fixed-point map ``G`` with residuals ``f_j = G(x_j) - x_j``, Anderson's method (type II, in the
form of Walker & Ni, *Anderson acceleration for fixed-point iterations*, SIAM J. Numer. Anal. 49, 2011)
takes the next point ``G(x_k) - sum_a gamma_a (G(x_{k-a}) - G(x_{k-a-1}))`` with ``gamma`` minimising
``||f_k - sum_a gamma_a (f_{k-a} - f_{k-a-1})||``.  For the non-smooth Gauss–Seidel map of the Coulomb
problem the sweeps converge linearly where many contacts share a few bodies (rank-deficient ``W``);
near a solution whose contact modes are settled the map is affine, where the extrapolation acts like
GMRES on the linear iteration.  The point is projected on the friction cones; its safeguard is the
caller's (:func:`~contactcp.solvers.cone.nsgs_kernels.nsgs_run`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from contactcp.problems._coulomb import project_cone


@njit(cache=True, nogil=True)
def anderson_candidate(GH, FH, nh, head, mu, d, out):
    """Anderson's extrapolation (type II; Walker & Ni, *Anderson acceleration for fixed-point
    iterations*, SIAM J. Numer. Anal. 2011) from the last ``nh`` pairs ``(G(x_j), f_j = G(x_j) - x_j)``
    of the ring buffers ``GH``, ``FH`` (newest at ``head``): ``G(x_k) - dG gamma`` with ``gamma`` the
    least-squares solution of ``dF gamma = f_k`` (differences of consecutive pairs; normal equations,
    Tikhonov-regularised by 1e-12 of their trace), projected on the cones.  False when the normal
    equations are singular (the pairs carry no new direction)."""
    m1 = GH.shape[0]
    k = nh - 1  # number of differences
    A = np.zeros((k, k))
    b = np.zeros(k)
    n = GH.shape[1]
    newest = head
    for a in range(k):
        ia1 = (head - a + m1) % m1
        ia0 = (head - a - 1 + m1) % m1
        for c in range(a, k):
            ic1 = (head - c + m1) % m1
            ic0 = (head - c - 1 + m1) % m1
            s = 0.0
            for j in range(n):
                s += (FH[ia1, j] - FH[ia0, j]) * (FH[ic1, j] - FH[ic0, j])
            A[a, c] = s
            A[c, a] = s
        s = 0.0
        for j in range(n):
            s += (FH[ia1, j] - FH[ia0, j]) * FH[newest, j]
        b[a] = s
    tr = 0.0
    for a in range(k):
        tr += A[a, a]
    if not (tr > 0.0 and np.isfinite(tr)):
        return False
    for a in range(k):
        A[a, a] += 1e-12 * tr
    # Cholesky of the small k x k system
    L = np.zeros((k, k))
    for a in range(k):
        s = A[a, a]
        for c in range(a):
            s -= L[a, c] * L[a, c]
        if not s > 0.0:
            return False
        L[a, a] = np.sqrt(s)
        for e in range(a + 1, k):
            t = A[e, a]
            for c in range(a):
                t -= L[e, c] * L[a, c]
            L[e, a] = t / L[a, a]
    y = np.zeros(k)
    for a in range(k):
        t = b[a]
        for c in range(a):
            t -= L[a, c] * y[c]
        y[a] = t / L[a, a]
    gamma = np.zeros(k)
    for a in range(k - 1, -1, -1):
        t = y[a]
        for c in range(a + 1, k):
            t -= L[c, a] * gamma[c]
        gamma[a] = t / L[a, a]
    for j in range(n):
        out[j] = GH[newest, j]
    for a in range(k):
        ia1 = (head - a + m1) % m1
        ia0 = (head - a - 1 + m1) % m1
        g = gamma[a]
        for j in range(n):
            out[j] -= g * (GH[ia1, j] - GH[ia0, j])
    for i in range(mu.shape[0]):
        project_cone(out[i * d : (i + 1) * d], mu[i], d)
    for j in range(n):
        if not np.isfinite(out[j]):
            return False
    return True

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

from contactcp.linalg.dense_kernels import cholesky, cholesky_solve
from contactcp.problems._coulomb import project_cone


@njit(cache=True, nogil=True, inline="always")
def _diff_dot(x1, x0, y1, y0):
    """``(x1 - x0) . (y1 - y0)`` in four partial sums (independent chains of additions: the loop runs at
    the adds' throughput, not their latency; the order fixed, so the same on every CPU)."""
    n = x1.shape[0]
    s0, s1, s2, s3 = 0.0, 0.0, 0.0, 0.0
    m = n - n % 4
    for j in range(0, m, 4):
        s0 += (x1[j] - x0[j]) * (y1[j] - y0[j])
        s1 += (x1[j + 1] - x0[j + 1]) * (y1[j + 1] - y0[j + 1])
        s2 += (x1[j + 2] - x0[j + 2]) * (y1[j + 2] - y0[j + 2])
        s3 += (x1[j + 3] - x0[j + 3]) * (y1[j + 3] - y0[j + 3])
    for j in range(m, n):
        s0 += (x1[j] - x0[j]) * (y1[j] - y0[j])
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, nogil=True, inline="always")
def _two_differences(f, f1, f2, A, b):
    """The normal equations of two differences ``d0 = f - f1``, ``d1 = f1 - f2`` (``A = D^T D``, ``b = D^T
    f``) in one pass over the three vectors: five sums, each an independent chain (the default two-pair
    acceleration; five passes of :func:`_diff_dot` took 5.4 us at ``n = 1710``, this one 2.9)."""
    a00, a01, a11, b0, b1 = 0.0, 0.0, 0.0, 0.0, 0.0
    for j in range(f.shape[0]):
        d0 = f[j] - f1[j]
        d1 = f1[j] - f2[j]
        a00 += d0 * d0
        a01 += d0 * d1
        a11 += d1 * d1
        b0 += d0 * f[j]
        b1 += d1 * f[j]
    A[0, 0], A[0, 1], A[1, 0], A[1, 1], b[0], b[1] = a00, a01, a01, a11, b0, b1


@njit(cache=True, nogil=True)
def _normal_equations(FH, k, head):
    """``(A, b)``: ``A = dF^T dF`` and ``b = dF^T f_k`` for the ``k`` differences of consecutive residuals
    in the ring buffer ``FH`` (newest at ``head``)."""
    m1 = FH.shape[0]
    A = np.zeros((k, k))
    b = np.zeros(k)
    if k == 2:
        _two_differences(FH[head], FH[(head - 1 + m1) % m1], FH[(head - 2 + m1) % m1], A, b)
        return A, b
    zero = np.zeros(FH.shape[1])
    for a in range(k):
        x1, x0 = FH[(head - a + m1) % m1], FH[(head - a - 1 + m1) % m1]
        for c in range(a, k):
            A[a, c] = A[c, a] = _diff_dot(x1, x0, FH[(head - c + m1) % m1], FH[(head - c - 1 + m1) % m1])
        b[a] = _diff_dot(x1, x0, FH[head], zero)
    return A, b


@njit(cache=True, nogil=True)
def anderson_candidate(GH, FH, nh, head, mu, d, out):
    """Anderson's extrapolation (type II; Walker & Ni, *Anderson acceleration for fixed-point
    iterations*, SIAM J. Numer. Anal. 2011) from the last ``nh`` pairs ``(G(x_j), f_j = G(x_j) - x_j)``
    of the ring buffers ``GH``, ``FH`` (newest at ``head``): ``G(x_k) - dG gamma`` with ``gamma`` the
    least-squares solution of ``dF gamma = f_k`` (differences of consecutive pairs; normal equations
    (:func:`_normal_equations`), Tikhonov-regularised by 1e-12 of their trace), projected on the cones
    contact by contact as it is formed.  False when the normal equations are singular (the pairs carry
    no new direction) or the point is not finite.  At the Kapla tower's size (``n = 1710``, two
    differences, random pairs): 15.4 -> 10.7 us a call, the normal equations 2.9 us of it (a script,
    best of 7 x 2000)."""
    m1 = GH.shape[0]
    k = nh - 1  # number of differences
    A, b = _normal_equations(FH, k, head)
    tr = 0.0
    for a in range(k):
        tr += A[a, a]
    if not (tr > 0.0 and np.isfinite(tr)):
        return False
    for a in range(k):
        A[a, a] += 1e-12 * tr
    L, positive = cholesky(A)
    if not positive:
        return False
    gamma = cholesky_solve(L, b)
    newest = GH[head]
    for j in range(out.shape[0]):
        out[j] = newest[j]
    for a in range(k):
        g, x1, x0 = gamma[a], GH[(head - a + m1) % m1], GH[(head - a - 1 + m1) % m1]
        for j in range(out.shape[0]):
            out[j] -= g * (x1[j] - x0[j])
    finite = True
    for i in range(mu.shape[0]):
        project_cone(out[i * d : (i + 1) * d], mu[i], d)
        for j in range(i * d, (i + 1) * d):
            finite = finite and np.isfinite(out[j])
    return finite

"""Error-free transformations and compensated dot products (compiled).

``TwoProduct`` (by a fused multiply-add) and ``TwoSum`` (Knuth) split a product or a sum into its
rounded value and its exact error; Ogita, Rump & Oishi's ``Dot2`` (*Accurate sum and dot
product*, SIAM J. Sci. Comput. 26 (2005)) builds on them a dot product as accurate as if computed
in twice the working precision, with a rigorous bound of its error.  The problems' residuals
(:mod:`contactcp.problems._kernels`) and the certificates' exact signs rest on these kernels.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

_EPS = np.finfo(np.float64).eps
_UNDERFLOW = 2.0**-960  # products below this may have lost bits to underflow
_TINY = 2.0**-1070  # 16 times the smallest subnormal: the absolute error of a product that underflows


@intrinsic
def _fma(typingctx, a, b, c):
    """``a b + c`` rounded once (LLVM's ``llvm.fma.f64``: the CPU's fused multiply-add, or the C
    library's correctly rounded ``fma`` where the CPU has none; the same value either way)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        d = ir.DoubleType()
        return builder.call(builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d])), args)

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def _two_prod(a, b):
    """``(p, e)`` with ``p = fl(a b)`` and ``a b = p + e`` exactly (TwoProduct by a fused
    multiply-add: ``e = fl(a b - p)`` is exact whenever ``a b`` neither overflows nor underflows,
    the same conditions as Dekker and Veltkamp's splitting, in 2 operations instead of 17)."""
    p = a * b
    return p, _fma(a, b, -p)


@njit(cache=True, nogil=True, inline="always")
def _two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly (Knuth)."""
    s = a + b
    bp = s - a
    return s, (a - (s - bp)) + (b - bp)


@njit(cache=True, nogil=True)
def scaled_products(A, y):
    """``(P, E)`` with ``A_ij y_i = P_ij + E_ij`` exactly, for every entry (TwoProduct)."""
    m, n = A.shape
    P = np.empty((m, n))
    E = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            P[i, j], E[i, j] = _two_prod(A[i, j], y[i])
    return P, E


@njit(cache=True, nogil=True, inline="always")
def affine_row(A, x, c, i):
    """``(v, allowance, risky)``: ``v = (A x + c)_i`` computed as if in twice the working precision
    (Ogita, Rump & Oishi's Dot2: error-free products and sums), and a bound on its error,
    ``|v - exact| <= 4 eps |v| + gamma^2 sum_j |A_ij x_j| (+ |c_i|) + (n + 1) 2^-1070``, ``gamma = 4 (n + 1) eps``
    (a margin of 4 in each term; the last term covers products in the subnormal range).  The bound is
    of order ``(n eps)^2`` of the terms: the check can tell ``w_i = -1`` from zero even when the terms
    are of size 1e20.  ``risky`` is True when a product or a partial sum may have overflowed (then
    the bound is not valid and the row must be evaluated exactly)."""
    v, allow, risky, _ = _dot2_row(A, x, c, i, x, False)
    return v, allow, risky


@njit(cache=True, nogil=True, inline="always")
def affine_row_capped(A, x, c, i, Z):
    """:func:`affine_row` and, in the same pass over the row, ``t = sum_j |A_ij| min(|x_j|, Z_j)``
    (the sum under a residual's row scale, :func:`contactcp.problems._kernels.row_scale`, in the
    same order): ``(v, allowance, risky, t)``."""
    return _dot2_row(A, x, c, i, Z, True)


@njit(cache=True, nogil=True, inline="always")
def _dot2_row(A, x, c, i, Z, capped):
    """:func:`affine_row`'s pass, with :func:`affine_row_capped`'s sum when ``capped`` (0 otherwise)."""
    n = x.shape[0]
    s = c[i]
    err = 0.0
    mag = abs(c[i])
    t = 0.0
    big = 0.0  # the largest |A_ij| and |x_j|: above 1e290 a product may overflow
    lost = 0.0  # sum of the rounding errors' sizes: 0 when no product and no sum was rounded
    under = False  # a product of nonzero numbers in the range where it may have lost bits
    for j in range(n):  # no branch in the loop: one pass of fused multiply-adds
        a = A[i, j]
        b = x[j]
        big = max(big, max(abs(a), abs(b)))  # numba's three-argument max took 40 % of the pass
        p, e = _two_prod(a, b)
        under |= (abs(p) < _UNDERFLOW) & (a != 0.0) & (b != 0.0)
        mag += abs(p)
        s, f = _two_sum(s, p)
        lost += abs(e) + abs(f)
        err += e + f
        if capped:
            ab = abs(b)
            t += abs(a) * (ab if ab < Z[j] else Z[j])
    risky = big > 1e290
    exact = lost == 0.0 and not under  # no rounding anywhere: v is the exact value
    v = s + err
    if exact:
        return v, 0.0, risky or not abs(mag) < 1e300, t
    g = 4.0 * (n + 1) * _EPS
    allow = 4.0 * _EPS * abs(v) + g * g * mag + (n + 1) * _TINY
    if not (abs(mag) < 1e300 and abs(allow) < 1e300 and abs(v) < 1e300):
        risky = True
    return v, allow, risky, t


@njit(cache=True, nogil=True)
def affine_dot2(A, x, c):
    """``(A x + c, allowance, risky)`` row by row with :func:`affine_row`."""
    m = c.shape[0]
    v = np.empty(m)
    allow = np.empty(m)
    risky = np.zeros(m, dtype=np.bool_)
    for i in range(m):
        v[i], allow[i], risky[i] = affine_row(A, x, c, i)
    return v, allow, risky

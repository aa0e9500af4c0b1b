"""The Coulomb measure of :meth:`FrictionContactProblem._certify` evaluated without its rounding
allowance: ``u = W r + q`` exactly (rational arithmetic on the floats as given) and the natural map
of De Saxcé's form in 60-digit decimal arithmetic.

The compiled measure (:func:`~._coulomb.coulomb_measure`) adds to the floating-point natural map a
bound of what rounding can change in it.  That bound grows with ``||r||`` and with the sizes of the
terms of ``W r``, so when the reactions are large beside ``q`` (a light body pressed by large forces:
``|r| ~ 600`` for ``||q|| ~ 3e-3``) the bound alone exceeds a tolerance the point meets by orders of
magnitude.  This module decides those cases: its own error is below ``1e-45`` of the data's size,
and that is added as its allowance, so its value is still an upper bound of the exact measure.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from contactcp.linalg.rational import exact_affine, float_up

# exact evaluation costs about a microsecond per stored entry of W: it is only tried up to this size
MAX_ENTRIES = 400_000
PRECISION = 60  # decimal digits of every operation (the whole evaluation runs in this context)
_REL = Decimal("1e-45")  # allowance for the decimal arithmetic's own rounding (60 digits, < 100 ops)


def exact_velocity(W, q: np.ndarray, r: np.ndarray) -> list[Fraction]:
    """``W r + q`` exactly, row by row (``W`` dense or CSR)."""
    n = q.shape[0]
    if sp.issparse(W):
        W = W.tocsr()
        out = []
        for i in range(n):
            lo, hi = W.indptr[i], W.indptr[i + 1]
            out.append(exact_affine(W.data[lo:hi], r[W.indices[lo:hi]], float(q[i])))
        return out
    return [exact_affine(W[i], r, float(q[i])) for i in range(n)]


def _project(x: list[Decimal], mu: Decimal) -> list[Decimal]:
    """Projection on ``{||x_T|| <= mu x_N}`` (the formula of :func:`~.friction.project_cones`), in
    the current decimal context."""
    xn = x[0]
    nt = sum((t * t for t in x[1:]), Decimal(0)).sqrt()
    if xn >= 0 and nt <= mu * xn:
        return list(x)
    if mu * nt <= -xn:
        return [Decimal(0)] * len(x)
    pn = (mu * nt + xn) / (1 + mu * mu)
    if nt == 0:
        return [pn] + [Decimal(0)] * (len(x) - 1)
    f = mu * pn / nt
    return [pn] + [f * t for t in x[1:]]


def exact_measure(W, q: np.ndarray, mu: np.ndarray, d: int, r: np.ndarray) -> float | None:
    """An upper bound, tight to about ``1e-45`` relative, of ``||r - P_K(r - u - mu ||u_T|| e_N)||_2 /
    ||q||_2`` (``/ 1`` when ``q = 0``), with ``u = W r + q`` exact; None when ``r`` is not finite or
    ``W`` is too large to evaluate exactly (:data:`MAX_ENTRIES`)."""
    entries = W.nnz if sp.issparse(W) else W.size
    if entries > MAX_ENTRIES or not np.all(np.isfinite(r)):
        return None
    exact_u = exact_velocity(W, q, r)
    # a context of its own (not the caller's traps, rounding or exponent range)
    with localcontext(Context(prec=PRECISION, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999, traps=[])):
        u = [Decimal(v.numerator) / Decimal(v.denominator) for v in exact_u]
        rd = [Decimal(float(v)) for v in r.tolist()]  # exact conversions
        total = Decimal(0)
        size = Decimal(0)
        for c in range(q.shape[0] // d):
            m = Decimal(float(mu[c]))
            uc = u[c * d : (c + 1) * d]
            rc = rd[c * d : (c + 1) * d]
            ut = sum((t * t for t in uc[1:]), Decimal(0)).sqrt()
            uhat = [uc[0] + m * ut] + uc[1:]
            p = _project([a - b for a, b in zip(rc, uhat)], m)
            for a, b in zip(rc, p):
                total += (a - b) * (a - b)
            size += sum((abs(a) + (1 + m) * abs(b) for a, b in zip(rc, uc)), Decimal(0))
        nat = total.sqrt() + _REL * size
        nq2 = sum((Decimal(float(v)) * Decimal(float(v)) for v in q.tolist()), Decimal(0))
        value = nat if nq2 == 0 else nat / (nq2.sqrt() * (1 - _REL))
        if not value.is_finite():
            return None
        bound = float_up(Fraction(value))
    return bound if math.isfinite(bound) else None

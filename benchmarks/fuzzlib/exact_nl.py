"""The harness's own checks of the nonlinear problems.

FrictionContactProblem: ``u = W r + q`` exactly (rational), then the cone
projection, the De Saxce shift and the norms in 60-digit decimal arithmetic
(no overflow: decimal exponents are unbounded for these sizes).
MixedNCP (the harness's polynomial family ``F, G = K x + k + c * x[pi]**3``): exact.
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from fractions import Fraction

from .exact import exact_affine, finite, frac_vector

__all__ = ["fc_residual", "ncp_eval", "ncp_residual"]

_CTX = decimal.Context(prec=60, Emax=10**6, Emin=-(10**6))


def _dec(f: Fraction) -> Decimal:
    return _CTX.divide(Decimal(f.numerator), Decimal(f.denominator))


def _project(x: list[Decimal], mu: Decimal) -> list[Decimal]:
    """Projection on ``{||x_T|| <= mu x_N}``."""
    xn, xt = x[0], x[1:]
    nt = _CTX.sqrt(sum((_CTX.multiply(t, t) for t in xt), Decimal(0)))
    if nt <= mu * xn:
        return list(x)
    if mu * nt <= -xn:
        return [Decimal(0)] * len(x)
    pn = _CTX.divide(mu * nt + xn, 1 + mu * mu)
    f = _CTX.divide(mu * pn, nt)
    return [pn] + [_CTX.multiply(f, t) for t in xt]


def fc_residual(W, q, mu, dim, r) -> Decimal | None:
    """``||r - P_K(r - u - mu ||u_T|| e_N)||_2 / ||q||_2`` (``/1`` when q = 0), ``u = W r + q``."""
    m = len(q)
    if r is None or len(r) != m or not finite(r):
        return None
    with decimal.localcontext(_CTX):
        u = [_dec(v) for v in exact_affine(W, r, q)]
        rd = [_dec(v) for v in frac_vector(r)]
        total = Decimal(0)
        for c in range(m // dim):
            sl = slice(c * dim, (c + 1) * dim)
            uc, rc = u[sl], rd[sl]
            mc = _dec(Fraction(float(mu[c])))
            ut = _CTX.sqrt(sum((t * t for t in uc[1:]), Decimal(0)))
            v = [rc[0] - (uc[0] + mc * ut)] + [a - b for a, b in zip(rc[1:], uc[1:])]
            p = _project(v, mc)
            total += sum(((a - b) * (a - b) for a, b in zip(rc, p)), Decimal(0))
        nq = _CTX.sqrt(sum((_dec(Fraction(float(t))) ** 2 for t in q), Decimal(0)))
        val = _CTX.sqrt(total)
        return val / nq if nq > 0 else val


def ncp_eval(spec, x) -> list[Fraction]:
    """``K x + k + c * x[pi]**3`` exactly."""
    lin = exact_affine(spec["K"], x, spec["k"])
    xf = frac_vector(x)
    return [lin[i] + Fraction(float(spec["c"][i])) * xf[spec["pi"][i]] ** 3 for i in range(len(lin))]


def ncp_residual(spec, x) -> Fraction | None:
    """``max(||min(u, F)||_inf, ||G||_inf) / max(1, scale)`` (u = x[:p], F = first p rows)."""
    p = spec["p"]
    if x is None or len(x) != len(spec["k"]) or not finite(x):
        return None
    vals = ncp_eval(spec, x)
    xf = frac_vector(x)
    e = Fraction(0)
    for i, v in enumerate(vals):
        e = max(e, abs(min(xf[i], v)) if i < p else abs(v))
    return e / max(Fraction(1), Fraction(float(spec["scale"])))

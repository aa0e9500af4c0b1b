"""Rows of the linear problems' residuals evaluated exactly (rational arithmetic), for the rows
that floating point cannot bound tightly (:mod:`contactcp.problems._kernels`)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from contactcp.linalg.rational import exact_affine, float_down, float_up
from contactcp.problems._kernels import column_units


def exact_row_scale(a: np.ndarray, x: np.ndarray, c: float, Z: np.ndarray) -> Fraction:
    """``max(|c|, sum_j |a_j| min(|x_j|, Z_j))`` exactly (the row scale of :func:`~._kernels.row_scale`;
    ``Z`` from :func:`~._kernels.column_units`)."""
    capped = np.minimum(np.abs(x), Z)
    keep = np.isfinite(capped)  # only a zero column has Z_j = inf, and then a_j = 0
    return max(Fraction(abs(c)), exact_affine(np.abs(a)[keep], capped[keep], 0.0))


def exact_row(a: np.ndarray, x: np.ndarray, c: float, Z: np.ndarray) -> tuple[float, Fraction, Fraction]:
    """``(float, exact)`` value of ``a . x + c`` (the float rounded to nearest, infinite when it
    overflows) and the row's exact scale (:func:`exact_row_scale`)."""
    value = exact_affine(a, x, c)
    try:
        nearest = float(value)
    except OverflowError:
        nearest = math.inf if value > 0 else -math.inf  # (copysign would convert the Fraction again)
    return nearest, value, exact_row_scale(a, x, c, Z)


def exact_lcp_rows(
    M: np.ndarray, q: np.ndarray, z: np.ndarray, free: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(w, e)`` on ``rows`` in rational arithmetic: ``w_i`` (the float nearest the exact value) and
    ``e_i`` the row's violation in its own scale ``s_i`` (:func:`exact_row_scale`),
    ``|min(z_i, w_i / s_i)|`` (``|w_i| / s_i`` on free rows), rounded up.  Non-finite ``z`` gives inf."""
    w = np.empty(rows.size)
    e = np.empty(rows.size)
    if not np.all(np.isfinite(z)):
        w[:] = np.nan
        e[:] = np.inf
        return w, e
    Z = column_units(M, q)
    for k, i in enumerate(rows.tolist()):
        w[k], wi, si = exact_row(M[i], z, float(q[i]), Z)
        if si == 0:
            viol = abs(min(Fraction(float(z[i])), Fraction(0))) if wi == 0 else None
            e[k] = float_up(viol) if viol is not None else (abs(float(z[i])) if wi > 0 and not free[i] else math.inf)
            continue
        ws = wi / si
        viol = abs(ws) if free[i] else abs(min(Fraction(float(z[i])), ws))
        e[k] = float_up(viol)
    return w, e


def exact_scaled_rows(
    A: np.ndarray, x: np.ndarray, c: np.ndarray, rows: np.ndarray, v: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> None:
    """Overwrite ``v``, ``lo``, ``hi`` on ``rows`` with the exact value of ``(A x + c)_i`` (nearest float)
    and the floats just below and above ``(A x + c)_i / s_i`` (:func:`~._kernels.scaled_affine`)."""
    finite = bool(np.all(np.isfinite(x)))
    Z = column_units(A, c)
    for i in rows.tolist():
        if not finite:
            v[i], lo[i], hi[i] = np.nan, -math.inf, math.inf
            continue
        v[i], wi, si = exact_row(A[i], x, float(c[i]), Z)
        if si == 0:
            lo[i] = hi[i] = 0.0 if wi == 0 else math.copysign(math.inf, wi)
            continue
        ws = wi / si
        lo[i], hi[i] = float_down(ws), float_up(ws)

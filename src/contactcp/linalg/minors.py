"""Principal minors by the Griffin–Tsatsomeros recursion, as floats and with rigorous error bounds.

The recursion behind :func:`contactcp.linalg.pmatrix.p_matrix_test` (see that module's docstring
for the method, the pseudo-pivots of :func:`principal_minors` and the error radii the P-test
carries): K. Griffin & M. J. Tsatsomeros, *Principal minors, Part I: A method for computing all the
principal minors of a matrix*, Linear Algebra Appl. 419 (2006), doi:10.1016/j.laa.2006.04.008.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
from numba import njit

from contactcp._validate import matrix
from contactcp.errors import InvalidProblemError
from contactcp.linalg.exact import UNIT_ROUNDOFF
from contactcp.linalg.verified import TINY

__all__ = ["principal_minors", "PRINCIPAL_MINORS_MAX_N"]

#: :func:`principal_minors` accepts matrices up to this size (2^20 - 1 minors, 8 MB)
PRINCIPAL_MINORS_MAX_N = 20
_PSEUDO_PIVOT = 0.1  # principal_minors: pseudo-pivot when |pivot| <= this times its row/column's largest entry
_U = UNIT_ROUNDOFF


def _square(A: Any) -> np.ndarray:
    A = matrix(A, "A", square=True)
    if A.shape[0] == 0:
        raise InvalidProblemError("A", "must be non-empty, got shape (0, 0)")
    return A


# ---------------------------------------------------------------------------
# the recursion, all minors as floats (principal_minors)


def _levels_minors(As: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(k, m)``: the principal minors of the sets ``T + {k}``, ``m[T]`` for ``T`` a bitmask of ``{0..k-1}``.

    Levels ``k = 0, 1, ..., n-1`` in turn, all ``2^n - 1`` minors over the run,
    with pseudo-pivots where a pivot is (nearly) zero and their effect undone.
    """
    n = As.shape[0]
    comp = np.empty(1 << n)  # minors of the pseudo-pivoted matrices: the multipliers
    comp[0] = 1.0
    B = As[None, :, :].copy()  # B[T] = B_T, level 0: A itself
    records: list[tuple[int, np.ndarray]] = []  # (level, delta[T]) of the pseudo-pivots
    for k in range(n):
        half = 1 << k
        p = B[:, 0, 0].copy()
        rmax = np.abs(B[:, 0, :]).max(axis=1)
        cmax = np.abs(B[:, :, 0]).max(axis=1)
        ref = np.maximum(rmax, cmax)
        small = ~(np.abs(p) > _PSEUDO_PIVOT * ref)
        delta = None
        used = p
        mult = comp[:half]
        if small.any():
            # a zero row or column of B_T: every minor of the branch is exactly 0, and any
            # finite pivot leaves its Schur complement unchanged; otherwise a pseudo-pivot
            null = (rmax == 0.0) | (cmax == 0.0)
            used = np.where(small, np.where(ref > 0.0, ref, 1.0), p)
            delta = np.where(null, 0.0, used - p)
            mult = np.where(null, 0.0, mult)
            if not delta.any():
                delta = None
        comp[half : 2 * half] = mult * used
        # true minors: det A'[T] times the pivot without its shift, then undo the
        # shifts of the lower levels, deepest first (det is linear in A[kk, kk])
        val = comp[:half] * p
        for kk, dl in reversed(records):
            v = val.reshape(-1, 2, 1 << kk)
            v[:, 1, :] -= dl * v[:, 0, :]
        if delta is not None:
            records.append((k, delta))
        yield k, val
        if k + 1 < n:
            m = n - k - 1
            nxt = np.empty((2 * half, m, m))
            nxt[:half] = B[:, 1:, 1:]
            np.multiply(B[:, 1:, :1], B[:, :1, 1:] / used[:, None, None], out=nxt[half:])
            np.subtract(B[:, 1:, 1:], nxt[half:], out=nxt[half:])
            B = nxt


# ---------------------------------------------------------------------------
# the P-test's recursion with error bounds


def _scaled(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(As, R0, e)``: rows scaled by ``2^-e_i`` to a largest magnitude in ``[1/2, 1)``, and the radius
    of that scaling.

    The scaling is exact unless an entry falls into the subnormal range; such an
    entry is off by at most half the subnormal spacing, and ``R0`` says so.
    """
    e = np.frexp(np.abs(A).max(axis=1))[1]
    As = np.ldexp(A, -e[:, None])
    R0 = np.where(np.ldexp(As, e[:, None]) == A, 0.0, TINY)
    return As, R0, e


@njit(cache=True, nogil=True, inline="always")
def _up(x: float, terms: int) -> float:
    # contactcp.linalg.verified.up, for one scalar
    return x * (1.0 + (4 * terms + 4) * _U) + TINY


@njit(cache=True, nogil=True)
def _advance_kernel(B, R, Mg, nxt, rnx, mnx):  # pragma: no cover - compiled
    half, size = B.shape[0], B.shape[1]
    m = size - 1
    two_u = 2.0 * _U
    for T in range(half):
        p = B[T, 0, 0]
        rp = R[T, 0, 0]
        lo = (p - rp) * (1.0 - 8.0 * _U) - TINY  # linalg.verified.down
        # an upper bound of 1 / (p - r_p); NaN when p - r_p is not proven positive, so that the
        # branch's radii become NaN and every pivot of it is borderline at the next level
        ilo = _up(1.0 / lo, 1) if lo > 0.0 else np.nan
        for i in range(m):
            l = B[T, i + 1, 0] / p
            al = abs(l)
            # |c_i/p (exact) - l| <= (r_c + |c_i/p| r_p) / (p - r_p) + u |c_i/p|, underflow included
            el = _up((R[T, i + 1, 0] + (al + TINY) * rp + TINY) * ilo + al * two_u, 5)
            for j in range(m):
                b = B[T, 0, j + 1]
                ab = abs(b)
                rb = R[T, 0, j + 1]
                v = B[T, i + 1, j + 1] - l * b
                nxt[half + T, i, j] = v
                # error of C + error of l times |b (exact)| + |l| (error of b + rounding of l b)
                # + rounding of the subtraction: a sum of terms each rounded a few times
                rad = R[T, i + 1, j + 1] + el * (ab + rb) + al * (rb + ab * two_u) + abs(v) * two_u
                rnx[half + T, i, j] = _up(rad, 10)
                mnx[half + T, i, j] = Mg[T, i + 1, j + 1] + al * ab


def _advance(B: np.ndarray, R: np.ndarray, Mg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The next level of the recursion: ``B_T`` without its first row and column, then its Schur complement.

    Every pivot ``B[T, 0, 0]`` must be proven positive (``p > r``, or decided
    exactly).  ``R`` bounds the error of ``B`` entrywise (see the module
    docstring): for the new entry ``v = C - l b`` with ``l = c / p``,
    ``|v(exact) - v| <= R_C + e_l (|b| + r_b) + |l| (r_b + 2u |b|) + 2u |v|``
    with ``e_l = (r_c + |l| r_p) / (p - r_p) + 2u |l|`` the error bound of
    ``l`` (the ``2u`` terms cover the roundings of ``l``, of ``l b`` and of
    the subtraction), each expression inflated for its own roundings and
    underflows by :func:`contactcp.linalg.verified.up` (an FMA only removes
    roundings).
    ``Mg`` is the magnitude of the terms, for the reported ratios.  Where the
    lower bound ``p - r`` of a pivot is not positive in floating point, the
    radii of its branch become NaN, so that every pivot of that branch is
    borderline at the next level (and decided exactly there).  A compiled loop
    (numba): at the sizes of contact problems the numpy version spent its time
    in calls, not arithmetic.
    """
    half, size = B.shape[0], B.shape[1]
    m = size - 1
    nxt = np.empty((2 * half, m, m))
    rnx = np.empty((2 * half, m, m))
    mnx = np.empty((2 * half, m, m))
    nxt[:half] = B[:, 1:, 1:]  # k left out: B_T without its first row and column
    rnx[:half] = R[:, 1:, 1:]
    mnx[:half] = Mg[:, 1:, 1:]
    with np.errstate(all="ignore"):
        _advance_kernel(B, R, Mg, nxt, rnx, mnx)
    return nxt, rnx, mnx


def _set_of(T: int, k: int) -> tuple[int, ...]:
    return tuple(i for i in range(k) if (T >> i) & 1) + (k,)


def _fmt_set(s: tuple[int, ...]) -> str:
    return "{" + ", ".join(str(i) for i in s) + "}"


def _fmt_exact(x: Fraction) -> str:
    """A rational in ``%.6g`` style, also beyond the range of doubles."""
    if x == 0:
        return "0"
    try:
        f = float(x)
    except OverflowError:
        f = math.inf
    if f != 0.0 and math.isfinite(f):
        return f"{f:.6g}"
    lg = math.log10(abs(x.numerator)) - math.log10(x.denominator)
    ex = math.floor(lg)
    return f"{'-' if x < 0 else ''}{10 ** (lg - ex):.6g}e{ex:+d}"


def _fmt_log(logabs: float) -> str:
    """``exp(logabs)`` in ``%.6g`` style, also beyond the range of doubles."""
    lg = logabs / math.log(10.0)
    ex = math.floor(lg)
    if -300 < ex < 300:
        return f"{math.exp(logabs):.6g}"
    return f"{10 ** (lg - ex):.6g}e{ex:+d}"


def principal_minors(A: Any) -> np.ndarray:
    """All ``2^n - 1`` principal minors of ``A`` (``n <= 20``), by the Griffin–Tsatsomeros recursion.

    Order: bitmask order, entry ``k - 1`` is ``det A[S, S]`` for ``S = {i : bit
    i of k is set}`` — ``A[0]``, ``A[1]``, ``A[0,1]``, ``A[2]``, ``A[0,2]``,
    ``A[1,2]``, ``A[0,1,2]``, ... (the order of MAT2PM, 0-based).  Zero pivots
    are handled by pseudo-pivoting (see the module docstring), so singular
    principal submatrices are fine.  ``O(2^n)`` time and memory (0.1 s at
    n = 20).  These are floating-point values with no error bound (a minor
    within rounding of zero may come out with either sign): they decide
    nothing; :func:`p_matrix_test` proves its signs.  Raises :class:`~contactcp.errors.InvalidProblemError` (field
    ``"A"``) unless ``A`` is a non-empty, square, finite 2-D array with n <= 20.

    K. Griffin & M. J. Tsatsomeros, *Principal minors, Part I: A method for
    computing all the principal minors of a matrix*, Linear Algebra Appl. 419
    (2006), doi:10.1016/j.laa.2006.04.008.
    """
    A = _square(A)
    n = A.shape[0]
    if n > PRINCIPAL_MINORS_MAX_N:
        raise InvalidProblemError(
            "A", f"principal_minors takes n <= {PRINCIPAL_MINORS_MAX_N} (2^n - 1 minors), got n = {n}"
        )
    d = np.abs(A).max(axis=1)
    d[d == 0.0] = 1.0
    out = np.empty(1 << n)
    out[0] = 1.0
    for k, val in _levels_minors(A / d[:, None]):
        out[1 << k : 2 << k] = val
    # undo the row scaling: the minor of S times prod_{i in S} d_i
    prod = np.empty(1 << n)
    prod[0] = 1.0
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # minors beyond the float range
        for j in range(n):
            np.multiply(prod[: 1 << j], d[j], out=prod[1 << j : 2 << j])
        out *= prod
    return out[1:]

"""Floating-point tests whose positive answer is a proof.

Round-to-nearest doubles (numpy has no directed rounding) with every error
bounded: ``fl(x op y) = (x op y)(1 + d) + e`` with ``|d| <= u = 2^-53``,
``|e| <= 2^-1075`` (underflow), for ``+ - * /`` and ``sqrt`` (the standard
model, Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed.,
Section 2.2).  :func:`up` and :func:`down` turn a rounded result into a bound of
the exact one, so that error bounds can be carried through vectorised numpy
code; :func:`positive_definite` is Rump's criterion for positive definiteness
from one floating-point Cholesky factorisation.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.linalg as sla

from contactcp.errors import InvalidProblemError
from contactcp.linalg.dot2 import affine_dot2
from contactcp.linalg.exact import UNIT_ROUNDOFF as U

__all__ = ["TINY", "up", "down", "positive_definite", "det_sign_verified", "verified_solve"]


#: the absolute term of :func:`up` and :func:`down`: a normal number far above every
#: underflow error (``2^-1074`` per operation) — a subnormal constant would make every
#: operation that meets it take the processor's slow path
TINY = 2.0**-1000


def up(x: Any, terms: int = 1) -> Any:
    """An upper bound of ``z >= 0`` from its computed value ``x``.

    ``x`` is the rounded value of ``z`` = a sum of ``terms`` nonnegative terms,
    each the correctly rounded result of one operation on exact (or
    upper-bounded) operands, added in any order in floating point: then
    ``z <= x (1 + 2 terms u) + terms 2^-1074``, and the result
    ``x (1 + (4 terms + 4) u) + 2^-1000``, however it rounds, is at least
    that.  With ``terms = 1``: one rounded operation.
    """
    f = 1.0 + (4 * terms + 4) * U
    return x * f + TINY


def down(x: Any) -> Any:
    """A lower bound of ``z >= 0`` from ``x``, its value rounded once (may be <= 0 for tiny ``z``)."""
    return x * (1.0 - 8.0 * U) - TINY


def positive_definite(A: Any) -> bool:
    """True when the symmetric part ``(A + A^T)/2`` of the square float matrix ``A`` is proven positive definite.

    False means "not proven" (it may still be positive definite, within
    rounding of singular).  The proof (S. M. Rump, *Verification of positive
    definiteness*, BIT 46 (2006), with the same argument): ``A`` is scaled by a
    power of two to ``max |A_ij|`` in ``[1/2, 1)``, ``T = fl(A + A^T)``, and
    ``H = T - c I`` is factorised by LAPACK's Cholesky.  If that runs to
    completion, ``R^T R = H + dH`` with ``|dH| <= g |R^T| |R|``,
    ``g = gamma_{n+1} = (n+1) u / (1 - (n+1) u)`` (Higham, Theorem 10.3; any
    order of the inner products, blocked or recursive), hence
    ``||dH||_2 <= g / (1 - g) tr H``, and
    ``lambda_min(A + A^T) >= c (1 - u) - g/(1-g) sum|t_ii| - u max|t_ii| - 2 u ||T||_F - a``
    where the last terms cover the rounding of ``T`` and of its diagonal shift,
    and ``a = n^2 2^-1000`` every underflow (the entries are at most 2).  The
    shift ``c`` is four times the sum of those terms, about
    ``4 (n + 1) u tr T + 12 n u max |T|``: a matrix whose symmetric part has
    its smallest eigenvalue above that (relative to the largest entry) passes.
    Cost: one Cholesky factorisation, ``n^3 / 3`` flops.
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] == 0:
        raise InvalidProblemError("A", f"must be a non-empty square 2-D array, got shape {A.shape}")
    if not np.isfinite(A).all():
        raise InvalidProblemError("A", "must contain only finite numbers")
    n = A.shape[0]
    g = (n + 1) * U / (1.0 - (n + 1) * U)
    if n * g > 0.25:
        return False
    amax = float(np.abs(A).max())
    if amax == 0.0:
        return False
    e = int(np.frexp(amax)[1])
    As = np.ldexp(A, -e)  # exact unless an entry falls into the subnormal range
    T = As + As.T  # |T_ij| <= 2, one rounding per entry
    d = np.abs(np.diagonal(T))
    tmax = float(np.abs(T).max())
    a = n * n * 2.0**-1000
    G = g / (1.0 - g) * float(d.sum()) + U * float(d.max()) + 2.0 * U * n * tmax + a
    c = 4.0 * G
    H = T.copy()
    H[np.diag_indices(n)] -= c
    try:
        sla.cholesky(H, lower=False, overwrite_a=True, check_finite=False)
    except (np.linalg.LinAlgError, ValueError):
        return False
    return True


_LOOP_INVERSE_MAX_N = 128


def _inverse_of_lu(L: np.ndarray, Um: np.ndarray) -> np.ndarray:
    """An approximate inverse of ``L U`` (``L`` unit lower, ``U`` upper triangular), any accuracy.

    Row-by-row substitution with matrix-vector products up to
    ``_LOOP_INVERSE_MAX_N``: a triangular solve with a matrix right-hand side
    (``dtrsm``) wakes OpenBLAS's threads, which costs milliseconds on a busy
    machine for a 12 x 12 matrix; LAPACK above that size.
    """
    n = L.shape[0]
    if n > _LOOP_INVERSE_MAX_N:
        Li = sla.solve_triangular(L, np.eye(n), lower=True, unit_diagonal=True, check_finite=False)
        return sla.solve_triangular(Um, Li, check_finite=False)
    Li = np.eye(n)
    for i in range(1, n):
        Li[i, :i] = -(L[i, :i] @ Li[:i, :i])
    Ui = np.zeros((n, n))
    for i in range(n - 1, -1, -1):
        Ui[i, i] = 1.0 / Um[i, i]
        if i + 1 < n:
            Ui[i, i + 1 :] = -(Um[i, i + 1 :] @ Ui[i + 1 :, i + 1 :]) / Um[i, i]
    return Ui @ Li


def det_sign_verified(A: Any, signs: tuple[int, ...] = (-1, 0, 1)) -> tuple[int, bool]:
    """``(sign, proven)``: the sign of ``det A`` from an LU factorisation with partial pivoting, and
    whether it is proven.

    With ``PA = LU`` computed and ``X`` an approximate inverse of ``LU``
    (triangular solves), the two residuals ``I - X (PA)`` and ``I - X (L U)``
    are bounded rigorously (the products' rounding by ``gamma_n`` times the
    products of absolute values, Higham, Section 3.5, any summation order).
    When both have infinity norm below 1/2, every eigenvalue of ``X PA`` and
    of ``X L U`` lies within 1/2 of 1, so both determinants are positive and
    ``det PA``, ``det X`` and ``det LU = prod u_kk`` have the same sign.
    Rows are first scaled by powers of two (exactly; a row that would lose
    bits is not proven).  ``signs``: the LU signs worth proving (the others
    are returned unproven at the cost of the LU only).  A zero pivot gives
    ``(0, False)``, a zero row ``(0, True)``.  Cost: the LU, two triangular
    inversions and five matrix products, ``O(n^3)``; it proves the sign of
    well-conditioned matrices (condition number well below ``1 / (n u)``).
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise InvalidProblemError("A", f"must be a square 2-D array, got shape {A.shape}")
    if not np.isfinite(A).all():
        raise InvalidProblemError("A", "must contain only finite numbers")
    n = A.shape[0]
    if n == 0:
        return 1, True
    rmax = np.abs(A).max(axis=1)
    if not (rmax > 0).all():
        return 0, True  # a zero row: det A = 0 exactly
    e = np.frexp(rmax)[1]
    As = np.ldexp(A, -e[:, None])
    exact_scaling = bool((np.ldexp(As, e[:, None]) == A).all())
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", sla.LinAlgWarning)  # a zero pivot: reported as unproven
        lu, piv = sla.lu_factor(As, check_finite=False)
    d = np.diagonal(lu)
    perm = np.arange(n)
    for k, j in enumerate(piv.tolist()):  # LAPACK's interchanges, in order
        perm[k], perm[j] = perm[j], perm[k]
    swaps = int(np.count_nonzero(piv != np.arange(n)))
    sign = (-1) ** swaps * int(np.prod(np.sign(d)))
    if sign not in signs or sign == 0 or not exact_scaling or not np.isfinite(lu).all():
        return sign, False
    L = np.tril(lu, -1)
    L[np.diag_indices(n)] = 1.0
    Um = np.triu(lu)
    PA = As[perm]
    g = n * U / (1.0 - n * U)
    if float(np.abs(d).min()) < 2.0**-45 / n * float(np.abs(Um).max()):
        return sign, False  # condition beyond what double can prove
    with np.errstate(all="ignore"):
        X = _inverse_of_lu(L, Um)
        if not np.isfinite(X).all():
            return sign, False
        aX = np.abs(X)
        r1 = np.abs(np.eye(n) - X @ PA).sum(axis=1) + g * (aX @ np.abs(PA)).sum(axis=1)
        Y = X @ L
        aU = np.abs(Um)
        r2 = (
            np.abs(np.eye(n) - Y @ Um).sum(axis=1)
            + g * ((aX @ np.abs(L)) @ aU).sum(axis=1)
            + g * (np.abs(Y) @ aU).sum(axis=1)
        )
        # every quantity above is a sum of nonnegative rounded terms (or the rounded residual,
        # whose own rounding is below u times itself): a factor 2 covers all of it
        bound = 2.0 * max(float(r1.max()), float(r2.max()))
    return sign, bool(bound < 0.5)


#: the machine epsilon 2^-52 (twice the unit roundoff)
U2 = 2.0**-52


def verified_solve(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float] | None:
    """``(x, err)`` with ``||x_exact - x||_inf <= err`` for ``A x = b``, or None when the test cannot
    prove ``A`` nonsingular (ill-conditioned or singular)."""
    k = b.shape[0]
    try:
        R = np.linalg.inv(A)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(R)):
        return None
    RA = R @ A
    absRA = np.abs(R) @ np.abs(A)
    g = (k + 2) * U2 / (1 - (k + 2) * U2)
    C = np.eye(k) - RA
    alpha = (float(np.abs(C).sum(axis=1).max()) + g * float(absRA.sum(axis=1).max()) + U2) * (1 + 4 * k * U2)
    if not alpha < 0.5:
        return None
    x = R @ b
    for _ in range(2):  # one or two refinement steps
        r, allow, risky = affine_dot2(np.ascontiguousarray(A), np.ascontiguousarray(x), -np.ascontiguousarray(b))
        if risky.any() or not np.all(np.isfinite(r)):
            return None
        x = x - R @ r
    r, allow, risky = affine_dot2(np.ascontiguousarray(A), np.ascontiguousarray(x), -np.ascontiguousarray(b))
    if risky.any():
        return None
    rnorm = float(np.max(np.abs(r) + allow, initial=0.0))
    Rnorm = float(np.abs(R).sum(axis=1).max())
    err = Rnorm * rnorm / (1.0 - alpha) * (1 + 8 * k * U2) + 1e-300
    return x, err

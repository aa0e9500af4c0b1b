"""Is a matrix a P-matrix?  (All principal minors positive.)

The LCP ``w = A z + b, z >= 0, w >= 0, z^T w = 0`` has a unique solution for
every ``b`` if and only if ``A`` is a P-matrix (Cottle, Pang & Stone, *The
Linear Complementarity Problem*, 1992, Theorem 3.3.7).  This is the test behind
Yashima & Yamaguchi's "dynamic determinacy" (Section III-C: "A P-matrix =>
unique solution for all b"): a contact state is determinate when the matrix of
its LCP is a P-matrix.

**Guarantee.**  Every decided verdict is a theorem about the matrix *as given*
(its floats taken as the exact rationals they are), whatever the CPU, the BLAS
kernels or the order of their sums: "P" is proven by a sufficient condition
checked with rigorous error bounds, "not P" comes with a ``witness`` index set
whose principal minor is ``<= 0`` *exactly* (computed in rational arithmetic,
or for a determinant above :data:`EXACT_DET_MAX_N` proven by a verified
floating-point bound).  Floating point decides whenever its margin exceeds its
error bound; a sign within its error bound is decided in exact arithmetic
(:mod:`contactcp.linalg.exact`: rows scaled by powers of two to integers,
fraction-free Bareiss elimination); where that would be unaffordable the
verdict is "undecided" (``is_p=None``), never a guess.  A minor that is
exactly zero makes the matrix "not P"; one that is positive but tiny keeps it P
(``rtol`` only labels it "nearly singular" in ``detail``).

:func:`p_matrix_test` runs cheap necessary and sufficient conditions first, in
order of cost, and the exhaustive test last:

1. every diagonal entry is positive (necessary, ``O(n)``, exact comparisons);
2. every 2x2 principal minor is positive (necessary, ``O(n^2)``, n <= 1000):
   a float ratio screens the pairs, and the most negative candidates (ratio
   below ``2^-20``) are decided exactly, the first nonpositive one is the
   witness;
3. strict row or column diagonal dominance with a positive diagonal
   (sufficient, ``O(n^2)``: every principal submatrix is then strictly
   diagonally dominant with a positive diagonal, so by Gershgorin its real
   eigenvalues are positive and its determinant is positive); each row sum is
   compared with an upper bound of its rounding error, rows within it by an
   exact sum (``math.fsum``);
4. the symmetric part ``(A + A^T)/2`` is positive definite (sufficient,
   ``O(n^3)``: ``x^T A x > 0`` for ``x != 0`` forbids a sign-reversing
   vector), proven by one Cholesky factorisation with Rump's shift, which
   covers the rounding of forming the symmetric part and of the factorisation
   (:func:`contactcp.linalg.verified.positive_definite`; about ``4 (n + 1) u``
   times the trace);
5. ``det A > 0`` (necessary, ``O(n^3)``): a negative sign of an LU
   factorisation with partial pivoting decides only when proven (the
   residuals ``I - X PA`` and ``I - X LU`` of an approximate inverse ``X``
   bounded rigorously below 1/2,
   :func:`contactcp.linalg.verified.det_sign_verified`) or, for
   ``n <= EXACT_DET_MAX_N``, checked by an exact determinant (a positive sign
   passes: it would prove nothing);
6. the leading principal minors are positive (necessary, n <= 1000):
   elimination without pivoting, the recursion's own path to ``{0..n-1}``; a
   pivot ratio below ``2^-20`` is checked by an exact leading minor, and when
   that minor is positive the elimination restarts from its exact Schur
   complement;
7. for ``n <= exact_max_n``: all ``2^n - 1`` principal minors by the recursive
   Schur-complement algorithm of Tsatsomeros & Li (*A recursive test for
   P-matrices*, BIT 40 (2000)) in the form of Griffin & Tsatsomeros
   (*Principal minors, Part I: A method for computing all the principal minors
   of a matrix*, Linear Algebra Appl. 419 (2006), doi:10.1016/j.laa.2006.04.008, "MAT2PM"), stopping
   at the first level with a minor that is not positive, with a rigorous error
   bound on every entry (below).

**The recursion.**  For ``T`` a subset of ``{0..k-1}`` let ``B_T`` be the Schur
complement of ``A[T, T]`` in ``A[T + {k..n-1}]`` (an ``(n-k) x (n-k)`` matrix
on the indices ``k..n-1``).  Then ``det A[T + S] = det A[T] det B_T[S]`` for
every ``S`` in ``{k..n-1}``, so the minors of the sets whose largest index is
``k`` are ``det A[T] * B_T[0, 0]``, and the next level has two matrices per
``T``: ``B_T`` without its first row and column (``k`` left out) and its Schur
complement on the pivot ``B_T[0, 0]`` (``k`` put in).  Level ``k`` holds
``2^k`` matrices of size ``n - k``: ``sum_k 2^k (n-k)^2 ~ 6 2^n`` flops for all
minors, vectorised over each level with numpy.  The rows of ``A`` are first
scaled by powers of two (exactly; this preserves the sign of every minor).

**Error bounds (midpoint-radius).**  Along with each ``B_T`` the P-test carries
a matrix ``R_T`` with ``|B_T(exact) - B_T| <= R_T`` entrywise, where
``B_T(exact)`` is the Schur complement of the data in exact arithmetic.  A
pivot ``p`` with radius ``r`` is proven positive when ``p > r``, proven
negative when ``-p > r`` (exact comparisons of floats), and otherwise
*borderline*.  The radius of the next level follows from the perturbation of
``C - c b^T / p`` (``|c/p - c'/p'| <= (r_c + |c/p| r_p) / (p - r_p)``) plus the
rounding of each operation, every term rounded upwards by
:func:`contactcp.linalg.verified.up` (standard model with underflow; no
directed rounding needed).  A borderline pivot of the set ``S = T + {k}`` is
decided exactly: the Schur complement ``B_T`` is recomputed in rational
arithmetic (:func:`contactcp.linalg.exact.schur_complement`) and rounded once,
which gives the sign of the pivot, hence of ``det A[S]``, exactly; if it is
positive the branch continues from that re-centred ``B_T`` with a radius of one
rounding.  At most 512 such exact recomputations are made per call; beyond
that the verdict is "undecided".  A witness found with a proven negative pivot
is confirmed by an exact determinant as well.

**Zero pivots** (:func:`principal_minors`, which returns all minors as floats
and decides nothing).  A pivot ``B_T[0, 0]`` that is zero, or small (below 0.1
times the largest entry of its row and column), would make the Schur
complement undefined or large.  When its whole row or column is zero, every
minor of the branch ``T + {k}`` is exactly zero and is set so.  Otherwise, as
in MAT2PM, it is replaced by a *pseudo-pivot* ``B_T[0, 0] + delta`` (the size
of that row and column), which amounts to adding ``delta`` to ``A[k, k]`` in
the branch ``T + {k}``.  A determinant is linear in each diagonal entry, so the
true minors are recovered exactly (in exact arithmetic): ``det A[X] = det A'[X]
- delta det A'[X - {k}]`` for every ``X`` in the branch; the corrections are
applied level by level, deepest first.  The threshold 0.1 (MAT2PM uses an
absolute ``1e-5``) bounds the growth of the entries by a factor 10 per level;
on rank-deficient and badly scaled test matrices it gave errors of ~1e-15
relative to the product of the norms of the rows in the index set, against
~1e-10 with ``1e-5``.

**Pivot ratios** (reporting only).  Each minor is the product of the minor of
the set without its largest index ``k`` and a pivot ``p = A[k,k] - sum_j l_kj
u_jk``; ``min_minor`` and ``detail`` report ``p / m`` with ``m = |A[k,k]| +
sum_j |l_kj u_jk|`` the magnitude of the terms that cancel in it (the diagonal
of ``|L| |U|``, the scale of the rounding error of an elimination, Higham,
*Accuracy and Stability of Numerical Algorithms*, Theorem 9.3).  The ratio lies
in ``[-1, 1]``, does not change when rows or columns are scaled by positive
numbers, and is 1 for a triangular matrix whatever its off-diagonal entries.
A P verdict whose ``margin`` (this ratio, or the margin of the sufficient
test that decided) is below ``rtol`` says "nearly singular" in its
``detail``; the verdict itself does not depend on ``rtol``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.linalg as sla

from contactcp.errors import InvalidOptionError
from contactcp.linalg.exact import UNIT_ROUNDOFF, exact_det, exact_sum_sign, schur_complement
from contactcp.linalg.minors import (
    PRINCIPAL_MINORS_MAX_N,
    _advance,
    _fmt_exact,
    _fmt_log,
    _fmt_set,
    _scaled,
    _set_of,
    _square,
    principal_minors,
)
from contactcp.linalg.verified import det_sign_verified, positive_definite, up

__all__ = [
    "PMatrixVerdict",
    "p_matrix_test",
    "principal_minors",
    "PRINCIPAL_MINORS_MAX_N",
    "EXACT_HARD_MAX_N",
    "EXACT_DET_MAX_N",
    "TEST_EXACT",
    "TEST_SYMMETRIC_PD",
    "TEST_DIAGONALLY_DOMINANT",
    "TEST_DIAGONAL",
    "TEST_2X2",
    "TEST_DETERMINANT",
    "TEST_LEADING",
    "TEST_UNDECIDED",
]

#: the names of the tests, as they appear in :attr:`PMatrixVerdict.test`
TEST_EXACT = "principal-minors (Tsatsomeros-Li)"
TEST_SYMMETRIC_PD = "symmetric part positive definite"
TEST_DIAGONALLY_DOMINANT = "strictly diagonally dominant, positive diagonal"
TEST_DIAGONAL = "nonpositive diagonal entry"
TEST_2X2 = "nonpositive 2x2 principal minor"
TEST_DETERMINANT = "negative determinant"
TEST_LEADING = "nonpositive leading principal minor"
TEST_UNDECIDED = "undecided"

#: the exhaustive test never runs above this size, whatever ``exact_max_n`` says
#: (time and memory grow as 2^n: n = 20 takes ~0.3 s and ~0.2 GB when it runs to the end)
EXACT_HARD_MAX_N = 22
#: determinants whose floating-point sign is not proven are computed in exact
#: arithmetic up to this size (Bareiss on integers: ~0.1 s at n = 40)
EXACT_DET_MAX_N = 40

_PAIRS_MAX_N = 1000  # the 2x2 test builds a few n x n arrays
_LEADING_MAX_N = 1000  # elimination without pivoting, O(n^3) in numpy rank-1 updates
_EIG_MAX_N = 1000  # report the symmetric part's smallest eigenvalue up to this size
_SUSPECT = 2.0**-20  # necessary tests: a float pivot ratio below this is checked in exact arithmetic
_PAIRS_EXACT_MAX = 64  # 2x2 candidates decided exactly, most negative first
_DOMINANCE_EXACT_MAX = 64  # rows within rounding of dominance decided by an exact sum
_LEADING_RESTARTS = 8  # exact restarts of the leading-minors elimination
_EXACT_BUDGET = 512  # borderline pivots the exhaustive test decides exactly before giving up
_U = UNIT_ROUNDOFF


@dataclass(frozen=True)
class PMatrixVerdict:
    """The outcome of :func:`p_matrix_test`.

    ``is_p``: True (a P-matrix, proven), False (not one, proven by ``witness``)
    or None (undecided).
    ``test``: which test decided (one of the ``TEST_*`` strings).
    ``detail``: what it found, in words (a failing minor's index set and exact
    value, the smallest eigenvalue of the symmetric part, the tests tried, ...).
    ``min_minor``: when the exhaustive test ran, the smallest pivot ratio it
    met, ``det A[S] / (det A[S - {k}] m)`` with ``k = max S`` and ``m`` the
    magnitude of the terms of that pivot (see the module docstring; in
    ``[-1, 1]``, 1 for a triangular matrix; a floating-point estimate, except
    for pivots decided exactly); None otherwise.
    ``witness``: when ``is_p`` is False, the index set (0-based, increasing) of a
    principal minor that is nonpositive (proven: exact arithmetic, or a
    verified floating-point bound for a determinant above
    :data:`EXACT_DET_MAX_N`).
    ``margin``: when ``is_p`` is True, how far the proof is from failing,
    relative to the scale of the data (a floating-point estimate, for
    reporting and for callers that need robustness, never for the verdict):
    the smallest dominance margin ``(A_ii - sum_j |A_ij|) / A_ii``, the
    smallest eigenvalue of the symmetric part over its largest entry, or the
    smallest pivot ratio (``min_minor``).  Relative perturbations of the
    entries well below it keep the matrix P (to first order; a factor ``n``
    for the eigenvalue); a P verdict with ``margin < rtol`` is labelled
    "nearly singular" in ``detail``.  None otherwise (and for a positive
    definite symmetric part above n = 1000).

    There is deliberately no ``__bool__`` (an undecided verdict is neither
    true nor false): use ``verdict.is_p is True`` or :attr:`decided`.
    """

    is_p: bool | None
    test: str
    detail: str
    min_minor: float | None = None
    witness: tuple[int, ...] | None = None
    margin: float | None = None

    @property
    def decided(self) -> bool:
        """True when a test decided (``is_p`` is not None)."""
        return self.is_p is not None


# ---------------------------------------------------------------------------
# the test


def p_matrix_test(A: Any, *, exact_max_n: int = 20, rtol: float = 1e-10) -> PMatrixVerdict:
    """Decide whether ``A`` is a P-matrix (all principal minors positive).

    A P-matrix is exactly a matrix for which the LCP ``w = A z + b``, ``z, w >=
    0``, ``z^T w = 0`` has a unique solution for every ``b`` (Cottle–Pang–Stone
    Theorem 3.3.7); Yashima & Yamaguchi (Section III-C) call the contact state
    dynamically determinate when its LCP matrix is one ("A P-matrix => unique
    solution for all b").

    The cheap tests run first (see the module docstring): a nonpositive diagonal
    entry, a nonpositive 2x2 principal minor (n <= 1000), a negative
    determinant or a nonpositive leading principal minor (n <= 1000) prove
    "not P" (with a ``witness``); strict row or column diagonal dominance with
    a positive diagonal, or a positive definite symmetric part (Rump's verified
    Cholesky test), prove "P".  Otherwise, for ``n <= exact_max_n`` (and never
    above :data:`EXACT_HARD_MAX_N` = 22), all principal minors are checked by
    the Tsatsomeros–Li recursion with rigorous error bounds, level by level,
    stopping at the first level with one that is not positive; above that size
    the verdict is ``is_p=None`` ("undecided") and ``detail`` lists the tests
    tried.

    Every decided verdict is exact for the matrix as given: a sign within its
    floating-point error bound is decided in rational arithmetic, and an
    exactly singular principal submatrix makes the matrix "not P".  ``rtol``
    no longer changes a verdict: a P verdict whose ``margin`` (the smallest
    dominance margin, relative eigenvalue or pivot ratio) is below ``rtol`` is
    labelled "nearly singular" in ``detail``.  The exhaustive test takes about 0.3 s at
    n = 20 when it has to run to the end.

    Raises :class:`~contactcp.errors.InvalidProblemError` (field ``"A"``) unless
    ``A`` is a non-empty, square, finite 2-D array, and
    :class:`~contactcp.errors.InvalidOptionError` for a negative
    ``exact_max_n`` or an ``rtol`` outside ``[0, 1)``.
    """
    A = _square(A)
    if isinstance(exact_max_n, bool) or not isinstance(exact_max_n, (int, np.integer)) or exact_max_n < 0:
        raise InvalidOptionError("exact_max_n", f"must be an integer >= 0, got {exact_max_n!r}")
    try:
        rtol = float(rtol)
    except (TypeError, ValueError):
        raise InvalidOptionError("rtol", f"must be a number in [0, 1), got {rtol!r}") from None
    if not 0.0 <= rtol < 1.0:
        raise InvalidOptionError("rtol", f"must be a number in [0, 1), got {rtol!r}")
    n = A.shape[0]
    tried: list[str] = []

    # 1. diagonal (necessary)
    diag = np.diag(A).copy()
    i = int(np.argmin(diag))
    if diag[i] <= 0.0:
        what = "0 exactly" if diag[i] == 0.0 else f"{diag[i]:.6g} < 0"
        return PMatrixVerdict(False, TEST_DIAGONAL, f"A[{i},{i}] = {what} (a 1x1 principal minor)", witness=(i,))
    tried.append("diagonal > 0 (passed)")

    # 2. 2x2 principal minors (necessary)
    if 2 <= n <= _PAIRS_MAX_N:
        v = _pairs(A)
        if v is not None:
            return v
        tried.append("2x2 minors > 0 (passed)")
    elif n > _PAIRS_MAX_N:
        tried.append(f"2x2 minors (skipped, n > {_PAIRS_MAX_N})")

    # 3. strict diagonal dominance (sufficient)
    v = _dominant(A, diag, rtol)
    if v is not None:
        return v
    tried.append("strict row/column diagonal dominance (no)")

    # 4. positive definite symmetric part (sufficient)
    v = _symmetric_pd(A, rtol)
    if v is not None:
        return v
    tried.append("symmetric part positive definite (not proven)")

    # 5. determinant (necessary)
    v, note = _determinant(A)
    if v is not None:
        return v
    tried.append(note)

    As, R0, e = _scaled(A)
    # 6. leading principal minors (necessary): the recursion's own path to {0..n-1}
    if n <= _LEADING_MAX_N:
        v, note = _leading_minors(A, As, e)
        if v is not None:
            return v
        tried.append(note)
    else:
        tried.append(f"leading principal minors (skipped, n > {_LEADING_MAX_N})")

    # 7. all principal minors
    limit = min(exact_max_n, EXACT_HARD_MAX_N)
    if n <= limit:
        return _all_minors(A, As, R0, e, rtol)
    cap = (
        f"exact_max_n = {exact_max_n}"
        if exact_max_n <= EXACT_HARD_MAX_N
        else f"the hard limit {EXACT_HARD_MAX_N} (exact_max_n = {exact_max_n})"
    )
    return PMatrixVerdict(
        None,
        TEST_UNDECIDED,
        f"n = {n} is above {cap}, so the 2^n - 1 principal minors were not checked; tests tried: " + "; ".join(tried),
    )


def _minor_text(S: tuple[int, ...], value: Fraction, ratio: float | None = None, name: str | None = None) -> str:
    name = name or f"the principal minor of {_fmt_set(S)}"
    how = "exact rational arithmetic on the data as given"
    if value == 0:
        return f"{name} = 0 exactly ({how}): singular, so not positive"
    extra = "" if ratio is None or not math.isfinite(ratio) else f"; its pivot is {ratio:.3g} times its terms"
    return f"{name} = {_fmt_exact(value)} < 0 ({how}{extra})"


@functools.lru_cache(maxsize=64)
def _triu(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)


def _pairs(A: np.ndarray) -> PMatrixVerdict | None:
    # ratio (a_ii a_jj - a_ij a_ji) / (a_ii a_jj + |a_ij a_ji|) = (1 - t) / (1 + |t|) with
    # t = a_ij a_ji / (a_ii a_jj) (diagonal positive here), formed in logarithms: no over/underflow;
    # a screen only: the candidates below _SUSPECT are decided exactly, most negative first
    n = A.shape[0]
    iu = _triu(n)
    with np.errstate(all="ignore"):
        L = np.log(np.abs(A))
        ld = np.diag(L).copy()
        t = np.sign(A) * np.sign(A.T) * np.exp(L + L.T - ld[:, None] - ld[None, :])
        r = np.where(np.isinf(t), -np.sign(t), (1.0 - t) / (1.0 + np.abs(t)))[iu]
    bad = ~(r > _SUSPECT)
    if not bad.any():
        return None
    idx = np.flatnonzero(bad)
    order = idx[np.argsort(np.nan_to_num(r[idx], nan=-np.inf), kind="stable")]
    for j in order[:_PAIRS_EXACT_MAX].tolist():
        a, b = int(iu[0][j]), int(iu[1][j])
        value = Fraction(float(A[a, a])) * Fraction(float(A[b, b])) - Fraction(float(A[a, b])) * Fraction(
            float(A[b, a])
        )
        if value <= 0:
            return PMatrixVerdict(False, TEST_2X2, _minor_text((a, b), value, float(r[j])), witness=(a, b))
    return None


def _near(margin: float | None, rtol: float) -> str:
    return f"; nearly singular (margin below rtol = {rtol:g})" if margin is not None and margin < rtol else ""


def _dominant(A: np.ndarray, diag: np.ndarray, rtol: float) -> PMatrixVerdict | None:
    """Strict row or column diagonal dominance, proven: float row sums against an upper bound of
    their rounding error, the rows within it by an exact sum."""
    n = A.shape[0]
    off = np.abs(A)
    off[np.diag_indices(n)] = 0.0
    for axis, what in ((1, "row"), (0, "column")):
        with np.errstate(over="ignore", invalid="ignore"):
            s = off.sum(axis=axis)  # nonnegative terms: relative error <= (n-1) u
            ok = diag > up(s, n)
        if not ok.all():
            with np.errstate(over="ignore", invalid="ignore"):
                gray = ~ok & (diag > s * (1.0 - 4.0 * (n + 1) * _U))
            if (~ok & ~gray).any() or int(gray.sum()) > _DOMINANCE_EXACT_MAX:
                continue
            line = (lambda i: off[i]) if axis == 1 else (lambda i: off[:, i])
            if not all(exact_sum_sign([diag[i], *(-line(i)).tolist()]) > 0 for i in np.flatnonzero(gray).tolist()):
                continue
        with np.errstate(over="ignore", invalid="ignore"):
            margin = (diag - s) / diag
        j = int(np.argmin(margin))
        mj = float(margin[j])
        return PMatrixVerdict(
            True,
            TEST_DIAGONALLY_DOMINANT,
            f"every {what} i: A[i,i] > sum_(j != i) |A[{'i,j' if axis else 'j,i'}]| "
            f"(smallest margin {mj:.3g} A[i,i], {what} {j}; rounding bounded, "
            f"borderline sums exact){_near(mj, rtol)}",
            margin=mj,
        )
    return None


def _symmetric_pd(A: np.ndarray, rtol: float) -> PMatrixVerdict | None:
    if not positive_definite(A):
        return None
    n = A.shape[0]
    S = 0.5 * A + 0.5 * A.T
    margin = None
    if n <= _EIG_MAX_N:
        smax = float(np.abs(S).max())
        lam = float(sla.eigh(S, eigvals_only=True, subset_by_index=[0, 0], check_finite=False)[0])
        margin = lam / smax
        detail = (
            f"smallest eigenvalue of (A + A^T)/2 is {lam:.6g} "
            f"({margin:.3g} times its largest entry) > 0; proven by a Cholesky factorisation "
            f"with a shift covering its rounding (Rump){_near(margin, rtol)}"
        )
    else:
        detail = "(A + A^T)/2 is positive definite: a Cholesky factorisation with a shift covering its rounding (Rump)"
    return PMatrixVerdict(True, TEST_SYMMETRIC_PD, detail, margin=margin)


def _signed_det(A: np.ndarray, what: str) -> tuple[int, Fraction | None, str]:
    """``(sign, exact value or None, how)``: the proven sign of ``det A`` (0 when unknown and unproven: see ``how``)."""
    n = A.shape[0]
    sign, proven = det_sign_verified(A)
    if proven and (sign > 0 or n > EXACT_DET_MAX_N):
        return sign, None, "sign proven by a verified LU bound"
    if n <= EXACT_DET_MAX_N:
        d = exact_det(A)
        return (d > 0) - (d < 0), d, "exact"
    return 0, None, f"the LU sign of {what} ({sign:+d}) is not proven and n > {EXACT_DET_MAX_N}"


def _determinant(A: np.ndarray) -> tuple[PMatrixVerdict | None, str]:
    """Step 5: ``det A <= 0`` proves "not P"; a positive float LU sign passes without proof (it decides nothing)."""
    n = A.shape[0]
    sign, proven = det_sign_verified(A, signs=(-1,))  # a positive sign would prove nothing here
    if sign > 0:
        return None, "det A > 0 (passed)"
    everything = tuple(range(n))
    if proven:
        if n <= 16:  # the exact value is cheap: report it
            text = _minor_text(everything, exact_det(A), None, "det A")
        else:
            with np.errstate(all="ignore"):
                logdet = float(np.linalg.slogdet(A)[1])
            size = f" = -{_fmt_log(logdet)}" if math.isfinite(logdet) else ""
            text = f"det A{size} < 0 (sign proven by a verified LU bound)"
        return PMatrixVerdict(False, TEST_DETERMINANT, text, witness=everything), ""
    if n <= EXACT_DET_MAX_N:
        d = exact_det(A)
        if d <= 0:
            return PMatrixVerdict(
                False, TEST_DETERMINANT, _minor_text(everything, d, None, "det A"), witness=everything
            ), ""
        return None, "det A > 0 (passed; exact, the LU sign was not proven)"
    return None, f"det A (undecided: the LU sign {sign:+d} is not proven and n > {EXACT_DET_MAX_N})"


def _eliminate(B: np.ndarray) -> tuple[int, float]:
    """Elimination without pivoting (``B`` modified): ``(j, p_j / m_j)`` for the first pivot ratio
    below ``_SUSPECT``, or ``(-1, 1)``."""
    n = B.shape[0]
    Mg = np.abs(B)
    with np.errstate(all="ignore"):
        for j in range(n):
            p, m = B[j, j], Mg[j, j]
            r = p / m if m > 0.0 else 0.0
            if not r > _SUSPECT:
                return j, float(r)
            col = B[j + 1 :, j] / p
            row = B[j, j + 1 :]
            B[j + 1 :, j + 1 :] -= np.outer(col, row)
            Mg[j + 1 :, j + 1 :] += np.outer(np.abs(col), np.abs(row))
    return -1, 1.0


def _leading_minors(A: np.ndarray, As: np.ndarray, e: np.ndarray) -> tuple[PMatrixVerdict | None, str]:
    """Step 6: the leading minors by elimination without pivoting; a suspect pivot is decided exactly,
    and when its leading minor is positive the elimination restarts from the exact Schur complement."""
    n = A.shape[0]
    start, B = 0, As.copy()
    for _ in range(_LEADING_RESTARTS + 1):
        j, r = _eliminate(B)
        if j < 0:
            return None, "leading principal minors > 0 (passed)"
        J = start + j
        S = tuple(range(J + 1))
        sign, value, how = _signed_det(A[: J + 1, : J + 1], f"the leading minor of order {J + 1}")
        if sign < 0 or (sign == 0 and value is not None):
            text = (
                _minor_text(S, value, r)
                if value is not None
                else f"the principal minor of {_fmt_set(S)} is < 0 ({how}; its pivot is {r:.3g} times its terms)"
            )
            return PMatrixVerdict(False, TEST_LEADING, text, witness=S), ""
        if sign == 0:
            return None, f"leading principal minors (undecided at order {J + 1}: {how})"
        if J + 1 == n:
            return None, "leading principal minors > 0 (passed)"
        if n > EXACT_DET_MAX_N:
            return None, (
                f"leading principal minors > 0 up to order {J + 1} (then not checked: a pivot within "
                f"rounding of zero and n > {EXACT_DET_MAX_N})"
            )
        _, B = schur_complement(A, range(J + 1), range(J + 1, n), row_exp=(-e[J + 1 :]).tolist())
        start = J + 1
    return None, f"leading principal minors > 0 up to order {start} (then not checked: too many restarts)"


def _all_minors(A: np.ndarray, As: np.ndarray, R0: np.ndarray, e: np.ndarray, rtol: float) -> PMatrixVerdict:
    """Step 7: every principal minor, level by level, each sign proven (error bounds, exact fallback)."""
    n = A.shape[0]
    B, R, Mg = As[None, :, :].copy(), R0[None, :, :].copy(), np.abs(As)[None, :, :]
    lowest, lowest_set = math.inf, (0,)
    budget, n_exact = _EXACT_BUDGET, 0
    for k in range(n):
        p, rp, m = B[:, 0, 0], R[:, 0, 0], Mg[:, 0, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = p / m
        pos = p > rp
        if not pos.all():
            neg = -p > rp
            low = min(lowest, float(np.nanmin(r))) if np.isfinite(r).any() else lowest
            # proven negative pivots first (most negative), confirmed by an exact determinant
            idx = np.flatnonzero(neg)
            if idx.size:
                T = int(idx[np.argmin(r[idx])])
                S = _set_of(T, k)
                value = exact_det(A[np.ix_(S, S)])
                if value <= 0:
                    return PMatrixVerdict(
                        False, TEST_EXACT, _minor_text(S, value, float(r[T])), min_minor=low, witness=S
                    )
                neg[T] = False  # (cannot happen: the bound said negative) decide it below
            unsure = np.flatnonzero(~pos)
            order = unsure[np.argsort(np.nan_to_num(r[unsure], nan=-np.inf), kind="stable")]
            if order.size > budget:
                return PMatrixVerdict(
                    None,
                    TEST_UNDECIDED,
                    f"more than {_EXACT_BUDGET} principal minors are within their rounding "
                    f"bound of zero (level {k}: {order.size} of {1 << k}); deciding them all "
                    f"in exact arithmetic is not affordable",
                    min_minor=low,
                )
            J = list(range(k, n))
            for T in order.tolist():
                budget -= 1
                n_exact += 1
                I = list(_set_of(T, k)[:-1])
                sgn, Bex = schur_complement(A, I, J, row_exp=(-e[k:]).tolist())
                if sgn <= 0:  # (cannot happen: the minors of the set T are positive)
                    S = tuple(I)
                    return PMatrixVerdict(
                        False, TEST_EXACT, _minor_text(S, exact_det(A[np.ix_(S, S)])), min_minor=low, witness=S
                    )
                pk = Bex[0, 0]  # exact sign (rounded once, sign kept)
                if not pk > 0.0:
                    S = _set_of(T, k)
                    with np.errstate(divide="ignore", invalid="ignore"):
                        ratio = float(pk / m[T]) if m[T] > 0 else 0.0
                    return PMatrixVerdict(
                        False,
                        TEST_EXACT,
                        _minor_text(S, exact_det(A[np.ix_(S, S)]), ratio),
                        min_minor=min(low, ratio),
                        witness=S,
                    )
                B[T] = Bex
                R[T] = up(np.abs(Bex) * _U)  # the error of one rounding
                r[T] = pk / m[T] if m[T] > 0 else 1.0
        j = int(np.argmin(r))  # (the first NaN if there is one)
        if r[j] != r[j]:
            j = int(np.nanargmin(r)) if not np.isnan(r).all() else 0
        if r[j] < lowest:
            lowest, lowest_set = float(r[j]), _set_of(j, k)
        if k + 1 < n:
            B, R, Mg = _advance(B, R, Mg)
    how = (
        "each sign proven by rigorous error bounds"
        if not n_exact
        else f"each sign proven by rigorous error bounds, {n_exact} within them decided in exact arithmetic"
    )
    return PMatrixVerdict(
        True,
        TEST_EXACT,
        f"all {(1 << n) - 1} principal minors are positive ({how}); the smallest pivot ratio "
        f"is {lowest:.3g} (index set {_fmt_set(lowest_set)}){_near(lowest, rtol)}",
        min_minor=lowest,
        margin=lowest,
    )

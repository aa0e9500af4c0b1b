"""Is a matrix a P-matrix?  (All principal minors positive.)

The LCP ``w = A z + b, z >= 0, w >= 0, z^T w = 0`` has a unique solution for
every ``b`` if and only if ``A`` is a P-matrix (Cottle, Pang & Stone, *The
Linear Complementarity Problem*, 1992, Theorem 3.3.7).  This is the test behind
Yashima & Yamaguchi's "dynamic determinacy" (Section III-C: "A P-matrix =>
unique solution for all b"): a contact state is determinate when the matrix of
its LCP is a P-matrix.

:func:`p_matrix_test` runs cheap necessary and sufficient conditions first, in
order of cost, and the exact test last:

1. every diagonal entry is positive (necessary, ``O(n)``);
2. every 2x2 principal minor is positive (necessary, ``O(n^2)``, n <= 1000);
3. strict row or column diagonal dominance with a positive diagonal
   (sufficient, ``O(n^2)``: every principal submatrix is then strictly
   diagonally dominant with a positive diagonal, so by Gershgorin its real
   eigenvalues are positive and its determinant is positive);
4. the symmetric part ``(A + A^T)/2`` is positive definite (sufficient,
   ``O(n^3)``, one Cholesky factorisation: ``x^T A x > 0`` for ``x != 0``
   forbids a sign-reversing vector);
5. ``det A > 0`` (necessary, ``O(n^3)``, one LU factorisation with partial
   pivoting; only a clearly negative determinant decides);
6. the leading principal minors are positive (necessary, ``O(n^3)``, n <= 1000:
   elimination without pivoting, the recursion's own path to ``{0..n-1}``, so
   it fails exactly where the exact test would);
7. for ``n <= exact_max_n``: all ``2^n - 1`` principal minors by the recursive
   Schur-complement algorithm of Tsatsomeros & Li (*A recursive test for
   P-matrices*, BIT 40 (2000)) in the form of Griffin & Tsatsomeros
   (*Principal minors, Part I: A method for computing all the principal minors
   of a matrix*, Linear Algebra Appl. 419 (2006), doi:10.1016/j.laa.2006.04.008, "MAT2PM"), stopping
   at the first level with a nonpositive minor.

**The recursion.**  For ``T`` a subset of ``{0..k-1}`` let ``B_T`` be the Schur
complement of ``A[T, T]`` in ``A[T + {k..n-1}]`` (an ``(n-k) x (n-k)`` matrix
on the indices ``k..n-1``).  Then ``det A[T + S] = det A[T] det B_T[S]`` for
every ``S`` in ``{k..n-1}``, so the minors of the sets whose largest index is
``k`` are ``det A[T] * B_T[0, 0]``, and the next level has two matrices per
``T``: ``B_T`` without its first row and column (``k`` left out) and its Schur
complement on the pivot ``B_T[0, 0]`` (``k`` put in).  Level ``k`` holds
``2^k`` matrices of size ``n - k``: ``sum_k 2^k (n-k)^2 ~ 6 2^n`` flops for all
minors, vectorised over each level with numpy.

**Zero pivots** (:func:`principal_minors`).  A pivot ``B_T[0, 0]`` that is
zero, or small (below 0.1 times the largest entry of its row and column),
would make the Schur complement undefined or large.  When its whole row or
column is zero, every minor of the branch ``T + {k}`` is exactly zero and is
set so.  Otherwise, as in MAT2PM, it is replaced by a *pseudo-pivot*
``B_T[0, 0] + delta`` (the size of that row and column), which amounts to
adding ``delta`` to ``A[k, k]`` in the branch ``T + {k}``.  A determinant is
linear in each diagonal entry, so the true minors are recovered exactly (in
exact arithmetic): ``det A[X] = det A'[X] - delta det A'[X - {k}]`` for every
``X`` in the branch; the corrections are applied level by level, deepest
first.  The threshold 0.1 (MAT2PM uses an absolute ``1e-5``) bounds the
growth of the entries by a factor 10 per level; on rank-deficient and badly
scaled test matrices it gave errors of ~1e-15 relative to the product of the
norms of the rows in the index set, against ~1e-10 with ``1e-5``.  The
P-test needs no pseudo-pivots: it stops at the first level with a pivot that
is not clearly positive (below), so it never divides by a pivot near zero —
such a pivot means a principal minor near zero, a witness.

**Borderline.**  Each minor is the product of the minor of the set without
its largest index ``k`` and a pivot ``p = A[k,k] - sum_j l_kj u_jk`` (the
Schur complement entry).  A minor counts as positive only when that pivot
exceeds ``rtol`` times the magnitude ``m = |A[k,k]| + sum_j |l_kj u_jk|`` of
the terms that cancel in it (the diagonal of ``|L| |U|``, the scale of the
rounding error of an elimination, Higham, *Accuracy and Stability of
Numerical Algorithms*, Theorem 9.3); a pivot within ``rtol`` times ``m`` of
zero is reported as "borderline" and counts as not positive: rounding cannot
tell its minor from zero.  The ratio ``p / m`` lies in ``[-1, 1]``, and does
not change when rows or columns are scaled by positive numbers (which
preserves the P-property); it is 1 for a triangular matrix whatever its
off-diagonal entries, where a ratio to Hadamard's bound would be tiny.  The
2x2 and leading-minor tests use the same ratio (they are paths of the same
recursion), the determinant test the ratio of the LU factors of a partially
pivoted elimination.  The minor named as a witness
is recomputed by an LU factorisation with partial pivoting (backward stable);
if that says clearly positive where the recursion said clearly negative, the
verdict is "undecided".  The recursion itself does not pivot, so it is not
backward stable in general: a tiny positive pivot makes the later ratios
small and the verdict errs towards "not P (borderline)".
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
import scipy.linalg as sla

from .._validate import matrix
from ..errors import InvalidOptionError, InvalidProblemError

__all__ = [
    "PMatrixVerdict",
    "p_matrix_test",
    "principal_minors",
    "PRINCIPAL_MINORS_MAX_N",
    "EXACT_HARD_MAX_N",
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

#: :func:`principal_minors` accepts matrices up to this size (2^20 - 1 minors, 8 MB)
PRINCIPAL_MINORS_MAX_N = 20
#: the exact test never runs above this size, whatever ``exact_max_n`` says
#: (time and memory grow as 2^n: n = 20 takes ~0.2 s and ~0.1 GB, n = 22 ~1 s
#: and ~0.3 GB, n = 24 would take ~3 s and ~0.8 GB)
EXACT_HARD_MAX_N = 22

_PAIRS_MAX_N = 1000       # the 2x2 test builds a few n x n arrays
_LEADING_MAX_N = 1000     # elimination without pivoting, O(n^3) in numpy rank-1 updates
_EIG_MAX_N = 1000         # report the symmetric part's smallest eigenvalue up to this size
_PSEUDO_PIVOT = 0.1       # principal_minors: pseudo-pivot when |pivot| <= this times its row/column's largest entry


@dataclass(frozen=True)
class PMatrixVerdict:
    """The outcome of :func:`p_matrix_test`.

    ``is_p``: True (a P-matrix), False (not one) or None (undecided).
    ``test``: which test decided (one of the ``TEST_*`` strings).
    ``detail``: what it found, in words (a failing minor's index set and value,
    the smallest eigenvalue of the symmetric part, the tests tried, ...).
    ``min_minor``: when the exact test ran, the smallest principal minor it
    computed, relative to its scale: ``det A[S] / (det A[S - {k}] m)`` with
    ``k = max S`` and ``m`` the magnitude of the terms of that pivot (see the
    module docstring; in ``[-1, 1]``, 1 for a triangular matrix); None otherwise.
    ``witness``: when ``is_p`` is False, the index set (0-based, increasing) of a
    principal minor that is nonpositive or within ``rtol`` of zero.

    There is deliberately no ``__bool__`` (an undecided verdict is neither
    true nor false): use ``verdict.is_p is True`` or :attr:`decided`.
    """

    is_p: bool | None
    test: str
    detail: str
    min_minor: float | None = None
    witness: tuple[int, ...] | None = None

    @property
    def decided(self) -> bool:
        """True when a test decided (``is_p`` is not None)."""
        return self.is_p is not None


# ---------------------------------------------------------------------------
# the recursion


def _levels_ratio(As: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """The P-test's recursion: yield ``(k, r)``, ``r[T] = p / m`` for the sets ``T + {k}`` (``T`` a bitmask of ``{0..k-1}``).

    ``p = det A[T + {k}] / det A[T]`` is the pivot ``B_T[0, 0]`` and ``m`` the
    magnitude of its terms (``|L| |U|`` of the elimination along the path).  The
    next level is built only when the caller asks for it, and only makes sense
    when every ``r`` of this level was positive.
    """
    n = As.shape[0]
    B = As[None, :, :].copy()        # B[T] = B_T
    Mg = np.abs(B)                   # Mg[T]: |A| plus the |l_ij u_jk| eliminated so far
    for k in range(n):
        half = 1 << k
        p = B[:, 0, 0].copy()
        with np.errstate(divide="ignore", invalid="ignore"):
            r = p / Mg[:, 0, 0]
        yield k, r
        if k + 1 < n:
            m = n - k - 1
            nxt = np.empty((2 * half, m, m))
            mnx = np.empty((2 * half, m, m))
            nxt[:half] = B[:, 1:, 1:]
            mnx[:half] = Mg[:, 1:, 1:]
            with np.errstate(all="ignore"):   # overflow only after a pivot near the underflow level
                col = B[:, 1:, :1] / p[:, None, None]                     # l_ik
                np.multiply(col, B[:, :1, 1:], out=nxt[half:])
                np.subtract(B[:, 1:, 1:], nxt[half:], out=nxt[half:])
                np.multiply(np.abs(col), np.abs(B[:, :1, 1:]), out=mnx[half:])
                mnx[half:] += Mg[:, 1:, 1:]
            B, Mg = nxt, mnx


def _levels_minors(As: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(k, m)``: the principal minors of the sets ``T + {k}``, ``m[T]`` for ``T`` a bitmask of ``{0..k-1}``.

    Levels ``k = 0, 1, ..., n-1`` in turn, all ``2^n - 1`` minors over the run,
    with pseudo-pivots where a pivot is (nearly) zero and their effect undone.
    """
    n = As.shape[0]
    comp = np.empty(1 << n)      # minors of the pseudo-pivoted matrices: the multipliers
    comp[0] = 1.0
    B = As[None, :, :].copy()    # B[T] = B_T, level 0: A itself
    records: list[tuple[int, np.ndarray]] = []   # (level, delta[T]) of the pseudo-pivots
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
        comp[half:2 * half] = mult * used
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


def _row_scaled(A: np.ndarray) -> np.ndarray:
    d = np.abs(A).max(axis=1)
    d[d == 0.0] = 1.0
    return A / d[:, None]


def _set_of(T: int, k: int) -> tuple[int, ...]:
    return tuple(i for i in range(k) if (T >> i) & 1) + (k,)


def _fmt_set(s: tuple[int, ...]) -> str:
    return "{" + ", ".join(str(i) for i in s) + "}"


def _lu_ratio(A: np.ndarray) -> tuple[float, float]:
    """``(det A, ratio)`` by LU with partial pivoting; ``ratio = sign(det) min_k |u_kk| / (|L| |U|)_kk``."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", sla.LinAlgWarning)
        lu, piv = sla.lu_factor(A, check_finite=False)
        u = np.diag(lu)
        mag = np.einsum("ij,ji->i", np.abs(np.tril(lu, -1)), np.abs(np.triu(lu))) + np.abs(u)
        swaps = int(np.count_nonzero(piv != np.arange(piv.size)))
        sign = (-1.0) ** swaps * float(np.prod(np.sign(u)))
        if sign == 0.0:
            return 0.0, 0.0
        det = sign * float(np.exp(np.sum(np.log(np.abs(u)))))
        ratio = sign * float(np.min(np.abs(u) / mag))
    return det, (0.0 if np.isnan(ratio) else ratio)


def principal_minors(A: Any) -> np.ndarray:
    """All ``2^n - 1`` principal minors of ``A`` (``n <= 20``), by the Griffin–Tsatsomeros recursion.

    Order: bitmask order, entry ``k - 1`` is ``det A[S, S]`` for ``S = {i : bit
    i of k is set}`` — ``A[0]``, ``A[1]``, ``A[0,1]``, ``A[2]``, ``A[0,2]``,
    ``A[1,2]``, ``A[0,1,2]``, ... (the order of MAT2PM, 0-based).  Zero pivots
    are handled by pseudo-pivoting (see the module docstring), so singular
    principal submatrices are fine.  ``O(2^n)`` time and memory (0.1 s at
    n = 20).  Raises :class:`~contactcp.errors.InvalidProblemError` (field
    ``"A"``) unless ``A`` is a non-empty, square, finite 2-D array with n <= 20.

    K. Griffin & M. J. Tsatsomeros, *Principal minors, Part I: A method for
    computing all the principal minors of a matrix*, Linear Algebra Appl. 419
    (2006), doi:10.1016/j.laa.2006.04.008.
    """
    A = _square(A)
    n = A.shape[0]
    if n > PRINCIPAL_MINORS_MAX_N:
        raise InvalidProblemError(
            "A", f"principal_minors takes n <= {PRINCIPAL_MINORS_MAX_N} (2^n - 1 minors), got n = {n}")
    d = np.abs(A).max(axis=1)
    d[d == 0.0] = 1.0
    out = np.empty(1 << n)
    out[0] = 1.0
    for k, val in _levels_minors(A / d[:, None]):
        out[1 << k:2 << k] = val
    # undo the row scaling: the minor of S times prod_{i in S} d_i
    prod = np.empty(1 << n)
    prod[0] = 1.0
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):   # minors beyond the float range
        for j in range(n):
            np.multiply(prod[:1 << j], d[j], out=prod[1 << j:2 << j])
        out *= prod
    return out[1:]


# ---------------------------------------------------------------------------
# the test


def _square(A: Any) -> np.ndarray:
    A = matrix(A, "A", square=True)
    if A.shape[0] == 0:
        raise InvalidProblemError("A", "must be non-empty, got shape (0, 0)")
    return A


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
    "not P" (with a ``witness``); strict row or column diagonal
    dominance with a positive diagonal, or a positive definite symmetric part
    (a Cholesky factorisation of ``(A + A^T)/2 - rtol max|S_ij| I``), prove "P".
    Otherwise, for ``n <= exact_max_n`` (and never above
    :data:`EXACT_HARD_MAX_N` = 22), all principal minors are checked by the
    Tsatsomeros–Li recursion, level by level, stopping at the first level with
    one that is not positive; above that size the verdict is ``is_p=None``
    ("undecided") and ``detail`` lists the tests tried.

    A minor counts as positive only when its last pivot exceeds ``rtol`` times
    the magnitude of the terms that cancel in it; one within that distance of
    zero is "borderline" and counts as not positive.  The exact test takes
    about 0.2 s at n = 20 when it has to run to the end.

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
        return PMatrixVerdict(False, TEST_DIAGONAL, f"A[{i},{i}] = {diag[i]:.6g} <= 0 (a 1x1 principal minor)",
                              witness=(i,))
    tried.append("diagonal > 0 (passed)")
    As = _row_scaled(A)

    # 2. 2x2 principal minors (necessary)
    if 2 <= n <= _PAIRS_MAX_N:
        v = _pairs(A, rtol)
        if v is not None:
            return v
        tried.append("2x2 minors > 0 (passed)")
    elif n > _PAIRS_MAX_N:
        tried.append(f"2x2 minors (skipped, n > {_PAIRS_MAX_N})")

    # 3. strict diagonal dominance (sufficient)
    absA = np.abs(A)
    for axis, what in ((1, "row"), (0, "column")):
        with np.errstate(over="ignore", invalid="ignore"):
            margin = (diag - (absA.sum(axis=axis) - diag)) / diag
        j = int(np.argmin(margin))
        if margin[j] > rtol:
            return PMatrixVerdict(True, TEST_DIAGONALLY_DOMINANT,
                                  f"every {what} i: A[i,i] > sum_(j != i) |A[{'i,j' if axis else 'j,i'}]| "
                                  f"(smallest margin {margin[j]:.3g} A[i,i], {what} {j})")
    tried.append("strict row/column diagonal dominance (no)")

    # 4. positive definite symmetric part (sufficient)
    v = _symmetric_pd(A, rtol)
    if v is not None:
        return v
    tried.append("symmetric part positive definite (no)")

    # 5. determinant (necessary): LU with partial pivoting, backward stable; only a clearly
    # negative determinant decides (a pivot within rounding of zero may be an artefact of the
    # pivot order, e.g. for a permuted triangular matrix)
    _, ratio = _lu_ratio(As)
    det, _ = _lu_ratio(A)
    everything = tuple(range(n))
    if ratio < -rtol:
        return PMatrixVerdict(False, TEST_DETERMINANT, _minor_text(everything, det, ratio, rtol, "det A"),
                              witness=everything)
    tried.append("det A > 0 (passed)" if ratio > rtol else
                 f"det A > 0 (borderline: an LU pivot is {ratio:.3g} times its terms)")

    # 6. leading principal minors (necessary): the recursion's own path to {0..n-1}, so a
    # failure here is exactly one the exact test would report
    if n <= _LEADING_MAX_N:
        j, r = _leading(As, rtol)
        if j >= 0:
            v = _witness_verdict(A, As, tuple(range(j + 1)), r, rtol, TEST_LEADING, None)
            if v.decided:
                return v
            tried.append(f"leading principal minors > 0 (unreliable: {v.detail})")
        else:
            tried.append("leading principal minors > 0 (passed)")
    else:
        tried.append(f"leading principal minors (skipped, n > {_LEADING_MAX_N})")

    # 7. all principal minors
    limit = min(exact_max_n, EXACT_HARD_MAX_N)
    if n <= limit:
        return _exact(A, As, rtol)
    cap = f"exact_max_n = {exact_max_n}" if exact_max_n <= EXACT_HARD_MAX_N else \
        f"the hard limit {EXACT_HARD_MAX_N} (exact_max_n = {exact_max_n})"
    return PMatrixVerdict(None, TEST_UNDECIDED,
                          f"n = {n} is above {cap}, so the 2^n - 1 principal minors were not checked; "
                          f"tests tried: " + "; ".join(tried))


def _minor_text(S: tuple[int, ...], value: float, ratio: float, rtol: float, name: str | None = None) -> str:
    name = name or f"the principal minor of {_fmt_set(S)}"
    if abs(ratio) <= rtol:
        return (f"borderline: {name} = {value:.6g} is within rounding of zero (its pivot is "
                f"{ratio:.3g} times the magnitude of its terms, rtol = {rtol:g}); counted as not positive")
    return f"{name} = {value:.6g} <= 0 (its pivot is {ratio:.3g} times the magnitude of its terms)"


def _pairs(A: np.ndarray, rtol: float) -> PMatrixVerdict | None:
    # ratio (a_ii a_jj - a_ij a_ji) / (a_ii a_jj + |a_ij a_ji|) = (1 - t) / (1 + |t|) with
    # t = a_ij a_ji / (a_ii a_jj) (diagonal positive here), formed in logarithms: no over/underflow
    n = A.shape[0]
    with np.errstate(all="ignore"):
        L = np.log(np.abs(A))
        ld = np.diag(L).copy()
        t = np.sign(A) * np.sign(A.T) * np.exp(L + L.T - ld[:, None] - ld[None, :])
        r = np.where(np.isinf(t), -np.sign(t), (1.0 - t) / (1.0 + np.abs(t)))[np.triu_indices(n, 1)]
    bad = ~(r > rtol)
    if not bad.any():
        return None
    iu = np.triu_indices(n, 1)
    idx = np.flatnonzero(bad)
    j = int(idx[np.argmin(np.nan_to_num(r[idx], nan=-np.inf))])
    S = (int(iu[0][j]), int(iu[1][j]))
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(A[S[0], S[0]] * A[S[1], S[1]] - A[S[0], S[1]] * A[S[1], S[0]])
    return PMatrixVerdict(False, TEST_2X2, _minor_text(S, value, float(r[j]), rtol), witness=S)


def _leading(As: np.ndarray, rtol: float) -> tuple[int, float]:
    """Elimination without pivoting: ``(j, p_j / m_j)`` for the first pivot not above ``rtol`` times its terms, or ``(-1, 1)``."""
    n = As.shape[0]
    B = As.copy()
    Mg = np.abs(As)
    with np.errstate(all="ignore"):
        for j in range(n):
            p, m = B[j, j], Mg[j, j]
            r = p / m if m > 0.0 else 0.0
            if not r > rtol:
                return j, float(r)
            col = B[j + 1:, j] / p
            row = B[j, j + 1:]
            B[j + 1:, j + 1:] -= np.outer(col, row)
            Mg[j + 1:, j + 1:] += np.outer(np.abs(col), np.abs(row))
    return -1, 1.0


def _witness_verdict(A: np.ndarray, As: np.ndarray, S: tuple[int, ...], rec: float, rtol: float, test: str,
                     low: float | None) -> PMatrixVerdict:
    """Not P, witness ``S`` (pivot ratio ``rec <= rtol`` in the recursion), rechecked by LU with partial pivoting."""
    ix = np.ix_(S, S)
    det, _ = _lu_ratio(A[ix])
    _, ratio_lu = _lu_ratio(As[ix])
    if math.isnan(rec) or (rec < -rtol and ratio_lu > rtol):
        # clearly negative for the recursion, clearly positive for LU: pivot growth ruined the recursion
        return PMatrixVerdict(None, TEST_UNDECIDED,
                              f"the principal minor of {_fmt_set(S)} has pivot ratio {rec:.3g} by elimination "
                              f"without pivoting but {ratio_lu:.3g} (det {det:.6g}) by LU with partial "
                              f"pivoting: the recursion is numerically unreliable for this matrix", min_minor=low)
    return PMatrixVerdict(False, test, _minor_text(S, det, rec, rtol), min_minor=low, witness=S)


def _symmetric_pd(A: np.ndarray, rtol: float) -> PMatrixVerdict | None:
    n = A.shape[0]
    S = 0.5 * A + 0.5 * A.T
    smax = float(np.abs(S).max())
    K = S.copy()
    K.flat[::n + 1] -= rtol * smax
    try:
        sla.cho_factor(K, overwrite_a=True, check_finite=False)
    except (np.linalg.LinAlgError, ValueError):
        return None
    if n <= _EIG_MAX_N:
        lam = float(sla.eigh(S, eigvals_only=True, subset_by_index=[0, 0], check_finite=False)[0])
        detail = (f"smallest eigenvalue of (A + A^T)/2 is {lam:.6g} "
                  f"({lam / smax:.3g} times its largest entry) > 0")
    else:
        detail = f"(A + A^T)/2 - {rtol:g} max|S_ij| I has a Cholesky factorisation"
    return PMatrixVerdict(True, TEST_SYMMETRIC_PD, detail)


def _exact(A: np.ndarray, As: np.ndarray, rtol: float) -> PMatrixVerdict:
    n = A.shape[0]
    lowest, lowest_set = math.inf, (0,)
    for k, r in _levels_ratio(As):
        bad = ~(r > rtol)
        if bad.any():
            idx = np.flatnonzero(bad)
            T = int(idx[np.argmin(np.nan_to_num(r[idx], nan=-np.inf))])
            S, rec = _set_of(T, k), float(r[T])
            return _witness_verdict(A, As, S, rec, rtol, TEST_EXACT, min(lowest, rec))
        j = int(np.argmin(r))
        if r[j] < lowest:
            lowest, lowest_set = float(r[j]), _set_of(j, k)
    return PMatrixVerdict(True, TEST_EXACT,
                          f"all {(1 << n) - 1} principal minors are positive; the smallest pivot ratio is "
                          f"{lowest:.3g} (index set {_fmt_set(lowest_set)})",
                          min_minor=lowest)

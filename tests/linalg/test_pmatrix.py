"""The P-matrix test (contactcp.linalg.pmatrix) against brute force and exact rational arithmetic.

Every decided verdict must agree with an exact rational oracle written here (all
principal minors by Fraction elimination): zero wrong verdicts, on any CPU.
"""

import dataclasses
import json
import os
import platform
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.linalg import block_diag

from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.linalg.pmatrix import (
    EXACT_HARD_MAX_N,
    TEST_2X2,
    TEST_DETERMINANT,
    TEST_DIAGONAL,
    TEST_DIAGONALLY_DOMINANT,
    TEST_EXACT,
    TEST_LEADING,
    TEST_SYMMETRIC_PD,
    TEST_UNDECIDED,
    PMatrixVerdict,
    p_matrix_test,
    principal_minors,
)
from contactcp.solvers.lcp.interior_point import _is_p_matrix

RTOL = 1e-10

# det = 1 - 8 = -7; diagonal 1, every 2x2 minor 1, symmetric part indefinite, not dominant
NEG3 = np.array([[1.0, 0.0, -2.0], [-2.0, 1.0, 0.0], [0.0, -2.0, 1.0]])
# the same with a*b*c = -1: det exactly 0, every 2x2 minor 1, symmetric part PSD but singular
SING3 = np.array([[1.0, 0.0, -1.0], [-1.0, 1.0, 0.0], [0.0, -1.0, 1.0]])


def _embed(C, u):
    """[[1, u], [e_last, C]]: C at {1, 2, 3}; with u = (-2, -2, -2) the leading minors and det A stay positive."""
    A = np.zeros((4, 4))
    A[0, 0] = 1.0
    A[0, 1:] = u
    A[3, 0] = 1.0
    A[1:, 1:] = C
    return A


# ---------------------------------------------------------------------------
# oracles, computed here independently


def _subsets(n):
    """All nonempty index sets in the documented bitmask order (entry k-1 <-> bits of k)."""
    return [[i for i in range(n) if (k >> i) & 1] for k in range(1, 1 << n)]


def _det(sub):
    """np.linalg.det of the submatrix with its rows equilibrated by powers of two (exact rescaling)."""
    m = np.abs(sub).max(axis=1)
    e = np.where(m > 0, np.round(np.log2(np.where(m > 0, m, 1.0))), 0.0)
    with np.errstate(all="ignore"):  # LAPACK's det may underflow on tiny entries
        return float(np.linalg.det(np.ldexp(sub, -e[:, None].astype(int))) * np.prod(np.ldexp(1.0, e.astype(int))))


def brute_minors(A):
    return np.array([_det(A[np.ix_(S, S)]) for S in _subsets(A.shape[0])])


def hadamard(A, S):
    """Hadamard's bound prod_i ||row i of A[S, S]||, without underflow in the squares."""
    sub = A[np.ix_(S, S)]
    m = np.abs(sub).max(axis=1)
    m[m == 0] = 1.0
    return float(np.prod(m * np.linalg.norm(sub / m[:, None], axis=1)))


def _row_norm(r):
    m = np.abs(r).max()
    return float(m * np.linalg.norm(r / m)) if m > 0 else 0.0


def exact_det(M):
    """Determinant in exact rational arithmetic (every float is a rational)."""
    M = [[Fraction(float(x)) for x in row] for row in M]
    n, det = len(M), Fraction(1)
    for c in range(n):
        piv = next((r for r in range(c, n) if M[r][c] != 0), None)
        if piv is None:
            return Fraction(0)
        if piv != c:
            M[c], M[piv] = M[piv], M[c]
            det = -det
        det *= M[c][c]
        for r in range(c + 1, n):
            f = M[r][c] / M[c][c]
            if f:
                M[r] = [a - f * b for a, b in zip(M[r], M[c])]
    return det


def exact_is_p(A):
    return all(exact_det(A[np.ix_(S, S)]) > 0 for S in _subsets(A.shape[0]))


def assert_real_witness(A, v):
    """The witness's minor is nonpositive in exact arithmetic, and the detail says which."""
    assert v.is_p is False and v.witness is not None
    S = list(v.witness)
    assert S == sorted(set(S)) and 0 <= S[0] and S[-1] < A.shape[0]
    d = exact_det(A[np.ix_(S, S)])
    assert d <= 0
    assert ("= 0 exactly" in v.detail) == (d == 0)


def assert_agrees_with_oracle(A, v, truth=None):
    """A decided verdict equals the exact truth; a "not P" one names a real witness."""
    truth = exact_is_p(A) if truth is None else truth
    if v.decided:
        assert v.is_p is truth, (v, truth)
    if v.is_p is False:
        assert_real_witness(A, v)


# ---------------------------------------------------------------------------
# random matrices by family, from a seed


def p_family(kind, n, rng):
    """P-matrices: SPD, triangular (permuted) with huge off-diagonal entries, M-matrices, inverses, scalings."""
    if kind == "spd":
        B = rng.standard_normal((n, n))
        return B @ B.T + 1e-2 * np.eye(n)
    if kind == "triangular":
        A = np.triu(rng.standard_normal((n, n)) * 10.0 ** rng.uniform(1, 4), 1) + np.diag(rng.uniform(0.1, 2, n))
        P = rng.permutation(n)
        return A[np.ix_(P, P)]
    if kind == "m-matrix":
        N = rng.uniform(0, 1, (n, n)) * (rng.uniform(size=(n, n)) < 0.6)
        s = max(np.max(np.abs(np.linalg.eigvals(N))), 1e-3)
        return s * rng.uniform(1.01, 1.5) * np.eye(n) - N
    if kind == "pd-plus-skew-inverse":  # positive definite symmetric part, inverted and row-scaled: P, not PD
        B, K = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        A = np.linalg.inv(B @ B.T + 0.1 * np.eye(n) + 5 * (K - K.T))
        return A * rng.uniform(0.1, 10, n)[:, None]
    raise AssertionError(kind)


P_KINDS = ["spd", "triangular", "m-matrix", "pd-plus-skew-inverse"]


# ---------------------------------------------------------------------------
# principal_minors


def test_principal_minors_order_is_bitmask():
    assert principal_minors(np.diag([2.0, 3.0, 5.0])).tolist() == [2, 3, 6, 5, 10, 15, 30]
    pm = principal_minors([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(pm, [1.0, 4.0, -2.0], rtol=1e-14)
    # zero pivots everywhere
    np.testing.assert_allclose(principal_minors([[0.0, 1.0], [1.0, 0.0]]), [0.0, 0.0, -1.0], atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        np.float64, st.integers(1, 8).map(lambda n: (n, n)), elements=st.floats(-10, 10, allow_nan=False, width=64)
    )
)
def test_principal_minors_match_determinants(A):
    # accuracy relative to the product of the norms of the rows i in S of the whole matrix
    # (a pseudo-pivot is the size of its row and column, which may dwarf the submatrix)
    pm = principal_minors(A)
    subsets = _subsets(A.shape[0])
    assert pm.shape == (len(subsets),)
    rows = np.array([_row_norm(r) for r in A])
    for val, ref, S in zip(pm, brute_minors(A), subsets):
        assert abs(val - ref) <= 1e-9 * max(float(np.prod(rows[S])), 1e-300)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 7).map(lambda n: (n, n)), elements=st.sampled_from([-1.0, 0.0, 1.0, 2.0])))
def test_principal_minors_with_zero_pivots_are_exact(A):
    # small integers: every minor is an integer, many pivots are exactly zero (pseudo-pivoting)
    pm = principal_minors(A)
    exact = [exact_det(A[np.ix_(S, S)]) for S in _subsets(A.shape[0])]
    np.testing.assert_allclose(pm, np.array(exact, dtype=float), atol=1e-9)


def test_principal_minors_n12_and_scaling():
    rng = np.random.default_rng(3)
    n = 12
    A = rng.standard_normal((n, n)) * rng.uniform(1e-3, 1e3, n)[:, None]
    pm = principal_minors(A)
    ref = brute_minors(A)
    h = np.array([hadamard(A, S) for S in _subsets(n)])
    assert np.all(np.abs(pm - ref) <= 1e-9 * h)


def test_principal_minors_size_limit():
    with pytest.raises(InvalidProblemError) as err:
        principal_minors(np.eye(21))
    assert err.value.field == "A"


# ---------------------------------------------------------------------------
# verdicts against brute force


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(P_KINDS), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_p_families_are_p(kind, n, seed):
    A = p_family(kind, n, np.random.default_rng(seed))
    if kind != "triangular":  # P by construction; float determinants of it can have any sign
        assert np.all(brute_minors(A) > 0)
    v = p_matrix_test(A)
    assert v.is_p is True and v.decided and v.witness is None, v
    if v.test == TEST_EXACT:
        assert RTOL < v.min_minor <= 1.0


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 5), st.integers(0, 2**32 - 1), st.booleans())
def test_random_matrices_match_exact_arithmetic(n, seed, positive_diagonal):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    if positive_diagonal:  # otherwise the diagonal test decides most of them
        A[np.diag_indices(n)] = np.abs(A.diagonal()) * rng.uniform(0.5, 4) + 0.1
    v = p_matrix_test(A)
    assert v.decided
    assert_agrees_with_oracle(A, v)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(P_KINDS), st.integers(3, 7), st.integers(0, 2**32 - 1), st.data())
def test_broken_p_matrices_agree_with_exact_arithmetic(kind, n, seed, data):
    # a P-matrix with one principal submatrix shifted to singular (in floating point: its exact
    # minor is then tiny, of either sign) or clearly negative; only exact arithmetic knows which
    rng = np.random.default_rng(seed)
    A = p_family(kind, n, rng)
    k = data.draw(st.integers(2, n))
    S = sorted(rng.choice(n, size=k, replace=False).tolist())
    sub = A[np.ix_(S, S)]
    lam = np.linalg.eigvals(sub)
    real = lam[np.abs(lam.imag) <= 1e-9 * np.abs(lam).max()].real
    assume(real.size > 0)  # (an odd-sized block always has a real eigenvalue)
    t = data.draw(st.sampled_from([0.0, 0.5]))
    A[np.ix_(S, S)] -= real.min() * (1.0 + t) * np.eye(k)
    v = p_matrix_test(A)
    assert v.decided, v
    assert_agrees_with_oracle(A, v)
    if t > 0:
        assert v.is_p is False


# ---------------------------------------------------------------------------
# families built to sit on the rounding boundary, against the exact oracle


def integer_matrix(n, rng):
    """Small integers: many principal minors exactly zero, every pivot a rational."""
    A = rng.integers(-2, 4, (n, n)).astype(float)
    if rng.uniform() < 0.7:
        A[np.diag_indices(n)] = rng.integers(1, 4, n)
    return A


def permuted_triangular(n, rng):
    """P by construction (every principal minor a product of diagonal entries), off-diagonal
    entries up to 1e12: the LU of a permutation of it has pivots at the rounding level."""
    T = np.triu(rng.choice([-1.0, 1.0], (n, n)) * 10.0 ** rng.uniform(0, 12, (n, n)), 1)
    T[np.diag_indices(n)] = rng.choice([0.125, 0.5, 1.0, 3.0, 1e-3], n)
    P = rng.permutation(n)
    return T[np.ix_(P, P)]


def near_singular(n, rng):
    """A singular positive semidefinite block (a Gram matrix of k integer vectors in k - 1
    dimensions) in an integer matrix, then usually one diagonal entry of the block nudged by a few
    units in the last place: that minor is tiny, of either sign, or exactly zero."""
    A = rng.integers(-1, 2, (n, n)).astype(float)
    A[np.diag_indices(n)] = 6.0
    k = int(rng.integers(2, n + 1))
    S = np.sort(rng.choice(n, size=k, replace=False))
    Bv = rng.integers(-2, 3, (k, k - 1)).astype(float)
    Bv[~Bv.any(axis=1), 0] = 1.0  # nonzero rows: a positive diagonal
    A[np.ix_(S, S)] = Bv @ Bv.T  # det A[S, S] = 0 exactly
    i = int(S[rng.integers(k)])
    A[i, i] += rng.choice([0.0, 1.0, -1.0, 3.0, -3.0]) * 2.0**-50 * A[i, i]
    return A


def float_matrix(n, rng):
    A = rng.standard_normal((n, n))
    A[np.diag_indices(n)] = np.abs(A.diagonal()) + rng.uniform(0.0, 1.5)
    return A


FAMILIES = {
    "integer": integer_matrix,
    "permuted-triangular": permuted_triangular,
    "near-singular": near_singular,
    "float": float_matrix,
}


def rescaled(A, rng, how):
    """Positive power-of-two scalings: every principal minor keeps its sign."""
    n = A.shape[0]
    if how == "none":
        return A
    if how == "whole":
        return np.ldexp(A, int(rng.choice([-40, 40])))
    r = rng.integers(-40, 41, n)
    c = rng.integers(-40, 41, n)
    return np.ldexp(np.ldexp(A, r[:, None]), c[None, :])


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(sorted(FAMILIES)),
    st.integers(2, 7),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["none", "whole", "rows-and-columns"]),
)
def test_families_on_the_rounding_boundary_agree_with_exact_arithmetic(family, n, seed, how):
    rng = np.random.default_rng(seed)
    A0 = FAMILIES[family](n, rng)
    truth = exact_is_p(A0)
    if family == "permuted-triangular":
        assert truth
    A = rescaled(A0, rng, how)
    v = p_matrix_test(A)
    assert v.decided, v  # n <= exact_max_n: never undecided here
    assert_agrees_with_oracle(A, v, truth)


_CORPUS_SEEDS = range(12)


def _corpus():
    mats = []
    n = 10
    T = np.eye(n) + np.triu(np.full((n, n), 1e4), 1)
    mats.append(T[np.ix_(*2 * [np.random.default_rng(1).permutation(n)])])
    mats.append(_embed(SING3, (-1.0, -1.0, -1.0)))
    mats.append(_embed(NEG3, (-2.0, -2.0, -2.0)))
    for seed in _CORPUS_SEEDS:
        rng = np.random.default_rng(seed)
        mats.append(near_singular(6, rng))
        mats.append(permuted_triangular(8, rng))
    return mats


_CHILD = """
import json, sys
import numpy as np
from contactcp.linalg.pmatrix import p_matrix_test
out = []
for m in json.load(sys.stdin):
    v = p_matrix_test(np.array(m))
    out.append([v.is_p, list(v.witness) if v.witness else None, v.test])
print(json.dumps(out))
"""


@pytest.mark.skipif(
    platform.machine().lower() not in ("x86_64", "amd64"), reason="OPENBLAS_CORETYPE names x86-64 kernels"
)
def test_verdicts_do_not_depend_on_the_blas_kernels():
    # Prescott (SSE3) kernels run on every x86-64 CPU; issue 11's failure showed under them
    mats = _corpus()
    here = []
    for A in mats:
        v = p_matrix_test(A)
        assert_agrees_with_oracle(A, v)
        here.append([v.is_p, list(v.witness) if v.witness else None, v.test])
    run = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps([A.tolist() for A in mats]),
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "OPENBLAS_CORETYPE": "Prescott"},
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == here


# ---------------------------------------------------------------------------
# which test decides


def test_nonpositive_diagonal():
    v = p_matrix_test([[1.0, 2.0], [3.0, -1.0]])
    assert (v.is_p, v.test, v.witness) == (False, TEST_DIAGONAL, (1,))
    v = p_matrix_test([[0.0, 0.0], [0.0, 1.0]])
    assert (v.is_p, v.test, v.witness) == (False, TEST_DIAGONAL, (0,))


def test_nonpositive_2x2_minor():
    v = p_matrix_test([[1.0, 2.0], [3.0, 1.0]])
    assert (v.is_p, v.test, v.witness) == (False, TEST_2X2, (0, 1))
    assert "-5" in v.detail and "borderline" not in v.detail
    A = np.eye(5) + 0.1
    A[3, 1], A[1, 3] = 4.0, 2.0  # minor {1, 3}: 1.21 - 8 < 0
    v = p_matrix_test(A)
    assert (v.is_p, v.test, v.witness) == (False, TEST_2X2, (1, 3))


def test_singular_and_nearly_singular_2x2():
    v = p_matrix_test([[1.0, 1.0], [1.0, 1.0]])
    assert (v.is_p, v.test, v.witness) == (False, TEST_2X2, (0, 1))
    assert "= 0 exactly" in v.detail
    # a minor of 2^-52 (within any float rounding of zero) is positive: P, labelled nearly singular
    eps = 2.0**-52
    v = p_matrix_test([[1.0, 1.0], [1.0, 1.0 + eps]])
    assert (v.is_p, v.test) == (True, TEST_EXACT) and "nearly singular" in v.detail
    assert 0 < v.min_minor < 1e-15
    v = p_matrix_test([[1.0 + eps, 1.0 + eps], [1.0, 1.0 + eps]])  # minor (1+eps)eps > 0 as well
    assert v.is_p is True
    v = p_matrix_test([[1.0, 1.0 + eps], [1.0, 1.0]])  # minor -eps
    assert (v.is_p, v.witness) == (False, (0, 1)) and "-2.22045e-16" in v.detail
    # rtol does not change a verdict, only the label
    assert p_matrix_test([[1.0, 1.0], [0.5, 1.0]], rtol=1e-3).is_p is True
    assert "nearly singular" not in p_matrix_test([[1.0, 1.0], [1.0, 1.0 + eps]], rtol=0.0).detail


def test_diagonally_dominant_rows_and_columns():
    A = np.array([[1.0, 0.0], [10.0, 11.0]])  # rows dominant, symmetric part indefinite
    assert np.linalg.eigvalsh(A + A.T).min() < 0
    v = p_matrix_test(A)
    assert (v.is_p, v.test) == (True, TEST_DIAGONALLY_DOMINANT) and "row" in v.detail
    v = p_matrix_test(A.T)
    assert (v.is_p, v.test) == (True, TEST_DIAGONALLY_DOMINANT) and "column" in v.detail


def test_symmetric_part_positive_definite():
    rng = np.random.default_rng(0)
    B = rng.standard_normal((6, 6))
    K = rng.standard_normal((6, 6))
    A = B @ B.T + 0.5 * np.eye(6) + (K - K.T)
    lam = np.linalg.eigvalsh(0.5 * (A + A.T)).min()
    v = p_matrix_test(A)
    assert (v.is_p, v.test) == (True, TEST_SYMMETRIC_PD)
    assert f"{lam:.6g}" in v.detail


def test_negative_determinant():
    v = p_matrix_test(NEG3)
    assert (v.is_p, v.test, v.witness) == (False, TEST_DETERMINANT, (0, 1, 2))
    assert "-7" in v.detail


def test_nonpositive_leading_minor():
    A = block_diag(NEG3, NEG3)  # det = 49 > 0, but the leading 3x3 minor is -7
    v = p_matrix_test(A)
    assert (v.is_p, v.test, v.witness) == (False, TEST_LEADING, (0, 1, 2))


def test_exact_test_finds_a_hidden_negative_minor():
    A = _embed(NEG3, (-2.0, -2.0, -2.0))
    assert np.linalg.det(A) > 0 and all(np.linalg.det(A[:k, :k]) > 0 for k in range(1, 5))
    v = p_matrix_test(A)
    assert (v.is_p, v.test, v.witness) == (False, TEST_EXACT, (1, 2, 3))
    assert "borderline" not in v.detail and v.min_minor < 0
    assert_real_witness(A, v)


def test_exact_test_finds_an_embedded_singular_minor():
    A = _embed(SING3, (-1.0, -1.0, -1.0))
    assert np.linalg.det(A) > 0.5 and all(np.linalg.det(A[:k, :k]) > 0.5 for k in range(1, 5))
    pm = principal_minors(A)
    assert np.sum(np.abs(pm) < 1e-12) == 1  # exactly one zero principal minor: {1, 2, 3}
    v = p_matrix_test(A)
    assert (v.is_p, v.test, v.witness) == (False, TEST_EXACT, (1, 2, 3))
    assert "= 0 exactly" in v.detail and abs(v.min_minor) <= RTOL
    assert exact_det(SING3) == 0
    # the same with the singular block nudged by one unit in the last place either way
    for nudge, truth in ((2.0**-52, True), (-(2.0**-53), False)):
        B = A.copy()
        B[3, 3] += nudge  # det SING3 becomes +-nudge
        v = p_matrix_test(B)
        assert_agrees_with_oracle(B, v, truth)
        assert v.decided


def test_exact_test_accepts_triangular_with_huge_entries():
    # P (all minors 1) but neither dominant nor with a positive definite symmetric part; its
    # permutation's LU ends with a pivot of ~1e-16 whose sign depends on the BLAS kernels
    # (issue 11): no verdict may rest on it
    n = 10
    A = np.eye(n) + np.triu(np.full((n, n), 1e4), 1)
    v = p_matrix_test(A)
    assert (v.is_p, v.test) == (True, TEST_EXACT)
    assert v.min_minor == pytest.approx(1.0)
    P = np.random.default_rng(1).permutation(n)
    v = p_matrix_test(A[np.ix_(P, P)])
    assert (v.is_p, v.test) == (True, TEST_EXACT)
    for e in (-40, 40, -1000, 1000):  # any scale
        assert p_matrix_test(np.ldexp(A[np.ix_(P, P)], e)).is_p is True


def test_min_minor_is_the_smallest_pivot_ratio():
    # minor {0,1} = 1 - 0.6: pivot 0.4 against terms 1 + 0.6
    v = p_matrix_test([[1.0, 3.0], [0.2, 1.0]])
    assert (v.is_p, v.test) == (True, TEST_EXACT)
    assert v.min_minor == pytest.approx(0.25, rel=1e-12)


def test_margin_of_each_p_proof():
    v = p_matrix_test([[1.0, 0.5], [0.25, 1.0]])  # rows: margins 0.5 and 0.75
    assert (v.is_p, v.test, v.margin) == (True, TEST_DIAGONALLY_DOMINANT, 0.5)
    eps = 2.0**-52
    v = p_matrix_test([[1.0, 1.0 - eps], [0.0, 1.0]])  # dominant by one unit in the last place
    assert (v.is_p, v.test) == (True, TEST_DIAGONALLY_DOMINANT)
    assert v.margin == pytest.approx(eps) and "nearly singular" in v.detail
    assert "nearly singular" not in p_matrix_test([[1.0, 1.0 - eps], [0.0, 1.0]], rtol=0.0).detail
    A = np.array([[2.0, -1.2, 0.0], [-1.2, 2.0, -1.2], [0.0, -1.2, 2.0]])  # PD, not dominant
    v = p_matrix_test(A)
    assert (v.is_p, v.test) == (True, TEST_SYMMETRIC_PD)
    assert v.margin == pytest.approx((2.0 - 1.2 * np.sqrt(2.0)) / 2.0, rel=1e-12)
    v = p_matrix_test([[1.0, 3.0], [0.2, 1.0]])
    assert (v.test, v.margin, v.min_minor) == (TEST_EXACT, v.min_minor, v.min_minor)
    for B in ([[1.0, 2.0], [3.0, 1.0]], NEG3, _embed(NEG3, (-2.0, -2.0, -2.0))):
        v = p_matrix_test(B)
        assert v.is_p is False and v.margin is None


# ---------------------------------------------------------------------------
# sizes


def test_above_exact_max_n_undecided_unless_a_cheap_test_decides():
    n = 30
    T = np.eye(n) + np.triu(np.full((n, n), 5.0), 1)  # P, but no cheap test proves it
    v = p_matrix_test(T)
    assert (v.is_p, v.test, v.decided, v.witness) == (None, TEST_UNDECIDED, False, None)
    assert "exact_max_n = 20" in v.detail
    for tried in ("diagonal dominance", "symmetric part positive definite", "det A"):
        assert tried in v.detail
    # the limit is the caller's
    T8 = T[:8, :8]
    assert p_matrix_test(T8, exact_max_n=5).is_p is None
    assert p_matrix_test(T8, exact_max_n=8).is_p is True
    # and never above the hard limit
    m = EXACT_HARD_MAX_N + 1
    v = p_matrix_test(np.eye(m) + np.triu(np.full((m, m), 5.0), 1), exact_max_n=100)
    assert v.is_p is None and "hard limit" in v.detail
    # a cheap test decides whatever the size
    rng = np.random.default_rng(5)
    B = rng.standard_normal((60, 60))
    assert p_matrix_test(B @ B.T + np.eye(60)).test == TEST_SYMMETRIC_PD
    assert p_matrix_test(B @ B.T + np.eye(60)).is_p is True
    N = T.copy()
    N[7, 7] = -1.0
    assert (p_matrix_test(N).is_p, p_matrix_test(N).test) == (False, TEST_DIAGONAL)
    v = p_matrix_test(block_diag(T, NEG3))
    assert (v.is_p, v.test) == (False, TEST_DETERMINANT)


def test_exact_test_at_n_20():
    n = 20
    rng = np.random.default_rng(2)
    T = np.diag(rng.uniform(0.5, 2, n)) + np.triu(rng.uniform(1, 50, (n, n)), 1)
    P = rng.permutation(n)
    v = p_matrix_test(T[np.ix_(P, P)])  # P (permutation-similar to triangular), no cheap proof
    assert (v.is_p, v.test) == (True, TEST_EXACT)
    assert "1048575 principal minors" in v.detail
    # a negative minor that only the last level sees
    A = block_diag(T[:16, :16], _embed(NEG3, (-2.0, -2.0, -2.0)))
    v = p_matrix_test(A)
    assert (v.is_p, v.test, v.witness) == (False, TEST_EXACT, (17, 18, 19))
    assert_real_witness(A, v)


# ---------------------------------------------------------------------------
# input, the verdict object, the interior-point hook


@pytest.mark.parametrize(
    "bad",
    [
        np.ones((2, 3)),  # not square
        np.array([[1.0, np.nan], [0.0, 1.0]]),
        np.array([[1.0, np.inf], [0.0, 1.0]]),
        np.ones(3),  # 1-D
        np.ones((2, 2, 2)),
        np.zeros((0, 0)),
        [["a", "b"], ["c", "d"]],
    ],
)
def test_invalid_input_names_A(bad):
    with pytest.raises(InvalidProblemError) as err:
        p_matrix_test(bad)
    assert err.value.field == "A"
    with pytest.raises(InvalidProblemError) as err:
        principal_minors(bad)
    assert err.value.field == "A"


def test_invalid_options():
    with pytest.raises(InvalidOptionError):
        p_matrix_test(np.eye(2), exact_max_n=-1)
    with pytest.raises(InvalidOptionError):
        p_matrix_test(np.eye(2), rtol=1.5)
    with pytest.raises(InvalidOptionError):
        p_matrix_test(np.eye(2), rtol="x")


def test_verdict_object():
    v = p_matrix_test(np.eye(3))
    assert isinstance(v, PMatrixVerdict) and v.decided and v.is_p is True
    assert "__bool__" not in PMatrixVerdict.__dict__
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.is_p = False
    assert not PMatrixVerdict(None, TEST_UNDECIDED, "").decided


def test_interior_point_hook():
    assert _is_p_matrix(np.array([[1.0, 3.0], [0.0, 1.0]])) is True
    assert _is_p_matrix(np.eye(12) + np.diag(np.full(11, 3.0), 1)) is True
    assert _is_p_matrix(np.array([[0.0, 1.0], [1.0, 0.0]])) is False
    assert _is_p_matrix(np.array([[1.0, 1.0], [1.0, 1.0]])) is False
    assert _is_p_matrix(_embed(NEG3, (-2.0, -2.0, -2.0))) is False

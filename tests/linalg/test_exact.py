"""contactcp.linalg: exact kernels against Fraction arithmetic, verified tests against exact answers."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from contactcp.errors import InvalidProblemError
from contactcp.linalg import (
    TINY,
    det_sign,
    det_sign_verified,
    down,
    dyadic_rows,
    exact_det,
    exact_sum_sign,
    int_det,
    positive_definite,
    round_fraction,
    schur_complement,
    up,
)

# ---------------------------------------------------------------------------
# oracles, written here independently (Gaussian elimination in Fractions)


def frac_matrix(A):
    return [[Fraction(float(x)) for x in row] for row in np.asarray(A, dtype=float)]


def frac_det(A):
    M = frac_matrix(A)
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


def frac_schur(A, I, J):
    """A[J,J] - A[J,I] A[I,I]^-1 A[I,J] by Fraction Gauss-Jordan on A[I,I]."""
    M = frac_matrix(A)
    t = len(I)
    X = [[M[i][j] for j in I] + [M[i][j] for j in J] for i in I]  # [A_II | A_IJ]
    for c in range(t):  # reduce A_II to the identity
        piv = next(r for r in range(c, t) if X[r][c] != 0)
        X[c], X[piv] = X[piv], X[c]
        X[c] = [v / X[c][c] for v in X[c]]
        for r in range(t):
            if r != c and X[r][c] != 0:
                X[r] = [a - X[r][c] * b for a, b in zip(X[r], X[c])]
    W = [row[t:] for row in X]  # A_II^-1 A_IJ
    return [
        [M[i][j] - sum((M[i][I[k]] * W[k][jj] for k in range(t)), Fraction(0)) for jj, j in enumerate(J)] for i in J
    ]


def is_nearest(x, q):
    """x is a double nearest to the rational q (no double strictly closer)."""
    if q == 0:
        return x == 0.0
    fx = Fraction(x)
    err = abs(fx - q)
    return all(
        abs(Fraction(y) - q) >= err for y in (np.nextafter(x, np.inf), np.nextafter(x, -np.inf)) if math.isfinite(y)
    )


# float matrices whose entries span many binades, with zeros, integers and tiny/huge values
def wild(n, rng, zeros=0.3, spread=60):
    A = rng.standard_normal((n, n)) * np.ldexp(1.0, rng.integers(-spread, spread, (n, n)))
    A[rng.uniform(size=(n, n)) < zeros] = 0.0
    return A


matrices = st.integers(1, 7).flatmap(
    lambda n: hnp.arrays(
        np.float64,
        (n, n),
        elements=st.one_of(
            st.sampled_from([0.0, 1.0, -1.0, 2.0, 0.5, 3.0]),
            st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=64),
            st.floats(-1e-300, 1e-300, allow_nan=False, width=64),
            st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False, width=64),
        ),
    )
)


# ---------------------------------------------------------------------------
# dyadic rows, integer determinants


@settings(max_examples=80, deadline=None)
@given(matrices)
def test_dyadic_rows_reproduce_the_data_exactly(A):
    N, s = dyadic_rows(A)
    for i, row in enumerate(A):
        for j, x in enumerate(row):
            assert Fraction(N[i][j]) * Fraction(2) ** s[i] == Fraction(float(x))
        # the smallest integers: not all even unless the row is zero
        assert any(v % 2 for v in N[i]) or not any(N[i])


@settings(max_examples=80, deadline=None)
@given(matrices)
def test_exact_det_equals_fraction_arithmetic(A):
    d = exact_det(A)
    assert d == frac_det(A)
    assert det_sign(A) == (d > 0) - (d < 0)


def test_exact_det_on_wild_and_singular_matrices():
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 5, 8, 12):
        for _ in range(10):
            A = wild(n, rng)
            assert exact_det(A) == frac_det(A)
    # exactly singular: a repeated row (scaled by a power of two), a zero column, rank one
    B = rng.standard_normal((5, 5))
    B[3] = B[1] * 2.0**-30
    assert exact_det(B) == 0 and det_sign(B) == 0
    C = rng.standard_normal((4, 4))
    C[:, 2] = 0.0
    assert exact_det(C) == 0
    u, v = rng.standard_normal(6), rng.standard_normal(6)
    R = np.outer(np.round(u * 8), np.round(v * 8))  # integers: the outer product is exact
    assert exact_det(R) == 0
    # nearly singular: 1 + 2^-52 against 1
    N = np.array([[1.0, 1.0], [1.0, 1.0 + 2.0**-52]])
    assert exact_det(N) == Fraction(1, 2**52)
    assert exact_det(np.zeros((0, 0))) == 1


def test_int_det_small_cases():
    assert int_det([]) == 1
    assert int_det([[7]]) == 7
    assert int_det([[0, 1], [1, 0]]) == -1
    assert int_det([[2, 3], [4, 6]]) == 0
    assert int_det([[0, 0, 1], [0, 1, 0], [1, 0, 0]]) == -1
    # a matrix whose first column starts with zeros (row pivoting) and big integers
    big = 10**40
    assert int_det([[0, big, 1], [big, 0, 0], [1, 1, 1]]) == big - big**2  # cofactors along row 1


def test_triangular_with_huge_entries_has_exact_determinant_one():
    # the matrix of issue 11: LU's last pivot depends on the BLAS, the exact determinant does not
    n = 10
    A = np.eye(n) + np.triu(np.full((n, n), 1e4), 1)
    P = np.random.default_rng(1).permutation(n)
    assert exact_det(A[np.ix_(P, P)]) == 1
    assert det_sign(A[np.ix_(P, P)]) == 1


# ---------------------------------------------------------------------------
# Schur complements


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.integers(0, 2**32 - 1), st.data())
def test_schur_complement_is_the_exact_one_rounded_once(n, seed, data):
    rng = np.random.default_rng(seed)
    A = wild(n, rng, zeros=0.2, spread=30)
    idx = rng.permutation(n).tolist()
    t = data.draw(st.integers(0, n - 1))
    I, J = idx[:t], idx[t:]
    ex = rng.integers(-40, 40, len(J)).tolist()
    sign, S = schur_complement(A, I, J, row_exp=ex)
    dI = frac_det(A[np.ix_(I, I)]) if I else Fraction(1)
    assert sign == (dI > 0) - (dI < 0)
    if dI == 0:
        assert S is None
        return
    ref = frac_schur(A, I, J)
    for a, row in enumerate(ref):
        for b, q in enumerate(row):
            q = q * Fraction(2) ** ex[a]
            assert is_nearest(S[a, b], q) or (q != 0 and abs(S[a, b]) == 2.0**-1074 and abs(q) < 2.0**-1075)
            assert (S[a, b] > 0) == (q > 0) and (S[a, b] < 0) == (q < 0)


def test_schur_complement_of_a_singular_block_and_of_nothing():
    A = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 1.0], [0.0, 1.0, 3.0]])
    assert schur_complement(A, [0, 1], [2]) == (0, None)
    sign, S = schur_complement(A, [], [2, 0])
    assert sign == 1 and S.tolist() == [[3.0, 0.0], [0.0, 1.0]]
    sign, S = schur_complement(A, [0], [1, 2])  # [[4 - 4, 1], [1, 3]]
    assert sign == 1 and S.tolist() == [[0.0, 1.0], [1.0, 3.0]]


# ---------------------------------------------------------------------------
# rounding and sums


def test_round_fraction_keeps_the_sign_and_rounds_to_nearest():
    assert round_fraction(1, 3) == 1 / 3
    assert round_fraction(-1, 3) == -1 / 3 and round_fraction(1, -3) == -1 / 3
    assert round_fraction(0, 5) == 0.0
    assert round_fraction(1, 2**1100) == 2.0**-1074  # below the subnormals: not zero
    assert round_fraction(-1, 2**1100) == -(2.0**-1074)
    assert round_fraction(2**1100, 1) == math.inf and round_fraction(-(2**1100), 3) == -math.inf
    rng = np.random.default_rng(4)
    for _ in range(200):
        num = int(rng.integers(-(2**62), 2**62)) * 2 ** int(rng.integers(0, 80))
        den = int(rng.integers(1, 2**62)) * 2 ** int(rng.integers(0, 80))
        assert is_nearest(round_fraction(num, den), Fraction(num, den))
    with pytest.raises(ZeroDivisionError):
        round_fraction(1, 0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=0, max_size=12))
def test_exact_sum_sign(values):
    exact = sum((Fraction(v) for v in values), Fraction(0))
    assert exact_sum_sign(values) == (exact > 0) - (exact < 0)


def test_exact_sum_sign_cancellation_and_overflow():
    assert exact_sum_sign([1.0, 1e-300, -1.0]) == 1
    assert exact_sum_sign([1e308, 1e308, -1e308, -1e308, -5e-324]) == -1  # intermediate overflow
    assert exact_sum_sign([0.1, 0.2, -0.3]) == 1  # 0.1 + 0.2 > 0.3 as doubles
    assert exact_sum_sign([]) == 0
    with pytest.raises(InvalidProblemError):
        exact_sum_sign([math.inf, 1.0])


def test_up_and_down_bound_one_rounding():
    rng = np.random.default_rng(7)
    x = np.abs(rng.standard_normal(2000)) * np.ldexp(1.0, rng.integers(-1070, 1000, 2000))
    y = np.abs(rng.standard_normal(2000)) * np.ldexp(1.0, rng.integers(-1000, 10, 2000))
    prod = x * y
    for a, b, _c, hi, lo in zip(x.tolist(), y.tolist(), prod.tolist(), up(prod).tolist(), down(prod).tolist()):
        exact = Fraction(a) * Fraction(b)
        assert Fraction(hi) >= exact and (lo <= 0 or Fraction(lo) <= exact)
    assert up(0.0) == TINY and down(0.0) == -TINY


# ---------------------------------------------------------------------------
# verified floating-point tests


def test_positive_definite_proves_only_true_statements():
    assert positive_definite(np.eye(4))
    assert not positive_definite(np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert not positive_definite(np.array([[1.0, 1.0], [1.0, 1.0]]))  # singular: never "proven"
    assert not positive_definite(np.zeros((3, 3)))
    # a nonsymmetric matrix: only its symmetric part counts (skew part irrelevant)
    assert positive_definite(np.array([[1.0, 100.0], [-100.0, 1.0]]))
    # scale invariance over the whole exponent range
    rng = np.random.default_rng(2)
    B = rng.standard_normal((6, 6))
    S = B @ B.T + 0.1 * np.eye(6)
    for e in (-1000, -40, 0, 40, 1000):
        assert positive_definite(np.ldexp(S, e))
    with pytest.raises(InvalidProblemError):
        positive_definite(np.ones((2, 3)))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 1e-16, 1e-12, 1e-6]))
def test_positive_definite_never_wrong_near_singular(n, seed, shift):
    # integer Gram matrices shifted by tiny amounts: the truth is an exact Sylvester check
    rng = np.random.default_rng(seed)
    B = rng.integers(-3, 4, (n, n - 1)).astype(float)  # rank <= n - 1: singular Gram
    S = B @ B.T + shift * np.eye(n)
    if positive_definite(S):
        Ssym = (S + S.T) / 2.0  # exact here (integers, a power of 2)
        assert all(frac_det(Ssym[:k, :k]) > 0 for k in range(1, n + 1))


def test_det_sign_verified():
    rng = np.random.default_rng(3)
    for n in (1, 3, 10, 40, 120):
        A = rng.standard_normal((n, n))
        sign, proven = det_sign_verified(A)
        assert proven and sign == np.sign(np.linalg.slogdet(A)[0])  # well conditioned: proven
        if n <= 40:
            assert sign == det_sign(A)
        # only the signs asked for are proven
        assert det_sign_verified(A, signs=(-sign,)) == (sign, False)
    # exactly singular: a zero pivot is never "proven"
    assert det_sign_verified(np.array([[1.0, 2.0], [2.0, 4.0]])) == (0, False)
    assert det_sign_verified(np.zeros((2, 2))) == (0, True)  # a zero row
    # the permuted triangular matrix of issue 11: LU cannot prove its sign, it must say so
    n = 10
    T = np.eye(n) + np.triu(np.full((n, n), 1e4), 1)
    P = np.random.default_rng(1).permutation(n)
    sign, proven = det_sign_verified(T[np.ix_(P, P)])
    assert not proven or sign == 1


@settings(max_examples=60, deadline=None)
@given(matrices)
def test_det_sign_verified_is_never_wrong_when_it_claims_proof(A):
    sign, proven = det_sign_verified(A)
    if proven:
        assert sign == det_sign(A)


# ---------------------------------------------------------------------------
# layering: linalg is the bottom layer

"""The error-free transformations under every residual: TwoProduct (a fused multiply-add) gives the
exact product as p + e, and Dot2's row value and error bound hold the exact value, checked in rational
arithmetic."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from contactcp.linalg.dot2 import affine_row, affine_row_capped, scaled_products

# finite floats whose products neither overflow nor underflow (the range where TwoProduct is exact)
_float = st.floats(min_value=-1e140, max_value=1e140, allow_nan=False).filter(lambda v: v == 0.0 or abs(v) > 1e-140)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_float, _float), min_size=1, max_size=20))
def test_two_prod_is_the_exact_product(pairs):
    a = np.array([[x] for x, _ in pairs])
    y = np.array([y for _, y in pairs])
    P, E = scaled_products(a, y)
    for k, (x, z) in enumerate(pairs):
        assert Fraction(P[k, 0]) + Fraction(E[k, 0]) == Fraction(x) * Fraction(z)
        assert P[k, 0] == x * z  # p is the rounded product itself


def test_two_prod_on_operands_dekker_splits_badly():
    # products whose error needs every bit of both factors: (1 + 2^-52)^2 and 2^27 + 1 squared times 2^-27
    a = np.array([[1.0 + 2.0**-52], [134217729.0], [0.1]])
    y = np.array([1.0 + 2.0**-52, 134217729.0 * 2.0**-27, 0.3])
    P, E = scaled_products(a, y)
    for k in range(3):
        assert Fraction(P[k, 0]) + Fraction(E[k, 0]) == Fraction(a[k, 0]) * Fraction(y[k])
    assert E[0, 0] == 2.0**-104  # (1 + u)^2 = 1 + 2u + u^2: the error is u^2 exactly


def _row_point(third):
    """A row and a point of one length ``n`` (1 to 12), and a draw of ``third(n)``."""
    return st.integers(1, 12).flatmap(
        lambda n: st.tuples(
            st.lists(_float, min_size=n, max_size=n), st.lists(_float, min_size=n, max_size=n), third(n)
        )
    )


@settings(max_examples=200, deadline=None)
@given(_row_point(lambda n: _float))
def test_affine_row_bound_holds_the_exact_value(data):
    row, x, c = data
    A = np.array([row])
    v, allow, risky = affine_row(A, np.array(x), np.array([c]), 0)
    exact = Fraction(c) + sum(Fraction(a) * Fraction(b) for a, b in zip(row, x, strict=True))
    assert not risky
    assert abs(Fraction(v) - exact) <= Fraction(allow)
    if allow == 0.0:  # declared exact: it is
        assert Fraction(v) == exact


def test_affine_row_cancellation_is_exact_and_flags_overflow():
    # 1e16 + 1 - 1e16: naive float arithmetic gives 0 or 2; Dot2 gives the exact 1
    A = np.array([[1e16, 1.0, -1e16]])
    v, allow, risky = affine_row(A, np.ones(3), np.zeros(1), 0)
    assert v == 1.0 and not risky
    assert abs(v - 1.0) <= allow
    # integers: no rounding anywhere, declared exact
    v, allow, risky = affine_row(np.array([[3.0, -2.0]]), np.array([5.0, 7.0]), np.array([1.0]), 0)
    assert (v, allow, risky) == (2.0, 0.0, False)
    # terms near overflow: the bound is not valid, the row is flagged for exact evaluation
    _, _, risky = affine_row(np.array([[1e300, 1.0]]), np.array([1.0, 1.0]), np.array([0.0]), 0)
    assert risky


def test_affine_row_flags_underflow_nan_and_overflowing_sums():
    # a product in the subnormal range loses bits: not declared exact, and the bound covers the loss
    a = 2.0**-540 * (1.0 + 2.0**-30)
    v, allow, risky = affine_row(np.array([[a]]), np.array([a]), np.zeros(1), 0)
    assert allow > 0.0 and not risky
    assert abs(Fraction(v) - Fraction(a) * Fraction(a)) <= Fraction(allow)
    # factors in range whose product overflows, and a sum that overflows: flagged for exact evaluation
    assert affine_row(np.array([[1e160]]), np.array([1e160]), np.zeros(1), 0)[2]
    assert affine_row(np.array([[1e289, 1e289]]), np.array([1e19, 1e19]), np.zeros(1), 0)[2]
    # a NaN in the point: never declared exact
    v, allow, risky = affine_row(np.array([[1.0, 2.0]]), np.array([np.nan, 1.0]), np.zeros(1), 0)
    assert np.isnan(v) and not allow == 0.0


@settings(max_examples=100, deadline=None)
@given(_row_point(lambda n: st.lists(st.floats(0.0, 1e10) | st.just(np.inf), min_size=n, max_size=n)))
def test_affine_row_capped_is_affine_row_and_the_capped_sum(data):
    # one pass for the residual's value and its row scale: the same numbers as the two passes
    row, x, Z = data
    A, xv = np.array([row]), np.array(x)
    v, allow, risky, t = affine_row_capped(A, xv, np.array([0.5]), 0, np.array(Z))
    assert (v, allow, risky) == affine_row(A, xv, np.array([0.5]), 0)
    s = 0.0
    for a, b, cap in zip(row, x, Z, strict=True):
        s += abs(a) * min(abs(b), cap)
    assert t == s

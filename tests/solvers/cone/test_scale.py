"""The friction solvers' scaling reduction (solvers/cone/scale.py): exact powers of two, chosen from
the largest entry of q and of the start, and the identity for data in range."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from contactcp.problems import FrictionContactProblem
from contactcp.solvers.cone import scale

EXPONENTS = st.sampled_from([-1070, -700, -301, -300, -40, -1, 0, 1, 2, 40, 300, 301, 700, 1020])
MANTISSAS = st.floats(0.5, 1.0, exclude_max=True)


def _entry(draw, zero_ok: bool) -> float:
    if zero_ok and draw(st.booleans()):
        return 0.0
    return math.ldexp(draw(MANTISSAS), draw(EXPONENTS)) * draw(st.sampled_from([-1.0, 1.0]))


@st.composite
def data(draw):
    q = [_entry(draw, True) for _ in range(3)]
    r0 = None if draw(st.booleans()) else np.array([_entry(draw, True) for _ in range(3)])
    return np.array(q), r0


@settings(max_examples=300, deadline=None)
@given(data())
def test_exponent_is_that_of_the_largest_entry_of_q_and_r0(qr):
    q, r0 = qr
    problem = FrictionContactProblem(np.eye(3), q, 0.5)
    scaled, r_s, k = scale.apply(problem, r0)
    big = max(np.abs(q).max(), 0.0 if r0 is None else np.abs(r0).max())
    want = math.frexp(big)[1]
    if big == 0.0 or -scale.LIMIT <= want <= scale.LIMIT:
        assert k == 0 and scaled is problem and r_s is r0
        return
    assert k == want
    # powers of two: exact for every entry that stays a normal number (|x| 2^-k >= 2^-1022), and the
    # answer maps back exactly; entries below that lose bits (the certificate is on the user's data)
    normal = math.ldexp(1.0, k - 1022)
    for x, xs in [(q, scaled.q)] + ([] if r0 is None else [(r0, r_s)]):
        keep = np.abs(x) >= normal
        np.testing.assert_array_equal(np.ldexp(xs, k)[keep], x[keep])
        assert np.all(np.abs(np.ldexp(xs, k) - x)[~keep] <= normal)
        np.testing.assert_array_equal(scale.invert(xs, k)[keep], x[keep])
    assert max(np.abs(scaled.q).max(), 0.0 if r_s is None else np.abs(r_s).max()) < 1.0

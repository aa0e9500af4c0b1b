"""Property-based tests: no method ever returns SOLVED above tolerance, and every
NO_SOLUTION certificate is a real proof."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import contactcp as ccp
from contactcp import Status
from support import oracles
from support.oracles import brute_force_lcp, lcp_violation

small = st.integers(min_value=1, max_value=6)
entries = st.one_of(st.integers(-3, 3).map(float), st.floats(-5, 5, allow_nan=False, width=32).map(float))


@st.composite
def lcps(draw):
    n = draw(small)
    M = draw(arrays(np.float64, (n, n), elements=entries))
    q = draw(arrays(np.float64, (n,), elements=entries))
    return M, q


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lcps(), st.sampled_from(["lemke", "bpp", "enumerate", "interior-point", "pgs"]))
def test_no_method_claims_an_uncertified_solution(data, method):
    M, q = data
    tol = 1e-9
    r = ccp.solve(ccp.LCP(M, q), method, tol=tol)
    if r.status is Status.SOLVED:
        # recomputed here in rational arithmetic from the contract's definition
        assert oracles.lcp_residual(M, q, r.x) <= tol
    elif r.status is Status.NO_SOLUTION:
        if r.certificate.kind == "farkas":
            assert oracles.certificate_proves(M, q, r.certificate)
        # and no nonsingular complementary basis gives a solution (a necessary condition, exactly)
        assert oracles.exact_lcp_basic_solutions(M, q) == []


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 7), st.integers(0, 10_000))
def test_p_matrix_solutions_are_unique_and_found(n, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    M = A @ A.T + 0.05 * np.eye(n) + 0.5 * (A - A.T)  # positive definite, nonsymmetric
    q = rng.standard_normal(n)
    for method in ("lemke", "bpp"):
        r = ccp.solve(ccp.LCP(M, q), method)
        assert r.success
        assert lcp_violation(M, q, r.x) < 1e-9
    (sol,) = brute_force_lcp(M, q)
    np.testing.assert_allclose(r.x, sol, atol=1e-8)


@settings(max_examples=100, deadline=None)
@given(lcps())
def test_batch_agrees_with_single_solve_status(data):
    M, q = data
    single = ccp.solve(ccp.LCP(M, q), "lemke")  # the batch re-runs its inconclusive ones like this
    batch = ccp.solve_batch(M[None], q[None])
    assert batch.statuses[0] is single.status or {batch.statuses[0], single.status} <= {
        Status.RAY_TERMINATION,
        Status.NO_SOLUTION,
    }
    if single.success:
        np.testing.assert_allclose(batch.x[0], single.x, atol=1e-9)


def test_small_entry_is_not_rounded_away_into_a_false_infeasibility_proof():
    # found by hypothesis: M has a 1e-10 entry and the only solution is z_5 = 1e10; y = e_4 gives
    # M^T y = 1e-10 e_5, which is not round-off (it is the data): no method may call it infeasible
    M = np.zeros((6, 6))
    M[4, 5], M[5, 4] = 1e-10, 1.0
    q = np.zeros(6)
    q[4] = -1.0
    for method in ("lemke", "bpp", "interior-point"):
        r = ccp.solve(ccp.LCP(M, q), method, tol=1e-9)
        assert r.status is not Status.NO_SOLUTION, (method, r.certificate)
        if r.status is Status.SOLVED:
            assert r.x[5] == pytest.approx(1e10)
    ok, checks = ccp.LCP(M, q).check_certificate(np.eye(6)[4])
    assert not ok and checks["exact"] == 0.0
    r = ccp.solve(ccp.LCP(M, q), "enumerate")
    assert r.success and r.x[5] == pytest.approx(1e10)

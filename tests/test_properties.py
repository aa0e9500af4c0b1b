"""Property-based tests: no method ever returns SOLVED above tolerance, and every
NO_SOLUTION certificate is a real proof."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import contactcp as ccp
from contactcp import Status
from conftest import brute_force_lcp, farkas_holds, lcp_violation

small = st.integers(min_value=1, max_value=6)
entries = st.one_of(st.integers(-3, 3).map(float), st.floats(-5, 5, allow_nan=False, width=32).map(float))


@st.composite
def lcps(draw):
    n = draw(small)
    M = draw(arrays(np.float64, (n, n), elements=entries))
    q = draw(arrays(np.float64, (n,), elements=entries))
    return M, q


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lcps(), st.sampled_from(["lemke", "bpp", "enumerate"]))
def test_no_method_claims_an_uncertified_solution(data, method):
    M, q = data
    tol = 1e-9
    r = ccp.solve(ccp.LCP(M, q), method, tol=tol)
    if r.status is Status.SOLVED:
        # recompute from scratch, independently of the library's residual
        w = M @ r.x + q
        scale = max(1.0, np.max(np.abs(q) + np.abs(M) @ np.abs(r.x)))
        assert np.max(np.abs(np.minimum(r.x, w))) <= tol * scale * (1 + 1e-12)
    elif r.status is Status.NO_SOLUTION:
        if r.certificate.kind == "farkas":
            assert farkas_holds(M, q, r.certificate.vector)
        # no solution at any nonsingular complementary basis either (a necessary
        # condition), except beyond the norm bound a tolerance-level proof states
        bound = r.certificate.checks.get("norm1_bound", np.inf) if r.certificate else np.inf
        near = [z for z in brute_force_lcp(M, q, tol=1e-12) if np.abs(z).sum() < 0.99 * bound]
        assert near == []


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
    single = ccp.solve(ccp.LCP(M, q), restarts=0)
    batch = ccp.solve_batch(M[None], q[None])
    assert batch.statuses[0] is single.status or {batch.statuses[0], single.status} <= {
        Status.RAY_TERMINATION, Status.NO_SOLUTION}
    if single.success:
        np.testing.assert_allclose(batch.x[0], single.x, atol=1e-9)


def test_tolerance_level_farkas_proof_states_its_norm_bound():
    # found by hypothesis: M has a 1e-10 entry, the only solution is z_5 = 1e10
    M = np.zeros((6, 6))
    M[4, 5], M[5, 4] = 1e-10, 1.0
    q = np.zeros(6)
    q[4] = -1.0
    r = ccp.solve(ccp.LCP(M, q), "lemke", tol=1e-9)
    if r.status is Status.NO_SOLUTION:
        bound = r.certificate.checks["norm1_bound"]
        assert bound == pytest.approx(1e10, rel=1e-6)
        assert "||z||_1 < 1.000e+10" in r.certificate.description
    else:
        assert r.status is Status.SOLVED and r.x[5] == pytest.approx(1e10)

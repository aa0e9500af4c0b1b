"""Lemke's method: known answers, brute force, planted solutions, certificates, degeneracy."""

import numpy as np
import pytest

import contactcp as ccp
from contactcp import Status, generators
from conftest import brute_force_lcp, farkas_holds, lcp_violation

# Degenerate LCPs found by search on which the first-row tie rule cycles (it
# hits the pivot limit) while the lexicographic rule terminates.
CYCLING = [
    ([[0, -2, 0, 0, -2, 0], [1, 1, -1, 2, 2, 0], [0, 2, 0, -1, 0, 1], [0, 1, -1, 0, -1, -2],
      [0, -1, 2, -1, 2, 2], [-2, 1, 1, 2, 2, -1]], [-1, 0, -1, -1, -1, 0], Status.NO_SOLUTION),
    ([[1, -1, -1, 2, -2, -1], [-1, 1, 2, 0, 2, 0], [2, 1, 1, -2, 2, -2], [-1, -1, 2, 1, -2, 1],
      [-1, 1, 0, 1, 2, -2], [1, -2, 2, 2, 2, -1]], [-1, -1, -1, -1, -1, -1], Status.SOLVED),
    ([[1, 2, 0, 1, -1], [-2, 1, -1, 1, -1], [2, 2, -2, -1, -2], [-1, -1, -2, -1, 2],
      [-1, -2, -2, 1, -1]], [0, -1, -1, 0, 1], Status.NO_SOLUTION),
]


def test_hand_checked_2x2():
    r = ccp.solve(ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0]))
    assert r.status is Status.SOLVED and r.success
    np.testing.assert_allclose(r.x, [4 / 3, 7 / 3], atol=1e-14)
    np.testing.assert_allclose(r.w, [0, 0], atol=1e-14)
    assert r.residual.value < 1e-14
    assert r.iterations >= 1 and r.method == "lemke"


def test_trivial_q_nonnegative_needs_no_pivot():
    r = ccp.solve(ccp.LCP([[1.0, -3.0], [2.0, 0.5]], [1.0, 0.0]))
    assert r.success and r.iterations == 0
    np.testing.assert_array_equal(r.x, [0.0, 0.0])


def test_one_active_one_inactive():
    # M = I, q = (-2, 3): z = (2, 0), w = (0, 3)
    r = ccp.solve(ccp.LCP(np.eye(2), [-2.0, 3.0]))
    np.testing.assert_allclose(r.x, [2.0, 0.0])
    np.testing.assert_allclose(r.w, [0.0, 3.0])


def test_murty_cyclic_p_matrix_with_tied_q():
    # Murty's 3x3 P-matrix with q = -1 (all ties in the first ratio test); unique solution 1/3 each
    M = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 2.0], [2.0, 0.0, 1.0]])
    r = ccp.solve(ccp.LCP(M, -np.ones(3)))
    np.testing.assert_allclose(r.x, np.full(3, 1 / 3), atol=1e-14)


@pytest.mark.parametrize("n", range(1, 9))
def test_p_matrix_unique_solution_matches_brute_force(n):
    for seed in range(8):
        p = generators.p_matrix(n, seed=100 * n + seed)
        sols = brute_force_lcp(p.M, p.q)
        assert len(sols) == 1  # P-matrix: exactly one solution
        r = ccp.solve(p, "lemke")
        assert r.success, r.message
        np.testing.assert_allclose(r.x, sols[0], atol=1e-10)
        assert lcp_violation(p.M, p.q, r.x) < 1e-10


@pytest.mark.parametrize("n", [3, 10, 40, 120])
def test_psd_planted_solution(n):
    p, z_star = generators.psd_planted(n, seed=n)
    r = ccp.solve(p, "lemke")
    assert r.success
    # w is unique for a monotone LCP: M z = M z*
    np.testing.assert_allclose(r.w, p.M @ z_star + p.q, atol=1e-9)
    assert lcp_violation(p.M, p.q, r.x) < 1e-9 * max(1, np.abs(p.q).max())


def test_zero_matrix_negative_q_is_infeasible_with_verified_certificate():
    M, q = np.zeros((3, 3)), np.array([1.0, -2.0, 0.5])
    r = ccp.solve(ccp.LCP(M, q), "lemke")
    assert r.status is Status.NO_SOLUTION and not r.success
    assert r.certificate.kind == "farkas" and r.certificate.verified
    assert farkas_holds(M, q, r.certificate.vector)
    assert r.x is None


def test_copositive_plus_infeasible_from_lemke_ray():
    # M = [[0, 1], [-1, 0]] is skew-symmetric (PSD, so copositive-plus); z2 >= 1 and -z1 >= 1 cannot hold
    M, q = np.array([[0.0, 1.0], [-1.0, 0.0]]), np.array([-1.0, -1.0])
    r = ccp.solve(ccp.LCP(M, q), "lemke")
    assert r.status is Status.NO_SOLUTION
    assert "secondary ray" in r.certificate.description
    assert farkas_holds(M, q, r.certificate.vector)


def test_psd_infeasible_random():
    # M = B B^T with B^T y0 = 0 for some y0 > 0, and q^T y0 < 0: PSD (so copositive-plus) and
    # infeasible.  Integer data, so that the floats are exactly that problem (formed in floating
    # point, B B^T would only be infeasible up to round-off, and its floats may have a solution of
    # enormous norm, which no honest proof can rule out); the proof is then exact or rational.
    rng = np.random.default_rng(5)
    for trial in range(25):
        n = int(rng.integers(2, 12))
        y0 = rng.integers(1, 5, n)
        V = rng.integers(-3, 4, (n, max(1, n - 2)))
        B = (y0 @ y0) * V - np.outer(y0, y0 @ V)            # integer, B^T y0 = 0 exactly
        M = (B @ B.T).astype(float)
        q = rng.integers(-5, 6, n)
        q = (q - (q @ y0 // (y0 @ y0) + 1) * y0).astype(float)   # q^T y0 < 0
        assert q @ y0 < 0 and np.all(B.T @ y0 == 0)
        r = ccp.solve(ccp.LCP(M, q), "lemke")
        assert r.status is Status.NO_SOLUTION, (trial, r)
        assert farkas_holds(M, q, r.certificate.vector)


def test_ray_without_proof_is_not_called_infeasible():
    # M = [[-1, 2], [2, -1]] is not copositive; (1, 1) solves it but Lemke ends on a ray
    p = ccp.LCP([[-1.0, 2.0], [2.0, -1.0]], [-1.0, -1.0])
    r = ccp.solve(p, restarts=0)
    assert r.status is Status.RAY_TERMINATION
    assert "no conclusion" in r.message
    assert ccp.solve(p, "enumerate").success


@pytest.mark.parametrize("M, q, expected", CYCLING)
def test_lexicographic_rule_terminates_where_first_row_rule_cycles(M, q, expected):
    p = ccp.LCP(M, q)
    naive = ccp.solve(p, lexicographic=False, max_iter=500)
    assert naive.status is Status.ITERATION_LIMIT
    r = ccp.solve(p, "lemke")
    assert r.status is expected
    truth = brute_force_lcp(p.M, p.q)
    assert (len(truth) > 0) == (expected is Status.SOLVED)
    if expected is Status.NO_SOLUTION:
        assert farkas_holds(p.M, p.q, r.certificate.vector)


def test_many_ties_in_q_and_degenerate_integer_problems():
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(300):
        n = int(rng.integers(2, 7))
        M = rng.integers(-2, 3, (n, n)).astype(float)
        q = rng.choice([-1.0, 0.0, -1.0], n)
        r = ccp.solve(ccp.LCP(M, q), "lemke")
        assert r.status in (Status.SOLVED, Status.NO_SOLUTION, Status.RAY_TERMINATION)
        if r.status is Status.SOLVED:
            assert lcp_violation(M, q, r.x) < 1e-12
        elif r.status is Status.NO_SOLUTION:
            assert farkas_holds(M, q, r.certificate.vector)
            assert brute_force_lcp(M, q) == []
        checked += 1
    assert checked == 300


def test_covering_vector_option():
    p = generators.spd(12, seed=3)
    a = ccp.solve(p, "lemke")
    b = ccp.solve(p, d=np.linspace(1, 3, 12))
    assert a.success and b.success
    np.testing.assert_allclose(a.x, b.x, atol=1e-10)  # unique solution (positive definite)
    with pytest.raises(ccp.InvalidOptionError, match="d"):
        ccp.solve(p, d=-np.ones(12))


def test_warm_start_from_solution_basis_takes_no_pivot():
    p = generators.p_matrix(30, seed=4)
    r = ccp.solve(p, "lemke")
    again = ccp.solve(p, basis=r.stats["z_basic"])
    assert again.success and again.iterations == 0
    np.testing.assert_allclose(again.x, r.x, atol=1e-10)
    # a nearby problem warm-started from the old basis
    q2 = p.q + 0.05 * np.random.default_rng(1).standard_normal(30)
    warm = ccp.solve(ccp.LCP(p.M, q2), basis=r.stats["z_basic"])
    cold = ccp.solve(ccp.LCP(p.M, q2))
    assert warm.success and cold.success
    np.testing.assert_allclose(warm.x, cold.x, atol=1e-9)
    assert warm.iterations <= cold.iterations


def test_warm_start_with_singular_basis_is_an_option_error():
    p = ccp.LCP([[0.0, 1.0], [1.0, 0.0]], [-1.0, -1.0])
    with pytest.raises(ccp.InvalidOptionError, match="basis"):
        ccp.solve(p, basis=[0])


def test_restart_with_random_covering_vector_rescues_degenerate_contact_lcp():
    p = generators.contact(25, seed=0)  # n = 150; the all-ones covering vector ends on a ray
    first = ccp.solve(p, restarts=0)
    assert first.status is Status.RAY_TERMINATION
    r = ccp.solve(p, "lemke")
    assert r.success and r.stats["restarts"] >= 1
    assert lcp_violation(p.M, p.q, r.x) < 1e-9


def test_iteration_limit_is_reported():
    p = generators.spd(50, seed=1)
    r = ccp.solve(p, max_iter=3)
    assert r.status is Status.ITERATION_LIMIT and not r.success


@pytest.mark.parametrize("family", sorted(generators.FAMILIES))
def test_families_medium_size(family):
    p = generators.FAMILIES[family][1](150, 0)
    r = ccp.solve(p, "lemke")
    assert r.success
    assert lcp_violation(p.M, p.q, r.x) < 1e-8 * max(1.0, np.abs(p.q).max(), np.abs(p.M).max() * r.x.max())


def test_badly_scaled_problem():
    p = generators.spd(20, seed=9)
    D = np.diag(10.0 ** np.linspace(-4, 4, 20))
    scaled = ccp.LCP(D @ p.M @ D, D @ p.q)
    r = ccp.solve(scaled)
    assert r.success
    # z_scaled = D^-1 z
    np.testing.assert_allclose(D @ r.x, ccp.solve(p).x, rtol=1e-6, atol=1e-8)

"""The interior-point method: known answers, agreement with Lemke, planted PSD problems,
infeasibility, the convergence-guarantee message, starting points and option checking."""

import numpy as np
import pytest

import contactcp as ccp
from contactcp import InvalidOptionError, Status
from contactcp.solvers.lcp.interior_point import (
    GUARANTEE_NONE,
    GUARANTEE_P,
    GUARANTEE_PSD,
    GUARANTEE_UNCHECKED,
    matrix_class,
)
from support.oracles import farkas_holds, lcp_violation

IP = "interior-point"
TOL = 1e-9


def pd_nonsymmetric(n, seed):
    """M = A A^T / n + 0.1 I + (S - S^T) / sqrt(n): positive definite (x^T M x >= 0.1 |x|^2), not symmetric."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    S = rng.standard_normal((n, n))
    M = A @ A.T / n + 0.1 * np.eye(n) + (S - S.T) / np.sqrt(n)
    return ccp.LCP(M, rng.standard_normal(n))


def planted_psd(n, k, seed):
    """M = B B^T (rank k < n), z* >= 0, w* >= 0 complementary, q = w* - M z*."""
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, k))
    M = B @ B.T
    active = rng.random(n) < 0.5
    z = np.where(active, rng.uniform(0.5, 2.0, n), 0.0)
    w = np.where(active, 0.0, rng.uniform(0.5, 2.0, n))
    return ccp.LCP(M, w - M @ z), z, w


def test_registered_for_lcp():
    assert IP in ccp.methods(ccp.LCP(np.eye(2), [1.0, 1.0]))


def test_hand_checked_2x2():
    # both z > 0: [[2, 1], [1, 2]] z = (5, 6) gives z = (4/3, 7/3), w = 0
    r = ccp.solve(ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0]), IP, tol=TOL)
    assert r.status is Status.SOLVED and r.success
    np.testing.assert_allclose(r.x, [4 / 3, 7 / 3], atol=1e-12)
    np.testing.assert_allclose(r.w, [0.0, 0.0], atol=1e-12)
    assert r.residual.value <= TOL
    assert r.iterations >= 1 and r.method == IP
    assert r.stats["guarantee"] == GUARANTEE_PSD
    assert set(r.stats) >= {"mu", "infeasibility", "purified", "guarantee"}


def test_one_active_one_inactive():
    # M = I, q = (-2, 3): z = (2, 0), w = (0, 3)
    r = ccp.solve(ccp.LCP(np.eye(2), [-2.0, 3.0]), IP, tol=TOL)
    assert r.success
    np.testing.assert_allclose(r.x, [2.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(r.w, [0.0, 3.0], atol=1e-12)


@pytest.mark.parametrize("n", [5, 10, 20, 35, 50])
def test_pd_nonsymmetric_agrees_with_lemke(n):
    for seed in range(4):
        p = pd_nonsymmetric(n, 1000 * n + seed)
        r = ccp.solve(p, IP, tol=TOL)
        assert r.success, r.message
        assert r.residual.value <= TOL
        assert lcp_violation(p.M, p.q, r.x) < 1e-9
        ref = ccp.solve(p, "lemke", tol=TOL)
        assert ref.success
        np.testing.assert_allclose(r.x, ref.x, atol=1e-7)  # PD: the solution is unique
        assert r.stats["guarantee"] == GUARANTEE_PSD
        assert r.iterations <= 40


def test_pd_without_purification_reaches_tol_at_an_interior_iterate():
    p = pd_nonsymmetric(30, 7)
    r = ccp.solve(p, IP, tol=TOL, purify=False)
    assert r.success and r.stats["purified"] is False
    np.testing.assert_allclose(r.x, ccp.solve(p, "lemke").x, atol=1e-7)


@pytest.mark.parametrize("sigma", [0.1, 0.3, 0.6])
def test_fixed_centering_long_step(sigma):
    p = pd_nonsymmetric(25, 3)
    r = ccp.solve(p, IP, tol=TOL, sigma=sigma)
    assert r.success, r.message
    np.testing.assert_allclose(r.x, ccp.solve(p, "lemke").x, atol=1e-7)


@pytest.mark.parametrize("n,k", [(6, 2), (12, 4), (20, 5), (40, 10), (60, 30)])
def test_psd_rank_deficient_planted(n, k):
    for seed in range(3):
        p, zstar, wstar = planted_psd(n, k, 10 * n + seed)
        assert np.linalg.matrix_rank(p.M) == k
        r = ccp.solve(p, IP, tol=TOL)
        assert r.success, r.message
        assert r.residual.value <= TOL
        assert lcp_violation(p.M, p.q, r.x) < 1e-8 * max(1.0, np.abs(r.x).max())
        # the solution may differ from z* (M is singular), but for symmetric PSD M every
        # solution has the same w = M z + q
        np.testing.assert_allclose(r.w, wstar, atol=1e-7)
        assert r.stats["guarantee"] == GUARANTEE_PSD


def test_mehrotra_cycle_regression():
    # Monotone LCP on which plain Mehrotra steps made mu go up and down forever (found by
    # random search); the long-step fallback with a sufficient decrease of mu solves it.
    M = np.array(
        [[7, -3, -10, -3, -3], [1, 10, 1, 0, 9], [-10, -1, 16, 4, 4], [-3, 2, 0, 7, 2], [-7, 3, 8, -4, 13]], dtype=float
    )
    q = np.array([1.0, 0.0, -1.0, -2.0, 3.0])
    r = ccp.solve(ccp.LCP(M, q), IP, tol=TOL)
    assert r.success, r.message
    np.testing.assert_allclose(r.x, [0, 0, 0, 2 / 7, 0], atol=1e-10)


def test_infeasible_zero_matrix_is_never_solved():
    # M = 0, q_1 < 0: w_1 = q_1 < 0 for every z, so there is no feasible point
    for q in ([-1.0, 1.0], [-1.0, -2.0, 3.0], [2.0, 0.5, -0.25, 1.0]):
        n = len(q)
        p = ccp.LCP(np.zeros((n, n)), q)
        r = ccp.solve(p, IP, tol=TOL)
        assert not r.success
        assert r.status in (Status.NO_SOLUTION, Status.ITERATION_LIMIT)
        if r.status is Status.NO_SOLUTION:
            assert r.certificate is not None and r.certificate.verified
            assert farkas_holds(p.M, p.q, r.certificate.vector)
            ok, _ = p.check_certificate(r.certificate.vector)
            assert ok


@pytest.mark.parametrize(
    "M,q",
    [
        ([[0.0, -3.0], [3.0, 0.0]], [-1.0, 1.0]),  # skew: w_1 = -3 z_2 - 1 < 0
        ([[0.0, 1.0], [-1.0, 0.0]], [-1.0, -1.0]),  # skew: w_2 = -z_1 - 1 < 0
        ([[1.0, -1.0], [-1.0, 1.0]], [-1.0, -1.0]),  # PSD: w_1 + w_2 = -2
    ],
)
def test_infeasible_monotone_diverging_iterates_not_accepted(M, q):
    # The iterates diverge; at ||z|| ~ 1e12 a point with w_i = -1 has a scaled residual
    # (relative to |M| |z|) far below tol.  Such points must not be reported as solutions.
    p = ccp.LCP(M, q)
    r = ccp.solve(p, IP, tol=TOL)
    assert not r.success
    assert r.status in (Status.NO_SOLUTION, Status.ITERATION_LIMIT, Status.STATIONARY_NOT_SOLUTION)
    if r.status is Status.NO_SOLUTION:
        assert r.certificate.verified and farkas_holds(p.M, p.q, r.certificate.vector)
    assert ccp.solve(p, "lemke").status is Status.NO_SOLUTION


def test_random_monotone_statuses_match_lemke():
    # small integer monotone LCPs (B B^T plus a skew part): solvable or infeasible,
    # and the interior-point method must say which, as Lemke does
    rng = np.random.default_rng(11)
    for _ in range(150):
        n = int(rng.integers(1, 8))
        k = int(rng.integers(0, n + 1))
        B = rng.integers(-2, 3, (n, k)).astype(float)
        S = rng.integers(-2, 3, (n, n)).astype(float) * rng.integers(0, 2)
        p = ccp.LCP(B @ B.T + S - S.T, rng.integers(-3, 4, n).astype(float))
        r = ccp.solve(p, IP, tol=TOL)
        ref = ccp.solve(p, "lemke", tol=TOL)
        assert r.status is ref.status, (p.M, p.q, r.message)
        if r.success:
            assert lcp_violation(p.M, p.q, r.x) < 1e-9


def test_guarantee_psd_vs_indefinite():
    psd = ccp.solve(ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0]), IP)
    assert psd.stats["guarantee"] == GUARANTEE_PSD
    assert "polynomial convergence guaranteed" in psd.message
    # indefinite and not a P-matrix (M_11 = -1 < 0); this LCP happens to be solved anyway
    M, q = np.array([[-1.0, 2.0], [3.0, -1.0]]), np.array([-1.0, -1.0])
    ind = ccp.solve(ccp.LCP(M, q), IP)
    assert ind.stats["guarantee"] == GUARANTEE_NONE
    assert "no convergence guarantee" in ind.message
    if ind.success:
        assert lcp_violation(M, q, ind.x) < 1e-9


def test_matrix_class_checks():
    assert matrix_class(np.array([[2.0, 1.0], [1.0, 2.0]])) == (GUARANTEE_PSD, True)
    assert matrix_class(np.zeros((3, 3)))[0] == GUARANTEE_PSD
    assert matrix_class(np.array([[0.0, 1.0], [-1.0, 0.0]]))[0] == GUARANTEE_PSD  # skew: monotone
    B = np.random.default_rng(0).standard_normal((8, 3))
    assert matrix_class(B @ B.T)[0] == GUARANTEE_PSD  # singular PSD, rounding tolerated
    # P-matrix, not PSD: minors 1, 1, 1; symmetric part has eigenvalue -0.5
    assert matrix_class(np.array([[1.0, 3.0], [0.0, 1.0]])) == (GUARANTEE_P, False)
    # indefinite symmetric
    assert matrix_class(np.array([[0.0, 1.0], [1.0, 0.0]]))[0] == GUARANTEE_NONE
    # a P-matrix above n = 10 that is not PSD: no minors check, no claim
    T = np.eye(12) + np.diag(np.full(11, 3.0), 1)
    assert matrix_class(T)[0] == GUARANTEE_NONE
    # large: not checked at all
    assert matrix_class(np.eye(2001))[0] == GUARANTEE_UNCHECKED


def test_p_matrix_message_and_solution():
    M = np.array([[1.0, 3.0], [0.0, 1.0]])
    r = ccp.solve(ccp.LCP(M, [-1.0, -1.0]), IP, tol=TOL)
    assert r.stats["guarantee"] == GUARANTEE_P and "(P_*)" in r.message
    assert r.success
    ref = ccp.solve(ccp.LCP(M, [-1.0, -1.0]), "lemke")
    np.testing.assert_allclose(r.x, ref.x, atol=1e-10)


def test_feasible_start():
    p = pd_nonsymmetric(20, 5)
    rng = np.random.default_rng(1)
    z0 = rng.uniform(1.0, 2.0, 20)
    # shift q so that z0 is strictly feasible
    w = p.M @ z0 + p.q
    q = p.q + np.maximum(0.0, 1.0 - w)
    p2 = ccp.LCP(p.M, q)
    w0 = p2.M @ z0 + q
    assert w0.min() > 0
    for kw in ({"z0": z0, "w0": w0}, {"z0": z0}):
        r = ccp.solve(p2, IP, tol=TOL, **kw)
        assert r.success, r.message
        assert r.stats["start"].startswith("feasible")
        assert r.stats["infeasibility"] < 1e-12
        np.testing.assert_allclose(r.x, ccp.solve(p2, "lemke").x, atol=1e-7)


def test_infeasible_user_start():
    p = pd_nonsymmetric(15, 2)
    r = ccp.solve(p, IP, tol=TOL, z0=np.full(15, 5.0), w0=np.full(15, 0.1))
    assert r.success and r.stats["start"].startswith("infeasible")
    np.testing.assert_allclose(r.x, ccp.solve(p, "lemke").x, atol=1e-7)


def test_iteration_limit_is_not_solved():
    p = pd_nonsymmetric(40, 9)
    r = ccp.solve(p, IP, tol=TOL, max_iter=1, purify=False)
    assert r.status is Status.ITERATION_LIMIT
    assert r.iterations == 1 and r.residual.value > TOL
    assert "iteration limit" in r.message


def test_singular_newton_matrix_is_a_numerical_failure():
    # M = -1 with z = w = 1: the Newton matrix M + w/z is exactly zero
    p = ccp.LCP([[-1.0]], [2.0])
    r = ccp.solve(p, IP, tol=TOL, z0=[1.0], w0=[1.0], purify=False)
    assert r.status is Status.NUMERICAL_FAILURE and "singular" in r.message
    # the purification still finds a solution from that point (this LCP has two: z = 0, w = 2 and
    # z = 2, w = 0; at z = 1 the polish's support guess, z > w / s with w = M z + q = 1, s = 2, is {0})
    r = ccp.solve(p, IP, tol=TOL, z0=[1.0], w0=[1.0])
    assert r.success and r.stats["purified"]
    np.testing.assert_allclose(r.x, [2.0])
    assert r.residual.value == 0.0


def test_iterates_that_overflow_end_as_a_numerical_failure():
    # a start near the top of the floating-point range: z . w overflows at once; the method stops
    # with an honest status instead of offering a NaN point to the residual
    p = ccp.LCP([[1.0, 0.0], [0.0, 1.0]], [-1e300, 1.0])
    with np.errstate(over="ignore", invalid="ignore"):
        r = ccp.solve(p, IP, tol=TOL, z0=[1e300, 1e300], w0=[1e300, 1e300], purify=False)
    assert r.status is Status.NUMERICAL_FAILURE and "floating-point range" in r.message


def test_scaled_data():
    p = pd_nonsymmetric(20, 4)
    for M, q in ((p.M, 1e6 * p.q), (p.M, 1e-6 * p.q), (1e6 * p.M, p.q), (1e-6 * p.M, p.q)):
        r = ccp.solve(ccp.LCP(M, q), IP, tol=TOL)
        assert r.success, r.message
        np.testing.assert_allclose(r.x, ccp.solve(ccp.LCP(M, q), "lemke").x, rtol=1e-7, atol=1e-7 * np.abs(r.x).max())


def test_contact_problems():
    # friction-pyramid LCPs are not monotone (no guarantee), but these are solved
    from contactcp.problems import generators

    for seed in range(3):
        p = generators.contact(4, seed=seed)
        r = ccp.solve(p, IP, tol=TOL)
        assert r.success, r.message
        assert lcp_violation(p.M, p.q, r.x) < 1e-8 * max(1.0, np.abs(r.x).max())


@pytest.mark.parametrize(
    "opts",
    [
        {"max_iter": 0},
        {"max_iter": 2.5},
        {"max_iter": True},
        {"sigma": 0.0},
        {"sigma": 1.0},
        {"sigma": -0.2},
        {"sigma": "mehrotra"},
        {"sigma": float("nan")},
        {"z0": [1.0, 1.0]},
        {"z0": [1.0, 0.0, 1.0]},
        {"z0": [1.0, -1.0, 1.0]},
        {"z0": [1.0, np.nan, 1.0]},
        {"w0": [1.0, 1.0, 1.0]},
        {"z0": [1.0, 1.0, 1.0], "w0": [1.0, 0.0, 1.0]},
        {"purify": "yes"},
        {"purify": 1},
        {"pivot_rule": "bland"},
    ],
)
def test_bad_options_raise(opts):
    p = ccp.LCP(np.eye(3), [-1.0, 2.0, -3.0])
    with pytest.raises(InvalidOptionError):
        ccp.solve(p, IP, **opts)


def test_feasible_start_by_default_with_the_infeasible_start_as_fallback():
    rng = np.random.default_rng(4)
    A = rng.standard_normal((8, 8))
    p = ccp.LCP(A @ A.T + np.eye(8), rng.standard_normal(8) * 5)
    auto = ccp.solve(p, "interior-point")
    inf = ccp.solve(p, "interior-point", start="infeasible")
    assert auto.stats["start"].startswith("feasible") and inf.stats["start"].startswith("infeasible")
    assert auto.success and inf.success
    np.testing.assert_allclose(auto.x, inf.x, atol=1e-8)
    # w_1 = -z_2 - 1 < 0 for every z >= 0: no strictly feasible point, so the fallback runs
    q = ccp.LCP([[0.0, -1.0], [1.0, 0.0]], [-1.0, 1.0])
    r = ccp.solve(q, "interior-point")
    assert r.stats["start"].startswith("infeasible") and r.status is not Status.SOLVED
    with pytest.raises(InvalidOptionError):
        ccp.solve(p, "interior-point", start="warm")

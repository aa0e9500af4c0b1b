"""The Buffo–Maciel merit-function method (eqs. (3)-(4)): method="merit"."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import contactcp as ccp
from contactcp import Status
from contactcp.problems import generators
from contactcp.solvers.ncp.merit import merit_value
from support.oracles import lcp_violation

BACKENDS = ["trf", "lbfgsb"]
STATS = {
    "outer_iterations",
    "function_evaluations",
    "inner_iterations",
    "jacobian_evaluations",
    "matvecs",
    "final_f",
    "backend",
    "starts",
}


def cubic_ncp(jacobian=True):
    """1-D NCP with F(u) = u^3 - 4.5 u^2 + 6 u - 3.

    F(0) = -3, F has a negative local maximum F(1) = -0.5 and one root u* ~ 2.6777
    (F' > 0 there).  With z = 0 the merit is F(u)^2, which has a local, non-global
    minimum 0.25 at u = 1 (a stationary point of (3) that is not a solution) and its
    global minimum 0 at u*.  Descent from u = 0 stops at u = 1.
    """
    F = lambda x: np.array([x[0] ** 3 - 4.5 * x[0] ** 2 + 6 * x[0] - 3])
    J = lambda x: np.array([[3 * x[0] ** 2 - 9 * x[0] + 6]])
    return ccp.MixedNCP(F, None, 1, 0, jac_F=J if jacobian else None)


def cubic_root():
    r = np.roots([1, -4.5, 6, -3])
    return float(r[np.abs(r.imag) < 1e-12].real.max())


def planted_ncp(p=6, m=3, seed=0):
    """A strongly monotone mixed NCP H(x) = A x + 0.3 tanh(x) + c with a planted solution x*.

    F = H[:p], G = H[p:]; half of u* positive with F_i(x*) = 0, the other half zero
    with F_i(x*) > 0, G(x*) = 0.  H' = A + 0.3 diag(sech^2) is positive definite,
    so x* is the only solution.
    """
    rng = np.random.default_rng(seed)
    n = p + m
    B = rng.standard_normal((n, n))
    A = B @ B.T / n + np.eye(n) + 0.3 * (B - B.T) / n
    active = np.arange(p) % 2 == 0
    u = np.where(active, rng.uniform(0.5, 2.0, p), 0.0)
    v = rng.standard_normal(m)
    x_star = np.r_[u, v]
    target = np.r_[np.where(active, 0.0, rng.uniform(0.5, 2.0, p)), np.zeros(m)]
    c = target - (A @ x_star + 0.3 * np.tanh(x_star))
    H = lambda x: A @ x + 0.3 * np.tanh(x) + c
    dH = lambda x: A + np.diag(0.3 / np.cosh(x) ** 2)
    prob = ccp.MixedNCP(
        lambda x: H(x)[:p], lambda x: H(x)[p:], p, m, jac_F=lambda x: dH(x)[:p], jac_G=lambda x: dH(x)[p:]
    )
    return prob, x_star


# ---------------------------------------------------------------------------
# hand-checked LCPs


@pytest.mark.parametrize("polish", [True, False])
@pytest.mark.parametrize("backend", BACKENDS)
def test_hand_checked_lcp(backend, polish):
    # M = [[2, 1], [1, 2]], q = (-5, -6): both z_i > 0, so M z = -q: z = (4/3, 7/3), w = 0
    p = ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0])
    r = ccp.solve(p, "merit", backend=backend, polish=polish)
    assert r.status is Status.SOLVED, r.message
    np.testing.assert_allclose(r.x, [4 / 3, 7 / 3], atol=1e-8)
    np.testing.assert_allclose(r.w, p.M @ r.x + p.q, rtol=0, atol=1e-12)
    assert lcp_violation(p.M, p.q, r.x) < 1e-7
    assert STATS <= set(r.stats) and r.stats["backend"] == backend and r.stats["starts"] == 1
    assert r.stats["outer_iterations"] == r.iterations >= 1
    assert r.stats["function_evaluations"] >= 1 and r.stats["jacobian_evaluations"] >= 1
    assert r.stats["inner_iterations"] is None and isinstance(r.stats["matvecs"], int)
    # final_f is the merit (4) at the returned point and its slacks
    assert r.stats["final_f"] == pytest.approx(merit_value(p, r.x, r.stats["z"]), abs=1e-14)
    assert r.stats["final_f"] < 1e-14
    if not polish:
        assert not r.stats["polished"] and r.stats["polish_attempts"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_degenerate_and_boundary_lcp(backend):
    # M = I, q = (-1, 0, 2): z = (1, 0, 0), w = (0, 0, 2); the middle pair is degenerate (z = w = 0)
    p = ccp.LCP(np.eye(3), [-1.0, 0.0, 2.0])
    r = ccp.solve(p, "merit", backend=backend)
    assert r.success, r.message
    np.testing.assert_allclose(r.x, [1.0, 0.0, 0.0], atol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
def test_start_that_already_solves_costs_no_iteration(backend):
    p = ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [1.0, 2.0])  # q >= 0: z = 0 at the paper's x0 = 0
    r = ccp.solve(p, "merit", backend=backend)
    assert r.success and r.iterations == 0 and np.all(r.x == 0)
    q = ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0])
    r = ccp.solve(q, "merit", backend=backend, x0=[4 / 3, 7 / 3], z0=[0.0, 0.0])
    assert r.success and r.iterations == 0


# ---------------------------------------------------------------------------
# agreement with Lemke


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [3, 9, 20])
def test_p_matrix_lcps_agree_with_lemke(backend, n):
    for seed in range(6):
        p = generators.p_matrix(n, seed)
        ref = ccp.solve(p, "lemke")
        r = ccp.solve(p, "merit", backend=backend)
        assert ref.success
        assert r.success, (seed, r.message)
        assert r.residual.value <= 1e-9
        np.testing.assert_allclose(r.x, ref.x, atol=1e-8)  # a P-matrix LCP has one solution


@pytest.mark.parametrize("backend", BACKENDS)
def test_plain_method_without_polish_on_p_matrix_lcps(backend):
    """polish=False is Buffo–Maciel's method alone: it reaches a looser tolerance by itself
    (1e-4 relative to max|q|; trf stalls near 3e-5 on two of these, the slow tail of the merit
    function at a degenerate solution that the active-set polish removes)."""
    for seed in range(4):
        p = generators.p_matrix(5, seed)
        ref = ccp.solve(p, "lemke")
        r = ccp.solve(p, "merit", backend=backend, polish=False, tol=1e-4, max_iter=5000)
        assert r.success and not r.stats["polished"] and r.stats["polish_attempts"] == 0, r.message
        np.testing.assert_allclose(r.x, ref.x, atol=1e-3)


def test_mixed_lcp_agrees_with_lemke():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((7, 7))
    M = A @ A.T + np.eye(7) + 0.5 * (A - A.T)
    q = rng.standard_normal(7)
    p = ccp.MixedLCP(M, q, free=[1, 4])  # free variables not at the end
    ref = ccp.solve(p, "lemke")
    for backend in BACKENDS:
        r = ccp.solve(p, "merit", backend=backend)
        assert r.success, r.message
        np.testing.assert_allclose(r.x, ref.x, atol=1e-8)
        assert abs(r.w[[1, 4]]).max() < 1e-9
        # the slacks are those of the complementarity rows, zero on the free rows
        assert np.all(r.stats["z"][[1, 4]] == 0) and np.all(r.stats["z"] >= 0)


# ---------------------------------------------------------------------------
# mixed nonlinear complementarity


@pytest.mark.parametrize("backend", BACKENDS)
def test_planted_mixed_ncp(backend):
    prob, x_star = planted_ncp()
    r = ccp.solve(prob, "merit", backend=backend)
    assert r.status is Status.SOLVED, r.message
    np.testing.assert_allclose(r.x, x_star, atol=1e-8)
    np.testing.assert_allclose(r.w, prob.eval_F(r.x))
    assert r.stats["matvecs"] is None and r.stats["jacobian"] == "analytic"
    assert r.stats["fd_function_evaluations"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_planted_mixed_ncp_plain_method(backend):
    prob, x_star = planted_ncp(seed=0)
    r = ccp.solve(prob, "merit", backend=backend, polish=False, tol=1e-6, max_iter=3000)
    assert r.success and not r.stats["polished"], r.message
    np.testing.assert_allclose(r.x, x_star, atol=1e-5)


def test_plain_trf_creeping_to_a_solution_is_not_called_stationary():
    # trf's interior (Coleman–Li) steps approach the degenerate minimiser slowly on this
    # instance: the merit is small and still decreasing when max_iter stops it
    prob, x_star = planted_ncp(seed=1)
    r = ccp.solve(prob, "merit", polish=False, max_iter=300)
    assert r.status is Status.ITERATION_LIMIT, r.message
    assert 0 < r.stats["final_f"] < 1e-4 and r.stats["stationarity"] > 1e-6
    # the active-set polish finishes it in a few iterations
    r = ccp.solve(prob, "merit")
    assert r.success and r.stats["polished"] and r.iterations <= 5


def test_mixed_ncp_without_jacobians_uses_finite_differences():
    prob, x_star = planted_ncp(seed=2)
    bare = ccp.MixedNCP(prob.F, prob.G, prob.p, prob.m)
    r = ccp.solve(bare, "merit")
    assert r.success, r.message
    assert "finite differences" in r.message and r.stats["jacobian"] == "finite differences"
    assert r.stats["fd_function_evaluations"] >= prob.size
    np.testing.assert_allclose(r.x, x_star, atol=1e-8)


# ---------------------------------------------------------------------------
# stationary points that are not solutions


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("M, q", [([[0.0]], [-1.0]), (-np.eye(2), [-1.0, -1.0])])
def test_unsolvable_lcp_ends_stationary_not_solved(backend, M, q):
    # w = M z + q < 0 for every z >= 0: no solution, and the merit has a positive minimum
    p = ccp.LCP(M, q)
    r = ccp.solve(p, "merit", backend=backend, multistart=2, seed=0)
    assert r.status is Status.STATIONARY_NOT_SOLUTION, r.message
    assert r.stats["final_f"] >= 1.0 - 1e-9 and r.stats["starts"] == 3
    assert "stationary point that is not a solution" in r.message


def test_ftol_above_the_minimum_is_still_not_certified():
    # with ftol = 2 the stationary point (f = 1) counts as a zero of f for the method, but
    # the registry's residual check refuses it: never SOLVED
    p = ccp.LCP([[0.0]], [-1.0])
    r = ccp.solve(p, "merit", ftol=2.0)
    assert r.status is Status.INACCURATE and not r.success
    assert "ftol" in r.message


@pytest.mark.parametrize("backend", BACKENDS)
def test_local_non_global_minimum_of_the_merit_function(backend):
    p = cubic_ncp()
    r = ccp.solve(p, "merit", backend=backend, multistart=0)
    assert r.status is Status.STATIONARY_NOT_SOLUTION, r.message
    np.testing.assert_allclose(r.x, [1.0], atol=1e-6)
    assert r.stats["final_f"] == pytest.approx(0.25, abs=1e-9)
    assert r.stats["stationarity"] < 1e-6 and r.stats["starts"] == 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("jacobian", [True, False])
def test_multistart_recovers_the_solution_the_first_start_misses(backend, jacobian):
    p = cubic_ncp(jacobian)
    r = ccp.solve(p, "merit", backend=backend)  # default: 5 extra starts, seed 0
    assert r.status is Status.SOLVED, r.message
    np.testing.assert_allclose(r.x, [cubic_root()], atol=1e-9)
    assert r.stats["starts"] >= 2 and r.stats["start_f"][0] == pytest.approx(0.25, abs=1e-9)
    assert r.stats["start_f"][-1] < 1e-16
    assert f"{r.stats['starts']} starts" in r.message
    again = ccp.solve(p, "merit", backend=backend)
    assert again.stats["start_f"] == r.stats["start_f"] and np.array_equal(again.x, r.x)  # seeded


def test_multistart_is_not_used_when_the_first_run_solves():
    p = generators.p_matrix(6, 0)
    r = ccp.solve(p, "merit", multistart=5, seed=0)
    assert r.success and r.stats["starts"] == 1


def test_iteration_limit():
    p = generators.p_matrix(8, 3)
    r = ccp.solve(p, "merit", max_iter=1, polish=False)
    assert r.status is Status.ITERATION_LIMIT and r.iterations == 1
    r = ccp.solve(p, "merit", backend="lbfgsb", max_iter=2, polish=False)
    assert r.status is Status.ITERATION_LIMIT and r.iterations == 2


# ---------------------------------------------------------------------------
# options


@pytest.mark.parametrize(
    "opts, field",
    [
        ({"backend": "newton"}, "backend"),
        ({"backend": 3}, "backend"),
        ({"max_iter": -1}, "max_iter"),
        ({"max_iter": 0}, "max_iter"),
        ({"max_iter": True}, "max_iter"),
        ({"max_iter": 2.5}, "max_iter"),
        ({"x0": [1.0, 2.0, 3.0]}, "x0"),
        ({"x0": [[1.0, 2.0], [3.0, 4.0]]}, "x0"),
        ({"x0": [np.nan, 1.0]}, "x0"),
        ({"z0": [1.0]}, "z0"),
        ({"ftol": -1.0}, "ftol"),
        ({"ftol": np.inf}, "ftol"),
        ({"multistart": -1}, "multistart"),
        ({"polish": "yes"}, "polish"),
        ({"seed": "abc"}, "seed"),
        ({"trust_radius": 1.0}, "trust_radius"),
    ],
)
def test_bad_options(opts, field):
    p = ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0])
    with pytest.raises(ccp.InvalidOptionError) as err:
        ccp.solve(p, "merit", **opts)
    assert err.value.option == field


def test_merit_is_registered_for_lcp_mixed_lcp_and_mixed_ncp_only():
    assert "merit" in ccp.methods(ccp.LCP(np.eye(2), [1.0, 1.0]))
    assert "merit" in ccp.methods(ccp.MixedLCP(np.eye(2), [1.0, 1.0], free=[0]))
    assert "merit" in ccp.methods(planted_ncp()[0])
    assert "merit" not in ccp.methods(ccp.BoxLCP(np.eye(1), [0.0], [0.0], [1.0]))
    with pytest.raises(ccp.UnknownMethodError):
        ccp.solve(ccp.BoxLCP(np.eye(1), [0.0], [0.0], [1.0]), "merit")


# ---------------------------------------------------------------------------
# property: SOLVED is always certified


entries = st.one_of(st.integers(-3, 3).map(float), st.floats(-5, 5, allow_nan=False, width=32).map(float))


@st.composite
def lcps(draw):
    n = draw(st.integers(1, 4))
    return draw(arrays(np.float64, (n, n), elements=entries)), draw(arrays(np.float64, (n,), elements=entries))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lcps(), st.sampled_from(BACKENDS), st.booleans())
def test_solved_is_within_tolerance(data, backend, polish):
    M, q = data
    tol = 1e-9
    r = ccp.solve(ccp.LCP(M, q), "merit", tol=tol, backend=backend, polish=polish, max_iter=60)
    assert r.status in (Status.SOLVED, Status.STATIONARY_NOT_SOLUTION, Status.ITERATION_LIMIT, Status.INACCURATE)
    if r.status is Status.SOLVED:
        # recomputed here from scratch, independently of the library's residual
        w = M @ r.x + q
        scale = max(1.0, np.max(np.abs(q) + np.abs(M) @ np.abs(r.x)))
        assert np.max(np.abs(np.minimum(r.x, w))) <= tol * scale * (1 + 1e-12)
    else:
        assert r.residual.value > tol


def test_badly_scaled_rows_are_equilibrated():
    """A polynomial MixedNCP whose rows are scaled by 2^-5 .. 2^12 (the fuzz's MixedNCP:scaled:52,
    planted solution x = (0, 0, 3, 0)): without the row equilibration the merit method stops at its
    iteration limit (f = 1.2e-2); with it, the answer passes the problem's own residual."""
    import contactcp as ccp

    K = np.array([[2.0**-5, 0, 0, 2.0**-6], [-512.0, 1536.0, -1024.0, 512.0], [0, 0, 14.0, 0], [0, 0, 2048.0, 6144.0]])
    k = np.array([0.109375, 5632.0, -42.0, -33792.0])
    c = np.array([2.0**-5, 1024.0, 4.0, 1024.0])
    pi = np.array([1, 3, 0, 2])

    def full(x):
        return K @ x + k + c * x[pi] ** 3

    def jac(x):
        J = K.copy()
        J[np.arange(4), pi] += 3.0 * c * x[pi] ** 2
        return J

    prob = ccp.MixedNCP(
        lambda x: full(x)[:2],
        lambda x: full(x)[2:],
        2,
        2,
        jac_F=lambda x: jac(x)[:2],
        jac_G=lambda x: jac(x)[2:],
        scale=33792.0,
    )
    res = ccp.solve(prob, method="merit")
    assert res.status is ccp.Status.SOLVED and res.stats["rows_equilibrated"]
    np.testing.assert_allclose(res.x, [0.0, 0.0, 3.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(res.w, full(np.array([0.0, 0.0, 3.0, 0.0]))[:2], rtol=1e-9)
    A, b = np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-1.0, 1.0])
    plain = ccp.solve(ccp.MixedNCP(lambda x: A @ x + b, None, 2, 0, jac_F=lambda x: A), method="merit")
    assert plain.success and not plain.stats["rows_equilibrated"]  # rows within 2^8: left as they are


def test_a_run_that_ends_outside_tol_is_polished():
    # the fuzz's MixedNCP:planted:193 (F, G = K x + k + c x[pi]^3): trf's run ended at a point of
    # residual 2e-9 (its monitor had judged the unclipped point); the polish at the run's end, tried
    # whatever was tried before, lands on the planted solution (0, 0, 0, 4, 4) exactly
    K = np.array([[23, 3, 8, -4, -4], [3, 15, 16, 0, 16], [8, 16, 25, 2, 22], [-4, 0, 2, 21, 0], [-4, 16, 22, 0, 34]])
    k = np.array([37, -58, -224, -84, -136])
    c = np.array([0, 0, 2, 2, 0])
    pi = np.array([2, 0, 4, 0, 0])

    def full(x):
        return K @ x + k + c * x[pi] ** 3

    def jac(x):
        J = K.astype(float)
        J[np.arange(5), pi] += 3.0 * c * x[pi] ** 2
        return J

    problem = ccp.MixedNCP(
        lambda x: full(x)[:3],
        lambda x: full(x)[3:],
        3,
        2,
        jac_F=lambda x: jac(x)[:3],
        jac_G=lambda x: jac(x)[3:],
        scale=224.0,
    )
    res = ccp.solve(problem, method="merit", tol=1e-9)
    assert res.status is Status.SOLVED
    assert res.residual.value <= 1e-12
    np.testing.assert_allclose(res.x, [0.0, 0.0, 0.0, 4.0, 4.0], atol=1e-12)


def test_a_start_where_the_merit_function_overflows_is_not_run():
    # x0 = 1e100: (u . z)^2 overflows, the backends' steps are meaningless there (the fuzz's warm LCPs
    # took 31 s of CPU for six such starts); the run is skipped and the random restarts, whose width
    # ignores that start, solve the problem
    problem = generators.spd(6, seed=4)
    res = ccp.solve(problem, method="merit", x0=np.full(6, 1e100))
    assert res.stats["start_f"][0] == np.inf
    assert res.stats["starts"] >= 2
    assert res.status is Status.SOLVED
    assert lcp_violation(problem.M, problem.q, res.x) <= 1e-9

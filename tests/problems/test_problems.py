"""Problem types: validation on construction, immutability, independent residuals."""

from fractions import Fraction

import numpy as np
import pytest

import contactcp as ccp
from contactcp import InvalidProblemError, Status


def test_lcp_residual_hand_computed():
    p = ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0])
    # z = (4/3, 7/3) solves it exactly: w = (8/3 + 7/3 - 5, 4/3 + 14/3 - 6) = 0
    r = p.residual([4 / 3, 7 / 3])
    assert r.value < 1e-15
    # z = (1, 0): w = (-3, -5): natural = |min(1,-3)| = 3, |min(0,-5)| = 5 -> 5; scale = max(1, |q|) = 6;
    # the error bound of row 2 (w computed in doubled precision) is of order eps, far below 5
    r = p.residual([1.0, 0.0])
    assert r.natural == pytest.approx(5.0)
    assert r.scale == pytest.approx(6.0)
    assert r.value == pytest.approx(5 / 6)
    assert r.w_violation == pytest.approx(5.0)
    assert r.z_violation == 0.0
    assert r.complementarity == pytest.approx(3.0)
    assert not r.ok(1e-9)


def test_lcp_residual_negative_z_and_nan():
    p = ccp.LCP(np.eye(2), [1.0, 1.0])
    r = p.residual([-0.5, 0.0])
    assert r.z_violation == pytest.approx(0.5)
    assert r.natural == pytest.approx(0.5)
    with pytest.raises(InvalidProblemError, match="z: contains NaN"):
        p.residual([np.nan, 0.0])
    with pytest.raises(InvalidProblemError, match="z: must have length 2"):
        p.residual([1.0, 2.0, 3.0])


def test_mixed_lcp_residual_counts_equations():
    # x = (u, v): F = u + v - 1 (comp), G = u - v (free)
    p = ccp.MixedLCP.from_blocks([[1.0]], [[1.0]], [[1.0]], [[-1.0]], [-1.0], [0.0])
    assert p.free.tolist() == [False, True]
    assert p.residual([0.5, 0.5]).value < 1e-15
    r = p.residual([0.5, 0.0])  # G = 0.5, F = -0.5
    assert r.equation == pytest.approx(0.5)
    assert r.natural == pytest.approx(0.5)
    # a negative free variable is allowed
    p2 = ccp.MixedLCP([[1.0, 0.0], [0.0, 1.0]], [0.0, 3.0], free=[1])
    assert p2.residual([0.0, -3.0]).value == 0.0


def test_box_lcp_residual():
    p = ccp.BoxLCP(np.eye(2), [-3.0, 1.0], lower=[0.0, -np.inf], upper=[1.0, np.inf])
    # z1 at upper bound 1 with w1 = -2 <= 0: fine; z2 free with w2 = z2 + 1 = 0
    assert p.residual([1.0, -1.0]).value == 0.0
    assert p.residual([0.5, -1.0]).value > 0.1
    r = p.residual([1.5, -1.0])
    assert r.z_violation == pytest.approx(0.5)


def test_ucp_residual():
    p = ccp.UCP([[1.0, 1.0]], [1.0], [[1.0, -1.0]], [0.0])
    assert p.residual([1.0, 0.0], [0.0, 0.0]).value == 0.0
    r = p.residual([0.5, 0.5], [1.0, 1.0])
    assert r.natural == pytest.approx(0.5)
    assert r.complementarity == pytest.approx(1.0)


def test_mixed_ncp_residual_and_shape_errors():
    p = ccp.MixedNCP(lambda x: np.array([x[0] ** 2 + x[1] - 1.0]), lambda x: np.array([x[0] - x[1]]), 1, 1)
    assert p.residual([0.5 * (np.sqrt(5) - 1)] * 2).value < 1e-15
    bad = ccp.MixedNCP(lambda x: np.zeros(3), None, 1)
    with pytest.raises(InvalidProblemError, match="F: returned shape"):
        bad.residual([0.0])
    nan = ccp.MixedNCP(lambda x: np.array([np.nan]), None, 1)
    assert nan.residual([0.0]).value == np.inf


@pytest.mark.parametrize(
    "args, field, msg",
    [
        (([[1, 2, 3], [4, 5, 6]], [1, 2]), "M", "must be square"),
        (([1, 2], [1, 2]), "M", "must be a 2-D matrix"),
        ((np.eye(2), [1, 2, 3]), "q", "must have length 2"),
        (([[1, np.nan], [0, 1]], [1, 2]), "M", "contains NaN"),
        ((np.eye(2), [np.inf, 0]), "q", "only finite values"),
        (([["a", "b"], ["c", "d"]], [1, 2]), "M", "cannot be read"),
        ((np.zeros((0, 0)), []), "M", "at least one row"),
    ],
)
def test_lcp_bad_input(args, field, msg):
    with pytest.raises(InvalidProblemError, match=msg) as exc:
        ccp.LCP(*args)
    assert exc.value.field == field
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, ccp.ContactCPError)


def test_other_bad_inputs():
    with pytest.raises(InvalidProblemError, match="lower: must be <= upper"):
        ccp.BoxLCP(np.eye(2), [0, 0], [1, 0], [0, 1])
    with pytest.raises(InvalidProblemError, match="upper: contains -inf"):
        ccp.BoxLCP(np.eye(1), [0], [0], [-np.inf])
    with pytest.raises(InvalidProblemError, match="lower: contains inf"):
        ccp.BoxLCP(np.eye(1), [0], [np.inf], [np.inf])
    with pytest.raises(InvalidProblemError, match="free: indices must lie in 0..1"):
        ccp.MixedLCP(np.eye(2), [0, 0], free=[2])
    with pytest.raises(InvalidProblemError, match="free: indices must be distinct"):
        ccp.MixedLCP(np.eye(2), [0, 0], free=[1, 1])
    with pytest.raises(InvalidProblemError, match="A_y: must have shape"):
        ccp.UCP(np.eye(2), [1, 1], np.eye(3), [1, 1, 1])
    with pytest.raises(InvalidProblemError, match="G: must be callable"):
        ccp.MixedNCP(lambda x: x, None, 1, 1)
    with pytest.raises(InvalidProblemError, match="p: must be >= 0"):
        ccp.MixedNCP(lambda x: x, None, -1)
    with pytest.raises(InvalidProblemError, match="C: must have shape"):
        ccp.MixedLCP.from_blocks(np.eye(2), np.ones((2, 1)), np.ones((2, 2)), np.eye(1), [0, 0], [0])


def test_problems_are_immutable_and_copy_their_data():
    M = np.eye(2)
    q = np.array([-1.0, 1.0])
    p = ccp.LCP(M, q)
    M[0, 0] = 5.0
    q[0] = 7.0
    assert p.M[0, 0] == 1.0 and p.q[0] == -1.0
    with pytest.raises(ValueError):
        p.M[0, 0] = 3.0
    with pytest.raises(AttributeError, match="immutable"):
        p.q = np.zeros(2)


def test_errors_survive_pickling():
    """Errors raised in sweep workers cross process boundaries intact."""
    import pickle

    from contactcp.errors import InvalidOptionError, InvalidProblemError, UnknownMethodError

    for err in (
        InvalidProblemError("M", "must be square"),
        InvalidOptionError("tol", "must be > 0"),
        UnknownMethodError("x", "LCP", ["lemke"], "unknown method"),
    ):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)


def test_a_huge_z_cannot_hide_w_below_zero():
    """M = [[1, -1], [-1, 1]], q = (-1, -1) has no solution (Farkas: y = (1, 1)); far out along
    z = (t, t), w = (-1, -1) stays negative while the terms grow like t.  Each row's scale counts z_j
    at most at unit size (s_i = |q_i| + ... = 2 here, never t), so w_i / s_i = -1/2 all along the ray:
    no point of it passes, and no method reports SOLVED from there."""
    p = ccp.LCP([[1.0, -1.0], [-1.0, 1.0]], [-1.0, -1.0])
    for t in (1.0, 1e5, 1e10, 1e14):
        r = p.residual([t, t])
        assert r.value == pytest.approx(0.5, rel=1e-14), (t, r)
        assert r.scale == pytest.approx(2.0, rel=1e-14)
    assert ccp.solve(p, "pgs", z0=[1e10, 1e10]).status is not Status.SOLVED
    assert ccp.solve(p, "pgs", max_sweeps=10**5, tol=1e-6).status is not Status.SOLVED
    assert ccp.solve(p, "merit", x0=[1e10, 1e10]).status is not Status.SOLVED
    assert ccp.solve(p, "lemke").status is Status.NO_SOLUTION


def test_large_solutions_are_not_failed_by_round_off():
    """z of size 1e8 from a planted solution: the residual is the violation beyond rounding."""
    rng = np.random.default_rng(3)
    B = rng.standard_normal((6, 6))
    M = B @ B.T + np.eye(6)
    z = np.array([1e8, 0, 3e7, 0, 0, 2e8])
    w = np.array([0, 1.0, 0, 2.0, 0.5, 0])
    p = ccp.LCP(M, w - M @ z)
    assert p.residual(z).value <= 1e-12
    r = ccp.solve(p, "lemke")
    assert r.success and np.allclose(r.x, z, rtol=1e-9, atol=1e-3)


def test_complex_data_is_rejected_not_truncated():
    with pytest.raises(InvalidProblemError) as err:
        ccp.LCP([[1.0 + 1e-3j, 0], [0, 1]], [1.0, 1.0])
    assert err.value.field == "M" and "complex" in str(err.value)
    with pytest.raises(InvalidProblemError, match="complex"):
        ccp.LCP(np.eye(2), np.array([1.0, 1j]))


def test_exact_signs_match_rational_arithmetic():
    from fractions import Fraction

    from contactcp.linalg.rational import exact_dot, exact_transpose_product

    rng = np.random.default_rng(0)
    for _ in range(100):
        m, n = rng.integers(1, 8, 2)
        A = rng.standard_normal((m, n)) * 10.0 ** rng.integers(-8, 8, (m, n))
        y = rng.standard_normal(m) * 10.0 ** rng.integers(-8, 8, m)
        v = exact_transpose_product(A, y)
        for j in range(n):
            assert v[j] == float(sum(Fraction(A[i, j]) * Fraction(y[i]) for i in range(m)))
        assert exact_dot(A[:, 0], y) == float(sum(Fraction(a) * Fraction(b) for a, b in zip(A[:, 0], y)))
    # cancellation that plain floats get wrong: 1e16 + 1 - 1e16
    assert exact_transpose_product(np.array([[1e16], [1.0], [-1e16]]), np.ones(3))[0] == 1.0


def test_rational_proof_removes_round_off_dust():
    """M = [[0, -3], [3, 0]], q = (-1, 1): y = (1, 0) is a proof; y = (1, 1.5e-11) from a solver
    has (M^T y)_1 = 4.5e-11 > 0, and the rational recomputation on the vanishing column finds
    y_2 = 0 exactly; its floats prove it by themselves, so the certificate hands out those."""
    p = ccp.LCP([[0.0, -3.0], [3.0, 0.0]], [-1.0, 1.0])
    cert = p.make_certificate([1.0, 1.5e-11])
    assert cert.verified and cert.exact is None
    assert cert.vector[1] == 0.0 and cert.vector[0] > 0
    assert p.check_certificate(cert.vector)[0]


def test_a_proof_that_needs_rational_numbers_hands_out_the_rational_vector():
    """M = [[-0.1, 0.1], [0.3, -0.3]], q = (-1, 0) is infeasible (w_1 >= 0 forces z_0 >= z_1, then
    w_0 < 0); the only proofs have y_1 / y_0 = fl(0.1) / fl(0.3), which is no float: the certificate
    carries that rational vector, it checks in rational arithmetic, and its float image does not."""
    p = ccp.LCP([[-0.1, 0.1], [0.3, -0.3]], [-1.0, 0.0])
    r = ccp.solve(p, "lemke")
    assert r.status is Status.NO_SOLUTION
    cert = r.certificate
    assert cert.verified and cert.exact is not None
    y = cert.exact
    assert y[1] / y[0] == Fraction(0.1) / Fraction(0.3)
    M = [[Fraction(v) for v in row] for row in p.M.tolist()]
    assert all(sum(M[i][j] * y[i] for i in range(2)) <= 0 for j in range(2))
    assert sum(Fraction(v) * yi for v, yi in zip(p.q.tolist(), y)) < 0
    assert p.check_certificate(list(y))[0]
    assert not p.check_certificate(cert.vector)[0]
    d = r.to_dict()["certificate"]["exact"]
    assert [Fraction(s) for s in d] == list(y)


def test_the_rounding_allowance_never_excuses_an_exact_z():
    """The error bound belongs to w only: z = 1 beside w = 1e16 violates complementarity by 1,
    and z < 0 is a violation however large the terms of w are."""
    assert ccp.LCP([[1e16]], [1.0]).residual([1.0]).value == pytest.approx(1.0)
    assert ccp.LCP([[0.0, 1e20], [0.0, 0.0]], [0.0, 0.0]).residual([-1e-3, 1.0]).value == pytest.approx(1e-3)
    r = ccp.solve(ccp.LCP([[1e16, 0.0], [0.0, 1.0]], [1.0, -1.0]), "merit", x0=[1.0, 1.0])
    assert r.success and np.allclose(r.x, [0.0, 1.0])
    box = ccp.BoxLCP([[1e16]], [1.0], [0.0], [2.0])
    assert box.residual([1.0]).value == pytest.approx(1.0)


@pytest.mark.parametrize(
    "M, q, y",
    [
        ([[1.0, -1.0], [-1.0, 1.0 + 1e-14]], [-1.0, 0.5], [1.0, 1.0]),  # positive definite: z ~ 5e13 solves it
        ([[1e-200]], [-1.0], [1e-200]),  # z = 1e200 solves it (underflow trap)
    ],
)
def test_near_proofs_of_solvable_problems_are_rejected(M, q, y):
    p = ccp.LCP(M, q)
    ok, checks = p.check_certificate(y)
    assert not ok
    for method in ("lemke", "enumerate", "interior-point", "bpp"):
        assert ccp.solve(p, method).status is not Status.NO_SOLUTION, method


def test_ucp_proof_may_not_rest_on_a_small_entry():
    """X = {x >= 0 : x_1 - 1e-13 x_2 = -1} has the point (0, 1e13); the LPs' cleaning treats
    1e-13 as zero, but the proof is checked on the caller's rows, exactly."""
    p = ccp.UCP([[1.0, -1e-13]], [-1.0], [[1.0, 0.0]], [0.0])
    for method in ("bilinear", "enumerate", "exact"):
        assert ccp.solve(p, method).status is not Status.NO_SOLUTION, method


def test_options_typed_any_are_not_type_checked():
    p = ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-1.0, -1.0])
    assert ccp.solve(p, "merit", seed=None).success
    assert ccp.solve(p, "merit", seed=np.random.default_rng(1)).success


def test_box_residual_sees_a_small_w_beside_a_large_interior_z():
    # z = -1e31 strictly inside (-inf, 8e30): w must vanish; w / s = 1.7 / 2.7 would vanish in
    # z - w / s (the map's textbook form) and read 0 (the full fuzz's BoxLCP:huge:20)
    p = ccp.BoxLCP([[1e-31]], [2.7], [-np.inf], [8e30])
    res = p.residual([-1e31])
    assert res.value == pytest.approx(1.7 / 2.7, rel=1e-12)
    assert res.natural == pytest.approx(1.7, rel=1e-12)  # the raw map: w itself
    # at a bound the map is the bound's gap, as before
    assert ccp.BoxLCP([[1.0]], [-1.0], [0.0], [0.5]).residual([0.5]).value == 0.0


def test_exact_row_value_beyond_the_float_range_is_infinite():
    from contactcp.problems._exact import exact_row

    big = np.array([1e308, 1e308])
    nearest, value, _ = exact_row(big, big, 0.0, np.array([np.inf, np.inf]))
    assert nearest == np.inf and value == Fraction(1e308) ** 2 * 2
    nearest, _, _ = exact_row(-big, big, 0.0, np.array([np.inf, np.inf]))
    assert nearest == -np.inf


def _pressed_body(violation: float = 0.0):
    """One contact on a light body pressed hard: W = 2^-20 I, r* = (600, 100, 0) sticking (u = 0),
    q = -W r* exactly; ``violation`` moves u_N off zero by that fraction of ||q||."""
    W = np.eye(3) * 2.0**-20
    r = np.array([600.0, 100.0, 0.0])
    q = -W @ r
    q[0] += violation * np.linalg.norm(q)
    return ccp.FrictionContactProblem(W, q, 0.5), r


def test_coulomb_rounding_allowance_is_replaced_by_an_exact_evaluation():
    # the float measure's rounding allowance grows with ||r|| = 608 against ||q|| = 5.8e-4: alone it
    # exceeds 1e-9; evaluated exactly the natural map of this exact solution is zero
    problem, r = _pressed_body()
    assert problem.residual(r).natural == 0.0
    assert problem.residual(r).value > 1e-9
    res = ccp.solve(problem, tol=1e-9)
    assert res.status is Status.SOLVED
    np.testing.assert_array_equal(res.x, r)
    assert res.residual.value < 1e-30  # the decimal allowance, 1e-45 of the data


@pytest.mark.parametrize("violation", [2e-9, 1e-6])
def test_exact_coulomb_evaluation_still_sees_a_real_violation(violation):
    # u_N = violation * ||q|| > 0 at r*: the natural map's normal part is that much, which the exact
    # evaluation reports (an upper bound, tight to 1e-45) and the certificate refuses at tol 1e-9
    from contactcp.problems._exact_coulomb import exact_measure

    problem, r = _pressed_body(violation)
    value = exact_measure(problem.W, problem.q, problem.mu, 3, r)
    u_n = Fraction(float(problem.q[0])) + Fraction(2.0**-20) * 600
    norm_q2 = sum(Fraction(float(v)) ** 2 for v in problem.q)
    # exact comparisons: value >= |u_N| / ||q|| (squared, in rationals) and within 1e-12 of it
    assert Fraction(value) ** 2 * norm_q2 >= u_n**2
    assert (Fraction(value) / (1 + Fraction(1, 10**12))) ** 2 * norm_q2 <= u_n**2
    assert value > 1e-9
    refined = problem._refine(r, problem.residual(r), 1e-9)
    assert Fraction(refined.value) ** 2 * norm_q2 >= u_n**2


def test_exact_coulomb_evaluation_runs_only_where_it_can_certify(monkeypatch):
    # W = I, r* = (1, 0, 0) sticking: u_N moved off zero by 1.5e-8 ||q|| is a natural map of 1.5e-8 with
    # a rounding allowance near 1e-16: at tol 1e-8 no exact evaluation can certify it, so none runs;
    # at a violation inside the allowance it runs
    import contactcp.problems.friction as friction

    calls = []
    monkeypatch.setattr(friction, "exact_measure", lambda *a: calls.append(a) or 0.0)
    W = np.eye(3)
    q = np.array([-1.0, 0.0, 0.0])
    problem = ccp.FrictionContactProblem(W, q + np.array([1.5e-8, 0.0, 0.0]), 0.5)
    r = np.array([1.0, 0.0, 0.0])
    residual = problem.residual(r)
    assert 1.4e-8 < residual.natural / residual.scale < residual.value < 1.6e-8
    assert problem._refine(r, residual, 1e-8) is residual and not calls
    assert problem._refine(r, residual, residual.value * (1 - 1e-12)).value == 0.0 and len(calls) == 1


def test_exact_coulomb_evaluation_of_a_sliding_contact():
    # sliding on the cone's edge (mu = 1, r_T = -(3, 4)/5 r_N, u_T along (3, 4)), all data dyadic so
    # q = u - W r is exact: the natural map is zero, the bound is the decimal allowance alone; moving
    # u_T off the direction of -r_T by an exact amount is seen at its size
    from contactcp.problems._exact_coulomb import exact_measure

    W = np.eye(3) * 2.0**-20
    r = np.array([80.0, -48.0, -64.0])
    u = np.array([0.0, 3.0, 4.0]) * 2.0**-10
    problem = ccp.FrictionContactProblem(W, u - W @ r, 1.0)
    assert exact_measure(problem.W, problem.q, problem.mu, 3, r) < 1e-30
    turned = ccp.FrictionContactProblem(W, np.array([0.0, 4.0, 3.0]) * 2.0**-10 - W @ r, 1.0)
    assert exact_measure(turned.W, turned.q, turned.mu, 3, r) > 1e-3


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_copies_of_problems_stay_read_only(how):
    # a copy's arrays come back writeable; the problem's caches (the friction problem's exponent of
    # max |q|, the scaling reduction's input) assume data that never change
    import copy
    import pickle

    import scipy.sparse as sp

    W = sp.csr_matrix(np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    problems = [
        ccp.FrictionContactProblem(W, [-1.0, 0.25, 0.5], 0.5),
        ccp.FrictionContactProblem(W.toarray(), [-1.0, 0.25, 0.5], 0.5),
        ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-1.0, 1.0]),
    ]
    for p in problems:
        back = {"pickle": lambda x: pickle.loads(pickle.dumps(x)), "deepcopy": copy.deepcopy, "copy": copy.copy}[how](p)
        with pytest.raises(ValueError):
            back.q[0] = 1e300
        A = back.W if isinstance(back, ccp.FrictionContactProblem) else back.M
        with pytest.raises(ValueError):
            (A.data if sp.issparse(A) else A)[0] = 1e300
        np.testing.assert_array_equal(back.q, p.q)


def test_the_float_measure_bounds_the_exact_one_on_many_contacts():
    """The certified float value is never below the exact measure (60 digits, u exact), also where the
    norms sum hundreds of squares and their roundings add up; and it is above it by rounding only."""
    import scipy.sparse as sp

    from contactcp.problems._exact_coulomb import exact_measure

    rng = np.random.default_rng(17)
    for n_c in (150, 400):
        B = sp.random(3 * n_c, 3 * n_c, density=4.0 / n_c, random_state=rng, format="csr")
        W = (B @ B.T + sp.identity(3 * n_c)).tocsr()
        q = rng.standard_normal(3 * n_c) * np.exp(rng.uniform(-3, 3, 3 * n_c))
        problem = ccp.FrictionContactProblem(W, q, rng.uniform(0.1, 1.0, n_c))
        for scale in (1e-9, 1e-3, 1.0):
            r = np.abs(rng.standard_normal(3 * n_c)) * scale
            value = problem.residual(r).value
            exact = exact_measure(problem.W, problem.q, problem.mu, 3, r)
            assert exact is not None and exact <= value <= exact * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda W, q, mu: (W.__setitem__((1, 2), np.nan), "W"), "W"),
        (lambda W, q, mu: (W.__setitem__((0, 0), np.inf), "W"), "W"),
        (lambda W, q, mu: (q.__setitem__(4, np.nan), "q"), "q"),
        (lambda W, q, mu: (mu.__setitem__(1, -0.5), "mu"), "mu[1]"),
        (lambda W, q, mu: (mu.__setitem__(0, np.nan), "mu"), "mu"),
    ],
)
def test_friction_problem_from_float_arrays_is_the_general_one(change, field):
    """float64 arrays take a compiled check (what benchmarks and the time stepper pass): the same
    problem as from lists, its own read-only copies, and the same errors naming the field."""
    rng = np.random.default_rng(3)
    A = rng.normal(size=(6, 6))
    W, q, mu = A @ A.T, rng.normal(size=6), np.array([0.3, 0.0])
    fast = ccp.FrictionContactProblem(W, q, mu)
    general = ccp.FrictionContactProblem(W.tolist(), q.tolist(), mu.tolist())
    for name in ("W", "q", "mu"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(general, name))
        assert not getattr(fast, name).flags.writeable
    assert fast._mu_max == general._mu_max == 0.3 and fast._q_exponent == general._q_exponent
    W[0, 0] += 1.0  # the problem keeps its own copy
    assert fast.W[0, 0] == general.W[0, 0]
    change(W, q, mu)
    with pytest.raises(InvalidProblemError) as err:
        ccp.FrictionContactProblem(W, q, mu)
    assert err.value.field == field


@pytest.mark.parametrize(
    "convert",
    [
        lambda M, q: (np.asfortranarray(M), q),  # another layout
        lambda M, q: (M.astype(">f8"), q.astype(">f8")),  # byte-swapped
        lambda M, q: (M, q.astype(np.float32)),  # another dtype
        lambda M, q: (np.repeat(M, 2, axis=1)[:, ::2], np.repeat(q, 2)[::2]),  # strided views
        lambda M, q: (M.tolist(), q.tolist()),
    ],
)
def test_lcp_from_unusual_arrays_is_the_lcp_from_float64(convert):
    """float64 C arrays take one compiled check of types, shapes and finiteness; every other array
    takes the general path: the same problem, read-only copies, never the caller's memory."""
    M = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, 0.0], [0.5, 0.0, 1.0]])
    q = np.array([-1.0, 0.25, -0.5])
    ref = ccp.LCP(M, q)
    Mc, qc = convert(M, q)
    p = ccp.LCP(Mc, qc)
    np.testing.assert_array_equal(p.M, ref.M)
    np.testing.assert_array_equal(p.q, np.asarray(qc, dtype=np.float64))  # a float32 q is read as it is
    assert p.M.dtype == p.q.dtype == np.float64 and p.M.dtype.isnative and p.q.dtype.isnative
    assert not p.M.flags.writeable and not p.q.flags.writeable
    assert not any(isinstance(a, np.ndarray) and np.shares_memory(b, a) for a, b in ((Mc, p.M), (qc, p.q)))


@pytest.mark.parametrize(
    ("M", "q", "field"),
    [
        (np.eye(3), np.array([1.0, np.nan, 0.0]), "q"),
        (np.array([[1.0, np.inf], [0.0, 1.0]]), np.zeros(2), "M"),
        (np.eye(3), np.zeros(2), "q"),
        (np.ones((2, 3)), np.zeros(2), "M"),
        (np.zeros((0, 0)), np.zeros(0), "M"),
    ],
)
def test_lcp_from_float64_arrays_names_what_is_wrong(M, q, field):
    # the compiled check of the common call only says "not the common case": the general path names the field
    with pytest.raises(InvalidProblemError) as err:
        ccp.LCP(M, q)
    assert err.value.field == field

"""bpp, enumerate, mixed/box reductions, batch solving and the solve() entry point."""

import numpy as np
import pytest

import contactcp as ccp
from contactcp import InvalidOptionError, Status
from contactcp.problems import generators
from support.oracles import brute_force_lcp, farkas_holds, lcp_violation


@pytest.mark.parametrize("family", ["spd", "pmatrix"])
@pytest.mark.parametrize("n", [5, 40, 200])
def test_bpp_matches_lemke_on_p_matrices(family, n):
    p = generators.FAMILIES[family][1](n, 11)
    a, b = ccp.solve(p, "bpp"), ccp.solve(p, "lemke")
    assert a.success and b.success
    assert not a.stats["fallback"]
    np.testing.assert_allclose(a.x, b.x, atol=1e-9)


def test_bpp_falls_back_to_lemke_on_singular_blocks():
    p, z_star = generators.psd_planted(30, seed=0)  # this seed meets a singular principal block
    r = ccp.solve(p, "bpp")
    assert r.success and r.stats["fallback"]
    np.testing.assert_allclose(p.M @ r.x, p.M @ z_star, atol=1e-9)
    nofb = ccp.solve(p, "bpp", fallback=False)
    assert not nofb.success


def test_enumerate_finds_every_solution():
    # M = [[1, 2], [2, 1]] (not P), q = (-1, -1): solutions (1, 0), (0, 1) and (1/3, 1/3)
    p = ccp.LCP([[1.0, 2.0], [2.0, 1.0]], [-1.0, -1.0])
    r = ccp.solve(p, "enumerate")
    sols = sorted(map(tuple, np.round(r.stats["solutions"], 12)))
    assert sols == sorted([(1.0, 0.0), (0.0, 1.0), (round(1 / 3, 12), round(1 / 3, 12))])


def test_enumerate_handles_singular_blocks_by_lp():
    # M = 0 with q >= 0: every z with z_i = 0 where q_i > 0 ... here q = (0, 1): z = (t, 0) for any t >= 0
    p = ccp.LCP(np.zeros((2, 2)), [0.0, 1.0])
    r = ccp.solve(p, "enumerate")
    assert r.success and r.stats["lps"] >= 1


def test_enumerate_proves_no_solution_where_lemke_cannot():
    # not copositive, infeasible? M = [[-1, 0], [0, -1]], q = (-1, -1): w = -z - 1 < 0 always
    p = ccp.LCP(-np.eye(2), [-1.0, -1.0])
    r = ccp.solve(p, "enumerate")
    assert r.status is Status.NO_SOLUTION and r.certificate.kind == "enumeration"
    assert brute_force_lcp(p.M, p.q) == []
    with pytest.raises(ccp.InvalidOptionError, match="max_n"):
        ccp.solve(generators.spd(20, 0), "enumerate")


def test_mixed_lcp_schur_and_split_paths():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((6, 6))
    M = A @ A.T + np.eye(6)
    q = rng.standard_normal(6)
    p = ccp.MixedLCP(M, q, free=[0, 3])
    r = ccp.solve(p)
    assert r.success and "Schur" in r.message
    assert abs(r.w[[0, 3]]).max() < 1e-10
    # singular free block forces the v = v+ - v- split
    M2 = M.copy()
    M2[np.ix_([0, 3], [0, 3])] = 0.0
    M2[0, :] = M2[:, 0] = 0.0
    M2[0, 1] = 1.0
    M2[1, 0] = -1.0
    p2 = ccp.MixedLCP(M2, q, free=[0, 3])
    r2 = ccp.solve(p2, "lemke")
    assert "split" in r2.message
    assert r2.status in (Status.SOLVED, Status.NO_SOLUTION, Status.RAY_TERMINATION)
    if r2.success:
        assert p2.residual(r2.x).value <= 1e-9
    # where Lemke's ray proves nothing, the default chain goes on (the merit method solves it)
    r3 = ccp.solve(p2)
    assert r3.success and p2.residual(r3.x).value <= 1e-9
    assert [a["method"] for a in r3.stats["chain"]][0] == "lemke"


def test_mixed_lcp_only_free_variables_is_a_linear_system():
    p = ccp.MixedLCP([[2.0, 1.0], [1.0, 3.0]], [1.0, 2.0], free=[0, 1])
    r = ccp.solve(p)
    assert r.success
    np.testing.assert_allclose(r.x, np.linalg.solve(p.M, -p.q))


def test_box_lcp_against_projection_characterisation():
    rng = np.random.default_rng(8)
    for trial in range(30):
        n = int(rng.integers(1, 8))
        A = rng.standard_normal((n, n))
        M = A @ A.T + 0.5 * np.eye(n)
        q = 3 * rng.standard_normal(n)
        lo = np.where(rng.random(n) < 0.3, -np.inf, -rng.uniform(0, 1, n))
        hi = np.where(rng.random(n) < 0.3, np.inf, rng.uniform(0, 1, n))
        p = ccp.BoxLCP(M, q, lo, hi)
        r = ccp.solve(p)
        assert r.success, (trial, r)
        z, w = r.x, M @ r.x + q
        # independent check of the box conditions
        assert np.all(z >= lo - 1e-9) and np.all(z <= hi + 1e-9)
        interior = (z > lo + 1e-7) & (z < hi - 1e-7)
        assert np.all(np.abs(w[interior]) < 1e-8)
        assert np.all(w[z <= lo + 1e-7] >= -1e-8) and np.all(w[z >= hi - 1e-7] <= 1e-8)


def test_box_lcp_standard_case_equals_lcp():
    p = generators.spd(15, 4)
    box = ccp.BoxLCP(p.M, p.q, np.zeros(15), np.full(15, np.inf))
    np.testing.assert_allclose(ccp.solve(box).x, ccp.solve(p).x, atol=1e-10)


def test_batch_matches_single_solves_and_certifies():
    rng = np.random.default_rng(0)
    K, n = 500, 6
    A = rng.standard_normal((K, n, n))
    M = A @ A.transpose(0, 2, 1) + 0.1 * np.eye(n)
    q = rng.standard_normal((K, n))
    q[:5] = -1.0
    M[:5] = 0.0  # five infeasible problems
    res = ccp.solve_batch(M, q)
    assert res.count() == {"SOLVED": K - 5, "NO_SOLUTION": 5}
    for k in range(5):
        assert farkas_holds(M[k], q[k], res.certificates[k].vector)
    for k in range(5, K, 37):
        single = ccp.solve(ccp.LCP(M[k], q[k]))
        np.testing.assert_allclose(res.x[k], single.x, atol=1e-10)
        assert lcp_violation(M[k], q[k], res.x[k]) < 1e-10
    assert np.all(res.residual[res.success] <= 1e-9)


def test_batch_shared_matrix_and_bad_input():
    M = generators.spd(4, 0).M
    q = np.random.default_rng(1).standard_normal((100, 4))
    res = ccp.solve_batch(M, q)
    assert res.success.all()
    with pytest.raises(ccp.InvalidProblemError, match="M: must have shape"):
        ccp.solve_batch(np.eye(3), q)
    with pytest.raises(ccp.InvalidProblemError, match="q: contains NaN"):
        ccp.solve_batch(M, np.full((2, 4), np.nan))
    with pytest.raises(ccp.UnknownMethodError):
        ccp.solve_batch(M, q, method="bpp")


def test_solve_rejects_unknown_method_option_and_problem():
    p = ccp.LCP(np.eye(2), [1.0, 1.0])
    with pytest.raises(
        ccp.UnknownMethodError, match="available: 'bpp', 'enumerate', 'interior-point', 'lemke', 'merit', 'milp', 'pgs'"
    ):
        ccp.solve(p, "simplex")
    with pytest.raises(ccp.UnknownMethodError, match="does not apply"):
        ccp.solve(ccp.BoxLCP(np.eye(1), [0], [0], [1]), "bpp")
    with pytest.raises(ccp.InvalidOptionError, match="'pivot_rule': not accepted by method 'lemke'"):
        ccp.solve(p, pivot_rule="bland")
    with pytest.raises(ccp.InvalidOptionError, match="tol"):
        ccp.solve(p, tol=-1.0)
    with pytest.raises(ccp.InvalidProblemError, match="problem: must be a contactcp problem"):
        ccp.solve({"M": 1})
    assert ccp.methods(p) == ["bpp", "enumerate", "interior-point", "lemke", "merit", "milp", "pgs"]
    assert "lemke" in ccp.methods()


def test_result_contract():
    r = ccp.solve(generators.spd(8, 1))
    d = r.to_dict()
    assert d["status"] == "SOLVED" and d["success"] is True
    assert r.nit == r.iterations and r.time > 0
    assert "SOLVED" in r.summary() and "residual" in r.summary()
    assert Status.SOLVED in ccp.SOLVED_STATUSES and Status.NO_SOLUTION in ccp.INFEASIBLE_STATUSES
    assert Status.RAY_TERMINATION in ccp.INCONCLUSIVE_STATUSES


def test_registry_downgrades_a_lying_solver():
    from contactcp.solvers.registry import Raw, certify

    p = ccp.LCP(np.eye(2), [-1.0, -1.0])
    r = certify(p, Raw(np.array([0.5, 1.0]), Status.SOLVED), 1e-9, "liar", 0.0)
    assert r.status is Status.INACCURATE and not r.success
    r = certify(p, Raw(np.array([1.0, np.nan]), Status.SOLVED), 1e-9, "liar", 0.0)
    assert r.status is Status.NUMERICAL_FAILURE
    r = certify(p, Raw(None, Status.SOLVED), 1e-9, "liar", 0.0)
    assert r.status is Status.NUMERICAL_FAILURE
    bogus = p.make_certificate([1.0, 0.0])  # q^T y = -1 < 0 but M^T y = (1, 0) > 0: not a proof
    assert not bogus.verified
    r = certify(p, Raw(None, Status.NO_SOLUTION, certificate=bogus), 1e-9, "liar", 0.0)
    assert r.status is Status.INACCURATE


@pytest.mark.parametrize(
    "method, options, field",
    [
        ("bpp", {"max_iter": "abc"}, "max_iter"),
        ("lemke", {"piv_tol": "x"}, "piv_tol"),
        ("lemke", {"lexicographic": 1}, "lexicographic"),
        ("enumerate", {"max_n": "x"}, "max_n"),
        ("enumerate", {"max_n": 3.5}, "max_n"),
        ("pgs", {"omega": float("nan")}, "omega"),
    ],
)
def test_options_of_the_wrong_type_raise_invalid_option(method, options, field):
    with pytest.raises(InvalidOptionError) as err:
        ccp.solve(ccp.LCP(np.eye(2), [-1.0, 1.0]), method, **options)
    assert err.value.option == field


@pytest.mark.parametrize(
    "method, options, field",
    [
        ("exact", {"max_nodes": "x"}, "max_nodes"),
        ("exact", {"time_limit": "x"}, "time_limit"),
        ("bilinear", {"seed": "x"}, "seed"),
        ("enumerate", {"max_candidates": "x"}, "max_candidates"),
    ],
)
def test_ucp_options_of_the_wrong_type_raise_invalid_option(method, options, field):
    with pytest.raises(InvalidOptionError) as err:
        ccp.solve(ccp.UCP(np.eye(2), [1.0, 1.0], np.eye(2), [1.0, 1.0]), method, **options)
    assert err.value.option == field


@pytest.mark.parametrize(
    "options, field",
    [
        ({"max_iter": "a"}, "max_iter"),
        ({"max_iter": 0}, "max_iter"),
        ({"d": [1, "a"]}, "d"),
        ({"piv_tol": -1.0}, "piv_tol"),
        ({"check_every": 0}, "check_every"),
    ],
)
def test_batch_options_are_checked(options, field):
    with pytest.raises(InvalidOptionError) as err:
        ccp.solve_batch(np.tile(np.eye(2), (3, 1, 1)), -np.ones((3, 2)), **options)
    assert err.value.option == field

"""bpp, enumerate, mixed/box reductions, batch solving and the solve() entry point."""

import pickle

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
    # the statuses' names (a plain property on Status) are the enum's: lookups and pickles agree
    for s in Status:
        assert Status[s.name] is s and str(s) == s.name == s._name_ and s.name.lower() == s.value
        assert pickle.loads(pickle.dumps(s)) is s


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


# the fuzz's LCP:huge:254 (columns scaled by 2^+-498): the support of its planted solution has a block
# whose float solve cannot be bounded, and the solution's w = M z + q overflows in floats
_HUGE_M = [
    [
        2.3386691213306712e-51,
        4.920319414721989e-142,
        0.0,
        0.0,
        -7.621456421669903e140,
        -2.2013136429275836e-134,
        0.0,
        1.915619426082361e53,
        4.323455642275676e17,
    ],
    [
        -4.078315292499078e-56,
        1.2012498571098606e-145,
        1.0531229166855719e65,
        -2.0859248397665138e93,
        9.303535670983768e136,
        0.0,
        -2.210859150104178e-75,
        -2.3384026197294447e49,
        -35184372088832.0,
    ],
    [
        8.156630584998156e-56,
        0.0,
        3.1593687500567156e65,
        -1.0429624198832569e93,
        -1.8607071341967536e137,
        -1.3435752215134178e-138,
        -2.210859150104178e-75,
        4.6768052394588893e49,
        35184372088832.0,
    ],
    [
        -1.6704779438076223e-52,
        8.200532357869981e-143,
        -1.0783978666860256e68,
        1.281592221552546e97,
        3.8107282108349515e140,
        2.7516420536594796e-135,
        -1.8111358157653425e-71,
        -4.789048565205903e52,
        3.602879701896397e16,
    ],
    [
        -8.816207631167156e-39,
        -1.4426529090290212e-129,
        -7.588550360256754e81,
        1.5030672529752533e110,
        2.6815615859885194e154,
        9.681479787123296e-122,
        1.5930919111324523e-58,
        0.0,
        1.2676506002282294e30,
    ],
    [
        -3.3409558876152446e-52,
        0.0,
        -2.1567957333720512e68,
        4.27197407184182e96,
        3.8107282108349515e140,
        3.3019704643913755e-134,
        1.8111358157653425e-71,
        1.915619426082361e53,
        -2.161727821137838e17,
    ],
    [
        -1.6313261169996311e-55,
        -1.2012498571098606e-145,
        -1.0531229166855719e65,
        -4.1718496795330275e93,
        -1.8607071341967536e137,
        1.0748601772107342e-137,
        3.97954647018752e-74,
        9.353610478917779e49,
        -211106232532992.0,
    ],
    [
        8.352389719038111e-53,
        -1.2300798536804972e-142,
        0.0,
        -6.40796110776273e96,
        0.0,
        -5.503284107318959e-135,
        1.8111358157653425e-71,
        3.831238852164722e53,
        0.0,
    ],
    [
        1.566073072319646e-53,
        5.1253327236687384e-144,
        -1.347997333357532e67,
        6.674959487252844e95,
        1.1908525658859223e139,
        -1.7197762835371747e-136,
        -5.659799424266695e-73,
        5.986310706507379e51,
        1.5762598695796736e16,
    ],
]
_HUGE_Q = [
    0.00019073486328125,
    0.0,
    -2.7939677238464355e-09,
    5.14984130859375e-05,
    1275068416.0,
    -3.4332275390625e-05,
    -3.91155481338501e-08,
    3.814697265625e-06,
    3.337860107421875e-06,
]
_HUGE_Z = [0.0, 0.0, 1.7686873200833423e-74, 0.0, 0.0, 6.931674235302037e128, 8.424983333484575e65, 0.0, 0.0]


def test_enumerate_solves_ill_conditioned_blocks_exactly():
    problem = ccp.LCP(np.array(_HUGE_M), np.array(_HUGE_Q))
    res = ccp.solve(problem, method="enumerate")
    assert res.status is Status.SOLVED
    assert res.residual.value == 0.0
    # the exact solution on that support, rounded to the nearest floats (the planted one is exact)
    np.testing.assert_allclose(res.x, _HUGE_Z, rtol=1e-15, atol=0)


def test_enumerate_refuses_to_prove_infeasible_what_floats_cannot_hold():
    # the only solution is about 2^53 * 1e300 (beyond the float range): no point and no proof
    M = np.array([[1.0, -1.0], [-1.0, 1.0 + 2.0**-52]])
    res = ccp.solve(ccp.LCP(M, np.array([-1e300, -1e300])), method="enumerate")
    assert res.status is Status.NUMERICAL_FAILURE
    assert res.stats["unrepresentable"] == 1

"""Lemke's method: known answers, brute force, planted solutions, certificates, degeneracy."""

from fractions import Fraction

import numpy as np
import pytest

import contactcp as ccp
from contactcp import Status
from contactcp.problems import generators
from contactcp.solvers.lcp import lemke_kernel as K
from support.oracles import brute_force_lcp, farkas_holds, lcp_violation
from support.paths import DATA
from support.results import assert_same_result

# Degenerate LCPs found by search on which the first-row tie rule cycles (it
# hits the pivot limit) while the lexicographic rule terminates.
CYCLING = [
    (
        [
            [0, -2, 0, 0, -2, 0],
            [1, 1, -1, 2, 2, 0],
            [0, 2, 0, -1, 0, 1],
            [0, 1, -1, 0, -1, -2],
            [0, -1, 2, -1, 2, 2],
            [-2, 1, 1, 2, 2, -1],
        ],
        [-1, 0, -1, -1, -1, 0],
        Status.NO_SOLUTION,
    ),
    (
        [
            [1, -1, -1, 2, -2, -1],
            [-1, 1, 2, 0, 2, 0],
            [2, 1, 1, -2, 2, -2],
            [-1, -1, 2, 1, -2, 1],
            [-1, 1, 0, 1, 2, -2],
            [1, -2, 2, 2, 2, -1],
        ],
        [-1, -1, -1, -1, -1, -1],
        Status.SOLVED,
    ),
    (
        [[1, 2, 0, 1, -1], [-2, 1, -1, 1, -1], [2, 2, -2, -1, -2], [-1, -1, -2, -1, 2], [-1, -2, -2, 1, -1]],
        [0, -1, -1, 0, 1],
        Status.NO_SOLUTION,
    ),
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
        B = (y0 @ y0) * V - np.outer(y0, y0 @ V)  # integer, B^T y0 = 0 exactly
        M = (B @ B.T).astype(float)
        q = rng.integers(-5, 6, n)
        q = (q - (q @ y0 // (y0 @ y0) + 1) * y0).astype(float)  # q^T y0 < 0
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
    naive = ccp.solve(p, lexicographic=False, max_iter=500, restarts=0)
    assert naive.status is Status.ITERATION_LIMIT and naive.iterations == 500
    # a pivot limit is retried with random covering vectors, like a ray without proof
    retried = ccp.solve(p, lexicographic=False, max_iter=500)
    assert retried.status is expected and retried.stats["restarts"] >= 1
    assert "pivot limit" in retried.message and retried.iterations > 500
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


def test_restart_with_random_covering_vector_rescues_a_ray_without_proof():
    # M = [[-2, 2], [-2, 0]] is not copositive; z = (0, 1/2) solves it, but the all-ones covering
    # vector ends on a ray that proves nothing
    p = ccp.LCP([[-2.0, 2.0], [-2.0, 0.0]], [-1.0, 0.0])
    first = ccp.solve(p, restarts=0)
    assert first.status is Status.RAY_TERMINATION
    r = ccp.solve(p, "lemke")
    assert r.success and r.stats["restarts"] >= 1 and "ray without proof" in r.message
    np.testing.assert_array_equal(r.x, [0.0, 0.5])


def test_degenerate_contact_lcp_needs_no_restart():
    # the contact LCP that ended on a ray with the all-ones covering vector before the ties were
    # judged on each row's own scale (the ray came from a non-minimal row leaving)
    p = generators.contact(25, seed=0)
    r = ccp.solve(p, restarts=0)
    assert r.success and "restarts" not in r.stats
    assert lcp_violation(p.M, p.q, r.x) < 1e-9


def test_restarts_must_be_a_nonnegative_integer():
    p = generators.spd(4, seed=0)
    for bad in (-1, 1.5, "2"):
        with pytest.raises(ccp.InvalidOptionError, match="restarts"):
            ccp.solve(p, restarts=bad)


def test_iteration_limit_is_reported():
    p = generators.spd(50, seed=1)
    r = ccp.solve(p, max_iter=3)
    assert r.status is Status.ITERATION_LIMIT and not r.success
    assert r.stats["restarts"] == 3 and r.iterations == 12  # 3 restarts, 3 pivots each
    r = ccp.solve(p, max_iter=3, restarts=0)
    assert r.status is Status.ITERATION_LIMIT and r.iterations == 3


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


# ---- the lexicographic rule against an exact rational Lemke ------------------------------------------


def exact_lemke_path(M, q, max_pivots=1000):
    """Lemke's method in rational arithmetic on the floats given (covering vector 1, lexicographic
    minimum ratio on the rows of [x | B^-1] / col, the artificial variable preferred on an exact
    tie): the test's own oracle. Returns ("SOLVED" | "RAY", [basis after each pivot, in row order])."""
    n = len(q)
    A = [
        [Fraction(int(i == j)) for j in range(n)] + [-Fraction(float(M[i][j])) for j in range(n)] + [Fraction(-1)]
        for i in range(n)
    ]
    x = [Fraction(float(v)) for v in q]
    Binv = [[Fraction(int(i == k)) for k in range(n)] for i in range(n)]
    bas = list(range(n))
    path = []
    entering = 2 * n
    if min(x) >= 0:
        return "SOLVED", path
    for _ in range(max_pivots):
        col = [A[i][entering] for i in range(n)]
        if entering == 2 * n:  # z0 enters where -q_i / 1 is largest, ties lexicographically
            rows = [i for i in range(n) if col[i] < 0]
            r = max(rows, key=lambda i: [x[i] / col[i]] + [Binv[i][k] / col[i] for k in range(n)])
        else:
            rows = [i for i in range(n) if col[i] > 0]
            if not rows:
                return "RAY", path
            best = min(x[i] / col[i] for i in rows)
            z0row = bas.index(2 * n)
            if z0row in rows and x[z0row] / col[z0row] == best:
                r = z0row
            else:
                r = min(rows, key=lambda i: [x[i] / col[i]] + [Binv[i][k] / col[i] for k in range(n)])
        p = col[r]
        A[r] = [v / p for v in A[r]]
        Binv[r] = [v / p for v in Binv[r]]
        x[r] = x[r] / p
        for i in range(n):
            if i != r and col[i] != 0:
                c = col[i]
                A[i] = [a - c * b for a, b in zip(A[i], A[r])]
                Binv[i] = [a - c * b for a, b in zip(Binv[i], Binv[r])]
                x[i] = x[i] - c * x[r]
        leaving, bas[r] = bas[r], entering
        path.append(tuple(bas))
        if leaving == 2 * n:
            return "SOLVED", path
        entering = leaving + n if leaving < n else leaving - n
    raise AssertionError("the exact lexicographic rule cannot cycle")


def kernel_path(M, q):
    """The kernel's basis after each pivot (a run stopped after k pivots returns its basis)."""
    M, q = np.asarray(M, dtype=float), np.asarray(q, dtype=float)
    n = len(q)
    AT = K.cold_start_columns(M, q, np.ones(n))
    path = []
    for k in range(1, 100 * n + 1000):
        st, _x, bas, piv, *_ = K.lemke_core(AT, q.copy(), np.arange(n), k, 1e-11, True, 16)
        if piv == 0:
            return {K.SOLVED: "SOLVED"}.get(st, st), path
        if piv == k:
            path.append(tuple(int(v) for v in bas))
        if st != K.ITER_LIMIT:
            return {K.SOLVED: "SOLVED", K.RAY: "RAY"}.get(st, st), path
    raise AssertionError("no termination")


def _tobenna():
    with np.load(DATA / "lcp" / "lcp_tobenna.npz") as f:
        return np.array(f["M"]), np.array(f["q"])


def test_tobenna_follows_the_exact_lexicographic_path():
    # Siconos' degenerate 40x40 LCP (integer data): the old comparison took round-off in B^-1
    # (1e-14 where the exact entries are 0) for an order at pivot 54, a non-minimal row left, and
    # from pivot 200 on the basis sequence repeated with period 6 until the pivot limit
    M, q = _tobenna()
    status, path = kernel_path(M, q)
    exact_status, exact_path = exact_lemke_path(M, q)
    assert exact_status == "SOLVED" and len(exact_path) == 127  # Siconos' Lemke: 126 pivots
    assert len(set(exact_path)) == len(exact_path)
    assert status == "SOLVED" and path == exact_path  # the same bases, so none repeats
    r = ccp.solve(ccp.LCP(M, q), "lemke", restarts=0)
    assert r.success and r.iterations == 127
    assert lcp_violation(M, q, r.x) < 1e-14 * np.abs(M).max() * r.x.max()  # 6.4e-12 for 250 * 494


# degenerate integer LCPs on which the comparison with the largest entry of the column (not the
# row's own scale) left the exact lexicographic path (found by search against exact_lemke_path)
OFF_PATH = [
    (
        [
            [0, 0, -2, 0, -2, 2, 2],
            [-1, -2, -1, -2, -1, 1, -1],
            [-1, 0, 2, 0, 2, 1, 1],
            [1, -1, -1, 1, 2, 1, -1],
            [2, 2, 1, 0, -1, 2, -1],
            [-1, 1, -1, -1, -1, 1, 1],
            [1, 2, 0, -2, 0, 0, 1],
        ],
        [-1, 0, 0, 0, -1, 0, -1],
    ),
    (
        [
            [-1, 1, -2, -1, 2, 2, -1, -2, 0, -1],
            [1, -2, 2, 1, -2, 1, -1, -2, 2, -1],
            [1, 2, 2, 1, -2, 0, -2, -2, 2, -1],
            [2, 2, -1, 1, -2, 1, -1, -2, 1, 2],
            [-2, 0, -1, -1, 0, 2, -2, 0, 1, -1],
            [2, -2, 1, 1, 2, 2, -1, -2, 2, 0],
            [2, 0, -1, 2, 0, 0, 0, 1, 1, 1],
            [-1, 0, 2, 0, 2, 0, -1, -1, 2, 0],
            [2, 2, 0, 1, 0, -1, 2, 1, 0, -2],
            [2, 2, 2, -2, -2, -1, 2, 1, -1, 1],
        ],
        [-1, 0, 0, 0, -1, -1, -1, -1, 0, 0],
    ),
    (
        [
            [2, 1, 2, 0, 1, 1, -1, 0, 2],
            [-1, 0, -2, -2, 0, 1, 2, -1, 1],
            [-1, -2, 2, 1, 0, -2, 2, 1, 1],
            [2, 1, 2, 0, 0, 1, -2, -1, -1],
            [-2, -1, -1, 0, -1, -1, 2, 2, 0],
            [1, -2, 2, 1, 0, 2, -1, -2, 1],
            [-1, 0, -2, 1, -1, -2, -2, 0, 0],
            [2, -1, -2, -2, -2, 1, -1, 0, 0],
            [1, 1, 2, 0, 2, -1, -1, 2, 2],
        ],
        [-1] * 9,
    ),
    (
        [
            [-1, 0, 0, -2, 1, -2, 0, -2],
            [2, -1, -1, -2, 0, 2, -2, 2],
            [-2, 2, 1, -1, -2, -1, -2, -1],
            [2, -2, 1, 0, 0, 0, -1, 2],
            [2, -1, -2, 0, 1, 2, 1, -1],
            [-1, -1, -2, -1, 0, -2, 2, 0],
            [-2, -1, 0, 0, 1, -2, 0, 0],
            [2, 0, -2, 1, 1, -1, -1, 0],
        ],
        [-1, -1, -1, 0, -1, 0, -1, 0],
    ),
]


@pytest.mark.parametrize("M, q", OFF_PATH)
def test_kernel_follows_the_exact_path_where_the_old_comparison_left_it(M, q):
    exact_status, exact_path = exact_lemke_path(M, q)
    assert kernel_path(M, q) == (exact_status, exact_path)


def test_kernel_follows_the_exact_path_on_degenerate_integer_lcps():
    rng = np.random.default_rng(2024)
    rays = solved = 0
    for _ in range(150):
        n = int(rng.integers(3, 11))
        M = rng.integers(-2, 3, (n, n))
        if rng.random() < 0.5:
            M[rng.random((n, n)) < 0.5] = 0
        q = -rng.integers(0, 2, n) * rng.integers(1, 3, n)  # many zeros: degenerate
        exact_status, exact_path = exact_lemke_path(M, q)
        assert kernel_path(M, q) == (exact_status, exact_path), (M.tolist(), q.tolist())
        rays += exact_status == "RAY"
        solved += exact_status == "SOLVED"
    assert rays > 10 and solved > 10


# ---- badly scaled data: Lemke runs on the equilibrated LCP --------------------------------------------


def test_badly_scaled_lcps_are_solved_on_the_equilibrated_problem():
    # (D1 M D2, D1 q) with powers of two 2^-30 .. 2^30 is the planted LCP exactly, z = D2^-1 z*.
    # Run as given (no equilibration), 4 of these 60 ended INACCURATE or on a ray.
    rng = np.random.default_rng(8)
    for trial in range(60):
        n = int(rng.integers(2, 16))
        if trial % 2:
            M = generators.p_matrix(n, seed=trial).M
        else:
            B = rng.standard_normal((n, max(1, n // 2)))
            M = B @ B.T
        active = rng.random(n) < 0.5
        z = np.where(active, rng.uniform(0.5, 2, n), 0.0)
        q = np.where(active, 0.0, rng.uniform(0.5, 2, n)) - M @ z
        D1, D2 = 2.0 ** rng.integers(-30, 31, n), 2.0 ** rng.integers(-30, 31, n)
        r = ccp.solve(ccp.LCP(D1[:, None] * M * D2[None, :], D1 * q), "lemke")
        assert r.success, (trial, r.message)
        assert "equilibrated" in r.stats["start"]
        if trial % 2:  # P-matrix: the solution is unique
            np.testing.assert_allclose(D2 * r.x, z, rtol=1e-6, atol=1e-9)


def test_farkas_vector_of_the_equilibrated_problem_is_mapped_back():
    # M = [[9, -3], [-3, 1]] is PSD with y0 = (1, 3) in its kernel and q^T y0 = -3 < 0: infeasible.
    # Rows scaled by 2^-29, 2^-1 and columns by 2^-21, 2^-6: Lemke's ray on the equilibrated LCP
    # gives y' and the proof for the data given is R y' (it fails unmapped)
    D1, D2 = np.array([2.0**-29, 0.5]), np.array([2.0**-21, 2.0**-6])
    M = D1[:, None] * np.array([[9.0, -3.0], [-3.0, 1.0]]) * D2[None, :]
    q = D1 * np.array([0.0, -1.0])
    p = ccp.LCP(M, q)
    r = ccp.solve(p, restarts=0)
    assert r.status is Status.NO_SOLUTION and "equilibrated" in r.stats["start"]
    cert = r.certificate
    assert "secondary ray" in cert.description and cert.verified
    assert farkas_holds(M, q, cert.vector)
    R, _C = K.equilibrate(M, 3)
    assert not p.check_certificate(cert.vector / R)[0]


def test_equilibration_leaves_well_scaled_data_alone():
    for p in (generators.p_matrix(30, seed=1), generators.contact(10, seed=2), generators.spd(20, seed=3)):
        assert not K.badly_scaled(p.M)
        assert ccp.solve(p, "lemke").stats["start"] == "cold start"
    assert K.badly_scaled(np.diag([1.0, 2.0**11])) and not K.badly_scaled(np.diag([1.0, 2.0**10]))
    assert not K.badly_scaled(np.diag([1.0, 0.0]))  # zero rows and columns do not count
    R, C = K.equilibrate(np.diag([2.0**40, 1.0, 2.0**-40]), 3)
    np.testing.assert_array_equal(R * C * np.array([2.0**40, 1.0, 2.0**-40]), [1.0, 1.0, 1.0])


def test_box_whose_width_overflows_is_an_honest_failure_not_an_exception():
    # upper - lower = 2e308 is beyond the float range: the reduction to an LCP cannot be formed
    p = ccp.BoxLCP([[1.0]], [0.5], [-1e308], [1e308])
    res = ccp.solve(p, "lemke")
    assert res.status is ccp.Status.NUMERICAL_FAILURE and "cannot be formed" in res.message


def _first_step_problems():
    rng = np.random.default_rng(11)
    A = rng.normal(size=(10, 10))
    out = [ccp.LCP(A @ A.T + 0.1 * np.eye(10), rng.normal(size=10))]  # solved by the cold start
    out.append(ccp.LCP([[0.0, -1.0], [1.0, 0.0]], [-1.0, -1.0]))  # a ray: the cold start does not solve
    # solved, and a row of terms near overflow that floating point cannot bound: measured exactly
    out.append(ccp.LCP([[1e300, 1.0], [1.0, 2.0]], [-1e300, -1.0]))
    B = rng.normal(size=(7, 7))  # an odd size: the pivot's last pair of rows is one row
    out.append(ccp.LCP(B @ B.T + 0.1 * np.eye(7), rng.normal(size=7)))
    return out


_FIRST_STEP_CASES = [
    (0, 1e-10, Status.SOLVED),
    (0, 1e-17, Status.INACCURATE),  # tol below the answer's residual (3e-16): the general certification
    (1, 1e-10, Status.NO_SOLUTION),  # the ray, proved by the Farkas check after the cold start
    (2, 1e-10, Status.SOLVED),  # on the equilibrated problem, a row measured exactly
    (3, 1e-10, Status.SOLVED),
]


@pytest.mark.parametrize(("index", "tol", "status"), _FIRST_STEP_CASES)
def test_chain_first_is_the_registry_run_of_lemke(index, tol, status, monkeypatch):
    # the default chain's fast first step gives what the registry's run of "lemke" gives, bit for bit,
    # and so does the method named, which runs the same fast step
    from contactcp.solvers import registry
    from contactcp.solvers.lcp.lemke import chain_first

    p = _first_step_problems()[index]
    ref = registry._run(p, registry._step_spec(p, "lemke"), tol, {})
    fast = chain_first(p, tol)
    assert fast.status is status
    assert_same_result(fast, ref)
    arrays = ("z_basic", "ray")
    assert {k: v for k, v in fast.stats.items() if k not in arrays} == {
        k: v for k, v in ref.stats.items() if k not in arrays
    }
    for key in arrays:
        assert (key in fast.stats) == (key in ref.stats)
        assert key not in ref.stats or np.array_equal(fast.stats[key], ref.stats[key])
    assert (fast.certificate is None) == (ref.certificate is None)
    assert fast.certificate is None or fast.certificate.verified == ref.certificate.verified
    if fast.status is Status.SOLVED:  # the chain stops there (else it goes on to other methods)
        assert ccp.solve(p, tol=tol).x.tolist() == fast.x.tolist()
    calls = []
    monkeypatch.setitem(registry._FIRST, ccp.LCP, ("lemke", lambda *args: calls.append(1) or chain_first(*args)))
    assert_same_result(ccp.solve(p, "lemke", tol=tol), ref)
    assert_same_result(ccp.solve(p, "Lemke", tol=tol), ref)
    assert calls == [1, 1]  # the method named, in any case, ran the fast step


def test_chain_first_hands_a_raising_kernel_to_the_registry(monkeypatch):
    import contactcp.solvers.lcp.lemke as lemke_module
    from contactcp.solvers.lcp.lemke import chain_first

    def broken(*args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(lemke_module.K, "lemke_cold_solve", broken)
    monkeypatch.setattr(lemke_module.K, "lemke_first", broken)
    p = _first_step_problems()[0]
    assert chain_first(p, 1e-10) is None
    res = ccp.solve(p, tol=1e-10)  # the registry's Lemke reports the failure; the chain goes on
    assert res.success and res.stats["chain"][0]["method"] == "lemke"
    assert res.stats["chain"][0]["status"] == "NUMERICAL_FAILURE"

"""The compiled paths of the friction-cone methods against their readable references: the sparse
Newton system against the dense Newton matrix, NSGS's compiled rate test against ``hopeless``,
the compiled NSGS run against sweeps driven from Python, and the problem's compiled ``u`` and
rounding bound against numpy."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import contactcp as ccp
from contactcp import Status
from contactcp.io.fclib import read_fclib
from contactcp.problems._coulomb import scaled_velocity
from contactcp.solvers.cone.anderson import _diff_dot
from contactcp.solvers.cone.anderson import anderson_candidate as _anderson_candidate
from contactcp.solvers.cone.kernels import ac_phi_D, desaxce_residual, sparse_newton_system, sweeps
from contactcp.solvers.cone.newton import default_rho
from contactcp.solvers.cone.nsgs import hopeless
from contactcp.solvers.cone.nsgs_kernels import BSR_FIRST, _hopeless, _norm_diff, nsgs_run
from support.paths import DATA

LOCAL = DATA / "fclib" / "local"
NO_INT = np.zeros(0, dtype=np.int32)
NO_FLOAT = np.zeros(0)
NO_DENSE = np.zeros((0, 0))


def _newton_matrix(W, D, rho):
    """``I - D + D rho W`` (dense, every row), the textbook formula."""
    n_c, d, _ = D.shape
    blockD = np.zeros((n_c * d, n_c * d))
    for i in range(n_c):
        blockD[i * d : (i + 1) * d, i * d : (i + 1) * d] = D[i]
    return np.eye(n_c * d) - blockD + rho.repeat(d)[:, None] * (blockD @ W)


@pytest.mark.parametrize("name", ["OneObject-i1028-138", "Capsules-i125-1213"])
def test_sparse_newton_system_solves_the_full_newton_system(name):
    p = read_fclib(LOCAL / f"{name}.hdf5").local.to_problem()
    rng = np.random.default_rng(3)
    r = np.abs(rng.standard_normal(p.size))
    u = p.W @ r + p.q
    rho = default_rho(p)
    phi, D = ac_phi_D(r, u, p.mu, rho, 3, True)
    separated = np.abs(D).reshape(p.n_c, -1).max(axis=1) == 0
    assert separated.any() and not separated.all()  # both kinds of contact are exercised
    rows, indptr, indices, data, rhs, dr = sparse_newton_system(p.W.indptr, p.W.indices, p.W.data, D, rho, phi, 3)
    assert rows.size == 3 * int((~separated).sum())
    J = sp.csr_matrix((data, indices, indptr), shape=(rows.size, rows.size)).toarray()
    full = _newton_matrix(p.W.toarray(), D, rho)
    np.testing.assert_allclose(J, full[np.ix_(rows, rows)], rtol=0, atol=1e-13 * np.abs(full).max())
    dr[rows] = np.linalg.solve(J, rhs)
    # the assembled step solves the whole Newton system, eliminated rows included
    np.testing.assert_allclose(full @ dr, -phi, rtol=0, atol=1e-9 * np.abs(phi).max())


histories = st.lists(
    st.tuples(st.integers(1, 40), st.floats(1e-12, 1e3, allow_nan=False)), min_size=1, max_size=60
).map(lambda steps: ([int(k) for k in np.cumsum([s for s, _ in steps])], [v for _, v in steps]))


@settings(max_examples=300, deadline=None)
@given(histories, st.floats(1e-12, 1e-4), st.integers(0, 5000))
def test_compiled_rate_test_is_hopeless(history, tol, left):
    ks, vs = history
    expected = hopeless(list(zip(ks, vs)), tol, left)
    got = _hopeless(np.array(ks, dtype=np.int64), np.array(vs), len(ks), tol, left)
    assert got == expected


def test_hopeless_reads_the_rate_over_64_sweeps():
    # 1e-2 -> 1e-3 over 64 sweeps: 1e-8 needs 320 more; hopeless with 79 left (4 x 79 = 316), not with 80
    history = [(10, 1e-2), (74, 1e-3)]
    assert hopeless(history, 1e-8, 79) and not hopeless(history, 1e-8, 81)
    assert not hopeless([(10, 1e-2), (73, 1e-9)], 1e-8, 0)  # not yet 64 sweeps apart
    assert hopeless([(10, 1e-3), (80, 1e-3)], 1e-8, 10**6)  # no decrease


@pytest.mark.parametrize(
    ("sparse", "name"),
    [(True, "OneObject-i1028-138"), (False, "OneObject-i1028-138"), (True, "Capsules-i125-1213")],
)
def test_compiled_nsgs_run_is_the_chunked_sweeps(sparse, name):
    # OneObject (23 contacts) goes to block storage after the first sweep, Capsules (286) before it
    p = read_fclib(LOCAL / f"{name}.hdf5").local.to_problem()
    assert (p.n_c >= BSR_FIRST) == (name == "Capsules-i125-1213")
    W = p.W if sparse else p.W.toarray()
    r = np.zeros(p.size)
    args = (W.indptr, W.indices, W.data, NO_DENSE, True) if sparse else (NO_INT, NO_INT, NO_FLOAT, W, False)
    code, done, u = nsgs_run(*args, p.q, p.mu, r, 3, 31, 10, 1e-30, False, 0)
    assert (code, done) == (1, 31)  # chunks 1 + 2 + 4 + 8 + 16 = 31 sweeps, no convergence to 1e-30
    # the same 31 sweeps with steps 1 / lambda_max(W_ii), driven from Python
    blocks = W.toarray() if sparse else W
    B = np.array([blocks[3 * i : 3 * i + 3, 3 * i : 3 * i + 3] for i in range(p.n_c)])
    lam = np.abs(np.linalg.eigvalsh(0.5 * (B + B.transpose(0, 2, 1)))).max(axis=1)
    ref = np.zeros(p.size)
    sweeps(W, p.q, p.mu, ref, 3, 31, 10, 1.0 / lam, 1e-14)
    np.testing.assert_allclose(r, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(u, p.W @ r + p.q, rtol=0, atol=1e-12 * np.abs(u).max())
    value = desaxce_residual(r, u, p.mu, 3) / np.linalg.norm(p.q)
    code, more, _ = nsgs_run(*args, p.q, p.mu, r, 3, 1000, 10, value * 1e-3, True, 0)
    assert code in (0, 2) and more < 1000  # converged, or handed over by the rate test


def test_anderson_candidate_is_the_least_squares_extrapolation():
    # three pairs in a ring buffer of four, newest at slot 0: G_k - dG gamma with gamma minimising
    # ||f_k - dF gamma||, then projected on the cones (here every cone holds the point: mu = 10)
    rng = np.random.default_rng(5)
    n, d = 6, 3
    GH = rng.standard_normal((4, n))
    FH = rng.standard_normal((4, n))
    GH[:, 0::3] = np.abs(GH[:, 0::3]) + 5.0  # normals large: the extrapolated point stays inside the cones
    order = [0, 3, 2]  # newest first
    dF = np.stack([FH[order[a]] - FH[order[a + 1]] for a in range(2)], axis=1)
    dG = np.stack([GH[order[a]] - GH[order[a + 1]] for a in range(2)], axis=1)
    gamma = np.linalg.lstsq(dF, FH[0], rcond=None)[0]
    expected = GH[0] - dG @ gamma
    out = np.empty(n)
    assert _anderson_candidate(GH, FH, 3, 0, np.full(2, 10.0), d, out)
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-9)
    # a point outside a cone is projected
    assert _anderson_candidate(GH, FH, 3, 0, np.zeros(2), d, out)
    np.testing.assert_allclose(out[1:3], 0.0, atol=0.0)
    # no new direction (equal pairs): no candidate
    same = np.tile(FH[0], (4, 1))
    assert not _anderson_candidate(GH, same, 3, 0, np.full(2, 10.0), d, out)


@pytest.mark.parametrize("pairs", [2, 4, 5])
def test_anderson_candidate_with_one_or_several_differences(pairs):
    # the two-difference case has its own one-pass normal equations; one and three or four differences
    # take the pairwise passes: every case is the least-squares extrapolation (n = 9: not a multiple of
    # the four partial sums)
    rng = np.random.default_rng(pairs)
    n, d, m1 = 9, 3, 5
    GH = rng.standard_normal((m1, n))
    FH = rng.standard_normal((m1, n))
    GH[:, 0::3] = np.abs(GH[:, 0::3]) + 8.0
    head = 1
    order = [(head - a) % m1 for a in range(pairs)]
    dF = np.stack([FH[order[a]] - FH[order[a + 1]] for a in range(pairs - 1)], axis=1)
    dG = np.stack([GH[order[a]] - GH[order[a + 1]] for a in range(pairs - 1)], axis=1)
    gamma = np.linalg.lstsq(dF, FH[head], rcond=None)[0]
    out = np.empty(n)
    assert _anderson_candidate(GH, FH, pairs, head, np.full(3, 10.0), d, out)
    np.testing.assert_allclose(out, GH[head] - dG @ gamma, rtol=1e-9, atol=1e-9)
    bad = GH.copy()
    bad[head, 4] = np.inf  # a point that is not finite is no candidate
    assert not _anderson_candidate(bad, FH, pairs, head, np.full(3, 10.0), d, out)


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 8, 11])
def test_diff_dot_and_norm_diff(n):
    rng = np.random.default_rng(n)
    x1, x0, y1, y0 = rng.standard_normal((4, n))
    assert _diff_dot(x1, x0, y1, y0) == pytest.approx((x1 - x0) @ (y1 - y0), rel=1e-13, abs=1e-13)
    assert _norm_diff(x1, x0) == pytest.approx(np.linalg.norm(x1 - x0), rel=1e-13, abs=0.0)


@pytest.mark.parametrize("name", ["OneObject-i1028-138", "KaplasTower-i1061-4", "LMGC_100_PR_PerioBox-i00361-60-03000"])
def test_anderson_nsgs_certifies_in_a_fraction_of_the_plain_sweeps(name):
    # NSGS converges linearly on these (many contacts on few bodies): Anderson's extrapolation on two pairs
    # takes 154, 147, 94 sweeps to 1e-8 on this machine where plain sweeps take 962, 1066, 873
    p = read_fclib(LOCAL / f"{name}.hdf5").local.to_problem()
    plain = ccp.solve(p, "nsgs", tol=1e-8, anderson=0, max_sweeps=2000)
    fast = ccp.solve(p, "nsgs", tol=1e-8, max_sweeps=2000)
    assert plain.status is Status.SOLVED and fast.status is Status.SOLVED
    assert fast.residual.value <= 1e-8 and fast.iterations * 3 < plain.iterations


@pytest.mark.parametrize("k", [0, 7, -5, 600, -600])
@pytest.mark.parametrize("sparse", [True, False])
def test_scaled_velocity_is_numpy(sparse, k):
    rng = np.random.default_rng(11)
    A = rng.standard_normal((9, 9)) * (rng.random((9, 9)) < 0.5)
    r = rng.standard_normal(9) * 2.0**k
    q = rng.standard_normal(9) * 2.0**k
    S = sp.csr_matrix(A)
    args = (S.indptr, S.indices, S.data, NO_DENSE, True) if sparse else (NO_INT, NO_INT, NO_FLOAT, A, False)
    u, rs, bound, nq, finite = scaled_velocity(*args, r, q, k)
    assert finite
    np.testing.assert_array_equal(rs, np.ldexp(r, -k))  # scaling by a power of two is exact
    qs = np.ldexp(q, -k)
    np.testing.assert_allclose(u, A @ rs + qs, rtol=0, atol=1e-14 * (np.abs(A) @ np.abs(rs) + np.abs(qs)).max())
    np.testing.assert_allclose(bound, np.linalg.norm(np.abs(A) @ np.abs(rs) + np.abs(qs)), rtol=1e-14)
    np.testing.assert_allclose(nq, np.linalg.norm(qs), rtol=1e-15)


def test_scaled_velocity_reports_overflow_and_the_residual_is_infinite():
    A = np.array([[1e308, 1e308, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    r = np.array([1.0, 1.0, 0.0])
    *_, finite = scaled_velocity(NO_INT, NO_INT, NO_FLOAT, A, False, r, np.zeros(3), 0)
    assert not finite
    p = ccp.FrictionContactProblem(A, [-1.0, 0.0, 0.0], 0.5)
    assert p.residual(r).value == np.inf

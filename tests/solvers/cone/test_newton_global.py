"""The semismooth Newton on the global form (``newton-global``): its Woodbury step, its certified
answers on rank-deficient multibody problems, warm starts, and its options."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import contactcp as ccp
from contactcp import InvalidOptionError, Status
from contactcp.io.fclib import read_fclib
from contactcp.scenarios.piles import box_stack, sphere_pile
from contactcp.solvers.cone import newton_global as newton_global_module
from contactcp.solvers.cone.kernels import ac_phi_D
from contactcp.solvers.cone.newton_global import _band_order, _reduced_step, block_rho
from contactcp.solvers.cone.woodbury_kernels import reduced_pattern, woodbury_band
from support.paths import DATA


def _dense_W(p):
    M = p.M.toarray()
    H = p.H.toarray()
    return H.T @ np.linalg.solve(M, H)


@pytest.mark.parametrize("dim", [3, 2])
@pytest.mark.parametrize("compiled", [None, "dense", "band", "band-spd"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_woodbury_step_is_the_regularised_newton_step(seed, compiled, dim):
    """The step through the n_v x n_v system equals the dense solve of
    (I - D + D rho (W + eps / rho I)) dr = -phi on the d n_c rows, by sparse products and SuperLU,
    by the compiled dense assembly and by the compiled band assembly (its order forced on a stack
    too narrow for BAND_FLOPS; LU with sliding contacts, Cholesky when every contact sticks or is
    separated) alike, for three- and two-dimensional contacts (the time stepper's position
    projection poses a two-dimensional problem)."""
    p = box_stack(3, seed=seed)
    if dim == 2:  # the normal and the first tangent of each contact
        keep = np.flatnonzero(np.arange(p.w.size) % 3 < 2)
        p = ccp.GlobalFrictionContactProblem(p.M, p.H[:, keep], p.f, p.w[keep], p.mu, dim=2)
    rng = np.random.default_rng(seed)
    W = _dense_W(p)
    rho = block_rho(p, p.solver.solve_sparse(p.H).tocsr())
    r = rng.normal(size=p.w.size)  # tangential parts of either sign: some contacts slide
    r[::dim] = np.abs(r[::dim])
    u = W @ r + p.q
    if compiled == "band-spd":  # inside the cone, at rest: sticking, but for one separated contact
        r[::dim] = 1.0 + np.abs(r[::dim])
        r.reshape(-1, dim)[:, 1:] *= 0.1 * np.min(p.mu)
        u[:] = 0.0
        r[:dim], u[0] = 0.0, 1.0
    phi, D = ac_phi_D(r, u, p.mu, rho, dim, True)
    eps = 1e-3
    n = p.w.size
    Dfull = sp.block_diag(list(D)).toarray()
    R = np.repeat(rho, dim)
    J = np.eye(n) - Dfull + Dfull @ np.diag(R) @ (W + np.diag(eps / R))
    expected = np.linalg.solve(J, -phi)
    dense = None
    if compiled:
        Hc = p.H.tocsc()
        Hc.sort_indices()
        Hp, Hi = Hc.indptr.astype(np.int64), Hc.indices.astype(np.int64)
        band = _band_order(p.M, Hp, Hi, dim, flops=1.0) if compiled.startswith("band") else None
        dense = (p.M.toarray(), Hp, Hi, Hc.data, band)
        if compiled == "band-spd":
            assert np.all(D[1:] == np.eye(dim)) and D[0, 0, 0] == 0 and np.all(D == np.transpose(D, (0, 2, 1)))
            assert woodbury_band(*band[:5], Hp, Hi, Hc.data, D, rho, phi, eps, dim, band[5])[-1]  # Cholesky
        else:  # sliding contacts: B not symmetric
            assert np.any(D[:, 1:, 1:] != 0) and np.any(D[:, 1:, 0] != 0)
        if band is not None:
            assert band[4] < p.n_v - 1 and not band[5]  # a real band; M symmetric
    got = _reduced_step(p, sp.csr_matrix(p.H.T), D, rho, phi, eps, dense)
    assert np.abs(got - expected).max() <= 1e-9 * np.abs(expected).max()


def test_band_order_of_a_nonsymmetric_M_asks_for_LU():
    """An M that is not its own transpose (bit for bit) makes K nonsymmetric whatever B: the band
    order says so, and a symmetric M does not."""
    p = box_stack(2, seed=0)
    Hc = p.H.tocsc()
    Hc.sort_indices()
    Hp, Hi = Hc.indptr.astype(np.int64), Hc.indices.astype(np.int64)
    assert not _band_order(p.M, Hp, Hi, 3, flops=1.0)[5]
    M = p.M.toarray()
    M[0, 1] += 1e-3  # within the first body's block
    assert _band_order(sp.csr_matrix(M), Hp, Hi, 3, flops=1.0)[5]
    M[1, 0] += 1e-3  # symmetric again
    assert not _band_order(sp.csr_matrix(M), Hp, Hi, 3, flops=1.0)[5]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 14), n_c=st.integers(0, 12), d=st.sampled_from([1, 2, 3]))
def test_reduced_pattern_is_the_dense_tables(seed, n, n_c, d):
    """The sparse pattern of M + H B H^T against the dense n x n table it replaced: M's entries
    (a random pattern, not symmetric) mirrored, the diagonal, and every pair of rows within one
    contact's d columns; contacts repeat their neighbour's rows (a patch's points) half the time.
    Each row's columns once."""
    rng = np.random.default_rng(seed)
    M = sp.csr_matrix(rng.random((n, n)) < 0.2)
    cols = []
    for _ in range(n_c):
        if cols and rng.random() < 0.5:
            cols += cols[-d:]  # the last contact's columns again
        else:
            cols += [np.flatnonzero(rng.random(n) < 0.3) for _ in range(d)]
    Hp = np.concatenate([[0], np.cumsum([c.size for c in cols])]).astype(np.int64)
    Hi = np.concatenate([np.zeros(0, dtype=np.int64)] + [c.astype(np.int64) for c in cols])
    A = np.eye(n, dtype=bool) | M.toarray() | M.toarray().T
    for i in range(n_c):
        rows = np.concatenate([np.zeros(0, dtype=np.int64)] + cols[i * d : (i + 1) * d])
        A[np.ix_(rows, rows)] = True
    indptr, indices = reduced_pattern(M.indptr.astype(np.int64), M.indices.astype(np.int64), Hp, Hi, d, n)
    assert indptr[-1] == indices.size == A.sum()
    for r in range(n):
        got = indices[indptr[r] : indptr[r + 1]]
        assert np.unique(got).size == got.size
        np.testing.assert_array_equal(np.sort(got), np.flatnonzero(A[r]))


@pytest.mark.parametrize("gen, seed", [(box_stack, 0), (box_stack, 3), (sphere_pile, 1)])
def test_compiled_diagonal_of_W_is_that_of_the_dense_product(gen, seed):
    """The step data's diag(H^T M^-1 H) from M^-1 (sparse, rigid bodies) in one compiled pass, and the
    product W x, against the dense product; and the same rho as from the sparse M^-1 H."""
    from contactcp.solvers.cone.newton_global import _setup
    from contactcp.solvers.cone.woodbury_kernels import csr_columns, w_diagonal, w_matvec

    p = gen(4, seed=seed) if gen is box_stack else gen(seed=seed)
    inv = p.solver.inverse()
    assert inv is not None  # rigid bodies: every block inverted
    Hc = p.H.tocsc()
    Hc.sort_indices()
    diag = w_diagonal(
        Hc.indptr.astype(np.int64),
        Hc.indices.astype(np.int64),
        Hc.data,
        inv.indptr.astype(np.int64),
        inv.indices.astype(np.int64),
        inv.data,
        p.n_v,
    )
    Cp, Ci, Cx = csr_columns(p.H.indptr, p.H.indices, p.H.data, p.H.shape[1])  # the same CSC form
    assert np.array_equal(Cp, Hc.indptr) and np.array_equal(Ci, Hc.indices) and np.array_equal(Cx, Hc.data)
    W = _dense_W(p)
    want = np.diag(W)
    assert np.abs(diag - want).max() <= 1e-12 * np.abs(want).max()
    x = np.random.default_rng(seed).normal(size=p.w.size)  # and W x, W not formed
    Wx = w_matvec(p.H.indptr, p.H.indices, p.H.data, inv.indptr, inv.indices, inv.data, x)
    assert np.abs(Wx - W @ x).max() <= 1e-12 * (np.abs(W) @ np.abs(x)).max()
    rho = _setup(p)[0]
    np.testing.assert_allclose(rho, block_rho(p, p.solver.solve_sparse(p.H).tocsr()), rtol=1e-12)


@pytest.mark.parametrize(
    "make",
    [lambda: box_stack(8, columns=3, seed=1), lambda: box_stack(5, columns=5, seed=2), lambda: sphere_pile(seed=0)],
)
def test_many_bodies_are_factored_in_band_form_and_certified(make):
    """Three columns of eight boxes, five of five (144 and 150 velocities, half-bandwidth 11), sixty
    spheres (360, 89): the reduced matrix's order leaves a band narrow enough for the default rule
    to take the band factorisation, the band is that of the pattern (every entry of M + H H^T within
    kl of the diagonal, one at kl), and the answer is certified."""
    from contactcp.solvers.cone.newton_global import BAND_FLOPS, _setup

    p = make()
    band = _setup(p)[1][4]
    assert band is not None
    iperm, kl = band[3], band[4]
    pattern = (abs(p.M) + abs(p.H) @ abs(p.H).T).tocoo()
    offsets = np.abs(iperm[pattern.row] - iperm[pattern.col])
    assert offsets.max() == kl and BAND_FLOPS * kl * kl < p.n_v**2
    res = ccp.solve(p, "newton-global", tol=1e-10)
    assert res.status is Status.SOLVED and res.residual.value <= 1e-10, res.message


@pytest.mark.parametrize("gen, seed", [(box_stack, 0), (box_stack, 1), (sphere_pile, 0), (sphere_pile, 2)])
def test_certifies_rank_deficient_multibody_problems(gen, seed):
    p = gen(4, seed=seed) if gen is box_stack else gen(seed=seed)
    W = _dense_W(p)
    assert np.linalg.matrix_rank(W) < W.shape[0]  # many contacts on few bodies
    res = ccp.solve(p, "newton-global", tol=1e-10)
    assert res.status is Status.SOLVED, res.message
    v, r = p.split(res.x)
    # the test's own check: equilibrium, and Coulomb's law on u = H^T v + w
    M, H = p.M.toarray(), p.H.toarray()
    assert np.abs(M @ v - H @ r - p.f).max() <= 1e-12 * (np.abs(M) @ np.abs(v) + np.abs(H) @ np.abs(r)).max()
    u = (H.T @ v + p.w).reshape(-1, 3)
    R = r.reshape(-1, 3)
    scale = np.linalg.norm(p.q)
    assert np.all(R[:, 0] >= -1e-10 * scale)
    assert np.all(np.hypot(R[:, 1], R[:, 2]) <= p.mu * R[:, 0] + 1e-9 * np.abs(R).max())
    un = u[:, 0] + p.mu * np.hypot(u[:, 1], u[:, 2])  # De Saxcé's modified normal velocity
    assert np.all(un >= -1e-9 * scale)
    # complementarity in De Saxcé's form: r . (u + mu |u_T| e_N) = 0, contact by contact
    comp = R[:, 0] * un + R[:, 1] * u[:, 1] + R[:, 2] * u[:, 2]
    assert np.abs(comp).max() <= 1e-9 * scale * np.abs(R).max()


def test_a_warm_start_at_the_answer_needs_no_iteration():
    p = box_stack(4, seed=3)
    first = ccp.solve(p, "newton-global", tol=1e-10)
    assert first.success
    _, r = p.split(first.x)
    again = ccp.solve(p, "newton-global", tol=1e-10, r0=r)
    assert again.success and again.iterations == 0


def test_the_starting_reactions_must_have_the_reactions_length():
    p = box_stack(2, seed=0)
    with pytest.raises(InvalidOptionError, match="r0"):
        ccp.solve(p, "newton-global", r0=np.zeros(p.size))  # (v, r)'s length, not r's
    with pytest.raises(InvalidOptionError, match="eps"):
        ccp.solve(p, "newton-global", eps=0.0)


def test_the_compiled_loop_stops_at_its_iteration_limit():
    """A band problem (the compiled iteration, newton_global_loop) stopped after one iteration is
    reported as such, with the Python loop's message, and not certified."""
    p = box_stack(8, columns=3, seed=1)
    res = ccp.solve(p, "newton-global", tol=1e-10, max_iter=1)
    assert res.status is Status.ITERATION_LIMIT and res.iterations == 1
    assert "no convergence in 1 iterations" in res.message
    assert res.residual.value > 1e-10


def _stalled_step():
    """The impulse problem of a 25-box pile's step on which the monotone line search stalled, and
    the stepper's starting reactions (tests/data/steps/README.md)."""
    found = read_fclib(DATA / "steps" / "pile25_step205.hdf5")
    return found.global_.to_problem(), found.guesses[0].r


@pytest.mark.parametrize("loop", ["compiled", "python"])
def test_the_nonmonotone_line_search_certifies_a_step_where_armijo_stalls(loop, monkeypatch):
    """From the last step's impulses, Armijo's monotone rule (memory 1) stops at the iteration limit
    with the residual above 1e-5; the default (the largest merit of the last 5 iterations) is
    certified to 1e-10 within 25 iterations, by the compiled band loop and by the Python loop (the
    band order refused: a dense reduced matrix)."""
    if loop == "python":
        monkeypatch.setattr(newton_global_module, "_band_order", lambda *args, **kw: None)
    p, r0 = _stalled_step()
    monotone = ccp.solve(p, "newton-global", tol=1e-10, r0=r0, memory=1)
    assert monotone.status is Status.ITERATION_LIMIT and monotone.iterations == 50
    assert monotone.residual.value > 1e-5
    res = ccp.solve(p, "newton-global", tol=1e-10, r0=r0)
    assert res.success and res.residual.value <= 1e-10
    assert 5 <= res.iterations <= 25


def test_the_line_search_memory_is_checked():
    p = box_stack(2, seed=0)
    with pytest.raises(InvalidOptionError, match="memory"):
        ccp.solve(p, "newton-global", memory=0)

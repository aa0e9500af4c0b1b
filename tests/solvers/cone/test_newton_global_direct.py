"""The time stepper's global Newton on arrays (solvers/cone/newton_global_direct): the registry's
``newton-global`` to the last bit on the problems the stepper poses, and None where its band path
does not apply (the stepper then takes the registry's way)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contactcp as ccp
from contactcp import GlobalFrictionContactProblem, Status
from contactcp.io.fclib import read_fclib
from contactcp.linalg.blockinv import BlockSolver
from contactcp.problems._coulomb_global import blocks_to_csr, columns_to_csr
from contactcp.scenarios.piles import box_stack, sphere_pile
from contactcp.simulate.stepping.mass import DenseCholesky
from contactcp.solvers.cone import newton_global_direct
from contactcp.solvers.cone.newton_global import _setup, block_rho
from contactcp.solvers.cone.newton_global_direct import prepare
from contactcp.solvers.cone.newton_global_loop import block_rho_of
from support.paths import DATA


def _posed(p, spread=1, shift=None, rows=None):
    """``p`` as the stepper poses its problems (dense H, columns, spread; in the velocity change
    ``dv = v - M^-1 f``, ``w`` shifted by ``H^T M^-1 f``, and by ``H^T shift`` more), by :func:`prepare`
    and by GlobalFrictionContactProblem._derived for the registry."""
    H = np.ascontiguousarray(p.H.toarray())
    shift = p.solver.solve(p.f) + (0.0 if shift is None else shift)
    cols = np.arange(H.shape[1]) if rows is None else rows
    m = spread * cols.size
    w = p.w[:m].copy() if spread == 1 else np.zeros(m)
    mu = p.mu[: m // p.dim] if spread == 1 else np.zeros(cols.size)
    d = p.dim if spread == 1 else 2
    if spread == 2:
        w[0::2] = p.w[cols]
    solver = BlockSolver.of(p.M)
    problem = GlobalFrictionContactProblem._derived(
        p.M, H, np.zeros(p.n_v), w, mu, d, spread=spread, cols=cols, shift=shift, solver=solver
    )
    return prepare(solver, H, cols, spread, shift, w, mu, d), problem


def _same(direct, res):
    assert direct.status is res.status and direct.iterations == res.iterations
    assert direct.method == res.method == "newton-global"
    np.testing.assert_array_equal(direct.x, res.x)
    assert direct.residual == res.residual
    assert direct.stats == res.stats


def test_the_stalled_pile_step_is_the_registrys_answer_to_the_bit():
    """The 25-box pile's stored step (tests/data/steps): from the stepper's start, with the default
    line search and with memory 1 (stopped at 50 iterations), the same iterations, point and
    certificate as the registry's newton-global."""
    found = read_fclib(DATA / "steps" / "pile25_step205.hdf5")
    p, r0 = found.global_.to_problem(), found.guesses[0].r
    prepared, problem = _posed(p)
    for options in ({}, {"memory": 1}, {"eps": 0.1}):
        direct = prepared.newton(1e-10, r0, **options)
        _same(direct, ccp.solve(problem, "newton-global", tol=1e-10, r0=r0, **options))
    assert prepared.newton(1e-10, r0).success
    assert prepared.newton(1e-10, r0, memory=1).status is Status.ITERATION_LIMIT


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shifted_and_spread_problems_are_the_registrys(seed):
    """Three columns of eight boxes: the impulses' form (w shifted by H^T v), from zero and from the
    answer (no iteration), and the projection's (the normal columns spread to every other one,
    frictionless, with the proximal term of its retry)."""
    p = box_stack(8, columns=3, seed=seed)
    shift = np.random.default_rng(seed).normal(size=p.n_v)
    prepared, problem = _posed(p, shift=shift)
    first = prepared.newton(1e-10)
    _same(first, ccp.solve(problem, "newton-global", tol=1e-10))
    assert first.success and first.iterations > 0
    again = prepared.newton(1e-10, problem.split(first.x)[1])
    assert again.success and again.iterations == 0
    normals = np.arange(0, p.w.size, 3)
    prepared, problem = _posed(p, spread=2, rows=normals)
    for options in ({}, {"eps": 1e-5}):
        _same(prepared.newton(1e-8, **options), ccp.solve(problem, "newton-global", tol=1e-8, **options))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_one_dimensional_projection_is_the_spread_problems_iteration(seed):
    """The stepper's position projection in one dimension (a normal column per contact, rho twice
    the registry's 1 / W_ii: moreau_jean._gap_newton) against the registry's two-dimensional form
    of it (the normal columns spread to every other one, frictionless): the same iterations,
    correction and normal multipliers to the bit (the tangential rows stay zero and add zeros, and
    both scale the residual by the same sequential ||q||), the tangential multipliers zero.  The
    certified measures agree to rounding: each is computed on its own form."""
    p = box_stack(8, columns=3, seed=seed)
    H = np.ascontiguousarray(p.H.toarray())
    need = np.random.default_rng(seed).normal(scale=1e-4, size=p.w.size // 3)
    need[need > 0] *= 10.0  # most contacts open, some short of their gap
    cols, solver = np.arange(0, H.shape[1], 3), BlockSolver.of(p.M)
    flat = prepare(solver, H, cols, 1, None, need, np.zeros(need.size), 1, rho_scale=2.0)
    w2 = np.zeros(2 * need.size)
    w2[0::2] = need
    problem = GlobalFrictionContactProblem._derived(
        p.M, H, np.zeros(p.n_v), w2, np.zeros(need.size), 2, spread=2, cols=cols, solver=solver
    )
    for options in ({}, {"eps": 1e-5}):
        one, two = flat.newton(1e-8, **options), ccp.solve(problem, "newton-global", tol=1e-8, **options)
        assert one.success and two.success and two.iterations > 0 and one.iterations == two.iterations
        np.testing.assert_array_equal(one.x[: p.n_v], two.x[: p.n_v])
        np.testing.assert_array_equal(one.x[p.n_v :], two.x[p.n_v :: 2])
        assert not two.x[p.n_v + 1 :: 2].any()
        assert one.residual.value == pytest.approx(two.residual.value, rel=1e-12, abs=1e-14)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(2, 6), tol=st.sampled_from([1e-6, 1e-10]))
def test_random_stacks_and_piles_match_the_registry(seed, n, tol):
    """Stacks of 3 columns and piles of spheres: the registry's answer, or None exactly where the
    registry's Newton refuses the band (and the start is not already an answer)."""
    p = box_stack(3 * n, columns=3, seed=seed) if n % 2 else sphere_pile(6 * n, seed=seed)
    prepared, problem = _posed(p)
    direct = prepared.newton(tol)
    res = ccp.solve(problem, "newton-global", tol=tol)
    if direct is None:
        assert _setup(problem)[1][4] is None and res.iterations > 0
    else:
        _same(direct, res)


def test_rho_of_the_diagonal_is_block_rho():
    p = sphere_pile(seed=3)
    diag = np.asarray(p.H.multiply(p.solver.solve_sparse(p.H).tocsr()).sum(axis=0)).reshape(-1)
    np.testing.assert_array_equal(block_rho_of(diag, 3), block_rho(p, diag=diag))
    diag[:3] = 0.0  # a contact of no trace: the floor, 1e-8 of the mean positive trace
    rho = block_rho_of(diag, 3)
    assert rho[0] == pytest.approx(3 / (1e-8 * np.abs(diag[3:]).reshape(-1, 3).sum(axis=1).mean()), rel=1e-12)


def test_where_the_band_path_does_not_apply_the_caller_takes_the_registry(monkeypatch):
    p = box_stack(4, seed=0)
    H = np.ascontiguousarray(p.H.toarray())
    cols, w, mu = np.arange(H.shape[1]), p.w.copy(), p.mu.copy()
    # a dense factor (a robot's mass matrix): no sparse inverse
    assert prepare(DenseCholesky(np.linalg.cholesky(p.M.toarray())), H, cols, 1, None, w, mu, 3) is None
    bad = H.copy()
    bad[0, 0] = np.nan  # not finite: the problem's constructor names the field
    assert prepare(BlockSolver.of(p.M), bad, cols, 1, None, w, mu, 3) is None
    prepared = prepare(BlockSolver.of(p.M), H, cols, 1, None, w, mu, 3)
    assert prepared.newton(1e-10, np.full(w.size, np.inf)) is None  # the registry names r0
    assert prepared.newton(1e-10, np.zeros(w.size + 1)) is None
    # a reduced matrix too wide for the band rule: the registry factors it dense
    monkeypatch.setattr(newton_global_direct, "BAND_FLOPS", 1e9)
    p = box_stack(8, columns=3, seed=1)
    prepared = _posed(p)[0]
    assert prepared.newton(1e-10) is None
    solved = ccp.solve(p, "newton-global", tol=1e-10)
    assert prepared.newton(1e-10, p.split(solved.x)[1]).success  # no step to take: no band asked


@pytest.fixture(scope="module")
def pile_contacts():
    """A 12-box pile after 0.2 s (landed): its step contacts, H with each contact's blocks."""
    from contactcp.scenarios.timestepping import box_pile
    from contactcp.simulate.stepping import SceneSystem, simulate

    scene = box_pile(12, seed=1)
    tr = simulate(scene, 0.2, 1e-3)
    system = SceneSystem(scene, 2e-3)
    C = system.contacts(tr.q[-1], tr.v[-1], 1e-3)
    assert C.blocks is not None and C.n > 20
    return C


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), spread=st.sampled_from([1, 2]), shifted=st.booleans())
def test_reading_the_blocks_only_gives_the_dense_scans_arrays(pile_contacts, seed, spread, shifted):
    """blocks_to_csr reads 12 rows of each column, columns_to_csr all of them: the same CSR arrays,
    counts and H^T v to the bit, on random column selections (the stepper's: increasing)."""
    C = pile_contacts
    rng = np.random.default_rng(seed)
    cols = np.flatnonzero(rng.random(C.H.shape[1]) < rng.uniform(0.2, 1.0))
    v = rng.normal(size=C.H.shape[0]) if shifted else np.zeros(0)
    dense = columns_to_csr(C.H, cols, spread, v)
    sparse = blocks_to_csr(C.H, cols, spread, v, C.blocks, 3)
    for a, b in zip(dense, sparse):
        np.testing.assert_array_equal(a, b)

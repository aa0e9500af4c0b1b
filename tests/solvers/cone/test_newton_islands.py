"""The global Newton island by island (newton_islands): the islands of stacks standing apart, the
answer certified as the whole problem's, and the iteration limit kept."""

import numpy as np
import pytest
import scipy.sparse as sp

import contactcp as ccp
from contactcp import Status
from contactcp.scenarios.piles import box_stack
from contactcp.solvers.cone.kernels import residual_scale
from contactcp.solvers.cone.newton_global import csr64
from contactcp.solvers.cone.newton_global_loop import prepared_newton
from contactcp.solvers.cone.newton_islands import island_newton, islands


def _arrays(p):
    return csr64(p.H), csr64(p.M), csr64(p.solver.inverse())


@pytest.mark.parametrize("columns", [1, 3, 4])
def test_stacks_standing_apart_are_islands(columns):
    """Columns of boxes on the ground: one island a column (the ground joins nothing), each
    contact's island that of its velocities, numbered by first contact."""
    p = box_stack(8, columns=columns, seed=0)
    H, M, inv = _arrays(p)
    label, row_label, count = islands(H, M, inv, 3, p.n_c)
    assert count == columns
    assert label[0] == 0 and (np.diff(np.maximum.accumulate(label)) <= 1).all()
    Hd = p.H.toarray()
    for c in range(p.n_c):
        rows = np.flatnonzero(np.abs(Hd[:, 3 * c : 3 * c + 3]).sum(axis=1))
        assert (row_label[rows] == label[c]).all()


def test_a_contact_that_reaches_no_velocity_is_no_island():
    p = box_stack(4, columns=2, seed=0)
    H = sp.lil_matrix(p.H)
    H[:, 3:6] = 0.0  # the second contact's columns
    label, _, count = islands(csr64(sp.csr_matrix(H)), csr64(p.M), csr64(p.solver.inverse()), 3, p.n_c)
    assert count == -1


@pytest.mark.parametrize("make", [lambda: box_stack(9, columns=3, seed=1), lambda: box_stack(8, columns=4, seed=0)])
def test_islands_answer_is_the_whole_problems_within_tol(make):
    """From zero, island by island: within tol / 2 of ||q|| in the whole problem's measure, the
    velocities those of the whole problem's Newton to the tolerance, and certified by the registry
    (which runs the same)."""
    p = make()
    H, M, inv = _arrays(p)
    q, mu, m = p.q, p.mu, p.q.size
    qs = residual_scale(q)
    assert islands(H, M, inv, 3, p.n_c)[2] > 1
    args = (q, mu, 3, np.zeros(m), qs, 1e-10, 50, 1e-3, 1e-6, 1e-4, 5, 6.0, 1.0)
    r, u, outcome, it, _, discarded = island_newton(H, M, inv, *args)
    whole = prepared_newton(H, M, inv, *args)
    assert outcome == whole[2] == 0 and it > 0 and discarded == 0
    v, v_whole = p.solver.solve(p.H @ r + p.f), p.solver.solve(p.H @ whole[0] + p.f)
    np.testing.assert_allclose(v, v_whole, rtol=0, atol=1e-8 * np.abs(v_whole).max())
    res = ccp.solve(p, "newton-global", tol=1e-10)
    assert res.success and res.residual.value <= 1e-10


def test_the_islands_keep_the_iteration_limit():
    """Stopped after one iteration: the islands are not solved, the whole problem takes its one."""
    p = box_stack(9, columns=3, seed=1)
    res = ccp.solve(p, "newton-global", tol=1e-10, max_iter=1)
    assert res.status is Status.ITERATION_LIMIT and res.iterations == 1
    assert res.stats["discarded_island_iterations"] == 1


def test_an_island_not_solved_leaves_the_whole_problem_to_its_newton():
    """A tolerance no island reaches: the first island stops unsolved, and the answer is the whole
    problem's Newton from the start with all the iterations, to the bit (the same call on the same
    arrays), the islands' iterations reported as discarded."""
    p = box_stack(9, columns=3, seed=1)
    H, M, inv = _arrays(p)
    args = (p.q, p.mu, 3, np.zeros(p.q.size), residual_scale(p.q), 1e-300, 6, 1e-3, 1e-6, 1e-4, 5, 6.0, 1.0)
    r, u, outcome, it, shrinks, discarded = island_newton(H, M, inv, *args)
    whole = prepared_newton(H, M, inv, *args)
    assert outcome == whole[2] != 0 and it == whole[3] and 0 < discarded <= 6
    np.testing.assert_array_equal(r, whole[0])
    res = ccp.solve(p, "newton-global", tol=1e-300, max_iter=6)
    assert not res.success and res.stats["discarded_island_iterations"] == discarded


def test_residuals_by_island_add_up_to_the_whole():
    """Each island's residual (its contacts' terms of the natural map), the bits of desaxce_residual
    on the island's contacts alone (the same sums in the same order); the islands' squares add up
    to the whole's square."""
    from contactcp.solvers.cone.kernels import desaxce_residual, desaxce_residuals_by

    p = box_stack(9, columns=3, seed=1)
    H, M, inv = _arrays(p)
    label, _, count = islands(H, M, inv, 3, p.n_c)
    rng = np.random.default_rng(0)
    r, u = rng.normal(size=p.q.size), rng.normal(size=p.q.size)
    parts = desaxce_residuals_by(r, u, p.mu, 3, label, count)
    assert parts.shape == (3,)
    assert np.sum(parts**2) == pytest.approx(desaxce_residual(r, u, p.mu, 3) ** 2, rel=1e-14)
    for g in range(count):
        cols = np.flatnonzero(np.repeat(label == g, 3))
        assert parts[g] == desaxce_residual(r[cols], u[cols], p.mu[label == g], 3)


def test_a_start_near_the_answer_takes_the_whole_problems_newton():
    """A start within ISLANDS_FROM of the answer (relative): the whole problem's iterations, to the bit."""
    from contactcp.solvers.cone.newton_islands import ISLANDS_FROM

    p = box_stack(9, columns=3, seed=1)
    H, M, inv = _arrays(p)
    args = (p.q, p.mu, 3, np.zeros(p.q.size), residual_scale(p.q), 1e-6, 50, 1e-3, 1e-6, 1e-4, 5, 6.0, 1.0)
    near = prepared_newton(H, M, inv, *args)[0]  # within 1e-6 / 2 < ISLANDS_FROM
    assert 1e-6 < ISLANDS_FROM
    tight = (args[0], args[1], 3, near, args[4], 1e-12) + args[6:]
    r, u, outcome, it, shrinks, discarded = island_newton(H, M, inv, *tight)
    whole = prepared_newton(H, M, inv, *tight)
    assert outcome == whole[2] == 0 and it == whole[3] > 0 and discarded == 0
    np.testing.assert_array_equal(r, whole[0])

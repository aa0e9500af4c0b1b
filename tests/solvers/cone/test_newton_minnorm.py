"""Pure semismooth Newton with minimum-norm steps (solvers/cone/newton_minnorm.py)."""

import numpy as np
import pytest

import contactcp as ccp
from contactcp import Status
from contactcp.solvers.cone.newton import alart_curnier
from contactcp.solvers.cone.newton_minnorm import MAX_SIZE, _jacobian


def _planted(seed: int, n_c: int = 4, noise: float = 0.0):
    """W = A A^T (+ noise) and q built so that r* (mixed modes) solves the problem exactly in
    rationals up to the rounding of q: sticking, sliding and separated contacts."""
    rng = np.random.default_rng(seed)
    n = 3 * n_c
    A = rng.normal(size=(n, n))
    W = A @ A.T / n + np.eye(n)
    W = W + noise * np.abs(W).max() * rng.normal(size=W.shape)
    mu = np.full(n_c, 0.5)
    r = np.zeros(n)
    u = np.zeros(n)
    for i in range(n_c):
        s = slice(3 * i, 3 * i + 3)
        mode = i % 3
        if mode == 0:  # sticking: r inside the cone, u = 0
            r[s] = [2.0, 0.3, -0.2]
        elif mode == 1:  # sliding: r on the cone opposite u_T
            r[s] = [2.0, -0.6, -0.8]
            u[s] = [0.0, 1.5, 2.0]
        else:  # separated: r = 0, u_N > 0
            u[s] = [1.0, 0.5, -0.5]
    return ccp.FrictionContactProblem(W, u - W @ r, mu), r


@pytest.mark.parametrize("seed", range(4))
def test_the_jacobian_is_the_reference_one(seed):
    p, r = _planted(seed)
    rng = np.random.default_rng(seed)
    x = r + 0.1 * rng.normal(size=r.size)
    rho = np.full(p.n_c, 0.7)
    _, D = alart_curnier(x, p.W @ x + p.q, p.mu, rho, 3)
    Dfull = np.zeros((p.size, p.size))
    for i in range(p.n_c):
        Dfull[3 * i : 3 * i + 3, 3 * i : 3 * i + 3] = D[i]
    expected = np.eye(p.size) - Dfull + Dfull @ (np.repeat(rho, 3)[:, None] * p.W)
    np.testing.assert_allclose(_jacobian(np.asarray(p.W), D, rho, 3), expected, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("seed", range(6))
def test_full_newton_steps_finish_from_near_the_answer(seed):
    # locally the pure semismooth Newton iteration converges (W is well conditioned here): from a
    # start within 1e-3 of r* it certifies, and the answer is r*
    p, r = _planted(seed)
    start = r + 1e-3 * np.random.default_rng(seed).normal(size=r.size)
    res = ccp.solve(p, method="newton-minnorm", r0=start, tol=1e-12)
    assert res.status is Status.SOLVED
    assert res.residual.value <= 1e-12
    np.testing.assert_allclose(res.x, r, atol=1e-9)


def test_keeps_the_best_point_and_is_refused_on_large_problems():
    p, r = _planted(0)
    start = r + 0.5 * np.random.default_rng(0).normal(size=r.size)  # not a solution
    assert p.residual(start).value > 1e-3
    res = ccp.solve(p, method="newton-minnorm", r0=start, max_iter=1)
    assert res.residual.value <= p.residual(start).value  # never worse than its start
    done = ccp.solve(p, method="newton-minnorm", r0=r, tol=1e-9)
    assert p.residual(r).value <= 1e-9
    assert done.status is Status.SOLVED and done.iterations == 0
    np.testing.assert_array_equal(done.x, r)  # a start within tol is returned as it is
    n_c = MAX_SIZE // 3 + 1
    big = ccp.FrictionContactProblem(np.eye(3 * n_c), -np.ones(3 * n_c), 0.5)
    assert "newton-minnorm" not in ccp.methods(big)
    assert "newton-minnorm" in ccp.methods(p)


def test_the_global_variant_applies_where_the_local_form_is_small():
    from contactcp.scenarios.piles import box_stack

    small = box_stack(2, seed=0)
    assert small.local().size <= MAX_SIZE
    assert "newton-minnorm" in ccp.methods(small)
    big = box_stack(30, seed=0)
    assert big.local().size > MAX_SIZE
    assert "newton-minnorm" not in ccp.methods(big)

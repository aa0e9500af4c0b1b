"""The friction-cone methods on sparse and dense W: NSGS's compressed-row sweep against the dense
one, ADMM on known answers and real problems, NSGS handing over early, the chain's warm starts."""

import numpy as np
import pytest
import scipy.sparse as sp

import contactcp as ccp
from contactcp.errors import InvalidOptionError
from contactcp.io.fclib import read_fclib
from contactcp.scenarios import piles
from contactcp.solvers.cone.kernels import diagonal_blocks, sweeps
from support.oracles import coulomb_error
from support.paths import DATA

LOCAL = DATA / "fclib" / "local"


def one_contact(push):
    """W = I, q = (-1, push, 0), mu = 0.5: sticks (r_T = -push) when |push| <= 0.5, else slides."""
    return ccp.FrictionContactProblem(np.eye(3), [-1.0, push, 0.0], 0.5)


@pytest.mark.parametrize("method", ["admm", "nsgs", "prox", "newton"])
@pytest.mark.parametrize("push, r", [(0.3, [1.0, -0.3, 0.0]), (2.0, [1.0, -0.5, 0.0])])
def test_one_contact_known_answer(method, push, r):
    res = ccp.solve(one_contact(push), method, tol=1e-12)
    assert res.success
    np.testing.assert_allclose(res.x, r, atol=1e-10)


def test_sparse_sweep_is_the_dense_sweep():
    p = read_fclib(LOCAL / "OneObject-i1028-138.hdf5").local.to_problem()
    a, b = np.zeros(p.size), np.zeros(p.size)
    sweeps(p.W.toarray(), p.q, p.mu, a, 3, 7, 10, np.zeros(p.n_c), 0.0)  # the dense kernel
    sweeps(p.W, p.q, p.mu, b, 3, 7, 10, np.zeros(p.n_c), 0.0)
    assert np.abs(a).max() > 0
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-12 * np.abs(a).max())


def test_diagonal_blocks_dense_and_sparse():
    W = np.arange(36.0).reshape(6, 6)
    np.testing.assert_array_equal(diagonal_blocks(W, 3), [W[:3, :3], W[3:, 3:]])
    np.testing.assert_array_equal(diagonal_blocks(sp.csr_matrix(W), 3), [W[:3, :3], W[3:, 3:]])


@pytest.mark.parametrize("stem", ["NESpheres_30_1", "Rover1039", "KaplasTower-i1061-4"])
def test_admm_on_real_problems(stem):
    p = read_fclib(LOCAL / f"{stem}.hdf5").local.to_problem()
    res = ccp.solve(p, "admm", tol=1e-8)
    assert res.success, res.message
    assert coulomb_error(p.W.toarray(), p.q, p.mu, res.x) <= 1e-8


def test_admm_on_sparse_and_dense_W_agree():
    p = piles.sphere_pile(30, seed=5).local()
    dense = ccp.FrictionContactProblem(p.W.toarray(), p.q, p.mu)
    a, b = ccp.solve(p, "admm", tol=1e-10), ccp.solve(dense, "admm", tol=1e-10)
    assert a.success and b.success
    # W is rank-deficient, so the answers need not be equal: each is checked on its own
    assert coulomb_error(dense.W, p.q, p.mu, a.x) <= 1e-10
    assert coulomb_error(dense.W, p.q, p.mu, b.x) <= 1e-10


@pytest.mark.parametrize("opts", [{"rho": 0.0}, {"rho": -1.0}, {"max_iter": 0}, {"accelerate": "yes"}])
def test_admm_bad_options(opts):
    with pytest.raises(InvalidOptionError):
        ccp.solve(one_contact(0.3), "admm", **opts)


def test_nsgs_gives_up_when_too_slow_to_reach_tol():
    p = piles.box_wall(4, 4, seed=1).local()  # rank-deficient: NSGS crawls
    res = ccp.solve(p, "nsgs", tol=1e-12, max_sweeps=2000, give_up=True)
    assert not res.success
    assert "too slowly" in res.message and res.iterations < 2000
    full = ccp.solve(p, "nsgs", tol=1e-12, max_sweeps=200)
    assert full.iterations == 200


def test_default_chain_on_a_rank_deficient_problem():
    p = piles.box_stack(6, 2, seed=3).local()
    res = ccp.solve(p, tol=1e-8)
    assert res.success
    steps = [s["method"] for s in res.stats["chain"]]
    assert steps[0] == "nsgs" and steps[-1] == res.method
    assert coulomb_error(p.W.toarray(), p.q, p.mu, res.x) <= 1e-8


def test_prox_starts_from_zero_when_the_start_is_farther_than_warm_within():
    p = piles.box_stack(6, 2, seed=3).local()
    cold = ccp.solve(p, "prox", tol=1e-8)
    far = ccp.solve(p, "nsgs", tol=1e-8, max_sweeps=3).x  # a start far from a solution
    assert p.residual(far).value > 100 * 1e-8
    dropped = ccp.solve(p, "prox", tol=1e-8, r0=far, warm_within=100.0)
    kept = ccp.solve(p, "prox", tol=1e-8, r0=far)
    assert cold.success and dropped.success and kept.success
    np.testing.assert_array_equal(dropped.x, cold.x)  # the same run: from zero
    assert dropped.iterations == cold.iterations
    # a start within warm_within * tol is kept: at a solution, no proximal step is needed
    near = ccp.solve(p, "prox", tol=1e-8, r0=cold.x, warm_within=100.0)
    assert near.success and near.iterations == 0
    with pytest.raises(InvalidOptionError):
        ccp.solve(p, "prox", warm_within=0.5)


def test_the_chain_solves_a_wall_where_prox_from_the_nsgs_point_crept():
    # box_wall(6, 5, seed=0): NSGS stops at 1e-2; prox from there ran out of proximal steps (13.9 s,
    # the chain failed), from zero it solves (prox's warm_within in the default chain)
    p = piles.box_wall(6, 5, seed=0).local()
    res = ccp.solve(p, tol=1e-8)
    assert res.success and res.method == "prox"
    assert coulomb_error(p.W.toarray(), p.q, p.mu, res.x) <= 1e-8


@pytest.mark.parametrize(
    "method, option, value",
    [("nsgs", "anderson", -1), ("nsgs", "anderson", 1.5), ("prox", "sigma", 0.0), ("prox", "sigma", float("nan"))],
)
def test_acceleration_and_weight_options_are_checked(method, option, value):
    with pytest.raises(InvalidOptionError, match=option):
        ccp.solve(one_contact(0.3), method, **{option: value})


def test_plain_and_accelerated_nsgs_agree_on_a_known_answer():
    # anderson=0 is plain NSGS; both certify the sticking answer of one_contact(0.3)
    for m in (0, 2):
        res = ccp.solve(one_contact(0.3), "nsgs", tol=1e-12, anderson=m)
        assert res.success
        np.testing.assert_allclose(res.x, [1.0, -0.3, 0.0], atol=1e-10)


def test_prox_inner_tolerances_are_in_the_original_scale(monkeypatch):
    # each inner problem's own measure divides by ||q - weight r||: its tolerance is scaled so that it asks
    # for a tenth of the outer residual measured by ||q|| (at most 1e-3 of it), however large weight r is
    import contactcp.solvers.cone.prox as prox

    seen = []
    real = prox._newton

    def spy(sub, tol, *args):
        seen.append((float(np.linalg.norm(sub.q)), tol, args[4].copy()))
        return real(sub, tol, *args)

    monkeypatch.setattr(prox, "_newton", spy)
    p = ccp.FrictionContactProblem(np.diag([1.0, 1.0, 1.0, 1e-6, 1.0, 1.0]), [-1.0, 0.2, 0.0, -1.0, 0.0, 0.0], 0.5)
    res = ccp.solve(p, "prox", tol=1e-10)
    assert res.success and len(seen) >= 2
    nq = np.linalg.norm(p.q)
    for norm_sub, tol, start in seen:
        outer = p.residual(start).value
        asked = tol * norm_sub / nq  # the inner tolerance in the original problem's measure
        assert asked == pytest.approx(max(1e-11, min(1e-3, 0.1 * outer)), rel=1e-9)


def test_prox_restarts_a_crawling_inner_solve_with_a_larger_weight():
    # Capsules-i122-1617 from zero: near-singular inner problems (weights near 1e-6 max W_ii) where the
    # Newton iteration crawled to its 30-iteration limit twice (105 inner iterations in all); stopped after
    # 5 iterations that do not halve the residual, the run takes 23 (Siconos' PROX 34)
    p = read_fclib(LOCAL / "Capsules-i122-1617.hdf5").local.to_problem()
    res = ccp.solve(p, "prox", tol=1e-8)
    assert res.success and res.residual.value <= 1e-8
    assert res.stats["inner_iterations"] <= 50


def test_prox_restart_goes_on_from_a_run_still_converging():
    # OneObject-i1028-138 needs 5 proximal steps from zero (on the development machine): a run cut at 3
    # has cut its residual more than in half over its second half, so the restart goes on from its end
    # point (not from a random start) and finishes there; the counts are not asserted exactly (the inner
    # solves' sparse LU may round differently elsewhere)
    p = read_fclib(LOCAL / "OneObject-i1028-138.hdf5").local.to_problem()
    res = ccp.solve(p, "prox", tol=1e-8, max_outer=3, restarts=1)
    assert res.success and coulomb_error(p.W.toarray(), p.q, p.mu, res.x) <= 1e-8
    assert res.stats["restart"] == 1 and res.stats["continued"] is True
    assert 3 < res.iterations <= 6


@pytest.mark.parametrize("method", ["nsgs", "prox", "newton", "admm", None])
def test_data_near_the_top_of_the_range_do_not_crash(method):
    # |r . u| * 2^(2k) overflows in the residual's diagnostics: they read inf, the measure stays exact
    p = ccp.FrictionContactProblem(np.eye(3), [-1e300, 0.2e300, 0.0], 0.5)
    res = ccp.solve(p, method, tol=1e-10)
    assert res.success
    np.testing.assert_allclose(res.x, [1e300, -0.2e300, 0.0], rtol=1e-9)
    assert res.residual.value <= 1e-10


def test_residual_of_a_far_point_reads_inf_diagnostics_instead_of_raising():
    p = ccp.FrictionContactProblem(np.eye(3), [1e300, 0.0, 0.0], 0.5)
    res = p.residual([1e300, 0.0, 0.0])  # r . u = 2e600: beyond the floating-point range
    assert res.complementarity == np.inf
    assert res.value == pytest.approx(1.0, rel=1e-12)  # ||r - P_K(r - u)|| / ||q|| = ||r|| / ||q||

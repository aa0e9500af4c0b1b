"""The batched friction-contact path: known answers, agreement with one-at-a-time solves, the
default chain's fallback, the certified residual, and bad input naming its field."""

import numpy as np
import pytest

import contactcp as ccp
from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.result import Status
from support.oracles import coulomb_error


def _pushes():
    """W = I, q = (-1, push, 0), mu = 0.5: r = (1, -push, 0) sticking for |push| <= 0.5, else
    r = (1, -0.5 sign(push), 0) sliding."""
    push = np.linspace(-2.0, 2.0, 41)
    q = np.stack([-np.ones_like(push), push, np.zeros_like(push)], axis=1)
    r = np.stack([np.ones_like(push), -np.clip(push, -0.5, 0.5), np.zeros_like(push)], axis=1)
    return q, r


def test_known_answers_one_contact():
    q, r = _pushes()
    b = ccp.solve_friction_batch(np.eye(3), q, 0.5, tol=1e-12)
    assert b.count() == {"SOLVED": len(q)}
    np.testing.assert_allclose(b.x, r, rtol=0, atol=1e-10)
    np.testing.assert_allclose(b.w, b.x + q, rtol=0, atol=1e-14)  # w = W r + q with W = I


def _random(K, n_c, seed):
    rng = np.random.default_rng(seed)
    m = 3 * n_c
    A = rng.standard_normal((K, m, m))
    W = A @ A.transpose(0, 2, 1) / m + 0.1 * np.eye(m)
    q = rng.standard_normal((K, m))
    mu = rng.uniform(0.1, 1.0, (K, n_c))
    return W, q, mu


def test_batch_agrees_with_single_solves_and_its_residual_is_the_problems():
    W, q, mu = _random(60, 3, seed=5)
    b = ccp.solve_friction_batch(W, q, mu, tol=1e-9)
    assert b.success.all()
    for k in range(len(b)):
        p = ccp.FrictionContactProblem(W[k], q[k], mu[k])
        # the same compiled measure, called from the parallel kernel and alone: equal up to rounding
        assert b.residual[k] <= 1e-9
        assert b.residual[k] == pytest.approx(p.residual(b.x[k]).value, rel=1e-12)
        # the test's own Coulomb measure, independent of the package
        assert coulomb_error(W[k], q[k], mu[k], b.x[k]) <= 1e-8
        single = ccp.solve(p, tol=1e-9)
        # the default chain's first step is the same NSGS from zero: the same point, up to rounding
        np.testing.assert_allclose(b.x[k], single.x, rtol=0, atol=1e-6 * max(1.0, np.abs(single.x).max()))


def test_unsolved_problems_go_through_the_default_chain():
    W, q, mu = _random(8, 4, seed=9)
    one = [ccp.solve(ccp.FrictionContactProblem(W[k], q[k], mu[k]), "nsgs", tol=1e-10, max_sweeps=1) for k in range(8)]
    hard = np.array([not r.success for r in one])
    assert hard.sum() >= 4  # one sweep leaves most of them unsolved
    b = ccp.solve_friction_batch(W, q, mu, tol=1e-10, max_sweeps=1)
    assert b.success.all()
    assert (b.iterations[hard] > 1).all() and (b.iterations[~hard] == 1).all()
    assert (b.residual <= 1e-10).all()


def test_shared_mu_and_planar_problems():
    q, r = _pushes()
    q2 = q[:, :2]  # planar: normal and one tangent
    b = ccp.solve_friction_batch(np.eye(2), q2, [0.5], dim=2, tol=1e-12)
    assert b.success.all()
    np.testing.assert_allclose(b.x, r[:, :2], rtol=0, atol=1e-10)
    assert b.statuses[0] is Status.SOLVED


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(W=np.eye(3), q=np.ones((2, 4)), mu=0.5), "q"),  # not a multiple of dim
        (dict(W=np.eye(6), q=np.ones((2, 3)), mu=0.5), "W"),  # shapes disagree
        (dict(W=np.eye(3), q=np.array([[np.nan, 0.0, 0.0]]), mu=0.5), "q"),
        (dict(W=np.full((3, 3), np.inf), q=np.ones((1, 3)), mu=0.5), "W"),
        (dict(W=np.eye(3), q=np.ones((1, 3)), mu=-0.1), "mu[0]"),
        (dict(W=np.eye(3), q=np.ones((2, 3)), mu=np.ones((3, 1))), "mu"),
        (dict(W=np.eye(3), q=np.ones(3), mu=0.5), "q"),  # not 2-D
        (dict(W=np.eye(3), q=np.ones((1, 3)), mu=["a"]), "mu"),  # not numbers
        (dict(W=np.eye(3), q=np.ones((1, 3)), mu=[np.nan]), "mu"),
    ],
)
def test_bad_input_names_the_field(kwargs, field):
    with pytest.raises(InvalidProblemError) as err:
        ccp.solve_friction_batch(**kwargs)
    assert err.value.field == field


@pytest.mark.parametrize(
    "kwargs, field", [(dict(tol=0.0), "tol"), (dict(max_sweeps=0), "max_sweeps"), (dict(dim=4), "dim")]
)
def test_bad_options_name_the_option(kwargs, field):
    with pytest.raises((InvalidOptionError, InvalidProblemError)) as err:
        ccp.solve_friction_batch(np.eye(3), np.ones((1, 3)), 0.5, **kwargs)
    assert getattr(err.value, "field", getattr(err.value, "option", None)) == field

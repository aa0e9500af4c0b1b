"""Projected Gauss–Seidel: converges where theory says, never claims an uncertified answer."""

import numpy as np
import pytest

import contactcp as ccp
from contactcp import InvalidOptionError, Status
from contactcp.problems import generators
from support.oracles import brute_force_lcp


@pytest.mark.parametrize("seed", range(5))
def test_pgs_solves_spd_and_diagonally_dominant_problems(seed):
    for p in (generators.spd(30, seed), generators.p_matrix(30, seed)):
        r = ccp.solve(p, "pgs")
        assert r.success and r.residual.value <= 1e-9
        ref = ccp.solve(p, "lemke")
        np.testing.assert_allclose(r.x, ref.x, atol=1e-7 * max(1.0, np.abs(ref.x).max()))


def test_pgs_hand_checked():
    r = ccp.solve(ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0]), "pgs", tol=1e-12)
    assert r.success
    np.testing.assert_allclose(r.x, [4 / 3, 7 / 3], atol=1e-10)
    (sol,) = brute_force_lcp(np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-5.0, -6.0]))
    np.testing.assert_allclose(r.x, sol, atol=1e-10)


def test_pgs_reports_what_it_cannot_do():
    # zero diagonal: not applicable
    r = ccp.solve(ccp.LCP([[0.0, 1.0], [1.0, 0.0]], [-1.0, -1.0]), "pgs")
    assert r.status is Status.NUMERICAL_FAILURE and "diagonal" in r.message
    # an indefinite matrix outside PGS's guarantees: whatever happens, never SOLVED with a bad point
    r = ccp.solve(ccp.LCP([[1.0, 4.0], [4.0, 1.0]], [-1.0, -1.0]), "pgs", max_sweeps=50)
    assert r.status in (Status.SOLVED, Status.ITERATION_LIMIT, Status.INACCURATE)
    if r.success:
        assert r.residual.value <= 1e-9
    with pytest.raises(InvalidOptionError, match="omega"):
        ccp.solve(ccp.LCP(np.eye(2), [1.0, 1.0]), "pgs", omega=2.5)

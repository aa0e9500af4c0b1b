"""Buffo & Maciel's mixed NCP (29)-(36) and LCP (45) of the three-PUMA-finger grasp."""

from dataclasses import replace

import numpy as np
import pytest

import contactcp as ccp
from contactcp.errors import InvalidProblemError
from contactcp.formulations.buffo_mncp import buffo_mncp, sliding_lcp
from contactcp.models.system import MultibodySystem
from contactcp.problems import LCP, MixedNCP
from contactcp.scenarios.buffo2006 import GraspParameters, puma3_grasp
from contactcp.simulate.instant import solve_dynamic


@pytest.fixture(scope="module")
def rolling04():
    return puma3_grasp(0.4, "rolling").system.dynamics()


def mixed_state(mu=0.3):
    """C1 sliding (given velocity), C2 and C3 rolling."""
    g = puma3_grasp(mu, "rolling")
    cs = list(g.system.contacts)
    cs[0] = replace(cs[0], state="sliding", v_t=np.array([0.01, -0.02]))
    return MultibodySystem(g.system.bodies, cs, g.system.arms).dynamics()


def _fd_jacobian(P, x, h=1e-6):
    cols = []
    for e in np.eye(x.size):
        fp = np.r_[P.eval_F(x + h * e), P.eval_G(x + h * e)]
        fm = np.r_[P.eval_F(x - h * e), P.eval_G(x - h * e)]
        cols.append((fp - fm) / (2 * h))
    return np.column_stack(cols)


@pytest.mark.parametrize("which", ["rolling", "mixed"])
def test_analytic_jacobians_match_finite_differences(which, rolling04):
    cd = rolling04 if which == "rolling" else mixed_state()
    form = buffo_mncp(cd)
    P = form.problem
    assert isinstance(P, MixedNCP)
    nS, nR = form.S.size, form.R.size
    assert (P.p, P.m) == (nS + 2 * nR, 4 * nR)  # u = (c_Sn, c_Rn, lambda), v = (c_RT, a_RT)
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = rng.standard_normal(P.size) * 3
        J = np.vstack([P.eval_jac_F(x), P.eval_jac_G(x)])
        np.testing.assert_allclose(J, _fd_jacobian(P, x), atol=1e-6 * max(1.0, np.abs(J).max()))


def _x_from_forces(form, c, a):
    c, a = c.reshape(-1, 3), a.reshape(-1, 3)
    S, R = form.S, form.R
    return np.concatenate([c[S, 0], c[R, 0], np.linalg.norm(a[R, 1:], axis=1), c[R, 1], c[R, 2], a[R, 1], a[R, 2]])


@pytest.mark.parametrize("mu", [0.1, 0.4])
def test_cone_solution_solves_the_mixed_ncp(mu):
    """The semismooth Newton answer of the Coulomb-cone problem is a zero of F, G of eqs. (32)-(36)."""
    cd = puma3_grasp(mu, "rolling").system.dynamics()
    ref = solve_dynamic(cd, friction="cone", method="newton", tol=1e-12)
    assert ref.success
    form = buffo_mncp(cd)
    x = _x_from_forces(form, ref.c, ref.a) / form.x_unit  # the problem's dimensionless units
    assert form.problem.residual(x).value < 1e-10
    np.testing.assert_allclose(form.physical(x), _x_from_forces(form, ref.c, ref.a), rtol=1e-14)
    np.testing.assert_allclose(form.forces(x), ref.c, atol=1e-12)
    blk = form.unpack(x)
    if mu == 0.1:  # all three start sliding: s = 0 (on the cone), lambda = ||a_T|| > 0
        assert np.all(blk["lambda"] > 1e-3) and np.all(np.abs(blk["s"]) < 1e-8 * blk["c_Rn"].max() ** 2)
    else:  # all keep rolling: lambda = 0, strictly inside the cone
        assert np.all(blk["lambda"] < 1e-9) and np.all(blk["s"] > 0)


def test_sliding_state_gives_the_lcp_of_eq45_and_matches_lemke():
    cd = puma3_grasp(0.2, "sliding").system.dynamics()
    lcp = sliding_lcp(cd)
    assert isinstance(lcp, LCP) and lcp.n == 3
    # M = A_nn - A_nt V_t - A_no V_o (eq. (46)) with V from eq. (28)
    idx = np.arange(3) * 3
    V = np.zeros((9, 3))
    for j in range(3):
        e = cd.v_t[j] / np.linalg.norm(cd.v_t[j])
        V[3 * j, j] = 1.0
        V[3 * j + 1 : 3 * j + 3, j] = -cd.mu[j] * e
    np.testing.assert_allclose(lcp.M, (cd.A @ V)[idx], atol=1e-12)
    res = ccp.solve(lcp, "lemke")
    out = solve_dynamic(cd, friction="mncp", method="lemke")
    assert res.success and out.success
    np.testing.assert_allclose(out.c.reshape(3, 3)[:, 0], res.x, rtol=1e-10)
    assert out.max_violation < 1e-9


def test_sliding_lcp_refuses_rolling_contacts(rolling04):
    with pytest.raises(InvalidProblemError, match="sliding"):
        sliding_lcp(rolling04)


CASES = [(mu, "rolling") for mu in (0.1, 0.2, 0.4, 0.6, 0.8)] + [(mu, "sliding") for mu in (0.1, 0.2, 0.4, 0.5)]


@pytest.mark.parametrize("backend,restarts", [("trf", 0), ("lbfgsb", 5)])
@pytest.mark.parametrize("mu,state", CASES)
def test_merit_method_on_the_grasp_agrees_with_the_second_method(mu, state, backend, restarts):
    """Every case of the paper's Tables 1-4 from x0 = 0: the trust-region backend needs no restart;
    L-BFGS-B stops at a stationary point of the MNCP's merit function from x0 = 0 and needs one."""
    cd = puma3_grasp(mu, state).system.dynamics()
    out = solve_dynamic(cd, friction="mncp", method="merit", backend=backend, multistart=restarts)
    if backend == "trf":
        assert out.result.stats["starts"] == 1
    ref = solve_dynamic(cd, friction="cone", method="newton", tol=1e-12)
    assert out.success, out.result.message
    assert out.result.stats["final_f"] <= 1e-12
    # the grasp's equilibrium, Signorini and friction law, checked independently of the formulation
    assert out.max_violation < 1e-7
    np.testing.assert_allclose(out.c, ref.c, rtol=0, atol=1e-6 * np.abs(ref.c).max())
    assert [o.mode for o in out.contacts] == [o.mode for o in ref.contacts]


def test_mixed_state_merit_agrees_with_newton():
    cd = mixed_state()
    out = solve_dynamic(cd, friction="mncp", method="merit")
    ref = solve_dynamic(cd, friction="cone", method="newton", tol=1e-12)
    assert out.success and ref.success
    np.testing.assert_allclose(out.c, ref.c, atol=1e-6 * np.abs(ref.c).max())


def test_grasp_parameters_are_validated():
    with pytest.raises(InvalidProblemError, match="^r:"):
        GraspParameters(r=-0.1)
    with pytest.raises(InvalidProblemError, match="b_tilde"):
        GraspParameters(b_tilde=0.1)
    with pytest.raises(InvalidProblemError, match="cd"):
        buffo_mncp(np.eye(3))


def test_stationary_point_of_the_grasp_merit_is_not_reported_as_a_solution():
    """From x0 = 0 without restarts L-BFGS-B stops where the projected gradient vanishes but f > 0."""
    cd = puma3_grasp(0.1, "rolling").system.dynamics()
    out = solve_dynamic(cd, friction="mncp", method="merit", backend="lbfgsb", multistart=0)
    assert out.status is ccp.Status.STATIONARY_NOT_SOLUTION and not out.success
    assert out.result.stats["final_f"] > 1e-6
    assert out.result.residual.value > 1e-9


def test_cli_grasp_merit_json(capsys):
    import json

    from contactcp.cli import main

    assert main(["grasp", "puma3", "--mu", "0.1", "--state", "rolling", "--method", "merit", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "SOLVED" and d["method"] == "merit" and d["friction"] == "mncp"
    assert [c["transition"] for c in d["contacts"]] == ["rolling->sliding"] * 3
    assert all(len(c["c"]) == 3 and len(c["a"]) == 3 for c in d["contacts"])
    assert main(["grasp", "puma3", "--mu", "0.4", "--state", "sliding", "--method", "merit", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["success"] and [c["mode"] for c in d["contacts"]] == ["sliding"] * 3

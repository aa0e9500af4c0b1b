"""Planar quasistatic contact (Pang-Trinkle-Lo): model, UCP, the three methods, interpretation."""

import json

import numpy as np
import pytest

import contactcp as ccp
from contactcp import InvalidProblemError, Status
from contactcp.cli import main
from contactcp.formulations import quasistatic_ucp
from contactcp.models import PlanarQuasistaticProblem
from contactcp.scenarios.pang1994 import PAPER_VERDICT, data_set, random_problem
from contactcp.simulate.quasistatic import solve_quasistatic


def independent_check(m, x, y):
    """The test's own check of conditions (2)-(10) from the UCP pair (x, y)."""
    nc = m.n_c
    v_n, v_t = x[:nc], x[nc : 2 * nc] - x[2 * nc :]
    c_n = y[:nc]
    c_t = y[nc : 2 * nc] - m.mu * c_n
    J = np.vstack([m.J_n, m.J_t])
    a = m.alpha
    WT = np.vstack([m.W_n.T, m.W_t.T])
    # unknowns (qdot, theta_dot_abar) from [v_n; v_t] = W^T qdot - J theta_dot
    A = np.hstack([WT, -J[:, ~a]])
    rhs = np.concatenate([v_n, v_t]) + J[:, a] @ m.theta_dot[a]
    sol = np.linalg.lstsq(A, rhs, rcond=None)[0]
    worst = {
        "kinematics (4)-(5)": np.abs(A @ sol - rhs).max(),
        "equilibrium (2)": np.abs(m.W_n @ c_n + m.W_t @ c_t + m.g_obj).max(),
        "joints (3)": np.abs((m.J_n.T @ c_n + m.J_t.T @ c_t + m.gman_minus_tau)[~a]).max(initial=0),
        "v_n >= 0 (6)": max(0, -v_n.min()),
        "cone (7)": max(0, (np.abs(c_t) - m.mu * c_n).max()),
        "c_n v_n = 0 (8)-(9)": np.abs(c_n * v_n).max(),
        "sliding (10)": max(
            np.abs(np.maximum(v_t, 0) * (c_t + m.mu * c_n)).max(),
            np.abs(np.maximum(-v_t, 0) * (c_t - m.mu * c_n)).max(),
        ),
    }
    return max(worst.values()), worst


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_data_sets_verdicts_by_every_method(k):
    prob = data_set(k)
    ucp = quasistatic_ucp(prob)
    for method, opts in (("bilinear", {}), ("bilinear", {"variant": "modified"}), ("enumerate", {}), ("exact", {})):
        r = ccp.solve(ucp, method, **opts)
        if PAPER_VERDICT[k]:
            assert r.success, (method, r)
            worst, parts = independent_check(prob, r.x, r.w)
            assert worst < 1e-9, parts
        elif method == "bilinear":
            assert r.status is Status.STATIONARY_NOT_SOLUTION and r.stats["best_xy"] > 0.1
        else:
            assert r.status is Status.NO_SOLUTION and r.certificate.verified


def test_data_set_2_known_motion():
    out = solve_quasistatic(data_set(2), "enumerate")
    (s,) = out.solutions  # the only mode: both velocities and forces unique
    assert s.modes == ["sliding+", "sliding-", "sliding-"]
    assert s.extra["velocities_unique"] and s.extra["forces_unique"]
    np.testing.assert_allclose(s.c_n, [1.606428, 0.979527, 0.462270], atol=1e-6)
    np.testing.assert_allclose(s.v_t, [0.009252, -2.139233, -1.843444], atol=1e-6)
    # a small but genuine sliding speed is classified as sliding, not rolling
    assert 0 < s.v_t[0] < 0.01


def test_data_set_1_has_three_modes_and_exact_proof_for_4():
    out = solve_quasistatic(data_set(1), "enumerate")
    assert sorted(s.mode_codes for s in out.solutions) == ["R B S-", "S- R B", "S- S+ S-"]
    assert out.result.stats["candidates"] == 64
    four = solve_quasistatic(data_set(4), "exact")
    assert four.status is Status.NO_SOLUTION
    assert four.result.certificate.kind == "branch_and_bound"
    assert four.result.certificate.checks["unproven_leaves"] == 0


def test_object_resting_on_two_fingers_hand_solution():
    # gravity -1 along y; two stationary fingers under (-1, 0) and (1, 0), normals up
    prob = PlanarQuasistaticProblem.from_geometry(
        [[-1.0, 0.0], [1.0, 0.0]],
        [[0.0, 1.0], [0.0, 1.0]],
        mu=[0.5, 0.5],
        g_obj=[0.0, -1.0, 0.0],
        theta_dot=np.zeros(4),
    )
    for method in ("bilinear", "exact", "enumerate"):
        out = solve_quasistatic(prob, method)
        assert out.success
        s = out.solutions[0]
        np.testing.assert_allclose(s.c_n, [0.5, 0.5], atol=1e-12)
        np.testing.assert_allclose(s.qdot, 0.0, atol=1e-12)
        assert s.modes == ["rolling", "rolling"]
        assert abs(s.c_t[0] + s.c_t[1]) < 1e-12 and abs(s.c_t[0]) <= 0.25 + 1e-12
    out = solve_quasistatic(prob, "enumerate")
    assert [s.mode_codes for s in out.solutions] == ["R R"]
    assert not out.solutions[0].extra["forces_unique"]  # internal squeeze c_t1 = -c_t2 is free


def test_lifting_one_finger_tips_the_object():
    # finger 1 moves up with speed 1 under (-1, 0): the object must move
    prob = PlanarQuasistaticProblem.from_geometry(
        [[-1.0, 0.0], [1.0, 0.0]],
        [[0.0, 1.0], [0.0, 1.0]],
        mu=[0.5, 0.5],
        g_obj=[0.0, -1.0, 0.0],
        theta_dot=[1.0, 0.0, 0.0, 0.0],
    )
    out = solve_quasistatic(prob, "exact")
    assert out.success
    s = out.solutions[0]
    assert np.abs(s.qdot).max() > 0.1
    worst, parts = independent_check(prob, out.result.x, out.result.w)
    assert worst < 1e-9, parts


@pytest.mark.parametrize("seed", range(60))
def test_methods_agree_on_small_random_problems(seed):
    nc = [2, 3, 4][seed % 3]
    prob = random_problem(nc, [0.5, 1.0, 2.0][seed % 3], [0, 1, nc][seed % 3], seed=seed)
    ucp = quasistatic_ucp(prob)
    ex = ccp.solve(ucp, "exact")
    en = ccp.solve(ucp, "enumerate")
    bi = ccp.solve(ucp, "bilinear", variant="modified")
    assert ex.status in (Status.SOLVED, Status.NO_SOLUTION)
    assert ex.success == en.success
    assert not bi.success or ex.success
    for r in (ex, en, bi):
        if r.success:
            assert independent_check(prob, r.x, r.w)[0] < 1e-8
    if en.success:
        for s in en.stats["solutions"]:
            assert independent_check(prob, s["x"], s["y"])[0] < 1e-8


@pytest.mark.parametrize("seed", range(25))
def test_planted_solutions_are_never_declared_unsolvable(seed):
    nc = [3, 6, 12, 25, 40][seed % 5]
    prob = random_problem(nc, 1.0, [0, nc // 3][seed % 2], seed=1000 + seed, planted=True)
    out = solve_quasistatic(prob, "exact")
    assert out.success, out.result.message
    assert out.solutions[0].max_violation < 1e-8


def test_interpretation_modes_and_violations_are_scale_relative():
    prob = data_set(2)
    out = solve_quasistatic(prob, "exact")
    s = out.solutions[0]
    assert s.max_violation < 1e-12
    # scaling all velocities by 1e-6 must not change the modes
    slow = PlanarQuasistaticProblem(prob.W_n, prob.W_t, prob.J_n, prob.J_t, 1e-6 * prob.theta_dot, prob.mu, prob.g_obj)
    s2 = solve_quasistatic(slow, "exact").solutions[0]
    assert s2.modes == s.modes
    np.testing.assert_allclose(s2.v_t, 1e-6 * s.v_t, rtol=1e-6, atol=1e-15)


def test_svd_and_closed_form_Z_give_the_same_polyhedron():
    prob = data_set(1)
    a = quasistatic_ucp(prob, Z="closed_form")
    b = quasistatic_ucp(prob, Z="svd")
    assert a.z_method == "closed_form" and b.z_method == "svd" and b.rank_P == 3
    r = ccp.solve(a, "exact")
    # the same x satisfies the other description of X
    assert np.abs(b.A_x @ r.x - b.b_x).max() < 1e-9


def test_effort_controlled_joints_and_rank_report():
    prob = random_problem(6, 1.0, 3, seed=4, planted=True)
    assert prob.abar.size == 3
    ucp = quasistatic_ucp(prob)
    assert ucp.rank_P == prob.P.shape[1]
    out = solve_quasistatic(prob, "exact")
    assert out.success
    s = out.solutions[0]
    # the recovered velocities of the effort-controlled joints reproduce the contact velocities
    assert s.violations["(4) normal velocity"] < 1e-9 and s.violations["(3) joint equilibrium"] < 1e-9


@pytest.mark.parametrize(
    "kwargs, field, msg",
    [
        (dict(mu=[-0.1, 0.5, 0.3]), "mu[0]", ">= 0"),
        (dict(d=[1, 0, 0, 0, -1, 0]), "d", "must be zero"),
        (dict(d=[0, 0, 0, 0, -1]), "d", "length 6"),
        (dict(alpha=[7]), "alpha", "0..5"),
        (dict(theta_dot=[0.1, 0.2]), "theta_dot", "length n_theta = 6"),
        (dict(P=np.zeros((5, 3))), "P", "shape"),
    ],
)
def test_invalid_paper_data(kwargs, field, msg):
    from contactcp.scenarios.pang1994 import _D, _J_N, _J_T, DATA

    P, td, mu = DATA[1]
    args = dict(P=P, J_n=_J_N, J_t=_J_T, theta_dot=td, d=_D, mu=mu)
    args.update(kwargs)
    with pytest.raises(InvalidProblemError, match=msg) as exc:
        PlanarQuasistaticProblem.from_paper(**args)
    assert exc.value.field == field


def test_invalid_geometry():
    with pytest.raises(InvalidProblemError, match="normals\\[1\\]: must be a unit vector"):
        PlanarQuasistaticProblem.from_geometry(
            [[0, 0], [1, 0]], [[0, 1], [0, 2]], [0.5, 0.5], [0, -1, 0], theta_dot=np.zeros(4)
        )
    with pytest.raises(InvalidProblemError, match="tau"):
        PlanarQuasistaticProblem.from_geometry([[0, 0]], [[0, 1]], [0.5], [0, -1, 0], theta_dot=np.zeros(2), alpha=[0])
    with pytest.raises(InvalidProblemError, match="P: columns after W"):
        from contactcp.scenarios.pang1994 import _D, _J_N, _J_T, DATA

        P = np.hstack([np.array(DATA[1][0]), np.ones((6, 1))])
        PlanarQuasistaticProblem.from_paper(P, _J_N, _J_T, DATA[1][1], _D + [0.0], DATA[1][2], alpha=[0, 1, 2, 3, 4])


def test_cli_quasistatic_json(tmp_path, capsys):
    assert main(["quasistatic", "--dataset", "2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "SOLVED" and d["method"] == "bilinear"
    assert {"pairs", "lps", "best_xy"} <= set(d)
    (sol,) = d["solutions"]
    assert {"modes", "c_n", "c_t", "v_n", "v_t", "qdot", "max_violation"} <= set(sol)
    assert sol["modes"] == ["sliding+", "sliding-", "sliding-"]
    f = tmp_path / "p.json"
    f.write_text(json.dumps(data_set(4).to_dict()))
    assert main(["quasistatic", str(f), "--method", "exact", "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "NO_SOLUTION" and d["solutions"] == [] and d["certificate"]["verified"]
    assert main(["quasistatic", "--dataset", "1", str(f)]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**data_set(1).to_dict(), "mu": [0.5, -1, 0.3]}))
    assert main(["quasistatic", str(bad)]) == 2
    assert "mu[1]" in capsys.readouterr().err


def test_revolute_chain_jacobian_matches_finite_differences():
    from contactcp.models import revolute_chain_jacobian

    base, L, q = np.array([0.2, -0.1]), np.array([0.5, 0.4, 0.3]), np.array([0.3, -0.7, 0.4])
    link, s = 2, 0.6  # material point 60 % along link 2

    def point(angles):
        p, phi = base.copy(), 0.0
        for j in range(link + 1):
            phi += angles[j]
            p = p + (L[j] * (s if j == link else 1.0)) * np.array([np.cos(phi), np.sin(phi)])
        return p

    n = np.array([np.cos(1.1), np.sin(1.1)])
    jn, jt = revolute_chain_jacobian(base, L, q, link, point(q), n)
    t = np.array([-n[1], n[0]])
    h = 1e-7
    for j in range(3):
        dq = np.zeros(3)
        dq[j] = h
        dp = (point(q + dq) - point(q - dq)) / (2 * h)
        assert abs(jn[j] - n @ dp) < 1e-7 and abs(jt[j] - t @ dp) < 1e-7


def test_two_link_chains_holding_a_disc():
    # a disc pinched by two 2-link planar fingers, joints velocity controlled at rest: equilibrium with gravity
    from contactcp.models import revolute_chain_jacobian

    pts = np.array([[-0.5, 0.0], [0.5, 0.0]])
    nrm = np.array([[1.0, 0.0], [-1.0, 0.0]])
    rows_n, rows_t = [], []
    for i, (base, sgn) in enumerate((([-1.3, -0.4], 1.0), ([1.3, -0.4], -1.0))):
        L = np.array([0.5, 0.5])
        # choose angles so the tip of link 1 reaches the contact point
        d = pts[i] - np.array(base)
        c2 = (d @ d - 0.5) / 0.5
        q2 = -sgn * np.arccos(np.clip(c2, -1, 1))
        q1 = np.arctan2(d[1], d[0]) - np.arctan2(0.5 * np.sin(q2), 0.5 + 0.5 * np.cos(q2))
        jn, jt = revolute_chain_jacobian(base, L, [q1, q2], 1, pts[i], nrm[i])
        z = np.zeros(2)
        rows_n.append(np.concatenate([jn, z] if i == 0 else [z, jn]))
        rows_t.append(np.concatenate([jt, z] if i == 0 else [z, jt]))
    prob = PlanarQuasistaticProblem.from_geometry(
        pts, nrm, [0.8, 0.8], [0.0, -1.0, 0.0], J_n=np.array(rows_n), J_t=np.array(rows_t), theta_dot=np.zeros(4)
    )
    out = solve_quasistatic(prob, "exact")
    assert out.success
    s = out.solutions[0]
    # friction carries the weight: c_t sums to 1 along +y; both contacts loaded, object at rest
    assert s.modes == ["rolling", "rolling"] and s.loaded.all()
    np.testing.assert_allclose(s.qdot, 0.0, atol=1e-12)
    assert np.all(np.abs(s.c_t) <= 0.8 * s.c_n + 1e-12)
    assert s.max_violation < 1e-12


@pytest.mark.parametrize("method", ["bilinear", "enumerate", "exact"])
def test_single_contact_with_an_inconsistent_dependent_row_is_proved_empty(method):
    """n_c = 1: C has more rows than columns; a dropped dependent row that contradicts the kept
    ones makes Y empty, and the Farkas vector (on the caller's rows) proves it."""
    p = PlanarQuasistaticProblem.from_geometry([[0.5, -1]], [[0, 1]], [0.5], [0, -1, 0], theta_dot=[0.1, 0])
    out = solve_quasistatic(p, method=method)
    assert out.status is Status.NO_SOLUTION
    cert = out.result.certificate
    assert cert.verified and "Y is empty" in cert.description
    u = ccp.solve(ccp.UCP([[1, 1]], [1], [[1, 1], [2, 2]], [1, 3]), method)
    assert u.status is Status.NO_SOLUTION and u.certificate.verified
    # the test's own check on the caller's rows: A^T v >= 0 and b^T v < 0 (v over both rows of A_y)
    v = u.certificate.vector
    assert v.shape == (2,) and np.all(np.array([[1, 1], [2, 2]]).T @ v >= -1e-12) and np.array([1, 3]) @ v < 0


def test_rank_deficiency_is_reported_not_dropped():
    """n_c = 1 with two finger joints: P (2 x 3) has rank 2 < 3, C a dependent row; both are said."""
    p = PlanarQuasistaticProblem.from_geometry([[0.5, -1]], [[0, 1]], [0.5], [0, -1, 0], theta_dot=[0.1, 0])
    out = solve_quasistatic(p, "exact")
    notes = out.to_dict()["rank_notes"]
    assert len(notes) == 2 and notes[0].startswith("P has rank 2 < 3") and notes[1].startswith("C has rank 3 < 4")
    assert "note: P has rank 2" in out.summary()
    assert solve_quasistatic(data_set(2), "exact").to_dict()["rank_notes"] == []

"""Yashima & Yamaguchi: decomposition LCPs, determinacy verdicts, transitions, the hand and its maps."""

import json
from dataclasses import replace

import numpy as np
import pytest

from contactcp.analysis.determinacy import VERDICTS, analyse
from contactcp.analysis.modemap import MODE_CLASSES, MODE_NAMES
from contactcp.cli import main
from contactcp.errors import InvalidProblemError
from contactcp.formulations.decomposition import combination_lcp, n_combinations, sign_combinations
from contactcp.linalg.pmatrix import PMatrixVerdict
from contactcp.models import Contact, MultibodySystem, RigidBody
from contactcp.scenarios.random_dynamic import random_system
from contactcp.scenarios.yashima import (
    HandParameters,
    hand_geometry,
    hand_map,
    hand_model,
    hand_states,
    two_finger_hand,
)
from contactcp.simulate.instant import solve_dynamic

G = 9.81


def block(push: float, lift: float = 0.0, mu: float = 0.5, m: float = 2.0):
    """A planar block on the ground, contact under its centre of mass, pushed along x and pulled up."""
    body = RigidBody(mass=m, inertia=1.0, wrench=[push, lift, 0, 0, 0, 0], gravity=[0, -G, 0])
    return MultibodySystem([body], [Contact(0, [0, 0, 0], [0, 1, 0], mu, tangent=[1, 0, 0])], planar=True)


# --------------------------------------------------------------- hand-checked single contacts
def test_block_below_friction_limit_keeps_rolling():
    out = analyse(block(push=3.0))  # mu m g = 9.81 > 3
    assert out.verdict == "determinate" and out.modes == ["rolling"] and out.codes == ["a1"]
    np.testing.assert_allclose(out.c, [2 * G, -3.0], atol=1e-9)
    np.testing.assert_allclose(out.accelerations[:2], [0.0, 0.0], atol=1e-9)
    assert out.feasible_combinations == 1 and out.p_matrix is True


def test_block_above_friction_limit_starts_sliding():
    out = analyse(block(push=15.0))
    assert out.verdict == "determinate" and out.modes == ["sliding"] and out.codes == ["a2"]
    np.testing.assert_allclose(out.c, [2 * G, -0.5 * 2 * G], atol=1e-9)  # friction mu c_n against a_t
    np.testing.assert_allclose(out.accelerations[0], (15.0 - G) / 2.0, atol=1e-9)
    assert out.combination == "+"  # a_t = +alpha


def test_block_at_rest_without_push_is_one_solution():
    """Zero friction lies on both sign sets: two combinations, one physical solution (a = 0 is
    compared on the data's scale, not on its round-off)."""
    out = analyse(block(push=0.0))
    assert out.verdict == "determinate" and out.modes == ["rolling"] and out.codes == ["a1"]
    assert out.feasible_combinations == 2 and out.p_matrix is True
    np.testing.assert_allclose(out.c, [2 * G, 0.0], atol=1e-9)
    np.testing.assert_allclose(out.accelerations[:2], [0.0, 0.0], atol=1e-12)


def test_block_pulled_up_breaks_contact():
    out = analyse(block(push=1.0, lift=30.0))
    assert out.verdict == "determinate" and out.modes == ["breaking"] and out.codes == ["a3"]
    np.testing.assert_allclose(out.c, [0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(out.accelerations[:2], [0.5, (30.0 - 2 * G) / 2.0], atol=1e-9)


def test_sliding_contact_transitions_b1_b2():
    sys_ = block(push=0.0)
    sys_.contacts[0] = replace(sys_.contacts[0], state="sliding", v_t=np.array([1.0]))
    out = analyse(sys_)
    assert out.codes == ["b1"] and out.modes == ["sliding"]
    np.testing.assert_allclose(out.accelerations[0], -0.5 * G, atol=1e-9)
    up = block(push=0.0, lift=40.0)
    up.contacts[0] = replace(up.contacts[0], state="sliding", v_t=np.array([1.0]))
    assert analyse(up).codes == ["b2"]


def test_painleve_like_sliding_contact_is_not_determinate():
    """A sliding contact with a negative friction-modified normal compliance: several or no solutions."""
    rod = RigidBody(mass=1.0, inertia=0.02, gravity=[0, -G, 0])
    c = Contact(0, [-0.5, -0.3, 0], [0, 1, 0], 3.0, state="sliding", v_t=np.array([1.0]))
    out = analyse(MultibodySystem([rod], [c], planar=True))
    comb = combination_lcp(out.dynamics, np.zeros((0, 1)))
    assert comb.A[0, 0] == pytest.approx(-9.0) and comb.b[0] == pytest.approx(-G)  # 1/m + 1/I (r_t^2 - mu r_n r_t) < 0
    assert out.verdict == "none" and not out.determinate and out.distinct_solutions == 0
    assert out.combinations[0].p_matrix.is_p is False and out.combinations[0].complete
    # pushed up instead (b > 0): two solutions, lift-off and a large impulsive-like force
    rod2 = RigidBody(mass=1.0, inertia=0.02, wrench=[0, 2 * G, 0, 0, 0, 0], gravity=[0, 0, 0])
    two = analyse(MultibodySystem([rod2], [c], planar=True))
    assert two.verdict == "several" and two.distinct_solutions == 2


# --------------------------------------------------------------- decomposition LCPs
def test_combination_count_and_signs():
    cd = two_finger_hand(0.4, 3, 3).system.dynamics()
    assert n_combinations(cd) == 4 and len(list(sign_combinations(cd))) == 4
    cd3 = random_system(2, seed=0).dynamics()
    assert n_combinations(cd3) == 4 ** int((~cd3.sliding).sum())
    from contactcp.scenarios.buffo2006 import puma3_grasp

    assert n_combinations(puma3_grasp(0.4, "rolling").system.dynamics()) == 64


def test_combination_lcp_reproduces_the_system_map():
    """w = P a and c = T y: A_Pi y + b_Pi must equal P (A T y + b) for any y."""
    cd = random_system(3, seed=2).dynamics()
    rng = np.random.default_rng(0)
    for s in list(sign_combinations(cd))[:5]:
        comb = combination_lcp(cd, s)
        y = rng.random(comb.b.size)
        np.testing.assert_allclose(comb.A @ y + comb.b, comb.P @ (cd.A @ comb.T @ y + cd.b), atol=1e-10)
        # friction of a rolling contact: f = -sigma (mu f_N - Delta)
        j = 0
        fN, D = y[comb.normal[j]], y[comb.delta[0, 0]]
        assert (comb.T @ y)[1] == pytest.approx(-s[0, 0] * (cd.mu[j] * fN - D))


@pytest.mark.parametrize("seed", range(6))
def test_determinate_states_agree_with_the_pyramid_lcp(seed):
    """All contacts rolling (a sliding contact's friction follows the cone direction, eq. (5), here and the
    pyramid's vertex in the pyramid LCP, so only rolling states are the same model)."""
    sys_ = random_system(2, seed=seed)
    sys_.contacts = [replace(c, state="rolling", v_t=None) for c in sys_.contacts]
    cd = sys_.dynamics()
    out = analyse(cd)
    ref = solve_dynamic(cd, friction="pyramid")
    assert ref.success
    assert out.determinate  # these seeds: A_Pi with positive definite symmetric part
    np.testing.assert_allclose(out.c, ref.c, atol=1e-7 * max(1.0, np.abs(ref.c).max()))
    assert out.modes == [o.mode for o in ref.contacts]
    assert out.max_violation < 1e-8


@pytest.mark.parametrize("mu,t1,t2", [(0.2, 5, 5), (0.2, 1, 1), (0.4, 0, 10), (0.2, 8, 2), (0.4, 2, 7)])
def test_hand_states_agree_with_the_pyramid_lcp(mu, t1, t2):
    hand = two_finger_hand(mu, t1, t2)
    out = analyse(hand.system)
    ref = solve_dynamic(hand.system, friction="pyramid")
    assert out.determinate and ref.success
    np.testing.assert_allclose(out.c, ref.c, atol=1e-8 * np.abs(ref.c).max())
    assert out.modes == [o.mode for o in ref.contacts]


# --------------------------------------------------------------- the hand
def test_hand_geometry_contacts_lie_on_the_second_links_symmetrically():
    h = two_finger_hand(0.4, 1.0, 1.0)
    p = h.params
    for j, arm in enumerate(h.system.arms):
        m = arm.manipulator
        elbow = m.link_pose(arm.q, 0)[:2, 3]
        tip = m.point_position(arm.q, -1)[:2]
        np.testing.assert_allclose(elbow, h.elbows[j], atol=1e-12)
        along = (h.contacts[j] - elbow) @ (tip - elbow) / p.link_length
        assert 0 < along < p.link_length
        np.testing.assert_allclose(along, p.s, atol=1e-12)
        # the link is tangent to the ellipse: the normal is orthogonal to the link
        assert abs(h.normals[j] @ (tip - elbow)) < 1e-12
    np.testing.assert_allclose(h.contacts[0] * [-1, 1], h.contacts[1], atol=1e-15)
    assert h.center[0] == 0.0
    a, b = p.major_axis / 2, p.minor_axis / 2
    rel = h.contacts - h.center
    np.testing.assert_allclose((rel[:, 0] / a) ** 2 + (rel[:, 1] / b) ** 2, 1.0, atol=1e-12)


def test_hand_is_symmetric_under_swapping_the_torques():
    s1 = analyse(two_finger_hand(0.3, 2.0, 6.0).system)
    s2 = analyse(two_finger_hand(0.3, 6.0, 2.0).system)
    assert s1.modes == s2.modes[::-1]
    a1, a2 = s1.accelerations[:3], s2.accelerations[:3]
    np.testing.assert_allclose([a1[0], a1[1], a1[2]], [-a2[0], a2[1], -a2[2]], atol=1e-9)


def test_map_is_symmetric_and_matches_one_state_analysis():
    t = np.linspace(0.0, 10.0, 9)
    tab = hand_map(0.2, t, t, workers=1, progress=False)
    cls = tab.grid("cls")
    swap = np.array([0, 2, 1, 3, 4, 5])
    np.testing.assert_array_equal(cls, swap[cls.T])
    assert {MODE_CLASSES[k] for k in np.unique(cls)} >= {"RR", "RS", "SR", "SS", "breaking"}
    for k in range(0, len(tab), 5):
        one = analyse(two_finger_hand(0.2, float(tab["tau1"][k]), float(tab["tau2"][k])).system)
        assert one.verdict == VERDICTS[int(tab["verdict"][k])]
        assert [MODE_NAMES.index(m) for m in one.modes] == [int(tab["mode1"][k]), int(tab["mode2"][k])]
        assert one.accelerations[1] == pytest.approx(tab["a_z"][k], abs=1e-9)


def test_map_enumeration_path_agrees_with_the_lemke_path():
    m = hand_model(0.4)
    forced = replace(m, pv=[PMatrixVerdict(False, "forced for the test", "") for _ in m.pv])
    t1 = np.array([0.0, 2.0, 5.0, 9.0, 1.0])
    t2 = np.array([0.0, 7.0, 5.0, 1.0, 1.0])
    a = hand_states(t1, t2, mu=0.4)
    b = hand_states(t1, t2, mu=0.4, model=forced)
    np.testing.assert_array_equal(a["n_distinct"], b["n_distinct"])
    np.testing.assert_array_equal([a["mode1"], a["mode2"]], [b["mode1"], b["mode2"]])
    np.testing.assert_allclose(a["a_z"], b["a_z"], atol=1e-9)
    assert np.all(b["verdict"] == VERDICTS.index("not-P"))  # forced non-P: unique but not certified unique


def _exact_is_p(A):
    """All principal minors positive, by Fraction elimination (independent of contactcp)."""
    import itertools
    from fractions import Fraction

    def det(M):
        M = [[Fraction(float(x)) for x in row] for row in M]
        n, d = len(M), Fraction(1)
        for c in range(n):
            p = next((r for r in range(c, n) if M[r][c] != 0), None)
            if p is None:
                return Fraction(0)
            if p != c:
                M[c], M[p], d = M[p], M[c], -d
            d *= M[c][c]
            for r in range(c + 1, n):
                f = M[r][c] / M[c][c]
                M[r] = [a - f * b for a, b in zip(M[r], M[c])]
        return d

    n = A.shape[0]
    return all(det(A[np.ix_(S, S)]) > 0 for k in range(1, n + 1) for S in itertools.combinations(range(n), k))


@pytest.mark.parametrize("system", ["hand-0.2", "hand-100", "two-contacts", "random-0", "random-3"])
def test_determinacy_p_verdicts_are_exact(system):
    """Each combination's P verdict is the exact one for its A_Pi (no rounding decides a sign)."""
    if system.startswith("hand"):
        sys_ = two_finger_hand(float(system.split("-")[1]), 3.0, 6.0).system
    elif system == "two-contacts":  # rows that coincide: exactly singular minors
        body = RigidBody(mass=2.0, inertia=1.0, wrench=[3.0, -2 * G, 0, 0, 0, 0])
        sys_ = MultibodySystem(
            [body], [Contact(0, [x, 0, 0], [0, 1, 0], 0.5, tangent=[1, 0, 0]) for x in (-0.5, 0.5)], planar=True
        )
    else:
        sys_ = random_system(2, seed=int(system.split("-")[1]))
    out = analyse(sys_)
    for o in out.combinations:
        assert o.p_matrix.decided
        assert o.p_matrix.is_p is _exact_is_p(o.lcp.A), (o.label, o.p_matrix)
    if out.verdict == "determinate":
        assert out.p_matrix is True


def test_determinate_needs_a_p_margin(monkeypatch):
    """A P verdict by a margin below P_MARGIN does not make a state determinate (the matrix is
    computed from the model in floating point): undecided, in analyse and in the map alike."""
    import contactcp.analysis.determinacy as det

    out = analyse(block(push=3.0))
    assert out.verdict == "determinate" and out.p_matrix is True
    real = det.p_matrix_test
    for margin, verdict in ((1e-14, "undecided"), (None, "undecided"), (1e-3, "determinate")):
        monkeypatch.setattr(det, "p_matrix_test", lambda A, **kw: replace(real(A, **kw), margin=margin))
        out = analyse(block(push=3.0))
        assert out.verdict == verdict and out.p_matrix is True and out.distinct_solutions == 1
    monkeypatch.setattr(det, "p_matrix_test", real)
    m = hand_model(0.4)
    t1, t2 = np.array([0.0, 2.0, 5.0]), np.array([0.0, 7.0, 5.0])
    a = hand_states(t1, t2, mu=0.4)
    assert np.all(a["verdict"] == VERDICTS.index("determinate"))
    thin = replace(m, pv=[replace(v, margin=1e-14) for v in m.pv])
    b = hand_states(t1, t2, mu=0.4, model=thin)
    assert np.all(b["verdict"] == VERDICTS.index("undecided")) and np.all(b["p_matrix"] == -1)
    np.testing.assert_array_equal(a["n_distinct"], b["n_distinct"])
    for k in range(t1.size):  # the one-state algorithm agrees
        monkeypatch.setattr(det, "p_matrix_test", lambda A, **kw: replace(real(A, **kw), margin=1e-14))
        assert analyse(two_finger_hand(0.4, float(t1[k]), float(t2[k])).system).verdict == "undecided"


def test_rolling_region_grows_with_mu_and_az_turns_positive():
    t = np.linspace(0.0, 10.0, 11)
    rr = [int((hand_map(mu, t, t, workers=1, progress=False)["cls"] == 0).sum()) for mu in (0.2, 0.4)]
    assert rr[1] > rr[0] > 0
    d = np.linspace(0.0, 10.0, 41)
    st = hand_states(d, d, mu=0.4)
    assert st["a_z"][0] < 0 < st["a_z"][-1]


def test_invalid_hand_inputs():
    with pytest.raises(InvalidProblemError, match="mu"):
        two_finger_hand(-0.1)
    with pytest.raises(InvalidProblemError, match="tau1"):
        two_finger_hand(0.4, float("nan"), 1.0)
    with pytest.raises(InvalidProblemError, match="object_mass"):
        HandParameters(object_mass=0.0)
    with pytest.raises(InvalidProblemError, match="s"):
        HandParameters(s=0.5)
    with pytest.raises(InvalidProblemError, match="psi"):
        hand_geometry(HandParameters(psi=0.05, palm_length=1.5))


# --------------------------------------------------------------- CLI
def test_cli_hand2d_json(capsys):
    assert main(["hand2d", "--mu", "0.4", "--tau1", "5", "--tau2", "5", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "SOLVED" and d["success"] and d["determinate"]
    assert d["modes"] == ["rolling", "rolling"] and d["feasible_combinations"] == 1 and d["p_matrix"] is True
    assert d["transitions"] == ["unchanged", "unchanged"]
    assert len(d["object_acceleration"]) == 3 and d["object_acceleration"][1] > 0


def test_cli_hand2d_errors(capsys):
    assert main(["hand2d", "--tau1", "1"]) == 2
    assert "tau2" in capsys.readouterr().err
    assert main(["hand2d", "--mu", "-1", "--tau1", "1", "--tau2", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mu" in err


def test_cli_hand2d_map(capsys, tmp_path):
    out = tmp_path / "map.npz"
    assert main(["hand2d", "--map", "--resolution", "6", "--workers", "1", "--out", str(out), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert sum(d["classes"].values()) == 36 and out.exists()


# --------------------------------------------------------------- a single prismatic finger under a block
def finger_lift(tau: float, push: float = 0.0, mu: float = 0.5, mb: float = 2.0, mf: float = 0.5):
    """A block resting on a vertical prismatic finger (1 DOF along y, mass mf); the finger pushes up with tau."""
    from contactcp.models import Arm, Link, Manipulator

    base = np.eye(4)
    base[:3, :3] = [[1, 0, 0], [0, 0, 1], [0, -1, 0]]  # joint axis z -> world y
    finger = Manipulator.from_dh([[0.0, 0.0, 0.0, 0.0]], joint_types="P", masses=[mf], base=base, gravity=[0, -G, 0])
    body = RigidBody(mass=mb, inertia=1.0, p=[0, 0.1, 0], wrench=[push, 0, 0, 0, 0, 0], gravity=[0, -G, 0])
    contact = Contact(0, [0, 0, 0], [0, 1, 0], mu, other=Link(0, 0), tangent=[1, 0, 0])
    return MultibodySystem([body], [contact], [Arm(finger, [0.0], [0.0], [tau])], planar=True)


def test_single_finger_lifts_the_block_rolling():
    tau = 40.0
    out = analyse(finger_lift(tau))
    a = (tau - 2.5 * G) / 2.5  # block and finger move together
    assert out.determinate and out.modes == ["rolling"] and out.codes == ["a1"]
    np.testing.assert_allclose(out.accelerations[:2], [0.0, a], atol=1e-9)
    np.testing.assert_allclose(out.c, [2.0 * (G + a), 0.0], atol=1e-9)


def test_single_finger_onset_of_sliding():
    tau, push = 40.0, 30.0
    out = analyse(finger_lift(tau, push=push))
    a = (tau - 2.5 * G) / 2.5
    cn = 2.0 * (G + a)  # > push / mu? 2 (G + a) = 32 < 60: slides
    assert out.determinate and out.modes == ["sliding"] and out.codes == ["a2"]
    np.testing.assert_allclose(out.c, [cn, -0.5 * cn], atol=1e-9)
    np.testing.assert_allclose(out.accelerations[0], (push - 0.5 * cn) / 2.0, atol=1e-9)


def test_single_finger_pulled_away_breaks_contact():
    out = analyse(finger_lift(-5.0))  # the finger falls faster than g
    assert out.determinate and out.modes == ["breaking"] and out.codes == ["a3"]
    np.testing.assert_allclose(out.c, [0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(out.accelerations[:2], [0.0, -G], atol=1e-9)


def test_map_agrees_with_one_state_analysis_where_A_is_not_P():
    """At mu = 10 and 100 the combinations' matrices are not P: the map enumerates supports."""
    t1 = np.array([1.0, 3.0, 5.0, 8.0, 0.0, 10.0])
    t2 = np.array([1.0, 7.0, 5.0, 2.0, 10.0, 0.0])
    for mu in (10.0, 100.0):
        st = hand_states(t1, t2, mu=mu)
        assert np.any(st["verdict"] == VERDICTS.index("not-P"))
        for k in range(t1.size):
            one = analyse(two_finger_hand(mu, float(t1[k]), float(t2[k])).system)
            assert one.verdict == VERDICTS[int(st["verdict"][k])]
            assert (one.feasible_combinations, one.distinct_solutions) == (st["n_feasible"][k], st["n_distinct"][k])
            np.testing.assert_allclose(
                one.c, [st["c_n1"][k], st["c_t1"][k], st["c_n2"][k], st["c_t2"][k]], atol=1e-8 * np.abs(one.c).max()
            )
            assert st["max_violation"][k] < 1e-7


def test_uncertifiable_states_are_undecided_not_none():
    """mu = 1e12: the enumerated candidates are not certified LCP solutions, so no proof of 'none'."""
    out = analyse(two_finger_hand(1e12, 1.0, 1.0).system)
    assert out.verdict == "undecided" and not out.determinate


def test_indeterminate_friction_split_is_several():
    """A block on two ground contacts pushed below the friction limit: the friction split is not unique."""
    body = RigidBody(mass=2.0, inertia=1.0, wrench=[3.0, 0, 0, 0, 0, 0], gravity=[0, -G, 0])
    cs = [Contact(0, [x, 0, 0], [0, 1, 0], 0.5, tangent=[1, 0, 0]) for x in (-0.5, 0.5)]
    out = analyse(MultibodySystem([body], cs, planar=True))
    assert out.verdict == "several" and out.distinct_solutions >= 2 and not out.determinate
    assert all(not o.complete for o in out.combinations if o.feasible)  # singular blocks: a continuum


def test_sliding_contacts_in_space_are_checked_with_their_own_law():
    """Sliding friction follows the cone direction (eq. (5)); the independent check uses that law."""
    from contactcp.scenarios.buffo2006 import puma3_grasp

    out = analyse(puma3_grasp(0.4, "sliding").system)
    assert out.determinate and out.max_violation < 1e-10
    ref = solve_dynamic(puma3_grasp(0.4, "sliding").system, friction="cone")
    np.testing.assert_allclose(out.c, ref.c, atol=1e-8 * np.abs(ref.c).max())


def test_analyse_rejects_bad_options():
    from contactcp.errors import InvalidOptionError

    sys_ = block(push=1.0)
    for kw in ({"mode_tol": -1.0}, {"mode_tol": float("nan")}, {"max_combinations": "a"}, {"tol": 0}):
        with pytest.raises(InvalidOptionError):
            analyse(sys_, **kw)
    with pytest.raises(InvalidOptionError, match="system"):
        analyse("not a system")


def test_cli_hand2d_bad_outputs_fail_before_any_work(capsys, tmp_path):
    for argv in (
        ["--out", "/nonexistent/x.npz"],
        ["--picture", str(tmp_path / "x.jpgg")],
        ["--out", str(tmp_path / "x.txt")],
        ["--tau-min", "5", "--tau-max", "1"],
    ):
        assert main(["hand2d", "--map", "--resolution", "4", "--workers", "1", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_hand2d_map_reports_verdicts(capsys):
    assert main(["hand2d", "--map", "--mu", "100", "--resolution", "3", "--workers", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["verdicts"]["not-P"] > 0 and d["classes"]["not determinate"] == d["verdicts"]["not-P"]
    assert d["success"] and d["verdicts"]["undecided"] == 0


def test_hand_inputs_are_validated_with_project_errors():
    with pytest.raises(InvalidProblemError, match="^psi:"):
        HandParameters(psi="a")
    with pytest.raises(InvalidProblemError, match="^object_mass:"):
        HandParameters(object_mass=True)
    with pytest.raises(InvalidProblemError, match="^bogus:"):
        two_finger_hand(0.4, bogus=1)
    with pytest.raises(InvalidProblemError, match="^params:"):
        two_finger_hand(0.4, params={})
    assert two_finger_hand(0.4, np.int64(3), np.float32(1.0)).tau == (3.0, 1.0)
    with pytest.raises(InvalidProblemError, match="^tau2:"):
        hand_states([1.0, 2.0], [1.0], mu=0.4)
    with pytest.raises(InvalidProblemError, match="^mu:"):
        hand_map("abc", [1.0], [1.0], workers=1, progress=False)

"""The MILP search (``method="milp"``) and the box polish it rests on.

Every answer is held to this file's own exact checks (tests/support/oracles.py): problems with a
planted integer solution on indefinite and negative semidefinite matrices (where Lemke can end on
a ray), box and mixed problems, data scaled by powers of two far apart (exact, so the planted
solution stays exact), and infeasible problems, on which the method must not claim anything.
"""

import highspy
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contactcp as ccp
from contactcp import Status
from contactcp.linalg.lp import Polyhedron
from contactcp.solvers.lcp.milp import equilibrate_pow2
from contactcp.solvers.lcp.polish import box_candidates, exact_box_point
from support.oracles import box_violation, lcp_residual
from support.paths import DATA

TOL = 1e-9

# A planted box LCP from the fuzz (BoxLCP:integer:36): a negative definite M and mixed bounds, on
# which Lemke ends on a ray; z* = (1, 5, 0, -3, 6, -1, 0, 0, 2) with w* = (-8, 0, -6, 0, 0, 0, 11, 14, 4).
M_NSD = np.array(
    [
        [-40125, 7836, 13987, 1533, 3743, -17415, 3538, -7844, -17168],
        [7836, -28208, -7716, 10388, -10309, 3442, 2997, -11538, -5961],
        [13987, -7716, -46649, 15118, -15886, 20129, -9332, -465, 8627],
        [1533, 10388, 15118, -27707, -9407, 5802, 12770, 8943, 898],
        [3743, -10309, -15886, -9407, -29755, 13507, 1228, -2722, -4606],
        [-17415, 3442, 20129, 5802, 13507, -29387, -3294, -3210, -11538],
        [3538, 2997, -9332, 12770, 1228, -3294, -19907, 570, 519],
        [-7844, -11538, -465, 8943, -2722, -3210, 570, -27493, -10893],
        [-17168, -5961, 8627, 898, -4606, -11538, 519, -10893, -36354],
    ],
    dtype=float,
)
Z_STAR = np.array([1, 5, 0, -3, 6, -1, 0, 0, 2], dtype=float)
W_STAR = np.array([-8, 0, -6, 0, 0, 0, 11, 14, 4], dtype=float)
LO = np.array([1, 3, 0, -3, -2, -1, 0, 0, 2], dtype=float)
HI = np.array([1, np.inf, 0, np.inf, 6, 5, np.inf, np.inf, 2], dtype=float)


def nsd_box():
    return ccp.BoxLCP(M_NSD, W_STAR - M_NSD @ Z_STAR, LO, HI)


def test_the_planted_box_problem_is_what_it_claims():
    p = nsd_box()
    assert box_violation(p.M, p.q, LO, HI, Z_STAR) == 0
    assert np.linalg.eigvalsh(M_NSD).max() < -1.0  # about -8, far beyond rounding (entries ~ 4e4)


def test_milp_solves_the_negative_definite_box_problem():
    p = nsd_box()
    r = ccp.solve(p, "milp")
    assert r.status is Status.SOLVED, r.message
    assert box_violation(p.M, p.q, LO, HI, r.x) <= TOL
    r = ccp.solve(p)  # the default chain: Lemke (which ends on a ray here), then the MILP
    assert r.status is Status.SOLVED
    assert box_violation(p.M, p.q, LO, HI, r.x) <= TOL
    steps = [(a["method"], a["status"]) for a in r.stats["chain"]]
    assert steps[-1] == ("milp", "SOLVED") or steps == [("lemke", "SOLVED")]  # Lemke's ray rests on floats


def test_milp_solves_the_bimatrix_game_lemke_cannot_start():
    with np.load(DATA / "lcp" / "lcp_CPS_3.npz") as f:
        M, q = np.array(f["M"], dtype=float), np.array(f["q"], dtype=float)
    r = ccp.solve(ccp.LCP(M, q), "milp")
    assert r.status is Status.SOLVED
    assert lcp_residual(M, q, r.x) <= TOL


def _planted_lcp(rng, n, kind, free=None):
    """``(M, q)`` with an integer solution ``z*`` (any sign on the ``free`` indices, where ``w* = 0``)."""
    free = np.zeros(n, dtype=bool) if free is None else free
    A = rng.integers(-9, 10, (n, n)).astype(float)
    M = {"indef": A, "nsd": -(A @ A.T), "zero_diag": A - np.diag(np.diag(A))}[kind]
    z = np.where(rng.random(n) < 0.5, rng.integers(1, 9, n), 0).astype(float)
    z[free] = rng.integers(-8, 9, int(free.sum()))
    w = np.where((z == 0) & ~free, rng.integers(0, 9, n), 0).astype(float)
    return M, w - M @ z


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 8),
    kind=st.sampled_from(["indef", "nsd", "zero_diag"]),
    free=st.booleans(),
)
def test_milp_solves_planted_problems_of_any_matrix(seed, n, kind, free):
    rng = np.random.default_rng(seed)
    mask = (rng.random(n) < 0.4) if free else np.zeros(n, dtype=bool)
    M, q = _planted_lcp(rng, n, kind, mask)
    p = ccp.MixedLCP(M, q, mask) if free else ccp.LCP(M, q)
    r = ccp.solve(p, "milp")
    assert r.status is Status.SOLVED, r.message
    assert lcp_residual(M, q, r.x, mask) <= TOL


@pytest.mark.parametrize("spread", [40, 400])
def test_milp_solves_problems_scaled_far_apart(spread):
    # rows and columns scaled by powers of two up to 2^spread: exact, so z* / c stays the exact solution
    rng = np.random.default_rng(7)
    n = 6
    M0, q0 = _planted_lcp(rng, n, "indef")
    r_exp = rng.integers(-spread, spread + 1, n)
    c_exp = rng.integers(-spread, spread + 1, n)
    M = np.ldexp(np.ldexp(M0, r_exp[:, None]), c_exp[None, :])
    q = np.ldexp(q0, r_exp)
    res = ccp.solve(ccp.LCP(M, q), "milp")
    assert res.status is Status.SOLVED, res.message
    assert lcp_residual(M, q, res.x) <= TOL


def test_equilibration_is_by_powers_of_two_and_balances_rows_and_columns():
    M = np.ldexp(np.array([[1.0, 3.0], [5.0, 7.0]]), np.array([[300, 300], [-200, -200]]))
    r, c = equilibrate_pow2(M)
    S = np.ldexp(np.ldexp(M, r[:, None]), c[None, :])
    assert np.array_equal(np.frexp(S)[0], np.frexp(M)[0])  # exact: only the exponents changed
    assert np.all(np.abs(S).max(axis=1) <= 8) and np.all(np.abs(S).max(axis=1) >= 0.125)


def test_milp_claims_nothing_on_an_infeasible_problem():
    # w_2 = z_1 - 1 >= 0 and w_3 = 1 - z_1 >= 0 force z_1 = 1, then w_1 = -z_2 - z_3 - 1e-4 < 0
    with np.load(DATA / "lcp" / "lcp_Pang_isolated_sol_perturbed.npz") as f:
        p = ccp.LCP(np.array(f["M"], dtype=float), np.array(f["q"], dtype=float))
    r = ccp.solve(p, "milp")
    assert r.status not in (Status.SOLVED, Status.NO_SOLUTION)
    assert r.certificate is None and "not a proof" in r.message


def test_milp_options_are_checked():
    p = nsd_box()
    with pytest.raises(ccp.InvalidOptionError, match="time_limit"):
        ccp.solve(p, "milp", time_limit=0.0)
    with pytest.raises(ccp.InvalidOptionError, match="max_supports"):
        ccp.solve(p, "milp", max_supports=0)
    r = ccp.solve(p, "milp", max_n=3)
    assert r.status is Status.NUMERICAL_FAILURE and "max_n" in r.message


def test_exact_box_point_on_the_right_and_a_wrong_support():
    p = nsd_box()
    at_lo = (Z_STAR == LO) & (W_STAR >= 0) | (LO == HI)
    at_hi = ~at_lo & (Z_STAR == HI)
    z = exact_box_point(p.M, p.q, LO, HI, at_lo, at_hi)
    assert z is not None and np.array_equal(z, Z_STAR)
    wrong = at_lo.copy()
    wrong[6] = False  # z_7 inside its box would need w_7 = 0: its row then asks z_7 < 0
    assert exact_box_point(p.M, p.q, LO, HI, wrong, at_hi) is None


def test_box_candidates_solve_the_right_support_to_the_last_bit():
    p = nsd_box()
    at_lo = (Z_STAR == LO) & (W_STAR >= 0) | (LO == HI)
    at_hi = ~at_lo & (Z_STAR == HI)
    first = next(box_candidates(p.M, p.q, LO, HI, at_lo, at_hi, np.zeros(9)))
    assert box_violation(p.M, p.q, LO, HI, first) <= 1e-15


# The solver's answer must not depend on what ran before it in the process.  HiGHS runs every
# instance on one global thread scheduler, made by the first run with that run's ``threads`` option,
# and refuses (at once, solving nothing) an instance that asks for another number: the MILP (one
# thread) then reported "no point within the big-M bounds" after any earlier LP of the package's
# Polyhedron (default threads, i.e. the machine's cores), e.g. after a quasistatic test.


def _fresh_highs_scheduler():
    """Forget the scheduler of the earlier tests, so that the next run makes its own."""
    highspy.Highs.resetGlobalScheduler(True)


def _other_highs_run(threads: int) -> None:
    """A HiGHS run by other code, with its own thread count, which makes the global scheduler."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", threads)
    h.addVar(0.0, 1.0)
    h.changeColCost(0, -1.0)
    assert h.run() == highspy.HighsStatus.kOk
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal


def _polyhedron_lp() -> None:
    """An LP of the package's Polyhedron (the first HiGHS run of the quasistatic methods)."""
    v = Polyhedron(np.array([[1.0, 1.0, -1.0]]), np.array([1.0])).minimize(np.array([1.0, 2.0, 0.0]))
    np.testing.assert_array_equal(v.x, [1.0, 0.0, 0.0])


_EARLIER_RUNS = {
    "polyhedron": _polyhedron_lp,
    "other_code_2_threads": lambda: _other_highs_run(2),  # the refusal on any machine, before the fix
    "other_code_default_threads": lambda: _other_highs_run(0),
}


@pytest.mark.parametrize("first", sorted(_EARLIER_RUNS))
def test_milp_answer_does_not_depend_on_an_earlier_highs_run(first):
    _fresh_highs_scheduler()
    _EARLIER_RUNS[first]()
    p = nsd_box()
    r = ccp.solve(p, "milp")
    assert r.status is Status.SOLVED, r.message
    assert box_violation(p.M, p.q, LO, HI, r.x) <= TOL
    _polyhedron_lp()  # and the package's LPs still run after the MILP


def test_quasistatic_solve_then_milp_in_one_process():
    """The order of tests that showed it: a quasistatic problem (its LPs), then the MILP."""
    from contactcp.scenarios.pang1994 import data_set
    from contactcp.simulate.quasistatic import solve_quasistatic

    _fresh_highs_scheduler()
    assert solve_quasistatic(data_set(2), "enumerate").solutions
    p = nsd_box()
    r = ccp.solve(p, "milp")
    assert r.status is Status.SOLVED, r.message
    assert box_violation(p.M, p.q, LO, HI, r.x) <= TOL

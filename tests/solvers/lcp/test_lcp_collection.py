"""Siconos' classic LCP collection (tests/data/lcp, see its README) against every LCP method.

The known answers are data below, established without the library's solvers deciding anything:
every solvable case has a witness support S (from a solver's final basis, or its support), and
``exact_witness`` solves ``M_SS z_S = -q_S`` in rational arithmetic on the floats as stored and
checks ``z >= 0``, ``w = M z + q >= 0`` and ``z_i w_i = 0`` exactly; the one infeasible case has a
Farkas vector derived by hand (``w_2 = z_1 - 1 >= 0`` and ``w_3 = 1 - z_1 >= 0`` force ``z_1 = 1``,
then ``w_1 = -z_2 - z_3 - 1e-4 < 0``: ``y = e_1`` has ``M^T y = (0, -1, -1) <= 0``, ``q^T y < 0``),
checked exactly too.  Every outcome of every method is then held to those answers: a SOLVED point
must pass this file's own rational check of ``w = M z + q``, a NO_SOLUTION must be about an
infeasible case and its Farkas vector must satisfy the inequalities exactly.
"""

from fractions import Fraction

import numpy as np
import pytest

import contactcp as ccp
from contactcp import Status
from support.paths import DATA as _DATA

DATA = _DATA / "lcp"

# case -> a witness support (indices i with z_i > 0 allowed; M_SS nonsingular)
SOLVABLE = {
    "CPS_1": [1],
    "CPS_2": [1, 2],
    "CPS_3": [0, 1, 2, 3],
    "CPS_4": [0, 1, 2, 3],
    "CPS_4bis": [0, 1, 2, 3],
    "CPS_5": [1],
    "Pang_isolated_sol": [0, 1],
    "deudeu": [0, 1],
    "deudeu_block": [0, 1],
    "enum_fails": [0, 1, 3, 4, 5, 6, 7],
    "exp_murty": [5],
    "exp_murty2": [5],
    "inf_sol_perturbed": [0, 2],
    "mmc": list(range(22)),
    "ortiz": [0, 2],
    "ortiz_block": [0, 2],
    "tobenna": [0, 1, 6, 10, 14, 16, 20, 24, 28, 30, 32, 33, 34, 35, 36, 37, 38, 39],
    "trivial": list(range(9)),
    "trivial_block": list(range(9)),
}
# case -> a Farkas vector y >= 0 with M^T y <= 0 and q^T y < 0
INFEASIBLE = {"Pang_isolated_sol_perturbed": [1, 0, 0]}

# Lemke's method with a covering vector cannot solve CPS_3 (see test_lemke_cannot_start_on_cps_3)
LEMKE_CANNOT = {"CPS_3"}

CASES = sorted(p.stem[len("lcp_") :] for p in DATA.glob("lcp_*.npz"))
METHODS = ccp.methods(ccp.LCP(np.eye(2), [-1.0, -1.0]))  # all that apply to some LCP
TAU = 1e-8  # this file's tolerance, each row measured against its own terms


def load(case):
    with np.load(DATA / f"lcp_{case}.npz") as f:
        return np.array(f["M"], dtype=float), np.array(f["q"], dtype=float)


def rational(a):
    return [Fraction(float(v)) for v in np.ravel(a)]


def exact_witness(M, q, support):
    """True if the support gives an exact solution: z_S from M_SS z_S = -q_S in rationals."""
    n = len(q)
    Mf = [rational(row) for row in M]
    qf = rational(q)
    S = list(support)
    T = [[Mf[i][j] for j in S] + [-qf[i]] for i in S]
    for c in range(len(S)):  # Gauss-Jordan, exact
        p = next(r for r in range(c, len(S)) if T[r][c] != 0)
        T[c], T[p] = T[p], T[c]
        for r in range(len(S)):
            if r != c and T[r][c] != 0:
                f = T[r][c] / T[c][c]
                T[r] = [a - f * b for a, b in zip(T[r], T[c])]
    z = [Fraction(0)] * n
    for k, i in enumerate(S):
        z[i] = T[k][-1] / T[k][k]
    w = [sum(Mf[i][j] * z[j] for j in range(n)) + qf[i] for i in range(n)]
    return all(v >= 0 for v in z) and all(v >= 0 for v in w) and all(a * b == 0 for a, b in zip(z, w))


def exact_farkas(M, q, y):
    """y >= 0, y != 0, M^T y <= 0 and q^T y < 0, in exact rational arithmetic on the floats given."""
    n = len(q)
    Mf = [rational(row) for row in M]
    qf = rational(q)
    yf = rational(y)
    return (
        len(yf) == n
        and all(v >= 0 for v in yf)
        and any(v > 0 for v in yf)
        and all(sum(Mf[i][j] * yf[i] for i in range(n)) <= 0 for j in range(n))
        and sum(a * b for a, b in zip(qf, yf)) < 0
    )


def point_violation(M, q, z):
    """The worst violation of an LCP point, with w = M z + q computed exactly: per row, w_i < 0 and the
    complementarity min(z_i / ||z||_inf, |w_i| / s_i) are measured against s_i = |q_i| + sum_j |M_ij z_j|
    (the size of the row's own terms); z_i < 0 against ||z||_inf."""
    n = len(q)
    Mf = [rational(row) for row in M]
    qf = rational(q)
    zf = rational(z)
    zs = max([abs(v) for v in zf] + [Fraction(1, 10**300)])
    worst = Fraction(0)
    for i in range(n):
        w = sum(Mf[i][j] * zf[j] for j in range(n)) + qf[i]
        s = abs(qf[i]) + sum(abs(Mf[i][j] * zf[j]) for j in range(n))
        s = s if s > 0 else Fraction(1)
        worst = max(worst, -zf[i] / zs, -w / s, min(zf[i] / zs, abs(w) / s))
    return float(worst)


def test_the_collection_is_complete():
    assert len(CASES) == 20
    assert set(CASES) == set(SOLVABLE) | set(INFEASIBLE)
    assert not set(SOLVABLE) & set(INFEASIBLE)
    assert {"lemke", "bpp", "enumerate", "interior-point", "pgs", "merit"} <= set(METHODS)


def test_the_checks_reject_wrong_answers():
    M, q = load("CPS_4")
    assert not exact_witness(M, q, [0, 1]) and not exact_witness(M, q, [1, 2, 3])
    z = ccp.solve(ccp.LCP(M, q), "enumerate").x
    assert point_violation(M, q, z) <= TAU
    for i in range(len(q)):
        bad = z.copy()
        bad[i] += 1e-6 * max(1.0, abs(z).max())
        assert point_violation(M, q, bad) > TAU
    M, q = load("Pang_isolated_sol_perturbed")
    assert not exact_farkas(M, q, [1, 1e-12, 0])  # M^T y gets a positive entry
    assert not exact_farkas(M, q, [0, 1, 1])  # q^T y = 0
    assert not exact_farkas(M, q, [1, 0])  # wrong length


@pytest.mark.parametrize("case", CASES)
def test_known_answer_holds_exactly(case):
    M, q = load(case)
    if case in SOLVABLE:
        assert exact_witness(M, q, SOLVABLE[case])
    else:
        assert exact_farkas(M, q, INFEASIBLE[case])
        assert not exact_witness(M, q, [])  # and q itself is not feasible (trivially)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", CASES)
def test_every_outcome_is_true(case, method):
    M, q = load(case)
    p = ccp.LCP(M, q)
    if method not in ccp.methods(p):
        pytest.skip(f"{method} is not listed for {case}")
    try:
        r = ccp.solve(p, method)
    except ccp.ContactCPError as exc:  # a listed method that refuses the problem (issue 11 item 7)
        pytest.skip(f"{method} refuses {case}: {exc}")
    if r.status is Status.SOLVED:
        assert case in SOLVABLE
        assert point_violation(M, q, r.x) <= TAU, (case, method)
    elif r.status is Status.NO_SOLUTION:
        assert case in INFEASIBLE, (case, method, r.message)
        cert = r.certificate
        assert cert is not None and cert.verified
        if cert.kind == "farkas":
            assert exact_farkas(M, q, cert.vector), (case, method, cert.vector)
        else:
            assert cert.kind == "enumeration" and method == "enumerate"
    else:
        assert not r.success and r.certificate is None


@pytest.mark.parametrize("case", CASES)
def test_lemke_solves_every_solvable_case(case):
    M, q = load(case)
    r = ccp.solve(ccp.LCP(M, q), "lemke")
    if case in INFEASIBLE:
        assert r.status is Status.NO_SOLUTION and exact_farkas(M, q, r.certificate.vector)
    elif case in LEMKE_CANNOT:
        assert r.status is Status.RAY_TERMINATION and "no conclusion" in r.message
    else:
        assert r.status is Status.SOLVED, (case, r.message)
        assert point_violation(M, q, r.x) <= TAU
        assert r.iterations <= 2 * len(q) + 100  # tobenna: 127 pivots (Siconos: 126)


def test_lemke_cannot_start_on_cps_3():
    # CPS_3 is a bimatrix game, M = [[0, A], [B, 0]] with A, B > 0 and q = -1. Whatever the positive
    # covering vector d, z0 enters in the row r of the smallest d_r, w_r leaves, and z_r enters with
    # the column -M[:, r] <= 0, whose entry in z0's row is -M[r, r] = 0: no pivot, a ray at once. The
    # ray proves nothing (the LCP is solvable), so restarts with other covering vectors cannot help.
    M, q = load("CPS_3")
    assert (M >= 0).all() and (np.diag(M) == 0).all() and (q < 0).all()
    p = ccp.LCP(M, q)
    for d in ([1, 1, 1, 1], [1, 2, 3, 4], [4, 3, 2, 1], [1.5, 0.5, 1, 2]):
        r = ccp.solve(p, "lemke", d=d, restarts=0)
        assert r.status is Status.RAY_TERMINATION and r.iterations == 1
    r = ccp.solve(p, "lemke", restarts=5)
    assert r.status is Status.RAY_TERMINATION and r.stats["restarts"] == 5


@pytest.mark.parametrize("case", CASES)
def test_default_solve_answers_every_case(case):
    # the default chain does not stop where one method has no conclusion (CPS_3: Lemke's ray)
    M, q = load(case)
    r = ccp.solve(ccp.LCP(M, q))
    if case in SOLVABLE:
        assert r.status is Status.SOLVED, (case, r.message)
        assert point_violation(M, q, r.x) <= TAU
    else:
        assert r.status is Status.NO_SOLUTION
        assert r.certificate.kind != "farkas" or exact_farkas(M, q, r.certificate.vector)

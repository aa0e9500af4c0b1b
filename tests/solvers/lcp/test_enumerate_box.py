"""The exact support enumeration of mixed and box LCPs (solvers/lcp/enumerate_box.py)."""

import math

import numpy as np
import pytest

import contactcp as ccp
from contactcp import Status
from contactcp.solvers.lcp.enumerate_box import box_states
from support.oracles import lcp_violation

# the fuzz's BoxLCP:huge:15 (columns scaled by 2^+-498): Lemke ends on a ray and the MILP's supports
# are wrong (after equilibration its entries span 1e-46 to 1, below HiGHS's tolerances)
_BOX_M = [
    [
        0.0,
        9.672075647495097e-27,
        7.646912176335533e-37,
        -3.529832740017357e-104,
        -5.122025615876109e-34,
        -1.5563769518003855e128,
        -1.2542754940354932e-129,
        -2.515672719256236e-72,
        -1.7850017661432796e60,
    ],
    [
        -1.2704309864542273e-133,
        0.0,
        -5.969396933371146e-39,
        -5.218163049241239e-107,
        -1.1420719699392886e-36,
        6.701441972361755e125,
        3.895142801786891e-132,
        -5.999370873050335e-75,
        8.631182502856468e57,
    ],
    [
        1.5782218420314033e-120,
        -1.7620879341290413e-17,
        0.0,
        -1.0781525744991792e-94,
        3.784159451457952e-24,
        2.786631527818954e137,
        -4.8570017541415815e-120,
        1.9176410338746434e-62,
        -7.327023708621115e69,
    ],
    [
        3.102399159925826e-134,
        -2.2839535502013623e-31,
        2.944767415970789e-41,
        0.0,
        5.2396903762524976e-39,
        -2.959510533127254e123,
        -8.71765346726766e-134,
        1.117233146979227e-76,
        -3.924297922819475e55,
    ],
    [
        -7.917024516789055e-131,
        -3.6808296059931076e-28,
        -6.919410029857084e-38,
        3.9068777450749787e-106,
        0.0,
        2.2141656514648883e126,
        -9.69862675771939e-131,
        -9.372401924416246e-74,
        5.459323802392121e58,
    ],
    [
        8.746210056654274e-127,
        -3.979771712403796e-24,
        2.3886339082296588e-33,
        5.380905797788118e-101,
        1.0869241428720104e-30,
        0.0,
        1.4845011141167146e-126,
        -8.602576761167762e-69,
        1.89629360295511e63,
    ],
    [
        4.826498947341575e-121,
        -1.1899859996857259e-17,
        -5.902540789751424e-27,
        -5.093494711771202e-95,
        3.1727354519264918e-24,
        -6.626462304390426e137,
        0.0,
        3.607644377075449e-62,
        8.05486328441543e69,
    ],
    [
        3.188019278167875e-136,
        -4.2574818469409643e-33,
        -5.717817747547249e-44,
        4.701207321188389e-111,
        -4.348495381508129e-40,
        4.468699728751687e121,
        8.367337746454943e-136,
        0.0,
        -6.017762221742739e53,
    ],
    [
        1.3392320072865487e-123,
        -5.21034863992558e-20,
        1.8646588906189864e-29,
        -3.3114398530916217e-97,
        -1.0649646872386948e-26,
        -1.0899420020982806e135,
        -1.0704323007869526e-122,
        -4.844759328999239e-65,
        0.0,
    ],
]
_BOX_Q = [
    0.0018724035735431244,
    -1.561972680974577e-06,
    -7528836.01171875,
    3.163295390906651e-08,
    2.1986393505812885e-05,
    0.38265355536714196,
    -5902199.5078125,
    -2.7449505277284125e-10,
    16298.449157714844,
]
_BOX_LO = [
    -6.610559687902486e122,
    2.9514790517935283e20,
    -1.1091942751997007e30,
    8.54394814368364e96,
    0.0,
    2.7516420536594796e-135,
    -math.inf,
    0.0,
    5.934729841099874e-67,
]
_BOX_HI = [
    1.3221119375804972e123,
    2.9514790517935283e20,
    math.inf,
    7.689553329315276e97,
    math.inf,
    math.inf,
    1.3221119375804972e123,
    math.inf,
    7.418412301374843e-67,
]


def test_box_states():
    lo = np.array([0.0, -np.inf, 1.0, -np.inf, 2.0])
    hi = np.array([np.inf, np.inf, 3.0, 5.0, 2.0])
    assert box_states(lo, hi) == [(-1, 0), (0,), (-1, 0, 1), (0, 1), (-1,)]


def test_enumeration_solves_a_box_lcp_floats_cannot_span():
    problem = ccp.BoxLCP(np.array(_BOX_M), np.array(_BOX_Q), np.array(_BOX_LO), np.array(_BOX_HI))
    res = ccp.solve(problem, method="enumerate")
    assert res.status is Status.SOLVED
    assert res.residual.value < 1e-15
    assert np.all(res.x >= np.array(_BOX_LO)) and np.all(res.x <= np.array(_BOX_HI))
    chain = ccp.solve(problem)
    assert chain.status is Status.SOLVED


def test_enumeration_of_a_mixed_lcp_agrees_with_the_oracle():
    # u = (z1, z2) >= 0 complementary to rows 1-2, v free with row 0 an equation
    M = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
    q = np.array([-2.0, 1.0, -4.0])
    problem = ccp.MixedLCP(M, q, free=[True, False, False])
    res = ccp.solve(problem, method="enumerate")
    assert res.status is Status.SOLVED
    x = res.x
    w = M @ x + q
    assert abs(w[0]) < 1e-15
    assert lcp_violation(M[1:, 1:], q[1:] + M[1:, 0] * x[0], x[1:]) < 1e-15


def test_too_many_supports_are_refused():
    n = 13  # 2^13 supports
    problem = ccp.MixedLCP(np.eye(n), -np.ones(n), free=[False] * n)
    assert "enumerate" not in ccp.methods(problem)
    res = ccp.solve(problem, method="enumerate", max_supports=100)
    assert res.status is Status.NUMERICAL_FAILURE
    with pytest.raises(ccp.InvalidOptionError):
        ccp.solve(problem, method="enumerate", max_supports=0)


def test_too_many_unknowns_are_refused():
    # 30 unknowns, 28 of them free: 4 supports, but each a rational elimination of 30 rows
    n = 30
    problem = ccp.MixedLCP(np.eye(n), -np.ones(n), free=[True] * (n - 2) + [False, False])
    assert "enumerate" not in ccp.methods(problem)
    assert ccp.solve(problem, method="enumerate").status is Status.NUMERICAL_FAILURE
    assert ccp.solve(problem, method="enumerate", max_n=30).status is Status.SOLVED


def test_support_rows_near_overflow_are_decided_exactly(monkeypatch):
    # terms near overflow have no valid float bound (affine_dot2's risky flag): the support's signs are
    # decided in rational arithmetic, never rejected on the float value
    import contactcp.solvers.lcp.enumerate as enum

    exact = []
    real = enum._exact_support_point
    monkeypatch.setattr(enum, "_exact_support_point", lambda *a: exact.append(1) or real(*a))
    M = np.array([[1.0, 0.0], [1e300, 1.0]])
    q = np.array([-1.0, -0.5e300])
    z = enum._support_point(M, q, [0], np.array([1.0, 0.0]), 0.0)
    assert exact == [1] and z is not None and float(z[0]) == 1.0  # w_1 = 0.5e300 >= 0: a solution
    assert enum._support_point(M, np.array([-1.0, -2e300]), [0], np.array([1.0, 0.0]), 0.0) is None
    assert exact == [1, 1]  # w_1 = -1e300 < 0, rejected exactly

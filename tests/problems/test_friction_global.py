"""The global friction-contact problem: validation, the local form, and its residual checked
against the tests' own measure."""

import numpy as np
import pytest
import scipy.sparse as sp

import contactcp as ccp
from contactcp.errors import InvalidProblemError
from contactcp.scenarios import piles
from support.oracles import coulomb_error, global_errors


def one_box(push=0.0):
    """A unit mass on the ground, one contact, velocity-level step h = 0.01 under gravity and a push."""
    M = np.eye(3)
    H = np.eye(3)  # u = v (normal z first): contact frame = (z, x, y) of the body
    f = 0.01 * np.array([-9.81, push, 0.0])
    return ccp.GlobalFrictionContactProblem(M, H, f, np.zeros(3), 0.5)


def test_sticking_box_has_the_weight_as_impulse():
    p = one_box(push=2.0)  # 2 N < mu m g = 4.905 N: sticks
    r = ccp.solve(p, tol=1e-10)
    assert r.success
    v, rr = p.split(r.x)
    np.testing.assert_allclose(rr, [0.0981, -0.02, 0.0], atol=1e-12)
    np.testing.assert_allclose(v, 0.0, atol=1e-12)
    np.testing.assert_allclose(r.w, 0.0, atol=1e-12)  # u = H^T v + w


def test_sliding_box_has_friction_at_the_cone_boundary():
    p = one_box(push=8.0)  # 8 N > 4.905 N: slides
    r = ccp.solve(p, tol=1e-10)
    v, rr = p.split(r.x)
    np.testing.assert_allclose(rr, [0.0981, -0.04905, 0.0], atol=1e-12)
    np.testing.assert_allclose(v, [0.0, 0.08 - 0.04905, 0.0], atol=1e-12)


def test_local_form_is_H_T_M_inv_H():
    p = piles.box_stack(3, 2, seed=4)
    L = p.local()
    Minv = np.linalg.inv(p.M.toarray())
    H = p.H.toarray()
    np.testing.assert_allclose(L.W.toarray(), H.T @ Minv @ H, rtol=1e-10, atol=1e-12 * np.abs(L.W).max())
    np.testing.assert_allclose(L.q, p.w + H.T @ Minv @ p.f, rtol=1e-10, atol=1e-14)
    assert sp.issparse(L.W)
    assert p.local() is L  # formed once


def test_the_solvers_local_form_is_dense_for_a_few_contacts_only():
    from contactcp.problems.friction_global import DENSE_LOCAL_UP_TO

    small = piles.box_stack(3, 2, seed=4)
    assert small.n_v * small.w.size <= DENSE_LOCAL_UP_TO
    D = small.local_for_solving()
    assert isinstance(D.W, np.ndarray) and small.local_for_solving() is D  # formed once
    L = small.local()
    np.testing.assert_allclose(D.W, L.W.toarray(), rtol=1e-12, atol=1e-14 * np.abs(D.W).max())
    np.testing.assert_array_equal(D.q, L.q)
    big = piles.box_stack(12, 3, seed=1)
    assert big.n_v * big.w.size > DENSE_LOCAL_UP_TO
    assert big.local_for_solving() is big.local() and sp.issparse(big.local().W)


def test_residual_agrees_with_the_tests_own_measure():
    p = piles.box_stack(4, 1, seed=2)
    res = ccp.solve(p, tol=1e-9)
    assert res.success
    v, r = p.split(res.x)
    eq, coul = global_errors(p.M, p.H, p.f, p.w, p.mu, v, r)
    assert eq <= 1e-12 and coul <= 1e-9
    assert res.residual.value >= coul * (1 - 1e-9)  # an upper bound of the measure
    # and the reactions solve the local form by the tests' own local measure
    L = p.local()
    assert coulomb_error(L.W.toarray(), L.q, L.mu, r) <= 1e-9


def test_equilibrium_violation_is_measured_row_by_row():
    p = one_box(push=2.0)
    x = ccp.solve(p, tol=1e-12).x.copy()
    x[1] += 1e-6  # v_x off by 1e-6 in a row whose terms |v_x| + |r_x| + |f_x| are 0.04
    assert p.residual(x).value == pytest.approx(1e-6 / (0.04 + 1e-6), rel=1e-6)
    assert p.residual(x).equation == pytest.approx(1e-6, rel=1e-6)


def test_homogeneous_data_far_out_of_range():
    big = one_box(push=2.0)
    p = ccp.GlobalFrictionContactProblem(big.M, big.H, big.f * 1e300, big.w, 0.5)
    r = ccp.solve(p, tol=1e-10)
    assert r.success
    np.testing.assert_allclose(p.split(r.x)[1], [0.0981e300, -0.02e300, 0.0], rtol=1e-12)


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"M": np.zeros((3, 3))}, "M"),
        ({"M": np.ones((3, 3))}, "M"),
        ({"M": np.eye(2)}, "H"),
        ({"H": np.eye(3)[:, :2]}, "H"),
        ({"f": np.zeros(2)}, "f"),
        ({"w": [0.0, np.nan, 0.0]}, "w"),
        ({"mu": -0.1}, "mu[0]"),
        ({"M": sp.csr_matrix(np.eye(3) * 1j)}, "M"),
        ({"dim": 4}, "dim"),
    ],
)
def test_bad_data_names_the_field(kw, field):
    args = {"M": np.eye(3), "H": np.eye(3), "f": np.zeros(3), "w": np.zeros(3), "mu": 0.5, "dim": 3}
    args.update(kw)
    with pytest.raises(InvalidProblemError) as e:
        ccp.GlobalFrictionContactProblem(**args)
    assert e.value.field == field


def test_compiled_coulomb_parts_match_the_numpy_reference():
    from contactcp.problems._coulomb import coulomb_parts
    from contactcp.problems.friction import _dual_cone_violation, cone_violation, desaxce, project_cones

    rng = np.random.default_rng(0)
    for d in (2, 3):
        for _ in range(50):
            n_c = int(rng.integers(1, 6))
            r, u = rng.standard_normal(d * n_c), rng.standard_normal(d * n_c)
            mu = rng.uniform(0.0, 1.5, n_c) * (rng.random(n_c) < 0.8)
            nat, cone, dual, comp, nr, nu = coulomb_parts(r, u, mu, d)
            uhat = desaxce(u, mu, d)
            assert nat == pytest.approx(np.linalg.norm(r - project_cones(r - uhat, mu, d)), rel=1e-12, abs=1e-15)
            assert cone == pytest.approx(cone_violation(r, mu, d), rel=1e-12, abs=1e-15)
            assert dual == pytest.approx(_dual_cone_violation(uhat, mu, d), rel=1e-12, abs=1e-15)
            assert comp == pytest.approx(abs(r @ uhat), rel=1e-9, abs=1e-12)
            assert (nr, nu) == pytest.approx((np.linalg.norm(r), np.linalg.norm(u)), rel=1e-12)


def test_compiled_global_residual_matches_a_numpy_evaluation():
    """The one-pass residual against the definition evaluated with numpy: the row-scaled equilibrium
    and the natural map over ||q||; the certified value bounds both from above, by rounding only."""
    from support.oracles import natural_map_norm

    rng = np.random.default_rng(5)
    for seed in range(4):
        p = piles.box_stack(3, 2, seed=seed)
        M, H = p.M.toarray(), p.H.toarray()
        x0 = ccp.solve(p, tol=1e-10).x
        for scale in (0.0, 1e-9, 1e-6, 1e-2):
            x = x0 + scale * np.abs(x0).max() * rng.standard_normal(x0.size)
            v, r = p.split(x)
            res = p.residual(x)
            e = M @ v - H @ r - p.f
            s = np.abs(M) @ np.abs(v) + np.abs(H) @ np.abs(r) + np.abs(p.f)
            eq = float(np.max(np.abs(e) / s))
            u = H.T @ v + p.w
            coul = natural_map_norm(u, r, p.mu, 3) / np.linalg.norm(p.q)
            worst = max(eq, coul)
            assert worst <= res.value <= worst * (1 + 1e-9) + 1e-13
            assert res.equation == pytest.approx(np.abs(e).max(), rel=1e-9, abs=1e-15)
            assert res.scale == pytest.approx(np.linalg.norm(p.q), rel=1e-12)
            np.testing.assert_allclose(p._certify(x, None)[1], u, rtol=1e-12, atol=1e-15)


def test_global_residual_of_non_finite_and_overflowing_points_is_infinite():
    p = one_box(push=2.0)
    x = ccp.solve(p, tol=1e-12).x
    for bad in (np.nan, np.inf):
        y = x.copy()
        y[4] = bad
        res, u = p._certify(y, None)
        assert res.value == np.inf and np.isnan(u).all()
    H = np.array([[1.5e308, 0.0, 0.0], [1.5e308, 1.0, 0.0], [0.0, 0.0, 1.0]])
    huge = ccp.GlobalFrictionContactProblem(np.eye(3), H, np.zeros(3), np.zeros(3), 0.5)
    res, u = huge._certify(np.array([0.9, 0.9, 0.0, 0.0, 0.0, 0.0]), None)  # u_0 = 2.7e308 overflows
    assert res.value == np.inf and u[0] == np.inf


def test_dense_data_convert_to_the_same_sparse_matrices_as_scipy():
    from contactcp.problems.friction_global import _sparse

    rng = np.random.default_rng(11)
    for shape in ((1, 1), (3, 5), (12, 7), (30, 30)):
        A = rng.standard_normal(shape) * (rng.random(shape) < 0.3)
        S = _sparse(A, "H")
        ref = sp.csr_matrix(A)
        np.testing.assert_array_equal(S.toarray(), A)
        np.testing.assert_array_equal(S.indptr, ref.indptr)
        np.testing.assert_array_equal(S.indices, ref.indices)
        np.testing.assert_array_equal(S.data, ref.data)
        assert not S.data.flags.writeable
    for bad in (np.nan, np.inf, -np.inf):
        A = np.eye(3)
        A[2, 1] = bad
        with pytest.raises(InvalidProblemError) as e:
            _sparse(A, "H")
        assert e.value.field == "H"


def test_problems_on_the_same_mass_matrix_share_its_factors():
    from contactcp.linalg.blockinv import BlockSolver

    p = piles.box_stack(3, 2, seed=4)
    twin = ccp.GlobalFrictionContactProblem(p.M.toarray(), p.H, p.f, p.w, p.mu)
    assert twin.solver is p.solver  # the same values: factored once
    M2 = p.M.toarray()
    M2[0, 0] *= 2.0
    other = ccp.GlobalFrictionContactProblem(M2, p.H, p.f, p.w, p.mu)
    assert other.solver is not p.solver
    x = np.random.default_rng(0).standard_normal(p.n_v)
    np.testing.assert_allclose(M2 @ other.solver.solve(x), x, rtol=1e-10, atol=1e-12)
    assert BlockSolver.of(p.M) is p.solver
    with pytest.raises(InvalidProblemError):  # a singular matrix is refused every time, not remembered
        ccp.GlobalFrictionContactProblem(np.zeros((3, 3)), np.eye(3), np.zeros(3), np.zeros(3), 0.5)
    with pytest.raises(InvalidProblemError):
        ccp.GlobalFrictionContactProblem(np.zeros((3, 3)), np.eye(3), np.zeros(3), np.zeros(3), 0.5)


def test_a_read_only_mass_matrix_is_converted_once_and_only_reused_when_equal():
    rng = np.random.default_rng(4)
    H = rng.normal(size=(6, 6))
    M1 = np.diag(rng.uniform(1, 2, size=6))
    M1.setflags(write=False)
    a = ccp.GlobalFrictionContactProblem(M1, H, np.zeros(6), np.ones(6), 0.3)
    same = M1.copy()
    same.setflags(write=False)
    b = ccp.GlobalFrictionContactProblem(same, H, np.zeros(6), np.ones(6), 0.3)
    assert b.M is a.M  # equal bit for bit: the kept CSR form
    M2 = M1.copy()
    M2[2, 2] += 1.0
    M2.setflags(write=False)
    c = ccp.GlobalFrictionContactProblem(M2, H, np.zeros(6), np.ones(6), 0.3)
    assert c.M is not a.M and np.array_equal(c.M.toarray(), M2)
    writeable = M2.copy()
    d = ccp.GlobalFrictionContactProblem(writeable, H, np.zeros(6), np.ones(6), 0.3)
    assert d.M is not c.M and np.array_equal(d.M.toarray(), M2)
    assert not d.M.data.flags.writeable


def test_the_shared_factors_keep_the_matrices_used_last():
    # the memo drops the least recently used matrix, not the first one stored: a matrix asked again
    # stays however many others come after it was first factored (found when the test above ran
    # after others that had stored the same stack's matrix long before)
    from contactcp.linalg import blockinv

    blockinv._MEMO.clear()
    p = piles.box_stack(3, 2, seed=4)
    first = blockinv.BlockSolver.of(p.M)
    for k in range(1, blockinv._KEEP + 3):
        M = p.M.copy()
        M.data = M.data * (1.0 + k)
        blockinv.BlockSolver.of(M)
        assert blockinv.BlockSolver.of(p.M) is first  # asked again each time: kept
    assert len(blockinv._MEMO) == blockinv._KEEP

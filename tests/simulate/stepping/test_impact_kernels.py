"""The compiled impact timing and targets against the array formulas they replaced, bit for bit,
on random contacts and the edge cases (closed, separating, never closing, a negative discriminant)."""

import numpy as np
import pytest

from contactcp.simulate.stepping.impact_kernels import impact_targets, normal_targets
from contactcp.simulate.stepping.moreau_jean import impact_time


def _reference(g, u, a, h):
    g = np.maximum(g, 0.0)
    tau = np.full(g.shape, float(h))
    disc = u * u - 2.0 * a * g
    ok = disc >= 0
    root = np.sqrt(np.where(ok, disc, 0.0))
    den = -u + root
    with np.errstate(divide="ignore", invalid="ignore"):
        back = np.where(a < 0, (u + root) / np.where(a < 0, -a, 1.0), np.inf)
        t1 = np.where(den > 0, 2.0 * g / np.where(den > 0, den, 1.0), back)
    t1 = np.where(ok & (g == 0) & (u <= 0), 0.0, t1)
    tau = np.where(ok & (t1 >= 0) & (t1 <= h), t1, tau)
    return tau, u + a * tau


@pytest.mark.parametrize("seed", range(4))
def test_impact_time_and_targets_are_the_array_formulas(seed):
    rng = np.random.default_rng(seed)
    n, h = 400, 1e-3
    g = rng.choice([0.0, -1e-6, 1e-9, 1e-5, 1e-3], n) * rng.uniform(0.5, 2.0, n)
    u = rng.normal(0.0, 0.05, n) * rng.choice([0.0, 1.0], n, p=[0.1, 0.9])
    a = rng.normal(-9.81, 5.0, n) * rng.choice([0.0, 1.0], n, p=[0.1, 0.9])
    tau, u_imp = impact_time(g, u, a, h)
    want_tau, want_u = _reference(g, u, a, h)
    np.testing.assert_array_equal(tau, want_tau)
    np.testing.assert_array_equal(u_imp, want_u)
    assert ((tau >= 0) & (tau <= h)).all() and (tau < h).any() and (tau == h).any() and (tau == 0).any()
    e = rng.uniform(0.0, 1.0, n)
    closing = (tau < h) & (u_imp < 0)
    want = np.where(closing, np.maximum(0.0, -e * u_imp + a * (h - tau)), -e * u)
    np.testing.assert_array_equal(normal_targets(e, u, a, tau, u_imp, h), want)
    r_n = rng.choice([0.0, 1.0], n) * rng.uniform(0.0, 1.0, n)
    hit, target = impact_targets(e, a, tau, u_imp, r_n, h)
    want_hit = (r_n > 0) & closing
    rest = h - tau
    np.testing.assert_array_equal(hit, want_hit)
    np.testing.assert_array_equal(
        target, np.where(want_hit, np.maximum(0.0, -e * u_imp * rest + 0.5 * a * rest * rest), 0.0)
    )


@pytest.mark.parametrize("rank_deficient", [False, True])
def test_small_lstsq_is_a_least_squares_solution_either_way(rank_deficient):
    # a hit set's W_hh: H_N^T M^-1 H_N of random contacts; a redundant contact (a column repeated)
    # makes it singular, where Cholesky's pivot test hands it to the SVD
    from contactcp.simulate.stepping.impact_kernels import small_lstsq

    rng = np.random.default_rng(11)
    for n in (1, 3, 8):
        Hn = rng.normal(size=(12, n))
        if rank_deficient and n > 1:
            Hn[:, -1] = Hn[:, 0]
        A = Hn.T @ Hn
        A = 0.5 * (A + A.T)
        b = rng.normal(size=n)
        x = small_lstsq(A, b)
        want = np.linalg.lstsq(A, b, rcond=None)[0]
        # the normal equations' residual of a least-squares solution: A^T (A x - b) = 0
        scale = np.abs(A).max() ** 2 * max(np.abs(want).max(), 1.0)
        assert np.abs(A.T @ (A @ x - b)).max() <= 1e-12 * scale
        if not (rank_deficient and n > 1):  # unique: the same answer as numpy's
            np.testing.assert_allclose(x, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("seed", [0, 3])
def test_transpose_times_on_the_contacts_rows_is_the_whole_columns_sum(seed):
    """H^T v and the normal rows of H^T acc on a falling pile's contacts (their Jacobian's blocks:
    12 of its 150 rows a contact) are the sums over every row, to the bit, and H^T v to rounding;
    without blocks the whole columns are read."""
    from contactcp.models.scene.detect import DEFAULT_MARGIN
    from contactcp.scenarios.timestepping import box_pile
    from contactcp.simulate.stepping import SceneSystem
    from contactcp.simulate.stepping.impact_kernels import transpose_times

    system = SceneSystem(box_pile(25, seed=seed), DEFAULT_MARGIN)
    q, _ = system.initial_state()
    q[2::7] -= 0.3  # every box lower: some on others, some on the ground
    rng = np.random.default_rng(seed)
    v, acc = rng.normal(size=system.nv), rng.normal(size=system.nv)
    C = system.contacts(q, v, 1e-3)
    assert C.blocks is not None and C.n > 20
    H = np.asarray(C.H, dtype=float)
    u, a = transpose_times(H, C.blocks, v, acc, 3)
    u_all, a_all = transpose_times(H, np.zeros((0, 2), dtype=np.int64), v, acc, 3)
    np.testing.assert_array_equal(u, u_all)
    np.testing.assert_array_equal(a, a_all)
    np.testing.assert_allclose(u, H.T @ v, rtol=0, atol=1e-13 * np.abs(H).max() * np.abs(v).sum())
    np.testing.assert_allclose(a, (H.T @ acc)[::3], rtol=0, atol=1e-13 * np.abs(H).max() * np.abs(acc).sum())
    assert transpose_times(H, C.blocks, v, np.zeros(0), 3)[1].shape == (0,)

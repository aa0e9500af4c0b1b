"""The hit contacts' correction by groups of contacts joined by bodies (hit_kernels) against the
least squares on the whole W_hh (the general path's), on piles whose boxes were lowered into one
another and the ground."""

import numpy as np
import pytest
import scipy.sparse as sp

from contactcp.models.scene.detect import DEFAULT_MARGIN
from contactcp.scenarios.timestepping import box_pile
from contactcp.simulate.stepping import SceneSystem
from contactcp.simulate.stepping.hit_kernels import grouped_hit_correction
from contactcp.simulate.stepping.mass import mass_factor


def _pile(seed):
    system = SceneSystem(box_pile(25, seed=seed), DEFAULT_MARGIN)
    q, v = system.initial_state()
    q[2::7] -= 0.3  # every box lower: on others, on the ground
    C = system.contacts(q, v, 1e-3)
    M, _ = system.dynamics(0.0, q, v)
    return system, C, M, mass_factor(system, M, 0.0)


@pytest.mark.parametrize("seed", [1, 4, 5])
def test_grouped_correction_is_the_whole_least_squares(seed):
    """dq = M^-1 H_h lam for the whole W_hh's least squares (rank deficient: a box's fourth corner on
    a plane) and for the groups' own: the same correction to rounding, and it moves every hit
    contact's gap by its b (b consistent: the gaps of a correction H_h^T dq0)."""
    system, C, M, chol = _pile(seed)
    Hn = np.asarray(C.H)[:, ::3]
    rng = np.random.default_rng(seed)
    hits = np.arange(C.n)  # every contact hit: boxes flat on the ground or on others
    b = Hn[:, hits].T @ rng.normal(scale=1e-4, size=system.nv)
    inv = sp.csr_matrix(chol.inverse())
    dq, ok = grouped_hit_correction(
        np.asarray(C.H, dtype=float), C.blocks, inv.indptr.astype(np.int64), inv.indices.astype(np.int64),
        inv.data, hits, b, 3,
    )  # fmt: skip
    assert ok
    Mh = chol.solve(Hn[:, hits])
    W = Hn[:, hits].T @ Mh
    assert np.linalg.matrix_rank(W) < hits.size  # the whole problem is rank deficient
    whole = Mh @ np.linalg.lstsq(0.5 * (W + W.T), b, rcond=None)[0]
    scale = np.abs(whole).max()
    np.testing.assert_allclose(dq, whole, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(Hn[:, hits].T @ dq, b, rtol=0, atol=1e-9 * np.abs(b).max())


def test_a_mass_matrix_coupling_bodies_is_refused():
    """An M^-1 whose row on a hit contact's body reaches another body's rows: no grouped answer."""
    system, C, M, chol = _pile(0)
    inv = sp.lil_matrix(chol.inverse())
    hits = np.array([0])
    row = C.blocks[0].max()
    inv[row, (row + 6) % system.nv] = 1e-3
    inv = inv.tocsr()
    _, ok = grouped_hit_correction(
        np.asarray(C.H, dtype=float), C.blocks, inv.indptr.astype(np.int64), inv.indices.astype(np.int64),
        inv.data, hits, np.ones(1), 3,
    )  # fmt: skip
    assert not ok

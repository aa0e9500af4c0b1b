"""GlobalFrictionContactProblem._derived (the time stepper's constructor) builds the problem the
checked constructor builds, from a contact operator stored by columns, spread or not."""

from __future__ import annotations

import numpy as np
import pytest

from contactcp.errors import InvalidProblemError
from contactcp.problems import GlobalFrictionContactProblem
from contactcp.problems._coulomb_global import columns_to_csr


def _data(seed: int, n: int = 12, m: int = 9):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    M = np.eye(n) * n + 0.1 * (A + A.T)
    H = np.asfortranarray(rng.normal(size=(n, m)) * (rng.random((n, m)) < 0.4))
    H[:, 0] = 0.0  # an empty column, and an empty row
    H[3, :] = 0.0
    return M, H, rng.normal(size=n), rng.normal(size=m), rng.uniform(0, 1, m // 3)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("spread", [1, 2])
def test_derived_is_the_checked_problem(seed, spread):
    M, H, f, w, mu = _data(seed)
    dim = 3 if spread == 1 else 2
    if spread == 2:  # a frictionless problem: each column then a zero one, w's odd rows zero
        mu = np.zeros(H.shape[1])
        w2 = np.zeros(2 * H.shape[1])
        w2[::2] = w
        wide = np.zeros((H.shape[0], 2 * H.shape[1]))
        wide[:, ::2] = H
        want = GlobalFrictionContactProblem(M, wide, f, w2, mu, dim)
        got = GlobalFrictionContactProblem._derived(M, H, f, w2, mu, dim, spread=2)
    else:
        want = GlobalFrictionContactProblem(M, H, f, w, mu, dim)
        got = GlobalFrictionContactProblem._derived(M, H, f, w, mu, dim)
    for name in ("M", "H"):
        a, b = getattr(want, name), getattr(got, name)
        assert a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
        assert np.array_equal(a.data, b.data)
    for name in ("f", "w", "mu"):
        assert np.array_equal(getattr(want, name), getattr(got, name))
        assert not getattr(got, name).flags.writeable
    assert want._terms == got._terms and want.dim == got.dim
    x = np.random.default_rng(seed).normal(size=want.size)
    assert want.residual(x).value == got.residual(x).value


def test_derived_names_a_non_finite_operator():
    M, H, f, w, mu = _data(0)
    H[1, 1] = np.nan
    with pytest.raises(InvalidProblemError, match="H"):
        GlobalFrictionContactProblem._derived(M, H, f, w, mu, 3)


def test_columns_to_csr_counts_rows_and_columns():
    _, H, *_ = _data(1)
    indptr, indices, data, finite, row_most, column_most, _ = columns_to_csr(H, np.arange(H.shape[1]), 1, np.zeros(0))
    assert finite and row_most == (H != 0).sum(axis=1).max() and column_most == (H != 0).sum(axis=0).max()
    assert indptr[-1] == np.count_nonzero(H) and np.all(np.diff(indices[indptr[0] : indptr[1]]) > 0)


@pytest.mark.parametrize("spread", [1, 2])
def test_selected_columns_and_the_shift_are_those_of_the_copy(spread):
    """The stepper's form: columns selected from the whole (row-major) Jacobian without a copy, and
    ``w + H[:, cols]^T v``, each entry summed over the rows in order (exactly the dense sum here:
    small integers)."""
    M, H, f, w, mu = _data(2)
    H = np.ascontiguousarray(np.round(4 * H))
    cols = np.array([1, 4, 5, 8, 2, 7])
    v = np.arange(H.shape[0], dtype=float) - 3.0
    dim = 3 if spread == 1 else 2
    w_sel = w[: spread * cols.size] if spread == 1 else np.zeros(2 * cols.size)
    mu_sel = mu[:2] if spread == 1 else np.zeros(cols.size)
    got = GlobalFrictionContactProblem._derived(M, H, f, w_sel, mu_sel, dim, spread=spread, cols=cols, shift=v)
    wide = np.zeros((H.shape[0], spread * cols.size))
    wide[:, ::spread] = H[:, cols]
    shifted = w_sel.copy()
    shifted[::spread] += H[:, cols].T @ v
    want = GlobalFrictionContactProblem(M, wide, f, shifted, mu_sel, dim)
    assert np.array_equal(got.H.toarray(), want.H.toarray()) and np.array_equal(got.w, want.w)
    assert want._terms == got._terms


def test_a_block_solver_given_is_posed_on_as_it_is():
    """The stepper passes its block solver of ``M``: the problem takes its CSR form and factors,
    the same problem to the bit as the one that converts ``M``; a solver whose values are not all
    finite is not taken, and ``M`` is then checked (and named)."""
    from types import SimpleNamespace

    from contactcp.linalg.blockinv import BlockSolver

    M, H, f, w, mu = _data(3)
    M = np.diag(np.diag(M))  # a free body's: diagonal blocks
    solver = BlockSolver(M)
    assert solver.finite and not solver.csr.data.flags.writeable
    got = GlobalFrictionContactProblem._derived(M, H, f, w, mu, 3, solver=solver)
    want = GlobalFrictionContactProblem._derived(M, H, f, w, mu, 3)
    assert got.solver is solver and got.M is solver.csr
    assert np.array_equal(got.M.toarray(), want.M.toarray()) and got._terms == want._terms
    r = np.random.default_rng(3).normal(size=w.shape[0])
    assert np.array_equal(got.velocity(r), want.velocity(r))
    M_bad = M.copy()
    M_bad[2, 2] = np.nan
    with pytest.raises(InvalidProblemError, match="M"):
        GlobalFrictionContactProblem._derived(M_bad, H, f, w, mu, 3, solver=SimpleNamespace(finite=False, csr=None))


def test_a_block_solver_keeps_its_own_copy_of_a_sparse_matrix():
    """Its CSR form is read-only: it is a copy, and the caller's matrix stays writable."""
    import scipy.sparse as sp

    from contactcp.linalg.blockinv import BlockSolver

    M = sp.csr_matrix(np.diag([1.0, 2.0, 3.0]))
    solver = BlockSolver(M)
    assert M.data.flags.writeable and not solver.csr.data.flags.writeable
    M.data[0] = 5.0
    assert solver.csr[0, 0] == 1.0

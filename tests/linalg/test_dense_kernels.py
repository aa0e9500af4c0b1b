"""The compiled dense Cholesky (linalg.dense_kernels) against numpy's, on random symmetric positive
definite matrices well and badly conditioned, and its refusal of matrices that are not."""

import numpy as np
import pytest

from contactcp.linalg.dense_kernels import cholesky, cholesky_solve, cholesky_solve_columns


def _spd(rng, k, cond):
    Q, _ = np.linalg.qr(rng.normal(size=(k, k)))
    A = Q @ np.diag(np.geomspace(1.0, 1.0 / cond, k)) @ Q.T
    return 0.5 * (A + A.T)


@pytest.mark.parametrize("k, cond", [(1, 1.0), (6, 10.0), (24, 1e4), (40, 1e10)])
def test_factor_and_solves_agree_with_numpy(k, cond):
    rng = np.random.default_rng(k)
    A = _spd(rng, k, cond)
    L, ok = cholesky(A)
    assert ok and np.array_equal(L, np.tril(L))
    assert np.abs(L @ L.T - A).max() <= 8 * k * np.finfo(float).eps * np.abs(A).max()
    assert np.abs(L - np.linalg.cholesky(A)).max() <= 1e-13 * np.sqrt(cond) * np.abs(L).max()
    b = rng.normal(size=k)
    x = cholesky_solve(L, b)
    # backward error of the solve: the residual against |A| |x|, to a few roundings
    assert np.abs(A @ x - b).max() <= 64 * k * np.finfo(float).eps * (np.abs(A) @ np.abs(x) + np.abs(b)).max()
    B = rng.normal(size=(k, 3))
    X = cholesky_solve_columns(L, B)
    for j in range(3):
        assert np.array_equal(X[:, j], cholesky_solve(L, np.ascontiguousarray(B[:, j])))


@pytest.mark.parametrize("bad", ["indefinite", "singular", "nan"])
def test_a_matrix_that_is_not_positive_definite_is_refused(bad):
    A = np.eye(4)
    if bad == "indefinite":
        A[2, 2] = -1.0
    elif bad == "singular":
        A[3, :] = A[:, 3] = 0.0
    else:
        A[1, 1] = np.nan
    assert not cholesky(A)[1]

"""Small dense linear algebra (linalg/dense.py)."""

import numpy as np
import scipy.linalg as sla

from contactcp.linalg.dense import cho_solve


def test_cho_solve_is_scipys():
    rng = np.random.default_rng(7)
    for n, k in ((1, 1), (6, 6), (12, 30)):
        B = rng.normal(size=(n, n))
        M = B @ B.T + n * np.eye(n)
        b = rng.normal(size=(n, k))
        for lower in (False, True):
            chol = sla.cho_factor(M, lower=lower)
            assert np.array_equal(cho_solve(chol, b), sla.cho_solve(chol, b))
            np.testing.assert_allclose(M @ cho_solve(chol, b), b, atol=1e-12)
        assert np.array_equal(cho_solve(chol, b[:, 0]), sla.cho_solve(chol, b[:, 0]))

"""BlockSolver: M^-1 b and M^-1 H block by block, against dense solves; singular blocks named."""

import numpy as np
import pytest
import scipy.sparse as sp

from contactcp.errors import InvalidProblemError
from contactcp.linalg.blockinv import BlockSolver


def _mass(rng, n_diag=5, n_full=3):
    """A permuted block-diagonal M: ``n_diag`` one-entry blocks, ``n_full`` SPD 3x3 blocks and one
    non-symmetric 2x2 block."""
    blocks = [np.array([[v]]) for v in rng.uniform(0.5, 2.0, n_diag)]
    for _ in range(n_full):
        A = rng.standard_normal((3, 3))
        blocks.append(A @ A.T + 3 * np.eye(3))
    blocks.append(np.array([[2.0, 1.0], [-0.5, 1.5]]))
    M = sp.block_diag(blocks, format="csr")
    p = rng.permutation(M.shape[0])
    return M[p][:, p]


def test_solves_agree_with_dense():
    rng = np.random.default_rng(0)
    M = _mass(rng)
    n = M.shape[0]
    S = BlockSolver(M)
    assert S.diag_rows.size == 5 and len(S.blocks) == 4
    b = rng.standard_normal(n)
    B = rng.standard_normal((n, 4))
    Md = M.toarray()
    np.testing.assert_allclose(Md @ S.solve(b), b, atol=1e-12)
    np.testing.assert_allclose(Md @ S.solve(B), B, atol=1e-12)
    H = sp.random(n, 7, density=0.3, random_state=1, format="csr")
    X = S.solve_sparse(H)
    assert sp.issparse(X)
    np.testing.assert_allclose(Md @ X.toarray(), H.toarray(), atol=1e-12)


def test_a_diagonal_mass_matrix_is_one_vector():
    d = np.arange(1.0, 7.0)
    S = BlockSolver(sp.diags(d))
    assert not S.blocks and S.diag_rows.tolist() == list(range(6))
    np.testing.assert_array_equal(S.solve(d), np.ones(6))  # d_i / d_i: exact


@pytest.mark.parametrize(
    "M, where",
    [
        (sp.diags([1.0, 0.0, 2.0]), "row 1"),
        (sp.block_diag([np.eye(1), np.zeros((2, 2)) + np.diag([0.0, 0.0])], format="csr"), "row"),
        (sp.block_diag([np.eye(1), np.array([[1.0, 1.0], [1.0, 1.0]])], format="csr"), "rows 1..2"),
    ],
)
def test_singular_blocks_are_named(M, where):
    with pytest.raises(InvalidProblemError, match=f"^M: .*{where}"):
        BlockSolver(M)

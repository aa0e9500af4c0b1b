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
    # the SPD 3x3 blocks are inverted in one batch; the non-symmetric one is factored alone
    assert S.diag_rows.size == 5 and len(S.blocks) == 1 and S.blocks[0].size == 2
    assert S._small is not None and S._small.nnz == 27
    b = rng.standard_normal(n)
    B = rng.standard_normal((n, 4))
    Md = M.toarray()
    np.testing.assert_allclose(Md @ S.solve(b), b, atol=1e-12)
    np.testing.assert_allclose(Md @ S.solve(B), B, atol=1e-12)
    H = sp.random(n, 7, density=0.3, random_state=1, format="csr")
    X = S.solve_sparse(H)
    assert sp.issparse(X)
    np.testing.assert_allclose(Md @ X.toarray(), H.toarray(), atol=1e-12)


def test_a_symmetric_block_that_is_not_positive_definite_is_factored_alone():
    # an indefinite symmetric block makes the batched Cholesky of its size fail: every block of that
    # size is then factored alone (LU for the indefinite one), and the solves still agree
    rng = np.random.default_rng(3)
    A = rng.standard_normal((6, 6))
    spd = A @ A.T + 6 * np.eye(6)
    Q = np.linalg.qr(rng.standard_normal((6, 6)))[0]
    indefinite = Q @ np.diag([2.0, -1.0, 3.0, 1.0, 1.0, 4.0]) @ Q.T
    indefinite = 0.5 * (indefinite + indefinite.T)  # exactly symmetric
    M = sp.block_diag([spd, indefinite, 2 * spd], format="csr")
    S = BlockSolver(M)
    assert S._small is None and len(S.blocks) == 3
    b = rng.standard_normal(18)
    np.testing.assert_allclose(M.toarray() @ S.solve(b), b, atol=1e-12)


def test_many_rigid_bodies_are_one_batch():
    # 40 rigid bodies: full 6 x 6 SPD blocks in one batch, solves against dense ones
    rng = np.random.default_rng(4)
    blocks = []
    for _ in range(40):
        A = rng.standard_normal((6, 6))
        B = A @ A.T + np.eye(6)
        blocks.append(0.5 * (B + B.T))  # exactly symmetric: a body's frame off its centre of mass
    M = sp.block_diag(blocks, format="csr")
    S = BlockSolver(M)
    assert not S.blocks and S._small is not None
    H = sp.random(240, 90, density=0.05, random_state=2, format="csr")
    Md = M.toarray()
    np.testing.assert_allclose(Md @ S.solve_sparse(H).toarray(), H.toarray(), atol=1e-12)


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

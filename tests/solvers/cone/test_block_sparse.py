"""Block-sparse storage of W for the NSGS sweeps: the same matrix, the same sweeps as CSR."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from contactcp.solvers.cone.block_sparse import bsr_sweep, bsr_velocity, csr_to_bsr
from contactcp.solvers.cone.kernels import _csr_diagonal_blocks, gauss_seidel_sweeps_csr
from contactcp.solvers.cone.one_contact import block_inverses


def _random_W(seed: int, n_c: int, d: int, density: float) -> sp.csr_matrix:
    """A symmetric positive definite W with a random block pattern and some entries of a block missing."""
    rng = np.random.default_rng(seed)
    n = n_c * d
    H = sp.random(n, max(n // 2, 1), density=density, random_state=rng, format="csr")
    W = (H @ H.T + sp.identity(n)).tocsr()
    W.data[rng.random(W.data.size) < 0.1] = 0.0  # stored zeros and, once eliminated, missing entries
    W.eliminate_zeros()
    W = (W + W.T + 2 * sp.identity(n)).tocsr()
    W.sort_indices()
    return W


def _dense_blocks(bptr, bidx, B, n_c, d) -> np.ndarray:
    out = np.zeros((n_c * d, n_c * d))
    for i in range(n_c):
        for k in range(bptr[i], bptr[i + 1]):
            j = bidx[k]
            out[i * d : (i + 1) * d, j * d : (j + 1) * d] += B[k]
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n_c=st.integers(1, 12), d=st.sampled_from([2, 3]), density=st.floats(0.02, 0.5))
def test_block_storage_holds_the_csr_matrix(seed, n_c, d, density):
    W = _random_W(seed, n_c, d, density)
    bptr, bidx, B = csr_to_bsr(W.indptr, W.indices, W.data, d, n_c)
    np.testing.assert_array_equal(_dense_blocks(bptr, bidx, B, n_c, d), W.toarray())  # every entry, exactly
    _assert_diagonal_first(bptr, bidx, n_c)
    for i in range(n_c):  # each block column once per block row, and only where W has an entry
        cols = bidx[bptr[i] : bptr[i + 1]]
        assert len(set(cols.tolist())) == cols.size
        dense = W.toarray()[i * d : (i + 1) * d]
        assert set(cols.tolist()) == {j for j in range(n_c) if np.any(dense[:, j * d : (j + 1) * d] != 0.0)}


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_block_sweeps_are_the_csr_sweeps(seed, d):
    # the same local solves in the same order: the iterates agree up to the rounding of the sums of u_i
    # (summed block by block instead of row by row)
    n_c = 15
    W = _random_W(seed, n_c, d, 0.2)
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(n_c * d)
    mu = rng.uniform(0.1, 1.0, n_c)
    bptr, bidx, B = csr_to_bsr(W.indptr, W.indices, W.data, d, n_c)
    blocks = _csr_diagonal_blocks(W.indptr, W.indices, W.data, d, n_c)
    inv = block_inverses(blocks)
    r_csr, r_bsr = np.zeros(n_c * d), np.zeros(n_c * d)
    for _ in range(5):
        gauss_seidel_sweeps_csr(W.indptr, W.indices, W.data, blocks, inv, q, mu, r_csr, d, 1, 10, -np.ones(n_c), 1e-14)
        bsr_sweep(bptr, bidx, B, blocks, inv, q, mu, r_bsr, d, 10, -np.ones(n_c), 1e-14)
    scale = np.abs(r_csr).max()
    assert scale > 0
    np.testing.assert_allclose(r_bsr, r_csr, rtol=0, atol=1e-10 * scale)
    u = np.empty(n_c * d)
    bsr_velocity(bptr, bidx, B, q, r_bsr, u, d)
    np.testing.assert_allclose(u, W @ r_bsr + q, rtol=0, atol=1e-12 * (np.abs(W).max() * scale + np.abs(q).max()))


def _assert_diagonal_first(bptr, bidx, n_c):
    """Each row's diagonal block, where one is stored, is the row's first (the sweeps skip it)."""
    for i in range(n_c):
        row = bidx[bptr[i] : bptr[i + 1]].tolist()
        assert i not in row or row[0] == i


def _fallback_steps(A, b, mu, r, rho, steps):
    """The projected fixed-point steps ``r <- P_K(r - rho (u + mu ||u_T|| e_N))``, ``u = A r + b`` (numpy)."""
    for _ in range(steps):
        u = A @ r + b
        x = r - rho * (u + mu * np.linalg.norm(u[1:]) * np.eye(len(r))[0])
        nt = np.linalg.norm(x[1:])
        if not (x[0] >= 0.0 and nt <= mu * x[0]):
            if mu * nt <= -x[0]:
                x = np.zeros_like(x)
            else:
                pn = (mu * nt + x[0]) / (1.0 + mu * mu)
                x = np.concatenate([[pn], mu * pn * x[1:] / nt])
        if np.sum((x - r) ** 2) <= 1e-28 * np.sum(x**2):
            return x
        r = x
    return r


@pytest.mark.parametrize("d", [2, 3])
def test_a_contact_no_case_solves_gets_the_fallback_steps_and_the_sweep_goes_on(d):
    # contact 1's block is negative definite: no take-off (b_N < 0), no stick (r_N < 0), no slide (g_N < 0);
    # the sweep leaves its compiled loop for the projected steps there, then solves contacts 2 and 3
    n_c = 4
    rng = np.random.default_rng(d)
    G = rng.standard_normal((n_c * d, n_c * d))
    W = G @ G.T + n_c * d * np.eye(n_c * d)
    W[d : 2 * d, :] = 0.0
    W[:, d : 2 * d] = 0.0
    W[d : 2 * d, d : 2 * d] = -np.eye(d)
    q = rng.standard_normal(n_c * d)
    q[0::d] = -np.abs(q[0::d]) - 1.0
    mu = np.full(n_c, 0.4)
    S = sp.csr_matrix(W)
    bptr, bidx, B = csr_to_bsr(S.indptr, S.indices, S.data, d, n_c)
    blocks = _csr_diagonal_blocks(S.indptr, S.indices, S.data, d, n_c)
    inv = block_inverses(blocks)
    r_bsr, r_csr = np.zeros(n_c * d), np.zeros(n_c * d)
    rho_bsr, rho_csr = -np.ones(n_c), -np.ones(n_c)
    bsr_sweep(bptr, bidx, B, blocks, inv, q, mu, r_bsr, d, 10, rho_bsr, 1e-14)
    gauss_seidel_sweeps_csr(S.indptr, S.indices, S.data, blocks, inv, q, mu, r_csr, d, 1, 10, rho_csr, 1e-14)
    assert rho_bsr[1] == rho_csr[1] == pytest.approx(1.0) and np.all(rho_bsr[[0, 2, 3]] == -1.0)  # worked out once
    expected = _fallback_steps(-np.eye(d), q[d : 2 * d], 0.4, np.zeros(d), 1.0, 10)
    np.testing.assert_allclose(r_bsr[d : 2 * d], expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r_bsr, r_csr, rtol=1e-12, atol=1e-15)
    # the sweep went on: the last contact, solved exactly after the others, satisfies Coulomb's law
    u = W[3 * d :] @ r_bsr + q[3 * d :]
    r3 = r_bsr[3 * d :]
    assert r3[0] > 0.0 and np.linalg.norm(r3[1:]) <= 0.4 * r3[0] * (1 + 1e-12)
    assert abs(r3 @ (u + 0.4 * np.linalg.norm(u[1:]) * np.eye(d)[0])) <= 1e-12 * np.abs(q).max() * r3[0]


def _whole_block_W(seed: int, n_c: int, d: int, density: float) -> sp.csr_matrix:
    """A CSR matrix with every stored block stored whole (explicit zeros kept), as FCLIB's files are."""
    rng = np.random.default_rng(seed)
    pattern = sp.random(n_c, n_c, density=density, random_state=rng, format="coo") + sp.identity(n_c)
    pattern = pattern.tocoo()
    blocks = rng.standard_normal((pattern.nnz, d, d))
    blocks[rng.random(blocks.shape) < 0.2] = 0.0  # zeros inside a block stay stored
    indptr = np.zeros(n_c + 1, dtype=np.int64)
    np.add.at(indptr, pattern.row + 1, 1)
    order = np.lexsort((pattern.col, pattern.row))
    W = sp.bsr_matrix((blocks[order], pattern.col[order], np.cumsum(indptr)), shape=(n_c * d, n_c * d))
    return W.tocsr()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n_c=st.integers(1, 12), d=st.sampled_from([2, 3]), density=st.floats(0.02, 0.6))
def test_whole_blocks_are_copied_exactly(seed, n_c, d, density):
    from contactcp.solvers.cone.block_sparse import _whole_blocks

    W = _whole_block_W(seed, n_c, d, density)
    assert _whole_blocks(W.indptr, W.indices, d, n_c)
    bptr, bidx, B = csr_to_bsr(W.indptr, W.indices, W.data, d, n_c)
    np.testing.assert_array_equal(_dense_blocks(bptr, bidx, B, n_c, d), W.toarray())
    assert bptr[-1] * d * d == W.nnz  # one stored block per block of the pattern
    _assert_diagonal_first(bptr, bidx, n_c)
    # one entry dropped from a block: no longer whole, and the general conversion still holds W exactly
    V = W.copy()
    V.data[V.indptr[d - 1]] = 0.0  # row d - 1's first entry (a block of the first block row)
    V.eliminate_zeros()
    assert not _whole_blocks(V.indptr, V.indices, d, n_c)
    bptr, bidx, B = csr_to_bsr(V.indptr, V.indices, V.data, d, n_c)
    np.testing.assert_array_equal(_dense_blocks(bptr, bidx, B, n_c, d), V.toarray())

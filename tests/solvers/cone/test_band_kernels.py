"""The compiled band factorisations (Cholesky, LU with partial pivoting) against dense solves."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla

from contactcp.solvers.cone.band_kernels import band_cholesky, band_cholesky_solve, band_lu, band_lu_solve, dense_of


def _band(rng, n, kl, general, scale):
    """A random band matrix in its storage: general, diagonally weighted by ``scale`` (1: well
    conditioned; small: pivoting needed); else symmetric positive definite ``A A^T + s I``."""
    if general:
        ab = np.zeros((3 * kl + 1, n), order="F")
        for j in range(n):
            for i in range(max(0, j - kl), min(n, j + kl + 1)):
                ab[2 * kl + i - j, j] = rng.standard_normal() + (scale * n if i == j else 0.0)
        return ab
    A = np.zeros((n, n))
    for i in range(n):
        lo = max(0, i - kl // 2)
        A[i, lo : i + 1] = rng.standard_normal(i + 1 - lo)
    K = A @ A.T + scale * np.eye(n)
    ab = np.zeros((kl + 1, n), order="F")
    for j in range(n):
        for i in range(j, min(n, j + kl + 1)):
            ab[i - j, j] = K[i, j]
    return ab


@pytest.mark.parametrize("n, kl", [(1, 0), (5, 1), (40, 3), (150, 13), (150, 40)])
@pytest.mark.parametrize("scale", [1.0, 1e-6])
def test_band_cholesky_solves(n, kl, scale):
    rng = np.random.default_rng(n + kl)
    ab = _band(rng, n, kl, False, scale)
    K = dense_of(ab, kl, False)
    lapack, info = sla.lapack.dpbtrf(ab.copy(order="F"), lower=1)
    b = rng.standard_normal(n)
    x = b.copy()
    assert band_cholesky(ab, kl)
    band_cholesky_solve(ab, kl, x)
    # the backward error of a stable factorisation: a few units of rounding times |K| |x|
    assert np.abs(K @ x - b).max() <= 1e-13 * (np.abs(K) @ np.abs(x) + np.abs(b)).max()
    # LAPACK's dpbtrf on the same band: the same factor, to rounding amplified by the conditioning
    assert info == 0
    np.testing.assert_allclose(ab, lapack, rtol=1e-6, atol=1e-12 * np.abs(lapack).max())


def test_band_cholesky_refuses_an_indefinite_matrix():
    ab = np.zeros((2, 3), order="F")
    ab[0] = [1.0, -1.0, 1.0]
    assert not band_cholesky(ab, 1)


@pytest.mark.parametrize("n, kl", [(1, 0), (5, 1), (40, 3), (150, 13), (150, 40)])
@pytest.mark.parametrize("scale", [1.0, 1e-3, 0.0])
def test_band_lu_solves(n, kl, scale):
    rng = np.random.default_rng(10 * n + kl)
    ab = _band(rng, n, kl, True, scale)
    K = dense_of(ab, kl, True)
    b = rng.standard_normal(n)
    x = b.copy()
    ipiv = np.zeros(n, dtype=np.int64)
    assert band_lu(ab, kl, ipiv)
    band_lu_solve(ab, kl, ipiv, x)
    assert np.abs(K @ x - b).max() <= 1e-11 * (np.abs(K) @ np.abs(x) + np.abs(b)).max()
    # LAPACK's dgbtrf on the same storage picks the same pivots
    _, piv, info = sla.lapack.dgbtrf(dense_band_for_lapack(K, kl), kl, kl)
    assert info == 0 and np.array_equal(piv, ipiv)


def dense_band_for_lapack(K: np.ndarray, kl: int) -> np.ndarray:
    n = K.shape[0]
    ab = np.zeros((3 * kl + 1, n), order="F")
    for j in range(n):
        for i in range(max(0, j - kl), min(n, j + kl + 1)):
            ab[2 * kl + i - j, j] = K[i, j]
    return ab


def test_band_lu_refuses_a_singular_matrix():
    ab = np.zeros((4, 3), order="F")  # kl = 1: a zero column
    ab[2] = [1.0, 0.0, 1.0]
    assert not band_lu(ab, 1, np.zeros(3, dtype=np.int64))


def _pattern(rng, n, chains):
    """A symmetric pattern with its diagonal: ``chains`` random paths through the nodes (a pile's
    bodies touching their neighbours), shuffled; CSR."""
    A = np.eye(n, dtype=bool)
    for _ in range(chains):
        path = rng.permutation(n)[: rng.integers(2, n + 1)]
        A[path[:-1], path[1:]] = A[path[1:], path[:-1]] = True
    indptr = np.concatenate([[0], np.cumsum(A.sum(axis=1))]).astype(np.int32)
    return indptr, np.nonzero(A)[1].astype(np.int32), A


@pytest.mark.parametrize("seed", range(6))
def test_rcm_order_is_a_permutation_that_narrows_the_band_as_scipys(seed):
    """rcm_order against SciPy's reverse_cuthill_mckee (the same rules; ties may fall otherwise): a
    permutation, and the band it leaves within one of SciPy's
    (on these patterns; both are heuristics) and far below a shuffled order's."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    from contactcp.solvers.cone.band_kernels import rcm_order

    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 120))
    indptr, indices, A = _pattern(rng, n, chains=1 + seed % 3)
    perm = rcm_order(indptr, indices)
    assert np.array_equal(np.sort(perm), np.arange(n))

    def band(order):
        place = np.empty(n, dtype=int)
        place[order] = np.arange(n)
        r, c = np.nonzero(A)
        return int(np.abs(place[r] - place[c]).max())

    ref = reverse_cuthill_mckee(sp.csr_matrix(A.astype(np.int8)), symmetric_mode=True)
    assert band(perm) <= band(ref) + 1
    assert band(perm) < band(np.arange(n)) or band(np.arange(n)) <= 2
    # a chain in order 0..n-1 is put back as a band of width 1
    chain = np.eye(n, dtype=bool) | np.eye(n, k=1, dtype=bool) | np.eye(n, k=-1, dtype=bool)
    shuffle = rng.permutation(n)
    chain = chain[np.ix_(shuffle, shuffle)]
    cp = np.concatenate([[0], np.cumsum(chain.sum(axis=1))]).astype(np.int32)
    order = rcm_order(cp, np.nonzero(chain)[1].astype(np.int32))
    place = np.empty(n, dtype=int)
    place[order] = np.arange(n)
    r, c = np.nonzero(chain)
    assert np.abs(place[r] - place[c]).max() == 1


def _plain_cholesky(ab, kl):
    """dpbtf2's loops without skipping zeros (the reference of the zero-skipping kernel)."""
    n = ab.shape[1]
    for j in range(n):
        ab[0, j] = np.sqrt(ab[0, j])
        kn = min(kl, n - 1 - j)
        ab[1 : kn + 1, j] /= ab[0, j]
        for c in range(1, kn + 1):
            for r in range(c, kn + 1):
                ab[r - c, j + c] -= ab[r, j] * ab[c, j]


def _plain_lu(ab, kl, ipiv):
    """dgbtf2's loops without skipping zero entries of L's columns (the kernel's reference)."""
    n, kv, ju = ab.shape[1], 2 * kl, 0
    for j in range(n):
        km = min(kl, n - 1 - j)
        p = int(np.argmax(np.abs(ab[kv : kv + km + 1, j])))
        ipiv[j] = j + p
        ju = max(ju, min(j + kl + p, n - 1))
        if p:
            for c in range(j, ju + 1):
                a, b = kv + j - c, kv + j + p - c
                ab[a, c], ab[b, c] = ab[b, c], ab[a, c]
        if km > 0:
            ab[kv + 1 : kv + km + 1, j] *= 1.0 / ab[kv, j]
            for c in range(j + 1, ju + 1):
                if ab[kv + j - c, c] != 0.0:
                    for i in range(1, km + 1):
                        ab[kv + j + i - c, c] -= ab[kv + i, j] * ab[kv + j - c, c]


@pytest.mark.parametrize("general", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_skipping_zeros_leaves_every_entry_of_the_factors(general, seed):
    """Bands filled sparsely, as a pile's reduced matrices in their band order (a row's profile
    narrower than the band, zeros inside it): the factors and pivots with zeros skipped are the plain
    loops' to the bit (an exact zero's sign aside: -0 == 0)."""
    rng = np.random.default_rng(seed)
    n, kl = 60, 12
    K = np.diag(rng.uniform(2.0, 4.0, n)) * (1.0 if general else n)
    for i in range(1, n):  # each row's profile: up to kl entries left of the diagonal, often fewer
        for j in range(max(0, i - int(rng.integers(0, kl + 1)) // (1 + i % 3)), i):
            K[i, j] = rng.standard_normal()
            K[j, i] = K[i, j] if not general else rng.standard_normal()
    if general:
        ab, ipiv, ref_piv = dense_band_for_lapack(K, kl), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        ref = ab.copy(order="F")
        assert band_lu(ab, kl, ipiv)
        _plain_lu(ref, kl, ref_piv)
        assert np.array_equal(ipiv, ref_piv)
    else:
        ab = np.zeros((kl + 1, n), order="F")
        for j in range(n):
            for i in range(j, min(n, j + kl + 1)):
                ab[i - j, j] = K[i, j]
        ref = ab.copy(order="F")
        assert band_cholesky(ab, kl)
        _plain_cholesky(ref, kl)
    assert (ab == 0).sum() > ab.size // 4  # the zeros the kernel skipped
    assert np.array_equal(ab, ref)

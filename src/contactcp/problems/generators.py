"""Seeded random LCP families for tests, benchmarks and experiments.

Every generator takes ``n`` (or a contact count) and ``seed`` and returns an
:class:`~contactcp.LCP`; generators with a known answer also return it.
"""

from __future__ import annotations

import numpy as np

from contactcp.problems import LCP

#: what a seed may be: an integer, a numpy Generator, or None (fresh entropy)
Seed = int | np.random.Generator | None

__all__ = ["spd", "p_matrix", "psd_planted", "contact", "FAMILIES"]


def _rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def spd(n: int, seed: Seed = None) -> LCP:
    """Symmetric positive definite ``M = A A^T / n + 0.1 I`` (condition ~10-40), ``q ~ N(0, 1)``."""
    rng = _rng(seed)
    A = rng.standard_normal((n, n))
    return LCP(A @ A.T / n + 0.1 * np.eye(n), rng.standard_normal(n))


def p_matrix(n: int, seed: Seed = None) -> LCP:
    """Nonsymmetric P-matrix: strictly row diagonally dominant with positive diagonal.

    Such a matrix is a P-matrix (every principal submatrix is again strictly
    diagonally dominant with positive diagonal, so has positive determinant)
    but in general not positive definite.
    """
    rng = _rng(seed)
    N = rng.standard_normal((n, n))
    np.fill_diagonal(N, 0.0)
    D = np.abs(N).sum(axis=1) * (1.0 + rng.uniform(0.05, 0.5, n)) + 1e-3
    return LCP(N + np.diag(D), rng.standard_normal(n))


def psd_planted(n: int, seed: Seed = None, rank: int | None = None) -> tuple[LCP, np.ndarray]:
    """Rank-deficient PSD ``M = B B^T`` with a planted solution ``z*``.

    Half of the indices (at random) carry ``z*_i > 0, w*_i = 0``, the rest
    ``z*_i = 0, w*_i > 0``; ``q = w* - M z*``.  Returns ``(lcp, z*)``.
    The solution need not be unique (M is singular), but ``w`` is: every
    solution has ``M z = M z*``.
    """
    rng = _rng(seed)
    r = max(1, n // 2) if rank is None else rank
    B = rng.standard_normal((n, r))
    M = B @ B.T / r
    active = rng.random(n) < 0.5
    z = np.where(active, rng.uniform(0.5, 2.0, n), 0.0)
    w = np.where(active, 0.0, rng.uniform(0.5, 2.0, n))
    return LCP(M, w - M @ z), z


def contact(
    n_c: int, seed: Seed = None, n_d: int = 4, m: int | None = None, mu: tuple[float, float] = (0.2, 0.8)
) -> LCP:
    """A friction-pyramid contact LCP in the Stewart–Trinkle form, size ``n_c (n_d + 2)``.

    Unknowns ``z = (c_n, beta, lambda)``: normal impulses, ``n_d`` pyramid
    edge impulses per contact and a sliding-speed multiplier per contact::

        M = [[N^T A N,  N^T A D,  0  ],      q = [N^T A f]
             [D^T A N,  D^T A D,  E  ],          [D^T A f]
             [U,        -E^T,     0  ]]          [0      ]

    with ``A`` the inverse of a random SPD mass matrix of size ``m``
    (default ``max(6, n_c)``), ``N``, ``D`` random unit contact directions, ``E``
    the block incidence of edges to contacts and ``U = diag(mu)``.  The matrix
    is copositive-plus-like (not P), the typical hard case for pivoting.
    """
    rng = _rng(seed)
    m = max(6, n_c) if m is None else m
    G = rng.standard_normal((m, m))
    Mass = G @ G.T / m + 0.5 * np.eye(m)
    A = np.linalg.inv(Mass)
    A = (A + A.T) / 2
    N = rng.standard_normal((m, n_c))
    N /= np.linalg.norm(N, axis=0)
    D = np.zeros((m, n_c * n_d))
    for i in range(n_c):
        t1 = rng.standard_normal(m)
        t1 -= (t1 @ N[:, i]) * N[:, i]
        t1 /= np.linalg.norm(t1)
        t2 = rng.standard_normal(m)
        t2 -= (t2 @ N[:, i]) * N[:, i] + (t2 @ t1) * t1
        t2 /= np.linalg.norm(t2)
        for k in range(n_d):
            ang = 2 * np.pi * k / n_d
            D[:, i * n_d + k] = np.cos(ang) * t1 + np.sin(ang) * t2
    E = np.kron(np.eye(n_c), np.ones((n_d, 1)))
    U = np.diag(rng.uniform(*mu, n_c))
    f = rng.standard_normal(m) - 2.0 * N.sum(axis=1)
    nz = n_c * (n_d + 2)
    Mz = np.zeros((nz, nz))
    a, b = n_c, n_c + n_c * n_d
    Mz[:a, :a] = N.T @ A @ N
    Mz[:a, a:b] = N.T @ A @ D
    Mz[a:b, :a] = D.T @ A @ N
    Mz[a:b, a:b] = D.T @ A @ D
    Mz[a:b, b:] = E
    Mz[b:, :a] = U
    Mz[b:, a:b] = -E.T
    qz = np.concatenate([N.T @ A @ f, D.T @ A @ f, np.zeros(n_c)])
    return LCP(Mz, qz)


def _contact_n(n: int, seed: Seed = None) -> LCP:
    return contact(max(1, round(n / 6)), seed)


#: name -> (description, generator(n, seed) -> LCP)
FAMILIES = {
    "spd": ("symmetric positive definite", spd),
    "pmatrix": ("nonsymmetric P-matrix (diagonally dominant)", p_matrix),
    "psd": ("rank-deficient PSD, planted solution", lambda n, seed=None: psd_planted(n, seed)[0]),
    "contact": ("friction-pyramid contact LCP (n = 6 n_c)", _contact_n),
}

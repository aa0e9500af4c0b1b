import itertools

import os

import numpy as np
import pytest
from hypothesis import settings

# CI and the README's test command are deterministic (a fixed hypothesis seed);
# HYPOTHESIS_PROFILE=explore draws fresh random examples, 10x as many.
settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def brute_force_lcp(M, q, tol=1e-9):
    """All solutions over the 2^n complementary bases (nonsingular ones only): the test's own oracle."""
    n = len(q)
    sols = []
    for r in range(n + 1):
        for a in itertools.combinations(range(n), r):
            a = list(a)
            z = np.zeros(n)
            if a:
                Maa = M[np.ix_(a, a)]
                if abs(np.linalg.det(Maa)) < 1e-12:
                    continue
                z[a] = np.linalg.solve(Maa, -q[a])
            w = M @ z + q
            if z.min() >= -tol and w.min() >= -tol:
                if not any(np.allclose(z, s, atol=1e-8) for s in sols):
                    sols.append(z)
    return sols


def lcp_violation(M, q, z):
    """max of the violations of z >= 0, w >= 0, z_i w_i = 0, computed here independently."""
    z = np.asarray(z, dtype=float)
    w = M @ z + q
    return max(-z.min(), -w.min(), np.abs(z * w).max(), 0.0)


def farkas_holds(M, q, y):
    """The test's own check of a Farkas vector: y >= 0, q^T y < 0 and M^T y <= 0, the latter up to the
    rounding bound of each entry's own terms, 16 (n + 1) eps (|M|^T y)_j (what the library calls a
    backward proof; its exact and rational proofs meet it too)."""
    y = np.asarray(y, dtype=float)
    M, q = np.asarray(M, dtype=float), np.asarray(q, dtype=float)
    g = 16.0 * (M.shape[0] + 1) * np.finfo(float).eps
    return bool(y.min() >= 0 and y.max() > 0 and (M.T @ y <= g * (np.abs(M).T @ y)).all() and q @ y < 0)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)

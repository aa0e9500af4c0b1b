"""The compiled disjoint sets against scipy's connected components on random graphs."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components

from contactcp.linalg.union_find import join, root


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 40), edges=st.integers(0, 60))
def test_sets_are_the_connected_components(seed, n, edges):
    """After joining the ends of random edges, two nodes share a root exactly when they are in one
    connected component, and each root is its set's smallest node."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, n, edges), rng.integers(0, n, edges)
    parent = np.arange(n)
    for x, y in zip(a, b):
        join(parent, x, y)
    roots = np.array([root(parent, x) for x in range(n)])
    _, label = connected_components(sp.coo_matrix((np.ones(edges), (a, b)), shape=(n, n)), directed=False)
    assert (label[:, None] == label[None, :]).tolist() == (roots[:, None] == roots[None, :]).tolist()
    for r in np.unique(roots):
        assert r == np.flatnonzero(roots == r).min()

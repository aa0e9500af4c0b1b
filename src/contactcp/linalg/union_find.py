"""Disjoint sets over ``0 .. n - 1``, compiled, for the kernels that split a problem into the parts
its bodies join (the global Newton's islands, the hit contacts' groups): ``parent`` an
``np.arange(n)`` to start, :func:`join` merges two sets under the smaller root, :func:`root`
finds a set's root (halving the path)."""

from __future__ import annotations

from numba import njit

__all__ = ["root", "join"]


@njit(cache=True, nogil=True)
def root(parent, x):
    """The root of ``x``'s set (each node on the way pointed to its grandparent)."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True, nogil=True)
def join(parent, a, b):
    """Merges the sets of ``a`` and ``b``, the larger root under the smaller."""
    ra, rb = root(parent, a), root(parent, b)
    if ra != rb:
        parent[max(ra, rb)] = min(ra, rb)

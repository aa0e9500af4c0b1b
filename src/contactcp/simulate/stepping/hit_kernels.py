"""The hit contacts' position correction of a Moreau–Jean step on free bodies, compiled, by groups
(:func:`~contactcp.simulate.stepping.moreau_jean._project`, its first part).

The correction is ``dq = M^-1 H_h lam`` with ``lam`` a least-squares solution of ``W_hh lam = b``,
``W_hh = H_h^T M^-1 H_h`` over the hit contacts' normal columns ``H_h`` (symmetrised as the
general path does), ``b`` their gaps' distance to their targets.  Every least-squares solution
gives the same ``dq`` (two differ in the null space of ``W_hh``, that of ``H_h``).  When every
contact's columns lie on its free bodies' rows (``blocks``,
:class:`~contactcp.simulate.stepping.systems.StepContacts`) and ``M^-1`` is block diagonal by body
(free bodies), ``W_hh`` couples two hit contacts only through a body they share: it is block
diagonal over the groups of hit contacts joined by shared bodies, and each group is its own least
squares (:func:`~contactcp.simulate.stepping.impact_kernels.small_lstsq`).  On a landing 25-box
pile the 35 hit contacts of a step fell into 9 groups of at most 8 on average (16 at most): the
whole least squares took 2 % of the flops of the dense one, and a landing step's correction went
from about 150 us (the dense products and LAPACK's ``gelsy`` on ``W_hh``) to about 20.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from contactcp.linalg.union_find import join, root
from contactcp.problems._coulomb_global import contact_sides
from contactcp.simulate.stepping.impact_kernels import small_lstsq

__all__ = ["grouped_hit_correction"]


@njit(cache=True, nogil=True)
def grouped_hit_correction(H, blocks, Ip, Ii, Ix, hits, b, d):
    """``(dq, ok)`` (module docstring) for the hit contacts ``hits`` (their normal columns ``d hits``
    of ``H``; ``b`` their targets less their predicted gaps), ``M^-1`` in CSR form (``Ip``, ``Ii``,
    ``Ix``), ``blocks`` each contact's bodies' first rows; ``ok`` False (and no ``dq``) when some
    row of ``M^-1`` on a hit contact's body reaches outside that body's 6 rows."""
    nv, k = H.shape[0], hits.shape[0]
    parent = np.arange(nv)  # the groups, by the bodies' first rows
    for j in range(k):
        b0, b1 = contact_sides(blocks, hits[j])
        if b0 >= 0:
            join(parent, b0, b1)
    MinvH = np.zeros((nv, k))  # M^-1 H_h on the rows of each column's bodies
    for j in range(k):
        c = d * hits[j]
        for side in contact_sides(blocks, hits[j]):
            if side < 0:
                continue
            for r in range(side, side + 6):
                s = 0.0
                for p in range(Ip[r], Ip[r + 1]):
                    if not side <= Ii[p] < side + 6:  # M^-1 couples this body with another
                        return MinvH[:, 0], False
                    s += Ix[p] * H[Ii[p], c]
                MinvH[r, j] = s
    group = np.empty(k, dtype=np.int64)
    for j in range(k):
        group[j] = root(parent, contact_sides(blocks, hits[j])[1])
    order = np.argsort(group, kind="mergesort")  # each group's hits, in their order
    lam = np.zeros(k)
    start = 0
    while start < k:
        stop = start + 1
        while stop < k and group[order[stop]] == group[order[start]]:
            stop += 1
        members = order[start:stop]
        size = stop - start
        A = np.empty((size, size))
        for x in range(size):
            cx = d * hits[members[x]]
            for y in range(size):
                s = 0.0
                for side in contact_sides(blocks, hits[members[x]]):
                    if side >= 0:
                        for r in range(side, side + 6):
                            s += H[r, cx] * MinvH[r, members[y]]
                A[x, y] = s
        A = 0.5 * (A + A.T)
        rhs = np.empty(size)
        for x in range(size):
            rhs[x] = b[members[x]]
        sol = small_lstsq(A, rhs)
        for x in range(size):
            lam[members[x]] = sol[x]
        start = stop
    dq = np.zeros(nv)
    for j in range(k):
        for side in contact_sides(blocks, hits[j]):
            if side >= 0:
                for r in range(side, side + 6):
                    dq[r] += MinvH[r, j] * lam[j]
    return dq, True

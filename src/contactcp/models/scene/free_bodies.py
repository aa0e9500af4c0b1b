"""The contact Jacobian's columns on free bodies, compiled (:func:`~contactcp.models.scene.dynamics.contact_jacobian`).

A free body's velocity ``(v, w)`` is in its own axes ``R``, so the world velocity of a point ``x``
fixed to it is ``R v + (R w) x (x - o)``, and contact ``j``'s three columns (frame ``C = [n, t, o]``)
have the body's rows ``R^T C`` (linear) and ``R^T ((x - o) x C)`` (angular), with the sign ``+`` for
the first body and ``-`` for the second.
"""

from __future__ import annotations

from numba import njit

__all__ = ["free_columns"]


@njit(cache=True, nogil=True)
def free_columns(H, R, origin, row0, sides, points, frames):
    """Add into ``H`` (``nv x 3 n``) the columns of every contact on a free body: ``R``, ``origin`` the
    joints' world placements (by joint index), ``row0`` each joint's first velocity row if it is a free
    flyer (else -1), ``sides`` (n, 2) the joints of each contact's two bodies."""
    for j in range(sides.shape[0]):
        for side in range(2):
            ji = sides[j, side]
            r0 = row0[ji]
            if r0 < 0:
                continue
            sign = 1.0 if side == 0 else -1.0
            d0 = points[j, 0] - origin[ji, 0]
            d1 = points[j, 1] - origin[ji, 1]
            d2 = points[j, 2] - origin[ji, 2]
            for col in range(3):
                c0, c1, c2 = frames[j, 0, col], frames[j, 1, col], frames[j, 2, col]
                a0 = d1 * c2 - d2 * c1  # (x - o) x c
                a1 = d2 * c0 - d0 * c2
                a2 = d0 * c1 - d1 * c0
                h = 3 * j + col
                for a in range(3):
                    H[r0 + a, h] += sign * (R[ji, 0, a] * c0 + R[ji, 1, a] * c1 + R[ji, 2, a] * c2)
                    H[r0 + 3 + a, h] += sign * (R[ji, 0, a] * a0 + R[ji, 1, a] * a1 + R[ji, 2, a] * a2)

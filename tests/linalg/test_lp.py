"""The LP layer (:class:`contactcp.linalg.lp.Polyhedron`): rows of very different sizes."""

import numpy as np

import contactcp as ccp
from contactcp import Status
from contactcp.linalg.lp import Polyhedron

# A UCP from the fuzz (UCP:scaled:152): integer rows scaled by powers of two from 2^-40 to 2^39; the
# rows of size 2^-40 and 2^-22 were taken for dependent ones (the rank test ran on the raw rows),
# so the LPs ignored them and returned points of Y that violate them by a factor 2.
S = 2.0 ** np.array([35, 7, 26])
T = 2.0 ** np.array([39, 39, -40, -22])
A_X = S[:, None] * np.array([[-1, 1, -1, -1, 0], [-1, -1, 1, -1, 0], [0, -1, 0, 0, 1]], dtype=float)
B_X = S * np.array([1, -5, -2], dtype=float)
A_Y = T[:, None] * np.array([[-1, 0, 1, 1, 1], [-1, 1, 1, 1, 1], [1, -1, 0, 1, 1], [-1, 0, 1, -1, 0]], dtype=float)
B_Y = T * np.array([2, 2, 2, -2], dtype=float)


def test_small_rows_are_not_dropped_as_dependent():
    P = Polyhedron(A_Y, B_Y, "Y")
    assert P.A.shape[0] == 4
    v = P.minimize()
    assert v is not None
    assert np.allclose(A_Y @ v.x / T, B_Y / T, atol=1e-9) and v.x.min() >= 0


def test_the_scaled_ucp_is_solved_on_every_row():
    p = ccp.UCP(A_X, B_X, A_Y, B_Y)
    planted_x, planted_y = np.array([2.0, 5, 2, 0, 3]), np.array([0.0, 0, 0, 2, 0])
    assert p.residual(planted_x, planted_y).value == 0
    for method in (None, "bilinear"):
        r = ccp.solve(p, method)
        assert r.status is Status.SOLVED, r.message
        assert np.allclose(A_Y @ r.w / T, B_Y / T, atol=1e-12) and np.allclose(A_X @ r.x / S, B_X / S, atol=1e-12)
        assert np.max(np.minimum(r.x, r.w)) <= 1e-12

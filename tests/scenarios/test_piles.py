"""The multibody generators: realistic structure (rank-deficient W, many contacts per body),
determinism, physics of the step, and errors naming the parameter."""

import numpy as np
import pytest

import contactcp as ccp
from contactcp.errors import InvalidProblemError
from contactcp.scenarios import piles


@pytest.mark.parametrize(
    "make, n_v, n_c, rank_max",
    [
        (lambda: piles.box_stack(5, 2, seed=1), 60, 40, 0.5),
        (lambda: piles.box_wall(3, 4, seed=1), 72, 4 * 4 + 8 * 7, 0.34),
        (lambda: piles.sphere_pile(27, seed=1), 162, None, 0.9),
    ],
)
def test_structure_is_that_of_real_simulations(make, n_v, n_c, rank_max):
    p = make()
    assert p.n_v == n_v
    if n_c is not None:
        assert p.n_c == n_c
    W = p.local().W.toarray()
    rank = np.linalg.matrix_rank(W)
    # W = H^T M^-1 H has the rank of H: every body is held (rank n_v, its smallest kept singular value
    # about 7e-2 against a cut-off of 4e-12), and many contacts on few bodies make W rank-deficient
    assert rank == p.n_v and rank / W.shape[0] <= rank_max
    np.testing.assert_allclose(W, W.T, atol=1e-12 * np.abs(W).max())
    assert np.linalg.eigvalsh(0.5 * (W + W.T)).min() >= -1e-10 * np.abs(W).max()  # W = H^T M^-1 H is PSD


def test_same_seed_same_problem():
    a, b, c = piles.box_wall(seed=7), piles.box_wall(seed=7), piles.box_wall(seed=8)
    assert (a.H != b.H).nnz == 0 and np.array_equal(a.f, b.f) and np.array_equal(a.mu, b.mu)
    assert not np.array_equal(a.f, c.f)


def test_one_box_on_the_ground_stops_and_carries_its_weight():
    p = piles.box_stack(1, 1, push=0.0, seed=3)
    assert p.n_c == 4
    H = p.H.toarray()
    np.testing.assert_allclose(H[2, 0::3], 1.0)  # normals +z, into the box
    res = ccp.solve(p, tol=1e-10)
    assert res.success
    v, r = p.split(res.x)
    m = p.M.diagonal()[0]
    gap_rate = p.w[0]  # the face's gap over h: the box may sink by it within the step
    # friction stops the small initial sliding (|m v0| << mu m g h): the box ends moving down by the gap only
    np.testing.assert_allclose(v, [0, 0, -gap_rate, 0, 0, 0], atol=1e-9)
    # the impulses balance gravity's and the initial momentum (M v = H r + f summed over the corners)
    np.testing.assert_allclose(r[0::3].sum(), m * v[2] - p.f[2], rtol=1e-9)
    assert r[0::3].sum() == pytest.approx(m * 9.81 * 1e-2, rel=0.2)
    assert np.all(r[0::3] >= 0)


def test_sphere_contacts_point_into_the_first_sphere():
    p = piles.sphere_pile(8, seed=2)
    assert p.n_c >= 8  # every sphere touches the floor
    H = p.H.toarray()
    for i in range(p.n_c):
        n_col = H[:, 3 * i]
        for body in np.flatnonzero(np.abs(n_col).reshape(-1, 6).sum(axis=1)):
            lin = n_col[6 * body : 6 * body + 3]
            assert np.linalg.norm(lin) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda: piles.box_stack(0), "n_boxes"),
        (lambda: piles.box_stack(2.5), "n_boxes"),
        (lambda: piles.box_stack(200, 200), "n_boxes * columns"),
        (lambda: piles.box_wall(h=0.0), "h"),
        (lambda: piles.sphere_pile(push=-1.0), "push"),
    ],
)
def test_bad_parameters_name_the_field(call, field):
    with pytest.raises(InvalidProblemError) as e:
        call()
    assert e.value.field == field


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"mu": "a"}, "mu"),
        ({"mu": None}, "mu"),
        ({"mu": (0.1,)}, "mu"),
        ({"mu": (0.8, 0.2)}, "mu"),
        ({"mu": [0.1, 0.2, 0.3]}, "mu"),
        ({"mu": -1.0}, "mu"),
        ({"seed": "x"}, "seed"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_friction_and_seed_name_the_field(kw, field):
    for make in (piles.box_stack, piles.box_wall, piles.sphere_pile):
        with pytest.raises(ccp.InvalidProblemError, match=f"^{field}"):
            make(**kw)

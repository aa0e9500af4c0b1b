"""Each contact's mode at the end of a step: the vectorised classification against the contact-by-contact
reference (``moreau_jean._mode``) on random impulses and velocities, ties included."""

import numpy as np
import pytest

from contactcp.models.contacts import contact_frames
from contactcp.simulate.stepping.moreau_jean import CLOSED, SEPARATED, SLIDING, STICKING, _mode, _modes


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_modes_agree_with_the_contact_by_contact_rule(d, seed):
    rng = np.random.default_rng(seed)
    n, slip_tol = 200, 1e-9
    imp = np.zeros((n, 3))
    vel = np.zeros((n, 3))
    imp[:, :d] = rng.normal(size=(n, d))
    imp[rng.random(n) < 0.2, 0] = 0.0  # touching, no load
    vel[:, :d] = rng.normal(size=(n, d)) * rng.choice([1.0, 1e-12, 0.0], size=(n, 1))
    if d == 3:
        vel[:5, 1:] = [slip_tol, 0.0]  # on the threshold: sticking
    n_vec = rng.normal(size=(n, 3))
    frames = contact_frames(n_vec / np.linalg.norm(n_vec, axis=1)[:, None])
    mu = rng.choice([0.0, 0.3, 0.8], size=n)
    active = rng.random(n) < 0.8
    codes, slide, world = _modes(imp, vel, frames, d, mu, active, slip_tol)
    assert np.abs(world - np.einsum("nij,nj->ni", frames, imp)).max() <= 1e-15 * np.abs(imp).max()
    for j in range(n):
        want, direction = (SEPARATED, np.zeros(3))
        if active[j]:
            want, direction = _mode(imp[j], vel[j], frames[j], d, mu[j], slip_tol)
        assert codes[j] == want
        np.testing.assert_allclose(slide[j], direction, rtol=0, atol=1e-15)
    seen = set(codes.tolist())
    assert {SEPARATED, CLOSED} <= seen and (d == 1 or {STICKING, SLIDING} <= seen)


def test_last_impulses_read_each_contacts_memory():
    """The warm starts from the last step's memory (moreau_jean._last_impulses): a new contact, one
    that was inactive (no impulse kept) and two with impulses; then all of them with impulses."""
    from types import SimpleNamespace

    from contactcp.simulate.stepping.moreau_jean import _last_impulses

    keys = ["new", "idle", "a", "b"]
    memory = {"idle": (None, SEPARATED), "a": (np.array([1.0, 0.5, -0.25]), STICKING), "b": (np.array([2.0, 0, 0]), 3)}
    C = SimpleNamespace(n=4, dim=3, keys=keys)
    lasts, R0, warm = _last_impulses(C, memory)
    assert lasts == [None, memory["idle"], memory["a"], memory["b"]]
    assert warm.tolist() == [False, False, True, True]
    np.testing.assert_array_equal(R0, [[0, 0, 0], [0, 0, 0], [1.0, 0.5, -0.25], [2.0, 0, 0]])
    memory["new"] = memory["idle"] = (np.array([3.0, 0, 0]), STICKING)
    lasts, R0, warm = _last_impulses(C, memory)
    assert warm.all() and R0.shape == (4, 3) and R0[:2, 0].tolist() == [3.0, 3.0]
    assert not np.shares_memory(R0, memory["a"][0])  # a copy: the memory stays as it was
    _, R0, warm = _last_impulses(SimpleNamespace(n=0, dim=3, keys=[]), memory)
    assert R0.shape == (0, 3) and warm.shape == (0,)

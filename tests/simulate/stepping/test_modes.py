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

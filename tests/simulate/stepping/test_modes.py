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
    """The warm starts from the last step's memory (memory.last_impulses): a new contact, one that
    was inactive (no impulse kept), two with impulses and one gone; the same contacts again in the
    same order (the arrays as they are) and in another; the transitions that memory.remember counts."""
    from types import SimpleNamespace

    from contactcp.simulate.stepping.memory import LAST_STEP, LastStep, last_impulses, remember

    R = np.array([[9.0, 9, 9], [1.0, 0.5, -0.25], [2.0, 0, 0], [4.0, 0, 0]])
    modes = np.array([SEPARATED, STICKING, SLIDING, STICKING], dtype=np.int8)
    memory = {LAST_STEP: LastStep(["idle", "a", "b", "gone"], R, np.array([False, True, True, True]), modes)}
    assert memory[LAST_STEP].get("a")[1] == STICKING and memory[LAST_STEP].get("idle") == (None, SEPARATED)
    assert memory[LAST_STEP].get("new") is None
    C = SimpleNamespace(n=4, dim=3, keys=["new", "idle", "a", "b"])
    before, R0, warm = last_impulses(C, memory)
    assert warm.tolist() == [False, False, True, True]
    np.testing.assert_array_equal(R0, [[0, 0, 0], [0, 0, 0], [1.0, 0.5, -0.25], [2.0, 0, 0]])
    assert before[0].tolist() == [SEPARATED, SEPARATED, STICKING, SLIDING] and before[1] == 1  # "gone" stuck
    now = np.array([STICKING, SEPARATED, STICKING, STICKING], dtype=np.int8)
    r = np.arange(12.0).reshape(4, 3)
    assert remember(memory, C.keys, r, np.array([True, False, True, True]), now, before) == 3  # new, b, gone
    assert list(memory) == [LAST_STEP] and memory[LAST_STEP].impulse is r
    before, R0, warm = last_impulses(C, memory)  # the same keys in the same order
    assert warm.tolist() == [True, False, True, True] and before[1] == 0 and before[0] is now
    np.testing.assert_array_equal(R0, [[0, 1, 2], [0, 0, 0], [6, 7, 8], [9, 10, 11]])
    assert not np.shares_memory(R0, r)  # a copy: the memory stays as it was
    before, R0, warm = last_impulses(SimpleNamespace(n=3, dim=3, keys=["b", "a", "new"]), memory)
    assert warm.tolist() == [True, True, True] and before[1] == 0  # "idle" gone, separated
    np.testing.assert_array_equal(R0, [[9, 10, 11], [6, 7, 8], [0, 1, 2]])
    _, R0, warm = last_impulses(SimpleNamespace(n=0, dim=3, keys=[]), memory)
    assert R0.shape == (0, 3) and warm.shape == (0,)
    _, R0, warm = last_impulses(SimpleNamespace(n=2, dim=3, keys=["a", "b"]), {})  # the first step
    assert R0.shape == (2, 3) and not R0.any() and not warm.any()

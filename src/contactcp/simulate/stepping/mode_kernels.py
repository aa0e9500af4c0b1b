"""Each contact's mode at the end of a Moreau–Jean step and its impulse in world axes, compiled
(:func:`~contactcp.simulate.stepping.moreau_jean._modes`: the rule of
:func:`~contactcp.simulate.stepping.moreau_jean._mode`, contact by contact, in one call)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["contact_modes"]

#: the codes of moreau_jean.MODES (that module imports this one)
_SEPARATED, _STICKING, _SLIDING, _CLOSED = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def contact_modes(imp, vel, frames, d, mu, active, slip_tol):
    """``(codes, sliding directions, world impulses)`` of the contacts: ``imp``, ``vel`` (n, 3) in
    the contact frames ``frames`` (n, 3, 3: columns n, t, o); an inactive contact, or one without a
    positive normal impulse, is separated; a loaded frictionless one (``d == 1`` or ``mu == 0``)
    closed; else sticking when its tangential speed is at most ``slip_tol``, sliding (with its world
    direction) above."""
    n = imp.shape[0]
    modes = np.zeros(n, dtype=np.int8)
    slide = np.zeros((n, 3))
    world = np.empty((n, 3))
    for j in range(n):
        for a in range(3):
            world[j, a] = frames[j, a, 0] * imp[j, 0] + frames[j, a, 1] * imp[j, 1] + frames[j, a, 2] * imp[j, 2]
        if not (active[j] and imp[j, 0] > 0):
            continue
        if d == 1 or mu[j] == 0:
            modes[j] = _CLOSED
            continue
        if math.hypot(vel[j, 1], vel[j, 2]) <= slip_tol:
            modes[j] = _STICKING
            continue
        modes[j] = _SLIDING
        s0 = frames[j, 0, 1] * vel[j, 1] + frames[j, 0, 2] * vel[j, 2]
        s1 = frames[j, 1, 1] * vel[j, 1] + frames[j, 1, 2] * vel[j, 2]
        s2 = frames[j, 2, 1] * vel[j, 1] + frames[j, 2, 2] * vel[j, 2]
        norm = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
        slide[j, 0], slide[j, 1], slide[j, 2] = s0 / norm, s1 / norm, s2 / norm
    return modes, slide, world

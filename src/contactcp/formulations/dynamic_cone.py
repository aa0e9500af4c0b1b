"""The friction-cone problem of a contact state: Coulomb's quadratic law on ``a = A c + b``.

Rolling contacts keep the full cone (Buffo–Maciel (15)–(18), (20)).  A sliding
contact's friction is fixed by its velocity, ``c_T = -mu c_n v_T / ||v_T||``
(eq. (19)); substituting it (eqs. (25)–(28)) changes the normal column of ``A``
to ``A_n - mu A_T v_T/||v_T||`` and leaves only Signorini's condition on the
contact.  In the local problem :class:`~contactcp.problems.FrictionContactProblem`
such a contact keeps its three rows with friction coefficient 0: its remaining
tangential reaction is then forced to zero and its tangential acceleration is
free — exactly the sliding law.
"""

from __future__ import annotations

import numpy as np

from contactcp.models.system import ContactDynamics
from contactcp.problems import FrictionContactProblem

__all__ = ["cone_problem", "cone_forces", "sliding_transform", "sliding_substituted"]


def sliding_transform(cd: ContactDynamics) -> np.ndarray:
    """``T`` with ``c = T r``: identity, except ``-mu v_T/||v_T||`` under each sliding normal."""
    d = cd.dim
    T = np.eye(d * cd.n_c)
    for j in np.flatnonzero(cd.sliding):
        T[d * j + 1 : d * j + d, d * j] = cd.sliding_friction(j)
    return T


def sliding_substituted(cd: ContactDynamics) -> np.ndarray:
    """``Ã`` of Buffo–Maciel eq. (26): rows and columns of the sliding normals and all rolling components."""
    d = cd.dim
    At = cd.A @ sliding_transform(cd)
    keep = [d * j + k for j in range(cd.n_c) for k in range(d) if k == 0 or not cd.sliding[j]]
    return At[np.ix_(keep, keep)]


def cone_problem(cd: ContactDynamics) -> FrictionContactProblem:
    """The local Coulomb-cone problem ``(W, q, mu)`` of a contact state (W = A T, q = b)."""
    mu = np.where(cd.sliding, 0.0, cd.mu)
    return FrictionContactProblem(cd.A @ sliding_transform(cd), cd.b, mu, dim=cd.dim)


def cone_forces(cd: ContactDynamics, r: np.ndarray) -> np.ndarray:
    """Contact forces ``c = T r`` from the local problem's reactions."""
    return sliding_transform(cd) @ r

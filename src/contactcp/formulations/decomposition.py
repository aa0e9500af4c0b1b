"""Yashima & Yamaguchi's rolling/sliding decomposition: one LCP per sign combination (Section III).

For a rolling contact ``i`` and a tangential direction ``•`` (``T``, and ``U`` in
space) the pair (friction ``f_•Ri``, relative acceleration ``a_•Ri``) lies in one
of two sets (eqs. (16)–(17)); with the sign ``sigma = Pi_•i``:

* ``sigma = -1`` (set ``S_1``): ``a_• = -a^-`` with ``a^- >= 0``, ``f_• = +f^+ = mu f_N - Delta^+``;
* ``sigma = +1`` (set ``S_2``): ``a_• = +a^+`` with ``a^+ >= 0``, ``f_• = -f^- = -(mu f_N - Delta^-)``;

i.e. ``a_• = sigma alpha`` and ``f_• = -sigma (mu f_N - Delta)`` with the slack
``Delta`` of eq. (18), and ``alpha Delta = 0``, ``alpha, Delta >= 0`` (eq. (19)).
A sliding contact keeps only its normal pair, its friction being
``f_• = mu~_• f_N``, ``mu~_• = -mu v_• / ||v_T||`` (eq. (5)).  Substituting in
the equations of motion and the kinematics gives, for each combination ``Pi``,
the LCP of eqs. (22), (26)–(28):

    ``w = (a_N, alpha) = A_Pi (f_N, Delta) + b_Pi``,  ``A_Pi = W_Pi^T M^-1 W_mu(Pi-bar)``.

Here it is built from the system map ``a = A c + b`` (:class:`ContactDynamics`)
as ``A_Pi = P A T``, ``b_Pi = P b``, where ``c = T y`` and ``w = P a`` are the
substitutions above (``T`` carries ``W_mu`` with the opposite signs, ``P`` the
signed rows ``W_Pi``) — the same matrices as eq. (27), without forming ``M^-1``.
Variables are ordered contact by contact: ``(f_N)`` for a sliding contact,
``(f_N, Delta_T[, Delta_U])`` for a rolling one.

**The bound (23)** ``Delta <= mu f_N`` depends on the unknowns.  It is *not* a
complementarity row (no multiplier of it enters the dynamics): it is a linear
side condition on the solution set of the combination's LCP, saying that the
friction has the sign the combination assumed (``f^± >= 0``).  A combination is
mechanically feasible iff some solution of its LCP satisfies it.  The
simulation (:mod:`contactcp.analysis.determinacy`) therefore checks (23) on the
unique solution when ``A_Pi`` is a P-matrix and on *every* solution (support
enumeration) otherwise.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from contactcp.models.system import ContactDynamics

__all__ = ["CombinationLCP", "combination_lcp", "sign_combinations", "n_combinations"]


def n_combinations(cd: ContactDynamics) -> int:
    """``2^(n_R (d-1))``: 4 per rolling contact in space, 2 in the plane."""
    return 2 ** (int((~cd.sliding).sum()) * (cd.dim - 1))


def sign_combinations(cd: ContactDynamics) -> Iterator[np.ndarray]:
    """Every ``Pi`` as an ``(n_R, d-1)`` array of ``+1`` (set ``S_2``) / ``-1`` (set ``S_1``)."""
    nR, nt = int((~cd.sliding).sum()), cd.dim - 1
    for signs in itertools.product((1.0, -1.0), repeat=nR * nt):
        yield np.array(signs, dtype=float).reshape(nR, nt)


@dataclass
class CombinationLCP:
    """The LCP of one sign combination and the maps back to forces and accelerations."""

    signs: np.ndarray  #: (n_R, d-1)
    A: np.ndarray  #: A_Pi (eq. (27))
    b: np.ndarray  #: b_Pi (eq. (28))
    T: np.ndarray  #: c = T y
    P: np.ndarray  #: w = P a
    normal: np.ndarray  #: index in y of each contact's f_N
    delta: np.ndarray  #: (n_R, d-1) index in y of each Delta
    bound_mu: np.ndarray  #: (n_R, d-1) mu of the rolling contact of each Delta
    delta_contact: np.ndarray  #: (n_R (d-1),) the contact of each Delta

    @property
    def label(self) -> str:
        """``Pi`` as a string, e.g. ``"+-"`` (per rolling contact, T then U)."""
        return "".join("+" if s > 0 else "-" for s in self.signs.reshape(-1))

    def forces(self, y: np.ndarray) -> np.ndarray:
        return self.T @ y

    def bound_violation(self, y: np.ndarray) -> np.ndarray:
        """``Delta - mu f_N`` for every Delta (eq. (23) holds where this is <= 0)."""
        if self.delta.size == 0:
            return np.zeros(0)
        fN = y[..., self.normal[self.delta_contact]]
        return y[..., self.delta.reshape(-1)] - self.bound_mu.reshape(-1) * fN


def combination_lcp(
    cd: ContactDynamics, signs: np.ndarray, A: np.ndarray | None = None, b: np.ndarray | None = None
) -> CombinationLCP:
    """The LCP (22), (26)–(28) of the combination ``signs`` (rows: rolling contacts in order).

    ``A``, ``b`` default to the system's ``cd.A``, ``cd.b``; passing another ``b``
    (same state, other joint torques) reuses ``T`` and ``P``.
    """
    d, nc = cd.dim, cd.n_c
    signs = np.asarray(signs, dtype=float).reshape(-1, d - 1)
    R = np.flatnonzero(~cd.sliding)
    ny = nc + R.size * (d - 1)
    T = np.zeros((d * nc, ny))
    P = np.zeros((ny, d * nc))
    normal = np.zeros(nc, dtype=int)
    delta = np.zeros((R.size, d - 1), dtype=int)
    contact_of_delta = np.zeros(R.size * (d - 1), dtype=int)
    k = r = 0
    for j in range(nc):
        normal[j] = k
        T[d * j, k] = 1.0
        P[k, d * j] = 1.0
        if cd.sliding[j]:
            T[d * j + 1 : d * j + d, k] = cd.sliding_friction(j)  # f_• = mu~_• f_N  (eq. (5))
            k += 1
            continue
        for t in range(d - 1):
            sg = signs[r, t]
            row, col = d * j + 1 + t, k + 1 + t
            T[row, k] = -sg * cd.mu[j]  # f_• = -sigma (mu f_N - Delta)
            T[row, col] = sg
            P[col, row] = sg  # alpha = sigma a_•
            delta[r, t] = col
            contact_of_delta[r * (d - 1) + t] = j
        k += d
        r += 1
    Afull = cd.A if A is None else A
    bfull = cd.b if b is None else b
    return CombinationLCP(
        signs,
        P @ Afull @ T,
        P @ bfull,
        T,
        P,
        normal,
        delta,
        np.repeat(cd.mu[R], d - 1).reshape(R.size, d - 1),
        contact_of_delta,
    )

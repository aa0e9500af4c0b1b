"""The friction-pyramid LCP of Trinkle–Pang–Sudarsky–Lo (1995).

Pyramid: ``|c_k| <= mu c_n`` for each tangential direction ``k``.  Per contact
(with ``a = A c + b``, Buffo–Maciel eq. (21)):

* normal: ``0 <= c_n ⟂ a_n >= 0``;
* a rolling direction ``k`` (or a sliding contact's direction whose velocity
  component is zero): split ``a_k = a+ - a-`` and use the slacks
  ``s+ = mu c_n + c_k``, ``s- = mu c_n - c_k`` (``s+ + s- = 2 mu c_n``) with
  ``0 <= a+ ⟂ s+ >= 0`` and ``0 <= a- ⟂ s- >= 0`` (the device of Pang–Trinkle–Lo
  eq. (11)).  Eliminating ``c_k = s+ - mu c_n`` leaves the unknowns
  ``z = (c_n, s+, a-)`` with partners ``w = (a_n, a+, s-)``:
  ``a+ = a_k + a-``, ``s- = 2 mu c_n - s+``;
* a sliding direction with velocity ``v_k != 0``: friction at the pyramid
  point of maximal dissipation, ``c_k = -mu c_n sign(v_k)``.

``c = T z`` and ``w = E (A T z + b) + G z`` give the standard ``LCP(M, q)`` with
``M = E A T + G``, ``q = E b``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contactcp.models.system import ContactDynamics
from contactcp.problems import LCP

__all__ = ["PyramidLCP", "pyramid_lcp"]


@dataclass
class PyramidLCP:
    """The LCP and the maps back to forces: ``c = T z``; ``kinds[i]`` names ``z_i``."""

    lcp: LCP
    T: np.ndarray
    kinds: list[tuple[int, str, int]]
    check_law: str = "pyramid"

    @property
    def problem(self) -> LCP:
        """The problem to solve (the formulation protocol of :mod:`contactcp.formulations.laws`)."""
        return self.lcp

    def forces(self, z: np.ndarray) -> np.ndarray:
        return self.T @ z


def pyramid_lcp(cd: ContactDynamics) -> PyramidLCP:
    """Build the pyramid LCP of a contact state."""
    d, n_c, m = cd.dim, cd.n_c, cd.dim * cd.n_c
    kinds: list[tuple[int, str, int]] = []  # (contact, kind, direction)
    for j in range(n_c):
        kinds.append((j, "c_n", 0))
        for k in range(1, d):
            if cd.sliding[j] and cd.v_t[j, k - 1] != 0.0:
                continue
            kinds.append((j, "s+", k))
            kinds.append((j, "a-", k))
    nz = len(kinds)
    index = {kd: i for i, kd in enumerate(kinds)}
    T = np.zeros((m, nz))
    E = np.zeros((nz, m))
    G = np.zeros((nz, nz))
    for i, (j, kind, k) in enumerate(kinds):
        mu = cd.mu[j]
        if kind == "c_n":
            T[d * j, i] = 1.0
            E[i, d * j] = 1.0
            for kk in range(1, d):
                if (j, "s+", kk) in index:
                    T[d * j + kk, i] = -mu  # c_k = s+ - mu c_n
                else:
                    T[d * j + kk, i] = -mu * np.sign(cd.v_t[j, kk - 1])
        elif kind == "s+":
            T[d * j + k, i] = 1.0
            E[i, d * j + k] = 1.0  # a+ = a_k + a-
            G[i, index[(j, "a-", k)]] = 1.0
        else:  # a-: partner s- = 2 mu c_n - s+
            G[i, index[(j, "c_n", 0)]] = 2.0 * mu
            G[i, index[(j, "s+", k)]] = -1.0
    M = E @ cd.A @ T + G
    q = E @ cd.b
    return PyramidLCP(LCP(M, q), T, kinds)

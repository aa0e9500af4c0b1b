"""Equivalent reformulations: box LCP -> mixed LCP -> standard LCP.

Each reduction returns the new problem and a function mapping its solution
back.  Answers are always certified against the *original* problem by the
registry, so a reduction can never make a wrong answer look right.
"""

from __future__ import annotations

import warnings
from typing import Callable

import numpy as np
import scipy.linalg as sla

from ..problems import LCP, BoxLCP, MixedLCP

Recover = Callable[[np.ndarray], np.ndarray]

#: reciprocal condition number below which the free block is not eliminated
_RCOND_MIN = 1e-12


def box_to_mixed(p: BoxLCP) -> tuple[MixedLCP, Recover, str]:
    """Write ``z = base + sigma * s`` with ``s >= 0`` (or free) and a multiplier per doubly bounded variable.

    * lower finite, upper infinite:  ``z = l + s``, ``0 <= s ⟂ w >= 0``
    * lower infinite, upper finite:  ``z = u - s``, ``0 <= s ⟂ -w >= 0``
    * both infinite:                 ``z = s`` free, ``w = 0``
    * both finite: ``z = l + s``, ``0 <= s ⟂ w + lam >= 0``, ``0 <= lam ⟂ u - l - s >= 0``
    """
    n = p.n
    lo_f, up_f = np.isfinite(p.lower), np.isfinite(p.upper)
    sigma = np.where(~lo_f & up_f, -1.0, 1.0)
    base = np.where(lo_f, p.lower, np.where(up_f, p.upper, 0.0))
    double = np.flatnonzero(lo_f & up_f)
    nd = double.size
    MS = p.M * sigma[None, :]
    q0 = p.M @ base + p.q
    M2 = np.zeros((n + nd, n + nd))
    q2 = np.zeros(n + nd)
    M2[:n, :n] = sigma[:, None] * MS
    q2[:n] = sigma * q0
    M2[double, n + np.arange(nd)] = 1.0
    M2[n + np.arange(nd), double] = -1.0
    q2[n:] = p.upper[double] - p.lower[double]
    free = np.zeros(n + nd, dtype=bool)
    free[:n] = ~lo_f & ~up_f

    def recover(s: np.ndarray) -> np.ndarray:
        return base + sigma * s[:n]

    return MixedLCP(M2, q2, free), recover, f"box LCP as a mixed LCP of size {n + nd}"


def mixed_to_lcp(p: MixedLCP) -> tuple[LCP | None, Recover, str]:
    """Eliminate the free variables (Schur complement) when their block is well conditioned,
    otherwise split each free variable ``v = v+ - v-`` with rows ``G >= 0 ⟂ v+`` and ``-G >= 0 ⟂ v-``.
    """
    f = np.flatnonzero(p.free)
    c = np.flatnonzero(~p.free)
    n = p.n
    if f.size == 0:
        return LCP(p.M, p.q), lambda z: z, "no free variables"
    Mff = p.M[np.ix_(f, f)]
    Mfc = p.M[np.ix_(f, c)]
    Mcf = p.M[np.ix_(c, f)]
    Mcc = p.M[np.ix_(c, c)]
    lu = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            lu = sla.lu_factor(Mff, check_finite=False)
        diag = np.abs(np.diag(lu[0]))
        if diag.min() <= _RCOND_MIN * max(diag.max(), 1e-300):
            lu = None  # (nearly) singular free block: split instead
    except (ValueError, np.linalg.LinAlgError):
        lu = None
    if lu is not None and c.size:
        S = sla.lu_solve(lu, np.column_stack([Mfc, p.q[f]]), check_finite=False)
        Mred = Mcc - Mcf @ S[:, :-1]
        qred = p.q[c] - Mcf @ S[:, -1]

        def recover(z: np.ndarray) -> np.ndarray:
            x = np.empty(n)
            x[c] = z
            x[f] = -(S[:, :-1] @ z + S[:, -1])
            return x

        return LCP(Mred, qred), recover, f"free block eliminated (Schur complement, LCP of size {c.size})"
    if lu is not None:
        xf = -sla.lu_solve(lu, p.q[f], check_finite=False)
        x = np.empty(n)
        x[f] = xf
        # no complementarity rows at all: a linear system, nothing left to pivot on
        return None, lambda z: x.copy(), "only free variables: solved as a linear system"
    nf, nc = f.size, c.size
    N = nc + 2 * nf
    M2 = np.zeros((N, N))
    q2 = np.zeros(N)
    blocks_c = np.hstack([Mcc, Mcf, -Mcf])
    blocks_f = np.hstack([Mfc, Mff, -Mff])
    M2[:nc] = blocks_c
    M2[nc:nc + nf] = blocks_f
    M2[nc + nf:] = -blocks_f
    q2[:nc] = p.q[c]
    q2[nc:nc + nf] = p.q[f]
    q2[nc + nf:] = -p.q[f]

    def recover_split(z: np.ndarray) -> np.ndarray:
        x = np.empty(n)
        x[c] = z[:nc]
        x[f] = z[nc:nc + nf] - z[nc + nf:]
        return x

    return LCP(M2, q2), recover_split, f"free variables split v = v+ - v- (LCP of size {N})"


def to_lcp(p) -> tuple[LCP | None, Recover, str]:
    """Any linear complementarity problem as a standard LCP plus a map back.

    The LCP is None when nothing is left to pivot on (only free variables);
    then ``recover(np.zeros(0))`` is the answer.
    """
    if isinstance(p, LCP):
        return p, lambda z: z, ""
    if isinstance(p, MixedLCP):
        return mixed_to_lcp(p)
    if isinstance(p, BoxLCP):
        mixed, rec1, note1 = box_to_mixed(p)
        lcp, rec2, note2 = mixed_to_lcp(mixed)
        return lcp, (lambda z: rec1(rec2(z))), f"{note1}; {note2}"
    raise TypeError(f"no LCP reduction for {type(p).__name__}")

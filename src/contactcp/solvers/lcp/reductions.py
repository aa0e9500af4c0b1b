"""Equivalent reformulations: box LCP -> mixed LCP -> standard LCP, and back.

Each reduction maps a problem to a standard LCP (:class:`Reduction`: ``recover`` maps the LCP's
solution back, ``pullback`` maps a Farkas vector of the LCP to a *candidate* Farkas vector of the
original).  Answers are always certified against the *original* problem: the registry measures a
returned point with the user's problem, and a "no solution" verdict needs a Farkas proof checked
exactly on the user's data (:mod:`contactcp.linalg.farkas`).  A reduction computed in floating
point (the Schur complement of the free block, the shift of a box by its bounds) has rounded data,
so its proofs are only candidates; the split reduction ``v = v+ - v-`` copies the data exactly.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from contactcp.errors import InvalidProblemError
from contactcp.problems import LCP, BoxLCP, MixedLCP
from contactcp.problems.lcp import farkas_certificate
from contactcp.result import Status
from contactcp.solvers.lcp import polish

Recover = Callable[[np.ndarray], np.ndarray]

#: reciprocal condition number below which the free block is not eliminated
_RCOND_MIN = 1e-12


@dataclass
class Reduction:
    """A standard LCP standing for a mixed or box LCP (None: nothing left to pivot on, and
    ``recover(np.zeros(0))`` is the answer)."""

    lcp: LCP | None
    recover: Recover
    pullback: Callable[[np.ndarray], np.ndarray]
    note: str
    exact: bool  #: True when the LCP's data are exact copies of the original's


def _identity(z: np.ndarray) -> np.ndarray:
    return z


def box_to_mixed(p: BoxLCP) -> tuple[MixedLCP, Recover, Callable[[np.ndarray], np.ndarray], str]:
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
    with np.errstate(over="ignore"):  # a width beyond the float range is refused by MixedLCP below
        q2[n:] = p.upper[double] - p.lower[double]
    free = np.zeros(n + nd, dtype=bool)
    free[:n] = ~lo_f & ~up_f

    def recover(s: np.ndarray) -> np.ndarray:
        return base + sigma * s[:n]

    def pullback(y2: np.ndarray) -> np.ndarray:
        # the rows of w2 = sigma w (+ lam): y_i = sigma_i y2_i; the box form gives doubly bounded rows no
        # multiplier (the prover clips them)
        return sigma * y2[:n]

    return MixedLCP(M2, q2, free), recover, pullback, f"box LCP as a mixed LCP of size {n + nd}"


def mixed_to_lcp(p: MixedLCP, split: bool = False) -> Reduction:
    """Eliminate the free variables (Schur complement) when their block is well conditioned and
    ``split`` is False; otherwise split each free variable ``v = v+ - v-`` with rows ``G >= 0 ⟂ v+``
    and ``-G >= 0 ⟂ v-`` (exact copies of the data).
    """
    f = np.flatnonzero(p.free)
    c = np.flatnonzero(~p.free)
    n = p.n
    if f.size == 0:
        return Reduction(LCP(p.M, p.q), _identity, _identity, "no free variables", True)
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
    if lu is not None and not c.size:
        xf = -sla.lu_solve(lu, p.q[f], check_finite=False)
        x = np.empty(n)
        x[f] = xf
        # no complementarity rows at all: a linear system, nothing left to pivot on
        return Reduction(None, lambda z: x.copy(), _identity, "only free variables: solved as a linear system", False)
    if lu is not None and not split:
        S = sla.lu_solve(lu, np.column_stack([Mfc, p.q[f]]), check_finite=False)
        Mred = Mcc - Mcf @ S[:, :-1]
        qred = p.q[c] - Mcf @ S[:, -1]
        if np.all(np.isfinite(Mred)) and np.all(np.isfinite(qred)):

            def recover(z: np.ndarray) -> np.ndarray:
                x = np.empty(n)
                x[c] = z
                x[f] = -(S[:, :-1] @ z + S[:, -1])
                return x

            def pullback(y: np.ndarray) -> np.ndarray:
                # y_c = y, y_f from (M^T y)_f = Mcf^T y_c + Mff^T y_f = 0
                out = np.empty(n)
                out[c] = y
                out[f] = -sla.lu_solve(lu, Mcf.T @ y, trans=1, check_finite=False)
                return out

            return Reduction(
                LCP(Mred, qred),
                recover,
                pullback,
                f"free block eliminated (Schur complement, LCP of size {c.size})",
                False,
            )
    nf, nc = f.size, c.size
    N = nc + 2 * nf
    M2 = np.zeros((N, N))
    q2 = np.zeros(N)
    blocks_c = np.hstack([Mcc, Mcf, -Mcf])
    blocks_f = np.hstack([Mfc, Mff, -Mff])
    M2[:nc] = blocks_c
    M2[nc : nc + nf] = blocks_f
    M2[nc + nf :] = -blocks_f
    q2[:nc] = p.q[c]
    q2[nc : nc + nf] = p.q[f]
    q2[nc + nf :] = -p.q[f]

    def recover_split(z: np.ndarray) -> np.ndarray:
        x = np.empty(n)
        x[c] = z[:nc]
        x[f] = z[nc : nc + nf] - z[nc + nf :]
        return x

    def pullback_split(y: np.ndarray) -> np.ndarray:
        out = np.empty(n)
        out[c] = y[:nc]
        out[f] = y[nc : nc + nf] - y[nc + nf :]
        return out

    return Reduction(
        LCP(M2, q2), recover_split, pullback_split, f"free variables split v = v+ - v- (LCP of size {N})", True
    )


def to_lcp(p, split: bool = False) -> Reduction:
    """Any linear complementarity problem as a standard LCP plus the maps back."""
    if isinstance(p, LCP):
        return Reduction(p, _identity, _identity, "", True)
    if isinstance(p, MixedLCP):
        return mixed_to_lcp(p, split)
    if isinstance(p, BoxLCP):
        mixed, rec1, pb1, note1 = box_to_mixed(p)
        red = mixed_to_lcp(mixed, split)
        rec2, pb2 = red.recover, red.pullback
        return Reduction(red.lcp, lambda z: rec1(rec2(z)), lambda y: pb1(pb2(y)), f"{note1}; {red.note}", False)
    raise TypeError(f"no LCP reduction for {type(p).__name__}")


def via_lcp(problem, tol: float, lcp_method, opts: dict):
    """Solve a mixed or box LCP through a standard-LCP reduction, with every verdict about ``problem``.

    A point is mapped back (the registry certifies it on ``problem``).  A "no solution" of the
    reduced LCP is no proof about ``problem``: its Farkas vector is pulled back and checked exactly
    on ``problem``'s data; failing that, an LP over ``problem``'s data looks for a proof.  When the
    rounded Schur-complement reduction gives no certified answer, the exact split reduction is
    tried as well.  Returns the solver's ``Raw``.
    """
    from contactcp.solvers.registry import Raw

    tried = []
    for split in (False, True):
        try:
            red = to_lcp(problem, split)
        except InvalidProblemError as exc:  # the reduced data left the floating-point range
            return Raw(None, Status.NUMERICAL_FAILURE, 0, f"the reduction to an LCP cannot be formed: {exc}")
        if red.lcp is None:
            return Raw(red.recover(np.zeros(0)), Status.SOLVED, 0, red.note)
        raw = lcp_method(red.lcp, tol, **opts)
        raw.stats["reduction"] = red.note
        raw.message = f"{raw.message} [{red.note}]"
        raw.w = None
        if raw.x is not None:
            raw.x = red.recover(raw.x)
            if problem.residual(raw.x).value > tol and isinstance(problem, MixedLCP):
                raw.x, done = polish.better(problem, raw.x, problem.free)
                if done:
                    raw.stats["polished"] = True
                    raw.message += " (active-set polish with refinement)"
            if problem.residual(raw.x).value <= tol:
                return raw
        ray = raw.certificate.vector if raw.certificate is not None else raw.stats.pop("ray", None)
        if raw.status in (Status.NO_SOLUTION, Status.RAY_TERMINATION):
            cand = None
            if ray is not None and np.size(ray) == red.lcp.n:
                with np.errstate(all="ignore"):
                    cand = red.pullback(np.asarray(ray, dtype=float))
            cert = farkas_certificate(
                problem,
                cand,
                "the reduced LCP's Farkas vector, pulled back to the problem's own data and verified there",
            )
            if cert is not None:
                return Raw(
                    None,
                    Status.NO_SOLUTION,
                    raw.iterations,
                    f"no solution (verified Farkas certificate about the problem as given) [{red.note}]",
                    certificate=cert,
                    stats=raw.stats,
                )
            if raw.status is Status.NO_SOLUTION:
                raw.status = Status.RAY_TERMINATION
                raw.message = (
                    "the reduced LCP has no solution, but its proof does not carry over to the problem "
                    "as given (the reduction rounds its data) and none was found on that data: "
                    "no conclusion" + f" [{red.note}]"
                )
            raw.certificate = None
        tried.append(raw)
        if red.exact:
            break
    return min(tried, key=lambda r: np.inf if r.x is None else problem.residual(r.x).value)

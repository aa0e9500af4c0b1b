"""Yashima & Yamaguchi's simulation algorithm (Section III-C): dynamic determinacy of a contact state.

For every sign combination ``Pi`` (:mod:`contactcp.formulations.decomposition`)
the LCP (22), (26)–(28) is solved and its solutions are checked against the
bound (23); the mechanically feasible ones are collected.  The verdict:

* ``determinate`` — exactly one physical solution (forces and accelerations) is
  feasible, and the matrix ``A_Pi`` of its combination is a P-matrix (so the
  LCP has that solution and no other, for every right-hand side);
* ``several`` — more than one distinct feasible solution;
* ``none`` — no combination is feasible;
* ``not-P`` — one feasible solution, but its ``A_Pi`` is not a P-matrix;
* ``undecided`` — the P-matrix test could not decide, ``A_Pi`` is a P-matrix
  only by a margin below :data:`P_MARGIN` (below), or a combination too large
  to enumerate was not a P-matrix (its solution set is not known).

Two combinations can give the *same* physical solution (a rolling contact with
zero friction in one direction, or a breaking contact with zero tangential
acceleration, satisfies both signs); they count as one solution, and
``feasible_combinations`` reports the raw count.

Each contact's transition follows from the relative accelerations (the
paper's cases): rolling (a1) ``a_N = a_T = 0`` stays rolling, (a2) ``a_N = 0,
a_T != 0`` starts sliding, (a3) ``a_N > 0`` breaks; sliding (b1) ``a_N = 0``
keeps sliding, (b2) ``a_N > 0`` breaks.  "Zero" means below ``mode_tol`` times
the acceleration scale of the state (``max(|b|, |A c|)``), so it is relative to
the data.  Every solution is rechecked against the original conditions
(equations of motion, Signorini, the pyramid friction law) by
:func:`contactcp.interpret.dynamic.check_dynamic`.

**What is exact and what is a tolerance.**  The P-matrix verdict on each
``A_Pi`` is exact for that matrix (:func:`contactcp.linalg.pmatrix.p_matrix_test`:
every sign proven, an exactly singular minor is "not P"), and a "not-P"
verdict rests on it.  Everything else compares *numerical solutions* with the
state's own scales, and a tolerance is the right notion there, because the
solutions are approximations certified to a residual ``tol``: feasibility of
a solution under the bound (23) and ``f_N >= 0`` (``BOUND_RTOL``), whether two
solutions are the same physical solution (``SAME_RTOL``, so ``several``
means two certified solutions farther apart than that), and the modes
(``mode_tol``).  A "determinate" verdict additionally asks the P verdict for a
margin: ``A_Pi = P A T`` is computed in floating point from the model (mass
matrix, Jacobians, products), so a matrix that is P only by a relative margin
below :data:`P_MARGIN` (its smallest dominance margin, relative eigenvalue or
pivot ratio, ``PMatrixVerdict.margin``) is not evidence that the *model* is
determinate — a physically indeterminate state (e.g. two contacts whose rows
coincide) can round to a barely-P matrix on one machine and to a singular one
on another — and the verdict is ``undecided`` rather than ``determinate``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactcp import settings
from contactcp.errors import InvalidOptionError
from contactcp.formulations.decomposition import CombinationLCP, combination_lcp, n_combinations, sign_combinations
from contactcp.interpret.dynamic import MODE_TOL, check_dynamic, classify
from contactcp.linalg.pmatrix import PMatrixVerdict, p_matrix_test
from contactcp.models.system import ContactDynamics, MultibodySystem
from contactcp.problems import LCP
from contactcp.result import Status
from contactcp.solvers.registry import solve

#: tolerance of the independent check of every feasible solution (as for :func:`contactcp.solve_dynamic`)
CHECK_TOL = settings.CHECK_TOL

__all__ = [
    "CombinationOutcome",
    "Determinacy",
    "analyse",
    "transition_codes",
    "p_rank",
    "VERDICTS",
    "ENUMERATE_MAX_N",
    "P_MARGIN",
]

#: the verdicts of :func:`analyse`
VERDICTS = ("determinate", "several", "none", "not-P", "undecided")
#: combinations whose A is not a P-matrix are solved by support enumeration up to this size
ENUMERATE_MAX_N = 14
#: relative tolerance of the bound (23) and of the comparison of solutions
BOUND_RTOL = 1e-9
SAME_RTOL = 1e-7
#: a P verdict makes a state determinate only with a margin above this (see the module docstring)
P_MARGIN = 1e-10


def p_rank(v: PMatrixVerdict) -> int:
    """2: P with a margin above :data:`P_MARGIN`; 1: P by a smaller margin, or undecided; 0: not P (proven)."""
    if v.is_p is False:
        return 0
    if v.is_p is True and v.margin is not None and v.margin > P_MARGIN:
        return 2
    return 1


@dataclass
class CombinationOutcome:
    """One sign combination: its LCP, the P-matrix verdict, all solutions found and the feasible ones."""

    lcp: CombinationLCP
    p_matrix: PMatrixVerdict
    solutions: list[np.ndarray]
    feasible: list[np.ndarray]
    complete: bool  #: True when ``solutions`` is the whole solution set
    method: str

    @property
    def label(self) -> str:
        return self.lcp.label


@dataclass
class Determinacy:
    """The verdict for one contact state, and its unique answer when determinate."""

    dynamics: ContactDynamics
    verdict: str
    combinations: list[CombinationOutcome]
    feasible_combinations: int  #: combinations with at least one feasible solution
    distinct_solutions: int
    p_matrix: bool | None
    p_test: str
    c: np.ndarray | None = None
    a: np.ndarray | None = None
    accelerations: np.ndarray | None = None
    modes: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    max_violation: float = float("nan")
    combination: str | None = None

    @property
    def determinate(self) -> bool:
        return self.verdict == "determinate"

    @property
    def transitions(self) -> list[str]:
        states = ["sliding" if s else "rolling" for s in self.dynamics.sliding]
        return [("unchanged" if m == s else f"{s}->{m}") for s, m in zip(states, self.modes)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "determinate": self.determinate,
            "feasible_combinations": self.feasible_combinations,
            "distinct_solutions": self.distinct_solutions,
            "p_matrix": self.p_matrix,
            "p_test": self.p_test,
            "combination": self.combination,
            "modes": self.modes,
            "codes": self.codes,
            "transitions": self.transitions,
            "c": None if self.c is None else self.c.tolist(),
            "a": None if self.a is None else self.a.tolist(),
            "max_violation": self.max_violation,
            "combinations": [
                {
                    "signs": o.label,
                    "p_matrix": o.p_matrix.is_p,
                    "p_test": o.p_matrix.test,
                    "solutions": len(o.solutions),
                    "feasible": len(o.feasible),
                    "complete": o.complete,
                    "method": o.method,
                }
                for o in self.combinations
            ],
        }


def transition_codes(cd: ContactDynamics, c: np.ndarray, a: np.ndarray, mode_tol: float = MODE_TOL) -> list[str]:
    """The paper's transition labels (a1)–(a3), (b1)–(b2) per contact."""
    out = []
    for o in classify(cd, c, a, mode_tol):
        if o.state == "rolling":
            out.append({"rolling": "a1", "sliding": "a2", "breaking": "a3"}[o.mode])
        else:
            out.append("b2" if o.mode == "breaking" else "b1")
    return out


def _solve_combination(comb: CombinationLCP, tol: float, p_exact_max_n: int) -> CombinationOutcome:
    n = comb.b.size
    pv = p_matrix_test(comb.A, exact_max_n=p_exact_max_n)
    prob = LCP(comb.A, comb.b)
    if pv.is_p:
        res = solve(prob, "lemke", tol=tol)
        sols = [res.x] if res.success else []
        complete, method = res.success, "lemke"
    elif n <= ENUMERATE_MAX_N:
        res = solve(prob, "enumerate", tol=tol)
        sols = list(res.stats.get("solutions", [])) if res.x is not None else []
        # complete only when every support gave at most one point (no singular principal block:
        # there the solution set may be a continuum, of which one LP point was checked) and the
        # search itself was certified (a solution, or an exhaustive search that found none)
        complete = res.stats.get("singular_points", 0) == 0 and (res.success or res.status is Status.NO_SOLUTION)
        method = "enumerate"
    else:
        res = solve(prob, "lemke", tol=tol)
        sols = [res.x] if res.success else []
        complete, method = False, "lemke"
    feasible = []
    for y in sols:
        if not prob.residual(y).value <= tol:  # a candidate that is not a certified solution
            complete = False
            continue
        fN = y[comb.normal]
        scale = max(float(np.abs(y).max(initial=0.0)), float(np.abs(comb.b).max(initial=0.0)), 1e-300)
        if np.all(comb.bound_violation(y) <= BOUND_RTOL * scale) and np.all(fN >= -BOUND_RTOL * scale):
            feasible.append(y)
    return CombinationOutcome(comb, pv, sols, feasible, complete, method)


def _same(cd: ContactDynamics, c1: np.ndarray, c2: np.ndarray, a1: np.ndarray, a2: np.ndarray) -> bool:
    """Whether two solutions are the same physical solution, within ``SAME_RTOL`` of the state's
    scales: accelerations against ``max(|a|, |b|)``, forces against ``max(|c|, |b| / max|A|)``
    (the data's scales, so that a body at rest, ``a = 0``, is not compared on its round-off)."""
    b_s = float(np.abs(cd.b).max(initial=0.0))
    as_ = max(np.abs(a1).max(initial=0), np.abs(a2).max(initial=0), b_s, 1e-300)
    cs = max(
        np.abs(c1).max(initial=0),
        np.abs(c2).max(initial=0),
        b_s / max(float(np.abs(cd.A).max(initial=0.0)), 1e-300),
        1e-300,
    )
    return bool(np.abs(c1 - c2).max() <= SAME_RTOL * cs and np.abs(a1 - a2).max() <= SAME_RTOL * as_)


def analyse(
    system: MultibodySystem | ContactDynamics,
    tol: float = 1e-9,
    *,
    p_exact_max_n: int = 20,
    mode_tol: float = MODE_TOL,
    max_combinations: int = 4096,
    check_tol: float = CHECK_TOL,
) -> Determinacy:
    """Solve every sign combination of the state and return the determinacy verdict (Section III-C).

    Every feasible solution is checked against the original conditions (equations of motion,
    Signorini, the friction law of the decomposition) within ``check_tol``; a failed check makes
    the verdict ``undecided``, as does a combination whose solution set could not be enumerated
    exactly (a singular principal block, or a candidate that is not a certified LCP solution).
    ``feasible_combinations`` counts the combinations with at least one feasible solution.
    """
    if not isinstance(system, (MultibodySystem, ContactDynamics)):
        raise InvalidOptionError("system", f"must be a MultibodySystem or ContactDynamics, got {type(system).__name__}")
    for name, v in (("tol", tol), ("mode_tol", mode_tol), ("check_tol", check_tol)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (np.isfinite(v) and v > 0):
            raise InvalidOptionError(name, f"must be a positive finite number, got {v!r}")
    for name, v in (("p_exact_max_n", p_exact_max_n), ("max_combinations", max_combinations)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise InvalidOptionError(name, f"must be a non-negative integer, got {v!r}")
    cd = system.dynamics() if isinstance(system, MultibodySystem) else system
    if n_combinations(cd) > max_combinations:
        raise InvalidOptionError(
            "max_combinations", f"the state has {n_combinations(cd)} sign combinations (> {max_combinations})"
        )
    outcomes = [_solve_combination(combination_lcp(cd, s), tol, p_exact_max_n) for s in sign_combinations(cd)]
    # each distinct physical solution: (c, a, dV/dt, violation, the combinations that give it)
    found: list[list[Any]] = []
    certified = True
    for o in outcomes:
        for y in o.feasible:
            c = o.lcp.forces(y)
            viol, a, Vdot = check_dynamic(cd, c, "decomposition")
            if not viol <= check_tol:  # the independent check of the original conditions
                certified = False
            for f in found:
                if _same(cd, c, f[0], a, f[1]):
                    f[4].append(o)
                    break
            else:
                found.append([c, a, Vdot, viol, [o]])
    n_feasible = sum(1 for o in outcomes if o.feasible)
    complete = certified and all(o.complete for o in outcomes)
    best_p = None
    if len(found) == 1:
        # the solution is unique for every right-hand side if any combination that gives it is P
        # (with a margin: see the module docstring); the first of the best rank
        pvs = [o.p_matrix for o in found[0][4]]
        best_p = max(pvs, key=p_rank)
    if not complete:
        verdict = "several" if len(found) > 1 and certified else "undecided"
    elif len(found) > 1:
        verdict = "several"
    elif not found:
        verdict = "none"
    else:
        verdict = ("not-P", "undecided", "determinate")[p_rank(best_p)]
    out = Determinacy(cd, verdict, outcomes, n_feasible, len(found), None, "none")
    if len(found) == 1:
        c, a, Vdot, viol, combos = found[0]
        o = next(x for x in combos if x.p_matrix is best_p)
        out.p_matrix, out.p_test, out.combination = best_p.is_p, best_p.test, o.label
        out.c, out.a, out.accelerations, out.max_violation = c, a, Vdot, viol
        out.modes = [x.mode for x in classify(cd, c, a, mode_tol)]
        out.codes = transition_codes(cd, c, a, mode_tol)
    return out

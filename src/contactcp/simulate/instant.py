"""One call from a multibody contact state to certified forces, accelerations and modes.

>>> import numpy as np
>>> from contactcp.models import RigidBody, Contact, MultibodySystem
>>> block = RigidBody(mass=1.0, wrench=[2.0, 0, 0, 0, 0, 0])   # pushed sideways; gravity is added
>>> contacts = [Contact(0, [x, y, 0], [0, 0, 1], mu=0.5) for x in (-1, 1) for y in (-1, 1)]
>>> out = solve_dynamic(MultibodySystem([block], contacts), friction="pyramid")
>>> out.status.name, sorted({c.mode for c in out.contacts})
('SOLVED', ['rolling'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactcp import settings
from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.formulations.laws import formulate, friction_laws, law_for_method
from contactcp.formulations.theorem2 import theorem2
from contactcp.interpret.dynamic import ContactOutcome, check_dynamic, classify
from contactcp.models.system import ContactDynamics, MultibodySystem
from contactcp.problems import FrictionContactProblem
from contactcp.result import Result
from contactcp.settings import DEFAULT_TOL
from contactcp.simulate.result import PipelineResult
from contactcp.solvers.registry import solve

__all__ = ["DynamicResult", "solve_dynamic", "solve_cone", "CHECK_TOL", "FRICTION_LAWS"]

#: tolerance of the independent check of the original contact conditions
CHECK_TOL = settings.CHECK_TOL

#: friction laws / formulations accepted by :func:`solve_dynamic` (:mod:`contactcp.formulations.laws`)
FRICTION_LAWS = friction_laws()


@dataclass(repr=False)
class DynamicResult(PipelineResult):
    """The certified complementarity result plus the mechanics of one contact state.

    ``status`` follows :class:`~contactcp.simulate.result.PipelineResult`'s rule: the solver's
    certified status, downgraded to ``INACCURATE`` when the independent check of the original
    conditions (``max_violation``) exceeds ``check_tol``.
    """

    dynamics: ContactDynamics
    friction: str
    result: Result
    contacts: list[ContactOutcome] = field(default_factory=list)
    accelerations: np.ndarray | None = None
    max_violation: float = float("nan")
    theorem2: dict[str, Any] = field(default_factory=dict)
    check_tol: float = CHECK_TOL
    formulation: Any = None

    def _checks_pass(self) -> bool:
        return bool(self.max_violation <= self.check_tol)

    @property
    def c(self) -> np.ndarray | None:
        return None if not self.contacts else np.concatenate([o.c for o in self.contacts])

    @property
    def a(self) -> np.ndarray | None:
        return None if not self.contacts else np.concatenate([o.a for o in self.contacts])

    def _facts(self) -> dict[str, Any]:
        return {
            "friction": self.friction,
            "contacts": len(self.dynamics.names),
            "residual": self.residual,
            "check": float(self.max_violation),
        }

    def _details(self) -> list[str]:
        lines = [f"  Theorem 2 (full column rank, A~ positive definite): {self.theorem2.get('holds')}"]
        if self.contacts and not self.success:
            lines.append("  no certified solution: the values below are the solver's last iterate")
        for o in self.contacts:
            lines.append(
                f"  {o.name:6s} c = [{', '.join(f'{v: .5g}' for v in o.c)}]  "
                f"a = [{', '.join(f'{v: .5g}' for v in o.a)}]  {o.mode:8s} {o.transition}"
            )
        return lines

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "max_violation": float(self.max_violation),
            "friction": self.friction,
            "theorem2": self.theorem2,
            "contacts": [o.to_dict() for o in self.contacts],
        }


def solve_cone(
    problem: FrictionContactProblem, method: str | None = None, tol: float = DEFAULT_TOL, **options: Any
) -> Result:
    """Solve a Coulomb-cone problem: :func:`contactcp.solve` (``method=None`` runs the default
    chain, :data:`contactcp.solvers.catalog.FRICTION_CHAIN`: NSGS, the proximal-point method,
    Newton, ADMM, a long NSGS, while the answers are inconclusive)."""
    return solve(problem, method, tol=tol, **options)


def solve_dynamic(
    system: MultibodySystem | ContactDynamics,
    friction: str | None = "pyramid",
    method: str | None = None,
    tol: float = DEFAULT_TOL,
    check_tol: float = CHECK_TOL,
    **options: Any,
) -> DynamicResult:
    """Contact forces, relative accelerations and modes of a contact state.

    ``friction`` names a registered friction law (:func:`contactcp.formulations.laws.friction_laws`;
    None: the law the named ``method`` is for, :func:`~contactcp.formulations.laws.law_for_method`):
    ``"pyramid"`` solves the LCP of :mod:`contactcp.formulations.pyramid_lcp` (default: the LCP
    chain of :func:`contactcp.solve`, Lemke first; ``"interior-point"``, ``"bpp"`` also apply);
    ``"cone"`` the Coulomb-cone problem (default: the cone chain, NSGS, the proximal-point method, Newton, ADMM
    while inconclusive); ``"mncp"`` the same Coulomb law written as Buffo & Maciel's mixed NCP
    (eqs. (29)–(36), or the LCP (45) when every contact slides; default method ``"merit"``), kept in
    ``formulation`` (a :class:`~contactcp.formulations.buffo_mncp.BuffoMNCP`) so that
    ``formulation.unpack(result.x)`` gives ``s`` and ``lambda`` (the mixed NCP is stated in
    dimensionless units: a start ``x0`` for ``"merit"`` is divided by ``formulation.x_unit``; see
    :mod:`contactcp.formulations.buffo_mncp`).  The answer's forces are checked against the
    original conditions by :func:`contactcp.interpret.dynamic.check_dynamic`.
    """
    if not isinstance(system, (MultibodySystem, ContactDynamics)):
        raise InvalidProblemError(
            "system", f"must be a MultibodySystem or ContactDynamics, got {type(system).__name__}"
        )
    if isinstance(check_tol, bool) or not isinstance(check_tol, (int, float)) or not check_tol > 0:
        raise InvalidOptionError("check_tol", f"must be a positive number, got {check_tol!r}")
    cd = system.dynamics() if isinstance(system, MultibodySystem) else system
    if friction is None:
        friction = "pyramid" if method is None else law_for_method(method)
    form = formulate(cd, friction)
    res = solve(form.problem, method, tol=tol, **options)
    out = DynamicResult(cd, friction, res, theorem2=theorem2(cd), check_tol=check_tol, formulation=form)
    if res.x is None:
        return out
    c = form.forces(res.x)
    viol, a, Vdot = check_dynamic(cd, c, form.check_law)
    out.contacts = classify(cd, c, a)
    out.accelerations = Vdot
    out.max_violation = viol
    return out

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

from contactcp.solvers.registry import DEFAULT_TOL, solve
from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.formulations.buffo_mncp import buffo_mncp
from contactcp.formulations.dynamic_cone import cone_forces, cone_problem
from contactcp.formulations.pyramid_lcp import pyramid_lcp
from contactcp.formulations.theorem2 import theorem2
from contactcp.interpret.dynamic import ContactOutcome, check_dynamic, classify
from contactcp.models.system import ContactDynamics, MultibodySystem
from contactcp.problems import FrictionContactProblem
from contactcp.result import Result, Status

__all__ = ["DynamicResult", "solve_dynamic", "solve_cone", "CHECK_TOL", "FRICTION_LAWS"]

#: tolerance of the independent check of the original contact conditions
CHECK_TOL = 1e-7

#: friction laws / formulations accepted by :func:`solve_dynamic`
FRICTION_LAWS = ("pyramid", "cone", "mncp")


@dataclass
class DynamicResult:
    """The certified complementarity result plus the mechanics.

    ``status`` is the solver's (certified) status, downgraded to ``INACCURATE``
    when the independent check of the original conditions exceeds ``check_tol``.
    """

    dynamics: ContactDynamics
    friction: str
    result: Result
    contacts: list[ContactOutcome] = field(default_factory=list)
    accelerations: np.ndarray | None = None
    max_violation: float = float("nan")
    theorem2: dict[str, Any] = field(default_factory=dict)
    status: Status = Status.NUMERICAL_FAILURE
    check_tol: float = CHECK_TOL
    formulation: Any = None

    @property
    def success(self) -> bool:
        return self.status is Status.SOLVED

    @property
    def c(self) -> np.ndarray | None:
        return None if not self.contacts else np.concatenate([o.c for o in self.contacts])

    @property
    def a(self) -> np.ndarray | None:
        return None if not self.contacts else np.concatenate([o.a for o in self.contacts])

    def to_dict(self) -> dict[str, Any]:
        r = self.result
        return {
            "status": self.status.name, "success": self.success,
            "residual": None if r.residual is None else float(r.residual.value),
            "max_violation": float(self.max_violation), "method": r.method, "friction": self.friction,
            "iterations": r.iterations, "time": r.time, "message": r.message,
            "theorem2": self.theorem2,
            "contacts": [o.to_dict() for o in self.contacts],
        }


def solve_cone(problem: FrictionContactProblem, method: str | None = None, tol: float = 1e-9,
               **options: Any) -> Result:
    """Solve a Coulomb-cone problem: :func:`contactcp.solve` (``method=None`` runs the default
    chain: semismooth Newton, then NSGS when Newton ends without a certified answer, returning the
    better of the two)."""
    return solve(problem, method, tol=tol, **options)


def solve_dynamic(system: MultibodySystem | ContactDynamics, friction: str = "pyramid",
                  method: str | None = None, tol: float = DEFAULT_TOL, check_tol: float = CHECK_TOL,
                  **options: Any) -> DynamicResult:
    """Contact forces, relative accelerations and modes of a contact state.

    ``friction="pyramid"`` solves the LCP of :mod:`contactcp.formulations.pyramid_lcp`
    (default: the LCP chain of :func:`contactcp.solve`, Lemke first; ``"interior-point"``,
    ``"bpp"`` also apply); ``friction="cone"`` the Coulomb-cone problem (default: ``"newton"``,
    then ``"nsgs"`` if Newton does not reach ``tol``); ``friction="mncp"`` the same
    Coulomb law written as Buffo & Maciel's mixed NCP (eqs. (29)–(36), or the LCP
    (45) when every contact slides; default method ``"merit"``), kept in
    ``formulation`` (a :class:`~contactcp.formulations.buffo_mncp.BuffoMNCP`)
    so that ``formulation.unpack(result.x)`` gives ``s`` and ``lambda`` (the mixed NCP is
    stated in dimensionless units: a start ``x0`` for ``"merit"`` is divided by
    ``formulation.x_unit``; see :mod:`contactcp.formulations.buffo_mncp`).
    """
    if not isinstance(system, (MultibodySystem, ContactDynamics)):
        raise InvalidProblemError("system", f"must be a MultibodySystem or ContactDynamics, "
                                            f"got {type(system).__name__}")
    if isinstance(check_tol, bool) or not isinstance(check_tol, (int, float)) or not check_tol > 0:
        raise InvalidOptionError("check_tol", f"must be a positive number, got {check_tol!r}")
    cd = system.dynamics() if isinstance(system, MultibodySystem) else system
    if friction not in FRICTION_LAWS:
        raise InvalidOptionError("friction", f"must be one of {', '.join(map(repr, FRICTION_LAWS))}, "
                                             f"got {friction!r}")
    thm = theorem2(cd)
    form = None
    if friction == "pyramid":
        form = pyramid_lcp(cd)
        res = solve(form.lcp, method, tol=tol, **options)
        to_c = form.forces
    elif friction == "mncp":
        form = buffo_mncp(cd)
        res = solve(form.problem, method, tol=tol, **options)
        to_c = form.forces
    else:
        prob = cone_problem(cd)
        res = solve_cone(prob, method, tol, **options)
        to_c = lambda r: cone_forces(cd, r)  # noqa: E731
    out = DynamicResult(cd, friction, res, theorem2=thm, status=res.status, check_tol=check_tol,
                        formulation=form)
    if res.x is None:
        return out
    c = to_c(res.x)
    viol, a, Vdot = check_dynamic(cd, c, "pyramid" if friction == "pyramid" else "cone")
    out.contacts = classify(cd, c, a)
    out.accelerations = Vdot
    out.max_violation = viol
    if res.status is Status.SOLVED and not viol <= check_tol:
        out.status = Status.INACCURATE
    return out

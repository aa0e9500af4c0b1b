"""Global friction-contact problems solved through their local form (a reduction).

``apply``: eliminate the velocities, ``v = M^{-1}(H r + f)``, which gives the local problem
``u = W r + q`` with ``W = H^T M^{-1} H`` and ``q = w + H^T M^{-1} f``
(:meth:`~contactcp.problems.GlobalFrictionContactProblem.local_for_solving`: ``M`` factored block
by block, ``W`` formed sparse, dense only for a few contacts); ``invert``:
``x = (M^{-1}(H r + f), r)``.  The registry then certifies ``x`` with the *global* problem's own
residual (equilibrium and Coulomb's law on ``u = H^T v + w``), not with the local one.

Every friction-cone method of the local problem is registered here for the global problem under
its own name and options (``r0`` is a start for the reactions), and the global default chain is
the local one: ``solve(global_problem, "nsgs")`` runs NSGS on the local form.
"""

from __future__ import annotations

import inspect

import numpy as np

from contactcp.problems import FrictionContactProblem
from contactcp.problems.friction_global import GlobalFrictionContactProblem
from contactcp.result import Status
from contactcp.solvers import registry
from contactcp.solvers.registry import Raw


def apply(problem: GlobalFrictionContactProblem) -> FrictionContactProblem:
    """The local problem (cached on the global one: every step of a chain reuses it)."""
    return problem.local_for_solving()


def invert(problem: GlobalFrictionContactProblem, r: np.ndarray | None) -> np.ndarray | None:
    """The global unknowns ``(v, r)`` from the local reactions ``r``."""
    if r is None or not np.all(np.isfinite(r)):
        return None
    return np.concatenate([problem.solver.solve(problem.H @ r + problem.f), r])  # v; r is the solver's own


def _variant(name: str, spec: registry.MethodSpec) -> None:
    """Register ``name`` for global problems: the local method on the local form, mapped back."""

    def run(problem: GlobalFrictionContactProblem, tol: float, **options) -> Raw:
        local = apply(problem)
        # the local measure and the global Coulomb measure agree up to the rounding of u: aim a
        # little below tol so that the global certification does not fail on that rounding alone
        res = registry.solve(local, name, 0.5 * tol, **options)
        x = invert(problem, res.x)
        status = res.status if x is not None else Status.NUMERICAL_FAILURE
        stats = dict(res.stats, local_residual=None if res.residual is None else res.residual.value)
        return Raw(x, status, res.iterations, f"{res.message} (on the local form)", stats=stats)

    run.__signature__ = inspect.signature(spec.func)  # the local method's options, for the registry
    run.__doc__ = spec.func.__doc__
    checks = {k: opt for k, opt in spec.checks.items() if opt.kind != "vector"}  # vectors: local sizes
    local_applies = spec.applies_to
    registry.register(
        name,
        GlobalFrictionContactProblem,
        description=f"{spec.description}, on the local form (v eliminated, W = H^T M^-1 H sparse)",
        options=checks,
        # the local method's own condition, on the local form (formed only for such methods)
        applies=None if local_applies is None else (lambda problem: local_applies(apply(problem))),
    )(run)


def register_all() -> None:
    """Register a global variant of every local friction-cone method not yet registered for it."""
    for name in registry.methods_for(FrictionContactProblem):
        for spec in registry.method_info(name):
            if FrictionContactProblem in spec.problem_types and not any(
                GlobalFrictionContactProblem in s.problem_types for s in registry.method_info(name)
            ):
                _variant(name, spec)

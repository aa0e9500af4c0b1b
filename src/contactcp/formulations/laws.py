"""The friction laws of a dynamic contact state, each a formulation behind one small protocol.

A formulation turns a contact state (:class:`~contactcp.models.system.ContactDynamics`) into a
complementarity problem and maps the problem's answer back to contact forces:

* ``problem`` — the problem to solve (any type :func:`contactcp.solve` knows);
* ``forces(x)`` — the contact forces ``c`` (per contact: normal first, then tangential) from a
  solution ``x`` of ``problem``;
* ``check_law`` — the friction law the independent check of the answer applies
  (``"pyramid"`` or ``"cone"``, :func:`contactcp.interpret.dynamic.check_dynamic`).

:func:`register_law` adds a law: ``@register_law("name", check_law="cone")`` on a function
``cd -> formulation``; :func:`contactcp.simulate.solve_dynamic`, the CLI's ``--friction`` choices
and the docs read :func:`friction_laws`.  Three laws are registered: ``"pyramid"`` (the
linearised cone as an LCP, Trinkle, Pang, Sudarsky & Lo 1995), ``"cone"`` (Coulomb's cone, De
Saxcé's form) and ``"mncp"`` (the same cone as Buffo & Maciel's mixed NCP).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from contactcp.errors import InvalidOptionError, UnknownMethodError
from contactcp.formulations.buffo_mncp import buffo_mncp
from contactcp.formulations.dynamic_cone import cone_forces, cone_problem
from contactcp.formulations.pyramid_lcp import pyramid_lcp
from contactcp.models.system import ContactDynamics
from contactcp.problems import Problem

__all__ = ["Formulation", "register_law", "formulate", "friction_laws", "law_for_method", "ConeFormulation"]


class Formulation(Protocol):
    """What a friction law's formulation provides (see the module docstring)."""

    problem: Problem
    check_law: str

    def forces(self, x: np.ndarray) -> np.ndarray: ...


_LAWS: dict[str, tuple[Callable[[ContactDynamics], Any], str]] = {}


def register_law(name: str, *, check_law: str) -> Callable:
    """Decorator: register ``builder(cd) -> formulation`` as friction law ``name``."""
    if check_law not in ("pyramid", "cone"):
        raise ValueError(f"check_law must be 'pyramid' or 'cone', got {check_law!r}")

    def deco(builder: Callable[[ContactDynamics], Any]) -> Callable[[ContactDynamics], Any]:
        _LAWS[name] = (builder, check_law)
        return builder

    return deco


def friction_laws() -> tuple[str, ...]:
    """The registered friction laws, in registration order."""
    return tuple(_LAWS)


#: the problem type each built-in law's formulation has, in the order a method is matched to a law
_LAW_PROBLEMS = (("cone", "FrictionContactProblem"), ("mncp", "MixedNCP"), ("pyramid", "LCP"))


def law_for_method(method: str) -> str:
    """The friction law whose problem a solver method is meant for: a method for the friction-contact
    problem solves the cone, one for mixed NCPs Buffo–Maciel's formulation (``"mncp"``), one for LCPs
    the pyramid (``"merit"`` -> ``"mncp"``, ``"newton"`` -> ``"cone"``, ``"lemke"`` -> ``"pyramid"``)."""
    from contactcp.solvers.registry import method_info, methods

    specs = method_info(method) if isinstance(method, str) else []
    if not specs:
        raise UnknownMethodError(str(method), "a contact state", methods(), "unknown method")
    types = {t.__name__ for s in specs for t in s.problem_types}
    for law, kind in _LAW_PROBLEMS:
        if kind in types:
            return law
    raise InvalidOptionError("method", f"method {method!r} solves none of the friction laws' problems")


def formulate(cd: ContactDynamics, friction: str) -> Formulation:
    """The formulation of ``cd`` under friction law ``friction``."""
    if friction not in _LAWS:
        raise InvalidOptionError("friction", f"must be one of {', '.join(map(repr, _LAWS))}, got {friction!r}")
    builder, law = _LAWS[friction]
    form = builder(cd)
    form.check_law = law
    return form


@dataclass
class ConeFormulation:
    """Coulomb's cone as a :class:`~contactcp.problems.FrictionContactProblem` (De Saxcé's form)."""

    cd: ContactDynamics
    problem: Any
    check_law: str = "cone"

    def forces(self, r: np.ndarray) -> np.ndarray:
        return cone_forces(self.cd, r)


@register_law("pyramid", check_law="pyramid")
def _pyramid(cd: ContactDynamics):
    return pyramid_lcp(cd)


@register_law("cone", check_law="cone")
def _cone(cd: ContactDynamics):
    return ConeFormulation(cd, cone_problem(cd))


@register_law("mncp", check_law="cone")
def _mncp(cd: ContactDynamics):
    return buffo_mncp(cd)

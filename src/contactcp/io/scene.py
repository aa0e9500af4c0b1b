"""Dynamic contact states from plain dictionaries / JSON files.

Layout (every key but ``bodies`` and ``contacts`` optional)::

    {"planar": false,
     "bodies":   [{"mass": 1.0, "inertia": 0.01 | [[...]], "R": [[...]], "p": [...], "v": [...],
                   "omega": [...], "wrench": [fx, fy, fz, tx, ty, tz], "gravity": [gx, gy, gz], "name": "obj"}],
     "arms":     [{"dh": [[theta, d, a, alpha], ...], "joint_types": "RRP", "masses": [...], "coms": [...],
                   "inertias": [...], "base": [[4x4]], "tool": [[4x4]], "convention": "standard",
                   "q": [...], "qdot": [...], "tau": [...]}
                  | {"model": "puma560", "base": ..., "q": ..., "qdot": ..., "tau": ...}],
     "contacts": [{"body": 0, "point": [...], "normal": [...], "mu": 0.5,
                   "other": "ground" | {"body": 1} | {"arm": 0, "link": 5},
                   "tangent": [...], "state": "rolling" | "sliding", "v_t": [...], "name": "C1"}]}

A body's ``"wrench"`` is the applied wrench (force, torque about the centre of
mass; default zero) and does not include gravity: the weight ``mass *
gravity`` is always added, with ``"gravity"`` ``[0, 0, -9.81]`` by default
(``[0, 0, 0]`` for none).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contactcp.errors import InvalidProblemError
from contactcp.models.bodies import RigidBody
from contactcp.models.contacts import Body, Contact, Ground, Link
from contactcp.models.system import Arm, MultibodySystem

__all__ = ["system_from_dict", "load_system"]

_BODY_KEYS = {"mass", "inertia", "R", "p", "v", "omega", "wrench", "gravity", "name"}
_ARM_KEYS = {
    "dh",
    "joint_types",
    "masses",
    "coms",
    "inertias",
    "base",
    "tool",
    "convention",
    "gravity",
    "name",
    "armature",
}
_CONTACT_KEYS = {"body", "point", "normal", "mu", "tangent", "state", "v_t", "name"}


def _unknown(d: dict, allowed: set[str], where: str) -> None:
    extra = set(d) - allowed
    if extra:
        raise InvalidProblemError(where, f"unknown key(s) {sorted(extra)}; allowed: {sorted(allowed)}")


def _integer(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidProblemError(where, f"must be a non-negative integer, got {value!r}")
    return value


def _other(value: Any, where: str) -> Ground | Link | Body:
    if value in (None, "ground"):
        return Ground()
    if isinstance(value, dict) and set(value) == {"body"}:
        return Body(_integer(value["body"], f"{where}.body"))
    if isinstance(value, dict) and set(value) == {"arm", "link"}:
        return Link(_integer(value["arm"], f"{where}.arm"), _integer(value["link"], f"{where}.link"))
    raise InvalidProblemError(where, 'must be "ground", {"body": i} or {"arm": a, "link": l}')


def _arm(d: dict, i: int) -> Arm:
    where = f"arms[{i}]"
    if not isinstance(d, dict):
        raise InvalidProblemError(where, "must be an object")
    state = {k: d.get(k) for k in ("q", "qdot", "tau")}
    if state["q"] is None:
        raise InvalidProblemError(f"{where}.q", "is required")
    rest = {k: v for k, v in d.items() if k not in ("q", "qdot", "tau")}
    if "model" in rest:
        model = rest.pop("model")
        if model != "puma560":
            raise InvalidProblemError(f"{where}.model", f"unknown model {model!r}; available: puma560")
        from contactcp.models.puma560 import puma560

        _unknown(rest, {"base", "tool"}, where)
        manip = puma560(**rest)
    else:
        _unknown(rest, _ARM_KEYS, where)
        if "dh" not in rest:
            raise InvalidProblemError(f"{where}.dh", 'is required (or give "model")')
        from contactcp.models.manipulator import Manipulator

        manip = Manipulator.from_dh(**rest)
    return Arm(manip, **state)


def system_from_dict(d: dict) -> MultibodySystem:
    """Build a :class:`MultibodySystem` from the layout above."""
    if not isinstance(d, dict):
        raise InvalidProblemError("scene", "must be a JSON object")
    _unknown(d, {"planar", "bodies", "arms", "contacts"}, "scene")
    for key in ("bodies", "contacts"):
        if not isinstance(d.get(key), list) or not d[key]:
            raise InvalidProblemError(key, "must be a non-empty list")
    if not isinstance(d.get("arms", []), list):
        raise InvalidProblemError("arms", "must be a list")
    if not isinstance(d.get("planar", False), bool):
        raise InvalidProblemError("planar", f"must be true or false, got {d['planar']!r}")
    bodies = []
    for i, b in enumerate(d["bodies"]):
        if not isinstance(b, dict):
            raise InvalidProblemError(f"bodies[{i}]", "must be an object")
        _unknown(b, _BODY_KEYS, f"bodies[{i}]")
        if "mass" not in b:
            raise InvalidProblemError(f"bodies[{i}].mass", "is required")
        bodies.append(RigidBody(**{"name": f"bodies[{i}]", **b}))
    arms = [_arm(a, i) for i, a in enumerate(d.get("arms", []))]
    contacts = []
    for j, c in enumerate(d["contacts"]):
        where = f"contacts[{j}]"
        if not isinstance(c, dict):
            raise InvalidProblemError(where, "must be an object")
        c = dict(c)
        other = _other(c.pop("other", None), f"{where}.other")
        _unknown(c, _CONTACT_KEYS, where)
        for key in ("body", "point", "normal", "mu"):
            if key not in c:
                raise InvalidProblemError(f"{where}.{key}", "is required")
        contacts.append(Contact(other=other, **{"name": c.pop("name", f"C{j + 1}"), **c}))
    return MultibodySystem(bodies, contacts, arms, planar=d.get("planar", False))


def load_system(path: str | Path) -> MultibodySystem:
    """Read a scene JSON file (see the module docstring)."""
    from contactcp._files import read_json

    return system_from_dict(read_json(path))

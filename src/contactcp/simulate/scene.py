"""Detect and solve: a scene's contacts, their forces and modes, in the world frame as well.

>>> from contactcp.models.scene import Scene
>>> scene = Scene()
>>> scene.add_fixed("floor", {"type": "plane"}, friction=0.5)
>>> _ = scene.add_body("box", {"type": "box", "size": [0.2, 0.2, 0.2]}, mass=2.0, placement={"p": [0, 0, 0.1]})
>>> out = solve_scene(scene)
>>> out.status.name, len(out.contacts), round(float(sum(c.force_world[2] for c in out.contacts)), 6)
('SOLVED', 4, 19.62)

Each :class:`ContactAnswer` gives the two bodies' names, the world point, the normal (into the first
body), the tangents, the gap, the force on the first body (world frame ``force_world`` and contact
frame ``force = (c_n, c_t, c_o)``), the relative velocity and acceleration of the first body with
respect to the second at the point (world and contact frames) and the mode (``rolling``,
``sliding`` or ``breaking``).  SI units: m, N, m/s, m/s^2.  The answer is certified as any
:func:`~contactcp.simulate.instant.solve_dynamic` answer: the solver's residual, then an independent
check of Signorini's conditions, the friction law and the equations of motion.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactcp.models.scene.detect import DEFAULT_MARGIN, SceneContact, detect
from contactcp.models.scene.dynamics import DEFAULT_SLIDING_TOL, scene_dynamics
from contactcp.models.scene.scene import Scene
from contactcp.result import Result
from contactcp.settings import CHECK_TOL, DEFAULT_TOL
from contactcp.simulate.instant import DynamicResult, solve_dynamic
from contactcp.simulate.result import PipelineResult

__all__ = ["ContactAnswer", "SceneResult", "solve_scene"]


@dataclass
class ContactAnswer:
    """One contact of a solved scene (see the module docstring; arrays are world-frame unless named)."""

    name: str
    bodies: tuple[str, str]
    point: np.ndarray
    frame: np.ndarray
    gap: float
    mu: float
    force: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    mode: str

    @property
    def normal(self) -> np.ndarray:
        return self.frame[:, 0]

    @property
    def tangents(self) -> np.ndarray:
        """The two tangent directions as rows."""
        return self.frame[:, 1:].T

    @property
    def force_world(self) -> np.ndarray:
        """The contact force on the first body, world frame (N)."""
        return self.frame @ self.force

    @property
    def velocity_world(self) -> np.ndarray:
        return self.frame @ self.velocity

    @property
    def acceleration_world(self) -> np.ndarray:
        return self.frame @ self.acceleration

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "bodies": list(self.bodies),
            "point": self.point.tolist(),
            "normal": self.normal.tolist(),
            "tangents": self.tangents.tolist(),
            "gap": self.gap,
            "mu": self.mu,
            "force_world": self.force_world.tolist(),
            "force": self.force.tolist(),
            "velocity_world": self.velocity_world.tolist(),
            "acceleration_world": self.acceleration_world.tolist(),
            "mode": self.mode,
        }


@dataclass(repr=False)
class SceneResult(PipelineResult):
    """A solved scene: the :class:`~contactcp.simulate.instant.DynamicResult` of its contact problem
    plus world-frame :class:`ContactAnswer` s.  ``status`` is the dynamic result's."""

    scene: Scene
    detected: list[SceneContact]
    dynamic: DynamicResult
    contacts: list[ContactAnswer] = field(default_factory=list)

    @property
    def result(self) -> Result:  # type: ignore[override]
        return self.dynamic.result

    @property
    def check_tol(self) -> float:  # type: ignore[override]
        return self.dynamic.check_tol

    @property
    def accelerations(self) -> np.ndarray | None:
        """``dv/dt`` of the whole scene (pinocchio's velocity layout), or None without an answer."""
        return self.dynamic.accelerations

    def _checks_pass(self) -> bool:
        return self.dynamic._checks_pass()

    def _facts(self) -> dict[str, Any]:
        return {"contacts": len(self.detected), "residual": self.residual, "check": float(self.dynamic.max_violation)}

    def _details(self) -> list[str]:
        lines = [] if self.success else ["  no certified solution: the values below are the solver's last iterate"]
        for c in self.contacts:
            f = ", ".join(f"{x: .4g}" for x in c.force_world)
            lines.append(f"  {c.name:28s} {c.bodies[0]}|{c.bodies[1]}  force_world = [{f}]  {c.mode}")
        return lines

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "friction": self.dynamic.friction,
            "max_violation": float(self.dynamic.max_violation),
            "contacts": [c.to_dict() for c in self.contacts],
        }


def solve_scene(
    scene: Scene,
    friction: str | None = "pyramid",
    method: str | None = None,
    margin: float = DEFAULT_MARGIN,
    tol: float = DEFAULT_TOL,
    check_tol: float = CHECK_TOL,
    sliding_tol: float = DEFAULT_SLIDING_TOL,
    contacts: list[SceneContact] | None = None,
    **options: Any,
) -> SceneResult:
    """Detect the contacts of ``scene`` within ``margin`` (m) (or take ``contacts``), then solve
    the instantaneous problem with the friction law ``friction`` (``"pyramid"``, ``"cone"``,
    ``"mncp"``; :func:`~contactcp.simulate.instant.solve_dynamic`).  Every detected contact counts as
    closed; one sliding faster than ``sliding_tol`` (m/s) gets the sliding friction law."""
    found = detect(scene, margin) if contacts is None else list(contacts)
    cd = scene_dynamics(scene, found, sliding_tol)
    dyn = solve_dynamic(cd, friction=friction, method=method, tol=tol, check_tol=check_tol, **options)
    out = SceneResult(scene, found, dyn)
    if not dyn.contacts:
        return out
    u = (cd.H.T @ scene.v).reshape(-1, 3)
    for j, (c, o) in enumerate(zip(found, dyn.contacts)):
        out.contacts.append(
            ContactAnswer(c.name, c.bodies, c.point, c.frame, c.gap, c.mu, o.c.copy(), u[j].copy(), o.a.copy(), o.mode)
        )
    return out

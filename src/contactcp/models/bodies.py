"""Passive rigid objects: mass, inertia, pose, twist and applied wrench (Buffo–Maciel eqs. (5)–(8))."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InvalidProblemError
from .._validate import matrix, number, vector
from .contacts import cross3

__all__ = ["RigidBody", "GRAVITY"]

GRAVITY = np.array([0.0, 0.0, -9.81])


def _mat3(value: Any, field_: str) -> np.ndarray:
    return np.array(matrix(value, field_, (3, 3)))


@dataclass(frozen=True)
class RigidBody:
    """A passive object in world coordinates.

    Parameters
    ----------
    mass : > 0
    inertia : (3, 3) inertia tensor about the centre of mass, in the body frame
        (symmetric positive definite; a scalar ``I`` means ``I * eye(3)``)
    R, p : orientation (rotation matrix, body to world) and centre-of-mass position
    v, omega : linear velocity of the centre of mass and angular velocity (world)
    wrench : applied external wrench ``g_obj`` = (force, torque about the centre
        of mass), world frame; None means gravity ``mass * gravity``
    gravity : used when ``wrench`` is None
    """

    mass: float
    inertia: Any = 1.0
    R: Any = field(default_factory=lambda: np.eye(3))
    p: Any = field(default_factory=lambda: np.zeros(3))
    v: Any = field(default_factory=lambda: np.zeros(3))
    omega: Any = field(default_factory=lambda: np.zeros(3))
    wrench: Any = None
    gravity: Any = field(default_factory=lambda: GRAVITY.copy())
    name: str = "object"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InvalidProblemError("name", f"must be a string, got {self.name!r}")
        m = number(self.mass, f"{self.name}.mass")
        if m <= 0:
            raise InvalidProblemError(f"{self.name}.mass", f"must be positive, got {self.mass}")
        if np.ndim(self.inertia) == 0:
            I = number(self.inertia, f"{self.name}.inertia") * np.eye(3)
        else:
            I = _mat3(self.inertia, f"{self.name}.inertia")
        if not np.allclose(I, I.T, atol=1e-12 * max(1.0, np.abs(I).max())):
            raise InvalidProblemError(f"{self.name}.inertia", "must be symmetric")
        if np.linalg.eigvalsh(I).min() <= 0:
            raise InvalidProblemError(f"{self.name}.inertia", "must be positive definite (singular mass matrix)")
        R = _mat3(self.R, f"{self.name}.R")
        if not np.allclose(R.T @ R, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
            raise InvalidProblemError(f"{self.name}.R", "must be a rotation matrix")
        s = object.__setattr__
        s(self, "mass", m)
        s(self, "inertia", I)
        s(self, "R", R)
        for name in ("p", "v", "omega", "gravity"):
            s(self, name, vector(getattr(self, name), f"{self.name}.{name}", 3))
        if self.wrench is None:
            s(self, "wrench", np.concatenate([m * self.gravity, np.zeros(3)]))
        else:
            s(self, "wrench", vector(self.wrench, f"{self.name}.wrench", 6))

    @property
    def inertia_world(self) -> np.ndarray:
        """``R I R^T``: the inertia tensor in world axes."""
        return self.R @ self.inertia @ self.R.T

    def mass_matrix(self) -> np.ndarray:
        """``M_obj,i = diag(m I_3, R I R^T)`` (Buffo–Maciel eq. (6))."""
        M = np.zeros((6, 6))
        M[:3, :3] = self.mass * np.eye(3)
        M[3:, 3:] = self.inertia_world
        return M

    def velocity_product(self) -> np.ndarray:
        """``h_obj``: the gyroscopic torque ``-omega x (I_w omega)`` (zero force part)."""
        Iw = self.inertia_world
        return np.concatenate([np.zeros(3), -cross3(self.omega, Iw @ self.omega)])

    @property
    def twist(self) -> np.ndarray:
        return np.concatenate([self.v, self.omega])

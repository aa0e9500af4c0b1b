"""Passive rigid objects: mass, inertia, pose, twist and applied wrench (Buffo–Maciel eqs. (5)–(8))."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactcp._validate import matrix, number, real_array, vector
from contactcp.errors import InvalidProblemError
from contactcp.models.contacts import cross3

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
    wrench : the applied external wrench (force, torque about the centre of
        mass), world frame, gravity NOT included; default zero
    gravity : the gravitational acceleration (world frame; default
        ``(0, 0, -9.81)``, ``[0, 0, 0]`` for none).  The weight ``mass * gravity``
        is always added to ``wrench``: :attr:`external_wrench` is the sum,
        Buffo–Maciel's ``g_obj``.
    """

    mass: float
    inertia: Any = 1.0
    R: Any = field(default_factory=lambda: np.eye(3))
    p: Any = field(default_factory=lambda: np.zeros(3))
    v: Any = field(default_factory=lambda: np.zeros(3))
    omega: Any = field(default_factory=lambda: np.zeros(3))
    wrench: Any = field(default_factory=lambda: np.zeros(6))
    gravity: Any = field(default_factory=lambda: GRAVITY.copy())
    name: str = "object"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InvalidProblemError("name", f"must be a string, got {self.name!r}")
        m = number(self.mass, f"{self.name}.mass")
        if m <= 0:
            raise InvalidProblemError(f"{self.name}.mass", f"must be positive, got {self.mass}")
        inertia = real_array(self.inertia, f"{self.name}.inertia")
        if inertia.ndim == 0:
            I = number(float(inertia), f"{self.name}.inertia") * np.eye(3)
        else:
            I = _mat3(inertia, f"{self.name}.inertia")
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
        s(self, "wrench", np.zeros(6) if self.wrench is None else vector(self.wrench, f"{self.name}.wrench", 6))

    @property
    def weight(self) -> np.ndarray:
        """``(mass * gravity, 0)``: the wrench of gravity about the centre of mass."""
        return np.concatenate([self.mass * self.gravity, np.zeros(3)])

    @property
    def external_wrench(self) -> np.ndarray:
        """``g_obj = wrench + (mass * gravity, 0)``: everything applied but the contact forces."""
        return self.wrench + self.weight

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

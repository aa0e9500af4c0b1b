"""Verification scenes for the time stepper, with their analytic answers.

* :func:`slope_box`: a 1 kg cube on a floor with gravity tilted by ``slope`` degrees towards a
  direction ``direction`` degrees in the floor's plane (MJCF's ``<option gravity>`` way of making a
  slope): it sticks when ``mu >= tan(slope)``, else slides with ``a = g (sin - mu cos)``
  (:func:`sliding_speed`).
* :func:`rolling_sphere`: a solid ball on the same tilted floor; with enough friction it rolls
  without slipping, ``a = 5/7 g sin(slope)``.
* :func:`bouncing_ball`: a ball dropped from ``h0`` onto a frictionless floor with restitution
  ``e``: apexes ``e^(2k) h0``, rest at ``sqrt(2 h0 / g) (1 + 2 e / (1 - e))`` (:func:`ball_rest_time`).
* :func:`siconos_ball`: Siconos' BouncingBall model (``../shared/timestepping``), a
  :class:`~contactcp.simulate.stepping.LinearSystem`.
* :func:`box_stack`: ``n`` cubes stacked on a floor (total ground force ``n m g``).
* :func:`box_pile`: ``n`` cubes dropped in a loose heap (seeded).
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from contactcp.models.scene import Scene
from contactcp.simulate.stepping.systems import LinearSystem

__all__ = [
    "G",
    "slope_box",
    "sliding_speed",
    "rolling_sphere",
    "bouncing_ball",
    "ball_rest_time",
    "siconos_ball",
    "box_stack",
    "box_pile",
]

#: the gravitational acceleration of every scene (m/s^2)
G = 9.81


def tilted_gravity(slope: float, direction: float) -> np.ndarray:
    """Gravity tilted by ``slope`` degrees from ``-z`` towards the floor direction ``direction``."""
    s, d = math.radians(slope), math.radians(direction)
    return G * np.array([math.sin(s) * math.cos(d), math.sin(s) * math.sin(d), -math.cos(s)])


def slope_box(mu: float, slope: float = 20.0, direction: float = 0.0, size: float = 0.1, mass: float = 1.0) -> Scene:
    """A cube at rest on a floor tilted by ``slope`` degrees towards ``direction`` (module docstring)."""
    scene = Scene(name=f"slope_box_mu{mu:g}_dir{direction:g}")
    scene.gravity = tilted_gravity(slope, direction)
    scene.add_fixed("floor", {"type": "plane"}, friction=mu)
    scene.add_body("box", {"type": "box", "size": [size] * 3}, mass, {"p": [0, 0, size / 2]}, friction=mu)
    return scene


def sliding_speed(mu: float, t: float, slope: float = 20.0) -> float:
    """The speed after ``t`` seconds of a block released on the slope (0 when it sticks)."""
    s = math.radians(slope)
    return max(0.0, G * (math.sin(s) - mu * math.cos(s))) * t


def rolling_sphere(mu: float = 0.6, slope: float = 20.0, radius: float = 0.05, mass: float = 0.5) -> Scene:
    """A solid ball at rest on the tilted floor (module docstring)."""
    scene = Scene(name="rolling_sphere")
    scene.gravity = tilted_gravity(slope, 0.0)
    scene.add_fixed("floor", {"type": "plane"}, friction=mu)
    scene.add_body("ball", {"type": "sphere", "radius": radius}, mass, {"p": [0, 0, radius]}, friction=mu)
    return scene


def bouncing_ball(e: float = 0.9, h0: float = 1.0, radius: float = 0.1, mass: float = 1.0) -> Scene:
    """A ball whose lowest point is ``h0`` above a frictionless floor, restitution ``e``."""
    scene = Scene(name="bouncing_ball")
    scene.gravity = [0.0, 0.0, -G]
    scene.add_fixed("floor", {"type": "plane"}, friction=0.0)
    scene.add_body("ball", {"type": "sphere", "radius": radius}, mass, {"p": [0, 0, h0 + radius]}, friction=0.0)
    scene.default_restitution = e
    return scene


def ball_rest_time(e: float = 0.9, h0: float = 1.0) -> float:
    """When the bouncing ball comes to rest with exact impacts (the sum of its flight times)."""
    return math.sqrt(2.0 * h0 / G) * (1.0 + 2.0 * e / (1.0 - e))


def siconos_ball() -> LinearSystem:
    """Siconos' BouncingBall: m = 1, R = 0.1, inertia diag(m, m, 2/5 m R^2), q0 = (1, 0, 0),
    gravity on the first coordinate, the constraint ``y = q_0`` with ``e = 0.9``."""
    m, R = 1.0, 0.1
    return LinearSystem(
        np.diag([m, m, 0.4 * m * R * R]), [-G * m, 0.0, 0.0], [[1.0], [0.0], [0.0]], [1.0, 0.0, 0.0], e=0.9
    )


def box_stack(n: int = 5, size: float = 0.1, mass: float = 1.0, mu: float = 0.5) -> Scene:
    """``n`` cubes stacked exactly on a floor, at rest."""
    scene = Scene(name=f"box_stack_{n}")
    scene.gravity = [0.0, 0.0, -G]
    scene.add_fixed("floor", {"type": "plane"}, friction=mu)
    for i in range(n):
        scene.add_body(
            f"box{i}", {"type": "box", "size": [size] * 3}, mass, {"p": [0, 0, size * (i + 0.5)]}, friction=mu
        )
    return scene


def box_pile(n: int = 25, seed: int = 0, size: float = 0.1, mass: float = 1.0, mu: float = 0.5) -> Scene:
    """``n`` cubes in layers of up to nine over a 3 x 3 grid, each shifted and turned at random
    (``seed``), apart (the layers 0.18 m apart, the lowest 5 mm above the floor), to fall into a heap."""
    rng = np.random.default_rng(seed)
    scene = Scene(name=f"box_pile_{n}_seed{seed}")
    scene.gravity = [0.0, 0.0, -G]
    scene.add_fixed("floor", {"type": "plane"}, friction=mu)
    for i in range(n):
        layer, cell = divmod(i, 9)
        x, y = (cell % 3 - 1) * 1.3 * size, (cell // 3 - 1) * 1.3 * size
        rpy = [rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), rng.uniform(-math.pi, math.pi)]
        # the turned cube's half height (its lowest corner), plus 5 mm, above the layer below
        half = 0.5 * size * float(np.abs(pin.rpy.rpyToMatrix(*rpy)[2]).sum())
        z = half + 0.005 + layer * (1.8 * size)
        p = [x + rng.uniform(-0.1, 0.1) * size, y + rng.uniform(-0.1, 0.1) * size, z]
        scene.add_body(f"box{i}", {"type": "box", "size": [size] * 3}, mass, {"p": p, "rpy": rpy}, friction=mu)
    return scene

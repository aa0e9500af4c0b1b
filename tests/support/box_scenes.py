"""Small scenes of cubes the time stepper's tests share (0.1 m cubes of 1 kg, mu = 0.5, g = 9.81)."""

from __future__ import annotations

from contactcp.models.scene import Scene
from contactcp.scenarios.timestepping import G


def _floor() -> Scene:
    scene = Scene()
    scene.gravity = [0.0, 0.0, -G]
    scene.add_fixed("floor", {"type": "plane"}, friction=0.5)
    return scene


def _cube(scene: Scene, name: str, p: list[float]) -> None:
    scene.add_body(name, {"type": "box", "size": [0.1] * 3}, 1.0, {"p": p}, friction=0.5)


def row_of_cubes() -> Scene:
    """Seven cubes side by side 1 mm above the floor: they land in one step, 28 hit contacts."""
    scene = _floor()
    for i in range(7):
        _cube(scene, f"box{i}", [0.2 * i, 0, 0.051])
    return scene


def sunk_cube_under_a_hovering_one(hover: float) -> Scene:
    """Five cubes resting on the floor, a sixth sunk 0.1 mm into it and a seventh ``hover`` above
    the sixth (28 contacts: the position projection in global form)."""
    scene = _floor()
    for i in range(5):
        _cube(scene, f"box{i}", [0.2 * i, 0, 0.05])
    _cube(scene, "sunk", [-0.3, 0, 0.0499])
    _cube(scene, "top", [-0.3, 0, 0.1499 + hover])
    return scene

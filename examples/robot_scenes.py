"""Scenes from description files: detect contacts with coal, solve, read world-frame forces.

1. A box pushed on a floor, built in Python: friction resists the push along world -x.
2. The two-finger gripper of the package's example scenes (MJCF + JSON): the pads carry the box.
3. A real hand: the Allegro hand (URDF from example-robot-data) pinching a ball, in ten lines.
"""

import numpy as np

from contactcp.io.scene_files import example_scene, load_scene
from contactcp.models.scene import Scene
from contactcp.simulate.scene import solve_scene

# 1. a 1 kg box on a floor (friction 0.5), pushed with 3 N along +x
scene = Scene()
scene.add_fixed("floor", {"type": "plane"}, friction=0.5)
scene.add_body("box", {"type": "box", "size": [0.2, 0.2, 0.2]}, mass=1.0, placement={"p": [0, 0, 0.1]}, friction=0.5)
scene.set_wrench("box", force=[3.0, 0.0, 0.0])
out = solve_scene(scene, friction="cone")
print(out.summary())
total = sum(c.force_world for c in out.contacts)
print("total contact force on the box (world):", total.round(6))
assert out.success and np.allclose(total, [-3.0, 0.0, 9.81], atol=1e-8)

# 2. a parallel gripper squeezing a box (20 N per pad); the box's weight is shared by the pads
scene, margin = load_scene(example_scene("gripper.json"))
out = solve_scene(scene, margin=margin)
lift = sum(c.force_world[2] for c in out.contacts)
print(f"gripper: {len(out.contacts)} contacts, {out.status.name}, lift {lift:.6f} N (weight 0.2 kg x 9.81)")
assert out.success and abs(lift - 0.2 * 9.81) < 1e-9

# 3. the Allegro hand holding a ball (needs the example-robot-data package)
try:
    scene, margin = load_scene(example_scene("allegro_sphere.json"))
except Exception as exc:
    print(f"Allegro hand skipped: {exc}")
else:
    out = solve_scene(scene, margin=margin, friction="cone")
    for c in out.contacts:
        print(f"{c.bodies[0]} <- {c.bodies[1]}: force {c.force_world.round(4)} N at {c.point.round(4)} m, {c.mode}")
    assert out.success and {c.mode for c in out.contacts} == {"rolling"}

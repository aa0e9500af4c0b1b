"""Boxes on boxes in closed form: exact normals and gaps, the patch's corners, as arrays.

A unit cube on the floor and a second one turned 45 degrees on it: the floor pair touches at the
lower cube's four corners, the two cubes on the octagon where the squares overlap.  The normals are
the faces' to the last bit and the gaps exactly zero (the separating-axis test; coal's GJK would
leave them within its tolerance).  ``detect_set`` gives the contacts as arrays, ``detect`` as objects.
"""

import math

import numpy as np

from contactcp.models.scene import Scene, detect, detect_set

scene = Scene()
scene.add_fixed("floor", {"type": "plane"})
scene.add_body("lower", {"type": "box", "size": [1, 1, 1]}, 1.0, {"p": [0, 0, 0.5]})
scene.add_body("upper", {"type": "box", "size": [1, 1, 1]}, 1.0, {"p": [0, 0, 1.5], "rpy": [0, 0, math.pi / 4]})
found = detect_set(scene)
for name, bodies, point, normal, gap in zip(found.names, found.bodies, found.points, found.normals, found.gap):
    print(f"{name:16s} {bodies[0]:>5s}/{bodies[1]:<5s} point {np.round(point, 4)} normal {normal} gap {gap:.1e}")

pairs = [b for b in found.bodies]
assert pairs.count(("upper", "lower")) == 8 and pairs.count(("lower", "world")) == 4
assert np.array_equal(found.normals, np.tile([0.0, 0.0, 1.0], (12, 1)))  # exactly the face normal
assert np.abs(found.gap).max() <= 1e-15
r = math.sqrt(0.5) - 0.5  # where the turned square's edges cross the other's
octagon = found.points[[b == ("upper", "lower") for b in found.bodies]]
assert np.allclose(np.sort(np.abs(octagon[:, :2]), axis=1), [[r, 0.5]] * 8, atol=1e-12)
assert [c.name for c in detect(scene)] == found.names  # the same contacts as objects
print("12 contacts: 4 floor corners and the octagon, normals and gaps exact")

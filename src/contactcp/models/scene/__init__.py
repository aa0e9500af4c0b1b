"""Scenes from robot description files: kinematic trees, collision shapes, contact detection.

:class:`Scene` (one pinocchio model of robots, free bodies and fixed geometry, with coal shapes and
a state), :func:`detect` (contact points, normals, gaps and patches: boxes in closed form, other shapes by
coal; :func:`detect_set` the same as arrays), :func:`scene_dynamics`
(the instantaneous ``a = A c + b`` the friction laws take).  The solve with world-frame answers is
:func:`contactcp.simulate.solve_scene`; files are read by :func:`contactcp.io.load_scene`.
"""

from contactcp.models.scene.detect import (
    DEFAULT_MARGIN,
    ContactSet,
    SceneContact,
    collision_pairs,
    detect,
    detect_set,
)
from contactcp.models.scene.dynamics import DEFAULT_SLIDING_TOL, contact_jacobian, scene_dynamics
from contactcp.models.scene.load import scene_from_mjcf, scene_from_urdf
from contactcp.models.scene.scene import (
    DEFAULT_FRICTION,
    WORLD,
    Scene,
    friction_coefficient,
    pose,
    restitution_coefficient,
)
from contactcp.models.scene.shapes import SHAPES, make_shape, solid_inertia

__all__ = [
    "Scene",
    "pose",
    "friction_coefficient",
    "restitution_coefficient",
    "WORLD",
    "DEFAULT_FRICTION",
    "SHAPES",
    "make_shape",
    "solid_inertia",
    "SceneContact",
    "detect",
    "detect_set",
    "ContactSet",
    "collision_pairs",
    "DEFAULT_MARGIN",
    "scene_dynamics",
    "contact_jacobian",
    "DEFAULT_SLIDING_TOL",
    "scene_from_urdf",
    "scene_from_mjcf",
]

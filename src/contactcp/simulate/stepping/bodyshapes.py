"""The collision shapes of a trajectory's bodies, compact enough to travel in its file.

A :class:`BodyShape` is one collision geometry of a scene: the body it hangs on (``"world"`` for
fixed geometry, whose placement is the world's), its ``kind`` (``sphere``, ``box``, ``capsule``,
``cylinder``, ``plane``, ``mesh``; :mod:`contactcp.models.scene.shapes`), four numbers ``params``
and its placement in the body frame (a 4 x 4 transform), so that a picture of the motion needs only
the trajectory's ``body_pos`` and ``body_quat``:

==========  =========================================
kind        params
==========  =========================================
sphere      ``radius, 0, 0, 0``
box         ``size_x, size_y, size_z, 0`` (full edges)
capsule     ``radius, length, 0, 0`` (along ``z``)
cylinder    ``radius, length, 0, 0`` (along ``z``)
plane       ``n_x, n_y, n_z, offset`` (``n . x <= offset``)
mesh        ``0, 0, 0, 0``; ``vertices`` (k, 3)
==========  =========================================

A mesh keeps the vertices of its convex hull (what the contacts see); a geometry of another kind
(a URDF's triangle mesh, an ellipsoid, ...) is kept as the eight corners of its bounding box.

>>> from contactcp.scenarios.timestepping import bouncing_ball
>>> [(s.body, s.name, s.kind, float(s.params[0])) for s in scene_shapes(bouncing_ball())]
[('world', 'floor', 'plane', 0.0), ('ball', 'ball', 'sphere', 0.1)]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import coal
import numpy as np
import pinocchio as pin

from contactcp.errors import InvalidProblemError
from contactcp.models.scene.scene import WORLD, Scene

__all__ = ["BodyShape", "scene_shapes", "write_shapes", "read_shapes", "KINDS"]

KINDS = ("sphere", "box", "capsule", "cylinder", "plane", "mesh")


@dataclass
class BodyShape:
    """One collision shape on one body (module docstring)."""

    body: str
    name: str
    kind: str
    params: np.ndarray
    placement: np.ndarray = field(default_factory=lambda: np.eye(4))
    vertices: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))


def _params(geometry: Any) -> tuple[str, list[float], np.ndarray]:
    none = np.zeros((0, 3))
    if isinstance(geometry, coal.Sphere):
        return "sphere", [float(geometry.radius), 0.0, 0.0, 0.0], none
    if isinstance(geometry, coal.Box):
        return "box", [*(2.0 * np.asarray(geometry.halfSide, dtype=float)).tolist(), 0.0], none
    if isinstance(geometry, (coal.Capsule, coal.Cylinder)):
        kind = "capsule" if isinstance(geometry, coal.Capsule) else "cylinder"
        return kind, [float(geometry.radius), 2.0 * float(geometry.halfLength), 0.0, 0.0], none
    if isinstance(geometry, coal.Halfspace):
        return "plane", [*np.asarray(geometry.n, dtype=float).tolist(), float(geometry.d)], none
    points = getattr(geometry, "points", None)
    if isinstance(geometry, coal.ConvexBase) and callable(points):
        return "mesh", [0.0] * 4, np.array(points(), dtype=float).reshape(-1, 3)
    geometry.computeLocalAABB()
    box = geometry.aabb_local
    lo, hi = np.asarray(box.min_, dtype=float), np.asarray(box.max_, dtype=float)
    corners = np.array([[(lo, hi)[b][i] for i, b in enumerate(bits)] for bits in itertools.product((0, 1), repeat=3)])
    return "mesh", [0.0] * 4, corners


def scene_shapes(scene: Scene) -> list[BodyShape]:
    """Every collision geometry of ``scene`` as a :class:`BodyShape`, placed in its body's frame."""
    shapes = []
    model = scene.model
    for i, g in enumerate(scene.collision.geometryObjects):
        body = scene.body_of(i)
        placement = pin.SE3(g.placement)
        if body != WORLD:
            frame = model.frames[g.parentFrame]
            # the geometry's placement is in its joint's frame; the body frame is the frame's
            to_joint = frame.placement if frame.parentJoint == g.parentJoint else pin.SE3.Identity()
            placement = to_joint.inverse() * placement
        kind, params, vertices = _params(g.geometry)
        shapes.append(BodyShape(body, g.name, kind, np.array(params), placement.homogeneous.copy(), vertices))
    return shapes


def write_shapes(h5: Any, shapes: list[BodyShape]) -> None:
    """The ``shapes`` group of a trajectory file (``vertex_offset`` gives shape ``k``'s vertices)."""
    import h5py

    text = h5py.string_dtype()
    g = h5.create_group("shapes")
    for key in ("body", "name", "kind"):
        g.create_dataset(key, data=np.array([getattr(s, key) for s in shapes], dtype=object), dtype=text)
    g.create_dataset("params", data=np.array([s.params for s in shapes], dtype=float).reshape(-1, 4))
    g.create_dataset("placement", data=np.array([s.placement for s in shapes], dtype=float).reshape(-1, 4, 4))
    g.create_dataset("vertex_offset", data=np.cumsum([0] + [len(s.vertices) for s in shapes]))
    parts = [np.asarray(s.vertices, dtype=float).reshape(-1, 3) for s in shapes]
    g.create_dataset("vertices", data=np.concatenate(parts) if parts else np.zeros((0, 3)))


def _strings(g: Any, key: str, n: int, where: str) -> list[str]:
    data = g[key][()]
    if np.shape(data) != (n,):
        raise InvalidProblemError(where, f"'shapes/{key}' must hold {n} names, got shape {np.shape(data)}")
    return [x.decode() if isinstance(x, bytes) else str(x) for x in data]


def read_shapes(h5: Any, where: str = "shapes") -> list[BodyShape]:
    """The shapes of a trajectory file (an empty list when it has none: files of older versions)."""
    if "shapes" not in h5:
        return []
    g = h5["shapes"]
    try:
        params = np.asarray(g["params"][()], dtype=float)
        n = len(params)
        body, name, kind = (_strings(g, key, n, where) for key in ("body", "name", "kind"))
        placement = np.asarray(g["placement"][()], dtype=float)
        offset = np.asarray(g["vertex_offset"][()])
        vertices = np.asarray(g["vertices"][()], dtype=float)
    except KeyError as exc:
        raise InvalidProblemError(where, f"incomplete shapes group ({exc})") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InvalidProblemError):
            raise
        raise InvalidProblemError(where, f"unreadable shapes group ({exc})") from None
    if params.shape != (n, 4) or placement.shape != (n, 4, 4) or vertices.ndim != 2 or vertices.shape[1:] != (3,):
        raise InvalidProblemError(where, "shapes/params, placement or vertices have the wrong shape")
    if offset.shape != (n + 1,) or offset[0] != 0 or np.any(np.diff(offset) < 0) or offset[-1] != len(vertices):
        raise InvalidProblemError(where, "shapes/vertex_offset does not match shapes/vertices")
    if not (np.isfinite(params).all() and np.isfinite(placement).all() and np.isfinite(vertices).all()):
        raise InvalidProblemError(where, "the shapes hold NaN or inf")
    unknown = sorted(set(kind) - set(KINDS))
    if unknown:
        raise InvalidProblemError(where, f"unknown shape kind(s) {unknown}; known: {', '.join(KINDS)}")
    return [
        BodyShape(body[k], name[k], kind[k], params[k], placement[k], vertices[offset[k] : offset[k + 1]])
        for k in range(n)
    ]

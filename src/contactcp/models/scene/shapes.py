"""Collision shapes of a scene: coal geometries from plain descriptions, and solid inertias.

A shape is a dictionary (the JSON scene format uses the same one) with a ``"type"``:

==========  ====================================================  ==========================
type        keys (SI units)                                       coal geometry
==========  ====================================================  ==========================
sphere      ``radius``                                            ``coal.Sphere``
box         ``size``: the full edge lengths ``[x, y, z]``         ``coal.Box``
capsule     ``radius``, ``length`` (of the cylinder part, ``z``)   ``coal.Capsule``
cylinder    ``radius``, ``length`` (along ``z``)                   ``coal.Cylinder``
plane       ``normal`` (default ``+z``), ``offset`` (default 0)   ``coal.Halfspace``
mesh        ``vertices`` (``(k, 3)``) or ``file`` (STL/OBJ/...),   ``coal.Convex`` (the
            optional ``scale``                                    convex hull)
==========  ====================================================  ==========================

A plane is the solid half-space ``normal . x <= offset`` in the frame of its body (MJCF's plane,
whose solid side is below its ``z = 0`` surface).  Meshes are replaced by their convex hull, so
that contacts with them have well-defined normals and patches (coal's contact patches need
convex shapes).
"""

from __future__ import annotations

from typing import Any

import coal
import numpy as np

from contactcp._validate import number, real_array, vector
from contactcp.errors import InvalidProblemError

__all__ = ["SHAPES", "make_shape", "solid_inertia", "convex_hull", "describe"]

SHAPES = ("sphere", "box", "capsule", "cylinder", "plane", "mesh")

_KEYS = {
    "sphere": {"radius"},
    "box": {"size"},
    "capsule": {"radius", "length"},
    "cylinder": {"radius", "length"},
    "plane": {"normal", "offset"},
    "mesh": {"vertices", "file", "scale"},
}


def _positive(d: dict, key: str, where: str) -> float:
    if key not in d:
        raise InvalidProblemError(f"{where}.{key}", "is required")
    x = number(d[key], f"{where}.{key}")
    if not x > 0:
        raise InvalidProblemError(f"{where}.{key}", f"must be positive, got {d[key]!r}")
    return x


def convex_hull(points: Any, where: str = "vertices") -> coal.Convex:
    """The convex hull of ``(k, 3)`` points (qhull through coal), as a ``coal.Convex``."""
    P = np.ascontiguousarray(real_array(points, where), dtype=float)
    if P.ndim != 2 or P.shape[1] != 3 or P.shape[0] < 4:
        raise InvalidProblemError(where, f"must be at least 4 points of 3 coordinates, got shape {P.shape}")
    if not np.isfinite(P).all():
        raise InvalidProblemError(where, "contains NaN or inf")
    if np.linalg.matrix_rank(P[1:] - P[0], tol=1e-12 * max(1.0, float(np.abs(P).max()))) < 3:
        raise InvalidProblemError(where, "the points are flat (they span no volume)")
    pts = coal.StdVec_Vec3s()
    for p in P:
        pts.append(p)
    try:
        return coal.Convex.convexHull(pts, True, None)  # triangles kept: coal's volume and inertia need them
    except Exception as exc:  # qhull's own errors
        raise InvalidProblemError(where, f"no convex hull ({exc})") from None


def _mesh(d: dict, where: str) -> coal.Convex:
    scale = np.ones(3) if d.get("scale") is None else np.asarray(vector(d["scale"], f"{where}.scale", 3))
    if (scale <= 0).any():
        raise InvalidProblemError(f"{where}.scale", "must be positive")
    if ("vertices" in d) == ("file" in d):
        raise InvalidProblemError(where, 'a mesh needs exactly one of "vertices" and "file"')
    if "vertices" in d:
        return convex_hull(np.asarray(real_array(d["vertices"], f"{where}.vertices")) * scale, f"{where}.vertices")
    path = d["file"]
    if not isinstance(path, str):
        raise InvalidProblemError(f"{where}.file", f"must be a path, got {path!r}")
    try:
        bvh = coal.MeshLoader().load(path, scale)
    except Exception as exc:
        raise InvalidProblemError(f"{where}.file", f"cannot read the mesh {path!r} ({exc})") from None
    return convex_hull(np.asarray(bvh.vertices()), f"{where}.file")  # numpy (k, 3)


def make_shape(spec: Any, where: str = "shape") -> coal.CollisionGeometry:
    """The coal geometry a shape description (see the module docstring) stands for."""
    if not isinstance(spec, dict):
        raise InvalidProblemError(where, 'must be an object such as {"type": "sphere", "radius": 0.05}')
    kind = spec.get("type")
    if kind not in SHAPES:
        raise InvalidProblemError(f"{where}.type", f"unknown shape {kind!r}; available: {', '.join(SHAPES)}")
    extra = set(spec) - _KEYS[kind] - {"type"}
    if extra:
        raise InvalidProblemError(where, f"unknown key(s) {sorted(extra)} for a {kind}; allowed: {sorted(_KEYS[kind])}")
    if kind == "sphere":
        return coal.Sphere(_positive(spec, "radius", where))
    if kind == "box":
        size = np.asarray(vector(spec.get("size"), f"{where}.size", 3)) if "size" in spec else None
        if size is None or not (size > 0).all():
            raise InvalidProblemError(f"{where}.size", "must be three positive edge lengths")
        return coal.Box(*size)
    if kind in ("capsule", "cylinder"):
        cls = coal.Capsule if kind == "capsule" else coal.Cylinder
        return cls(_positive(spec, "radius", where), _positive(spec, "length", where))
    if kind == "plane":
        n = np.asarray(vector(spec.get("normal", [0.0, 0.0, 1.0]), f"{where}.normal", 3))
        if not np.linalg.norm(n) > 0:
            raise InvalidProblemError(f"{where}.normal", "must be nonzero")
        offset = number(spec.get("offset", 0.0), f"{where}.offset")
        return coal.Halfspace(n / np.linalg.norm(n), offset / np.linalg.norm(n))
    return _mesh(spec, where)


def solid_inertia(geometry: coal.CollisionGeometry, mass: float, where: str = "shape") -> tuple[np.ndarray, np.ndarray]:
    """``(centre of mass, inertia about it)`` of a solid of uniform density and mass ``mass``,
    in the shape's frame (coal's volume and moments; a plane has no finite volume)."""
    if isinstance(geometry, (coal.Halfspace, coal.Plane)):
        raise InvalidProblemError(where, "a plane has no finite volume: it can only be fixed geometry")
    volume = float(geometry.computeVolume())
    com = np.asarray(geometry.computeCOM(), dtype=float)
    I = np.asarray(geometry.computeMomentofInertiaRelatedToCOM(), dtype=float) * (mass / volume)
    return com, 0.5 * (I + I.T)


def describe(geometry: coal.CollisionGeometry) -> dict[str, Any]:
    """A shape description of a coal primitive (the inverse of :func:`make_shape`, for output)."""
    if isinstance(geometry, coal.Sphere):
        return {"type": "sphere", "radius": float(geometry.radius)}
    if isinstance(geometry, coal.Box):
        return {"type": "box", "size": (2.0 * np.asarray(geometry.halfSide)).tolist()}
    if isinstance(geometry, (coal.Capsule, coal.Cylinder)):
        kind = "capsule" if isinstance(geometry, coal.Capsule) else "cylinder"
        return {"type": kind, "radius": float(geometry.radius), "length": 2.0 * float(geometry.halfLength)}
    if isinstance(geometry, coal.Halfspace):
        return {"type": "plane", "normal": np.asarray(geometry.n).tolist(), "offset": float(geometry.d)}
    return {"type": "mesh", "vertices": int(getattr(geometry, "num_points", 0))}

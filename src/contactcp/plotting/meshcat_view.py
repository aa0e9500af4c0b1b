"""A browser view of a trajectory with meshcat (optional: ``pip install 'contactcp[viewer]'``):
:func:`show_meshcat` sends each body's collision shapes to a meshcat viewer and the motion as a
meshcat animation (play, pause and scrub it in the browser's controls), and can save the scene as
one self-contained HTML page.

Without meshcat installed :func:`show_meshcat` raises
:class:`~contactcp.errors.MissingDependencyError`; :func:`meshcat_available` says beforehand.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from contactcp._files import atomic_write
from contactcp.errors import InvalidProblemError, MissingDependencyError
from contactcp.plotting.animation import (
    _cube,
    _options,
    _plane_patch,
    _shapes,
    animation_frames,
    quaternion_matrices,
    shape_surface,
)
from contactcp.simulate.stepping import Trajectory

__all__ = ["show_meshcat", "meshcat_available"]

_COLORS = (0x1F77B4, 0xFF7F0E, 0x2CA02C, 0xD62728, 0x9467BD, 0x8C564B, 0xE377C2, 0x7F7F7F, 0xBCBD22, 0x17BECF)


def meshcat_available() -> bool:
    """True when the meshcat package can be imported."""
    try:
        import meshcat  # noqa: F401
    except ImportError:
        return False
    return True


def _meshcat() -> Any:
    try:
        import meshcat
        import meshcat.animation
        import meshcat.geometry
    except ImportError:
        raise MissingDependencyError(
            "the meshcat viewer needs the meshcat package, which is not installed: "
            "pip install 'contactcp[viewer]' (or pip install meshcat); "
            "contactcp.plotting.animation.animate_trajectory writes a GIF or HTML animation without it"
        ) from None
    return meshcat


def _triangles(F: np.ndarray) -> np.ndarray:
    """Faces of 3 or 4 vertices as triangles (faces of one or two vertices: none)."""
    F = np.asarray(F)
    if F.shape[1] == 4:
        return np.concatenate([F[:, [0, 1, 2]], F[:, [0, 2, 3]]])
    return F if F.shape[1] == 3 else np.zeros((0, 3), dtype=int)


def _transform(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


def show_meshcat(
    traj: Trajectory | str | os.PathLike,
    geometry: Any = None,
    vis: Any = None,
    fps: float = 25.0,
    stride: int | None = None,
    max_frames: int = 2000,
    html: str | os.PathLike | None = None,
    open_browser: bool = False,
) -> Any:
    """Show ``traj`` (a Trajectory or its HDF5 file) in a meshcat viewer and return the viewer.

    ``vis`` an existing ``meshcat.Visualizer`` (default: a new one, which starts meshcat's server;
    its address is ``vis.url()``); ``geometry``, ``fps``, ``stride`` and ``max_frames`` as in
    :func:`~contactcp.plotting.animation.animate_trajectory`; ``html`` a file to write the scene and
    its animation to as one page (atomically); ``open_browser`` opens the viewer's page.
    """
    mc = _meshcat()
    if isinstance(traj, (str, os.PathLike)):
        traj = Trajectory.from_hdf5(traj)
    if not isinstance(traj, Trajectory):
        raise InvalidProblemError("traj", f"must be a Trajectory or a trajectory file, got {type(traj).__name__}")
    _, fps, stride, max_frames = _options("x.gif", fps, stride, max_frames)
    if html is not None and not str(html).lower().endswith((".html", ".htm")):
        raise InvalidProblemError("html", f"must end in .html or .htm, got {str(html)!r}")
    shapes = _shapes(traj, geometry)
    if not shapes:
        raise InvalidProblemError("traj", "has no shapes to show (give geometry=scene)")
    frames = animation_frames(traj, fps, stride, max_frames)
    vis = mc.Visualizer() if vis is None else vis
    root = vis["contactcp"]
    root.delete()
    points = [traj.body_pos[frames].reshape(-1, 3)] if traj.body_names else [np.zeros((1, 3))]
    for s in shapes:
        surface = shape_surface(s)
        if surface is None:
            continue
        V, F = surface
        i = traj.body_names.index(s.body) if s.body in traj.body_names else -1
        color = _COLORS[i % len(_COLORS)] if i >= 0 else 0x808080
        material = mc.geometry.MeshLambertMaterial(color=color, opacity=0.9, transparent=True)
        root["bodies"][s.body][s.name].set_object(mc.geometry.TriangularMeshGeometry(V, _triangles(F)), material)
        points.append(V + (traj.body_pos[frames[0], i] if i >= 0 else 0.0))
    centre, half = _cube(np.concatenate(points))
    for s in (s for s in shapes if s.kind == "plane"):
        patch = _plane_patch(s, centre, 2.0 * half)
        floor = mc.geometry.TriangularMeshGeometry(patch, np.array([[0, 1, 2], [0, 2, 3], [0, 2, 1], [0, 3, 2]]))
        root["planes"][s.name].set_object(floor, mc.geometry.MeshLambertMaterial(color=0xB0B0B0, opacity=0.6))
    R = quaternion_matrices(traj.body_quat[frames])  # (F, nb, 3, 3)
    anim = mc.animation.Animation(default_framerate=fps)
    for f, k in enumerate(frames):
        with anim.at_frame(vis, f) as frame:
            for i, body in enumerate(traj.body_names):
                frame["contactcp"]["bodies"][body].set_transform(_transform(R[f, i], traj.body_pos[k, i]))
    for i, body in enumerate(traj.body_names):
        root["bodies"][body].set_transform(_transform(R[0, i], traj.body_pos[frames[0], i]))
    vis.set_animation(anim, play=False)
    if html is not None:
        with atomic_write(html) as tmp:
            tmp.write_text(vis.static_html(), encoding="utf-8")
    if open_browser:
        vis.open()
    return vis

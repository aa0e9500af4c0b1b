"""A 3-D view of a trajectory's motion: :func:`animate_trajectory` writes an animated GIF (matplotlib's
Pillow writer) or a self-contained HTML page (matplotlib's JavaScript player) of each body's
collision shapes moving with the trajectory's ``body_pos`` and ``body_quat``.

The shapes come from the trajectory itself (``Trajectory.shapes``, filled by
:func:`~contactcp.simulate.stepping.simulate` and kept in its HDF5 file), a scene, or a list of
:class:`~contactcp.simulate.stepping.bodyshapes.BodyShape`: boxes and meshes (their convex hull) are
drawn as they are, spheres, capsules and cylinders as polyhedra of revolution, planes as a square
patch under the motion.  A trajectory without shapes shows its body frames' origins as dots.  No
video encoder is needed (ffmpeg is not used).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import animation  # noqa: E402
from mpl_toolkits.mplot3d.art3d import Poly3DCollection  # noqa: E402

from contactcp._files import atomic_write  # noqa: E402
from contactcp._validate import number  # noqa: E402
from contactcp.errors import InvalidOptionError, InvalidProblemError  # noqa: E402
from contactcp.models.scene.scene import Scene  # noqa: E402
from contactcp.simulate.stepping import Trajectory  # noqa: E402
from contactcp.simulate.stepping.bodyshapes import BodyShape, scene_shapes  # noqa: E402

__all__ = ["animate_trajectory", "animation_frames", "shape_surface", "quaternion_matrices", "ANIMATION_SUFFIXES"]

#: the files :func:`animate_trajectory` writes
ANIMATION_SUFFIXES = (".gif", ".html", ".htm")
_SEGMENTS = 16  # around a body of revolution


def quaternion_matrices(quat: np.ndarray) -> np.ndarray:
    """Rotation matrices ``(..., 3, 3)`` of unit quaternions ``(..., 4)`` in the order w, x, y, z."""
    q = np.asarray(quat, dtype=float)
    q = q / np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-300)
    w, x, y, z = np.moveaxis(q, -1, 0)
    rows = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


def _revolve(r: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A polyhedron of revolution about ``z`` of the profile ``(r, z)``: vertices and quad faces."""
    a = np.linspace(0.0, 2.0 * np.pi, _SEGMENTS, endpoint=False)
    V = np.stack([np.outer(r, np.cos(a)), np.outer(r, np.sin(a)), np.repeat(z[:, None], a.size, 1)], axis=-1)
    i, j = np.meshgrid(np.arange(len(r) - 1), np.arange(a.size), indexing="ij")
    j1 = (j + 1) % a.size
    faces = np.stack([i * a.size + j, i * a.size + j1, (i + 1) * a.size + j1, (i + 1) * a.size + j], axis=-1)
    return V.reshape(-1, 3), faces.reshape(-1, 4)


def _arc(radius: float, lo: float, hi: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    phi = np.linspace(lo, hi, n)
    return radius * np.sin(phi), -radius * np.cos(phi)


def shape_surface(shape: BodyShape) -> tuple[np.ndarray, np.ndarray] | None:
    """``(vertices (k, 3), faces (m, 3 or 4) of vertex indices)`` of a shape in its body's frame
    (its placement applied), or None for a plane (drawn as a patch)."""
    p = shape.params
    if shape.kind == "plane":
        return None
    if shape.kind == "box":
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
        V = corners * (0.5 * p[:3])
        F = np.array([[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]])
    elif shape.kind == "sphere":
        V, F = _revolve(*_arc(p[0], 0.0, np.pi, 9))
    elif shape.kind == "cylinder":
        V, F = _revolve(np.array([0.0, p[0], p[0], 0.0]), 0.5 * p[1] * np.array([-1.0, -1.0, 1.0, 1.0]))
    elif shape.kind == "capsule":
        r0, z0 = _arc(p[0], 0.0, 0.5 * np.pi, 5)
        r1, z1 = _arc(p[0], 0.5 * np.pi, np.pi, 5)
        V, F = _revolve(np.concatenate([r0, r1]), np.concatenate([z0 - 0.5 * p[1], z1 + 0.5 * p[1]]))
    else:
        V, F = _hull(np.asarray(shape.vertices, dtype=float))
    P = np.asarray(shape.placement, dtype=float)
    return V @ P[:3, :3].T + P[:3, 3], F


def _hull(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from scipy.spatial import ConvexHull, QhullError

    try:
        return points, ConvexHull(points).simplices
    except (QhullError, ValueError, IndexError):  # flat or too few points: the points alone
        return points, np.arange(len(points)).reshape(-1, 1)


def animation_frames(
    traj: Trajectory, fps: float = 25.0, stride: int | None = None, max_frames: int = 200
) -> np.ndarray:
    """The indices of ``traj``'s states an animation shows: every ``stride``-th one (default: as many
    as play back in real time at ``fps`` frames per second, at most ``max_frames``), and the last."""
    n = len(traj.t)
    if stride is None:
        stride = max(1, round(1.0 / (fps * traj.dt)), math.ceil(n / max_frames))
    frames = np.arange(0, n, stride)
    return frames if frames[-1] == n - 1 else np.append(frames, n - 1)


def _shapes(traj: Trajectory, geometry: Any) -> list[BodyShape]:
    if geometry is None:
        return list(traj.shapes)
    if isinstance(geometry, Scene):
        return scene_shapes(geometry)
    if isinstance(geometry, (list, tuple)) and all(isinstance(s, BodyShape) for s in geometry):
        return list(geometry)
    raise InvalidProblemError("geometry", f"must be a Scene or a list of BodyShape, got {type(geometry).__name__}")


def _poses(traj: Trajectory, frames: np.ndarray, body: str) -> tuple[np.ndarray, np.ndarray]:
    """The world rotations ``(F, 3, 3)`` and positions ``(F, 3)`` of a body (fixed: the identity)."""
    if body in traj.body_names:
        i = traj.body_names.index(body)
        return quaternion_matrices(traj.body_quat[frames, i]), traj.body_pos[frames, i]
    return np.broadcast_to(np.eye(3), (len(frames), 3, 3)), np.zeros((len(frames), 3))


def _cube(points: np.ndarray) -> tuple[np.ndarray, float]:
    """The centre and half-edge of a cube around ``points``, its bottom just under the lowest one."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre, half = 0.5 * (lo + hi), max(0.55 * float((hi - lo).max()), 0.05)
    centre[2] = lo[2] - 0.05 * half + half
    return centre, half


def _plane_patch(shape: BodyShape, centre: np.ndarray, half: float) -> np.ndarray:
    """The square of the plane's surface (world frame; the plane on a fixed body) around ``centre``."""
    P = np.asarray(shape.placement, dtype=float)
    n = P[:3, :3] @ shape.params[:3]
    n = n / np.linalg.norm(n)
    origin = P[:3, :3] @ (shape.params[:3] * shape.params[3] / np.dot(shape.params[:3], shape.params[:3])) + P[:3, 3]
    c = centre - np.dot(centre - origin, n) * n
    u = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)
    w = np.cross(n, u)
    return np.array([c + half * (a * u + b * w) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _build(traj: Trajectory, shapes: list[BodyShape], frames: np.ndarray, size: tuple[float, float]):
    """The figure and the frame-update function of the animation."""
    fig = plt.figure(figsize=size)
    ax = fig.add_subplot(projection="3d")
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    solids, planes, points = [], [s for s in shapes if s.kind == "plane"], [traj.body_pos[frames].reshape(-1, 3)]
    for s in shapes:
        surface = shape_surface(s)
        if surface is None:
            continue
        V, F = surface
        R, p = _poses(traj, frames, s.body)
        world = np.einsum("fij,kj->fki", R, V) + p[:, None, :]  # (frames, k, 3)
        points.append(world.reshape(-1, 3))
        i = traj.body_names.index(s.body) if s.body in traj.body_names else -1
        color = colors[i % len(colors)] if i >= 0 else "0.5"
        coll = Poly3DCollection(world[0][F], facecolor=color, edgecolor="0.2", linewidths=0.3, alpha=0.85)
        solids.append((ax.add_collection3d(coll), world, F))
    centre, half = _cube(np.concatenate(points) if any(len(x) for x in points) else np.zeros((1, 3)))
    for s in planes:
        ax.add_collection3d(
            Poly3DCollection([_plane_patch(s, centre, half)], facecolor="0.55", edgecolor="0.4", alpha=0.4)
        )
    dots = None
    if not solids and traj.body_names:
        (dots,) = ax.plot([], [], [], "o", color=colors[0])
    for k, set_lim in enumerate((ax.set_xlim, ax.set_ylim, ax.set_zlim)):
        set_lim(centre[k] - half, centre[k] + half)
    ax.set_box_aspect((1, 1, 1))
    ax.tick_params(labelsize=6)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_zlabel("z (m)")
    label = ax.text2D(0.02, 0.95, "", transform=ax.transAxes)
    ax.set_title(traj.name, fontsize=9)

    def update(f: int):
        for coll, world, F in solids:
            coll.set_verts(world[f][F])
        if dots is not None:
            P = traj.body_pos[frames[f]]
            dots.set_data_3d(P[:, 0], P[:, 1], P[:, 2])
        label.set_text(f"t = {traj.t[frames[f]]:.3f} s")
        return [c for c, _, _ in solids] + [label]

    update(0)
    return fig, update


def _options(path: Any, fps: Any, stride: Any, max_frames: Any) -> tuple[Path, float, int | None, int]:
    path = Path(path)
    if path.suffix.lower() not in ANIMATION_SUFFIXES:
        raise InvalidProblemError(
            "path", f"an animation must end in {', '.join(ANIMATION_SUFFIXES)}, got {str(path)!r}"
        )
    fps = number(fps, "fps")
    if not 0 < fps <= 1000:
        raise InvalidOptionError("fps", f"must be in (0, 1000] frames per second, got {fps!r}")
    for name, x in (("stride", stride), ("max_frames", max_frames)):
        if x is not None and (isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1):
            raise InvalidOptionError(name, f"must be a positive integer, got {x!r}")
    return path, fps, None if stride is None else int(stride), int(max_frames)


def animate_trajectory(
    traj: Trajectory | str | os.PathLike,
    path: str | os.PathLike,
    geometry: Any = None,
    fps: float = 25.0,
    stride: int | None = None,
    max_frames: int = 200,
    size: tuple[float, float] = (5.0, 5.0),
    dpi: int = 80,
) -> int:
    """Write an animation of ``traj`` (a Trajectory, or the path of its HDF5 file) to ``path``:
    ``.gif`` (animated GIF) or ``.html`` (a page with a player, the frames inside), atomically.

    ``geometry``: the shapes to draw (None: the trajectory's own; a Scene; a list of BodyShape).
    ``fps`` frames per second of playback; ``stride`` states per frame (default: real time at
    ``fps``, at most ``max_frames`` frames; :func:`animation_frames`).  Returns the number of frames.
    """
    if isinstance(traj, (str, os.PathLike)):
        traj = Trajectory.from_hdf5(traj)
    if not isinstance(traj, Trajectory):
        raise InvalidProblemError("traj", f"must be a Trajectory or a trajectory file, got {type(traj).__name__}")
    path, fps, stride, max_frames = _options(path, fps, stride, max_frames)
    shapes = _shapes(traj, geometry)
    if not traj.body_names and not shapes:
        raise InvalidProblemError("traj", "has no bodies and no shapes to draw (a LinearSystem's run?)")
    frames = animation_frames(traj, fps, stride, max_frames)
    fig, update = _build(traj, shapes, frames, size)
    try:
        anim = animation.FuncAnimation(fig, update, frames=len(frames), interval=1000.0 / fps, blit=False)
        with atomic_write(path) as tmp:
            if path.suffix.lower() == ".gif":
                anim.save(tmp, writer=animation.PillowWriter(fps=fps), dpi=dpi)
            else:
                with plt.rc_context({"animation.embed_limit": 1024.0, "savefig.dpi": dpi}):
                    tmp.write_text(anim.to_jshtml(fps=fps, default_mode="loop"), encoding="utf-8")
    finally:
        plt.close(fig)
    return len(frames)

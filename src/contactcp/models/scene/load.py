"""Scenes from URDF and MJCF through pinocchio's parsers (no parser of our own).

URDF: ``pinocchio.buildModelFromUrdf`` / ``buildModelFromXML`` and ``buildGeomFromUrdf[String]``
(collision geometry); ``package://`` paths are looked up in ``package_dirs`` (default: the file's
folder and its parents).  A fixed base is placed at ``base``; ``floating=True`` gives the robot a
free-flyer root instead.  URDF has no friction: every geometry gets :data:`DEFAULT_FRICTION`
unless the scene sets ``scene.friction``.

MJCF: ``pinocchio.buildModelsFromMJCF``.  Three things pinocchio leaves out are taken from the file
itself with the standard library's XML reader: ``<option gravity>``, each geom's sliding
``friction`` (its own attribute, else its default class's, else 1), and ``contype``/``conaffinity``
(geoms with both 0 never collide and are dropped from the collision model).  pinocchio reads only
the first body tree of ``<worldbody>``, so the file is read through a copy in which all of
``<worldbody>``'s bodies hang on one jointless body (welded to the world, which changes nothing in
MuJoCo's semantics); unnamed geoms get the names ``geom<k>`` in document order, as MuJoCo's own
numbering.

Meshes become their convex hulls (:mod:`contactcp.models.scene.shapes`).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import coal
import numpy as np
import pinocchio as pin

from contactcp._validate import vector
from contactcp.errors import InvalidProblemError
from contactcp.models.scene.scene import Scene, pose
from contactcp.models.scene.shapes import convex_hull

__all__ = ["scene_from_urdf", "scene_from_mjcf"]

_ROOT = "contactcp_root"
_MJCF_JOINTS = {"free", "ball", "slide", "hinge"}
_MJCF_GEOMS = {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf"}


@contextlib.contextmanager
def _captured_stderr():
    """Capture what C++ code (urdfdom's console messages) writes on file descriptor 2, so that the
    CLI's one-line errors stay one line; yields a list that receives the text."""
    out: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield out
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode("utf-8", "replace"))


def _reason(exc: Exception, stderr: list[str]) -> str:
    """One line from a pinocchio exception (its ``message:`` part) or the parser's own error lines."""
    text = str(exc)
    if "message:" in text:
        text = text.split("message:", 1)[1]
    errors = re.findall(r"Error:\s*(.+)", "".join(stderr))
    lines = [ln.strip() for ln in ([*errors, *text.splitlines()]) if ln.strip()]
    return "; ".join(lines[:2]) if lines else type(exc).__name__


def _convexify(gm: pin.GeometryModel) -> None:
    for g in gm.geometryObjects:
        geom = g.geometry
        if isinstance(geom, coal.BVHModelBase):
            g.geometry = convex_hull(np.asarray(geom.vertices()), f"mesh of {g.name!r}")


def _is_text(source: Any) -> bool:
    return isinstance(source, str) and source.lstrip().startswith("<")


def _package_dirs(path: Path | None, extra: Any) -> list[str]:
    dirs = [str(d) for d in (extra or [])]
    if path is not None:
        dirs += [str(p) for p in list(path.resolve().parents)[:4]]
    return dirs


def scene_from_urdf(
    source: str | os.PathLike,
    package_dirs: Any = None,
    floating: bool = False,
    base: Any = None,
    name: str | None = None,
) -> Scene:
    """A scene holding the robot of a URDF file or text (see the module docstring)."""
    text = _is_text(source)
    if not text and not isinstance(source, (str, os.PathLike)):
        raise InvalidProblemError("urdf", f"must be a file path or URDF text, got {type(source).__name__}")
    path = None if text else Path(source)
    if path is not None and not path.is_file():
        raise InvalidProblemError("urdf", f"no such file: {str(path)!r}")
    root = [pin.JointModelFreeFlyer()] if floating else []
    dirs = _package_dirs(path, package_dirs)
    try:
        with _captured_stderr() as err:
            if text:
                model = pin.buildModelFromXML(source, *root)
                gm = pin.buildGeomFromUrdfString(model, source, pin.GeometryType.COLLISION, package_dirs=dirs)
            else:
                model = pin.buildModelFromUrdf(str(path), *root)
                gm = pin.buildGeomFromUrdf(model, str(path), pin.GeometryType.COLLISION, package_dirs=dirs)
    except Exception as exc:  # pinocchio raises ValueError / RuntimeError with the element named
        raise InvalidProblemError("urdf", f"cannot be read: {_reason(exc, err)}") from None
    if not floating and base is not None:
        M = pose(base, "base")
        for j in range(1, model.njoints):
            if model.parents[j] == 0:
                model.jointPlacements[j] = M * model.jointPlacements[j]
        for f in model.frames:
            if f.parentJoint == 0 and f.name != "universe":
                f.placement = M * f.placement
        for g in gm.geometryObjects:
            if g.parentJoint == 0:
                g.placement = M * g.placement
    _convexify(gm)
    scene = Scene(model, gm, name or model.name or "urdf")
    if floating and base is not None:
        scene.q[:7] = pin.SE3ToXYZQUAT(pose(base, "base"))
    return scene


def _parse(path: Path) -> ET.ElementTree:
    try:
        tree = ET.parse(path)
    except ET.ParseError as exc:
        raise InvalidProblemError("mjcf", f"malformed XML in {path.name}: {exc}") from None
    if tree.getroot().tag != "mujoco":
        raise InvalidProblemError("mjcf", f"the root element is <{tree.getroot().tag}>, not <mujoco>")
    return tree


def _defaults(root: ET.Element) -> dict[str, dict[str, str]]:
    """Geom attributes per default class, each class inheriting its parent's (MJCF's rule)."""
    out: dict[str, dict[str, str]] = {}

    def walk(el: ET.Element, inherited: dict[str, str]) -> None:
        own = dict(inherited)
        g = el.find("geom")
        if g is not None:
            own.update(g.attrib)
        out[el.get("class", "main")] = own
        for child in el.findall("default"):
            walk(child, own)

    for d in root.findall("default"):
        walk(d, {})
    return out


def _geoms(root: ET.Element, defaults: dict) -> dict[str, dict[str, str]]:
    """Every geom's effective attributes (its class's, then its own), naming unnamed ones."""
    out: dict[str, dict[str, str]] = {}
    count = 0

    def walk(el: ET.Element, childclass: str) -> None:
        nonlocal count
        for child in el:
            if child.tag == "geom":
                cls = child.get("class", childclass)
                if cls not in defaults and cls != "main":
                    raise InvalidProblemError(f"geom {child.get('name', count)!r}", f"unknown default class {cls!r}")
                if "name" not in child.attrib:
                    child.set("name", f"geom{count}")
                out[child.get("name")] = attrs = {**defaults.get(cls, {}), **child.attrib}
                if attrs.get("type", "sphere") not in _MJCF_GEOMS:
                    raise InvalidProblemError(
                        f"geom {child.get('name')!r}",
                        f"unknown geom type {attrs['type']!r}; MJCF's are {sorted(_MJCF_GEOMS)}",
                    )
                count += 1
            elif child.tag == "body":
                for j in child.findall("joint"):
                    if j.get("type", "hinge") not in _MJCF_JOINTS:
                        raise InvalidProblemError(
                            f"joint {j.get('name', '')!r} of body {child.get('name', '')!r}",
                            f"unknown joint type {j.get('type')!r}; MJCF's are {sorted(_MJCF_JOINTS)}",
                        )
                walk(child, child.get("childclass", childclass))

    wb = root.find("worldbody")
    if wb is None:
        raise InvalidProblemError("mjcf", "has no <worldbody>")
    walk(wb, "main")
    return out


def _absolute_paths(root: ET.Element, folder: Path) -> None:
    compiler = root.find("compiler")
    if compiler is None:
        compiler = ET.SubElement(root, "compiler")
        root.remove(compiler)
        root.insert(0, compiler)
    for key in ("meshdir", "texturedir"):
        base = compiler.get(key, compiler.get("assetdir", ""))
        compiler.set(key, str((folder / base).resolve()) + os.sep)
    for inc in root.iter("include"):
        inc.set("file", str((folder / inc.get("file", "")).resolve()))
    meshdir = Path(compiler.get("meshdir"))
    for mesh in root.iter("mesh"):
        if mesh.get("file") is not None and not (meshdir / mesh.get("file")).is_file():
            raise InvalidProblemError(
                f"mesh {mesh.get('name', mesh.get('file'))!r}", f"file not found: {mesh.get('file')!r}"
            )


def _number_list(text: str, where: str, n: int | None = None) -> np.ndarray:
    try:
        vals = [float(x) for x in text.split()]
    except ValueError:
        raise InvalidProblemError(where, f"must be numbers, got {text!r}") from None
    return np.asarray(vector(vals if n is None else vals[:n] + [0.0] * (n - len(vals[:n])), where, n))


def scene_from_mjcf(path: str | os.PathLike, name: str | None = None) -> Scene:
    """A scene from an MJCF (MuJoCo XML) file (see the module docstring)."""
    if not isinstance(path, (str, os.PathLike)) or not Path(path).is_file():
        raise InvalidProblemError("mjcf", f"no such file: {str(path)!r}")
    path = Path(path)
    tree = _parse(path)
    root = tree.getroot()
    geoms = _geoms(root, _defaults(root))
    wb = root.find("worldbody")
    bodies = wb.findall("body")
    if bodies:
        holder = ET.SubElement(wb, "body", {"name": _ROOT})
        for b in bodies:
            wb.remove(b)
            holder.append(b)
    _absolute_paths(root, path.parent)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / path.name
        tree.write(copy)
        try:
            with _captured_stderr() as err:
                model, _, gm, _ = pin.buildModelsFromMJCF(str(copy))
        except Exception as exc:
            raise InvalidProblemError("mjcf", f"cannot be read: {_reason(exc, err)}") from None
    for gname, attrs in geoms.items():
        if attrs.get("contype", "1") == "0" and attrs.get("conaffinity", "1") == "0" and gm.existGeometryName(gname):
            gm.removeGeometryObject(gname)
    _convexify(gm)
    scene = Scene(model, gm, name or root.get("model", path.stem))
    option = root.find("option")
    if option is not None and option.get("gravity") is not None:
        scene.gravity = _number_list(option.get("gravity"), "option.gravity", 3)
    for gname, attrs in geoms.items():
        if "friction" in attrs and gm.existGeometryName(gname):
            scene.friction[gname] = float(_number_list(attrs["friction"], f"geom {gname!r}.friction", 3)[0])
    return scene

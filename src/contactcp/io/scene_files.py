"""Scene files: URDF, MJCF, and the JSON scene format that names one of them and adds to it.

:func:`load_scene` reads ``.urdf`` (pinocchio's URDF parser), ``.xml``/``.mjcf`` (pinocchio's MJCF
parser; :mod:`contactcp.models.scene.load`) and ``.json``::

    {"robot":   {"urdf": "hand.urdf" | "mjcf": "arm.xml",   (relative to the JSON file, or "package://PKG/...")
                 "package_dirs": [...], "floating": false, "base": POSE,
                 "joints": {"joint_1": {"position": 0.3, "velocity": 0.0, "effort": 0.1}, ...},
                 "gravity_compensation": false},
     "objects": [{"name": "ball", "shape": SHAPE, "mass": 0.1, "pose": POSE,
                  "v": [0, 0, 0], "omega": [0, 0, 0], "friction": 0.8,
                  "force": [0, 0, 0], "torque": [0, 0, 0]}],
     "fixed":   [{"name": "floor", "shape": SHAPE, "pose": POSE, "friction": 0.5}],
     "gravity": [0, 0, -9.81],
     "friction": {"default": 1.0, "geometries": {"name": 0.5}, "pairs": [["body_a", "body_b", 0.3]]},
     "restitution": {"default": 0.0, "pairs": [["body_a", "body_b", 0.9]]},
     "exclude": [["body_a", "body_b"]],
     "margin": 0.001}

Every key is optional (a scene needs at least one geometry).  ``SHAPE`` is a shape description
(:mod:`contactcp.models.scene.shapes`), ``POSE`` a placement (:func:`contactcp.models.scene.pose`).
``force`` and ``torque`` are applied to an object (world frame, the torque about the object's
origin), besides its weight.  ``gravity_compensation`` adds the efforts that hold the robot still
against gravity to the given ones.  ``restitution`` gives Newton's coefficients of restitution
(in ``[0, 1]``) for the time stepper.  ``margin`` is the detection margin the CLI uses (m).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contactcp._files import read_json
from contactcp._validate import number
from contactcp.errors import InvalidProblemError
from contactcp.models.scene import (
    DEFAULT_MARGIN,
    Scene,
    friction_coefficient,
    restitution_coefficient,
    scene_from_mjcf,
    scene_from_urdf,
)

__all__ = ["load_scene", "scene_from_dict", "example_scene", "SCENE_SUFFIXES", "EXAMPLE_SCENES"]

#: the example scenes shipped with the package (MJCF and JSON)
EXAMPLE_SCENES = Path(__file__).resolve().parents[1] / "data" / "scenes"

SCENE_SUFFIXES = (".urdf", ".xml", ".mjcf", ".json")

_TOP = {"robot", "objects", "fixed", "gravity", "friction", "restitution", "exclude", "margin"}
_ROBOT = {"urdf", "mjcf", "package_dirs", "floating", "base", "joints", "gravity_compensation"}
_OBJECT = {"name", "shape", "mass", "pose", "v", "omega", "friction", "force", "torque"}
_FIXED = {"name", "shape", "pose", "friction"}


def _keys(d: Any, allowed: set[str], where: str) -> dict:
    if not isinstance(d, dict):
        raise InvalidProblemError(where, "must be an object")
    extra = set(d) - allowed
    if extra:
        raise InvalidProblemError(where, f"unknown key(s) {sorted(extra)}; allowed: {sorted(allowed)}")
    return d


def _list(d: dict, key: str) -> list:
    value = d.get(key, [])
    if not isinstance(value, list):
        raise InvalidProblemError(key, "must be a list")
    return value


def _share_dirs() -> list[Path]:
    """Where installed robot-description packages keep their files (cmeel wheels such as
    ``example-robot-data`` install into ``site-packages/cmeel.prefix/share``)."""
    import site
    import sys

    roots = [*site.getsitepackages(), site.getusersitepackages(), *sys.path]
    return [Path(r) / "cmeel.prefix" / "share" for r in roots if (Path(r) / "cmeel.prefix" / "share").is_dir()]


def _resolve(name: str, folder: Path, dirs: list[str], where: str) -> Path:
    """A scene's file path: ``package://PKG/rest`` is looked up in ``package_dirs`` and the installed
    share folders (:func:`_share_dirs`); any other path is relative to the JSON file's folder."""
    if not name.startswith("package://"):
        return folder / name
    rest = name[len("package://") :]
    for base in [folder / d for d in dirs] + _share_dirs():
        if (base / rest).is_file():
            return base / rest
    raise InvalidProblemError(where, f"{name!r} not found in package_dirs or in the installed packages' share folders")


def _robot(d: dict, folder: Path) -> Scene:
    r = _keys(d, _ROBOT, "robot")
    if ("urdf" in r) == ("mjcf" in r):
        raise InvalidProblemError("robot", 'needs exactly one of "urdf" and "mjcf"')
    key = "urdf" if "urdf" in r else "mjcf"
    if not isinstance(r[key], str):
        raise InvalidProblemError(f"robot.{key}", f"must be a file path, got {r[key]!r}")
    dirs = r.get("package_dirs", [])
    if not isinstance(dirs, list) or not all(isinstance(x, str) for x in dirs):
        raise InvalidProblemError("robot.package_dirs", "must be a list of folder paths")
    path = _resolve(r[key], folder, dirs, f"robot.{key}")
    if key == "mjcf":
        for k in ("floating", "base"):
            if k in r:
                raise InvalidProblemError(f"robot.{k}", "applies to URDF only: an MJCF file places its bodies itself")
        return scene_from_mjcf(path)
    floating = r.get("floating", False)
    if not isinstance(floating, bool):
        raise InvalidProblemError("robot.floating", f"must be true or false, got {floating!r}")
    extra = [str(folder / x) for x in dirs] + [str(p) for p in _share_dirs()]
    return scene_from_urdf(path, extra, floating, r.get("base"))


def _joints(scene: Scene, r: dict) -> None:
    joints = r.get("joints", {})
    if not isinstance(joints, dict):
        raise InvalidProblemError("robot.joints", "must be an object {joint name: {position, velocity, effort}}")
    for name, state in joints.items():
        where = f"robot.joints.{name}"
        _keys(state, {"position", "velocity", "effort"}, where)
        scene.set_joint(name, state.get("position"), state.get("velocity"), None)
    comp = r.get("gravity_compensation", False)
    if not isinstance(comp, bool):
        raise InvalidProblemError("robot.gravity_compensation", f"must be true or false, got {comp!r}")
    if comp:
        scene.tau = scene.tau + scene.gravity_torques()
    for name, state in joints.items():
        if state.get("effort") is not None:
            j = scene.joint(name)
            scene.set_joint(name, effort=scene.tau[j.v] + number(state["effort"], f"robot.joints.{name}.effort"))


def scene_from_dict(d: Any, folder: str | Path = ".") -> Scene:
    """A scene from the JSON layout above (file paths relative to ``folder``)."""
    _keys(d, _TOP, "scene")
    folder = Path(folder)
    scene = _robot(d["robot"], folder) if "robot" in d else Scene()
    if "gravity" in d:
        scene.gravity = d["gravity"]
    for i, o in enumerate(_list(d, "fixed")):
        _keys(o, _FIXED, f"fixed[{i}]")
        for key in ("name", "shape"):
            if key not in o:
                raise InvalidProblemError(f"fixed[{i}].{key}", "is required")
        scene.add_fixed(o["name"], _shape(o["shape"], folder), o.get("pose"), o.get("friction"))
    for i, o in enumerate(_list(d, "objects")):
        _keys(o, _OBJECT, f"objects[{i}]")
        for key in ("name", "shape", "mass"):
            if key not in o:
                raise InvalidProblemError(f"objects[{i}].{key}", "is required")
        scene.add_body(
            o["name"],
            _shape(o["shape"], folder),
            o["mass"],
            o.get("pose"),
            o.get("v", [0, 0, 0]),
            o.get("omega", [0, 0, 0]),
            o.get("friction"),
        )
        if "force" in o or "torque" in o:
            scene.set_wrench(o["name"], o.get("force", [0, 0, 0]), o.get("torque", [0, 0, 0]))
    if "robot" in d:
        _joints(scene, d["robot"])
    _friction(scene, _keys(d.get("friction", {}), {"default", "geometries", "pairs"}, "friction"))
    _restitution(scene, _keys(d.get("restitution", {}), {"default", "pairs"}, "restitution"))
    for i, pair in enumerate(_list(d, "exclude")):
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise InvalidProblemError(f"exclude[{i}]", 'must be two body names ["a", "b"]')
        _known(scene, pair, f"exclude[{i}]")
        scene.excluded.add(frozenset(pair))
    if scene.collision.ngeoms == 0:
        raise InvalidProblemError("scene", "has no collision geometry")
    return scene


def _shape(shape: Any, folder: Path) -> Any:
    """A shape description with a mesh ``file`` taken relative to the scene file's folder."""
    if isinstance(shape, dict) and isinstance(shape.get("file"), str):
        return {**shape, "file": str(folder / shape["file"])}
    return shape


def _known(scene: Scene, names: list[str], where: str) -> None:
    bodies = scene.bodies
    for n in names:
        if n not in bodies:
            raise InvalidProblemError(where, f"unknown body {n!r}; the scene's bodies: {bodies}")


def _friction(scene: Scene, f: dict) -> None:
    if "default" in f:
        scene.default_friction = friction_coefficient(f["default"], "friction.default")
    geoms = f.get("geometries", {})
    if not isinstance(geoms, dict):
        raise InvalidProblemError("friction.geometries", "must be an object {geometry name: mu}")
    names = {g.name for g in scene.collision.geometryObjects}
    for name, mu in geoms.items():
        if name not in names:
            raise InvalidProblemError("friction.geometries", f"unknown geometry {name!r}; the scene's: {sorted(names)}")
        scene.friction[name] = friction_coefficient(mu, f"friction.geometries.{name}")
    for i, p in enumerate(f.get("pairs", [])):
        if not (isinstance(p, list) and len(p) == 3 and all(isinstance(x, str) for x in p[:2])):
            raise InvalidProblemError(f"friction.pairs[{i}]", 'must be ["body_a", "body_b", mu]')
        _known(scene, p[:2], f"friction.pairs[{i}]")
        scene.pair_friction[frozenset(p[:2])] = friction_coefficient(p[2], f"friction.pairs[{i}]")


def _restitution(scene: Scene, r: dict) -> None:
    if "default" in r:
        scene.default_restitution = restitution_coefficient(r["default"], "restitution.default")
    for i, p in enumerate(_list(r, "pairs")):
        if not (isinstance(p, list) and len(p) == 3 and all(isinstance(x, str) for x in p[:2])):
            raise InvalidProblemError(f"restitution.pairs[{i}]", 'must be ["body_a", "body_b", e]')
        _known(scene, p[:2], f"restitution.pairs[{i}]")
        scene.pair_restitution[frozenset(p[:2])] = restitution_coefficient(p[2], f"restitution.pairs[{i}]")


def example_scene(name: str) -> Path:
    """The path of a shipped example scene: ``box_on_plane.xml``, ``sphere_on_slope.xml``,
    ``gripper.json``, ``box_stack.json``, ``puma3_grasp.json`` (Buffo & Maciel's three PUMA-560
    fingers, with ``puma3_fingers.xml``), ``allegro_sphere.json`` (this one
    needs the ``example-robot-data`` package)."""
    path = EXAMPLE_SCENES / str(name)
    if not path.is_file():
        names = sorted(p.name for p in EXAMPLE_SCENES.iterdir() if p.suffix in SCENE_SUFFIXES)
        raise InvalidProblemError("name", f"no example scene {name!r}; available: {', '.join(names)}")
    return path


def load_scene(path: str | Path) -> tuple[Scene, float]:
    """``(scene, margin)`` from a ``.urdf``, MJCF ``.xml``/``.mjcf`` or JSON scene file (the margin
    is the JSON file's ``"margin"``, else :data:`~contactcp.models.scene.DEFAULT_MARGIN`)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SCENE_SUFFIXES:
        raise InvalidProblemError("scene", f"unknown file type {suffix!r}; expected one of {', '.join(SCENE_SUFFIXES)}")
    if suffix == ".urdf":
        return scene_from_urdf(path), DEFAULT_MARGIN
    if suffix in (".xml", ".mjcf"):
        return scene_from_mjcf(path), DEFAULT_MARGIN
    d = read_json(path)
    scene = scene_from_dict(d, path.parent)
    if "robot" not in d:
        scene.name = path.stem
    margin = number(d.get("margin", DEFAULT_MARGIN), "margin")
    if not margin >= 0:
        raise InvalidProblemError("margin", f"must be >= 0 (metres), got {margin}")
    return scene, margin

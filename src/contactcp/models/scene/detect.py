"""Contact detection: points, normals and signed gaps of every pair within a margin.

For each pair of geometries on different bodies (not two pieces of the world, not a robot link and
its parent or child link, not a pair the scene excludes) whose bounding boxes come within the
margin, the pair is reported when its signed distance is below the margin, with one contact per
vertex of its **contact patch**: the polygon where the two surfaces meet, so a box flat on a plane
gives its four corners, a box on a box the corners of the overlap, a cylinder on its base a
polygon of its rim, a capsule lying down its two ends, a sphere one point.

* Boxes on boxes and on half-spaces are answered in closed form, all pairs in one compiled pass
  (:mod:`~contactcp.models.scene.box_pairs`: the separating-axis test, exact normals and gaps,
  coal's patch rule), except where that test does not give the distance (a corner passing a corner);
  in the same pass a sphere on a sphere or on a half-space (:mod:`~contactcp.models.scene.sphere_pairs`:
  the same contact as coal's, exactly: no GJK tolerance, no lift; checked against coal's in the tests).
* Every other pair is asked of coal (``coal.collide`` with ``security_margin = margin``, then
  ``coal.computeContactPatch``), lifted apart where its surfaces touch
  (:mod:`~contactcp.models.scene.coal_pairs`).

Conventions (the same for every contact): the pair's *first* body is the one on the later joint of
the scene's tree (free bodies before robot links, robot links before the world); ``normal`` is the
unit normal pointing into the first body (along the force the second body can push it with);
``gap`` is the pair's signed distance (negative: penetration), the same for every point of a patch;
points are in the world frame, half-way between the surfaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import coal
import numpy as np
import pinocchio as pin

from contactcp._validate import number
from contactcp.errors import InvalidOptionError
from contactcp.models.contacts import contact_frame, contact_frames
from contactcp.models.scene.box_pairs import ASK_COAL, BOX, FOUND, HALFSPACE, SPHERE
from contactcp.models.scene.coal_pairs import query
from contactcp.models.scene.detect_kernels import contact_rows, free_placements, geometry_placements, near_pairs
from contactcp.models.scene.scene import Scene

__all__ = ["SceneContact", "ContactSet", "detect", "detect_set", "collision_pairs", "DEFAULT_MARGIN"]

#: default detection margin (m): pairs closer than this are in contact
DEFAULT_MARGIN = 1e-3


@dataclass(frozen=True)
class SceneContact:
    """One detected contact point (see the module docstring for the conventions)."""

    name: str
    bodies: tuple[str, str]
    geometries: tuple[int, int]
    point: np.ndarray
    normal: np.ndarray
    gap: float
    mu: float
    _frame: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def frame(self) -> np.ndarray:
        """``[n, t, o]`` as columns (world frame; ``t``, ``o`` chosen from ``n``), built once, when
        first asked (:func:`detect` builds all of a query's at once)."""
        if self._frame is None:
            object.__setattr__(self, "_frame", contact_frame(self.normal))
        return self._frame


def _parent_bodies(model: pin.Model) -> dict[int, int]:
    """Joint index -> the frame of the body it hangs on (from each joint's own frame; a free body
    added by :meth:`Scene.add_body` has no joint frame, hence no parent body)."""
    return {f.parentJoint: f.parentFrame for f in model.frames if f.type == pin.FrameType.JOINT}


def _body_frame(model: pin.Model, fid: int) -> int:
    """The body frame a frame belongs to, through fixed joints (a URDF fixed link is part of its parent)."""
    while model.frames[fid].type != pin.FrameType.BODY and fid != model.frames[fid].parentFrame:
        fid = model.frames[fid].parentFrame
    return fid


def collision_pairs(scene: Scene) -> list[tuple[int, int]]:
    """The geometry pairs that are checked, first body first (see the module docstring); worked out
    again only when the scene's joints, frames, geometries or excluded pairs change."""
    model, gm = scene.model, scene.collision
    key = (model.njoints, model.nframes, gm.ngeoms, frozenset(scene.excluded))
    cached = getattr(scene, "_pairs", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    parent = {j: _body_frame(model, f) for j, f in _parent_bodies(model).items()}
    body = [_body_frame(model, g.parentFrame) for g in gm.geometryObjects]
    pairs: list[tuple[int, int]] = []
    for i in range(gm.ngeoms):
        for k in range(i + 1, gm.ngeoms):
            ji, jk = gm.geometryObjects[i].parentJoint, gm.geometryObjects[k].parentJoint
            if ji == jk or parent.get(ji, -1) == body[k] or parent.get(jk, -1) == body[i]:
                continue
            bi, bk = scene.body_of(i), scene.body_of(k)
            if frozenset((bi, bk)) in scene.excluded:
                continue
            pairs.append((i, k) if ji > jk else (k, i))
    scene._pairs = (key, pairs)
    return pairs


def _mu(scene: Scene, i: int, k: int, bodies: tuple[str, str]) -> float:
    """The pair's friction: the scene's pair value if given, else the larger geometry value (MJCF)."""
    mu = scene.pair_friction.get(frozenset(bodies))
    return max(scene.geometry_friction(i), scene.geometry_friction(k)) if mu is None else mu


def _geometries(scene: Scene) -> tuple:
    """The coal shapes of the scene's geometries, kept while its geometry model and their number stay
    the same (a scene's shapes are added, not swapped)."""
    gm = scene.collision
    cached = getattr(scene, "_geometries", None)
    if cached is None or cached[0] is not gm or cached[1] != gm.ngeoms:
        cached = (gm, gm.ngeoms, tuple(g.geometry for g in gm.geometryObjects))
        scene._geometries = cached
    return cached[2]


def _shape_data(scene: Scene, geoms: tuple) -> tuple:
    """Per geometry, what :func:`~contactcp.models.scene.box_pairs.pair_contacts` and the bounding-box
    test read (kinds, box half sides, half-space planes, local box centres and half widths); worked
    out when the geometries change: compared by identity (the cache holds them), so a shape is replaced,
    not edited in place, as :meth:`Scene.add_body` and the scene files do)."""
    cached = getattr(scene, "_shape_data", None)
    if cached is not None and cached[0] == geoms:  # a tuple: compared item by item, identity first
        return cached[1]
    G = len(geoms)
    kinds = np.zeros(G, dtype=np.int64)
    half = np.zeros((G, 3))
    plane_n = np.zeros((G, 3))
    plane_d = np.zeros(G)
    for j, g in enumerate(geoms):
        if isinstance(g, coal.Box):
            kinds[j], half[j] = BOX, np.asarray(g.halfSide, dtype=float)
        elif isinstance(g, coal.Halfspace):
            kinds[j], plane_n[j], plane_d[j] = HALFSPACE, np.asarray(g.n, dtype=float), float(g.d)
        elif isinstance(g, coal.Sphere):
            kinds[j], half[j] = SPHERE, float(g.radius)
        g.computeLocalAABB()
    with np.errstate(invalid="ignore", over="ignore"):
        centre = np.array([np.asarray(g.aabb_center, dtype=float) for g in geoms]).reshape(-1, 3)
        box = np.array([0.5 * (np.asarray(g.aabb_local.max_) - np.asarray(g.aabb_local.min_)) for g in geoms])
    data = (kinds, half, plane_n, plane_d, centre, box.reshape(-1, 3))
    scene._shape_data = (geoms, data)
    return data


@dataclass(frozen=True)
class ContactSet:
    """The contact points of :func:`detect_set`, one row each: :class:`SceneContact`'s fields as arrays
    (what the time stepper reads), in :func:`detect`'s order."""

    names: list[str]
    bodies: list[tuple[str, str]]
    geometries: np.ndarray  # (n, 2): the first body's geometry first
    points: np.ndarray  # (n, 3), world
    normals: np.ndarray  # (n, 3), unit, into the first body
    frames: np.ndarray  # (n, 3, 3): columns n, t, o
    gap: np.ndarray  # (n,)
    mu: np.ndarray  # (n,)

    def __len__(self) -> int:
        return len(self.names)

    def contacts(self) -> list[SceneContact]:
        """The rows as :class:`SceneContact` objects (their frames already built)."""
        out = []
        for j, name in enumerate(self.names):
            i, k = self.geometries[j].tolist()
            c = SceneContact(
                name,
                self.bodies[j],
                (i, k),
                self.points[j].copy(),
                self.normals[j].copy(),
                float(self.gap[j]),
                float(self.mu[j]),
            )
            object.__setattr__(c, "_frame", self.frames[j])
            out.append(c)
        return out


def _pair_data(scene: Scene, pairs: list[tuple[int, int]], geoms: tuple) -> dict:
    """Per checked pair, its geometries as a (2, P) array, its bodies and contact names
    (``labels[(p, m)]`` for ``m`` points), and its friction (worked out again when the scene's
    friction values change)."""
    cached = getattr(scene, "_pair_data", None)
    if cached is None or cached["pairs"] is not pairs or cached["geoms"] != geoms:
        gm = scene.collision
        bodies = [(scene.body_of(i), scene.body_of(k)) for i, k in pairs]
        prefix = [f"{gm.geometryObjects[i].name}/{gm.geometryObjects[k].name}" for i, k in pairs]
        array = np.array(pairs, dtype=np.int64).reshape(-1, 2).T.copy()  # (2, P)
        cached = {
            "pairs": pairs,
            "geoms": geoms,
            "array": array,
            "bodies": bodies,
            "prefix": prefix,
            "labels": {},
            "rows": {},
        }
        scene._pair_data = cached
    friction = (frozenset(scene.pair_friction.items()), frozenset(scene.friction.items()), scene.default_friction)
    if cached.get("friction") != friction:
        cached["mu"] = np.array([_mu(scene, i, k, b) for (i, k), b in zip(pairs, cached["bodies"])], dtype=float)
        cached["friction"] = friction
    return cached


def _labels(data: dict, p: int, m: int) -> list[str]:
    """The names of pair ``p``'s ``m`` contact points (``a/b``, or ``a/b#1`` ... ``a/b#m``)."""
    names = data["labels"].get((p, m))
    if names is None:
        prefix = data["prefix"][p]
        names = [prefix] if m == 1 else [f"{prefix}#{j + 1}" for j in range(m)]
        data["labels"][(p, m)] = names
    return names


def _empty() -> ContactSet:
    return ContactSet(
        [],
        [],
        np.zeros((0, 2), dtype=np.int64),
        np.zeros((0, 3)),
        np.zeros((0, 3)),
        np.zeros((0, 3, 3)),
        np.zeros(0),
        np.zeros(0),
    )


def detect(scene: Scene, margin: float = DEFAULT_MARGIN) -> list[SceneContact]:
    """Every contact point of the scene at its ``q`` within ``margin`` (m) (module docstring)."""
    return detect_set(scene, margin).contacts()


def detect_set(scene: Scene, margin: float = DEFAULT_MARGIN) -> ContactSet:
    """:func:`detect`'s contacts as arrays (:class:`ContactSet`)."""
    margin = number(margin, "margin")
    if not margin >= 0:
        raise InvalidOptionError("margin", f"must be >= 0 (metres), got {margin!r}")
    scene.check_state()
    return contact_set(scene, margin)


def contact_set(scene: Scene, margin: float, placed: tuple | None = None) -> ContactSet:
    """:func:`detect_set` of a scene whose state is checked (the time stepper's: its state is the
    stepper's own) and a margin ``>= 0``: the placements, the bounding-box test, the closed-form pairs
    and the contact rows compiled (:mod:`~contactcp.models.scene.detect_kernels`), coal asked for
    the pairs they leave.  ``placed``: :func:`placements` at the scene's ``q``, when the caller has
    them."""
    geoms = _geometries(scene)
    pairs = collision_pairs(scene)
    if not pairs:
        return _empty()
    kinds, half_side, plane_n, plane_d, centre, half = _shape_data(scene, geoms)
    R, T = (placed if placed is not None else placements(scene))[:2]
    data = _pair_data(scene, pairs, geoms)
    first, second = data["array"]
    found = near_pairs(kinds, R, T, half_side, plane_n, plane_d, centre, half, first, second, margin)
    near, code, normal, gap, count, points, asked = found
    if asked:
        return coal_rows(scene, margin, geoms, R, T, data, found)
    pair, geometries, rows, normals, frames, gaps, mu = contact_rows(
        code, normal, gap, count, points, near, first, second, data["mu"]
    )
    if not pair.size:
        return _empty()
    names, bodies = _row_labels(data, pair)
    return ContactSet(names, bodies, geometries, rows, normals, frames, gaps, mu)


def _row_labels(data: dict, pair: np.ndarray) -> tuple[list[str], list[tuple[str, str]]]:
    """The contacts' names and bodies, rows of the pairs ``pair`` (kept for the last
    :data:`_LABEL_SETS` sets of rows: in a resting pile the same set comes back step after step)."""
    key = pair.tobytes()
    cache = data["rows"]
    found = cache.get(key)
    if found is None:
        names: list[str] = []
        bodies: list[tuple[str, str]] = []
        which, m = np.unique(pair, return_counts=True)
        for p, mp in zip(which.tolist(), m.tolist()):
            names += _labels(data, p, mp)
            bodies += [data["bodies"][p]] * mp
        if len(cache) >= _LABEL_SETS:
            cache.clear()
        found = cache[key] = (names, bodies)
    return list(found[0]), list(found[1])


#: sets of contact rows whose labels :func:`_row_labels` keeps
_LABEL_SETS = 64


def coal_rows(scene: Scene, margin: float, geoms: tuple, R, T, data: dict, found: tuple) -> ContactSet:
    """:func:`contact_set`'s rows when coal answers some of the pairs: ``found`` the compiled pass's
    answers (:func:`~contactcp.models.scene.detect_kernels.near_pairs`), ``R``, ``T`` the
    geometries' placements, ``data`` :func:`_pair_data`'s."""
    near, code, normal, gap, count, points, _ = found
    first, second = data["array"]
    ii, kk = first[near], second[near]
    ask = np.flatnonzero(code == ASK_COAL)
    centre = _shape_data(scene, geoms)[4]
    count = np.where(code == FOUND, count, 0)
    asked: dict[int, np.ndarray] = {}
    centres = np.einsum("gab,gb->ga", R, centre) + T
    for p in ask.tolist():
        i, k = int(ii[p]), int(kk[p])
        Mi, Mk = pin.SE3(R[i], T[i]), pin.SE3(R[k], T[k])
        answer = query(geoms[i], Mi, geoms[k], Mk, margin, centres[i] - centres[k])
        if answer is not None:
            normal[p], gap[p], count[p] = answer[0], answer[1], len(answer[2])
            asked[p] = np.array(answer[2], dtype=float).reshape(-1, 3)
    has = np.flatnonzero(count)
    if not has.size:
        return _empty()
    m = count[has]
    rows = np.concatenate([asked[p] if p in asked else points[p, : count[p]] for p in has.tolist()])
    pair_of = np.repeat(has, m)
    names, bodies = _row_labels(data, near[pair_of])
    return ContactSet(
        names,
        bodies,
        np.stack([ii, kk], axis=1)[pair_of],
        rows,
        normal[pair_of],
        np.repeat(contact_frames(normal[has]), m, axis=0),  # one frame per pair, the same for its points
        gap[pair_of],
        data["mu"][near[pair_of]],
    )


def joint_sources(model: pin.Model, joints: set[int] | list[int]) -> tuple:
    """How the placements of ``joints`` (indices) are found, for
    :func:`~contactcp.models.scene.detect_kernels.free_placements`: ``(free_q, joint_R, joint_p,
    read)``, each joint's first ``q`` entry when it is a free body's on the world (-1: not) and its
    placement there (the identity for the others), and the other joints (``read``: from pinocchio's
    forward kinematics; the world, joint 0, is left out)."""
    free_q = np.full(model.njoints, -1, dtype=np.int64)
    joint_R = np.broadcast_to(np.eye(3), (model.njoints, 3, 3)).copy()
    joint_p = np.zeros((model.njoints, 3))
    read = []
    for j in sorted(set(joints) - {0}):
        if model.joints[j].shortname() == "JointModelFreeFlyer" and model.parents[j] == 0:
            free_q[j] = model.joints[j].idx_q
            joint_R[j], joint_p[j] = model.jointPlacements[j].rotation, model.jointPlacements[j].translation
        else:
            read.append(j)
    return free_q, joint_R, joint_p, read


def geometry_joints(scene: Scene) -> tuple:
    """:func:`joint_sources` of the joints that carry geometry, kept on the scene while its
    geometries and joints stay the same."""
    geoms = _geometries(scene)
    model = scene.model
    cached = getattr(scene, "_joint_placement_data", None)
    if cached is None or cached[0] != (geoms, model.njoints):
        joints = {int(obj.parentJoint) for obj in scene.collision.geometryObjects}
        cached = ((geoms, model.njoints), joint_sources(model, joints))
        scene._joint_placement_data = cached
    return cached[1]


def geometry_frames(scene: Scene) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each geometry's joint and placement on it ``(parent (G), local_R (G, 3, 3), local_p (G, 3))``,
    kept on the scene while its geometries and joints stay the same."""
    geoms = _geometries(scene)
    model, gm = scene.model, scene.collision
    cached = getattr(scene, "_placement_data", None)
    if cached is None or cached[0] != (geoms, model.njoints):
        parent = np.array([obj.parentJoint for obj in gm.geometryObjects], dtype=np.int64)
        local_R = np.array([obj.placement.rotation for obj in gm.geometryObjects]).reshape(-1, 3, 3)
        local_p = np.array([obj.placement.translation for obj in gm.geometryObjects]).reshape(-1, 3)
        cached = ((geoms, model.njoints), (parent, local_R, local_p))
        scene._placement_data = cached
    return cached[1]


def joint_placements(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """World placements ``(R (njoints, 3, 3), O (njoints, 3))`` at the scene's ``q`` of the joints
    that carry geometry: a free body's on the world from its ``q``
    (:func:`~contactcp.models.scene.detect_kernels.free_placements`), the others' (robot links, a
    free body on another body) by pinocchio's ``computeJointJacobians``, after which ``data.oMi``
    and ``data.J`` are current (:func:`~contactcp.models.scene.dynamics.contact_jacobian` reads
    ``data.J``; the time stepper does all this in one compiled call,
    :mod:`~contactcp.models.scene.detect_step`).  Other joints' rows are the identity.  What is
    read of the model (which joints, their placements on the world) is kept while the scene's
    geometries and joints stay the same."""
    model = scene.model
    free_q, joint_R, joint_p, read = geometry_joints(scene)
    R, O = np.empty((model.njoints, 3, 3)), np.empty((model.njoints, 3))
    free_placements(scene.q, free_q, joint_R, joint_p, R, O)
    if read:
        data = scene._data
        pin.computeJointJacobians(model, data, scene.q)
        for j in read:
            M = data.oMi[j]
            R[j], O[j] = M.rotation, M.translation
    return R, O


def placements(scene: Scene) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The geometries' world placements ``(R (G, 3, 3), T (G, 3))`` at the scene's ``q``, then their
    joints' (:func:`joint_placements`, by joint index): ``oMg = oMi gM``
    (:func:`~contactcp.models.scene.detect_kernels.geometry_placements`; the geometries' own
    placements ``gM`` kept while the scene's geometries and joints stay the same)."""
    parent, local_R, local_p = geometry_frames(scene)
    joint_R, joint_O = joint_placements(scene)
    R, T = np.empty((parent.size, 3, 3)), np.empty((parent.size, 3))
    geometry_placements(joint_R, joint_O, parent, local_R, local_p, R, T)
    return R, T, joint_R, joint_O

"""Contact detection with coal: points, normals and signed gaps of every pair within a margin.

For each pair of geometries on different bodies (not two pieces of the world, not a robot link and
its parent or child link, not a pair the scene excludes) whose bounding spheres come within the
margin, ``coal.collide`` with ``security_margin = margin`` reports the pair when its signed
distance is below the margin.  The pair then gives one contact per vertex of its **contact patch**
(``coal.computeContactPatch``): the polygon where the two surfaces meet, so a box flat on a plane
gives its four corners, a box on a box the corners of the overlap, a cylinder on its base a
polygon of its rim, a capsule lying down its two ends, a sphere one point.  A sphere on a sphere
or on a half-space is answered in closed form instead (the same contact, exactly: no GJK tolerance,
no lift; checked against coal's in the tests).

Conventions (the same for every contact): the pair's *first* body is the one on the later joint of
the scene's tree (free bodies before robot links, robot links before the world); ``normal`` is the
unit normal pointing into the first body (along the force the second body can push it with);
``gap`` is the pair's signed distance (negative: penetration), the same for every point of a patch;
points are in the world frame, half-way between the surfaces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import coal
import numpy as np
import pinocchio as pin

from contactcp._validate import number
from contactcp.errors import InvalidOptionError
from contactcp.models.contacts import contact_frame, contact_frames
from contactcp.models.scene.scene import Scene

__all__ = ["SceneContact", "detect", "collision_pairs", "DEFAULT_MARGIN"]

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


def _transform(M: pin.SE3) -> coal.Transform3s:
    return coal.Transform3s(M.rotation, M.translation)


#: below this distance (m) coal's normal is unreliable (EPA and GJK on touching faces): the pair
#: is asked again lifted apart by :data:`_LIFT`
_NEAR = 1e-6
_LIFT = 1e-4
#: GJK's tolerance (m) in every query (see :func:`_collide`)
_GJK_TOL = 1e-9
#: coal's default contact-patch request (read only; one for every query)
_PATCH = coal.ContactPatchRequest()


def _collide(gi, Ti, gk, Tk, margin: float):
    """coal's collision of a pair within ``margin``: ``(normal into the first, gap, patch points)``."""
    req = coal.CollisionRequest()
    req.security_margin = margin
    req.num_max_contacts = 1
    # coal's default GJK tolerance, 1e-6, puts a curved surface's gap off by up to 6e-7 m and its
    # normal by 4e-6 rad (an ellipsoid on a box, lifted); 1e-9 brings both to about 1e-12
    req.gjk_tolerance = _GJK_TOL
    res = coal.CollisionResult()
    if not coal.collide(gi, Ti, gk, Tk, req, res):
        return None
    contact = res.getContact(0)
    normal = -np.asarray(contact.normal, dtype=float)
    normal /= math.sqrt(float(normal @ normal))
    points = [np.asarray(contact.pos, dtype=float)]
    pres = coal.ContactPatchResult(_PATCH)
    try:
        coal.computeContactPatch(gi, Ti, gk, Tk, res, _PATCH, pres)
        if pres.numContactPatches() and pres.getContactPatch(0).size():
            patch = pres.getContactPatch(0)
            points = [np.asarray(patch.getPoint(j), dtype=float) for j in range(patch.size())]
    except Exception:  # a pair coal has no patch for (non-convex meshes): its one point stays
        pass
    return normal, float(contact.penetration_depth), points


def _sphere_pair(gi, Mi: pin.SE3, gk, Mk: pin.SE3, margin: float):
    """A pair of a sphere and a sphere or a half-space, in closed form (the same answer as
    :func:`_collide`'s, exactly; coal's is within its GJK tolerance): ``(found,)`` with ``found`` as
    :func:`_collide`'s (None: farther than ``margin``), or None for any other pair (and for concentric
    spheres, which have no normal)."""
    si, sk = isinstance(gi, coal.Sphere), isinstance(gk, coal.Sphere)
    if si and sk:
        ci, ck = Mi.translation, Mk.translation  # a sphere is centred on its frame's origin
        d = ci - ck
        dist = math.sqrt(float(d @ d))
        if dist == 0.0:
            return None
        gap = dist - gi.radius - gk.radius
        if not gap < margin:
            return (None,)
        n = d / dist  # into the first
        return ((n, gap, [0.5 * ((ci - gi.radius * n) + (ck + gk.radius * n))]),)
    if si and isinstance(gk, coal.Halfspace) or sk and isinstance(gi, coal.Halfspace):
        sphere, Ms, half, Mh = (gi, Mi, gk, Mk) if si else (gk, Mk, gi, Mi)
        n = Mh.rotation @ np.asarray(half.n, dtype=float)  # the half-space n . x <= d, outward normal
        offset = float(half.d) + float(n @ Mh.translation)
        c = Ms.translation
        above = float(n @ c) - offset  # the centre's height above the surface
        gap = above - sphere.radius
        if not gap < margin:
            return (None,)
        point = c - 0.5 * (above + sphere.radius) * n  # half-way between the two surfaces
        return ((n if si else -n, gap, [point]),)
    return None


def _query(gi, Mi: pin.SE3, gk, Mk: pin.SE3, margin: float, apart: np.ndarray):
    """One pair's contact (:func:`_collide`).  When the surfaces are within :data:`_NEAR` of touching,
    coal's normal can be off by degrees (two boxes face to face give a tilted normal and one point
    instead of four), so the pair is asked again with the first shape moved :data:`_LIFT` along
    ``apart`` (from the second shape's centre to the first's), where the normal is exact, and once
    more moved along that normal, which keeps the patch's shape; the gap and points are moved back.
    Spheres on spheres and half-spaces are answered in closed form (:func:`_sphere_pair`)."""
    closed = _sphere_pair(gi, Mi, gk, Mk, margin)
    if closed is not None:
        return closed[0]
    Ti, Tk = _transform(Mi), _transform(Mk)
    found = _collide(gi, Ti, gk, Tk, margin)
    if found is None or abs(found[1]) >= _NEAR:
        return found
    # a plane or half-space has no centre (its box is infinite): lift along coal's normal, exact there
    size = float(np.linalg.norm(apart)) if np.all(np.abs(apart) < 1e100) else math.inf
    d = apart / size if np.isfinite(size) and size > 0 else found[0]
    for first in (d, found[0]):  # along the centres; if that fails, along coal's own normal
        lifted = _lift(gi, Mi, gk, Tk, margin, first)
        if lifted is not None:
            return lifted
    return found


def _lift(gi, Mi: pin.SE3, gk, Tk, margin: float, d: np.ndarray):
    """The pair asked with the first shape lifted along ``d``, then along the normal found; None if a
    lift does not separate the faces along their normal."""
    for _ in range(2):
        lifted = _collide(gi, coal.Transform3s(Mi.rotation, Mi.translation + _LIFT * d), gk, Tk, margin + _LIFT)
        if lifted is None or not float(d @ lifted[0]) > 0.5:
            return None
        d_used, d = d, lifted[0]
    normal, dist, points = lifted
    return normal, dist - _LIFT * float(d_used @ normal), [p - 0.5 * _LIFT * d_used for p in points]


def detect(scene: Scene, margin: float = DEFAULT_MARGIN) -> list[SceneContact]:
    """Every contact point of the scene at its ``q`` within ``margin`` (m) (module docstring)."""
    margin = number(margin, "margin")
    if not margin >= 0:
        raise InvalidOptionError("margin", f"must be >= 0 (metres), got {margin!r}")
    scene.check_state()
    model, gm = scene.model, scene.collision
    gdata = pin.GeometryData(gm)
    pin.updateGeometryPlacements(model, scene._data, gm, gdata, scene.q)
    placements = [gdata.oMg[i] for i in range(gm.ngeoms)]
    geoms = [g.geometry for g in gm.geometryObjects]
    for g in geoms:
        g.computeLocalAABB()
    centres = np.array([placements[i].act(np.asarray(geoms[i].aabb_center)) for i in range(gm.ngeoms)]).reshape(-1, 3)
    pairs = collision_pairs(scene)
    out: list[SceneContact] = []
    if not pairs:
        return out
    # the world boxes' test for every pair at once: a geometry's local box turned by R spans
    # |R| half-widths about its centre (an infinite box, a plane's, always passes)
    rot = np.abs(np.array([m.rotation for m in placements]).reshape(-1, 3, 3))
    ii, kk = np.array(pairs, dtype=int).T
    with np.errstate(invalid="ignore", over="ignore"):
        half = np.array([0.5 * (np.asarray(g.aabb_local.max_) - np.asarray(g.aabb_local.min_)) for g in geoms])
        world_half = np.einsum("gab,gb->ga", rot, half.reshape(-1, 3))
        reach = world_half[ii] + world_half[kk] + margin
        far = np.any(np.isfinite(reach) & (np.abs(centres[ii] - centres[kk]) > reach), axis=1)
    for i, k in zip(ii[~far].tolist(), kk[~far].tolist()):
        found = _query(geoms[i], placements[i], geoms[k], placements[k], margin, centres[i] - centres[k])
        if found is None:
            continue
        normal, gap, points = found
        bodies = (scene.body_of(i), scene.body_of(k))
        mu = _mu(scene, i, k, bodies)
        names = (gm.geometryObjects[i].name, gm.geometryObjects[k].name)
        for j, p in enumerate(points):
            label = f"{names[0]}/{names[1]}" + (f"#{j + 1}" if len(points) > 1 else "")
            out.append(SceneContact(label, bodies, (i, k), p.copy(), normal.copy(), gap, mu))
    if out:
        for c, F in zip(out, contact_frames(np.array([c.normal for c in out]))):
            object.__setattr__(c, "_frame", F)
    return out

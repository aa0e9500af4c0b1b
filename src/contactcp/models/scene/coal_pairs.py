"""Contact of a pair of shapes by coal (the pairs :mod:`~contactcp.models.scene.box_pairs` does not
answer): ``coal.collide`` within the margin, then ``coal.computeContactPatch``; asked again lifted
apart where the surfaces touch (coal's normal is unreliable there).  Conventions:
:mod:`~contactcp.models.scene.detect`.
"""

from __future__ import annotations

import math

import coal
import numpy as np
import pinocchio as pin

__all__ = ["query"]


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


def query(gi, Mi: pin.SE3, gk, Mk: pin.SE3, margin: float, apart: np.ndarray):
    """One pair's contact (:func:`_collide`).  When the surfaces are within :data:`_NEAR` of touching,
    coal's normal can be off by degrees (two boxes face to face give a tilted normal and one point
    instead of four), so the pair is asked again with the first shape moved :data:`_LIFT` along
    ``apart`` (from the second shape's centre to the first's), where the normal is exact, and once
    more moved along that normal, which keeps the patch's shape; the gap and points are moved back."""
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

"""contactcp's verification scenes as plain data, for the simulators that cannot import contactcp.

A spec is a JSON-able dict: ``gravity`` (3), ``mu`` (one coefficient for every pair: the scenes use
one), ``restitution``, the floor (the plane ``z = 0``, normal ``+z``: checked) and ``bodies``, each with
``name``, ``shape`` (``box`` with full ``size`` (3) or ``sphere`` with ``radius``), ``mass``, ``inertia``
(the diagonal of its central inertia; the body frame is at the centre of mass), and its initial
``pos`` (3), ``quat`` (4: w, x, y, z), ``lin`` and ``ang`` (world-frame velocities).  ``factory`` and
``kwargs`` rebuild the same scene for contactcp's own worker.

:func:`grasp_spec` describes the three-finger grasp (``timestepping_robots.puma_grasp``) instead: the
robot's MJCF file (``mjcf``), each joint's position and constant effort (``joints``: name ->
``{"q", "tau", "gravity"}``, the last pinocchio's gravity torque at ``q``, for checking a peer's model),
the detection ``margin`` and the sphere as the one entry of ``bodies``; ``module`` names the
scenario module contactcp's worker rebuilds it from.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from contactcp.io.scene_files import example_scene
from contactcp.scenarios import timestepping as ts
from contactcp.scenarios import timestepping_robots as tr


def scene_spec(factory: str, **kwargs) -> dict:
    """The spec of ``contactcp.scenarios.timestepping.<factory>(**kwargs)`` (module docstring)."""
    scene = getattr(ts, factory)(**kwargs)
    model = scene.model
    mus = {round(float(mu), 12) for mu in scene.friction.values()}
    if len(mus) != 1:
        raise ValueError(f"{factory}: the benchmark expects one friction coefficient, got {sorted(mus)}")
    bodies = []
    for g in scene.collision.geometryObjects:
        if g.parentJoint == 0:
            if type(g.geometry).__name__ != "Halfspace" or not np.allclose(g.placement.homogeneous, np.eye(4)):
                raise ValueError(f"{factory}: the fixed geometry {g.name!r} is not the floor z = 0")
            continue
        if not np.allclose(g.placement.homogeneous, np.eye(4)):
            raise ValueError(f"{factory}: {g.name!r}'s shape is off its body frame")
        inertia = model.inertias[g.parentJoint]
        if np.abs(inertia.lever).max() > 1e-12 or np.abs(inertia.inertia - np.diag(np.diag(inertia.inertia))).max() > 0:
            raise ValueError(f"{factory}: {g.name!r} is not a body with a diagonal inertia at its frame")
        kind = type(g.geometry).__name__
        shape = (
            {"shape": "box", "size": (2.0 * np.asarray(g.geometry.halfSide)).tolist()}
            if kind == "Box"
            else {"shape": "sphere", "radius": float(g.geometry.radius)}
        )
        if kind not in ("Box", "Sphere"):
            raise ValueError(f"{factory}: unsupported shape {kind}")
        M = scene.placement(g.name)
        x, y, z, w = pin.Quaternion(M.rotation).coeffs()
        j = scene.joint(g.name)
        v = scene.v[j.v]
        bodies.append(
            {
                "name": g.name,
                **shape,
                "mass": float(inertia.mass),
                "inertia": np.diag(inertia.inertia).tolist(),
                "pos": M.translation.tolist(),
                "quat": [float(w), float(x), float(y), float(z)],
                "lin": (M.rotation @ v[:3]).tolist(),
                "ang": (M.rotation @ v[3:]).tolist(),
            }
        )
    return {
        "name": scene.name,
        "factory": factory,
        "kwargs": kwargs,
        "gravity": np.asarray(scene.gravity, dtype=float).tolist(),
        "mu": mus.pop(),
        "restitution": float(scene.default_restitution or 0.0),
        "bodies": bodies,
    }


def grasp_spec(factory: str = "puma_grasp", **kwargs) -> dict:
    """The spec of ``contactcp.scenarios.timestepping_robots.puma_grasp(**kwargs)`` (module docstring)."""
    scene = getattr(tr, factory)(**kwargs)
    model = scene.model
    q, tau = np.asarray(scene.q), np.asarray(scene.tau)
    g = np.asarray(pin.computeGeneralizedGravity(model, scene._data, q))
    joints = {}
    for j in scene.joints:
        if j.free:
            continue
        joints[j.name] = {"q": float(q[j.q][0]), "tau": float(tau[j.v][0]), "gravity": float(g[j.v][0])}
    sphere = next(o for o in scene.collision.geometryObjects if o.name == "sphere")
    inertia = model.inertias[sphere.parentJoint]
    M = scene.placement("sphere")
    x, y, z, w = pin.Quaternion(M.rotation).coeffs()
    mus = {round(float(mu), 12) for mu in scene.friction.values()} | {float(scene.default_friction)}
    if len(mus) != 1:
        raise ValueError(f"{factory}: the benchmark expects one friction coefficient, got {sorted(mus)}")
    return {
        "name": scene.name,
        "factory": factory,
        "module": "timestepping_robots",
        "kwargs": kwargs,
        "mjcf": str(example_scene("puma3_fingers.xml")),
        "margin": tr.PUMA_MARGIN,
        "gravity": np.asarray(scene.gravity, dtype=float).tolist(),
        "mu": mus.pop(),
        "restitution": 0.0,
        "joints": joints,
        "bodies": [
            {
                "name": "sphere",
                "shape": "sphere",
                "radius": float(sphere.geometry.radius),
                "mass": float(inertia.mass),
                "inertia": np.diag(inertia.inertia).tolist(),
                "pos": M.translation.tolist(),
                "quat": [float(w), float(x), float(y), float(z)],
                "lin": [0.0, 0.0, 0.0],
                "ang": [0.0, 0.0, 0.0],
            }
        ],
    }

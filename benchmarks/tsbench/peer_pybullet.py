"""PyBullet as a benchmark peer: ``stepSimulation`` per step, in a DIRECT (no GUI) client.

Bullet combines two bodies' friction and restitution by their product, so every body and the floor
get ``sqrt(mu)`` and ``sqrt(e)``: each pair then has the spec's ``mu`` and ``e``.  The spec's mass and
diagonal inertia; PyBullet's default velocity damping (0.04) is set to 0, as in the other
simulators; everything else is PyBullet's default (sequential impulses, 50 iterations, ERP, the
restitution velocity threshold, contact processing).  Setting ``default`` (the only one).
"""

from __future__ import annotations

import importlib.metadata
import math

import numpy as np
import pybullet as p


class Peer:
    """See the module docstring."""

    def __init__(self, spec: dict, setting: str, dt: float):
        self.cid = p.connect(p.DIRECT)
        c = {"physicsClientId": self.cid}
        p.setGravity(*spec["gravity"], **c)
        p.setTimeStep(dt, **c)
        friction, restitution = math.sqrt(spec["mu"]), math.sqrt(spec["restitution"])
        self.floor = p.createMultiBody(0.0, p.createCollisionShape(p.GEOM_PLANE, **c), **c)
        p.changeDynamics(self.floor, -1, lateralFriction=friction, restitution=restitution, **c)
        self.ids = []
        for b in spec["bodies"]:
            if b["shape"] == "box":
                shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=[0.5 * s for s in b["size"]], **c)
            else:
                shape = p.createCollisionShape(p.GEOM_SPHERE, radius=b["radius"], **c)
            w, x, y, z = b["quat"]
            i = p.createMultiBody(b["mass"], shape, basePosition=b["pos"], baseOrientation=[x, y, z, w], **c)
            p.changeDynamics(
                i,
                -1,
                lateralFriction=friction,
                restitution=restitution,
                localInertiaDiagonal=b["inertia"],
                linearDamping=0.0,
                angularDamping=0.0,
                **c,
            )
            p.resetBaseVelocity(i, b["lin"], b["ang"], **c)
            self.ids.append(i)
        params = p.getPhysicsEngineParameters(**c)
        self.info = {
            "version": importlib.metadata.version("pybullet"),
            "engine": {k: params[k] for k in sorted(params)},
        }

    def step(self) -> None:
        p.stepSimulation(physicsClientId=self.cid)

    def state(self):
        n = len(self.ids)
        pos, quat, lin, ang = np.zeros((n, 3)), np.zeros((n, 4)), np.zeros((n, 3)), np.zeros((n, 3))
        for k, i in enumerate(self.ids):
            xyz, (x, y, z, w) = p.getBasePositionAndOrientation(i, physicsClientId=self.cid)
            pos[k], quat[k] = xyz, (w, x, y, z)
            lin[k], ang[k] = p.getBaseVelocity(i, physicsClientId=self.cid)
        return pos, quat, lin, ang

    def contacts(self) -> int:
        return len(p.getContactPoints(physicsClientId=self.cid))

    def failed(self) -> bool:
        return False

    def ground_force(self) -> float:
        points = p.getContactPoints(bodyA=self.floor, physicsClientId=self.cid)  # both orders, floor as A
        return float(sum(pt[9] * abs(pt[7][2]) for pt in points))  # normal force along the normal on B

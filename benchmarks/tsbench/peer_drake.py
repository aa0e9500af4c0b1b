"""Drake as a benchmark peer: a discrete ``MultibodyPlant`` (time step ``dt``) advanced by a
``Simulator``, one ``AdvanceTo`` per step.

Every body: ``AddRigidBody`` with the spec's mass and diagonal inertia, one box or sphere collision
geometry with ``CoulombFriction(mu, mu)`` (Drake combines two geometries' values by
``2 m1 m2 / (m1 + m2)``: the same); the floor a ``HalfSpace`` on the world.  Setting ``default``:
``MultibodyPlantConfig(time_step=dt)`` and nothing else (contact model ``hydroelastic_with_fallback``,
which falls back to point contact for geometries without hydroelastic properties; discrete
approximation ``lagged``, Drake's convex solver; penetration allowance 1 mm).  Drake has no
coefficient of restitution: the ball's bounce is whatever its compliant point contact gives.
Settings ``sap``, ``tamsi``: the same with that ``discrete_contact_approximation`` (the default,
``lagged``, does not let the box slide on the mu = 0.3 slope; these two do).
"""

from __future__ import annotations

import importlib.metadata

import numpy as np
from pydrake.common.eigen_geometry import Quaternion
from pydrake.geometry import Box, HalfSpace, Sphere
from pydrake.math import RigidTransform
from pydrake.multibody.math import SpatialVelocity
from pydrake.multibody.plant import AddMultibodyPlant, CoulombFriction, MultibodyPlantConfig
from pydrake.multibody.tree import SpatialInertia, UnitInertia
from pydrake.systems.analysis import Simulator
from pydrake.systems.framework import DiagramBuilder


class Peer:
    """See the module docstring."""

    def __init__(self, spec: dict, setting: str, dt: float):
        builder = DiagramBuilder()
        if setting not in ("default", "sap", "tamsi", "similar", "lagged"):
            raise ValueError(f"unknown Drake setting {setting!r}")
        config = MultibodyPlantConfig(time_step=dt)
        if setting != "default":
            config.discrete_contact_approximation = setting
        plant, _ = AddMultibodyPlant(config, builder)
        mu = spec["mu"]
        friction = CoulombFriction(mu, mu)
        plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform(), HalfSpace(), "floor", friction)
        self.bodies = []
        for b in spec["bodies"]:
            m = b["mass"]
            inertia = SpatialInertia(m, np.zeros(3), UnitInertia(*(i / m for i in b["inertia"])))
            body = plant.AddRigidBody(b["name"], inertia)
            shape = Box(*b["size"]) if b["shape"] == "box" else Sphere(b["radius"])
            plant.RegisterCollisionGeometry(body, RigidTransform(), shape, b["name"], friction)
            self.bodies.append(body)
        plant.mutable_gravity_field().set_gravity_vector(np.asarray(spec["gravity"]))
        plant.Finalize()
        self.plant, self.diagram = plant, builder.Build()
        self.sim = Simulator(self.diagram)
        self.context = plant.GetMyMutableContextFromRoot(self.sim.get_mutable_context())
        for body, b in zip(self.bodies, spec["bodies"]):
            pose = RigidTransform(Quaternion(np.asarray(b["quat"])), np.asarray(b["pos"]))
            plant.SetFreeBodyPose(self.context, body, pose)
            plant.SetFreeBodySpatialVelocity(
                self.context, body, SpatialVelocity(np.asarray(b["ang"]), np.asarray(b["lin"]))
            )
        self.sim.Initialize()
        self.dt, self.k = dt, 0
        self.world = plant.world_body().index()
        self.info = {
            "version": importlib.metadata.version("drake"),
            "config": repr(config),
            "approximation": str(plant.get_discrete_contact_approximation()),
        }

    def step(self) -> None:
        self.k += 1
        self.sim.AdvanceTo(self.k * self.dt)

    def state(self):
        n = len(self.bodies)
        pos, quat, lin, ang = np.zeros((n, 3)), np.zeros((n, 4)), np.zeros((n, 3)), np.zeros((n, 3))
        for k, body in enumerate(self.bodies):
            X = self.plant.EvalBodyPoseInWorld(self.context, body)
            V = self.plant.EvalBodySpatialVelocityInWorld(self.context, body)
            pos[k], quat[k] = X.translation(), X.rotation().ToQuaternion().wxyz()
            lin[k], ang[k] = V.translational(), V.rotational()
        return pos, quat, lin, ang

    def _results(self):
        return self.plant.get_contact_results_output_port().Eval(self.context)

    def contacts(self) -> int:
        r = self._results()
        return int(r.num_point_pair_contacts() + r.num_hydroelastic_contacts())

    def failed(self) -> bool:
        return False

    def ground_force(self) -> float:
        r, z = self._results(), 0.0
        for i in range(r.num_point_pair_contacts()):
            info = r.point_pair_contact_info(i)  # the force on body B
            if info.bodyA_index() == self.world:
                z += float(info.contact_force()[2])
            elif info.bodyB_index() == self.world:
                z -= float(info.contact_force()[2])
        return z

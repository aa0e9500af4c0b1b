"""Siconos (Debian's ``python3-siconos``, run by ``/usr/bin/python3``) as a benchmark peer.

Settings:

* ``linear`` (the bouncing ball only): Siconos' BouncingBallTS model, a ``LagrangianLinearTIDS``
  (coordinates: the centre's height, then two that the contact does not see; mass
  ``diag(m, m, I)``; the weight as ``FExt``), the constraint ``y = z - R`` as a
  ``LagrangianLinearTIR``, ``NewtonImpactNSL(e)``, ``MoreauJeanOSI(theta = 1/2)``, one ``LCP`` per step;
* ``bullet``: rigid bodies (``RigidBodyDS``: Newton–Euler, the spec's mass and inertia) with
  ``SiconosBox`` / ``SiconosSphere`` contactors and the floor a static ``SiconosPlane``, contacts from
  ``SiconosBulletCollisionManager`` (default options), ``NewtonImpactFrictionNSL(e, 0, mu, 3)``,
  ``MoreauJeanOSI(theta = 1/2)`` with activation at a predicted gap <= 0, ``TimeStepping`` with its
  Newton loop (``SICONOS_TS_NONLINEAR``, at most 20 iterations, tolerance 1e-10) and one
  ``FrictionContact(3)`` per iteration with Siconos' default solver options, as
  ``siconos.io.mechanics_run`` sets them up by default.  Box contactors get an inside margin of
  :data:`BOX_MARGIN` (Bullet's rounding inside the box; Siconos' default, 0.1 m, exceeds the half side).
"""

from __future__ import annotations

import numpy as np
import siconos
import siconos.kernel as sk
import siconos.numerics as sn

#: the inside margin of box contactors (m)
BOX_MARGIN = 0.005
IDENTITY = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]


def _rotation(w: float, x: float, y: float, z: float) -> np.ndarray:
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


class Peer:
    """See the module docstring."""

    def __init__(self, spec: dict, setting: str, dt: float):
        self.dt, self.setting = dt, setting
        self.nsds = sk.NonSmoothDynamicalSystem(0.0, 1e9)
        self.osi = sk.MoreauJeanOSI(0.5)
        if setting == "linear":
            self._linear(spec)
        elif setting == "bullet":
            self._bullet(spec)
        else:
            raise ValueError(f"unknown Siconos setting {setting!r}")
        self.info = {"version": siconos.version}

    def _linear(self, spec: dict) -> None:
        (b,) = spec["bodies"]
        if b["shape"] != "sphere" or np.abs(np.asarray(spec["gravity"][:2])).max() > 0:
            raise ValueError("the linear model is the bouncing ball only (one sphere, vertical gravity)")
        m, r, g = b["mass"], b["radius"], -spec["gravity"][2]
        self.ball = sk.LagrangianLinearTIDS(
            [b["pos"][2], 0.0, 0.0], [b["lin"][2], 0.0, 0.0], np.diag([m, m, b["inertia"][0]])
        )
        self.ball.setFExtPtr(np.array([-m * g, 0.0, 0.0]))
        self.nsds.insertDynamicalSystem(self.ball)
        relation = sk.LagrangianLinearTIR(np.array([[1.0, 0.0, 0.0]]), np.array([-r]))
        self.nsds.link(sk.Interaction(sk.NewtonImpactNSL(spec["restitution"]), relation), self.ball)
        self.problem = sk.LCP()
        self.sim = sk.TimeStepping(self.nsds, sk.TimeDiscretisation(0.0, self.dt), self.osi, self.problem)

    def _bullet(self, spec: dict) -> None:
        from siconos.mechanics.collision import (
            RigidBodyDS,
            SiconosBox,
            SiconosContactor,
            SiconosContactorSet,
            SiconosPlane,
            SiconosSphere,
        )
        from siconos.mechanics.collision.bullet import SiconosBulletCollisionManager, SiconosBulletOptions

        self.bodies, self.shapes = [], []  # the shapes are kept alive here
        for b in spec["bodies"]:
            R = _rotation(*b["quat"])
            body = RigidBodyDS(
                list(b["pos"]) + list(b["quat"]),
                list(b["lin"]) + list(R.T @ np.asarray(b["ang"])),
                b["mass"],
                np.diag(b["inertia"]),
            )
            body.setUseContactorInertia(False)
            if b["shape"] == "box":
                shape = SiconosBox(*b["size"])
                shape.setInsideMargin(BOX_MARGIN)
            else:
                shape = SiconosSphere(b["radius"])
            shape.setOutsideMargin(0.0)
            contactors = SiconosContactorSet()
            contactors.append(SiconosContactor(shape, IDENTITY, 0))
            body.setContactors(contactors)
            body.setFExtPtr(b["mass"] * np.asarray(spec["gravity"], dtype=float))
            self.nsds.insertDynamicalSystem(body)
            self.bodies.append(body)
            self.shapes += [shape, contactors]
        self.manager = SiconosBulletCollisionManager(SiconosBulletOptions())
        self.manager.insertNonSmoothLaw(sk.NewtonImpactFrictionNSL(spec["restitution"], 0.0, spec["mu"], 3), 0, 0)
        plane = SiconosPlane()
        plane.setInsideMargin(0.0)
        plane.setOutsideMargin(0.0)
        floor = SiconosContactorSet()
        floor.append(SiconosContactor(plane, IDENTITY, 0))
        self.manager.insertStaticContactorSet(floor, IDENTITY)
        self.shapes += [plane, floor]
        self.osi.setConstraintActivationThreshold(0.0)
        self.problem = sk.FrictionContact(3)
        self.problem.setMStorageType(sn.NM_SPARSE_BLOCK)
        self.problem.setKeepLambdaAndYState(True)
        self.sim = sk.TimeStepping(self.nsds, sk.TimeDiscretisation(0.0, self.dt))
        self.sim.insertIntegrator(self.osi)
        self.sim.insertNonSmoothProblem(self.problem)
        self.sim.insertInteractionManager(self.manager)
        self.sim.setNewtonOptions(sk.SICONOS_TS_NONLINEAR)
        self.sim.setNewtonMaxIteration(20)
        self.sim.setNewtonTolerance(1e-10)

    def step(self) -> None:
        self.sim.computeOneStep()
        self.sim.nextStep()

    def state(self):
        if self.setting == "linear":
            q, v = self.ball.q(), self.ball.velocity()
            return (
                np.array([[0.0, 0.0, q[0]]]),
                np.array([[1.0, 0, 0, 0]]),
                np.array([[0.0, 0.0, v[0]]]),
                np.zeros((1, 3)),
            )
        n = len(self.bodies)
        pos, quat, lin, ang = np.zeros((n, 3)), np.zeros((n, 4)), np.zeros((n, 3)), np.zeros((n, 3))
        for k, body in enumerate(self.bodies):
            q, v = np.asarray(body.q()), np.asarray(body.twist())
            pos[k], quat[k] = q[:3], q[3:7]
            lin[k], ang[k] = v[:3], _rotation(*q[3:7]) @ v[3:]  # Newton-Euler: angular velocity in body axes
        return pos, quat, lin, ang

    def contacts(self) -> int:
        """The interactions of the step's index set 1 (the active contacts)."""
        return len(self.sim.indexSet(1).interactions())

    def failed(self) -> bool:
        return False

    def ground_force(self) -> float:
        z = 0.0
        graph = self.sim.indexSet(1)
        for inter in graph.interactions():
            if self.setting == "linear" or inter.getSizeOfDS() == 6:  # one body: a floor contact
                z += float(inter.lambda_(1)[0])
        return z / self.dt

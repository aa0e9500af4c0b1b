"""Advancing the three-finger grasp in time (Buffo–Maciel Algorithm 1, step 6: "define the new configuration").

Each step solves the contact problem of the current configuration, then
integrates with semi-implicit Euler over ``dt``, or less when a decelerating
slip would stop inside the step (the step then ends where it stops),  (``V += dt dV/dt``, positions from the new
``V``; the sphere's orientation by the exponential map).  Joint efforts stay
fixed.  Before each solve the contacts are re-derived from the geometry: the
contact point is the fingertip projected on the sphere, the normal points to
the centre; a contact whose fingertip has left the surface by more than
``gap_tol`` or moves away from it (``v_n > v_tol``) is dropped (separated), and
a remaining contact slides when its relative tangential velocity exceeds
``v_tol`` (and its slip did not reverse within the step: a reversal means the
slip stopped inside the step, and the contact sticks), else it rolls.  After each step the velocities are projected
(M-orthogonally) so that sticking contacts have exactly zero relative velocity
and maintained contacts zero normal velocity: a tangential impulse when a slip
stops, and the removal of the explicit step's drift otherwise.  This is the
acceleration-level model of the papers advanced explicitly with event location,
not a velocity-level time-stepping scheme: it shows how the modes evolve over a
few small steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from contactcp.models.bodies import RigidBody
from contactcp.models.contacts import Contact, Link
from contactcp.models.system import Arm, MultibodySystem
from contactcp.scenarios.buffo2006 import Grasp
from contactcp.simulate.explicit import euler_step, project_velocities, with_velocities
from contactcp.simulate.instant import DynamicResult, solve_dynamic

__all__ = ["GraspStep", "advance_grasp"]


@dataclass
class GraspStep:
    """One step: time, per-finger mode (``separated`` when dropped), forces and sphere motion."""

    t: float
    modes: list[str]
    c: list[np.ndarray | None]
    sphere_p: np.ndarray
    sphere_v: np.ndarray
    status: str
    residual: float = float("nan")
    extra: dict = field(default_factory=dict)


def _system(
    grasp: Grasp,
    sphere: RigidBody,
    q: list[np.ndarray],
    qd: list[np.ndarray],
    states: list[str],
    v_ts: list[np.ndarray | None],
    gap_tol: float,
) -> tuple[MultibodySystem | None, list[int]]:
    p = grasp.params
    contacts, active = [], []
    arms = [Arm(a.manipulator, q[j], qd[j], a.tau) for j, a in enumerate(grasp.arms)]
    for j, arm in enumerate(arms):
        if states[j] == "separated":
            continue
        tip = arm.manipulator.link_pose(arm.q, -1)[:3, 3]
        d = tip - sphere.p
        dist = float(np.linalg.norm(d))
        if dist - p.r > gap_tol:
            states[j] = "separated"
            continue
        n = -d / dist
        point = sphere.p + p.r * d / dist
        contacts.append(
            Contact(
                0,
                point,
                n,
                grasp.mu,
                other=Link(j, 5),
                tangent=np.cross([0.0, 0.0, 1.0], n),
                state=states[j],
                v_t=v_ts[j],
                name=f"C{j + 1}",
            )
        )
        active.append(j)
    if not contacts:
        return None, active
    return MultibodySystem([sphere], contacts, arms), active


def advance_grasp(
    grasp: Grasp,
    dt: float = 1e-3,
    steps: int = 10,
    friction: str = "cone",
    method: str | None = None,
    v_tol: float | None = None,
    gap_tol: float | None = None,
) -> list[GraspStep]:
    """Advance ``steps`` steps of length ``dt``; returns the state before each step and after the last.

    ``v_tol`` (default ``1e-3 dt |g|``) separates sliding from the O(dt^2)
    kinematic drift of rolling contacts; ``gap_tol`` (default ``1e-4 r``) the
    contact from separation.
    """
    p = grasp.params
    if v_tol is None:
        v_tol = 1e-3 * dt * max(float(np.linalg.norm(p.gravity)), 1.0)
    gap_tol = 1e-4 * p.r if gap_tol is None else gap_tol
    sphere = grasp.system.bodies[0]
    q = [a.q.copy() for a in grasp.arms]
    qd = [a.qdot.copy() for a in grasp.arms]
    states = [c.state for c in grasp.system.contacts]
    cd0 = grasp.system.dynamics()
    v_ts: list[np.ndarray | None] = [cd0.v_t[j].copy() if states[j] == "sliding" else None for j in range(len(states))]
    history: list[GraspStep] = []
    t = 0.0
    for _ in range(steps + 1):
        system, active = _system(grasp, sphere, q, qd, states, v_ts, gap_tol)
        modes = list(states)
        forces: list[np.ndarray | None] = [None] * len(grasp.arms)
        if system is None:
            Vdot = np.concatenate(
                [sphere.external_wrench[:3] / sphere.mass, np.zeros(3)]
                + [a.manipulator.forward_dynamics(q[j], qd[j], a.tau) for j, a in enumerate(grasp.arms)]
            )
            out: DynamicResult | None = None
        else:
            out = solve_dynamic(system, friction=friction, method=method)
            if out.accelerations is None:
                history.append(GraspStep(t, modes, forces, sphere.p.copy(), sphere.v.copy(), out.status.name))
                break
            Vdot = out.accelerations
            h = dt
            stops: dict[int, float] = {}
            for o, j in zip(out.contacts, active):
                modes[j] = o.mode
                forces[j] = o.c
                # event location: a decelerating slip that would stop inside the step ends the step
                vt = v_ts[j]
                if states[j] == "sliding" and vt is not None and vt @ o.a[1:] < 0:
                    stops[j] = -(vt @ o.a[1:]) / (o.a[1:] @ o.a[1:])
                    h = min(h, max(stops[j], 1e-6 * dt))
            stopped = {j for j, ts in stops.items() if ts <= h * (1 + 1e-9) + 1e-6 * dt}
        history.append(
            GraspStep(
                t,
                modes,
                forces,
                sphere.p.copy(),
                sphere.v.copy(),
                "no contact" if out is None else out.status.name,
                float("nan") if out is None or out.result.residual is None else out.result.residual.value,
            )
        )
        if len(history) > steps:
            break
        if system is None:
            h, stopped = dt, set()
        # semi-implicit Euler on the sphere and the fingers
        arms = [Arm(a.manipulator, q[j], qd[j], a.tau) for j, a in enumerate(grasp.arms)]
        (sphere,), arms = euler_step([sphere], arms, Vdot, h)
        q, qd = [a.q for a in arms], [a.qdot for a in arms]
        t += h
        # new contact states from the new velocities
        system, active = _system(grasp, sphere, q, qd, states, [None] * len(states), gap_tol)
        if system is None:
            continue
        # sticking contacts (those still rolling and those whose slip stopped in the step):
        # project the velocities so that their relative velocity is exactly zero (a tangential
        # impulse, M-orthogonal projection), which removes the O(dt^2) drift of the explicit step
        rows = []
        for k, j in enumerate(active):
            if modes[j] != "breaking":
                rows.append(3 * k)
                # a contact that was rolling and keeps rolling sticks; one that starts sliding (a2) does not
                if j in stopped or (states[j] == "rolling" and modes[j] == "rolling"):
                    rows += [3 * k + 1, 3 * k + 2]
        V = project_velocities(system, np.array(rows, dtype=int))
        if rows:
            (sphere,), arms = with_velocities([sphere], arms, V)
            qd = [a.qdot for a in arms]
        H, _ = system.contact_jacobian()
        vel = (H.T @ V).reshape(-1, 3)
        for k, j in enumerate(active):
            if j in stopped:
                states[j], v_ts[j] = "rolling", None  # its slip ended inside this step
            elif vel[k, 0] > v_tol * max(1.0, float(np.abs(vel).max())) and modes[j] == "breaking":
                states[j] = "separated"
            elif np.linalg.norm(vel[k, 1:]) > v_tol and not (
                states[j] == "sliding" and v_ts[j] is not None and vel[k, 1:] @ v_ts[j] <= 0.0
            ):
                states[j], v_ts[j] = "sliding", vel[k, 1:].copy()
            else:
                states[j], v_ts[j] = "rolling", None
    return history

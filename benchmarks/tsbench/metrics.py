"""The benchmark's own measurements of a trajectory against the analytic answers.

Every number here comes from the recorded states (world positions, quaternions, velocities after
each step), the same way for every simulator; only the ground force at the end is the simulator's
own report (contactcp: its last impulses; MuJoCo: ``mj_contactForce``; Drake: its contact results;
PyBullet: ``getContactPoints``; Siconos: the impulses of index set 1).
"""

from __future__ import annotations

import math

import numpy as np

G = 9.81
#: a ball moving slower than this (m/s) is at rest
REST_SPEED = 1e-3
#: a height maximum lower than this (m) above the floor is not an apex (contact jitter)
MIN_APEX = 1e-3


def slide_exact(mu: float, slope: float, t: float) -> float:
    """The analytic speed of a block released on the slope (0 when it sticks)."""
    s = math.radians(slope)
    return max(0.0, G * (math.sin(s) - mu * math.cos(s))) * t


def _end_speed(rec: dict, dt: float) -> float:
    """The tangential speed at the end, by the last step's displacement (m/s, at ``T - dt / 2``)."""
    p = rec["pos"][:, 0]
    return float(np.linalg.norm(p[-1, :2] - p[-2, :2]) / dt) if len(p) > 1 else math.nan


def stick(rec: dict, dt: float) -> dict:
    """Slip speed at the end and drift (largest displacement along the floor) of the box."""
    p = rec["pos"][:, 0]
    return {"slip": _end_speed(rec, dt), "drift": float(np.linalg.norm(p[:, :2] - p[0, :2], axis=1).max())}


def slide(rec: dict, dt: float, mu: float, slope: float, rest_z: float) -> dict:
    """Final speed against ``g (sin - mu cos) t`` (at ``T - dt / 2``), lift-off and sinking of the centre."""
    t_end = (len(rec["pos"]) - 1) * dt
    speed = _end_speed(rec, dt)
    exact = slide_exact(mu, slope, t_end - dt / 2)
    z = rec["pos"][:, 0, 2]
    return {
        "speed": speed,
        "exact": exact,
        "rel": abs(speed / exact - 1.0),
        "lift": max(0.0, float(z.max()) - rest_z),
        "sink": max(0.0, rest_z - float(z.min())),
    }


def _apexes(z: np.ndarray, vz: np.ndarray, dt: float) -> list[tuple[float, float]]:
    """``(time, height)`` of each local maximum of ``z`` above MIN_APEX after the first bounce (the
    first upward velocity; the drop starts at rest): the vertex of the parabola through the three
    samples around it (exact in free flight)."""
    out = []
    rising = np.flatnonzero(vz > 0)
    first = rising[0] if len(rising) else len(z)
    for k in np.flatnonzero((z[1:-1] >= z[:-2]) & (z[1:-1] > z[2:])) + 1:
        if k <= first:
            continue
        a, b, c = z[k - 1], z[k], z[k + 1]
        curv = a - 2.0 * b + c
        if curv >= 0 or b < MIN_APEX:
            continue
        out.append(((k + 0.5 * (a - c) / curv) * dt, float(b - (a - c) ** 2 / (8.0 * curv))))
    return out


def ball(rec: dict, dt: float, spec: dict, rest_time: float) -> dict:
    """Apexes 1-5 against ``e^(2k) h0``, time to rest, penetration, largest energy gain over a step."""
    (b,) = spec["bodies"]
    r, m, e = b["radius"], b["mass"], spec["restitution"]
    z = rec["pos"][:, 0, 2] - r
    h0 = float(z[0])
    apex = _apexes(z, rec["lin"][:, 0, 2], dt)[:5]
    errors = [abs(hk / (e ** (2 * (k + 1)) * h0) - 1.0) for k, (_, hk) in enumerate(apex)]
    vz = rec["lin"][:, 0, 2]
    moving = np.flatnonzero(np.abs(vz) > REST_SPEED)
    T = (len(z) - 1) * dt
    rest = (moving[-1] + 1) * dt if len(moving) else 0.0
    at_rest = len(moving) == 0 or moving[-1] + 1 < len(z) - 1
    inertia = np.asarray(b["inertia"])
    kinetic = 0.5 * m * (rec["lin"][:, 0] ** 2).sum(axis=1) + 0.5 * (inertia * rec["ang"][:, 0] ** 2).sum(axis=1)
    energy = kinetic - m * rec["pos"][:, 0] @ np.asarray(spec["gravity"])
    return {
        "apexes": len(apex),
        "apex1": apex[0][1] if apex else math.nan,
        "apex_err": max(errors) if errors else math.nan,
        "rest": rest if at_rest else math.inf,
        "rest_err": (rest / rest_time - 1.0) if at_rest else math.nan,
        "moving_at_end": not at_rest,
        "T": T,
        "penetration": max(0.0, -float(z.min())),
        "gain": float(max(np.diff(energy).max(initial=0.0), 0.0)),
    }


def stack(rec: dict, spec: dict) -> dict:
    """Largest overlap (floor and box on box, from the centres: the boxes stay level), sideways
    drift of the top box, and the simulator's ground force at the end against ``n m g``."""
    a = spec["bodies"][0]["size"][2]
    pos, quat = rec["pos"], rec["quat"]
    w, x, y = quat[:, 0, 0], quat[:, 0, 1], quat[:, 0, 2]
    zz = (
        np.abs(2 * (x * quat[:, 0, 3] - w * y))
        + np.abs(2 * (y * quat[:, 0, 3] + w * x))
        + np.abs(1 - 2 * (x * x + y * y))
    )
    floor = float((0.5 * a * zz - pos[:, 0, 2]).max())  # the lowest corner of the lowest box below 0
    boxes = float((a - np.diff(pos[:, :, 2], axis=1)).max()) if pos.shape[1] > 1 else 0.0
    top = pos[:, -1, :2]
    weight = G * sum(b["mass"] for b in spec["bodies"])
    force = rec["meta"].get("ground_force")
    return {
        "overlap": max(0.0, floor, boxes),
        "drift": float(np.linalg.norm(top - top[0], axis=1).max()),
        "force_rel": (force / weight - 1.0) if force is not None else math.nan,
    }


def pile(rec: dict) -> dict:
    """Contacts per step (mean, largest) and how far the heap fell (the lowest box's centre)."""
    c = rec["contacts"]
    return {
        "contacts": float(c.mean()) if len(c) else math.nan,
        "contacts_max": int(c.max()) if len(c) else 0,
        "min_z": float(rec["pos"][:, :, 2].min()),
    }


def grasp(rec: dict, dt: float) -> dict:
    """The held sphere: its largest displacement from the start and at the end, its speed over the
    last step, contacts per step, and the real-time factor (simulated time / wall time of the steps)."""
    p = rec["pos"][:, 0]
    d = np.linalg.norm(p - p[0], axis=1)
    meta, c = rec["meta"], rec["contacts"]
    return {
        "disp": float(d.max()),
        "disp_end": float(d[-1]),
        "speed": _end_speed3(p, dt),
        "contacts": float(c.mean()) if len(c) else math.nan,
        "rtf": meta["steps"] * dt / meta["wall"] if meta.get("wall") else math.nan,
    }


def _end_speed3(p: np.ndarray, dt: float) -> float:
    return float(np.linalg.norm(p[-1] - p[-2]) / dt) if len(p) > 1 else math.nan

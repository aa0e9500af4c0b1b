"""Forces, velocities and contact modes of a quasistatic UCP solution (Pang–Trinkle–Lo §2).

From ``x = (v_n, v_t+, v_t-)`` and ``y = (c_n, s_t+, s_t-)``:
``c_t = s_t+ - U c_n``, ``v_t = v_t+ - v_t-``, and ``(qdot, theta_dot_abar)`` from
``P [qdot; -theta_dot_abar] = [v_n; v_t] + J_alpha theta_dot_alpha`` (eqs. (4)-(5)).

Modes are read from the velocities, with a tolerance relative to the
velocity scale of the problem: ``breaking`` if ``v_n > eps``, else
``sliding+``/``sliding-`` if ``v_t > eps`` / ``v_t < -eps``, else ``rolling``.
A contact with ``c_n = 0`` and zero relative velocity (the degenerate case of
eqs. (8)-(9)) is labelled ``rolling`` with ``loaded = False``: it stays closed
and does not move, but carries no force.

:func:`check_quasistatic` verifies the original conditions (2)-(10) directly
from ``c_n, c_t, v_n, v_t, qdot, theta_dot`` (not from x and y) and reports
each violation relative to the force or velocity scale.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactcp.models.planar_quasistatic import PlanarQuasistaticProblem

MODE_CODES = {"rolling": "R", "sliding+": "S+", "sliding-": "S-", "breaking": "B"}


@dataclass
class QuasistaticSolution:
    """One motion of the quasistatic system, with its independent check."""

    c_n: np.ndarray
    c_t: np.ndarray
    v_n: np.ndarray
    v_t: np.ndarray
    qdot: np.ndarray
    theta_dot: np.ndarray
    joint_load: np.ndarray
    modes: list[str]
    loaded: np.ndarray
    violations: dict[str, float]
    motion_unique: bool
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def max_violation(self) -> float:
        return max(self.violations.values())

    @property
    def mode_codes(self) -> str:
        return " ".join(MODE_CODES[m] for m in self.modes)

    def ok(self, tol: float = 1e-8) -> bool:
        return self.max_violation <= tol

    def to_dict(self) -> dict[str, Any]:
        return {
            "modes": list(self.modes),
            "c_n": self.c_n.tolist(),
            "c_t": self.c_t.tolist(),
            "v_n": self.v_n.tolist(),
            "v_t": self.v_t.tolist(),
            "qdot": self.qdot.tolist(),
            "theta_dot": self.theta_dot.tolist(),
            "joint_load": self.joint_load.tolist(),
            "loaded": self.loaded.tolist(),
            "max_violation": float(self.max_violation),
            "violations": {k: float(v) for k, v in self.violations.items()},
            "motion_unique": bool(self.motion_unique),
            **self.extra,
        }


def _scales(m: PlanarQuasistaticProblem, c_n, c_t, v_n, v_t, qdot, theta_dot) -> tuple[float, float]:
    fs = max(
        1e-300,
        float(np.max(np.abs(m.g_obj), initial=0.0)),
        float(np.max(np.abs(m.gman_minus_tau), initial=0.0)),
        float(np.max(np.abs(m.W_n) @ np.abs(c_n) + np.abs(m.W_t) @ np.abs(c_t), initial=0.0)),
    )
    J = np.vstack([m.J_n, m.J_t])
    WT = np.vstack([m.W_n.T, m.W_t.T])
    vs = max(
        1e-300,
        float(np.max(np.abs(J) @ np.abs(theta_dot), initial=0.0)),
        float(np.max(np.abs(WT) @ np.abs(qdot), initial=0.0)),
        float(np.max(np.abs(np.concatenate([v_n, v_t])), initial=0.0)),
    )
    return fs, vs


def check_quasistatic(m: PlanarQuasistaticProblem, c_n, c_t, v_n, v_t, qdot, theta_dot) -> dict[str, float]:
    """Violations of conditions (2)-(10), each relative to the force scale ``fs`` or the
    velocity scale ``vs``; every entry is 0 for an exact solution."""
    fs, vs = _scales(m, c_n, c_t, v_n, v_t, qdot, theta_dot)
    mu = m.mu
    ab = m.abar
    eq2 = m.W_n @ c_n + m.W_t @ c_t + m.g_obj
    eq3 = (m.J_n.T @ c_n + m.J_t.T @ c_t + m.gman_minus_tau)[ab]
    eq4 = v_n - (m.W_n.T @ qdot - m.J_n @ theta_dot)
    eq5 = v_t - (m.W_t.T @ qdot - m.J_t @ theta_dot)
    vp, vm = np.maximum(v_t, 0.0), np.maximum(-v_t, 0.0)
    return {
        "(2) object equilibrium": float(np.max(np.abs(eq2), initial=0.0)) / fs,
        "(3) joint equilibrium": float(np.max(np.abs(eq3), initial=0.0)) / fs,
        "(4) normal velocity": float(np.max(np.abs(eq4), initial=0.0)) / vs,
        "(5) tangential velocity": float(np.max(np.abs(eq5), initial=0.0)) / vs,
        "(6) nonpenetration": float(np.max(-v_n, initial=0.0)) / vs,
        "(7) friction cone": float(np.max(np.abs(c_t) - mu * c_n, initial=0.0)) / fs,
        "(8)-(9) normal complementarity": float(
            np.max(np.minimum(np.maximum(c_n, 0) / fs, np.maximum(v_n, 0) / vs), initial=0.0)
        ),
        "(10) sliding friction": float(
            np.max(
                np.maximum(
                    np.minimum(vp / vs, np.abs(mu * c_n + c_t) / fs), np.minimum(vm / vs, np.abs(mu * c_n - c_t) / fs)
                ),
                initial=0.0,
            )
        ),
        "nontensile": float(np.max(-c_n, initial=0.0)) / fs,
    }


def interpret_quasistatic(
    m: PlanarQuasistaticProblem, x: np.ndarray, y: np.ndarray, mode_tol: float = 1e-9
) -> QuasistaticSolution:
    """Recover the mechanics from a UCP pair and check it against (2)-(10)."""
    n_c = m.n_c
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    v_n, vp, vm = x[:n_c], x[n_c : 2 * n_c], x[2 * n_c :]
    c_n, sp = y[:n_c], y[n_c : 2 * n_c]
    c_t = sp - m.mu * c_n
    v_t = vp - vm
    J = np.vstack([m.J_n, m.J_t])
    a, ab = np.flatnonzero(m.alpha), m.abar
    P = m.P
    rhs = np.concatenate([v_n, v_t]) + J[:, a] @ m.theta_dot[a]
    sol, _, rank, _ = np.linalg.lstsq(P, rhs, rcond=None)
    qdot = sol[: m.n_q]
    theta_dot = m.theta_dot.copy()
    theta_dot[ab] = -sol[m.n_q :]
    # joint loads J^T c: equal to tau - g_man at every joint (known for abar, a result for alpha)
    joint_load = m.J_n.T @ c_n + m.J_t.T @ c_t
    viol = check_quasistatic(m, c_n, c_t, v_n, v_t, qdot, theta_dot)
    fs, vs = _scales(m, c_n, c_t, v_n, v_t, qdot, theta_dot)
    eps_v, eps_c = mode_tol * vs, mode_tol * fs
    modes = []
    for i in range(n_c):
        if v_n[i] > eps_v:
            modes.append("breaking")
        elif v_t[i] > eps_v:
            modes.append("sliding+")
        elif v_t[i] < -eps_v:
            modes.append("sliding-")
        else:
            modes.append("rolling")
    return QuasistaticSolution(
        c_n=c_n,
        c_t=c_t,
        v_n=v_n,
        v_t=v_t,
        qdot=qdot,
        theta_dot=theta_dot,
        joint_load=joint_load,
        modes=modes,
        loaded=c_n > eps_c,
        violations=viol,
        motion_unique=rank == P.shape[1],
        extra={"force_scale": fs, "velocity_scale": vs},
    )

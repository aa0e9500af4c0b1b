"""Pang, Trinkle & Lo (1994), Section 5: Data Sets 1-4 as printed, and the random problems.

Data Sets 1-3 come from Trinkle & Zeng; Data Set 4 is Data Set 2 with friction
in the "jamming" region, where the paper reports no solution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contactcp.errors import InvalidProblemError
from contactcp.models.planar_quasistatic import PlanarQuasistaticProblem, planar_wrench, prismatic_fingers
from contactcp.problems.generators import Seed

_P1 = [
    [0.966, 0.259, 0.000],
    [0.000, 1.000, 0.240],
    [-0.707, 0.707, 0.750],
    [-0.259, 0.966, -2.000],
    [-1.000, 0.000, -1.450],
    [-0.707, -0.707, -1.900],
]
_P2 = [
    [0.804, 0.595, 1.040],
    [-0.707, 0.707, -3.500],
    [-0.973, -0.232, 14.000],
    [-0.595, 0.804, -20.900],
    [-0.707, -0.707, -17.900],
    [0.232, -0.973, -7.630],
]
_J_N = [[1, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 1, 0]]
_J_T = [[0, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 1]]
_D = [0, 0, 0, 0, -1, 0]

#: Data Set number -> (P, theta_dot, mu), printed in the paper; J_n, J_t and d are shared
DATA = {
    1: (_P1, [0.1, 0.995, 0.1, -0.995, 0.1, 0.995], [0.5, 0.5, 0.3]),
    2: (_P2, [0.92, -0.391, 0.9276, -0.3747, 0.9306, -0.367], [0.1, 0.4, 0.3]),
    3: (_P1, [-0.161, 0.987, 0.995, 0.1, -0.774, -0.633], [0.5, 0.5, 0.3]),
    4: (_P2, [0.92, -0.391, 0.9276, -0.3747, 0.9306, -0.367], [0.7, 0.9, 0.9]),
}

#: what the paper reports: Data Sets 1-3 solved with x.y = 0, Data Set 4 has no solution
PAPER_VERDICT = {1: True, 2: True, 3: True, 4: False}


def data_set(k: int) -> PlanarQuasistaticProblem:
    """Data Set ``k`` (1-4) exactly as printed."""
    if k not in DATA:
        raise InvalidProblemError("dataset", f"must be 1, 2, 3 or 4, got {k}")
    P, theta_dot, mu = DATA[k]
    return PlanarQuasistaticProblem.from_paper(P, _J_N, _J_T, theta_dot, _D, mu, name=f"Data Set {k}")


@dataclass(frozen=True)
class RandomConfig:
    """One row of Table 1: contacts, friction range, velocity- and effort-controlled joints."""

    n_c: int
    mu_max: float
    n_alpha: int
    n_abar: int
    paper_pairs: int | None = None
    paper_best_xy: float | None = None
    paper_modified: bool = False


#: Table 1 of the paper (problem number -> configuration and the paper's results)
TABLE1 = {
    1: RandomConfig(3, 1.0, 6, 0, 2, 0.0),
    2: RandomConfig(10, 1.0, 20, 0, 1, 0.0),
    3: RandomConfig(10, 2.0, 20, 0, 5, 0.0, True),
    4: RandomConfig(15, 1.2, 29, 1, 2, 0.0),
    5: RandomConfig(18, 0.8, 27, 9, 1, 0.0),
    6: RandomConfig(20, 1.0, 40, 0, 1, 0.0),
    7: RandomConfig(20, 1.5, 40, 0, 4, 0.0, True),
    8: RandomConfig(20, 1.2, 40, 0, 2, 0.0),
    9: RandomConfig(20, 1.0, 30, 10, 2, 0.0),
    10: RandomConfig(20, 1.0, 30, 10, 2, 0.0),
    11: RandomConfig(20, 1.0, 40, 0, 4, 0.0),
    12: RandomConfig(30, 1.0, 60, 0, 2, 0.0),
    13: RandomConfig(30, 0.5, 45, 15, 1, 0.0),
    14: RandomConfig(30, 0.6, 45, 15, 24, 0.0, True),
    15: RandomConfig(40, 1.0, 80, 0, 1, 0.0),
    16: RandomConfig(40, 1.0, 80, 0, 1, 0.0),
    17: RandomConfig(10, 1.3, 15, 5, 52, 0.00001),
    18: RandomConfig(15, 1.2, 24, 6, 39, 14.61551),
    19: RandomConfig(30, 0.6, 45, 15, 49, 24.32773),
    20: RandomConfig(40, 1.0, 60, 20, 52, 1.23990),
}


def random_problem(
    n_c: int,
    mu_max: float = 1.0,
    n_abar: int = 0,
    seed: Seed = None,
    planted: bool = False,
    p_open: float = 0.5,
) -> PlanarQuasistaticProblem:
    """A random problem generated as in Section 5.

    A workpiece touched at ``n_c`` random points (radius 0.5-1.5 around its
    reference point, inward normals tilted up to 0.3 rad from the radial
    direction) by point fingers with a prismatic joint along each ``n_i`` and
    ``t_i`` (``n_theta = 2 n_c``, ``n_q = 3``); ``mu_i ~ U(0, mu_max)``.  Then:

    1. a random ``(c_n, c_t)`` obeying Coulomb's law (7) fixes ``g_obj`` by (2) and
       ``(g_man - tau)`` by (3), so Y is nonempty;
    2. a random ``v_n >= 0`` (each entry positive with probability ``p_open``,
       else 0) and ``qdot`` fix ``theta_dot`` by (4) (tangential joints random),
       so the motion lies in X for any choice of ``alpha``;
    3. ``n_abar`` joints are effort controlled, chosen at random among the joints
       of the contacts that the motion of step 2 keeps closed (``v_n = 0``) and
       only then among the others: an effort-controlled finger at a separating
       contact would prescribe a force there and make the instance trivially
       infeasible (the paper chose ``alpha`` from the motion too).

    With ``planted=True`` the forces and velocities of steps 1-2 are made
    complementary (each contact rolls, slides against its friction force, or
    breaks), so the problem certainly has a solution.
    """
    if n_c < 1 or not 0 <= n_abar <= 2 * n_c:
        raise InvalidProblemError("n_abar", f"must lie in 0..2 n_c = {2 * n_c}, got {n_abar}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    phi = rng.uniform(0, 2 * np.pi, n_c)
    rad = rng.uniform(0.5, 1.5, n_c)
    pts = np.column_stack([rad * np.cos(phi), rad * np.sin(phi)])
    tilt = phi + np.pi + rng.uniform(-0.3, 0.3, n_c)
    normals = np.column_stack([np.cos(tilt), np.sin(tilt)])
    W_n, W_t, _ = planar_wrench(pts, normals)
    J_n, J_t = prismatic_fingers(normals)
    mu = rng.uniform(0, mu_max, n_c)
    c_n = rng.uniform(0.1, 1.0, n_c)
    c_t = mu * c_n * rng.uniform(-1, 1, n_c)
    qdot = rng.normal(0, 1, 3)
    v_n = np.where(rng.random(n_c) < p_open, rng.uniform(0, 1, n_c), 0.0)
    v_t = None
    if planted:
        mode = rng.integers(0, 4, n_c)  # 0 roll, 1 slide +, 2 slide -, 3 break
        v_n = np.where(mode == 3, rng.uniform(0.1, 1, n_c), 0.0)
        c_n = np.where(mode == 3, 0.0, c_n)
        speed = rng.uniform(0.1, 1.0, n_c)
        v_t = np.where(mode == 1, speed, np.where(mode == 2, -speed, np.where(mode == 3, rng.normal(0, 1, n_c), 0.0)))
        c_t = np.where(mode == 1, -mu * c_n, np.where(mode == 2, mu * c_n, np.where(mode == 3, 0.0, c_t)))
    g_obj = -(W_n @ c_n + W_t @ c_t)
    gman_minus_tau = -(J_n.T @ c_n + J_t.T @ c_t)
    theta_dot = np.zeros(2 * n_c)
    theta_dot[0::2] = W_n.T @ qdot - v_n  # J_n theta_dot = W_n^T qdot - v_n
    if v_t is None:
        theta_dot[1::2] = rng.normal(0, 1, n_c)
    else:
        theta_dot[1::2] = W_t.T @ qdot - v_t
    closed = np.flatnonzero(v_n == 0)
    joints_closed = np.concatenate([2 * closed, 2 * closed + 1])
    joints_open = np.setdiff1d(np.arange(2 * n_c), joints_closed)
    order = np.concatenate([rng.permutation(joints_closed), rng.permutation(joints_open)]).astype(int)
    abar = order[:n_abar]
    alpha = np.setdiff1d(np.arange(2 * n_c), abar)
    return PlanarQuasistaticProblem(
        W_n,
        W_t,
        J_n,
        J_t,
        theta_dot,
        mu,
        g_obj,
        alpha,
        gman_minus_tau if n_abar else None,
        points=pts,
        name=f"random n_c={n_c}",
    )

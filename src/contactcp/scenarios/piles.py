"""Seeded multibody friction-contact problems of the kind real simulations produce.

One velocity-level time step (Moreau–Jean) of rigid bodies resting on one another: stacks and walls
of boxes (four corner contacts per touching face, two faces per brick in a wall) and piles of
spheres in a container.  Many contacts act on few bodies, so ``W = H^T M^{-1} H`` is
rank-deficient (rank / 3 n_c about 0.5 for boxes) — the case that random full-rank benchmarks hide
and that FCLIB's collection (box stacks, Kapla towers, sphere piles) is made of.

Each generator returns a :class:`~contactcp.problems.GlobalFrictionContactProblem`

    ``M v = H r + f``,   ``u = H^T v + w``

with ``v`` the bodies' world-frame velocities ``(linear, angular)`` after the step, ``r`` the contact
impulses in each contact's frame (normal into the first body, then two tangents),
``f = M v_0 + h F`` (gravity and seeded horizontal pushes over the step ``h``) and
``w_N = gap / h`` (a contact that is open by ``gap`` may close within the step); its
:meth:`~contactcp.problems.GlobalFrictionContactProblem.local` form is the local problem.
The contact velocity of contact ``i`` between bodies ``a`` (first) and ``b`` is
``u_i = F_i^T ((v_a + ω_a × (p_i − c_a)) − (v_b + ω_b × (p_i − c_b)))``, ``F_i = [n t_1 t_2]``
(the fixed ground and walls have no velocity unknowns).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.spatial import cKDTree

from contactcp._validate import integer, number, positive_int
from contactcp.errors import InvalidProblemError
from contactcp.models.contacts import contact_frame
from contactcp.models.system import skew
from contactcp.problems import GlobalFrictionContactProblem
from contactcp.problems.generators import Seed

__all__ = ["box_stack", "box_wall", "sphere_pile"]

GRAVITY = 9.81
#: largest number of bodies a generator builds (the problem's matrices stay sparse; this bounds time)
MAX_BODIES = 20000


@dataclass
class _Scene:
    """Bodies (centres, masses, inertias in the world frame) and contacts (bodies, point, frame, gap)."""

    centres: list
    masses: list
    inertias: list
    contacts: list  # (a, b, point, frame (3x3 columns n, t1, t2), gap); b = -1 for the fixed world

    def add_body(self, centre, mass, inertia) -> int:
        self.centres.append(np.asarray(centre, float))
        self.masses.append(float(mass))
        self.inertias.append(np.asarray(inertia, float))
        return len(self.centres) - 1


def _problem(scene: _Scene, mu, h: float, push: float, rng: np.random.Generator) -> GlobalFrictionContactProblem:
    nb, nc = len(scene.centres), len(scene.contacts)
    M = sp.block_diag(
        [sp.block_diag([m * np.eye(3), inertia]) for m, inertia in zip(scene.masses, scene.inertias)], format="csr"
    )
    rows, cols, vals = [], [], []
    w = np.zeros(3 * nc)
    for i, (a, b, p, F, gap) in enumerate(scene.contacts):
        for body, sign in ((a, 1.0), (b, -1.0)):
            if body < 0:
                continue
            J = sign * F.T @ np.hstack([np.eye(3), -skew(p - scene.centres[body])])  # 3 x 6
            r, c = np.nonzero(np.ones_like(J))
            rows.append(6 * body + c)
            cols.append(3 * i + r)
            vals.append(J[r, c])
        w[3 * i] = gap / h
    H = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(6 * nb, 3 * nc))
    force = np.zeros((nb, 6))
    force[:, 2] = -GRAVITY * np.asarray(scene.masses)
    force[:, :2] = push * GRAVITY * np.asarray(scene.masses)[:, None] * rng.standard_normal((nb, 2))
    v0 = np.zeros((nb, 6))
    v0[:, :3] = 0.01 * rng.standard_normal((nb, 3))
    f = M @ v0.reshape(-1) + h * force.reshape(-1)
    mu_arr = np.full(nc, mu[0]) if mu[0] == mu[1] else rng.uniform(mu[0], mu[1], nc)
    return GlobalFrictionContactProblem(M, H, f, w, mu_arr)


def _box_inertia(mass: float, size: np.ndarray) -> np.ndarray:
    sx, sy, sz = size
    return mass / 12.0 * np.diag([sy * sy + sz * sz, sx * sx + sz * sz, sx * sx + sy * sy])


def _face_contacts(scene: _Scene, a: int, b: int, lo: np.ndarray, hi: np.ndarray, z: float, gap: float) -> None:
    """Four contacts at the corners of the rectangle ``[lo, hi]`` (x, y) at height ``z``, normal +z into ``a``."""
    F = contact_frame(np.array([0.0, 0.0, 1.0]))
    for x in (lo[0], hi[0]):
        for y in (lo[1], hi[1]):
            scene.contacts.append((a, b, np.array([x, y, z]), F, gap))


def _check(n: int, name: str) -> int:
    n = integer(n, name)
    if not 1 <= n <= MAX_BODIES:
        raise InvalidProblemError(name, f"must be in [1, {MAX_BODIES}], got {n}")
    return n


def _mu_range(mu) -> tuple[float, float]:
    """``mu`` as a range ``(lo, hi)``: a number, or two numbers with ``0 <= lo <= hi``."""
    if isinstance(mu, (list, tuple, np.ndarray)):
        if len(mu) != 2:
            raise InvalidProblemError("mu", f"must be a number or a range (lo, hi), got {len(mu)} values")
        lo, hi = number(mu[0], "mu[0]"), number(mu[1], "mu[1]")
    else:
        lo = hi = number(mu, "mu")
    if not 0 <= lo <= hi < np.inf:
        raise InvalidProblemError("mu", f"must satisfy 0 <= lo <= hi < inf, got ({lo}, {hi})")
    return lo, hi


def _rng(seed) -> np.random.Generator:
    """The scene's random stream: a Generator as given, else a seed (an integer >= 0, or None)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(None if seed is None else positive_int(seed, "seed", minimum=0))


def _step(h: float, push: float) -> tuple[float, float]:
    h, push = number(h, "h"), number(push, "push")
    if not h > 0:
        raise InvalidProblemError("h", f"the time step must be > 0, got {h}")
    if push < 0:
        raise InvalidProblemError("push", f"must be >= 0, got {push}")
    return h, push


def box_stack(
    n_boxes: int = 10,
    columns: int = 1,
    mu=0.5,
    h: float = 1e-2,
    push: float = 0.2,
    seed: Seed = None,
) -> GlobalFrictionContactProblem:
    """``columns`` towers of ``n_boxes`` boxes each (sizes and offsets seeded), four corner contacts per face.

    ``mu`` is a number or a range ``(lo, hi)`` drawn per contact; ``push`` the size of the seeded
    horizontal forces in units of each body's weight (some contacts then slide).
    """
    n_boxes, columns = _check(n_boxes, "n_boxes"), _check(columns, "columns")
    _check(n_boxes * columns, "n_boxes * columns")
    h, push = _step(h, push)
    mu = _mu_range(mu)
    rng = _rng(seed)
    scene = _Scene([], [], [], [])
    for col in range(columns):
        base, below, lo_prev, hi_prev = 0.0, -1, None, None
        for _ in range(n_boxes):
            size = rng.uniform([0.08, 0.08, 0.04], [0.12, 0.12, 0.08])
            centre_xy = np.array([0.5 * col, 0.0]) + rng.uniform(-0.01, 0.01, 2)
            lo, hi = centre_xy - size[:2] / 2, centre_xy + size[:2] / 2
            centre = np.array([*centre_xy, base + size[2] / 2])
            mass = 500.0 * float(np.prod(size))
            k = scene.add_body(centre, mass, _box_inertia(mass, size))
            olo, ohi = (lo, hi) if below < 0 else (np.maximum(lo, lo_prev), np.minimum(hi, hi_prev))
            _face_contacts(scene, k, below, olo, ohi, base, abs(rng.normal(0.0, 1e-5)))
            base, below, lo_prev, hi_prev = base + size[2], k, lo, hi
    return _problem(scene, mu, h, push, rng)


def box_wall(
    rows: int = 6, bricks: int = 5, mu=0.5, h: float = 1e-2, push: float = 0.1, seed: Seed = None
) -> GlobalFrictionContactProblem:
    """A running-bond wall: each row offset by half a brick, so a brick rests on two (eight contacts)."""
    rows, bricks = _check(rows, "rows"), _check(bricks, "bricks")
    _check(rows * bricks, "rows * bricks")
    h, push = _step(h, push)
    mu = _mu_range(mu)
    rng = _rng(seed)
    size = np.array([0.2, 0.1, 0.05])
    scene = _Scene([], [], [], [])
    prev: list[tuple[int, np.ndarray, np.ndarray]] = []
    for row in range(rows):
        z0, shift = row * size[2], (size[0] / 2) * (row % 2)
        current = []
        for j in range(bricks):
            cx = shift + j * size[0] + rng.uniform(-0.002, 0.002)
            lo, hi = np.array([cx - size[0] / 2, -size[1] / 2]), np.array([cx + size[0] / 2, size[1] / 2])
            mass = 600.0 * float(np.prod(size))
            k = scene.add_body([cx, 0.0, z0 + size[2] / 2], mass, _box_inertia(mass, size))
            supports = [(-1, lo, hi)] if row == 0 else prev
            for b, blo, bhi in supports:
                olo, ohi = np.maximum(lo, blo), np.minimum(hi, bhi)
                if np.all(ohi - olo > 1e-3):
                    _face_contacts(scene, k, b, olo, ohi, z0, abs(rng.normal(0.0, 1e-5)))
            current.append((k, lo, hi))
        prev = current
    return _problem(scene, mu, h, push, rng)


def sphere_pile(
    n_spheres: int = 60, mu=0.3, h: float = 1e-2, push: float = 0.1, seed: Seed = None
) -> GlobalFrictionContactProblem:
    """Spheres (radii seeded) packed in a square container: contacts between spheres closer than a
    margin, and with the floor and walls (normals into the spheres)."""
    n = _check(n_spheres, "n_spheres")
    h, push = _step(h, push)
    mu = _mu_range(mu)
    rng = _rng(seed)
    side = max(2, int(np.ceil(np.sqrt(n / 3))))
    R0 = 0.05
    scene = _Scene([], [], [], [])
    radii = R0 * rng.uniform(0.97, 1.0, n)
    centres = []
    for k in range(n):
        layer, cell = divmod(k, side * side)
        ix, iy = divmod(cell, side)
        c = np.array([(2 * ix + 1) * R0, (2 * iy + 1) * R0, (2 * layer + 1) * R0 * 0.95]) + rng.uniform(-1e-3, 1e-3, 3)
        mass = 1000.0 * 4.0 / 3.0 * np.pi * radii[k] ** 3
        centres.append(c)
        scene.add_body(c, mass, 0.4 * mass * radii[k] ** 2 * np.eye(3))
    margin = 0.1 * R0
    walls = [(np.array([0.0, 0.0, 1.0]), 0.0)]
    walls += [(np.array(e), 0.0) for e in ([1.0, 0, 0], [0, 1.0, 0])]
    walls += [(-np.array(e), -2 * side * R0) for e in ([1.0, 0, 0], [0, 1.0, 0])]
    for k, c in enumerate(centres):
        for nrm, off in walls:  # the wall {x : n . x = off}, spheres on its positive side
            gap = float(nrm @ c) - off - radii[k]
            if gap < margin:
                scene.contacts.append((k, -1, c - radii[k] * nrm, contact_frame(nrm), max(gap, 0.0)))
    for j, k in sorted(cKDTree(np.array(centres)).query_pairs(2 * R0 + margin)):
        d = centres[k] - centres[j]
        dist = float(np.linalg.norm(d))
        gap = dist - radii[k] - radii[j]
        if gap < margin:
            nrm = d / dist
            scene.contacts.append((k, j, centres[k] - radii[k] * nrm, contact_frame(nrm), max(gap, 0.0)))
    return _problem(scene, mu, h, push, rng)

"""The LP-based bilinear method for the UCP (Pang, Trinkle & Lo 1994, Section 4).

Minimise ``x . y`` over ``X x Y`` by alternating linear programs over vertices:

* Step 0: a vertex of each polyhedron (two LPs with zero objective);
* Step 1: ``x+ = argmin_{x in X} x . y``, then ``y+ = argmin_{y in Y} y . x+``;
* Step 2: stop if ``x+ . y+ = 0``; repeat Step 1 while it strictly decreases;
  otherwise the pair is stationary;
* Step 3: look through the extreme points adjacent to the stationary pair,
  ``E(x) x E(y)`` (by pivoting from the current bases), for a pair with a
  smaller product and return to Step 1 from it; if there is none, move to a
  random adjacent pair (seeded) and repeat Step 3 (``variant="original"``), or
  return to Step 1 from it (``variant="modified"``, the restart variant of
  Table 1).

The method can stop at a stationary, non-complementary pair even when the UCP
has a solution; it reports why it stopped (``stats["stop"]``): ``complementary``,
``stationary`` (no adjacent extreme points to try), ``cycling`` (the random walk
keeps revisiting pairs), ``limit`` (restart or pair cap) or ``empty`` (X or Y
has no point, with a Farkas proof).
"""

from __future__ import annotations

import numpy as np

from contactcp.linalg.lp import Farkas, Polyhedron, Vertex
from contactcp.problems import UCP
from contactcp.result import Certificate, Status
from contactcp.solvers.registry import Raw, choice, integer, real, register


def empty_certificate(poly: Polyhedron, which: str) -> Certificate | None:
    """A verified certificate that polyhedron ``which`` (``"X"`` or ``"Y"``) is empty."""
    f: Farkas | None = poly.farkas()  # only vectors that passed the exact check on the caller's rows
    if f is None:
        return None
    return Certificate(
        kind="farkas_polyhedron",
        vector=f.u,
        description=f"{which} is empty: u with A^T u >= 0 and b^T u < 0 (Farkas' lemma) "
        f"on the rows of A_{which.lower()}, b_{which.lower()}, signs checked exactly",
        checks={"min_ATu": f.min_ATu, "bTu": f.bTu},
        verified=True,
        exact=f.exact,
    )


def polyhedra(problem: UCP) -> tuple[Polyhedron, Polyhedron]:
    return Polyhedron(problem.A_x, problem.b_x, "X"), Polyhedron(problem.A_y, problem.b_y, "Y")


def _xy_small(x: np.ndarray, y: np.ndarray, xy_tol: float) -> bool:
    return float(x @ y) <= xy_tol * max(1.0, float(np.abs(x).max(initial=0))) * max(
        1.0, float(np.abs(y).max(initial=0))
    )


def _adjacent_pairs(X: Polyhedron, Y: Polyhedron, vx: Vertex, vy: Vertex):
    """Step 3: the pair itself and its adjacent extreme points, and the pair of smallest ``x . y``
    other than the current one: ``(Ex, Ey, (i, j), value)``."""
    Ex = [vx] + X.adjacent(vx)
    Ey = [vy] + Y.adjacent(vy)
    F = np.array([e.x for e in Ex]) @ np.array([e.x for e in Ey]).T
    F[0, 0] = np.inf  # the current pair itself
    i, j = np.unravel_index(np.argmin(F), F.shape)
    return Ex, Ey, (int(i), int(j)), float(F[i, j])


def _random_pair(rng: np.random.Generator, Ex: list, Ey: list) -> tuple[Vertex, Vertex]:
    """A random adjacent pair other than the current one (index 0, 0)."""
    while True:
        i, j = int(rng.integers(len(Ex))), int(rng.integers(len(Ey)))
        if (i, j) != (0, 0):
            return Ex[i], Ey[j]


@register(
    "bilinear",
    UCP,
    default=True,
    description="Pang–Trinkle–Lo LP-based bilinear method (alternating LPs, adjacent extreme points)",
    options={
        "variant": choice("original", "modified"),
        "seed": integer(0),
        "max_restarts": integer(0),
        "max_pairs": integer(1),
        "max_walk": integer(1),
        "xy_tol": real(0.0, 1.0, hi_open=True),
    },
)
def bilinear(
    problem: UCP,
    tol: float,
    *,
    variant: str = "original",
    seed: int = 0,
    max_restarts: int = 20,
    max_pairs: int = 500,
    max_walk: int = 50,
    xy_tol: float = 1e-10,
) -> Raw:
    """Options
    -------
    variant : ``"original"`` (Step 3 repeats from a random adjacent pair) or
        ``"modified"`` (Step 1 restarts from it)
    seed : seed of the random choices in Step 3
    max_restarts : returns to Step 1 from a random pair (the paper stopped after 20)
    max_pairs : cap on the number of (x, y) pairs generated
    max_walk : consecutive random Step-3 moves without improvement before declaring cycling
    xy_tol : stop when ``x . y <= xy_tol * max(1, |x|_inf) * max(1, |y|_inf)``
    """
    X, Y = polyhedra(problem)
    rng = np.random.default_rng(seed)
    stats = {"variant": variant, "pairs": 0, "lps": 0, "step3": 0, "restarts": 0, "best_xy": np.inf}

    def finish(status, stop, vx, vy, msg, cert=None):
        stats["lps"] = X.lps + Y.lps
        stats["stop"] = stop
        x = None if vx is None else vx.x
        y = None if vy is None else vy.x
        return Raw(x, status, stats["pairs"], msg, w=y, certificate=cert, stats=stats)

    vx, vy = X.minimize(), Y.minimize()  # Step 0
    if vx is None or vy is None:
        which, poly = ("X", X) if vx is None else ("Y", Y)
        cert = empty_certificate(poly, which)
        status = Status.NO_SOLUTION if cert is not None else Status.NUMERICAL_FAILURE
        return finish(status, "empty", None, None, f"{which} is empty, so the UCP has no solution", cert)

    best = (float(vx.x @ vy.x), vx, vy)
    visits: dict[bytes, int] = {}

    def record(ax: Vertex, ay: Vertex) -> float:
        nonlocal best
        stats["pairs"] += 1
        f = float(ax.x @ ay.x)
        if f < best[0]:
            best = (f, ax, ay)
        stats["best_xy"] = best[0]
        return f

    f = float(vx.x @ vy.x)
    if _xy_small(vx.x, vy.x, xy_tol):
        stats["best_xy"] = f
        return finish(Status.SOLVED, "complementary", vx, vy, "the initial pair is complementary")
    while True:
        # ---- Step 1: alternating LPs ----
        nx = X.minimize(vy.x)
        ny = Y.minimize(nx.x)
        fn = record(nx, ny)
        if _xy_small(nx.x, ny.x, xy_tol):
            return finish(Status.SOLVED, "complementary", nx, ny, "complementary pair found")
        if stats["pairs"] >= max_pairs:
            return finish(Status.ITERATION_LIMIT, "limit", *best[1:], f"pair limit {max_pairs} reached")
        decreased = fn < f - 1e-12 * max(1.0, f)
        vx, vy, f = nx, ny, fn
        if decreased:
            continue
        # ---- Step 3: adjacent extreme points of the stationary pair ----
        walk = 0
        while True:
            stats["step3"] += 1
            Ex, Ey, (i, j), fij = _adjacent_pairs(X, Y, vx, vy)
            if fij < f - 1e-12 * max(1.0, f):
                vx, vy = Ex[i], Ey[j]
                f = record(vx, vy)
                if _xy_small(vx.x, vy.x, xy_tol):
                    return finish(
                        Status.SOLVED, "complementary", vx, vy, "complementary pair found among adjacent extreme points"
                    )
                break  # back to Step 1
            if len(Ex) * len(Ey) <= 1:
                return finish(
                    Status.STATIONARY_NOT_SOLUTION,
                    "stationary",
                    *best[1:],
                    "stationary pair with no adjacent extreme points to try",
                )
            vx, vy = _random_pair(rng, Ex, Ey)  # no improving neighbour: a random adjacent pair
            f = record(vx, vy)
            key = vx.x.round(9).tobytes() + vy.x.round(9).tobytes()
            visits[key] = visits.get(key, 0) + 1
            if stats["pairs"] >= max_pairs:
                return finish(Status.ITERATION_LIMIT, "limit", *best[1:], f"pair limit {max_pairs} reached")
            if variant == "modified":
                stats["restarts"] += 1
                if stats["restarts"] > max_restarts:
                    return finish(
                        Status.STATIONARY_NOT_SOLUTION,
                        "limit",
                        *best[1:],
                        f"Step 1 restarted {max_restarts} times without a complementary pair",
                    )
                break  # back to Step 1 from the random pair
            walk += 1
            if walk >= max_walk or visits[key] >= 3:
                return finish(
                    Status.STATIONARY_NOT_SOLUTION,
                    "cycling",
                    *best[1:],
                    "the random walk of Step 3 keeps revisiting pairs (cycling)",
                )

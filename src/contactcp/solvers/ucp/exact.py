"""An exact method for the UCP: branch-and-bound over complementarity pairs with LP pruning.

Every solution of the UCP has ``x_i = 0`` or ``y_i = 0`` for each pair ``i``, so
splitting a node on a pair into ``{x_i = 0}`` and ``{y_i = 0}`` loses no
solution.  A node is the pair of faces ``X_F = X ∩ {x_Fx = 0}`` and
``Y_F = Y ∩ {y_Fy = 0}``; because X and Y are uncoupled, it is pruned exactly
when one of the two faces is empty, which an LP decides and a Farkas vector
proves (``u`` with ``A[:, free]^T u >= 0``, ``b^T u < 0``, checked
independently).  In each node a few alternating LPs of the bilinear method
(Step 1, restricted to the faces) look for a complementary pair and pick the
branching pair (largest ``x_i y_i``).

So the method *decides* existence for every instance it finishes: it returns a
complementary pair, or ``NO_SOLUTION`` whose certificate is the search tree —
every leaf closed by a checked Farkas vector.  No big-M constants are used, so
unbounded X and Y are fine.
"""

from __future__ import annotations

import time

import numpy as np

from contactcp.linalg.lp import Farkas, Polyhedron
from contactcp.problems import UCP
from contactcp.result import Certificate, Status
from contactcp.solvers.registry import Raw, integer, real, register
from contactcp.solvers.ucp.bilinear import _xy_small, empty_certificate, polyhedra


class _Faces:
    """Memo of the faces already proven empty (a superset of an empty face's zeros is empty)."""

    def __init__(self, poly: Polyhedron):
        self.poly = poly
        self.empty: list[tuple[np.ndarray, Farkas]] = []

    def known_empty(self, fixed: np.ndarray) -> bool:
        return any(np.all(fixed[f]) for f, _ in self.empty)

    def prove_empty(self, fixed: np.ndarray) -> bool:
        """Record a checked Farkas proof for the empty face; False if no proof could be made."""
        cert = self.poly.farkas(fixed)  # only vectors that passed the exact check
        if cert is None:
            return False
        self.empty.append((np.flatnonzero(fixed), cert))
        return True


@register(
    "exact",
    UCP,
    description="branch-and-bound over complementarity pairs with LP pruning "
    "(decides existence; Farkas-certified tree)",
    options={
        "max_nodes": integer(1),
        "time_limit": real(0.0, lo_open=True, none=True),
        "alternations": integer(0),
        "xy_tol": real(0.0, 1.0, hi_open=True),
    },
)
def exact(
    problem: UCP,
    tol: float,
    *,
    max_nodes: int = 100000,
    time_limit: float | None = None,
    alternations: int = 3,
    xy_tol: float = 1e-10,
) -> Raw:
    """Options
    -------
    max_nodes : node limit (then ``ITERATION_LIMIT``: existence undecided)
    time_limit : seconds (then ``ITERATION_LIMIT``)
    alternations : bilinear Step-1 alternations per node (the search heuristic)
    xy_tol : complementarity test ``x . y <= xy_tol * max(1,|x|) * max(1,|y|)``
    """
    t0 = time.perf_counter()
    X, Y = polyhedra(problem)
    n = problem.n
    stats = {"nodes": 0, "leaves_x_empty": 0, "leaves_y_empty": 0, "max_depth": 0, "lps": 0}

    def done(status, x, y, msg, cert=None):
        stats["lps"] = X.lps + Y.lps
        return Raw(x, status, stats["nodes"], msg, w=y, certificate=cert, stats=stats)

    for poly, name in ((X, "X"), (Y, "Y")):
        if poly.minimize() is None:
            cert = empty_certificate(poly, name)
            return done(
                Status.NO_SOLUTION if cert else Status.NUMERICAL_FAILURE,
                None,
                None,
                f"{name} is empty, so the UCP has no solution",
                cert,
            )
    fx_faces, fy_faces = _Faces(X), _Faces(Y)
    unproven = 0
    # DFS; a node is (fixed-zero mask on x, fixed-zero mask on y, a y to aim x at, depth)
    stack = [(np.zeros(n, bool), np.zeros(n, bool), np.zeros(n), 0)]
    while stack:
        if stats["nodes"] >= max_nodes or (time_limit is not None and time.perf_counter() - t0 > time_limit):
            return done(
                Status.ITERATION_LIMIT,
                None,
                None,
                f"search stopped after {stats['nodes']} nodes with {len(stack)} open: existence undecided",
            )
        fx, fy, aim, depth = stack.pop()
        stats["nodes"] += 1
        stats["max_depth"] = max(stats["max_depth"], depth)
        if fx_faces.known_empty(fx) or fy_faces.known_empty(fy):
            continue
        vx = X.minimize(aim, fx, exact=False)
        if vx is None:
            stats["leaves_x_empty"] += 1
            unproven += not fx_faces.prove_empty(fx)
            continue
        vy = Y.minimize(vx.x, fy, exact=False)
        if vy is None:
            stats["leaves_y_empty"] += 1
            unproven += not fy_faces.prove_empty(fy)
            continue
        f = float(vx.x @ vy.x)
        for _ in range(alternations):
            if _xy_small(vx.x, vy.x, xy_tol):
                break
            nx = X.minimize(vy.x, fx, exact=False)
            ny = Y.minimize(nx.x, fy, exact=False)
            fn = float(nx.x @ ny.x)
            if fn >= f - 1e-12 * max(1.0, f):
                break
            vx, vy, f = nx, ny, fn
        if _xy_small(vx.x, vy.x, xy_tol):
            px, py = X.polish(vx), Y.polish(vy)  # exact vertex values from their supports
            return done(Status.SOLVED, px.x, py.x, f"complementary pair found at node {stats['nodes']}")
        sx = vx.x / max(1.0, float(vx.x.max()))
        sy = vy.x / max(1.0, float(vy.x.max()))
        prod = np.where(fx | fy, -1.0, sx * sy)
        i = int(np.argmax(prod))
        if prod[i] <= 0:  # every positive product sits on an already fixed pair: cannot happen
            return done(Status.NUMERICAL_FAILURE, vx.x, vy.x, "branching found no pair to split")
        cx, cy = fx.copy(), fy.copy()
        cx[i] = True
        cy[i] = True
        # explore first the child that zeroes the (relatively) smaller side
        first, second = ((cx, fy, vy.x), (fx, cy, vy.x)) if sx[i] <= sy[i] else ((fx, cy, vy.x), (cx, fy, vy.x))
        stack.append((*second, depth + 1))
        stack.append((*first, depth + 1))
    nleaves = stats["leaves_x_empty"] + stats["leaves_y_empty"]
    cert = Certificate(
        kind="branch_and_bound",
        vector=np.zeros(0),
        description=(
            f"search tree of {stats['nodes']} nodes over the complementarity pairs; each of its "
            f"{nleaves} leaves is an empty face of X or Y proved by a Farkas vector checked "
            "independently (A[:, free]^T u >= 0, b^T u < 0)"
        ),
        checks={"nodes": float(stats["nodes"]), "leaves": float(nleaves), "unproven_leaves": float(unproven)},
        verified=unproven == 0,
    )
    return done(Status.NO_SOLUTION, None, None, "every branch closed: the UCP has no solution", cert)

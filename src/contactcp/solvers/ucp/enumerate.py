"""Enumeration for the UCP, in the spirit of Trinkle & Zeng's enumerative method.

A *pattern* fixes, for every complementarity pair, which side is zero; X and Y
being uncoupled, the pattern admits a solution exactly when the two faces
``X ∩ {x_Fx = 0}`` and ``Y ∩ {y_Fy = 0}`` are both nonempty (two LPs).

For the UCP of a quasistatic contact problem the patterns are the contact-mode
vectors: each contact rolls (``v_n = v_t+ = v_t- = 0``), slides in +t
(``v_n = v_t- = 0, s_t+ = 0``, ``v_t+ > 0``), slides in -t (``v_n = v_t+ = 0,
s_t- = 0``, ``v_t- > 0``) or breaks (``c_n = 0``, hence ``s_t+- = 0``;
``v_n > 0``), so ``4^n_c`` candidates.  A generic UCP enumerates the ``2^n``
patterns of its pairs.  Each feasible candidate yields one representative
solution in which the mode's strict inequalities hold (a convex combination of
an LP maximising the smallest of them), with flags telling whether the
velocities and the forces are unique within that mode.
"""

from __future__ import annotations

import itertools

import numpy as np

from contactcp.errors import InvalidOptionError
from contactcp.problems import UCP
from contactcp.result import Certificate, Status
from contactcp.solvers.registry import Raw, integer, real, register
from contactcp.solvers.ucp.bilinear import empty_certificate, polyhedra

MODES = ("R", "S+", "S-", "B")


def contact_patterns(n_c: int):
    """``(modes, fx, fy, strict_x)`` for every contact-mode vector (x, y ordered as in
    :mod:`contactcp.formulations.quasistatic_ucp`)."""
    for modes in itertools.product(MODES, repeat=n_c):
        fx = np.zeros(3 * n_c, bool)
        fy = np.zeros(3 * n_c, bool)
        strict = []
        for i, m in enumerate(modes):
            vn, vp, vm = i, n_c + i, 2 * n_c + i
            if m == "R":
                fx[[vn, vp, vm]] = True
            elif m == "S+":
                fx[[vn, vm]] = True
                fy[vp] = True
                strict.append(vp)
            elif m == "S-":
                fx[[vn, vp]] = True
                fy[vm] = True
                strict.append(vm)
            else:  # B
                fy[[vn, vp, vm]] = True
                strict.append(vn)
        yield modes, fx, fy, strict


def pair_patterns(n: int):
    """``(pattern, fx, fy, [])``: for each pair, ``x_i = 0`` (0) or ``y_i = 0`` (1)."""
    for bits in itertools.product((0, 1), repeat=n):
        b = np.array(bits, bool)
        yield bits, ~b, b, []


def _ucp_count(problem: UCP) -> int:
    n_c = getattr(problem, "n_c", None)
    return 4**n_c if n_c is not None else 2**problem.n


def _enumerate_applies(problem: UCP) -> str:
    count = _ucp_count(problem)
    return "" if count <= 300000 else f"{count} candidate patterns (max_candidates = 300000 by default)"


@register(
    "enumerate",
    UCP,
    description="all contact-mode vectors (4^n_c) or pair patterns (2^n): "
    "every solution mode, uniqueness flags, candidate count",
    options={"max_candidates": integer(1), "strict_tol": real(0.0, 1.0, hi_open=True)},
    applies=_enumerate_applies,
)
def enumerate_ucp(problem: UCP, tol: float, *, max_candidates: int = 300000, strict_tol: float = 1e-9) -> Raw:
    """Options
    -------
    max_candidates : refuse problems with more candidate patterns than this
    strict_tol : a mode's strict inequality must be attainable above this (relative)
    """
    n_c = getattr(problem, "n_c", None)
    count = _ucp_count(problem)
    if count > max_candidates:
        raise InvalidOptionError(
            "max_candidates", f"this problem has {count} candidate patterns; raise max_candidates to enumerate them"
        )
    X, Y = polyhedra(problem)
    for poly, name in ((X, "X"), (Y, "Y")):
        if poly.minimize() is None:
            cert = empty_certificate(poly, name)
            return Raw(
                None,
                Status.NO_SOLUTION if cert else Status.NUMERICAL_FAILURE,
                0,
                f"{name} is empty",
                certificate=cert,
                stats={"candidates": 0, "solutions": []},
            )
    patterns = contact_patterns(n_c) if n_c is not None else pair_patterns(problem.n)
    sols = []
    tested = 0
    x_ok: dict[bytes, object] = {}
    y_ok: dict[bytes, object] = {}
    for label, fx, fy, strict in patterns:
        tested += 1
        ky = fy.tobytes()
        if ky not in y_ok:
            y_ok[ky] = Y.minimize(None, fy)
        vy = y_ok[ky]
        if vy is None:
            continue
        kx = fx.tobytes() + np.array(strict, dtype=np.int64).tobytes()
        if kx not in x_ok:
            x_ok[kx] = _representative(X, fx, strict, strict_tol)
        x = x_ok[kx]
        if x is None:
            continue
        sols.append(
            {"pattern": list(label), "x": x, "y": vy.x, "x_unique": X.singleton(fx), "y_unique": Y.singleton(fy)}
        )
    stats = {"candidates": tested, "solutions": sols, "lps": X.lps + Y.lps}
    if not sols:
        # the patterns were rejected on LP verdicts; the proof of "no solution" is the exact
        # method's tree of checked Farkas vectors (its own pruning, independent of this search)
        from contactcp.solvers.ucp.exact import exact

        proof = exact(problem, tol)
        stats["lps"] += proof.stats.get("lps", 0) if proof.stats else 0
        if proof.status is Status.NO_SOLUTION and proof.certificate is not None and proof.certificate.verified:
            c = proof.certificate
            cert = Certificate(
                kind=c.kind,
                vector=c.vector,
                checks={**c.checks, "candidates": float(tested)},
                description=f"all {tested} candidate patterns tested, none admits a solution; proof: {c.description}",
                verified=True,
            )
            return Raw(
                None,
                Status.NO_SOLUTION,
                tested,
                "no candidate pattern admits a solution",
                certificate=cert,
                stats=stats,
            )
        return Raw(
            None,
            Status.INACCURATE,
            tested,
            f"no candidate pattern admits a solution, but no checked proof could be made "
            f"(exact method: {proof.status.name}, {proof.message})",
            stats=stats,
        )
    first = sols[0]
    return Raw(
        first["x"],
        Status.SOLVED,
        tested,
        f"{len(sols)} solution mode(s) among {tested} candidates",
        w=first["y"],
        stats=stats,
    )


def _representative(X, fx, strict, strict_tol):
    """A point of the face ``x[fx] = 0`` with every ``x_j, j in strict`` positive, or None."""
    if not strict:
        v = X.minimize(None, fx)
        return None if v is None else v.x
    return X.strictly_positive(strict, fx, strict_tol)

"""What every solver returns: a status, the answer, and an independent residual.

The residual attached to a :class:`Result` is always computed by the problem's
own ``residual`` method from the returned point, never by the solver, and a
result is :attr:`~Result.success` only when that residual is within ``tol``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "Status",
    "Residual",
    "Certificate",
    "Result",
    "SOLVED_STATUSES",
    "INFEASIBLE_STATUSES",
    "INCONCLUSIVE_STATUSES",
]


class Status(enum.Enum):
    """Outcome of a solve (names in the style of cvxpy's statuses)."""

    SOLVED = "solved"
    """A point was found and its independent residual is within tolerance."""
    NO_SOLUTION = "no_solution"
    """The problem has no solution; ``certificate`` holds the proof when the method gives one."""
    RAY_TERMINATION = "ray_termination"
    """A pivoting method ended on a ray without a proof of infeasibility: no conclusion."""
    INACCURATE = "inaccurate"
    """The method converged by its own criterion but the independent residual is above tolerance."""
    ITERATION_LIMIT = "iteration_limit"
    """The iteration (pivot, restart, node) limit was reached."""
    STATIONARY_NOT_SOLUTION = "stationary_not_solution"
    """A merit-function method reached a stationary point whose merit value is not zero."""
    NUMERICAL_FAILURE = "numerical_failure"
    """Singular systems, breakdowns, or errors raised by a backend."""

    @property
    def name(self) -> str:
        """The member's name (a plain property: the enum's own descriptor took twice as long to read,
        90 against 40 ns, on every result of a time-stepping loop)."""
        return self._name_

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.name


SOLVED_STATUSES = frozenset({Status.SOLVED})
INFEASIBLE_STATUSES = frozenset({Status.NO_SOLUTION})
INCONCLUSIVE_STATUSES = frozenset(set(Status) - SOLVED_STATUSES - INFEASIBLE_STATUSES)


class Residual(NamedTuple):
    """How far a candidate point is from solving a problem.

    ``value`` is the number compared with a tolerance.  For the linear problems every row is
    measured in its own scale, ``s_i = max(|q_i|, sum_j |M_ij| min(|z_j|, Z_j))`` with
    ``Z_j = max_i |q_i| / max_i |M_ij|`` (the size of the row's terms, each unknown counted at most
    at the size where its column's terms reach the size of the data ``q``; the same with ``A``,
    ``b`` for the equations of a UCP): ``value = max_i |min(z_i, w_i / s_i)|`` (the natural map of
    the row-equilibrated problem; ``|w_i| / s_i`` on equation rows, ``|z_i - mid(l_i, u_i, z_i -
    w_i / s_i)|`` for a box LCP), where ``w_i`` is the *exact* value of ``(M z + q)_i``: it is
    computed in doubled precision (compensated products and sums) and ``value`` is the largest value
    its error bound allows, so rounding can never hide a violation; rows that floating point cannot
    bound tightly (huge terms, overflow) are evaluated in rational arithmetic.  A row's scale never
    exceeds the size of its data at the data's own size of ``z``, so a huge ``z`` cannot hide ``w < 0`` (an infeasible
    LCP is never "solved" far out along a ray); a row with small data or small terms is measured in
    its own units, not excused by large data elsewhere; and multiplying a row by a number does not
    change the measure.
    ``natural`` is the raw infinity norm of the natural map (``min(z, w)`` for an LCP,
    ``z - mid(l, u, z - w)`` for a box LCP, ``min(x, y)`` for a UCP), ``equation`` the raw infinity
    norm of the equations that must hold exactly (free rows of a mixed problem, ``A x = b`` of a
    UCP), ``scale`` the largest row scale.  The parts ``z_violation`` (largest negative part of the
    complementarity variables), ``w_violation`` (same for their partners) and ``complementarity``
    (``|z . w|``) are reported unscaled for diagnosis.  The friction-contact problem uses the
    measure of the friction-contact literature instead (see
    :class:`~contactcp.problems.FrictionContactProblem`).
    """

    value: float
    natural: float
    z_violation: float
    w_violation: float
    complementarity: float
    equation: float
    scale: float

    def ok(self, tol: float) -> bool:
        """True when the scaled residual is within ``tol``."""
        return bool(self.value <= tol)

    def as_dict(self) -> dict[str, float]:
        return {k: float(v) for k, v in self._asdict().items()}


@dataclass(frozen=True)
class Certificate:
    """A checkable proof that a problem has no solution.

    ``kind`` names the theorem (e.g. ``"farkas"``: a vector ``y >= 0`` with
    ``M^T y <= 0`` and ``q^T y < 0`` shows that ``{z >= 0 : M z + q >= 0}`` is
    empty).  ``vector`` is the proof's vector in floats; ``exact`` is None when
    those floats satisfy the proof's inequalities exactly, and otherwise the
    rational vector (a tuple of :class:`fractions.Fraction`) that the proof is
    about, so that anyone can re-check it in rational arithmetic.  ``checks``
    holds the measured quantities the proof rests on, and ``verified`` says
    whether it was proved when the certificate was made
    (``problem.check_certificate`` re-checks ``vector`` or ``exact``).
    """

    kind: str
    vector: np.ndarray
    description: str
    checks: dict[str, float] = field(default_factory=dict)
    verified: bool = False
    exact: tuple[Fraction, ...] | None = None


@dataclass(slots=True)
class Result:
    """The answer of :func:`contactcp.solve`.

    ``x`` holds the problem's primary unknowns (``z`` for an LCP, the full
    vector for mixed problems, ``(x, y)`` stacked for a UCP) and ``w`` their
    complementary partners where that applies.
    """

    x: np.ndarray | None
    status: Status
    residual: Residual | None
    method: str
    tol: float
    iterations: int = 0
    time: float = 0.0
    message: str = ""
    w: np.ndarray | None = None
    certificate: Certificate | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        """True only when the status is SOLVED (which implies residual <= tol)."""
        return self.status in SOLVED_STATUSES

    @property
    def nit(self) -> int:
        """Alias of ``iterations`` (scipy.optimize spelling)."""
        return self.iterations

    def __repr__(self) -> str:
        res = "n/a" if self.residual is None else f"{self.residual.value:.3e}"
        return (
            f"Result(status={self.status.name}, method={self.method!r}, "
            f"residual={res}, iterations={self.iterations}, time={self.time:.3g}s)"
        )

    def summary(self) -> str:
        """A few readable lines for a terminal."""
        lines = [
            f"status:     {self.status.name}" + (" (success)" if self.success else ""),
            f"method:     {self.method}",
            f"message:    {self.message}",
            f"iterations: {self.iterations}",
            f"time:       {self.time:.3g} s",
        ]
        if self.residual is not None:
            r = self.residual
            lines.append(
                f"residual:   {r.value:.3e} (tol {self.tol:.1e}; natural {r.natural:.3e}, "
                f"|z.w| {r.complementarity:.3e}, scale {r.scale:.3g})"
            )
        if self.certificate is not None:
            c = self.certificate
            lines.append(f"certificate: {c.kind} ({'verified' if c.verified else 'NOT verified'}): {c.description}")
        if self.x is not None and self.x.size <= 12:
            lines.append(f"x:          {np.array2string(self.x, precision=6)}")
            if self.w is not None:
                lines.append(f"w:          {np.array2string(self.w, precision=6)}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (arrays as lists, status by name)."""

        def arr(a):
            return None if a is None else np.asarray(a, dtype=float).tolist()

        out: dict[str, Any] = {
            "status": self.status.name,
            "success": self.success,
            "residual": None if self.residual is None else float(self.residual.value),
            "iterations": int(self.iterations),
            "x": arr(self.x),
            "w": arr(self.w),
            "message": self.message,
            "method": self.method,
            "time": float(self.time),
            "tol": float(self.tol),
        }
        if self.residual is not None:
            out["residual_parts"] = self.residual.as_dict()
        if self.certificate is not None:
            out["certificate"] = {
                "kind": self.certificate.kind,
                "vector": arr(self.certificate.vector),
                "verified": self.certificate.verified,
                "description": self.certificate.description,
                "checks": {k: float(v) for k, v in self.certificate.checks.items()},
                "exact": (
                    None
                    if self.certificate.exact is None
                    else [f"{v.numerator}/{v.denominator}" for v in self.certificate.exact]
                ),
            }
        return out

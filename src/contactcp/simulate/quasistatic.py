"""One call from a planar quasistatic problem to certified motions (Pang–Trinkle–Lo 1994).

>>> from contactcp.scenarios.pang1994 import data_set
>>> from contactcp.simulate.quasistatic import solve_quasistatic
>>> out = solve_quasistatic(data_set(2), method="exact")
>>> out.status.name, out.solutions[0].mode_codes
('SOLVED', 'S+ S- S-')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from contactcp import settings
from contactcp.formulations.quasistatic_ucp import QuasistaticUCP, quasistatic_ucp
from contactcp.interpret.quasistatic import QuasistaticSolution, interpret_quasistatic
from contactcp.models.planar_quasistatic import PlanarQuasistaticProblem
from contactcp.result import Result
from contactcp.settings import DEFAULT_TOL
from contactcp.simulate.result import PipelineResult
from contactcp.solvers.registry import solve

__all__ = ["QuasistaticResult", "solve_quasistatic"]

#: relative tolerance of the independent check of conditions (2)-(10)
CHECK_TOL = settings.QUASISTATIC_CHECK_TOL


@dataclass(repr=False)
class QuasistaticResult(PipelineResult):
    """The UCP result plus the mechanics of every motion found.

    ``status`` follows :class:`~contactcp.simulate.result.PipelineResult`'s rule: the UCP result's
    status, downgraded to ``INACCURATE`` if any motion fails the independent check of (2)-(10) by
    more than ``check_tol``.  ``solutions`` has one motion for bilinear/exact and one per
    contact-mode vector for ``enumerate``.
    """

    problem: PlanarQuasistaticProblem
    ucp: QuasistaticUCP
    result: Result
    solutions: list[QuasistaticSolution] = field(default_factory=list)
    check_tol: float = CHECK_TOL

    def _checks_pass(self) -> bool:
        return all(s.ok(self.check_tol) for s in self.solutions)

    def stats(self) -> dict[str, Any]:
        """The method statistics the paper reports (pairs, LPs, best x.y) where they apply."""
        s = self.result.stats
        out = {
            k: s[k]
            for k in (
                "pairs",
                "lps",
                "best_xy",
                "stop",
                "variant",
                "nodes",
                "candidates",
                "step3",
                "restarts",
                "max_depth",
            )
            if k in s
        }
        if "best_xy" in out and out["best_xy"] == float("inf"):
            out["best_xy"] = None
        return out

    def _facts(self) -> dict[str, Any]:
        return {"contacts": self.problem.n_c, "motions": len(self.solutions), "residual": self.residual}

    def _extra_dict(self) -> dict[str, Any]:
        r = self.result
        out = {
            "solutions": [s.to_dict() for s in self.solutions],
            **self.stats(),
            "rank_P": self.ucp.rank_P,
            "rank_notes": list(self.ucp.rank_notes),
            "Z": self.ucp.z_method,
        }
        if r.certificate is not None:
            out["certificate"] = {
                "kind": r.certificate.kind,
                "verified": r.certificate.verified,
                "description": r.certificate.description,
            }
        return out

    def _details(self) -> list[str]:
        lines = [f"  {self.problem!r}"]
        st = self.stats()
        if st:
            lines.append("  " + ", ".join(f"{k}={v}" for k, v in st.items()))
        if self.result.certificate is not None:
            lines.append(f"  proof: {self.result.certificate.description}")
        for note in self.ucp.rank_notes:
            lines.append(f"  note: {note}")
        for k, s in enumerate(self.solutions):
            lines.append(
                f"  motion {k + 1}: modes [{s.mode_codes}]  max violation of (2)-(10) "
                f"{s.max_violation:.1e}  qdot {s.qdot.round(6).tolist()}"
            )
            lines.append(f"      c_n {s.c_n.round(6).tolist()}  c_t {s.c_t.round(6).tolist()}")
            lines.append(f"      v_n {s.v_n.round(6).tolist()}  v_t {s.v_t.round(6).tolist()}")
        return lines


def solve_quasistatic(
    problem: PlanarQuasistaticProblem,
    method: str | None = None,
    tol: float = DEFAULT_TOL,
    Z: str = "auto",
    check_tol: float = CHECK_TOL,
    **options: Any,
) -> QuasistaticResult:
    """Formulate ``problem`` as a UCP, solve it with ``method`` (``bilinear``, ``enumerate``
    or ``exact``; None: the UCP's default chain of :func:`contactcp.solve`, the bilinear method
    and then, if it is inconclusive, the exact one) and interpret every motion found."""
    ucp = quasistatic_ucp(problem, Z=Z)
    res = solve(ucp, method, tol=tol, **options)
    sols: list[QuasistaticSolution] = []
    if res.method == "enumerate" and res.stats.get("solutions"):
        for s in res.stats["solutions"]:
            q = interpret_quasistatic(problem, s["x"], s["y"])
            q.extra.update(
                velocities_unique=bool(s["x_unique"]),
                forces_unique=bool(s["y_unique"]),
                enumerated_modes=list(s["pattern"]),
            )
            sols.append(q)
    elif res.success:
        sols.append(interpret_quasistatic(problem, res.x, res.w))
    return QuasistaticResult(problem, ucp, res, sols, check_tol)

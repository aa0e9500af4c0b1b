"""Verdicts on one answer, by the harness's own exact code (never contactcp's residual or certificates)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np

from .case import Case
from .exact import box_residual, farkas_box, farkas_lcp, farkas_polyhedron, lcp_residual, ucp_residual
from .exact_nl import fc_residual, ncp_residual
from .oracle import LCP_MAX, UCP_MAX, lcp_solvable, ucp_solvable

__all__ = ["check_answer", "cross_check", "exact_residual", "oracle_verdict", "VECTOR_KINDS"]

VECTOR_KINDS = {"farkas", "farkas_polyhedron"}


def exact_residual(case: Case, x, w):
    """The contract's residual of the answer (a Fraction or Decimal), or None if there is no finite point."""
    d = case.data
    if x is None:
        return None
    x = [float(v) for v in np.asarray(x, dtype=float).reshape(-1)]
    if case.ptype in ("LCP", "MixedLCP"):
        return lcp_residual(d["M"], d["q"], x, d.get("free"))[0]
    if case.ptype == "BoxLCP":
        return box_residual(d["M"], d["q"], d["lower"], d["upper"], x)[0]
    if case.ptype == "UCP":
        if w is None:
            return None
        return ucp_residual(
            d["A_x"], d["b_x"], d["A_y"], d["b_y"], x, [float(v) for v in np.asarray(w, dtype=float).reshape(-1)]
        )[0]
    if case.ptype == "FrictionContact":
        return fc_residual(d["W"], d["q"], d["mu"], d["dim"], x)
    if case.ptype == "MixedNCP":
        return ncp_residual(d, x)
    raise ValueError(case.ptype)


def oracle_verdict(case: Case) -> str:
    """'solvable' / 'infeasible' decided exactly, or 'unknown' when too large for the oracle."""
    d = case.data
    if case.ptype in ("LCP", "MixedLCP"):
        nc = len(d["q"]) - int(np.sum(d["free"])) if "free" in d else len(d["q"])
        if nc <= LCP_MAX and len(d["q"]) <= LCP_MAX + 3:
            return "solvable" if lcp_solvable(d["M"], d["q"], d.get("free")) else "infeasible"
    if case.ptype == "UCP" and np.shape(d["A_x"])[1] <= UCP_MAX:
        return "solvable" if ucp_solvable(d["A_x"], d["b_x"], d["A_y"], d["b_y"]) else "infeasible"
    return "unknown"


def _certificate_check(case: Case, cert: dict) -> tuple[bool | None, str]:
    """True/False when the certificate carries a vector the harness can check; None otherwise."""
    d = case.data
    kind = cert.get("kind")
    vec = cert.get("exact")
    used = "exact"
    if vec is None:
        vec, used = cert.get("vector"), "vector"
    if vec is not None:
        vec = [v if isinstance(v, Fraction) else float(v) for v in np.asarray(vec, dtype=object).reshape(-1)]
    if kind == "farkas" and case.ptype in ("LCP", "MixedLCP"):
        ok, why = farkas_lcp(d["M"], d["q"], vec, d.get("free"))
        return ok, f"{used}: {why}"
    if kind == "farkas" and case.ptype == "BoxLCP":
        ok, why = farkas_box(d["M"], d["q"], d["lower"], d["upper"], vec)
        return ok, f"{used}: {why}"
    if kind == "farkas_polyhedron" and case.ptype == "UCP":
        whys = []
        for A, b, name in ((d["A_x"], d["b_x"], "X"), (d["A_y"], d["b_y"], "Y")):
            if vec is not None and len(vec) == len(b):
                ok, why = farkas_polyhedron(A, b, vec)
                if ok:
                    return True, f"{used}: {name} empty, exact"
                whys.append(f"{name}: {why}")
        return False, f"{used}: " + ("; ".join(whys) or "length matches neither polyhedron")
    if kind in VECTOR_KINDS:
        return False, f"kind {kind!r} on a {case.ptype}"
    return None, f"kind {kind!r} carries no vector"


def check_answer(case: Case, ans: dict, tol: float) -> dict:
    """ans: status, x, w, certificate (kind, vector, exact, verified) or exception -> verdict record."""
    rec = {"verdict": "ok", "detail": "", "exact_residual": None, "status": ans.get("status")}
    if ans.get("exception"):
        exc = ans["exception"]
        rec["verdict"] = "crash"
        rec["detail"] = f"{exc['type']}{' (contactcp error)' if exc['typed'] else ''}: {exc['message'][:300]}"
        return rec
    status = ans["status"]
    if status == "SOLVED":
        v = exact_residual(case, ans.get("x"), ans.get("w"))
        rec["exact_residual"] = None if v is None else float(v)
        rec["exact_zero"] = v == 0
        if v is None:
            rec["verdict"], rec["detail"] = "false_solved", "SOLVED without a finite point"
        elif (v > Fraction(tol)) if isinstance(v, Fraction) else (v > Decimal(tol)):
            rec["verdict"] = "false_solved"
            rec["detail"] = f"exact residual {float(v):.3e} > tol {tol:.0e} (library said {ans.get('residual'):.3e})"
        elif case.truth == "infeasible":
            rec["verdict"] = "false_solved"
            rec["detail"] = f"planted infeasible (margin {case.margin:.2e}) but exact residual {float(v):.3e}: harness?"
        return rec
    if status != "NO_SOLUTION":
        return rec
    cert = ans.get("certificate")
    if cert is None:
        rec["verdict"], rec["detail"] = "false_nosol", "NO_SOLUTION without a certificate"
        return rec
    ok, why = _certificate_check(case, cert)
    truth = case.truth
    if ok is None:  # no vector: the oracle or the planted truth decides
        if truth.startswith("infeasible"):
            rec["detail"] = f"{why}; planted infeasible"
            return rec
        verdict = "solvable" if truth == "solvable" else oracle_verdict(case)
        if verdict == "infeasible":
            rec["detail"] = f"{why}; the exact oracle confirms infeasibility"
        elif verdict == "solvable":
            rec["verdict"], rec["detail"] = (
                "false_nosol",
                f"{why}; the problem has a solution ({'planted' if truth == 'solvable' else 'exact oracle'})",
            )
        else:
            rec["verdict"], rec["detail"] = "unchecked", f"{why}; too large for the exact oracle"
        return rec
    if truth == "solvable":
        rec["verdict"] = "false_nosol"
        rec["detail"] = f"planted solvable; certificate check: {why}" + (
            " (a valid proof of a solvable problem: harness?)" if ok else ""
        )
        return rec
    if not ok:
        rec["verdict"] = "false_nosol"
        oracle = "infeasible" if truth.startswith("infeasible") else oracle_verdict(case)
        rec["detail"] = f"certificate fails the exact check ({why}); the problem is {oracle}" + (
            f"; library said verified={cert.get('verified')}"
        )
    else:
        rec["detail"] = why
        rec["proof_ok"] = True
    return rec


def cross_check(records: list[dict]) -> None:
    """Per problem: an 'unchecked' NO_SOLUTION is settled by another method's exactly checked Farkas
    vector (infeasible: ok) or by another method's point of exact residual 0 (solvable: false)."""
    by_key: dict[str, list[dict]] = {}
    for r in records:
        by_key.setdefault(r["key"], []).append(r)
    for rr in by_key.values():
        proofs = [r["method"] for r in rr if r.get("proof_ok")]
        exact = [r["method"] for r in rr if r.get("status") == "SOLVED" and r.get("exact_zero")]
        for r in rr:
            if r["verdict"] != "unchecked":
                continue
            if exact:
                r["verdict"] = "false_nosol"
                r["detail"] += f"; but {exact[0]} found a point of exact residual 0"
            elif proofs:
                r["verdict"] = "ok"
                r["detail"] += f"; infeasibility confirmed by {proofs[0]}'s exactly checked Farkas vector"

"""The three-PUMA-560-finger grasp (Buffo & Maciel 2006): time per solve of every method on the same states.

For each of the paper's cases (all contacts sliding: mu = 0.1, 0.2, 0.4, 0.5,
the LCP (45); all contacts initially rolling: mu = 0.1, 0.2, 0.4, 0.6, 0.8, the
mixed NCP (29)-(36)) the same contact state is solved by

* the merit method (eqs. (3)-(4)) with each backend: scipy ``least_squares``
  (trust-region reflective, analytic Jacobian) and L-BFGS-B;
* the second method of the issue: Lemke on the LCP (45) / semismooth Newton on
  the Coulomb-cone problem (the same law in another formulation);
* Lemke on the friction-pyramid LCP (a different friction law, for scale).

Reported: median time of ``solve`` on the assembled problem, the time of the
whole grasp solve (model assembly ``system.dynamics()`` + formulation + solve),
the merit value f reached, and the agreement of the merit answer with the
second method (largest force difference relative to the largest force).
Goals (issue): merit reaches f <= 1e-12 and agrees to 1e-6 relative on every
case; the grasp solve under 1 ms with the fastest method.  Writes
``benchmarks/results/grasp.md``.

    python benchmarks/grasp.py [--repeat 50] [--smoke]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import report  # noqa: E402  (benchmarks/report.py)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from contactcp.scenarios.buffo2006 import puma3_grasp  # noqa: E402
from contactcp.simulate.instant import solve_dynamic  # noqa: E402

CASES = [("sliding", mu) for mu in (0.1, 0.2, 0.4, 0.5)] + [("rolling", mu) for mu in (0.1, 0.2, 0.4, 0.6, 0.8)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "grasp.md")
    args = ap.parse_args(argv)
    cases = CASES[:1] + CASES[4:5] if args.smoke else CASES
    rep = 3 if args.smoke else args.repeat
    rows, goal_f, goal_agree, fastest, fastest_any = [], True, True, [], []
    polished = merit_runs = plain_ok = plain_runs = 0
    for state, mu in cases:
        grasp = puma3_grasp(mu, state)
        system = grasp.system
        cd = system.dynamics()
        second = ("mncp", "lemke") if state == "sliding" else ("cone", "newton")
        plain = {"polish": False, "multistart": 0}
        methods = [
            ("merit (trf)", "mncp", "merit", {"backend": "trf"}),
            ("merit (L-BFGS-B)", "mncp", "merit", {"backend": "lbfgsb"}),
            ("merit (trf, plain)", "mncp", "merit", {"backend": "trf", **plain}),
            ("merit (L-BFGS-B, plain)", "mncp", "merit", {"backend": "lbfgsb", **plain}),
            (f"{second[1]} ({'LCP (45)' if state == 'sliding' else 'cone'})", *second, {}),
            ("lemke (pyramid LCP)", "pyramid", "lemke", {}),
        ]
        ref = solve_dynamic(cd, friction=second[0], method=second[1], tol=1e-12)
        best, best_any = None, None
        for label, friction, method, opts in methods:
            out = solve_dynamic(cd, friction=friction, method=method, **opts)
            t_solve = report.median_seconds(lambda: solve_dynamic(cd, friction=friction, method=method, **opts), rep)
            t_all = report.median_seconds(lambda: solve_dynamic(system, friction=friction, method=method, **opts), rep)
            f = out.result.stats.get("final_f") if method == "merit" else None
            agree = (
                float(np.abs(out.c - ref.c).max() / np.abs(ref.c).max())
                if out.contacts and ref.contacts
                else float("nan")
            )
            if method == "merit" and "plain" not in label:
                goal_f &= bool(out.success and f is not None and f <= 1e-12)
                goal_agree &= bool(agree <= 1e-6)
                polished += bool(out.result.stats.get("polished"))
                merit_runs += 1
            elif method == "merit":
                plain_ok += bool(out.success and f is not None and f <= 1e-12)
                plain_runs += 1
            if out.success and friction != "pyramid" and (best is None or t_all < best[1]):
                best = (label, t_all)
            if out.success and (best_any is None or t_all < best_any[1]):
                best_any = (label, t_all)
            rows.append(
                [
                    state,
                    mu,
                    label,
                    out.status.name,
                    out.result.iterations,
                    "—" if f is None else f"{f:.1e}",
                    "—" if friction == "pyramid" else f"{agree:.1e}",
                    f"{1e3 * t_solve:.3f}",
                    f"{1e3 * t_all:.3f}",
                    " ".join(o.mode for o in out.contacts),
                    f"{out.max_violation:.0e}",
                ]
            )
            print(rows[-1], flush=True)
        fastest.append((state, mu, *best))
        fastest_any.append((state, mu, *best_any))
    lines = [
        "# The three-PUMA-560-finger grasp: every method on the same states",
        "",
        report.machine_line(),
        f"Command: `python benchmarks/grasp.py{' --smoke' if args.smoke else ''}`; median of {rep} runs.",
        "",
        "'solve' times `solve_dynamic` on the assembled contact state (formulation, solve, certification, "
        "the independent check, modes); 'grasp' adds the model assembly (`system.dynamics()`: pinocchio "
        "Jacobians, mass matrices, A = H^T M^-1 H). 'agrees' is the largest force difference from the "
        "second method (Lemke on the LCP (45) / Newton on the cone), relative to the largest force; "
        "'check' the independent check of the original conditions. The pyramid row solves a different "
        "friction law (the polyhedral one) and is shown for scale only.",
        "",
        "| contacts | mu | method | status | iterations | f | agrees (rel) | solve (ms) | grasp (ms) | modes | check |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    worst = max(t for *_, t in fastest)
    worst_any = max(t for *_, t in fastest_any)
    lines += [
        "",
        "## Goals",
        "",
        f"- merit reaches f <= 1e-12 on every case: **{'met' if goal_f else 'not met'}** with the "
        f'defaults of `method="merit"`, i.e. with contactcp\'s active-set Newton polish, which '
        f"finished {polished} of {merit_runs} runs, and seeded restarts; the library backends alone "
        f"(`polish=False, multistart=0`, the 'plain' rows) reach it in {plain_ok} of {plain_runs} runs "
        f"(trf's slow tail at degenerate solutions ends at its iteration cap, L-BFGS-B from x0 = 0 at "
        f"stationary points that are not solutions)",
        f"- merit agrees with the second method to 1e-6 relative: **{'met' if goal_agree else 'not met'}**",
        f"- grasp solve (assembly + solve) under 1 ms with the fastest method: slowest case "
        f"{1e3 * worst_any:.3f} ms — **{'met' if worst_any < 1e-3 else 'not met'}** "
        f"({', '.join(f'{s} {m:g}: {lab} {1e3 * t:.3f} ms' for s, m, lab, t in fastest_any)})",
        f"- the same with the fastest method of the Coulomb cone (the paper's law): slowest case "
        f"{1e3 * worst:.3f} ms — **{'under' if worst < 1e-3 else 'over'} 1 ms** "
        f"({', '.join(f'{s} {m:g}: {lab} {1e3 * t:.3f} ms' for s, m, lab, t in fastest)})",
    ]
    report.write(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The report: one table per form, the issue's goals measured, the findings, the performance profile."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

__all__ = ["label", "summarize", "table", "goal_lines", "finding_lines", "profile", "fmt_ms"]

DEFAULT = "ccp default"
GOALS = [
    "Every problem that any Siconos solver solves to 1e-8 in Siconos' measure (checked independently) is "
    "solved to 1e-8 by the default chain; the rock pile too.",
    "Default-chain time <= the fastest Siconos solver's on >= 80 % of the problems, geometric mean of the "
    "ratios <= 1.0, none above 3x; global problems likewise against Siconos' global solvers.",
]


def label(rec: dict) -> str:
    return ("ccp " if rec["backend"] == "contactcp" else "Siconos ") + rec["solver"]


def fmt_ms(t: float) -> str:
    """Seconds as milliseconds, three significant digits."""
    ms = t * 1e3
    return f"{ms:.3g}" if ms < 1000 else f"{ms:.0f}"


def cell(rec: dict | None) -> str:
    if rec is None:
        return "—"
    st = rec["status"]
    if st == "SOLVED":
        return fmt_ms(rec["time"])
    if st == "FAIL":
        res = rec.get("residual", float("inf"))
        eq = rec.get("equilibrium")
        txt = f"FAIL {res:.0e}" if math.isfinite(res) else "FAIL (no answer)"
        if eq is not None and math.isfinite(eq) and eq > 0 and eq > res:
            txt += f" (eq {eq:.0e})"
        return txt
    return st


def _by(recs: list[dict]) -> dict:
    return {(r["problem"], label(r)): r for r in recs}


def _fastest(problem: str, recs: list[dict]) -> tuple[float | None, str]:
    times = [(r["time"], r["solver"]) for r in recs if r["problem"] == problem]
    times = [(t, s) for t, s in times if t is not None]
    return min(times) if times else (None, "")


def summarize(entries: list, recs: list[dict]) -> dict:
    """The goals' numbers for one form (see :data:`GOALS`)."""
    by = _by(recs)
    sic = [r for r in recs if r["backend"] == "siconos" and r["status"] == "SOLVED"]
    out: dict = {"total": len(entries), "default": 0, "siconos": 0, "both": 0, "union": 0, "wins": 0}
    out.update(ratios={}, with_build={})
    out["measured"] = any(r["backend"] == "contactcp" and r["status"] != "SKIPPED" for r in recs)
    out["peers"] = any(r["backend"] == "siconos" for r in recs)
    out["rock"] = {}
    for e in entries:
        d = by.get((e.name, DEFAULT))
        ok = d is not None and d["status"] == "SOLVED"
        best, _ = _fastest(e.name, sic)
        out["default"] += ok
        out["siconos"] += best is not None
        out["both"] += ok and best is not None
        out["union"] += ok or best is not None
        if ok and best is not None:
            out["ratios"][e.name] = d["time"] / best
            out["with_build"][e.name] = (d["time"] + (d.get("build") or 0.0)) / best
        out["wins"] += ok and (best is None or d["time"] <= best)
        if "rockpile" in e.name.lower():
            out["rock"][e.name] = ok
    ratios = list(out["ratios"].values())
    out["geomean"] = float(np.exp(np.mean(np.log(ratios)))) if ratios else None
    out["max"] = max(ratios) if ratios else None
    out["fraction"] = out["wins"] / out["union"] if out["union"] else None
    wb = list(out["with_build"].values())
    out["geomean_build"] = float(np.exp(np.mean(np.log(wb)))) if wb else None
    out["max_build"] = max(wb) if wb else None
    return out


def table(form: str, entries: list, recs: list[dict], columns: list[str]) -> list[str]:
    by = _by(recs)
    sic = [r for r in recs if r["backend"] == "siconos"]
    extra = ["rank(W)/3n_c"] if form == "local" else ["n_v"]
    head = ["problem", "n_c", *extra, "fastest Siconos (ms)", *columns, "ccp build (ms)", "default / fastest Siconos"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for e in entries:
        best, who = _fastest(e.name, sic)
        if form == "local":
            ex = f"{e.rank_ratio:.2f}" if e.rank_ratio is not None else "—"
        else:
            ex = str(e.n_v)
        fast = f"{fmt_ms(best)} ({who})" if best is not None else "none solved"
        d = by.get((e.name, DEFAULT))
        ratio = f"{d['time'] / best:.3g}" if best is not None and d and d["status"] == "SOLVED" else "—"
        cells = [cell(by.get((e.name, c))) for c in columns]
        cells.append(fmt_ms(d["build"]) if d and d.get("build") is not None else "—")
        lines.append(f"| {e.name} | {e.n_c} | {ex} | {fast} | " + " | ".join(cells) + f" | {ratio} |")
    return lines


def _verdict(ok: bool | None) -> str:
    return "—" if ok is None else ("met" if ok else "**NOT met**")


def goal_lines(form: str, s: dict) -> list[str]:
    """The goals of issue 13 against one form's numbers."""
    if not s["measured"]:
        return [f"- {form}: contactcp was not run on these problems (see the table): goals not measured."]
    if not s["peers"]:
        return [
            f"- {form}: Siconos was not run: goals not measured (the default chain solves {s['default']} of "
            f"{s['total']} problems)."
        ]
    rock = ", ".join(f"{k}: {'solved' if v else 'NOT solved'}" for k, v in s["rock"].items()) or "no rock pile here"
    all_solved = s["both"] == s["siconos"] and all(s["rock"].values())
    gm, mx, fr = s["geomean"], s["max"], s["fraction"]
    return [
        f"- {form}: the default chain solves {s['default']} of {s['total']} problems; Siconos (any solver) solves "
        f"{s['siconos']}; the default chain solves {s['both']} of those {s['siconos']}; rock pile: {rock}. "
        f"Goal 1: {_verdict(all_solved)}.",
        f"- {form}: default time <= fastest Siconos on {s['wins']} of {s['union']} problems solved by either "
        "(one only the default chain solves counts for it) "
        f"({'—' if fr is None else f'{100 * fr:.0f} %'}; goal >= 80 %: {_verdict(None if fr is None else fr >= 0.8)}); "
        f"geometric mean of the ratios {'—' if gm is None else f'{gm:.3g}'} over {len(s['ratios'])} problems "
        f"(goal <= 1.0: {_verdict(None if gm is None else gm <= 1.0)}); largest ratio "
        f"{'—' if mx is None else f'{mx:.3g}'} (goal <= 3: {_verdict(None if mx is None else mx <= 3.0)}).",
        f"- {form}: with the construction of contactcp's problem object added to its time (column 'ccp build'): "
        f"geometric mean {_num(s['geomean_build'])}, largest ratio {_num(s['max_build'])}.",
    ]


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:.3g}"


def finding_lines(recs: list[dict]) -> list[str]:
    """Answers a solver called converged that fail the check; crashes; time-outs."""
    out = ["Claims are the solvers' own verdicts (contactcp: SOLVED; Siconos: info = 0, by its own measure)."]
    for r in recs:
        if r["status"] == "FAIL" and r.get("claimed"):
            eq = r.get("equilibrium")
            rel = r.get("relative")
            out.append(
                f"- {label(r)} on {r['problem']} ({r['form']}): claimed success ({r.get('message', '')}); the check "
                f"gives residual {r['residual']:.2e}"
                + (f", equilibrium {eq:.2e}" if eq is not None else "")
                + (f" (natural map / max(‖q‖, ‖r‖, ‖u‖) = {rel:.1e})" if rel is not None else "")
            )
    for r in recs:
        if r["status"] in ("ERROR", "TIMEOUT"):
            out.append(f"- {label(r)} on {r['problem']} ({r['form']}): {r['status']}: {r.get('note', '')}")
    return out if len(out) > 1 else [*out, "- none"]


def _profile_panel(ax, title: str, entries: list, recs: list[dict], columns: list[str]) -> None:
    import matplotlib

    by = _by(recs)
    T = np.full((len(entries), len(columns)), np.inf)
    for i, e in enumerate(entries):
        for j, c in enumerate(columns):
            r = by.get((e.name, c))
            if r is not None and r["status"] == "SOLVED":
                T[i, j] = max(r["time"], 1e-9)
    best = T.min(axis=1, initial=np.inf)
    R = np.full_like(T, np.inf)
    solved = np.isfinite(best)
    R[solved] = T[solved] / best[solved, None]
    finite = R[np.isfinite(R)]
    top = max(10.0, 2.0 * float(finite.max())) if finite.size else 10.0
    taus = np.logspace(0, math.log10(top), 400)
    colors = matplotlib.colormaps["tab20"]
    for j, c in enumerate(columns):
        frac = [(R[:, j] <= t).sum() / max(len(entries), 1) for t in taus]
        style = {"lw": 2.4 if c == DEFAULT else 1.3, "ls": "-" if "ccp" in c else "--", "color": colors(j % 20)}
        ax.step(taus, frac, where="post", label=c, **style)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("τ (time / best time on the problem)")
    ax.set_ylabel("fraction of problems solved within τ")
    ax.set_title(f"{title} ({len(entries)} problems)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")


def profile(path: Path, panels: list[tuple[str, list, list[dict], list[str]]]) -> Path:
    """Dolan–Moré performance profiles, one panel per form."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 5), squeeze=False)
    for ax, (title, entries, recs, columns) in zip(axes[0], panels):
        _profile_panel(ax, title, entries, recs, columns)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)
    return path

"""Tables and the list of false answers, as Markdown."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import numpy as np

__all__ = ["render", "BAD", "summary_counts"]

BAD = ("false_solved", "false_nosol", "crash", "hang", "harness_error")
COLS = ("false_solved", "false_nosol", "crash", "hang", "unchecked", "harness_error")
HEAD = "| false SOLVED | false NO_SOLUTION | crashes | hangs | unchecked NO_SOLUTION | harness errors |"


def summary_counts(records) -> Counter:
    return Counter(r["verdict"] for r in records)


def _row(c: Counter) -> str:
    return " | ".join(str(c.get(k, 0)) for k in COLS)


def _pct(a, b):
    return "–" if b == 0 else (f"{100.0 * a / b:.1f} % ({a}/{b})" if a != b else f"100 % ({b})")


def _shape(text: str) -> str:
    """A detail line with its numbers blanked, to group repeats."""
    return re.sub(r"[-+]?\d[\d.e+-]*", "#", text or "")[:90]


def render(meta: dict, cases: dict, records: list, data_of) -> str:
    L = _header(meta, len(records)) + _problems(cases)
    L += [
        "## Totals",
        "",
        "| runs " + HEAD,
        "|---" * (len(COLS) + 1) + "|",
        f"| {len(records)} | {_row(summary_counts(records))} |",
        "",
    ]
    L += _by_family(cases, records) + _by_method(records) + _rates(records) + ["## Findings", ""]
    for cat in COLS:
        L += _findings(meta, cases, [r for r in records if r["verdict"] == cat], cat, data_of)
    return "\n".join(L) + "\n"


def _header(meta, nrec) -> list[str]:
    L = [f"# Fuzz run of contactcp ({meta['when']})", "", f"- command: `{meta['command']}`"]
    if meta.get("note"):
        L.append(f"- {meta['note']}")
    return L + [
        f"- seed {meta['seed']}; {meta['n_problems']} problems; {nrec} solver runs "
        + (
            "(every method of `contactcp.methods(problem)` plus the default `contactcp.solve(problem)`); "
            if not meta.get("methods")
            else f"(the methods {', '.join(meta['methods'])} where they apply; default = `contactcp.solve(problem)`); "
        )
        + f"tol {meta['tol']:g}; per-solve timeout {meta['timeout']:g} s of CPU time; "
        f"{meta['workers']} worker processes",
        f"- contactcp {meta['version']} under test: {meta.get('under_test', '?')}; harness at commit "
        f"{meta['commit']}; numpy {meta['numpy']}; python {meta['python']}",
        f"- machine: {meta['cpus']} CPUs; load average {meta['load_before']} before, {meta['load_after']} after; "
        f"wall time {meta['elapsed']:.0f} s",
        "- every answer checked by the harness's own code (benchmarks/fuzzlib): exact rational residuals and "
        "Farkas checks for the linear problems and UCP, exact u = W r + q then 60-digit decimals for friction "
        "contact; verdicts without a vector (enumeration, branch-and-bound) by an exact simplex oracle when small",
        "- false SOLVED: SOLVED but the contract's exact residual > tol (or no finite point, or a planted infeasible "
        "case); false NO_SOLUTION: the certificate fails the exact check, is missing, or the problem has a planted "
        "solution; crash: an exception out of `solve` (contactcp's own errors included: no option was bad) or a "
        "dead worker; hang: no answer within the timeout (the worker is killed)",
        "",
    ]


def _problems(cases) -> list[str]:
    truths: dict = defaultdict(Counter)
    for k, info in cases.items():
        truths[k.split(":")[0]][info.get("truth", "unknown")] += 1
    kinds = ["solvable", "infeasible", "infeasible-nomargin", "unknown"]
    L = [
        "## Problems",
        "",
        "solvable: a planted exact solution; infeasible: a planted exact Farkas vector with "
        "margin >= 1e-5 (no point has a contract residual below it); infeasible-nomargin: exactly infeasible but "
        "points of tiny residual may exist; unknown: random data (verdicts checked exactly all the same).",
        "",
        "| type | " + " | ".join(kinds) + " | total |",
        "|---" * (len(kinds) + 2) + "|",
    ]
    for t in sorted(truths):
        L.append(f"| {t} | " + " | ".join(str(truths[t].get(k, 0)) for k in kinds) + f" | {sum(truths[t].values())} |")
    return L + [""]


def _by_family(cases, records) -> list[str]:
    by_tf: dict = defaultdict(Counter)
    nprob: Counter = Counter(tuple(k.split(":")[:2]) for k in cases)
    runs: Counter = Counter()
    for r in records:
        by_tf[(r["ptype"], r["family"])][r["verdict"]] += 1
        runs[(r["ptype"], r["family"])] += 1
    L = [
        "## By problem type and family",
        "",
        "| type | family | problems | runs " + HEAD,
        "|---" * (len(COLS) + 4) + "|",
    ]
    for key in sorted(set(by_tf) | set(nprob)):
        L.append(f"| {key[0]} | {key[1]} | {nprob[key]} | {runs[key]} | {_row(by_tf[key])} |")
    return L + [""]


def _by_method(records) -> list[str]:
    by_tm: dict = defaultdict(Counter)
    times: dict = defaultdict(list)
    for r in records:
        if r.get("time") is not None:
            times[(r["ptype"], r["method"])].append(r["time"])
        by_tm[(r["ptype"], r["method"])][r["verdict"]] += 1
        by_tm[(r["ptype"], r["method"])]["_" + str(r.get("status"))] += 1
    L = [
        "## By problem type and method",
        "",
        "| type | method | runs | SOLVED | NO_SOLUTION | other " + HEAD + " median / max s (wall) |",
        "|---" * (len(COLS) + 7) + "|",
    ]
    for (t, m), c in sorted(by_tm.items()):
        n = sum(v for k, v in c.items() if not k.startswith("_"))
        s, ns = c.get("_SOLVED", 0), c.get("_NO_SOLUTION", 0)
        tt = times.get((t, m)) or [0.0]
        L.append(f"| {t} | {m} | {n} | {s} | {ns} | {n - s - ns} | {_row(c)} | {np.median(tt):.3f} / {max(tt):.2f} |")
    return L + [""]


def _rates(records) -> list[str]:
    L = [
        "## SOLVED rate on planted-solvable problems",
        "",
        "Problems with a planted exact solution (FrictionContact: a planted point whose exact residual is "
        "below 1e-13); a run counts when its status is SOLVED and the harness's exact residual agrees "
        "(a false SOLVED counts as a failure here too). Goal: the default >= 99.9 %.",
        "",
    ]
    for t in sorted({r["ptype"] for r in records}):
        recs = [r for r in records if r["ptype"] == t and r["truth"] == "solvable"]
        if not recs:
            continue
        methods = sorted({r["method"] for r in recs}, key=lambda m: (m == "default", m))
        L += [f"### {t}", "", "| family | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
        for f in sorted({r["family"] for r in recs}) + ["(all)"]:
            cells = []
            for m in methods:
                rr = [r for r in recs if r["method"] == m and (f == "(all)" or r["family"] == f)]
                cells.append(_pct(sum(r.get("status") == "SOLVED" and r["verdict"] == "ok" for r in rr), len(rr)))
            L.append(f"| {f} | " + " | ".join(cells) + " |")
        L.append("")
        fails = Counter(r.get("status") for r in recs if r["method"] == "default" and r.get("status") != "SOLVED")
        if fails:
            L += ["default's other statuses on these: " + ", ".join(f"{k} {v}" for k, v in fails.most_common()), ""]
    return L


def _findings(meta, cases, bad, cat, data_of) -> list[str]:
    """Groups of one category (same type, method and detail up to numbers), details of the first three
    of each group, then every problem of the category."""
    if not bad:
        return []
    groups = defaultdict(list)
    for r in bad:
        groups[(r["ptype"], r["method"], _shape(r.get("detail", "")))].append(r)
    ordered = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    L = [
        f"### {cat} ({len(bad)})",
        "",
        "| type | method | count | families | detail (first) | first key |",
        "|---|---|---|---|---|---|",
    ]
    for (t, m, _), rr in ordered:
        fams = ", ".join(sorted({r["family"] for r in rr}))
        L.append(f"| {t} | {m} | {len(rr)} | {fams} | {_md(rr[0].get('detail', ''))[:200]} | `{rr[0]['key']}` |")
    L.append("")
    shown = [r for _, rr in ordered for r in rr[:3]][: meta.get("max_listed", 60)]
    for r in shown:
        L += _detail(meta, cases, r, data_of)
    return L + [""] + _all_keys(bad)


def _all_keys(bad) -> list[str]:
    """Every finding of a category, one entry per problem with its methods (rerun: --only KEY)."""
    per: dict = defaultdict(list)
    for r in bad:
        per[r["key"]].append(r["method"])
    items = [f"`{k}` ({', '.join(ms)})" for k, ms in sorted(per.items(), key=lambda kv: _keyorder(kv[0]))]
    return [
        "<details><summary>all " + f"{len(bad)} runs on {len(per)} problems</summary>",
        "",
        "; ".join(items),
        "",
        "</details>",
        "",
    ]


def _keyorder(key: str):
    t, f, i = key.split(":")
    return t, f, int(i)


def _md(s: str) -> str:
    return str(s).replace("|", "/").replace("\n", " ")


def _detail(meta, cases, r, data_of) -> list[str]:
    info = cases.get(r["key"], {})
    out = [
        f"- `{r['key']}` method `{r['method']}`: {r.get('status')}; {_md(r.get('detail', ''))}",
        f"  - truth {r['truth']}; {_md(info.get('note', ''))}; library residual {r.get('lib_residual')}; "
        f"exact residual {r.get('exact_residual')}; message: {_md(r.get('message', ''))[:200]}",
        f"  - reproduce: `python benchmarks/fuzz.py --seed {meta['seed']} --only {r['key']} --methods {r['method']}`",
    ]
    if r.get("x") is not None:
        out.append(f"  - answer x = {r['x']!r}")
    data = data_of(r["key"])
    if data:
        out.append(f"  - data: {data}")
    return out

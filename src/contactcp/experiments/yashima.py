"""Yashima & Yamaguchi: contact-mode maps of the two-finger hand, and the determinacy of a 3-D grasp.

Writes into ``results/yashima/``:

* ``parameters.json``: the hand's data (the paper's and the chosen ones);
* ``map_mu0.2.png``, ``map_mu0.4.png`` (Fig. 7) and ``map_mu*.npz``:
  the class of every grid point over ``(tau1, tau2)`` — RR, RS, SR, SS,
  breaking, or not dynamically determinate;
* ``az_sign_mu0.4.png`` (Fig. 8a): the sign of the object's vertical
  acceleration; ``az_diagonal_mu0.4.png`` / ``.csv`` (Fig. 8b): ``a_z`` along
  ``tau1 = tau2``;
* ``findings.md``: the paper's qualitative findings, each checked (symmetry
  of the map, the rolling region growing with mu, ``a_z`` turning positive as
  the torques grow), the class counts, a point-by-point cross-check of the
  batched map against the one-state algorithm, and the verdict for one state
  of the three-PUMA-finger grasp (3-D, 4^3 sign combinations).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from contactcp.analysis.determinacy import VERDICTS, analyse
from contactcp.analysis.modemap import MODE_CLASSES, MODE_NAMES
from contactcp.plotting.modemap import plot_diagonal, plot_mode_map, plot_sign_map, save
from contactcp.scenarios.yashima import HandParameters, hand_map, hand_states, two_finger_hand

MUS = (0.2, 0.4)
TAU_RANGE = (0.0, 10.0)
SWAP = {0: 0, 1: 2, 2: 1, 3: 3, 4: 4, 5: 5}  # RS <-> SR under tau1 <-> tau2


def run(out_dir: Path, quick: bool, resolution: int | None = None) -> list[Path]:
    n = resolution or (41 if quick else 201)
    t = np.linspace(*TAU_RANGE, n)
    p = HandParameters()
    files = [out_dir / "parameters.json"]
    files[0].write_text(json.dumps({k: getattr(p, k) for k in p.__dataclass_fields__}, indent=1))
    lines = [
        "# Yashima & Yamaguchi, Section IV: the two-finger hand",
        "",
        f"Grid {n} x {n} over tau1, tau2 in [{TAU_RANGE[0]}, {TAU_RANGE[1]}] N m (tau0 = {p.tau0} N m on "
        "both first joints); every sign combination solved at every point. Parameters in "
        "`parameters.json` (see `contactcp.scenarios.yashima` for what was chosen).",
        "",
    ]
    maps = {}
    for mu in MUS:
        t0 = time.perf_counter()
        table = hand_map(mu, t, t, progress=False)
        el = time.perf_counter() - t0
        maps[mu] = table
        table.save(out_dir / f"map_mu{mu:g}.npz")
        cls = table.grid("cls")
        files += [
            out_dir / f"map_mu{mu:g}.npz",
            save(plot_mode_map(cls, t, t, f"contact modes, mu = {mu:g}"), out_dir / f"map_mu{mu:g}.png"),
        ]
        counts = {MODE_CLASSES[k]: int((cls == k).sum()) for k in range(len(MODE_CLASSES))}
        lines.append(
            f"- mu = {mu:g}: {n * n} states in {el:.1f} s; classes " + ", ".join(f"{k} {v}" for k, v in counts.items())
        )
        verd = table["verdict"]
        lines.append("  verdicts: " + ", ".join(f"{v} {int((verd == i).sum())}" for i, v in enumerate(VERDICTS)))
    lines.append("")
    findings = []
    # (1) symmetry: class at (tau1, tau2) equals the swapped class at (tau2, tau1)
    for mu in MUS:
        cls = maps[mu].grid("cls")
        swapped = np.vectorize(SWAP.get)(cls.T)
        sym = float((cls == swapped).mean())
        findings.append(
            (
                f"map symmetric about tau1 = tau2 (RS <-> SR), mu = {mu:g}",
                sym == 1.0,
                f"{100 * sym:.2f} % of points match their mirror image",
            )
        )
    # (2) rolling region grows with mu
    rr = {mu: int((maps[mu].grid("cls") == 0).sum()) for mu in MUS}
    grows = rr[MUS[1]] > rr[MUS[0]]
    contains = bool(np.all(maps[MUS[1]].grid("cls")[maps[MUS[0]].grid("cls") == 0] == 0))
    findings.append(
        (
            "the rolling (RR) region grows with mu",
            grows and contains,
            f"RR points: {rr[MUS[0]]} at mu = {MUS[0]}, {rr[MUS[1]]} at mu = {MUS[1]}; "
            f"RR at mu = {MUS[0]} stays RR at mu = {MUS[1]}: {contains}",
        )
    )
    # (3) a_z along the diagonal, Fig. 8
    mu = MUS[1]
    diag = np.linspace(*TAU_RANGE, 4 * n)
    st = hand_states(diag, diag, mu=mu)
    az = st["a_z"]
    det = st["determinate"]
    cross = diag[np.flatnonzero(det & (az > 0))[0]] if np.any(det & (az > 0)) else float("nan")
    pos_end = bool(det[-1] and az[-1] > 0)
    after = det & (diag >= cross)
    stays = bool(np.all(az[after] > 0)) if np.isfinite(cross) else False
    findings.append(
        (
            f"a_z becomes positive as the torques grow (tau1 = tau2, mu = {mu:g})",
            pos_end and stays,
            f"a_z > 0 from tau = {cross:.3f} N m on; a_z({diag[-1]:g}) = {az[-1]:.3f} m/s^2",
        )
    )
    np.savetxt(
        out_dir / f"az_diagonal_mu{mu:g}.csv",
        np.column_stack([diag, az, st["cls"]]),
        delimiter=",",
        header="tau,a_z,class",
        comments="",
    )
    files += [
        out_dir / f"az_diagonal_mu{mu:g}.csv",
        save(
            plot_diagonal(diag, az, st["cls"], f"a_z along tau1 = tau2, mu = {mu:g}"),
            out_dir / f"az_diagonal_mu{mu:g}.png",
        ),
        save(
            plot_sign_map(
                maps[mu].grid("a_z"), maps[mu].grid("determinate"), t, t, f"sign of the object's a_z, mu = {mu:g}"
            ),
            out_dir / f"az_sign_mu{mu:g}.png",
        ),
    ]
    # (4) the batched map agrees with the one-state algorithm at sampled points
    rng = np.random.default_rng(0)
    checked = agree = 0
    for mu in MUS:
        tab = maps[mu]
        for k in rng.choice(len(tab), size=10 if quick else 40, replace=False):
            one = analyse(two_finger_hand(mu, float(tab["tau1"][k]), float(tab["tau2"][k])).system)
            checked += 1
            same = one.verdict == VERDICTS[int(tab["verdict"][k])]
            if one.determinate:
                same &= [MODE_NAMES.index(x) for x in one.modes] == [int(tab["mode1"][k]), int(tab["mode2"][k])]
                same &= abs(one.accelerations[1] - tab["a_z"][k]) <= 1e-7 * max(1.0, abs(one.accelerations[1]))
            agree += bool(same)
    findings.append(
        (
            "batched map = one-state algorithm (verdict, modes, a_z) at sampled points",
            agree == checked,
            f"{agree}/{checked} points agree",
        )
    )
    lines += ["## The paper's findings, checked", "", "| finding | holds | evidence |", "|---|---|---|"]
    lines += [f"| {f} | {'yes' if ok else 'NO'} | {ev} |" for f, ok, ev in findings]
    lines += ["", "## One state of the three-PUMA-560-finger grasp (3-D, 4^3 = 64 sign combinations)", ""]
    lines += _grasp_verdicts()
    md = out_dir / "findings.md"
    md.write_text("\n".join(lines) + "\n")
    files.append(md)
    return files


def _grasp_verdicts() -> list[str]:
    from contactcp.scenarios.buffo2006 import puma3_grasp

    rows = [
        "| mu | verdict | feasible combinations | distinct solutions | A P-matrix (test) | combination | "
        "modes | max violation | time (s) |",
        "|---|---|---:|---:|---|---|---|---:|---:|",
    ]
    for mu in (0.1, 0.4):
        t0 = time.perf_counter()
        out = analyse(puma3_grasp(mu, "rolling").system)
        el = time.perf_counter() - t0
        rows.append(
            f"| {mu:g} | {out.verdict} | {out.feasible_combinations} | {out.distinct_solutions} | "
            f"{out.p_matrix} ({out.p_test}) | {out.combination} | {' '.join(out.modes) or '—'} | "
            f"{out.max_violation:.1e} | {el:.2f} |"
        )
    return rows

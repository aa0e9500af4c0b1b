"""The time stepper on the papers' robot scenes (:mod:`contactcp.scenarios.timestepping_robots`).

:func:`robot_rows` gives rows ``{"scene", "quantity", "value", "goal"}`` as
:mod:`contactcp.experiments.timestepping` writes them:

* Buffo & Maciel's three-PUMA grasp held by the equilibrium efforts at ``mu = 0.4`` for 1 s
  (``h`` = 1 ms): the sphere's displacement, the contact-steps that are not sticking and failed
  steps (its speed is measured by ``benchmarks/timestepping.py``, not here);
* the least friction of that grasp, ``|f_t| / f_n`` of its forces, against ``m g / ((2 + 2 cos
  sigma) squeeze)``; just above it (``1.01 x``) the sphere stays, just below (``0.99 x``) and at
  ``mu = 0.1`` it slips (its drop after 0.2 s, the contacts' modes);
* the file's stored efforts (no equilibrium): how far the sphere drifts in the same time;
* Yashima & Yamaguchi's hand at torques from each region of the map (Fig. 7, ``mu = 0.4``): the
  class of the first step's modes against the map's, the object's first-step acceleration against
  the map's ``(a_x, a_z, alpha)``, and how long the first mode lasts in a run of 0.1 s.
"""

from __future__ import annotations

import math

import numpy as np

from contactcp.scenarios import timestepping_robots as tr
from contactcp.scenarios.yashima import hand_states
from contactcp.simulate.stepping import simulate
from contactcp.simulate.stepping.moreau_jean import MODES

__all__ = ["robot_rows", "hand_class", "sphere_drift"]

H = 1e-3


def sphere_drift(traj) -> float:
    """The largest distance of the sphere from its start over a trajectory (m)."""
    p = traj.body("sphere")[0]
    return float(np.linalg.norm(p - p[0], axis=1).max())


def hand_class(step) -> str:
    """The map class (Fig. 7) of one step's object contacts: ``"RR"``, ``"RS"``, ``"SR"``, ``"SS"``
    (sticking is the paper's rolling) or ``"breaking"``."""
    modes = dict(zip(step.keys, step.mode))
    out = ""
    for j in (1, 2):
        m = MODES[modes.get(f"object/finger{j}_link2", 0)]
        if m not in ("sticking", "sliding"):
            return "breaking"
        out += "R" if m == "sticking" else "S"
    return out


def _held(rows: list[dict], quick: bool) -> None:
    T = 0.2 if quick else 1.0
    scene = tr.puma_grasp(0.4)
    traj = simulate(scene, T, H, margin=tr.PUMA_MARGIN)
    tag = f"puma-grasp mu=0.4, {T:g} s"
    counts = traj.mode_counts()
    rows.append({"scene": tag, "quantity": "sphere displacement (m)", "value": sphere_drift(traj), "goal": "<= 1e-9"})
    rows.append(
        {
            "scene": tag,
            "quantity": "contact-steps not sticking",
            "value": sum(v for k, v in counts.items() if k != "sticking"),
            "goal": "0",
        }
    )
    rows.append({"scene": tag, "quantity": "failed steps", "value": traj.failed_steps, "goal": "0"})
    stored = simulate(tr.puma_grasp(0.4, efforts="stored"), T, H, margin=tr.PUMA_MARGIN)
    rows.append(
        {
            "scene": f"puma-grasp stored efforts, {T:g} s",
            "quantity": "sphere displacement (m)",
            "value": sphere_drift(stored),
            "goal": "- (no equilibrium)",
        }
    )


def _slip(rows: list[dict], quick: bool) -> None:
    mu_min = tr.min_friction()
    exact = 9.81 / ((2 + 2 * math.cos(math.pi / 4)) * tr.PUMA_SQUEEZE)
    rows.append(
        {"scene": "puma-grasp", "quantity": "least mu (max |f_t|/f_n)", "value": mu_min, "goal": f"{exact:.6g}"}
    )
    T = 0.2
    for mu in (tr.PUMA_SLIP_MU,) if quick else (1.01 * mu_min, 0.99 * mu_min, tr.PUMA_SLIP_MU):
        traj = simulate(tr.puma_grasp(mu), T, H, margin=tr.PUMA_MARGIN)
        tag = f"puma-grasp mu={mu:.4g}, {T:g} s"
        held = mu > mu_min
        drop = float(traj.body("sphere")[0][0, 2] - traj.body("sphere")[0][-1, 2])
        rows.append(
            {"scene": tag, "quantity": "sphere drop (m)", "value": drop, "goal": "<= 1e-9" if held else "> 0 (slips)"}
        )
        first = [MODES[m] for m in traj.steps[0].mode]
        rows.append(
            {
                "scene": tag,
                "quantity": "first step's modes",
                "value": " ".join(first),
                "goal": "all sticking" if held else "all sliding",
            }
        )


def _hand(rows: list[dict], quick: bool) -> None:
    cases = dict(list(tr.HAND_CASES.items())[:3]) if quick else tr.HAND_CASES
    for predicted, (t1, t2) in cases.items():
        ref = hand_states(np.array([t1]), np.array([t2]), mu=0.4)
        scene = tr.yashima_hand(0.4, t1, t2)
        o = scene.joint("object").v.start
        traj = simulate(scene, 0.1, H)
        tag = f"yashima-hand tau=({t1:g}, {t2:g})"
        classes = [hand_class(s) for s in traj.steps]
        rows.append({"scene": tag, "quantity": "first step's class", "value": classes[0], "goal": predicted})
        # the object's velocity is in its own axes, which have not turned yet at the first step
        dv = (traj.v[1] - traj.v[0]) / H
        acc = dv[[o, o + 1, o + 5]]
        want = np.array([ref["a_x"][0], ref["a_z"][0], ref["alpha"][0]])
        err = float(np.abs(acc - want).max() / np.abs(want).max())
        rows.append(
            {"scene": tag, "quantity": "first-step (a_x, a_z, alpha) vs map: rel. error", "value": err, "goal": "O(h)"}
        )
        lasts = next((k for k, c in enumerate(classes) if c != classes[0]), len(classes)) * H
        rows.append({"scene": tag, "quantity": "first class lasts (s, of 0.1)", "value": lasts, "goal": "-"})
        rows.append({"scene": tag, "quantity": "failed steps", "value": traj.failed_steps, "goal": "0"})


def robot_rows(quick: bool) -> list[dict]:
    """The rows of the robot scenes (module docstring); ``quick``: 0.2 s instead of 1 s, fewer cases."""
    rows: list[dict] = []
    _held(rows, quick)
    _slip(rows, quick)
    _hand(rows, quick)
    return rows

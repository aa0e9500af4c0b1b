"""Pictures of a time-stepped trajectory (:class:`~contactcp.simulate.stepping.Trajectory`):
:func:`plot_trajectory` draws the bodies' positions, the energy and its change at each step, and the
contacts' modes over time (how many contacts are separated, sticking, sliding or closed at each
step, and each contact's mode step by step).

The data drawn are the trajectory's own: :func:`mode_series` and :func:`mode_raster` give the
arrays behind the two mode panels.

>>> from contactcp.scenarios.timestepping import bouncing_ball
>>> from contactcp.simulate.stepping import simulate
>>> traj = simulate(bouncing_ball(h0=0.2), duration=0.3, dt=0.01)
>>> fig = plot_trajectory(traj)
>>> [ax.get_ylabel() for ax in fig.axes]
['position (m)', 'energy (J)', 'change per step (J)', 'contacts', 'contact']
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from contactcp._files import atomic_write  # noqa: E402
from contactcp.errors import InvalidProblemError  # noqa: E402
from contactcp.plotting import _format  # noqa: E402
from contactcp.simulate.stepping import MODES, Trajectory  # noqa: E402

__all__ = ["plot_trajectory", "mode_series", "mode_raster", "save_figure", "MODE_COLORS"]

#: one colour per mode of MODES: separated, sticking, sliding, closed
MODE_COLORS = ("#bdc3c7", "#4c9a2a", "#e07b39", "#2c6fbb")
#: bodies drawn when none are chosen, and contacts in the raster at most
MAX_BODIES, MAX_KEYS = 6, 60
_COORD_STYLES = {"x": "-", "y": "--", "z": ":"}


def _trajectory(traj: Any) -> Trajectory:
    if not isinstance(traj, Trajectory):
        raise InvalidProblemError("traj", f"must be a Trajectory, got {type(traj).__name__}")
    return traj


def _bodies(traj: Trajectory, bodies: Sequence[str] | None) -> list[str]:
    if bodies is None:
        return list(traj.body_names[:MAX_BODIES])
    if isinstance(bodies, str):
        bodies = [bodies]
    unknown = [b for b in bodies if b not in traj.body_names]
    if unknown:
        raise InvalidProblemError("bodies", f"no body {unknown[0]!r}; the trajectory has {traj.body_names}")
    return list(bodies)


def mode_series(traj: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    """``(t, counts)``: the end time of each step and how many of its contacts are in each mode,
    ``counts[k, m]`` for ``MODES[m]`` (an ``(n_steps, 4)`` integer array)."""
    traj = _trajectory(traj)
    counts = np.zeros((len(traj.steps), len(MODES)), dtype=int)
    for k, s in enumerate(traj.steps):
        counts[k] = np.bincount(np.asarray(s.mode, dtype=int), minlength=len(MODES))[: len(MODES)]
    return np.asarray(traj.t[1 : len(traj.steps) + 1]), counts


def mode_raster(traj: Trajectory, max_keys: int = MAX_KEYS) -> tuple[list[str], np.ndarray]:
    """``(keys, modes)``: the contacts (by key, in the order they first appear; at most ``max_keys``)
    and ``modes[i, k]``, the mode code of contact ``keys[i]`` at step ``k`` (-1: not detected)."""
    traj = _trajectory(traj)
    order: dict[str, int] = {}
    for s in traj.steps:
        for key in s.keys:
            if key not in order and len(order) < max_keys:
                order[key] = len(order)
    raster = np.full((len(order), len(traj.steps)), -1, dtype=int)
    for k, s in enumerate(traj.steps):
        for key, m in zip(s.keys, np.asarray(s.mode, dtype=int)):
            if key in order:
                raster[order[key], k] = m
    return list(order), raster


def _positions(ax, traj: Trajectory, bodies: list[str]) -> None:
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, name in enumerate(bodies):
        pos = traj.body(name)[0]
        for c, (coord, style) in enumerate(_COORD_STYLES.items()):
            ax.plot(traj.t, pos[:, c], style, color=colors[i % len(colors)], label=f"{name} {coord}")
    ax.set_ylabel("position (m)")
    if bodies:
        ax.legend(fontsize=7, ncol=min(3, len(bodies)), loc="best")
    more = len(traj.body_names) - len(bodies)
    ax.set_title(f"body positions{f' ({more} more bodies not shown)' if more > 0 else ''}", fontsize=9)


def _energy(ax_e, ax_d, traj: Trajectory) -> None:
    ax_e.plot(traj.t, traj.energy, color="k", label="kinetic + potential")
    ax_e.set_ylabel("energy (J)")
    ax_e.set_title(f"energy (largest gain in a step {traj.max_energy_gain:.3g} J)", fontsize=9)
    dE = np.diff(traj.energy)
    ax_d.step(traj.t[1:], dE, where="pre", color="#7f3c8d", label="E(k+1) - E(k)")
    ax_d.axhline(0.0, color="0.6", lw=0.6)
    failed = [k for k, s in enumerate(traj.steps) if not s.success]
    if failed:
        ax_d.plot(traj.t[1:][failed], dE[failed], "x", color="#c0392b", label="step not certified")
        ax_d.legend(fontsize=7, loc="best")
    ax_d.set_ylabel("change per step (J)")


def _modes(ax_c, ax_r, traj: Trajectory) -> None:
    t, counts = mode_series(traj)
    if len(t):
        ax_c.stackplot(t, counts.T, labels=MODES, colors=MODE_COLORS, step="pre")
    ax_c.set_ylabel("contacts")
    ax_c.legend(
        handles=[Patch(color=c, label=m) for m, c in zip(MODES, MODE_COLORS)],
        fontsize=7,
        ncol=4,
        loc="lower left",
        bbox_to_anchor=(0.0, 1.0),
        frameon=False,
    )
    ax_c.set_title("contacts by mode at each step", fontsize=9, loc="right")
    keys, raster = mode_raster(traj)
    t0, t1 = (float(t[0]) - traj.dt, float(t[-1])) if len(t) else (0.0, traj.dt)
    cmap = ListedColormap(["white", *MODE_COLORS])
    ax_r.imshow(
        raster + 1,
        aspect="auto",
        interpolation="nearest",
        cmap=cmap,
        vmin=-0.5,
        vmax=len(MODES) + 0.5,
        extent=[t0, t1, max(len(keys), 1) - 0.5, -0.5],
    )
    if 0 < len(keys) <= 20:
        ax_r.set_yticks(range(len(keys)), keys, fontsize=6)
    ax_r.set_ylabel("contact")
    ax_r.set_title(f"each contact's mode, by key ({len(keys)} contacts; white: not detected)", fontsize=9)
    ax_r.set_xlabel("time (s)")


def plot_trajectory(traj: Trajectory, path: str | os.PathLike | None = None, bodies: Sequence[str] | None = None):
    """A figure of ``traj``: the x, y, z of ``bodies`` (default: the first six) over time, the energy,
    its change at each step, the number of contacts in each mode at each step and each contact's
    mode (white: not detected).  Written atomically to ``path`` when given (its suffix sets the
    format).  Returns the matplotlib figure."""
    traj = _trajectory(traj)
    names = _bodies(traj, bodies)
    fig, axes = plt.subplots(
        5, 1, figsize=(8, 11), sharex=True, gridspec_kw={"height_ratios": [3, 2, 1.4, 2, 2]}, layout="constrained"
    )
    _positions(axes[0], traj, names)
    _energy(axes[1], axes[2], traj)
    _modes(axes[3], axes[4], traj)
    fig.suptitle(f"{traj.name}: {traj.status.name}, {len(traj.steps)} steps of {traj.dt:g} s", fontsize=10)
    if path is not None:
        save_figure(fig, path)
    return fig


def save_figure(fig, path: str | os.PathLike) -> None:
    """Write ``fig`` to ``path`` atomically (its suffix sets the format)."""
    with atomic_write(path) as tmp:
        fig.savefig(tmp, dpi=110, format=_format(path))

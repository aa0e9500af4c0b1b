"""Pictures of the three-finger grasp: the sphere, the fingers as line drawings, contact forces."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from contactcp._files import atomic_write  # noqa: E402
from contactcp.interpret.dynamic import ContactOutcome  # noqa: E402
from contactcp.plotting import _format  # noqa: E402
from contactcp.scenarios.buffo2006 import Grasp  # noqa: E402

_MODE_COLORS = {"rolling": "tab:green", "sliding": "tab:orange", "breaking": "tab:red"}


def plot_grasp(
    grasp: Grasp,
    outcomes: Sequence[ContactOutcome] | None = None,
    ax=None,
    title: str | None = None,
    force_scale: float | None = None,
):
    """3-D line drawing: sphere wireframe, each PUMA finger through its joint origins to the
    fingertip, and the contact force ``c_n n + c_t t + c_o o`` at each contact (coloured by mode)."""
    own = ax is None
    if own:
        fig = plt.figure(figsize=(6.0, 5.5))
        ax = fig.add_subplot(projection="3d")
    p = grasp.params
    u, v = np.mgrid[0 : 2 * np.pi : 24j, 0 : np.pi : 12j]
    ax.plot_wireframe(
        p.r * np.cos(u) * np.sin(v), p.r * np.sin(u) * np.sin(v), p.a_cm + p.r * np.cos(v), color="0.75", linewidth=0.5
    )
    for j, arm in enumerate(grasp.arms):
        m = arm.manipulator
        pts = [grasp.bases[:, j]]
        pts += [m.link_pose(arm.q, k)[:3, 3] for k in range(m.n)] + [m.link_pose(arm.q, -1)[:3, 3]]
        P = np.array(pts)
        ax.plot(P[:, 0], P[:, 1], P[:, 2], "-o", color="tab:blue", markersize=3, linewidth=2)
    contacts = grasp.system.contacts
    if outcomes is not None:
        forces = [c.frame @ o.c for c, o in zip(contacts, outcomes)]
        scale = force_scale or 0.6 * p.r / max(max(np.linalg.norm(f) for f in forces), 1e-12)
        for c, o, f in zip(contacts, outcomes, forces):
            x = c.point - scale * f
            ax.quiver(*x, *(scale * f), color=_MODE_COLORS.get(o.mode, "k"), linewidth=2, arrow_length_ratio=0.25)
            ax.text(*(c.point + 0.02), f"{o.name}: {o.mode}", fontsize=7)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_zlabel("z (m)")
    lim = max(p.b_tilde, p.a_cm + p.r) * 1.05
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_zlim(0, 2 * lim)
    ax.set_title(title or f"three PUMA-560 fingers holding a sphere (mu = {grasp.mu:g}, {grasp.state})", fontsize=9)
    if own:
        return fig
    return ax


def save_grasp(grasp: Grasp, outcomes, path: str | Path, **kw) -> Path:
    fig = plot_grasp(grasp, outcomes, **kw)
    path = Path(path)
    try:
        with atomic_write(path) as tmp:
            fig.savefig(tmp, dpi=120, bbox_inches="tight", format=_format(path))
    finally:
        plt.close(fig)
    return path

"""Pictures of planar quasistatic motions: contacts, forces, velocities and modes."""

from __future__ import annotations

from pathlib import Path

import matplotlib

if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.spatial import ConvexHull, QhullError  # noqa: E402

from contactcp._files import atomic_write  # noqa: E402
from contactcp.interpret.quasistatic import MODE_CODES, QuasistaticSolution  # noqa: E402
from contactcp.models.planar_quasistatic import PlanarQuasistaticProblem  # noqa: E402
from contactcp.plotting import _format  # noqa: E402

_COLORS = {"rolling": "tab:green", "sliding+": "tab:orange", "sliding-": "tab:purple", "breaking": "tab:red"}


def plot_motion(problem: PlanarQuasistaticProblem, sol: QuasistaticSolution | None, ax=None, title: str | None = None):
    """Draw the workpiece (hull of its contact points and reference point), each contact with
    its normal, the contact force ``c_n n + c_t t`` and the relative velocity
    ``v_n n + v_t t``, labelled with its mode; the object's twist at the reference point."""
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(5.5, 5.0))
    pts = problem.points
    if pts is None:
        raise ValueError("this problem has no contact geometry to draw")
    n = problem.W_n[:2].T
    t = problem.W_t[:2].T
    hull_pts = np.vstack([pts, [[0.0, 0.0]]])
    try:
        hull = ConvexHull(hull_pts)
        poly = hull_pts[hull.vertices]
        ax.fill(poly[:, 0], poly[:, 1], color="0.9", ec="0.5", lw=1, zorder=0, label="workpiece (hull)")
    except QhullError:
        pass
    span = max(1.0, float(np.abs(pts).max()))
    L = 0.25 * span
    ax.plot(0, 0, "k+", ms=10)
    for i, (p, ni) in enumerate(zip(pts, n)):
        ax.annotate("", p, p - 0.5 * L * ni, arrowprops=dict(arrowstyle="->", color="0.4", lw=1))
        mode = "?" if sol is None else sol.modes[i]
        ax.plot(*p, "o", color=_COLORS.get(mode, "k"), ms=7, zorder=3)
        ax.text(p[0], p[1] + 0.08 * span, f"{i + 1}:{MODE_CODES.get(mode, '?')}", ha="center", fontsize=9)
    if sol is not None:
        f = sol.c_n[:, None] * n + sol.c_t[:, None] * t
        v = sol.v_n[:, None] * n + sol.v_t[:, None] * t
        fs = L / max(np.linalg.norm(f, axis=1).max(), 1e-12)
        vs = L / max(np.linalg.norm(v, axis=1).max(), 1e-12)
        for i, p in enumerate(pts):
            if np.linalg.norm(f[i]) > 0:
                ax.arrow(
                    *p,
                    *(fs * f[i]),
                    color="tab:blue",
                    width=0.008 * span,
                    length_includes_head=True,
                    label="contact force" if i == 0 else None,
                )
            if np.linalg.norm(v[i]) > 0:
                ax.arrow(
                    *p,
                    *(vs * v[i]),
                    color="tab:red",
                    width=0.004 * span,
                    length_includes_head=True,
                    alpha=0.7,
                    label="relative velocity" if i == 0 else None,
                )
        qd = sol.qdot
        if np.linalg.norm(qd[:2]) > 0:
            ax.arrow(
                0,
                0,
                *(L * qd[:2] / np.linalg.norm(qd[:2])),
                color="k",
                width=0.006 * span,
                length_includes_head=True,
                label=f"object velocity (ω={qd[2]:.3g})",
            )
    ax.set_aspect("equal")
    ax.margins(0.25)
    ax.set_title(title or problem.name)
    ax.legend(loc="lower left", fontsize=7, framealpha=0.8)
    return ax


def save_motion(problem, sol, path: Path, title: str | None = None) -> Path:
    fig, ax = plt.subplots(figsize=(5.5, 5.0))
    try:
        plot_motion(problem, sol, ax, title)
        fig.tight_layout()
        with atomic_write(path) as tmp:
            fig.savefig(tmp, dpi=120, format=_format(Path(path)))
    finally:
        plt.close(fig)
    return path

"""Pictures of contact-mode maps over joint-torque space (Yashima & Yamaguchi, Figs. 7–8)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from contactcp._files import atomic_write  # noqa: E402
from contactcp.analysis.modemap import MODE_CLASSES  # noqa: E402
from contactcp.plotting import _format  # noqa: E402

__all__ = ["plot_mode_map", "plot_sign_map", "plot_diagonal", "save"]

#: one colour per class of MODE_CLASSES
CLASS_COLORS = ("#4c9a2a", "#f2b134", "#e07b39", "#c0392b", "#7f8c8d", "#000000")


def _extent(t1: np.ndarray, t2: np.ndarray) -> list[float]:
    d1 = (t1[-1] - t1[0]) / max(len(t1) - 1, 1) / 2
    d2 = (t2[-1] - t2[0]) / max(len(t2) - 1, 1) / 2
    return [t1[0] - d1, t1[-1] + d1, t2[0] - d2, t2[-1] + d2]


def _class_colors(classes: tuple[str, ...]) -> list:
    """The two-contact palette for two-contact classes; else a colour per rolling/sliding pattern
    (from green, all rolling, to red, all sliding), grey for breaking, black for not determinate."""
    if tuple(classes) == MODE_CLASSES:
        return list(CLASS_COLORS)
    patterns = len(classes) - 2
    ramp = plt.get_cmap("RdYlGn_r")
    return [ramp(k / max(patterns - 1, 1)) for k in range(patterns)] + ["#7f8c8d", "#000000"]


def plot_mode_map(
    cls: np.ndarray,
    tau1: np.ndarray,
    tau2: np.ndarray,
    title: str = "",
    ax=None,
    classes: tuple[str, ...] = MODE_CLASSES,
    labels: tuple[str, str] = (r"$\tau_1$ (N m)", r"$\tau_2$ (N m)"),
):
    """Fig. 7: the class of each grid point (``cls[i, j]`` at ``tau1[i], tau2[j]``), ``classes`` its
    names (:func:`contactcp.analysis.modemap.mode_classes` of the map's contact count)."""
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(5.2, 4.6))
    colors = _class_colors(tuple(classes))
    ax.imshow(
        np.asarray(cls).T,
        origin="lower",
        extent=_extent(tau1, tau2),
        aspect="auto",
        cmap=ListedColormap(colors),
        vmin=-0.5,
        vmax=len(classes) - 0.5,
        interpolation="nearest",
    )
    present = sorted(set(np.unique(cls).tolist()))
    ax.legend(
        handles=[Patch(color=colors[k], label=classes[k]) for k in present],
        loc="upper right",
        fontsize=8,
        framealpha=0.9,
    )
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(title)
    return ax.figure if own else ax


def plot_sign_map(
    a_z: np.ndarray, determinate: np.ndarray, tau1: np.ndarray, tau2: np.ndarray, title: str = "", ax=None
):
    """Fig. 8a: the sign of the object's vertical acceleration (grey: not determinate)."""
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(5.2, 4.6))
    code = np.where(~np.asarray(determinate), 2, np.where(np.asarray(a_z) > 0, 1, 0))
    colors = ("#2e86c1", "#e74c3c", "#bdc3c7")
    ax.imshow(
        code.T,
        origin="lower",
        extent=_extent(tau1, tau2),
        aspect="auto",
        cmap=ListedColormap(colors),
        vmin=-0.5,
        vmax=2.5,
        interpolation="nearest",
    )
    labels = (r"$a_z \leq 0$", r"$a_z > 0$", "not determinate")
    ax.legend(
        handles=[Patch(color=colors[k], label=labels[k]) for k in sorted(set(np.unique(code).tolist()))],
        loc="upper right",
        fontsize=8,
    )
    ax.set_xlabel(r"$\tau_1$ (N m)")
    ax.set_ylabel(r"$\tau_2$ (N m)")
    ax.set_title(title)
    return ax.figure if own else ax


def plot_diagonal(tau: np.ndarray, a_z: np.ndarray, classes: Sequence[int] | None = None, title: str = "", ax=None):
    """Fig. 8b: the object's vertical acceleration along ``tau1 = tau2``, coloured by class."""
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(5.6, 3.6))
    ax.plot(tau, a_z, color="0.3", lw=1)
    if classes is not None:
        classes = np.asarray(classes)
        for k in sorted(set(classes.tolist())):
            sel = classes == k
            ax.scatter(tau[sel], a_z[sel], s=6, color=CLASS_COLORS[k], label=MODE_CLASSES[k], zorder=3)
        ax.legend(fontsize=8)
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_xlabel(r"$\tau_1 = \tau_2$ (N m)")
    ax.set_ylabel(r"object $a_z$ (m/s$^2$)")
    ax.set_title(title)
    return ax.figure if own else ax


def save(fig, path: str | Path) -> Path:
    path = Path(path)
    try:
        fig.tight_layout()
        with atomic_write(path) as tmp:
            fig.savefig(tmp, dpi=120, format=_format(path))
    finally:
        plt.close(fig)
    return path

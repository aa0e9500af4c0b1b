"""Pictures (matplotlib, non-interactive backend unless one is already chosen).

Pictures are written atomically (:func:`contactcp._files.atomic_write`): a failed
save leaves an existing file as it was.
"""

from __future__ import annotations

from pathlib import Path


def _format(path: Path) -> str:
    """The picture format matplotlib would infer from ``path``'s suffix (its default without one)."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix:
        return suffix
    import matplotlib

    return str(matplotlib.rcParams["savefig.format"])

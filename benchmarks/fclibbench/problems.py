"""The benchmark's problems: FCLIB files found, read with contactcp's reader, described and exported.

A file may hold a local problem, a global one, or both; each is an :class:`Entry`.  Workers get
the data as ``.npz`` files (sparse matrices as CSC arrays ``X_data``, ``X_indices``, ``X_indptr``,
``X_shape``) so that the Siconos worker needs numpy and scipy only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .check import global_scale

__all__ = ["Entry", "discover", "load", "export", "read_npz", "RANK_MAX"]

RANK_MAX = 4000  # rank(W) by a dense SVD up to this size, else not computed


@dataclass
class Entry:
    """One problem: its name, form ('local' or 'global'), sizes and data."""

    name: str
    form: str
    path: str
    n_c: int
    data: dict
    n_v: int | None = None  # global: degrees of freedom
    rank_ratio: float | None = None  # local: rank(W) / (dim n_c)
    scale: float = 1.0  # global: ||w + H^T M^-1 f|| (1 if zero)
    dim: int = 3
    unsupported: str | None = None  # why no solver can take it (equality constraints, 2-D)
    npz: str | None = None
    extra: dict = field(default_factory=dict)


def discover(roots: list[Path], extra: list[Path]) -> list[Path]:
    """Every ``.hdf5`` under the existing ``roots`` and every file or folder of ``extra``, once."""
    found: list[Path] = []
    for root in roots:
        if root.is_dir():
            found += sorted(root.rglob("*.hdf5"))
    for item in extra:
        found += sorted(item.rglob("*.hdf5")) if item.is_dir() else [item]
    seen, out = set(), []
    for p in found:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def _rank_ratio(W, dim: int) -> float | None:
    n = W.shape[0]
    if n == 0 or n > RANK_MAX:
        return None
    return float(np.linalg.matrix_rank(W.toarray())) / n


def _local(path: Path, L) -> Entry:
    W = sp.csc_matrix(L.W)
    dim = int(L.spacedim)
    e = Entry(path.stem, "local", str(path), W.shape[0] // dim, {"W": W, "q": L.q, "mu": L.mu}, dim=dim)
    e.rank_ratio = _rank_ratio(W, dim)
    if L.V is not None:
        e.unsupported = "has V, R (equality constraints)"
    return e


def _global(path: Path, G) -> Entry:
    M, H = sp.csc_matrix(G.M), sp.csc_matrix(G.H)
    dim = int(G.spacedim)
    data = {"M": M, "H": H, "f": G.f, "w": G.w, "mu": G.mu}
    e = Entry(path.stem, "global", str(path), H.shape[1] // dim, data, n_v=M.shape[0], dim=dim)
    if G.G is not None:
        e.unsupported = "has G, b (equality constraints)"
    try:
        e.scale = global_scale(M, H, G.f, G.w)
    except RuntimeError as exc:  # a singular M: the measure has no local scale
        e.unsupported = f"M is singular ({exc})"
    return e


def load(path: Path) -> tuple[list[Entry], str | None]:
    """The problems of one file, or ([], why) when contactcp's reader refuses it."""
    from contactcp.errors import InvalidProblemError
    from contactcp.io.fclib import read_fclib

    try:
        F = read_fclib(path)
    except InvalidProblemError as exc:
        return [], str(exc)
    out = []
    if F.local is not None:
        out.append(_local(path, F.local))
    if F.global_ is not None:
        out.append(_global(path, F.global_))
    for e in out:
        if e.dim != 3 and e.unsupported is None:
            e.unsupported = f"spacedim {e.dim} (the benchmark runs the 3-D solvers)"
    if len(out) == 2:  # both forms in one file: tell them apart
        for e in out:
            e.name += f" ({e.form})"
    return out, None


def export(entry: Entry, folder: Path, index: int) -> Path:
    """Write the entry's data as ``.npz`` for the workers; remember the path."""
    arrays: dict[str, np.ndarray] = {}
    for key, value in entry.data.items():
        if sp.issparse(value):
            A = sp.csc_matrix(value)
            arrays.update(
                {
                    f"{key}_data": A.data,
                    f"{key}_indices": A.indices.astype(np.int64),
                    f"{key}_indptr": A.indptr.astype(np.int64),
                    f"{key}_shape": np.array(A.shape),
                }
            )
        else:
            arrays[key] = np.asarray(value, dtype=float)
    path = folder / f"p{index:04d}_{entry.form}.npz"
    np.savez(path, **arrays)
    entry.npz = str(path)
    return path


def read_npz(path: str) -> dict:
    """The arrays of an exported entry, sparse matrices rebuilt as CSC (64-bit indices)."""
    out: dict = {}
    with np.load(path) as d:
        keys = list(d.keys())
        for k in keys:
            if k.endswith("_data"):
                base = k[: -len("_data")]
                shape = tuple(int(s) for s in d[base + "_shape"])
                out[base] = sp.csc_matrix((d[k], d[base + "_indices"], d[base + "_indptr"]), shape=shape)
            elif not k.endswith(("_indices", "_indptr", "_shape")):
                out[k] = np.ascontiguousarray(d[k], dtype=float)
    return out

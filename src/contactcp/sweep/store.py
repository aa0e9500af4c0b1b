"""A sweep's results on disk as they arrive: one Parquet file per finished chunk, resumable.

A store is a folder::

    DIR/_manifest.json         what is being computed: the function's name, the coordinates, the
                               grid shape, the chunk bounds and a fingerprint of the points
    DIR/part-000000.parquet    the rows of chunk 0, written when it finished
    DIR/part-000001.parquet    ...

Each part holds the chunk's rows with ``_index`` (the point's position in the sweep), one grid
index per coordinate (``_i_<name>``), the coordinates and the function's columns (a column of
width k as a fixed-size list).  A part is written to a hidden temporary file in the folder, flushed
to disk, then renamed into place: a part exists completely or not at all, whenever the process is
killed.  Resuming computes only the chunks that have no part; a chunk computed twice (killed after
its rename, before the caller heard of it) overwrites itself with identical rows, so nothing is
lost or duplicated.  Any Parquet reader reads the folder without contactcp —
``pandas.read_parquet(DIR)`` (Arrow's dataset discovery skips files whose names start with ``.`` or
``_``: the manifest and unfinished parts) — and :func:`load` gives back the
:class:`~contactcp.sweep.table.Table`.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from contactcp._files import atomic_write
from contactcp.errors import InvalidOptionError, SweepError
from contactcp.sweep.points import Points
from contactcp.sweep.table import Table

__all__ = ["ChunkStore", "load", "fingerprint"]

_MANIFEST = "_manifest.json"
_VERSION = 1


def fingerprint(pts: Points) -> str:
    """SHA-256 of the points' names, shape and values: a store resumes only the sweep it began."""
    h = hashlib.sha256(json.dumps([list(pts.columns), list(pts.shape)]).encode())
    for name in pts.columns:
        c = np.ascontiguousarray(pts._cols[name])
        h.update(c.dtype.str.encode())
        h.update(c.tobytes())
    return h.hexdigest()


def _check_manifest(manifest: Any, where: Path) -> dict:
    """A manifest read from disk, or InvalidOptionError: contiguous chunk bounds covering the points."""
    bad = InvalidOptionError("store", f"{where} is not a valid sweep manifest")
    if not isinstance(manifest, dict) or manifest.get("version") != _VERSION:
        raise bad
    n, bounds = manifest.get("n_points"), manifest.get("bounds")
    if not isinstance(n, int) or not isinstance(bounds, list) or not bounds:
        raise bad
    edge = 0
    for b in bounds:
        if not (isinstance(b, list) and len(b) == 2 and all(isinstance(x, int) for x in b) and b[0] == edge < b[1]):
            raise bad
        edge = b[1]
    if edge != n:
        raise bad
    return manifest


class ChunkStore:
    """The folder of one sweep (see the module docstring)."""

    def __init__(self, path: str | os.PathLike, manifest: dict[str, Any]):
        self.path = Path(path)
        self.manifest = manifest

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | os.PathLike, pts: Points, bounds: list[tuple[int, int]], fn: str, resume: bool):
        """Create the store for a new sweep, or (``resume=True``) reopen the one this sweep began (its
        chunk bounds, which the resumed sweep then uses, whatever its number of workers)."""
        path = Path(path)
        manifest = {
            "version": _VERSION,
            "fn": fn,
            "coords": list(pts.columns),
            "shape": list(pts.shape),
            "n_points": len(pts),
            "bounds": [list(b) for b in bounds],
            "fingerprint": fingerprint(pts),
        }
        if path.exists() and not path.is_dir():
            raise InvalidOptionError("store", f"{str(path)!r} exists and is not a folder")
        old = path / _MANIFEST
        if old.is_file():
            try:
                prev = _check_manifest(json.loads(old.read_text()), old)
            except (OSError, ValueError) as exc:
                raise InvalidOptionError("store", f"{old} cannot be read ({exc})") from None
            if not resume:
                raise InvalidOptionError(
                    "store", f"{str(path)!r} already holds a sweep: resume it (--resume) or choose another folder"
                )
            for key in ("fingerprint", "coords", "shape"):  # the chunk bounds are the store's own
                if prev.get(key) != manifest[key]:
                    raise InvalidOptionError(
                        "store",
                        f"{str(path)!r} holds another sweep (its {key} differs): it cannot be resumed with this one",
                    )
            return cls(path, prev)
        if path.is_dir() and any(p.suffix == ".parquet" for p in path.iterdir()):
            raise InvalidOptionError("store", f"{str(path)!r} holds Parquet files but no {_MANIFEST}")
        path.mkdir(parents=True, exist_ok=True)
        with atomic_write(old) as tmp:
            tmp.write_text(json.dumps(manifest, indent=1))
        return cls(path, manifest)

    @classmethod
    def read(cls, path: str | os.PathLike) -> ChunkStore:
        path = Path(path)
        try:
            manifest = json.loads((path / _MANIFEST).read_text())
        except FileNotFoundError:
            raise InvalidOptionError("store", f"{str(path)!r} is not a sweep store (no {_MANIFEST})") from None
        except (OSError, ValueError) as exc:
            raise InvalidOptionError("store", f"{path / _MANIFEST} cannot be read ({exc})") from None
        return cls(path, _check_manifest(manifest, path / _MANIFEST))

    # ------------------------------------------------------------------ parts
    def part(self, k: int) -> Path:
        return self.path / f"part-{k:06d}.parquet"

    def done(self) -> set[int]:
        """The chunks whose part is on disk."""
        n = len(self.manifest["bounds"])
        return {k for k in range(n) if self.part(k).is_file()}

    def write(self, k: int, cols: dict[str, np.ndarray]) -> None:
        """Write chunk ``k``'s rows (coordinates and results) as one part, atomically."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        a, b = self.manifest["bounds"][k]
        index = np.arange(a, b, dtype=np.int64)
        arrays = {"_index": pa.array(index)}
        for name, i in zip(self.manifest["coords"], np.unravel_index(index, tuple(self.manifest["shape"]))):
            arrays[f"_i_{name}"] = pa.array(np.asarray(i, dtype=np.int64))
        for name, c in cols.items():
            arrays[name] = _arrow_column(c)
        shapes = {name: list(c.shape[1:]) for name, c in cols.items() if c.ndim > 2}
        table = pa.table(arrays).replace_schema_metadata({"contactcp.shapes": json.dumps(shapes)})
        with atomic_write(self.part(k)) as tmp:  # a hidden temporary file, flushed, renamed into place
            pq.write_table(table, tmp)

    def read_part(self, k: int) -> dict[str, np.ndarray]:
        """Chunk ``k``'s columns (the coordinates and the function's), as numpy arrays."""
        import pyarrow.parquet as pq

        t = pq.read_table(self.part(k))
        a, b = self.manifest["bounds"][k]
        idx = t.column("_index").to_numpy()
        if len(idx) != b - a or not np.array_equal(idx, np.arange(a, b)):
            raise SweepError(f"{self.part(k)} does not hold the rows {a}..{b - 1} of chunk {k}")
        meta = t.schema.metadata or {}
        shapes = json.loads(meta.get(b"contactcp.shapes", b"{}"))
        out = {}
        for name in t.column_names:
            if not name.startswith("_"):
                c = _numpy_column(t.column(name))
                out[name] = c.reshape((len(c), *shapes[name])) if name in shapes else c
        return out

    def table(self, meta: dict | None = None) -> Table:
        """Every part put together, in point order (all chunks must be done)."""
        n = len(self.manifest["bounds"])
        missing = sorted(set(range(n)) - self.done())
        if missing:
            raise SweepError(
                f"{str(self.path)!r} holds {n - len(missing)} of {n} chunks (first missing: {missing[0]}); "
                "complete it by running the sweep again with resume=True (CLI: --resume)"
            )
        parts = [self.read_part(k) for k in range(n)]
        cols = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
        return Table(
            cols,
            coords=tuple(self.manifest["coords"]),
            shape=tuple(self.manifest["shape"]),
            meta={"store": str(self.path), "fn": self.manifest["fn"], **(meta or {})},
        )


def _arrow_column(c: np.ndarray):
    import pyarrow as pa

    if c.ndim == 1:
        return pa.array(c)
    width = int(np.prod(c.shape[1:]))
    flat = pa.array(np.ascontiguousarray(c).reshape(-1))
    return pa.FixedSizeListArray.from_arrays(flat, width)


def _numpy_column(col) -> np.ndarray:
    import pyarrow as pa

    col = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    if pa.types.is_fixed_size_list(col.type):
        width = col.type.list_size
        return col.flatten().to_numpy(zero_copy_only=False).reshape(len(col), width)
    out = col.to_numpy(zero_copy_only=False)
    if out.dtype == object:  # strings
        out = out.astype(str)
    return out


def load(path: str | os.PathLike) -> Table:
    """The :class:`Table` of a completed sweep store: one row per grid point, ``.grid(name)`` as for
    :func:`contactcp.sweep.sweep`'s own result."""
    return ChunkStore.read(path).table()

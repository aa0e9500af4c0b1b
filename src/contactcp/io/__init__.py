"""Reading and writing: problems as arrays (:mod:`~contactcp.io.arrays`), scenes as JSON
(:mod:`~contactcp.io.scene`), FCLIB's HDF5 files (:mod:`~contactcp.io.fclib`).  Atomic writes and
the safe readers they share live in :mod:`contactcp._files`."""

from contactcp._files import atomic_write
from contactcp.io.arrays import load_arrays, load_lcp, save_lcp

__all__ = ["atomic_write", "load_arrays", "load_lcp", "save_lcp"]

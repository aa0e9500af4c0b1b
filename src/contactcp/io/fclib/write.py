"""Writing FCLIB files (HDF5), atomically, after every check."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np
import scipy.sparse as sp

from contactcp._files import atomic_hdf5
from contactcp.errors import InvalidProblemError
from contactcp.io.fclib.model import (  # noqa: F401
    _INFO_STRINGS,
    _INT,
    _INT_MAX,
    _MATRIX_INFO_FLOATS,
    _SPARSITY,
    FclibGlobal,
    FclibLocal,
    FclibSolution,
    _check_global,
    _check_local,
    _check_solution,
    _sizes,
)

# ------------------------------------------------------------------- writing


def _write_ints(g, name: str, values) -> None:
    g.create_dataset(name, data=np.asarray(values, dtype=_INT).reshape(-1))


def _write_doubles(g, name: str, values) -> None:
    g.create_dataset(name, data=np.asarray(values, dtype=np.float64).reshape(-1))


def _write_string(g, name: str, text: Any) -> None:
    """A scalar, fixed-length, nul-terminated string (as H5LTmake_dataset_string)."""
    import h5py

    raw = str(text).encode("utf-8")
    if b"\0" in raw:
        raise InvalidProblemError(name, "strings must not contain NUL characters")
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(len(raw) + 1)
    tid.set_strpad(h5py.h5t.STR_NULLTERM)
    if not raw.isascii():
        tid.set_cset(h5py.h5t.CSET_UTF8)
    space = h5py.h5s.create(h5py.h5s.SCALAR)
    dset = h5py.h5d.create(g.id, name.encode(), tid, space)
    try:
        dset.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array(raw + b"\0", dtype=f"S{len(raw) + 1}"), mtype=tid)
    finally:
        dset.close()


def _write_matrix(parent, name: str, A: sp.csc_matrix, storage: str, minfo: dict | None) -> None:
    g = parent.create_group(name)
    m, n = A.shape
    if storage == "triplet":
        C = A.tocoo()
        nnz = int(C.nnz)
        _write_ints(g, "nzmax", [nnz])
        _write_ints(g, "m", [m])
        _write_ints(g, "n", [n])
        _write_ints(g, "nz", [nnz])
        _write_ints(g, "p", C.col)
        _write_ints(g, "i", C.row)
        _write_doubles(g, "x", C.data)
    else:
        nnz = int(A.indptr[-1])
        _write_ints(g, "nzmax", [nnz])
        _write_ints(g, "m", [m])
        _write_ints(g, "n", [n])
        _write_ints(g, "nz", [-1])
        _write_ints(g, "p", A.indptr)
        _write_ints(g, "i", A.indices[:nnz])
        _write_doubles(g, "x", A.data[:nnz])
    if minfo:
        if "comment" in minfo and minfo["comment"] is not None:
            _write_string(g, "comment", minfo["comment"])
        for key in _MATRIX_INFO_FLOATS:
            _write_doubles(g, key, [float(minfo[key])])
        if _SPARSITY in minfo and minfo[_SPARSITY] is not None:
            _write_doubles(g, _SPARSITY, [float(minfo[_SPARSITY])])
        _write_ints(g, "rank", [int(minfo["rank"])])


def _check_matrix_info(matrix_info: Any, names: Iterable[str]) -> dict[str, dict]:
    if not matrix_info:
        return {}
    if not isinstance(matrix_info, dict):
        raise InvalidProblemError("matrix_info", "must be a dict {matrix name: {conditioning, determinant, rank}}")
    names = set(names)
    out = {}
    for key, value in matrix_info.items():
        if key not in names:
            raise InvalidProblemError(f"matrix_info[{key!r}]", f"no such matrix; have {sorted(names)}")
        if not value:
            continue
        missing = [k for k in (*_MATRIX_INFO_FLOATS, "rank") if value.get(k) is None]
        if missing:  # the reference reader reads all three once 'conditioning' exists
            raise InvalidProblemError(f"matrix_info[{key!r}]", f"needs {', '.join(missing)} too")
        out[key] = value
    return out


def _write_info(parent, info: Any) -> None:
    if not info:
        return
    if not isinstance(info, dict):
        raise InvalidProblemError("info", f"must be a dict, got {type(info).__name__}")
    g = parent.create_group("info")
    for key, value in info.items():
        if value is None:
            continue
        if key in _INFO_STRINGS:
            _write_string(g, key, value)
        elif isinstance(value, (bool, np.bool_)):
            g.attrs.create(key, np.array([int(value)], dtype=_INT))
        elif isinstance(value, (int, np.integer)):
            if abs(int(value)) > _INT_MAX:
                g.attrs.create(key, np.array([value], dtype=np.int64))
            else:
                g.attrs.create(key, np.array([value], dtype=_INT))
        elif isinstance(value, (float, np.floating)):
            g.attrs.create(key, np.array([value], dtype=np.float64))
        elif isinstance(value, str):
            g.attrs.create(key, np.bytes_(value.encode("utf-8")))
        else:
            try:
                g.attrs.create(key, np.asarray(value))
            except (TypeError, ValueError) as exc:
                raise InvalidProblemError(f"info[{key!r}]", f"cannot be stored ({exc})") from None


def _write_solutions(h5, solution: dict | None, guesses: list[dict]) -> None:
    def fill(g, vecs):
        for key in ("v", "l", "u", "r"):
            if key in vecs:
                _write_doubles(g, key, vecs[key])

    if solution is not None:
        fill(h5.create_group("solution"), solution)
    if guesses:
        g = h5.create_group("guesses")
        _write_ints(g, "number_of_guesses", [len(guesses)])
        for k, vecs in enumerate(guesses, start=1):
            fill(g.create_group(str(k)), vecs)


def _prepare(problem: dict[str, Any], solution: Any, guesses: Any) -> tuple[dict | None, list[dict]]:
    sizes = _sizes(problem)
    sol = None if solution is None else _check_solution(solution, "solution", sizes, complete=True)
    if isinstance(guesses, FclibSolution):
        guesses = [guesses]
    gs = [_check_solution(g, f"guesses[{k}]", sizes, complete=True) for k, g in enumerate(guesses or ())]
    return sol, gs


def _storage(storage: str) -> str:
    if storage not in ("csc", "triplet"):
        raise InvalidProblemError("storage", f"must be 'csc' or 'triplet', got {storage!r}")
    return storage


#: per kind: the problem class, its root group, its matrices, its vectors (required, then optional)
_LAYOUT = {
    "local": ("FclibLocal", "fclib_local", ("W", "V", "R"), ("q", "mu"), ("s",)),
    "global": ("FclibGlobal", "fclib_global", ("M", "H", "G"), ("f", "w", "mu"), ("b",)),
}


def _write(kind: str, path: str | os.PathLike, problem: Any, solution: Any, guesses: Any, storage: str) -> None:
    cls, group, matrices, vectors, optional = _LAYOUT[kind]
    if type(problem).__name__ != cls:
        raise InvalidProblemError("problem", f"must be an {cls}, got {type(problem).__name__}")
    storage = _storage(storage)
    data = _check_local(problem) if kind == "local" else _check_global(problem)
    sol, gs = _prepare(data, solution, guesses)
    minfo = _check_matrix_info(problem.matrix_info, [k for k in matrices if k in data])

    def fill(h5):
        root = h5.create_group(group)
        _write_ints(root, "spacedim", [data["spacedim"]])
        for key in matrices:
            if key in data:
                _write_matrix(root, key, data[key], storage, minfo.get(key))
        vec = root.create_group("vectors")
        for key in vectors + tuple(k for k in optional if k in data):
            _write_doubles(vec, key, data[key])
        _write_info(root, problem.info)
        _write_solutions(h5, sol, gs)

    atomic_hdf5(path, fill)


def write_local(
    path: str | os.PathLike,
    problem: FclibLocal,
    solution: FclibSolution | None = None,
    guesses: Iterable[FclibSolution] = (),
    *,
    storage: str = "csc",
) -> None:
    """Write a local problem (and optionally a solution and initial guesses) to ``path``.

    Matrices are stored compressed-column (``storage="csc"``)
    or as triplets (``storage="triplet"``).  Everything is
    validated before anything is written; the file appears atomically.
    """
    _write("local", path, problem, solution, guesses, storage)


def write_global(
    path: str | os.PathLike,
    problem: FclibGlobal,
    solution: FclibSolution | None = None,
    guesses: Iterable[FclibSolution] = (),
    *,
    storage: str = "csc",
) -> None:
    """Write a global problem (and optionally a solution and initial guesses); see :func:`write_local`."""
    _write("global", path, problem, solution, guesses, storage)

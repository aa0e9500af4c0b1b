"""Reading and writing FCLIB files (the frictional-contact problem library).

FCLIB (Acary, Brémond, Koziara, Pérignon; https://frictionalcontactlibrary.github.io)
stores frictional contact problems in HDF5.  This module reads and writes the
layout of the reference C library ``fclib`` (``fclib.h``, version 3.x; checked
against the Debian package ``libfclib0`` 3.1.0, which reads and writes exactly
this).  Everything is a *dataset* (never an HDF5 attribute, except the optional
integer attributes that ``fclib_create_int_attributes_in_info`` hangs on the
``info`` group); integers are 32-bit native ``int`` and reals ``float64``, both
stored as 1-D datasets, scalars as 1-D datasets of length 1::

    /fclib_local                     local problem  u = W r + V l + q, V^T r + R l + s = 0
        spacedim        int[1]       2 or 3 (size of one contact block)
        W/  V/  R/      matrices     W square, m x m with m = spacedim * n_c; V m x p, R p x p
        vectors/q       double[m]
        vectors/mu      double[n_c]
        vectors/s       double[p]    only with V and R
        info/           optional: title, description, math_info (strings)
    /fclib_global                    global problem  M v = H r + G l + f, G^T v + b = 0, u = H^T v + w
        spacedim        int[1]
        M/  H/  G/      matrices     M n x n, H n x m (m = spacedim * n_c), G n x p (optional)
        vectors/f       double[n]
        vectors/w       double[m]
        vectors/mu      double[n_c]
        vectors/b       double[p]    only with G
        info/           as above
    /solution                        at most one solution
        v double[n] (global only), u double[m], r double[m], l double[p] (only with R or G)
    /guesses
        number_of_guesses  int[1]
        1/, 2/, ...        each like /solution

A matrix group holds CSparse's fields as datasets: ``nzmax``, ``m`` (rows),
``n`` (columns), ``nz`` (all ``int[1]``) and ``p``, ``i`` (``int``), ``x``
(``double``).  ``nz = -1`` is compressed column (``p`` the ``n + 1`` column
pointers, ``i`` the row indices and ``x`` the values, ``nzmax`` of each);
``nz >= 0`` is a triplet (coordinate) matrix with ``nz`` entries, where, as in
CSparse and Siconos (the main producer of FCLIB files), ``i`` holds the row
indices and ``p`` the column indices (the comment in ``fclib.h`` has them the
other way round, but the library never interprets them); ``nz = -2`` is
compressed row (read only).  Optional matrix information: ``comment``
(string), ``conditioning``, ``determinant`` (``double[1]``) and ``rank``
(``int[1]``); the reference reader reads all three numbers as soon as
``conditioning`` exists.  Strings are scalar, fixed-length, nul-terminated
HDF5 strings (what ``H5LTmake_dataset_string`` writes).

The sizes of the solution vectors come from the problem: ``v`` has ``M.n``
entries, ``u`` and ``r`` have ``W.n`` (``H.n``) and ``l`` has ``R.n``
(``G.n``); the reference reader requires ``u`` and ``r``.

Sources: the reference implementation ``fclib.h``/``fclib.c`` (github.com/
FrictionalContactLibrary/fclib) and files written by ``libfclib0`` 3.1.0
through ctypes, inspected with h5py.

Reading checks the shapes (``W`` square of size ``spacedim * n_c``, ``q``,
``mu`` of length ``n_c``, ...), that every number is finite and that ``mu >= 0``,
raising :class:`~contactcp.errors.InvalidProblemError` naming the field;
a file that is missing or not HDF5 gives the field ``"file"``.  Writing checks
the same things first, then writes a temporary file in the target directory
and renames it over the target (``os.replace``), so a file is never left
half-written; the target is replaced as a whole (the C library would instead
add groups to an existing file).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import scipy.sparse as sp

from contactcp._validate import check_memory
from contactcp.errors import InvalidProblemError

__all__ = [
    "FclibLocal",
    "FclibGlobal",
    "FclibSolution",
    "FclibFile",
    "read_fclib",
    "read_local",
    "read_global",
    "write_local",
    "write_global",
]

_INT = np.dtype(np.intc)            # C int, what H5T_NATIVE_INT is
_INT_MAX = int(np.iinfo(_INT).max)
_INFO_STRINGS = ("title", "description", "math_info")
_MATRIX_INFO_FLOATS = ("conditioning", "determinant")
_SPARSITY = "sparsity"              # written by fclib 1.x, ignored by 3.x


# ----------------------------------------------------------------- containers

@dataclass
class FclibLocal:
    """A local frictional contact problem ``u = W r + V l + q``, ``V^T r + R l + s = 0``.

    ``W`` is a scipy sparse matrix or a dense array (read back as a
    ``scipy.sparse.csc_matrix``, or dense with ``dense=True``).  ``V``, ``R``
    and ``s`` are optional (all or none).  ``info`` may hold ``title``,
    ``description``, ``math_info`` (strings) and further integer/real/string
    entries stored as attributes of the info group.  ``matrix_info`` maps a
    matrix name (``"W"``, ...) to a dict with ``conditioning``,
    ``determinant``, ``rank`` and optionally ``comment``.
    """

    W: Any
    q: Any
    mu: Any
    spacedim: int = 3
    V: Any = None
    R: Any = None
    s: Any = None
    info: dict = field(default_factory=dict)
    matrix_info: dict = field(default_factory=dict)

    @property
    def n_contacts(self) -> int:
        return int(np.shape(self.W)[0]) // int(self.spacedim)

    def to_problem(self):
        """The :class:`~contactcp.problems.friction.FrictionContactProblem` (W, q, mu) (no V, R)."""
        if self.V is not None or self.R is not None:
            raise InvalidProblemError("V", "problems with V, R (equality constraints) have no FrictionContactProblem")
        from contactcp.problems.friction import FrictionContactProblem
        return FrictionContactProblem(self.W, self.q, self.mu, dim=int(self.spacedim))

    @classmethod
    def from_problem(cls, problem: Any, info: dict | None = None) -> "FclibLocal":
        """From a :class:`~contactcp.problems.friction.FrictionContactProblem`."""
        W = problem.W.tocsc() if sp.issparse(problem.W) else np.array(problem.W)
        return cls(W=W, q=np.array(problem.q), mu=np.array(problem.mu), spacedim=int(problem.dim),
                   info=dict(info or {}))


@dataclass
class FclibGlobal:
    """A global problem ``M v = H r + G l + f``, ``G^T v + b = 0``, ``u = H^T v + w``.

    ``G`` and ``b`` may be None (both or neither).  Matrices as in
    :class:`FclibLocal`.
    """

    M: Any
    H: Any
    G: Any
    f: Any
    b: Any
    w: Any
    mu: Any
    spacedim: int = 3
    info: dict = field(default_factory=dict)
    matrix_info: dict = field(default_factory=dict)

    @property
    def n_contacts(self) -> int:
        return int(np.shape(self.H)[1]) // int(self.spacedim)


@dataclass
class FclibSolution:
    """A solution or an initial guess: global velocity ``v``, local velocity ``u``,
    reaction ``r`` and multiplier ``l`` (each None when absent)."""

    v: Any = None
    u: Any = None
    r: Any = None
    l: Any = None  # noqa: E741 - FCLIB's name


@dataclass
class FclibFile:
    """Everything in an FCLIB file."""

    local: FclibLocal | None
    global_: FclibGlobal | None
    solutions: list = field(default_factory=list)
    guesses: list = field(default_factory=list)
    path: str = ""


# ------------------------------------------------------------ normalisation

def _vector(value: Any, name: str, size: int | None, *, nonneg: bool = False) -> np.ndarray:
    try:
        arr = np.array(value, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise InvalidProblemError(name, f"cannot be read as an array of numbers ({exc})") from None
    if arr.ndim == 0:
        raise InvalidProblemError(name, "must be a 1-D vector, got a scalar")
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise InvalidProblemError(name, f"must be a 1-D vector, got shape {arr.shape}")
    if size is not None and arr.size != size:
        raise InvalidProblemError(name, f"must have length {size}, got {arr.size}")
    bad = ~np.isfinite(arr)
    if bad.any():
        k = int(np.argmax(bad))
        raise InvalidProblemError(name, f"contains {arr[k]} (first at index {k}); only finite values are allowed")
    if nonneg and (arr < 0).any():
        k = int(np.argmax(arr < 0))
        raise InvalidProblemError(f"{name}[{k}]", f"friction coefficient must be >= 0, got {arr[k]}")
    return arr


def _matrix(value: Any, name: str) -> sp.csc_matrix:
    """Any scipy sparse matrix or 2-D array -> float64 csc_matrix (finite, int32-indexable)."""
    if sp.issparse(value):
        try:
            A = sp.csc_matrix(value, dtype=np.float64, copy=True)
        except (TypeError, ValueError) as exc:
            raise InvalidProblemError(name, f"cannot be converted to a sparse float matrix ({exc})") from None
    else:
        try:
            dense = np.array(value, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidProblemError(name, f"cannot be read as a matrix of numbers ({exc})") from None
        if dense.ndim != 2:
            raise InvalidProblemError(name, f"must be a 2-D matrix, got shape {dense.shape}")
        if not np.isfinite(dense).all():
            idx = tuple(int(i) for i in np.argwhere(~np.isfinite(dense))[0])
            raise InvalidProblemError(name, f"contains {dense[idx]} at {idx}; only finite values are allowed")
        A = sp.csc_matrix(dense)
    if A.ndim != 2:
        raise InvalidProblemError(name, f"must be a 2-D matrix, got shape {A.shape}")
    if max(A.shape[0], A.shape[1], A.nnz) > _INT_MAX:
        raise InvalidProblemError(name, f"shape {A.shape} with {A.nnz} entries does not fit FCLIB's 32-bit indices")
    if not np.isfinite(A.data).all():
        k = int(np.argmax(~np.isfinite(A.data)))
        raise InvalidProblemError(name, f"contains {A.data[k]}; only finite values are allowed")
    return A


def _spacedim(value: Any) -> int:
    try:
        d = int(value)
    except (TypeError, ValueError):
        raise InvalidProblemError("spacedim", f"must be 2 or 3, got {value!r}") from None
    if d != value or d not in (2, 3):
        raise InvalidProblemError("spacedim", f"must be 2 or 3, got {value!r}")
    return d


def _check_local(pb: FclibLocal) -> dict[str, Any]:
    d = _spacedim(pb.spacedim)
    W = _matrix(pb.W, "W")
    m = W.shape[0]
    if W.shape[0] != W.shape[1] or m % d:
        raise InvalidProblemError("W", f"must be square of size spacedim * n_c (spacedim = {d}), got shape {W.shape}")
    out: dict[str, Any] = {"spacedim": d, "W": W, "q": _vector(pb.q, "q", m),
                           "mu": _vector(pb.mu, "mu", m // d, nonneg=True)}
    if (pb.V is None) != (pb.R is None):
        raise InvalidProblemError("V" if pb.V is None else "R", "V and R must be given together")
    if pb.R is not None:
        V, R = _matrix(pb.V, "V"), _matrix(pb.R, "R")
        p = R.shape[0]
        if R.shape != (p, p):
            raise InvalidProblemError("R", f"must be square, got shape {R.shape}")
        if V.shape != (m, p):
            raise InvalidProblemError("V", f"must have shape ({m}, {p}) to match W and R, got {V.shape}")
        if pb.s is None:
            raise InvalidProblemError("s", "must be given with V and R")
        out.update(V=V, R=R, s=_vector(pb.s, "s", p))
    elif pb.s is not None:
        raise InvalidProblemError("s", "given without V and R")
    return out


def _check_global(pb: FclibGlobal) -> dict[str, Any]:
    d = _spacedim(pb.spacedim)
    M = _matrix(pb.M, "M")
    n = M.shape[0]
    if M.shape != (n, n):
        raise InvalidProblemError("M", f"must be square, got shape {M.shape}")
    H = _matrix(pb.H, "H")
    m = H.shape[1]
    if H.shape[0] != n or m % d:
        raise InvalidProblemError("H", f"must have shape ({n}, spacedim * n_c) (spacedim = {d}), got {H.shape}")
    out: dict[str, Any] = {"spacedim": d, "M": M, "H": H, "f": _vector(pb.f, "f", n),
                           "w": _vector(pb.w, "w", m), "mu": _vector(pb.mu, "mu", m // d, nonneg=True)}
    if (pb.G is None) != (pb.b is None):
        raise InvalidProblemError("b" if pb.b is None else "G", "G and b must be given together")
    if pb.G is not None:
        G = _matrix(pb.G, "G")
        if G.shape[0] != n:
            raise InvalidProblemError("G", f"must have {n} rows to match M, got shape {G.shape}")
        out.update(G=G, b=_vector(pb.b, "b", G.shape[1]))
    return out


def _sizes(problem: dict[str, Any]) -> tuple[int, int, int]:
    """(nv, nr, nl): lengths of v, of u and r, of l (0 = absent), as read_nvnunrnl."""
    if "M" in problem:
        return problem["M"].shape[1], problem["H"].shape[1], (problem["G"].shape[1] if "G" in problem else 0)
    return 0, problem["W"].shape[1], (problem["R"].shape[1] if "R" in problem else 0)


def _check_solution(sol: Any, name: str, sizes: tuple[int, int, int], *, complete: bool) -> dict[str, np.ndarray]:
    """Validated vectors of a solution; ``complete`` requires what the C reader needs."""
    if not isinstance(sol, FclibSolution):
        raise InvalidProblemError(name, f"must be an FclibSolution, got {type(sol).__name__}")
    nv, nr, nl = sizes
    out = {}
    for key, size in (("v", nv), ("u", nr), ("r", nr), ("l", nl)):
        value = getattr(sol, key)
        if value is None:
            if complete and size:
                raise InvalidProblemError(f"{name}.{key}", f"is required (length {size})")
            continue
        if size == 0:
            what = "v (local problems have none)" if key == "v" else "l (the problem has no R or G)"
            raise InvalidProblemError(f"{name}.{key}", f"given, but there is no {what}")
        out[key] = _vector(value, f"{name}.{key}", size)
    return out


# ------------------------------------------------------------------- writing

def _atomic_h5(path: str | os.PathLike, fill) -> None:
    import h5py

    from contactcp._files import atomic_write

    with atomic_write(path) as tmp:
        try:  # stay readable by HDF5 1.10, which the fclib packages link against
            h5 = h5py.File(tmp, "w", libver=("earliest", "v110"))
        except (ValueError, TypeError):
            h5 = h5py.File(tmp, "w")
        with h5:
            fill(h5)


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


def write_local(path: str | os.PathLike, problem: FclibLocal, solution: FclibSolution | None = None,
                guesses: Iterable[FclibSolution] = (), *, storage: str = "csc") -> None:
    """Write a local problem (and optionally a solution and initial guesses) to ``path``.

    Matrices are stored compressed-column (``storage="csc"``)
    or as triplets (``storage="triplet"``).  Everything is
    validated before anything is written; the file appears atomically.
    """
    if not isinstance(problem, FclibLocal):
        raise InvalidProblemError("problem", f"must be an FclibLocal, got {type(problem).__name__}")
    storage = _storage(storage)
    data = _check_local(problem)
    sol, gs = _prepare(data, solution, guesses)
    minfo = _check_matrix_info(problem.matrix_info, [k for k in ("W", "V", "R") if k in data])

    def fill(h5):
        root = h5.create_group("fclib_local")
        _write_ints(root, "spacedim", [data["spacedim"]])
        for key in ("W", "V", "R"):
            if key in data:
                _write_matrix(root, key, data[key], storage, minfo.get(key))
        vec = root.create_group("vectors")
        _write_doubles(vec, "q", data["q"])
        _write_doubles(vec, "mu", data["mu"])
        if "s" in data:
            _write_doubles(vec, "s", data["s"])
        _write_info(root, problem.info)
        _write_solutions(h5, sol, gs)

    _atomic_h5(path, fill)


def write_global(path: str | os.PathLike, problem: FclibGlobal, solution: FclibSolution | None = None,
                 guesses: Iterable[FclibSolution] = (), *, storage: str = "csc") -> None:
    """Write a global problem (and optionally a solution and initial guesses); see :func:`write_local`."""
    if not isinstance(problem, FclibGlobal):
        raise InvalidProblemError("problem", f"must be an FclibGlobal, got {type(problem).__name__}")
    storage = _storage(storage)
    data = _check_global(problem)
    sol, gs = _prepare(data, solution, guesses)
    minfo = _check_matrix_info(problem.matrix_info, [k for k in ("M", "H", "G") if k in data])

    def fill(h5):
        root = h5.create_group("fclib_global")
        _write_ints(root, "spacedim", [data["spacedim"]])
        for key in ("M", "H", "G"):
            if key in data:
                _write_matrix(root, key, data[key], storage, minfo.get(key))
        vec = root.create_group("vectors")
        _write_doubles(vec, "f", data["f"])
        _write_doubles(vec, "w", data["w"])
        _write_doubles(vec, "mu", data["mu"])
        if "b" in data:
            _write_doubles(vec, "b", data["b"])
        _write_info(root, problem.info)
        _write_solutions(h5, sol, gs)

    _atomic_h5(path, fill)


# ------------------------------------------------------------------- reading

def _where(parent, key: str) -> str:
    return f"{parent.name.rstrip('/')}/{key}"


def _get(parent, key: str, field_name: str):
    """``parent[key]`` (a group or dataset) or None, refusing anything that would read outside the file.

    Checked before any data is read: the link itself (external links, and soft
    links, are refused: FCLIB files hold plain groups and datasets), and for a
    dataset its storage (HDF5 external storage and virtual datasets, whose
    bytes come from other files, are refused) and its size (it must fit in
    memory).
    """
    import h5py

    link = parent.get(key, getlink=True)
    if link is None:
        return None
    where = _where(parent, key)
    if isinstance(link, h5py.ExternalLink):
        raise InvalidProblemError(field_name, f"{where} is an external link to {link.filename}:{link.path}; "
                                              "refused (it would read another file)")
    if isinstance(link, h5py.SoftLink):
        raise InvalidProblemError(field_name, f"{where} is a soft link to {link.path}; refused (FCLIB files "
                                              "hold plain groups and datasets, not links)")
    if not isinstance(link, h5py.HardLink):  # pragma: no cover - user-defined link classes
        raise InvalidProblemError(field_name, f"{where} is a link of an unknown kind; refused")
    obj = parent.get(key)
    if isinstance(obj, h5py.Dataset):
        _check_dataset(obj, field_name)
    return obj


def _check_dataset(ds, field_name: str) -> None:
    """Refuse a dataset whose bytes live outside this file, or whose size cannot fit in memory."""
    if ds.is_virtual:
        raise InvalidProblemError(field_name, f"dataset {ds.name} is a virtual dataset (its data come from "
                                              "other files); refused")
    if ds.external:
        files = ", ".join(str(e[0]) for e in ds.external)
        raise InvalidProblemError(field_name, f"dataset {ds.name} uses HDF5 external storage (file(s) {files}); "
                                              "refused (it would read another file)")
    check_memory(float(ds.size) * ds.dtype.itemsize, field_name, f"dataset {ds.name} (shape {ds.shape})",
                 "refused")


def _has(parent, key: str, field_name: str) -> bool:
    return _get(parent, key, field_name) is not None


def _node(parent, key: str, field_name: str, kind: str):
    import h5py

    obj = _get(parent, key, field_name)
    want = h5py.Group if kind == "group" else h5py.Dataset
    if obj is None or not isinstance(obj, want):
        what = "missing" if obj is None else f"is not a {kind}"
        raise InvalidProblemError(field_name, f"{kind} {_where(parent, key)} {what} in {parent.file.filename}")
    return obj


def _read_array(ds, field_name: str) -> np.ndarray:
    if ds.dtype.kind not in "iuf":
        raise InvalidProblemError(field_name, f"dataset {ds.name} holds {ds.dtype}, not numbers")
    arr = np.asarray(ds[()])
    if arr.dtype.kind not in "iuf":  # pragma: no cover - checked from the dtype above
        raise InvalidProblemError(field_name, f"dataset {ds.name} holds {arr.dtype}, not numbers")
    return arr.reshape(-1)


def _read_int(parent, key: str, field_name: str) -> int:
    ds = _node(parent, key, field_name, "dataset")
    arr = _read_array(ds, field_name)
    if arr.size != 1 or (arr.dtype.kind == "f" and not float(arr[0]).is_integer()):
        raise InvalidProblemError(field_name, f"dataset {ds.name} must hold one integer, got {arr!r}")
    return int(arr[0])


def _read_vector(parent, key: str, field_name: str, size: int | None, *, nonneg: bool = False) -> np.ndarray:
    ds = _node(parent, key, field_name, "dataset")
    return _vector(_read_array(ds, field_name), field_name, size, nonneg=nonneg)


def _read_indices(g, key: str, name: str, count: int, bound: int, what: str) -> np.ndarray:
    arr = _read_array(_node(g, key, name, "dataset"), name)
    if arr.size < count:
        raise InvalidProblemError(name, f"{what} {g.name}/{key} has {arr.size} entries, needs {count}")
    arr = arr[:count]
    if arr.dtype.kind == "f" and not np.all(np.mod(arr, 1) == 0):
        raise InvalidProblemError(name, f"{what} {g.name}/{key} holds non-integers")
    arr = arr.astype(np.int64)
    if count and (arr.min() < 0 or arr.max() >= bound):
        raise InvalidProblemError(name, f"{what} {g.name}/{key} out of range 0..{bound - 1}")
    return arr.astype(np.int32)


def _read_matrix(parent, name: str) -> tuple[sp.csc_matrix, dict | None]:
    g = _node(parent, name, name, "group")
    nzmax, m, n, nz = (_read_int(g, k, name) for k in ("nzmax", "m", "n", "nz"))
    if m < 0 or n < 0:
        raise InvalidProblemError(name, f"negative size m = {m}, n = {n} in {g.name}")
    # the compressed form holds a pointer per column (or row): bound the sizes the file claims
    check_memory(16.0 * (max(m, n) + 1), name, f"matrix {g.name} of claimed shape ({m}, {n})", "refused")
    if nz == -1 or nz == -2:  # compressed column / row
        outer, inner = (n, m) if nz == -1 else (m, n)
        p = _read_array(_node(g, "p", name, "dataset"), name)
        if p.size != outer + 1:
            raise InvalidProblemError(name, f"pointer array {g.name}/p has {p.size} entries, expected {outer + 1}")
        p = p.astype(np.int64)
        if p[0] != 0 or np.any(np.diff(p) < 0) or p[-1] > max(nzmax, 0):
            raise InvalidProblemError(name, f"pointer array {g.name}/p is not nondecreasing from 0 to at most nzmax = {nzmax}")
        count = int(p[-1])
        idx = _read_indices(g, "i", name, count, inner, "index array")
        x = _read_array(_node(g, "x", name, "dataset"), name)
        if x.size < count:
            raise InvalidProblemError(name, f"value array {g.name}/x has {x.size} entries, needs {count}")
        x = _vector(x[:count], name, None) if count else np.zeros(0)
        cls = sp.csc_matrix if nz == -1 else sp.csr_matrix
        A = cls((x, idx, p.astype(np.int32)), shape=(m, n))
        A = A.tocsc() if nz == -2 else A
    elif nz >= 0:  # triplet: i rows, p columns (CSparse)
        rows = _read_indices(g, "i", name, nz, m, "row index array")
        cols = _read_indices(g, "p", name, nz, n, "column index array")
        x = _read_array(_node(g, "x", name, "dataset"), name)
        if x.size < nz:
            raise InvalidProblemError(name, f"value array {g.name}/x has {x.size} entries, needs {nz}")
        x = _vector(x[:nz], name, None) if nz else np.zeros(0)
        A = sp.coo_matrix((x, (rows, cols)), shape=(m, n)).tocsc()
    else:
        raise InvalidProblemError(name, f"unknown storage nz = {nz} in {g.name} (-1 csc, -2 csr, >= 0 triplet)")
    info = None
    if _has(g, "conditioning", name):
        info = {}
        if _has(g, "comment", name):
            info["comment"] = _read_string(_node(g, "comment", name, "dataset"))
        for key in (*_MATRIX_INFO_FLOATS, _SPARSITY):
            if _has(g, key, name):
                arr = _read_array(_node(g, key, name, "dataset"), name)
                info[key] = float(arr[0]) if arr.size else math.nan
        if _has(g, "rank", name):
            info["rank"] = _read_int(g, "rank", name)
    return A, info


def _read_string(ds) -> str:
    if ds.dtype.kind not in "SUO":
        raise InvalidProblemError("info", f"dataset {ds.name} holds {ds.dtype}, not a string")
    value = ds[()]
    if isinstance(value, np.ndarray):
        value = value.reshape(-1)[0] if value.size else b""
    if isinstance(value, (bytes, np.bytes_)):
        value = bytes(value).split(b"\0", 1)[0].decode("utf-8", errors="replace")
    return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).rstrip(b"\0").decode("utf-8", errors="replace")
    if isinstance(value, np.ndarray):
        if value.size == 1:
            return _plain(value.reshape(-1)[0])
        return value
    if isinstance(value, np.generic):
        return value.item()
    return value


def _read_info(root) -> dict:
    import h5py

    g = _get(root, "info", "info")
    if not isinstance(g, h5py.Group):
        return {}
    info: dict[str, Any] = {}
    for key in _INFO_STRINGS:
        ds = _get(g, key, "info")
        if isinstance(ds, h5py.Dataset):
            info[key] = _read_string(ds)
    for key, value in g.attrs.items():
        info[key] = _plain(value)
    return info


def _local_from(root, dense: bool) -> FclibLocal:
    d = _read_int(root, "spacedim", "spacedim")
    _spacedim(d)
    W, wi = _read_matrix(root, "W")
    m = W.shape[0]
    if W.shape[0] != W.shape[1] or m % d:
        raise InvalidProblemError("W", f"must be square of size spacedim * n_c (spacedim = {d}), got shape {W.shape}")
    vec = _node(root, "vectors", "vectors", "group")
    q = _read_vector(vec, "q", "q", m)
    mu = _read_vector(vec, "mu", "mu", m // d, nonneg=True)
    minfo = {"W": wi} if wi else {}
    V = R = s = None
    if _has(root, "V", "V") or _has(root, "R", "R"):
        V, vi = _read_matrix(root, "V")
        R, ri = _read_matrix(root, "R")
        p = R.shape[0]
        if R.shape != (p, p):
            raise InvalidProblemError("R", f"must be square, got shape {R.shape}")
        if V.shape != (m, p):
            raise InvalidProblemError("V", f"must have shape ({m}, {p}) to match W and R, got {V.shape}")
        s = _read_vector(vec, "s", "s", p)
        minfo.update({k: v for k, v in (("V", vi), ("R", ri)) if v})
    mats, names = [W, V, R], ["W", "V", "R"]
    if dense:
        for key, A in zip(names, mats):
            if A is not None:
                check_memory(8.0 * A.shape[0] * A.shape[1], key, f"the dense form of {key} (shape {A.shape})")
        mats = [None if A is None else A.toarray() for A in mats]
    return FclibLocal(W=mats[0], q=q, mu=mu, spacedim=d, V=mats[1], R=mats[2], s=s,
                      info=_read_info(root), matrix_info=minfo)


def _global_from(root, dense: bool) -> FclibGlobal:
    d = _read_int(root, "spacedim", "spacedim")
    _spacedim(d)
    M, mi = _read_matrix(root, "M")
    n = M.shape[0]
    if M.shape != (n, n):
        raise InvalidProblemError("M", f"must be square, got shape {M.shape}")
    H, hi = _read_matrix(root, "H")
    m = H.shape[1]
    if H.shape[0] != n or m % d:
        raise InvalidProblemError("H", f"must have shape ({n}, spacedim * n_c) (spacedim = {d}), got {H.shape}")
    vec = _node(root, "vectors", "vectors", "group")
    f = _read_vector(vec, "f", "f", n)
    w = _read_vector(vec, "w", "w", m)
    mu = _read_vector(vec, "mu", "mu", m // d, nonneg=True)
    minfo = {k: v for k, v in (("M", mi), ("H", hi)) if v}
    G = b = None
    if _has(root, "G", "G"):
        G, gi = _read_matrix(root, "G")
        if G.shape[0] != n:
            raise InvalidProblemError("G", f"must have {n} rows to match M, got shape {G.shape}")
        b = _read_vector(vec, "b", "b", G.shape[1])
        if gi:
            minfo["G"] = gi
    mats, names = [M, H, G], ["M", "H", "G"]
    if dense:
        for key, A in zip(names, mats):
            if A is not None:
                check_memory(8.0 * A.shape[0] * A.shape[1], key, f"the dense form of {key} (shape {A.shape})")
        mats = [None if A is None else A.toarray() for A in mats]
    return FclibGlobal(M=mats[0], H=mats[1], G=mats[2], f=f, b=b, w=w, mu=mu, spacedim=d,
                       info=_read_info(root), matrix_info=minfo)


def _solution_from(g, name: str, sizes: tuple[int, int, int]) -> FclibSolution:
    import h5py

    nv, nr, nl = sizes
    vecs = {}
    for key, size in (("v", nv), ("u", nr), ("r", nr), ("l", nl)):
        if size and isinstance(_get(g, key, f"{name}.{key}"), h5py.Dataset):
            vecs[key] = _read_vector(g, key, f"{name}.{key}", size)
    return FclibSolution(**vecs)


def _open(path: str | os.PathLike):
    import h5py

    p = Path(path)
    if not p.exists():
        raise InvalidProblemError("file", f"{p}: no such file")
    if p.is_dir():
        raise InvalidProblemError("file", f"{p}: is a directory, not an FCLIB (HDF5) file")
    try:
        return h5py.File(p, "r")
    except OSError as exc:
        why = " ".join(str(exc).split())
        why = why.split(" (file read failed")[0].split(" (file signature not found")[0]
        raise InvalidProblemError("file", f"{p}: not an HDF5 file or unreadable ({why})") from None


def read_fclib(path: str | os.PathLike, *, dense: bool = False) -> FclibFile:
    """Everything in an FCLIB file: ``.local``, ``.global_``, ``.solutions``, ``.guesses``.

    Matrices come back as ``scipy.sparse.csc_matrix`` (dense arrays with
    ``dense=True``).  Solution sizes follow the global problem when the file
    holds both, as in the reference library.  Links (external or soft),
    datasets with HDF5 external storage and virtual datasets are refused
    before any data is read (their bytes could come from any other file), and
    every dataset's size is checked against the memory before it is read.
    """
    h5 = _open(path)
    try:
        with h5:
            return _read_all(h5, os.fspath(path), dense)
    except InvalidProblemError:
        raise
    except MemoryError:
        raise InvalidProblemError("file", f"{path}: does not fit in memory") from None
    except Exception as exc:  # noqa: BLE001 - any failure to parse the file is a bad file (h5py, scipy)
        why = " ".join(str(exc).split())
        raise InvalidProblemError("file", f"{path}: cannot be read ({type(exc).__name__}: {why})") from None


def _read_all(h5, path: str, dense: bool) -> FclibFile:
    import h5py

    local_g = _get(h5, "fclib_local", "fclib_local")
    global_g = _get(h5, "fclib_global", "fclib_global")
    has_local = isinstance(local_g, h5py.Group)
    has_global = isinstance(global_g, h5py.Group)
    if not (has_local or has_global):
        raise InvalidProblemError("fclib_local", f"{path} has neither a /fclib_local nor a /fclib_global group")
    local = _local_from(local_g, dense) if has_local else None
    glob = _global_from(global_g, dense) if has_global else None
    if glob is not None:
        G = glob.G
        sizes = (np.shape(glob.M)[1], np.shape(glob.H)[1], 0 if G is None else np.shape(G)[1])
    else:
        R = local.R
        sizes = (0, np.shape(local.W)[1], 0 if R is None else np.shape(R)[1])
    solutions = []
    sol_g = _get(h5, "solution", "solution")
    if isinstance(sol_g, h5py.Group):
        solutions.append(_solution_from(sol_g, "solution", sizes))
    guesses = []
    g = _get(h5, "guesses", "guesses")
    if isinstance(g, h5py.Group):
        if _has(g, "number_of_guesses", "guesses"):
            count = _read_int(g, "number_of_guesses", "guesses")
            if count < 0:
                raise InvalidProblemError("guesses", f"number_of_guesses = {count} is negative")
        else:
            count = sum(1 for k in g if k.isdigit())
        for k in range(1, count + 1):
            sub = _node(g, str(k), "guesses", "group")
            guesses.append(_solution_from(sub, f"guesses[{k - 1}]", sizes))
    return FclibFile(local=local, global_=glob, solutions=solutions, guesses=guesses, path=path)


def read_local(path: str | os.PathLike, *, dense: bool = False) -> FclibLocal:
    """The local problem of an FCLIB file (InvalidProblemError('fclib_local') if there is none)."""
    data = read_fclib(path, dense=dense)
    if data.local is None:
        raise InvalidProblemError("fclib_local", f"{path} has no /fclib_local group")
    return data.local


def read_global(path: str | os.PathLike, *, dense: bool = False) -> FclibGlobal:
    """The global problem of an FCLIB file (InvalidProblemError('fclib_global') if there is none)."""
    data = read_fclib(path, dense=dense)
    if data.global_ is None:
        raise InvalidProblemError("fclib_global", f"{path} has no /fclib_global group")
    return data.global_

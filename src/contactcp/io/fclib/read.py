"""Reading FCLIB files (HDF5): every object checked before any data are read (no links, external
storage or virtual datasets), every size bounded before it is allocated."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from contactcp._validate import check_memory
from contactcp.errors import InvalidProblemError
from contactcp.io.fclib.model import (  # noqa: F401
    _INFO_STRINGS,
    _MATRIX_INFO_FLOATS,
    _SPARSITY,
    FclibFile,
    FclibGlobal,
    FclibLocal,
    FclibSolution,
    _check_global,
    _check_local,
    _check_solution,
    _matrix,
    _sizes,
    _spacedim,
    _vector,
)

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
        raise InvalidProblemError(
            field_name,
            f"{where} is an external link to {link.filename}:{link.path}; refused (it would read another file)",
        )
    if isinstance(link, h5py.SoftLink):
        raise InvalidProblemError(
            field_name,
            f"{where} is a soft link to {link.path}; refused (FCLIB files hold plain groups and datasets, not links)",
        )
    if not isinstance(link, h5py.HardLink):  # pragma: no cover - user-defined link classes
        raise InvalidProblemError(field_name, f"{where} is a link of an unknown kind; refused")
    obj = parent.get(key)
    if isinstance(obj, h5py.Dataset):
        _check_dataset(obj, field_name)
    return obj


def _check_dataset(ds, field_name: str) -> None:
    """Refuse a dataset whose bytes live outside this file, or whose size cannot fit in memory."""
    if ds.is_virtual:
        raise InvalidProblemError(
            field_name, f"dataset {ds.name} is a virtual dataset (its data come from other files); refused"
        )
    if ds.external:
        files = ", ".join(str(e[0]) for e in ds.external)
        raise InvalidProblemError(
            field_name,
            f"dataset {ds.name} uses HDF5 external storage (file(s) {files}); refused (it would read another file)",
        )
    check_memory(float(ds.size) * ds.dtype.itemsize, field_name, f"dataset {ds.name} (shape {ds.shape})", "refused")


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
            raise InvalidProblemError(
                name, f"pointer array {g.name}/p is not nondecreasing from 0 to at most nzmax = {nzmax}"
            )
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
    return FclibLocal(
        W=mats[0], q=q, mu=mu, spacedim=d, V=mats[1], R=mats[2], s=s, info=_read_info(root), matrix_info=minfo
    )


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
    return FclibGlobal(
        M=mats[0], H=mats[1], G=mats[2], f=f, b=b, w=w, mu=mu, spacedim=d, info=_read_info(root), matrix_info=minfo
    )


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

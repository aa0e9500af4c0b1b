"""FCLIB HDF5 files: round trips, the on-disk layout, bad files, and the reference C library."""

from __future__ import annotations

import ctypes.util
import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest
import scipy.sparse as sp

from contactcp.errors import InvalidProblemError
from contactcp.io.fclib import (
    FclibFile,
    FclibGlobal,
    FclibLocal,
    FclibSolution,
    read_fclib,
    read_global,
    read_local,
    write_global,
    write_local,
)

# ------------------------------------------------------------------ helpers


def _sparse(rng, m, n, density=0.4):
    A = sp.random(m, n, density=density, format="csc", random_state=rng, dtype=np.float64)
    A.data = np.round(A.data * 10 - 5, 3) + 1e-3 / 7  # not exactly representable in few digits
    return A


def _local(rng, n_c=3, d=3, with_vr=False, dense=False):
    m = n_c * d
    W = _sparse(rng, m, m) + sp.identity(m, format="csc") * 4.0
    W = W.tocsc()
    pb = FclibLocal(
        W=W.toarray() if dense else W,
        q=rng.standard_normal(m),
        mu=rng.uniform(0.1, 1.0, n_c),
        spacedim=d,
        info={"title": "boxes", "description": "a random problem", "math_info": "none"},
    )
    if with_vr:
        p = 2
        pb.V = _sparse(rng, m, p, 0.6)
        pb.R = sp.csc_matrix(np.eye(p) * 2.0)
        pb.s = rng.standard_normal(p)
    return pb


def _sol(rng, nv, nr, nl):
    return FclibSolution(
        v=rng.standard_normal(nv) if nv else None,
        u=rng.standard_normal(nr),
        r=rng.standard_normal(nr),
        l=rng.standard_normal(nl) if nl else None,
    )


def _same_sparse(A, B):
    assert sp.issparse(A) and A.format == "csc"
    B = sp.csc_matrix(B)
    assert A.shape == B.shape
    assert np.array_equal(A.indptr, B.indptr)
    assert np.array_equal(A.indices, B.indices)
    assert np.array_equal(A.data, B.data)


def _same_solution(a: FclibSolution, b: FclibSolution):
    for key in ("v", "u", "r", "l"):
        x, y = getattr(a, key), getattr(b, key)
        assert (x is None) == (y is None), key
        if x is not None:
            assert np.array_equal(x, y), key


def _raises(field, fn, *args, **kw):
    with pytest.raises(InvalidProblemError) as info:
        fn(*args, **kw)
    assert info.value.field == field, str(info.value)
    return info.value


# --------------------------------------------------------------- round trips


def test_local_sparse_roundtrip_with_solution_and_guesses(tmp_path):
    rng = np.random.default_rng(0)
    pb = _local(rng)
    pb.info["numberOfDegreeOfFreedom"] = 42
    pb.matrix_info = {"W": {"comment": "Delassus", "conditioning": 12.5, "determinant": 3.25, "rank": 9}}
    sol = _sol(rng, 0, 9, 0)
    guesses = [_sol(rng, 0, 9, 0) for _ in range(3)]
    path = tmp_path / "local.hdf5"
    write_local(path, pb, sol, guesses)
    data = read_fclib(path)
    assert isinstance(data, FclibFile) and data.global_ is None
    got = data.local
    _same_sparse(got.W, pb.W)
    assert np.array_equal(got.q, pb.q) and np.array_equal(got.mu, pb.mu)
    assert got.spacedim == 3 and got.n_contacts == 3
    assert got.V is None and got.R is None and got.s is None
    assert got.info == pb.info
    assert got.matrix_info == pb.matrix_info
    assert len(data.solutions) == 1
    _same_solution(data.solutions[0], sol)
    assert len(data.guesses) == 3
    for a, b in zip(data.guesses, guesses):
        _same_solution(a, b)
    # read_local is the same problem; no stray temporary files
    _same_sparse(read_local(path).W, pb.W)
    assert sorted(os.listdir(tmp_path)) == ["local.hdf5"]


def test_local_dense_roundtrip_2d_with_V_R(tmp_path):
    rng = np.random.default_rng(1)
    pb = _local(rng, n_c=4, d=2, with_vr=True, dense=True)
    sol = _sol(rng, 0, 8, 2)
    path = tmp_path / "dense.h5"
    write_local(path, pb, sol, [_sol(rng, 0, 8, 2)])
    got = read_local(path, dense=True)
    assert isinstance(got.W, np.ndarray) and np.array_equal(got.W, pb.W)
    assert np.array_equal(got.V, pb.V.toarray()) and np.array_equal(got.R, pb.R.toarray())
    assert np.array_equal(got.s, pb.s) and got.spacedim == 2
    sparse = read_local(path)
    assert sparse.W.format == "csc" and np.array_equal(sparse.W.toarray(), pb.W)
    _same_solution(read_fclib(path).solutions[0], sol)


def test_global_roundtrip(tmp_path):
    rng = np.random.default_rng(2)
    n, n_c, p = 6, 2, 2
    M = (_sparse(rng, n, n) + sp.identity(n) * 5).tocsc()
    H = _sparse(rng, n, 3 * n_c, 0.5)
    G = _sparse(rng, n, p, 0.5)
    pb = FclibGlobal(
        M=M,
        H=H,
        G=G,
        f=rng.standard_normal(n),
        b=rng.standard_normal(p),
        w=rng.standard_normal(3 * n_c),
        mu=np.array([0.3, 0.0]),
        spacedim=3,
        info={"title": "global"},
        matrix_info={"H": {"conditioning": 1.0, "determinant": 0.0, "rank": 5}},
    )
    sol = _sol(rng, n, 3 * n_c, p)
    guesses = [_sol(rng, n, 3 * n_c, p), _sol(rng, n, 3 * n_c, p)]
    path = tmp_path / "global.hdf5"
    write_global(path, pb, sol, guesses)
    data = read_fclib(path)
    assert data.local is None
    got = data.global_
    for key in ("M", "H", "G"):
        _same_sparse(getattr(got, key), getattr(pb, key))
    for key in ("f", "b", "w", "mu"):
        assert np.array_equal(getattr(got, key), getattr(pb, key)), key
    assert got.spacedim == 3 and got.n_contacts == n_c and got.info == {"title": "global"}
    assert got.matrix_info == pb.matrix_info
    _same_solution(data.solutions[0], sol)
    for a, b in zip(data.guesses, guesses, strict=True):
        _same_solution(a, b)
    # without G and b; triplet storage
    pb2 = FclibGlobal(M=M.toarray(), H=H, G=None, f=pb.f, b=None, w=pb.w, mu=pb.mu, spacedim=3)
    write_global(path, pb2, FclibSolution(v=sol.v, u=sol.u, r=sol.r), storage="triplet")
    got2 = read_global(path)
    assert got2.G is None and got2.b is None
    assert np.array_equal(got2.M.toarray(), M.toarray()) and np.array_equal(got2.H.toarray(), H.toarray())
    with h5py.File(path) as h5:
        assert int(h5["fclib_global/H/nz"][0]) == H.nnz


def test_fclib_problem_bridge():
    rng = np.random.default_rng(3)
    pb = _local(rng, n_c=2)
    fc = pb.to_problem()
    assert fc.dim == 3 and fc.n_c == 2
    back = FclibLocal.from_problem(fc, info={"title": "x"})
    assert np.array_equal(back.q, pb.q) and np.array_equal(sp.csc_matrix(back.W).toarray(), pb.W.toarray())


# ------------------------------------------------------------------ layout


def test_layout_matches_reference_library(tmp_path):
    """Datasets (never attributes), native int32 scalars of shape (1,), nul-terminated strings."""
    rng = np.random.default_rng(4)
    path = tmp_path / "layout.h5"
    pb = _local(rng, n_c=2)
    pb.info["numberOfDegreeOfFreedom"] = 7
    write_local(path, pb, _sol(rng, 0, 6, 0), [_sol(rng, 0, 6, 0)])
    with h5py.File(path) as h5:
        assert set(h5) == {"fclib_local", "solution", "guesses"}
        root = h5["fclib_local"]
        assert set(root) == {"spacedim", "W", "vectors", "info"}
        for ds in (
            root["spacedim"],
            root["W/nzmax"],
            root["W/m"],
            root["W/n"],
            root["W/nz"],
            h5["guesses/number_of_guesses"],
        ):
            assert ds.shape == (1,) and ds.dtype == np.dtype(np.intc)
        assert root["spacedim"][0] == 3 and root["W/nz"][0] == -1
        assert root["W/p"].dtype == np.intc and root["W/p"].shape == (7,)
        assert root["W/i"].dtype == np.intc and root["W/x"].dtype == np.float64
        assert root["W/i"].shape == root["W/x"].shape == (int(root["W/nzmax"][0]),)
        assert set(root["vectors"]) == {"q", "mu"} and root["vectors/mu"].shape == (2,)
        title = root["info/title"]
        tid = title.id.get_type()
        assert title.shape == () and not tid.is_variable_str()
        assert tid.get_strpad() == h5py.h5t.STR_NULLTERM and tid.get_size() == len("boxes") + 1
        assert title[()] == b"boxes"
        assert list(root["info"].attrs["numberOfDegreeOfFreedom"]) == [7]
        assert root["info"].attrs["numberOfDegreeOfFreedom"].dtype == np.intc
        assert set(h5["solution"]) == {"u", "r"} and set(h5["guesses"]) == {"number_of_guesses", "1"}


def _write_raw_local(path, W_group: dict, q, mu, spacedim=3, extra=None):
    with h5py.File(path, "w") as h5:
        root = h5.create_group("fclib_local")
        root.create_dataset("spacedim", data=np.array([spacedim], dtype=np.int32))
        g = root.create_group("W")
        for key, value in W_group.items():
            dtype = np.float64 if key == "x" else np.int32
            g.create_dataset(key, data=np.atleast_1d(np.asarray(value, dtype=dtype)))
        vec = root.create_group("vectors")
        vec.create_dataset("q", data=np.asarray(q, dtype=np.float64))
        vec.create_dataset("mu", data=np.asarray(mu, dtype=np.float64))
        if extra:
            extra(h5)


def test_triplet_and_csr_storage_read(tmp_path):
    W = np.array(
        [
            [4.0, 1.0, 0.0, 0.0, 0.0, 2.0],
            [0.0, 4.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 4.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 5.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 5.0, 0.0],
            [0.0, -3.0, 0.0, 0.0, 0.0, 5.0],
        ]
    )
    rows, cols = np.nonzero(W)
    vals = W[rows, cols]
    # triplet: i = rows, p = columns (CSparse), one entry split into a duplicate,
    # and x / i / p padded to nzmax beyond nz as older writers did
    rows_t = np.r_[rows, 0, 99]
    cols_t = np.r_[cols, 0, 99]
    vals_t = np.r_[vals, 0.0, 1e300]
    vals_t[0] = 3.0  # W[0, 0] = 3 + 1 from the duplicate
    vals_t[-2] = 1.0
    nz = rows.size + 1
    q, mu = np.arange(6.0), np.array([0.5, 0.25])
    path = tmp_path / "triplet.h5"
    _write_raw_local(path, {"nzmax": nz + 1, "m": 6, "n": 6, "nz": nz, "p": cols_t, "i": rows_t, "x": vals_t}, q, mu)
    got = read_local(path)
    assert got.W.format == "csc"
    assert np.array_equal(got.W.toarray(), W)
    assert np.array_equal(got.q, q) and np.array_equal(got.mu, mu)
    # compressed rows (nz = -2)
    R = sp.csr_matrix(W)
    path2 = tmp_path / "csr.h5"
    _write_raw_local(
        path2, {"nzmax": R.nnz, "m": 6, "n": 6, "nz": -2, "p": R.indptr, "i": R.indices, "x": R.data}, q, mu
    )
    assert np.array_equal(read_local(path2).W.toarray(), W)
    # our own triplet writer round-trips exactly
    path3 = tmp_path / "ours.h5"
    write_local(path3, FclibLocal(W=sp.csc_matrix(W), q=q, mu=mu), storage="triplet")
    with h5py.File(path3) as h5:
        g = h5["fclib_local/W"]
        assert g["nz"][0] == g["nzmax"][0] == np.count_nonzero(W)
        assert np.array_equal(W[g["i"][:], g["p"][:]], g["x"][:])
    assert np.array_equal(read_local(path3, dense=True).W, W)


# ---------------------------------------------------------------- bad files


def test_not_hdf5_and_missing_file(tmp_path):
    path = tmp_path / "text.hdf5"
    path.write_text("not an HDF5 file\n")
    err = _raises("file", read_fclib, path)
    assert "HDF5" in err.problem
    _raises("file", read_local, tmp_path / "nope.hdf5")


def test_missing_groups(tmp_path):
    path = tmp_path / "empty.h5"
    with h5py.File(path, "w") as h5:
        h5.create_group("something_else")
    _raises("fclib_local", read_fclib, path)
    _raises("fclib_local", read_local, path)
    # a global-only file has no local problem, and vice versa
    rng = np.random.default_rng(5)
    write_local(path, _local(rng, n_c=1))
    _raises("fclib_global", read_global, path)
    q, mu = np.zeros(3), np.ones(1)
    eye = sp.csc_matrix(np.eye(3))
    raw = {"nzmax": 3, "m": 3, "n": 3, "nz": -1, "p": eye.indptr, "i": eye.indices, "x": eye.data}
    _write_raw_local(path, raw, q, mu, extra=lambda h5: h5["fclib_local"].pop("vectors"))
    _raises("vectors", read_local, path)
    _write_raw_local(path, raw, q, mu, extra=lambda h5: h5["fclib_local"].pop("W"))
    _raises("W", read_local, path)
    _write_raw_local(path, raw, q, mu, extra=lambda h5: h5["fclib_local/vectors"].pop("q"))
    _raises("q", read_local, path)
    _write_raw_local(path, raw, q, mu, extra=lambda h5: h5["fclib_local"].pop("spacedim"))
    _raises("spacedim", read_local, path)


def test_bad_shapes_and_values_in_file(tmp_path):
    path = tmp_path / "bad.h5"
    eye6 = sp.csc_matrix(np.eye(6))
    good = {"nzmax": 6, "m": 6, "n": 6, "nz": -1, "p": eye6.indptr, "i": eye6.indices, "x": eye6.data}
    q, mu = np.ones(6), np.array([0.5, 0.5])
    _write_raw_local(path, good, q, mu)
    read_local(path)  # the baseline is fine

    cases = [
        ("W", dict(good, n=5, p=eye6.indptr[:6]), q, mu, 3),  # not square
        ("mu", good, q, mu, 2),  # spacedim 2: 3 contacts
        ("q", good, np.ones(5), mu, 3),
        ("mu", good, q, np.array([0.5, 0.5, 0.5]), 3),
        ("mu[1]", good, q, np.array([0.5, -0.1]), 3),
        ("mu", good, q, np.array([0.5, np.nan]), 3),
        ("q", good, np.r_[1.0, np.nan, 1, 1, 1, 1], mu, 3),
        ("W", dict(good, x=np.r_[1.0, np.inf, 1, 1, 1, 1]), q, mu, 3),
        ("W", dict(good, nz=-7), q, mu, 3),  # unknown storage
        ("W", dict(good, i=np.r_[0, 1, 2, 3, 4, 6]), q, mu, 3),  # row index out of range
        ("W", dict(good, p=np.r_[0, 2, 1, 3, 4, 5, 6]), q, mu, 3),  # pointers decrease
        ("spacedim", good, q, mu, 4),
    ]
    for field, W, qq, mm, d in cases:
        _write_raw_local(path, W, qq, mm, spacedim=d)
        _raises(field, read_local, path)
    # W not a multiple of spacedim
    eye4 = sp.csc_matrix(np.eye(4))
    _write_raw_local(
        path,
        {"nzmax": 4, "m": 4, "n": 4, "nz": -1, "p": eye4.indptr, "i": eye4.indices, "x": eye4.data},
        np.ones(4),
        np.ones(1),
    )
    _raises("W", read_local, path)
    # a guess that is too short
    _write_raw_local(
        path,
        good,
        q,
        mu,
        extra=lambda h5: (
            h5.create_group("guesses").create_dataset("number_of_guesses", data=np.array([1], dtype=np.int32)),
            h5["guesses"].create_group("1").create_dataset("r", data=np.ones(5)),
        ),
    )
    _raises("guesses[0].r", read_fclib, path)
    _write_raw_local(
        path,
        good,
        q,
        mu,
        extra=lambda h5: h5.create_group("guesses").create_dataset(
            "number_of_guesses", data=np.array([2], dtype=np.int32)
        ),
    )
    _raises("guesses", read_fclib, path)


def test_write_validation_and_atomicity(tmp_path, monkeypatch):
    rng = np.random.default_rng(6)
    path = tmp_path / "p.hdf5"
    pb = _local(rng)
    write_local(path, pb)
    before = path.read_bytes()

    def bad(**changes):
        kw = dict(W=pb.W, q=pb.q, mu=pb.mu, spacedim=3)
        kw.update(changes)
        return FclibLocal(**kw)

    _raises("mu[2]", write_local, path, bad(mu=np.array([0.1, 0.2, -0.3])))
    _raises("mu", write_local, path, bad(mu=np.ones(4)))
    _raises("q", write_local, path, bad(q=np.ones(8)))
    _raises("q", write_local, path, bad(q=np.r_[np.nan, np.ones(8)]))
    _raises("W", write_local, path, bad(W=np.ones((9, 6))))
    _raises("W", write_local, path, bad(W=np.eye(8), q=np.ones(8), mu=np.ones(2)))
    _raises("spacedim", write_local, path, bad(spacedim=4))
    _raises("R", write_local, path, FclibLocal(W=pb.W, q=pb.q, mu=pb.mu, V=np.ones((9, 1))))
    _raises("solution.r", write_local, path, pb, FclibSolution(u=np.ones(9), r=np.ones(8)))
    _raises("solution.u", write_local, path, pb, FclibSolution(r=np.ones(9)))
    _raises("solution.v", write_local, path, pb, FclibSolution(v=np.ones(9), u=np.ones(9), r=np.ones(9)))
    _raises(
        "guesses[1].u",
        write_local,
        path,
        pb,
        None,
        [FclibSolution(u=np.ones(9), r=np.ones(9)), FclibSolution(u=np.ones(3), r=np.ones(9))],
    )
    _raises(
        "b",
        write_global,
        path,
        FclibGlobal(M=np.eye(3), H=np.eye(3), G=np.ones((3, 1)), f=np.ones(3), b=None, w=np.ones(3), mu=np.ones(1)),
    )
    _raises(
        "H",
        write_global,
        path,
        FclibGlobal(M=np.eye(3), H=np.eye(4), G=None, f=np.ones(3), b=None, w=np.ones(4), mu=np.ones(1)),
    )
    _raises(
        "matrix_info['W']",
        write_local,
        path,
        FclibLocal(W=pb.W, q=pb.q, mu=pb.mu, matrix_info={"W": {"conditioning": 1.0}}),
    )
    assert path.read_bytes() == before

    # a failure in the middle of writing leaves the old file and no temporary file
    import contactcp.io.fclib.write as mod

    real = mod._write_doubles

    def explode(g, name, values):
        if name == "mu":
            raise OSError("disk full")
        return real(g, name, values)

    monkeypatch.setattr(mod, "_write_doubles", explode)
    with pytest.raises(OSError, match="disk full"):
        write_local(path, _local(rng))
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["p.hdf5"]
    _same_sparse(read_local(path).W, pb.W)


# ----------------------------------------------------- reference C library

_HELPER = r"""
import ctypes, ctypes.util, json, sys

lib = ctypes.CDLL(ctypes.util.find_library("fclib"))
I, D, P = ctypes.c_int, ctypes.c_double, ctypes.POINTER

class Info(ctypes.Structure):
    _fields_ = [("title", ctypes.c_char_p), ("description", ctypes.c_char_p), ("math_info", ctypes.c_char_p)]

class MInfo(ctypes.Structure):
    _fields_ = [("comment", ctypes.c_char_p), ("conditioning", D), ("determinant", D), ("rank", I)]

class Mat(ctypes.Structure):
    _fields_ = [("nzmax", I), ("m", I), ("n", I), ("p", P(I)), ("i", P(I)), ("x", P(D)), ("nz", I),
                ("info", P(MInfo))]

class Local(ctypes.Structure):
    _fields_ = [("W", P(Mat)), ("V", P(Mat)), ("R", P(Mat)), ("mu", P(D)), ("q", P(D)), ("s", P(D)),
                ("spacedim", I), ("info", P(Info))]

class Global(ctypes.Structure):
    _fields_ = [("M", P(Mat)), ("H", P(Mat)), ("G", P(Mat)), ("mu", P(D)), ("f", P(D)), ("b", P(D)),
                ("w", P(D)), ("spacedim", I), ("info", P(Info))]

class Sol(ctypes.Structure):
    _fields_ = [("v", P(D)), ("u", P(D)), ("r", P(D)), ("l", P(D))]

lib.fclib_read_local.restype = P(Local)
lib.fclib_read_global.restype = P(Global)
lib.fclib_read_solution.restype = P(Sol)
lib.fclib_read_guesses.restype = P(Sol)
lib.fclib_merit_local.restype = D
lib.fclib_merit_local.argtypes = [P(Local), I, P(Sol)]

def vec(ptr, n):
    return None if not ptr or n == 0 else [ptr[k] for k in range(n)]

def mat_out(mp):
    if not mp:
        return None
    A = mp.contents
    if A.nz == -1:
        np_, ni = A.n + 1, A.nzmax
    elif A.nz == -2:
        np_, ni = A.m + 1, A.nzmax
    else:
        np_ = ni = A.nz
    out = dict(m=A.m, n=A.n, nz=A.nz, nzmax=A.nzmax, p=vec(A.p, np_) or [], i=vec(A.i, ni) or [],
               x=vec(A.x, ni) or [])
    if A.info:
        inf = A.info.contents
        out["info"] = dict(comment=inf.comment and inf.comment.decode(), conditioning=inf.conditioning,
                           determinant=inf.determinant, rank=inf.rank)
    return out

def info_out(ip):
    if not ip:
        return None
    inf = ip.contents
    return {k: getattr(inf, k).decode() for k in ("title", "description", "math_info") if getattr(inf, k)}

def ints(v): return (I * len(v))(*v)
def dbls(v): return None if v is None else (D * max(len(v), 1))(*v)

def mat_in(d):
    if d is None:
        return None
    return ctypes.pointer(Mat(nzmax=d["nzmax"], m=d["m"], n=d["n"], p=ints(d["p"]), i=ints(d["i"]),
                              x=dbls(d["x"]), nz=d["nz"]))

def sol_in(d):
    return Sol(**{k: dbls(d.get(k)) for k in ("v", "u", "r", "l") if d.get(k) is not None})

def sol_out(sp, nv, nr, nl):
    s = sp if isinstance(sp, Sol) else sp.contents
    return dict(v=vec(s.v, nv), u=vec(s.u, nr), r=vec(s.r, nr), l=vec(s.l, nl))

cmd = json.load(sys.stdin)
path = cmd["path"].encode()
out = {}
if cmd["op"] == "probe":
    out["ok"] = True
elif cmd["op"] == "read_local":
    pp = lib.fclib_read_local(path)
    if not pp:
        sys.exit("fclib_read_local returned NULL")
    pb = pp.contents
    nr = pb.W.contents.n
    nl = pb.R.contents.n if pb.R else 0
    out.update(spacedim=pb.spacedim, W=mat_out(pb.W), V=mat_out(pb.V), R=mat_out(pb.R),
               q=vec(pb.q, pb.W.contents.m), mu=vec(pb.mu, pb.W.contents.m // pb.spacedim),
               s=vec(pb.s, pb.R.contents.m if pb.R else 0), info=info_out(pb.info))
    if cmd.get("solution"):
        sol = lib.fclib_read_solution(path)
        out["solution"] = sol_out(sol, 0, nr, nl)
        if pb.spacedim == 3:
            out["merit"] = lib.fclib_merit_local(pp, 0, sol)
    if cmd.get("guesses"):
        count = I(0)
        gs = lib.fclib_read_guesses(path, ctypes.byref(count))
        out["guesses"] = [sol_out(gs[k], 0, nr, nl) for k in range(count.value)]
elif cmd["op"] == "read_global":
    pp = lib.fclib_read_global(path)
    if not pp:
        sys.exit("fclib_read_global returned NULL")
    pb = pp.contents
    nv, nr = pb.M.contents.n, pb.H.contents.n
    nl = pb.G.contents.n if pb.G else 0
    out.update(spacedim=pb.spacedim, M=mat_out(pb.M), H=mat_out(pb.H), G=mat_out(pb.G),
               f=vec(pb.f, pb.M.contents.m), w=vec(pb.w, nr), mu=vec(pb.mu, nr // pb.spacedim),
               b=vec(pb.b, nl), info=info_out(pb.info))
    if cmd.get("solution"):
        out["solution"] = sol_out(lib.fclib_read_solution(path), nv, nr, nl)
elif cmd["op"] in ("write_local", "write_global"):
    d = cmd["problem"]
    info = None
    if d.get("info"):
        info = ctypes.pointer(Info(**{k: v.encode() for k, v in d["info"].items()}))
    if cmd["op"] == "write_local":
        pb = Local(W=mat_in(d["W"]), V=mat_in(d.get("V")), R=mat_in(d.get("R")), mu=dbls(d["mu"]),
                   q=dbls(d["q"]), s=dbls(d.get("s")), spacedim=d["spacedim"], info=info)
        ok = lib.fclib_write_local(ctypes.byref(pb), path)
    else:
        pb = Global(M=mat_in(d["M"]), H=mat_in(d["H"]), G=mat_in(d.get("G")), mu=dbls(d["mu"]),
                    f=dbls(d["f"]), b=dbls(d.get("b")), w=dbls(d["w"]), spacedim=d["spacedim"], info=info)
        ok = lib.fclib_write_global(ctypes.byref(pb), path)
    if ok != 1:
        sys.exit("fclib_write failed")
    if cmd.get("solution"):
        sol = sol_in(cmd["solution"])
        if lib.fclib_write_solution(ctypes.byref(sol), path) != 1:
            sys.exit("fclib_write_solution failed")
    if cmd.get("guesses"):
        arr = (Sol * len(cmd["guesses"]))(*[sol_in(g) for g in cmd["guesses"]])
        if lib.fclib_write_guesses(len(cmd["guesses"]), arr, path) != 1:
            sys.exit("fclib_write_guesses failed")
    for name, value in cmd.get("int_attrs", {}).items():
        lib.fclib_create_int_attributes_in_info(path, name.encode(), value)
    out["ok"] = True
json.dump(out, sys.stdout)
"""


@pytest.fixture(scope="module")
def fclib_c(tmp_path_factory):
    """Runs the reference C library (through ctypes) in a child process, skipping when absent.

    A child process because the library aborts the process (exit(1)) on any
    HDF5 failure and links its own, older HDF5 next to h5py's.
    """
    if ctypes.util.find_library("fclib") is None:
        pytest.skip("the reference FCLIB C library (libfclib, e.g. Debian's libfclib-dev) is not installed")
    script = tmp_path_factory.mktemp("fclib_c") / "fclib_helper.py"
    script.write_text(_HELPER)

    def run(cmd: dict) -> dict:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        proc = subprocess.run(
            [sys.executable, "-I", str(script)],
            input=json.dumps(cmd),
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        if proc.returncode != 0:
            raise AssertionError(f"fclib helper failed ({proc.returncode}): {proc.stderr or proc.stdout}")
        return json.loads(proc.stdout)

    try:
        run({"op": "probe", "path": ""})
    except AssertionError as exc:
        pytest.skip(f"the FCLIB C library cannot be loaded: {exc}")
    return run


def _dense(raw: dict) -> np.ndarray:
    """A matrix as the C library holds it (CSparse conventions) -> dense."""
    m, n, nz = raw["m"], raw["n"], raw["nz"]
    A = np.zeros((m, n))
    if nz == -1:
        for j in range(n):
            for k in range(raw["p"][j], raw["p"][j + 1]):
                A[raw["i"][k], j] += raw["x"][k]
    elif nz == -2:
        for r in range(m):
            for k in range(raw["p"][r], raw["p"][r + 1]):
                A[r, raw["i"][k]] += raw["x"][k]
    else:
        for k in range(nz):
            A[raw["i"][k], raw["p"][k]] += raw["x"][k]
    return A


def _raw_triplet(A) -> dict:
    C = sp.coo_matrix(A)
    return dict(
        nzmax=int(C.nnz),
        m=C.shape[0],
        n=C.shape[1],
        nz=int(C.nnz),
        p=C.col.tolist(),
        i=C.row.tolist(),
        x=C.data.tolist(),
    )


def _raw_csc(A) -> dict:
    C = sp.csc_matrix(A)
    return dict(
        nzmax=int(C.nnz),
        m=C.shape[0],
        n=C.shape[1],
        nz=-1,
        p=C.indptr.tolist(),
        i=C.indices.tolist(),
        x=C.data.tolist(),
    )


def _c_merit(problem: FclibLocal, r: np.ndarray) -> float:
    """fclib_merit_local (MERIT_1) by its definition: ||natural map|| / (1 + sqrt(||q||))."""
    fc = problem.to_problem()
    u = fc.u(r)
    return float(np.linalg.norm(fc.natural_map(r, u))) / (1.0 + np.sqrt(np.linalg.norm(problem.q)))


def test_c_library_reads_our_local_file(tmp_path, fclib_c):
    rng = np.random.default_rng(7)
    pb = _local(rng, n_c=4)  # nonsymmetric sparse W: catches a transposed reading
    assert abs(pb.W - pb.W.T).max() > 0
    pb.matrix_info = {"W": {"comment": "nonsymmetric", "conditioning": 2.0, "determinant": -1.5, "rank": 12}}
    r = rng.standard_normal(12)
    sol = FclibSolution(u=pb.to_problem().u(r), r=r)
    guesses = [_sol(rng, 0, 12, 0), _sol(rng, 0, 12, 0)]
    path = tmp_path / "ours.hdf5"
    write_local(path, pb, sol, guesses)
    got = fclib_c({"op": "read_local", "path": str(path), "solution": True, "guesses": True})
    assert got["spacedim"] == 3
    assert np.array_equal(_dense(got["W"]), pb.W.toarray())
    assert got["W"]["nz"] == -1 and got["W"]["nzmax"] == pb.W.nnz
    assert got["W"]["info"] == {"comment": "nonsymmetric", "conditioning": 2.0, "determinant": -1.5, "rank": 12}
    assert np.array_equal(got["q"], pb.q) and np.array_equal(got["mu"], pb.mu)
    assert got["V"] is None and got["R"] is None
    assert got["info"] == pb.info
    assert np.array_equal(got["solution"]["u"], sol.u) and np.array_equal(got["solution"]["r"], sol.r)
    assert len(got["guesses"]) == 2
    for a, b in zip(got["guesses"], guesses):
        assert np.array_equal(a["u"], b.u) and np.array_equal(a["r"], b.r)
    # the C merit function sees the same problem (W orientation, q, mu, spacedim) as we do
    assert got["merit"] == pytest.approx(_c_merit(pb, r), rel=1e-10)
    assert got["merit"] > 1e-3


def test_c_library_writes_a_local_file_we_read_and_rewrite(tmp_path, fclib_c):
    rng = np.random.default_rng(8)
    W = (_sparse(rng, 6, 6, 0.5) + sp.identity(6) * 3).tocsc()
    q, mu = rng.standard_normal(6), np.array([0.4, 0.9])
    sol = {"u": rng.standard_normal(6).tolist(), "r": rng.standard_normal(6).tolist()}
    guess = {"u": rng.standard_normal(6).tolist(), "r": rng.standard_normal(6).tolist()}
    info = {"title": "from C", "description": "triplet W", "math_info": "PSD?"}
    path = tmp_path / "from_c.hdf5"
    fclib_c(
        {
            "op": "write_local",
            "path": str(path),
            "solution": sol,
            "guesses": [guess, guess],
            "int_attrs": {"numberOfDegreeOfFreedom": 17},
            "problem": {"W": _raw_triplet(W), "q": q.tolist(), "mu": mu.tolist(), "spacedim": 3, "info": info},
        }
    )
    data = read_fclib(path)
    got = data.local
    assert np.array_equal(got.W.toarray(), W.toarray())
    assert np.array_equal(got.q, q) and np.array_equal(got.mu, mu) and got.spacedim == 3
    assert got.info == dict(info, numberOfDegreeOfFreedom=17)
    assert np.array_equal(data.solutions[0].u, sol["u"]) and np.array_equal(data.solutions[0].r, sol["r"])
    assert data.solutions[0].v is None and data.solutions[0].l is None
    assert len(data.guesses) == 2 and np.array_equal(data.guesses[1].r, guess["r"])

    # and what we write back (compressed columns) the C library reads identically
    again = tmp_path / "again.hdf5"
    write_local(again, got, data.solutions[0], data.guesses)
    back = fclib_c({"op": "read_local", "path": str(again), "solution": True, "guesses": True})
    assert np.array_equal(_dense(back["W"]), W.toarray())
    assert np.array_equal(back["q"], q) and np.array_equal(back["mu"], mu)
    assert back["info"] == info
    assert back["solution"]["r"] == sol["r"] and back["guesses"][0]["u"] == guess["u"]

    # with V, R, s (the mixed problem) in 2-D
    V, R, s = _sparse(rng, 6, 2, 0.7), sp.csc_matrix(np.diag([2.0, 3.0])), rng.standard_normal(2)
    mixed = FclibLocal(W=W, q=q, mu=np.array([0.1, 0.2, 0.3]), spacedim=2, V=V, R=R, s=s)
    msol = FclibSolution(u=rng.standard_normal(6), r=rng.standard_normal(6), l=rng.standard_normal(2))
    path2 = tmp_path / "mixed.hdf5"
    write_local(path2, mixed, msol)
    got2 = fclib_c({"op": "read_local", "path": str(path2), "solution": True})
    assert got2["spacedim"] == 2
    assert np.array_equal(_dense(got2["V"]), V.toarray()) and np.array_equal(_dense(got2["R"]), R.toarray())
    assert np.array_equal(got2["s"], s) and np.array_equal(got2["solution"]["l"], msol.l)


def test_c_library_global_both_ways(tmp_path, fclib_c):
    rng = np.random.default_rng(9)
    n, m, p = 5, 4, 1
    M = (_sparse(rng, n, n) + sp.identity(n) * 2).tocsc()
    H, G = _sparse(rng, n, m, 0.5), _sparse(rng, n, p, 0.8)
    pb = FclibGlobal(
        M=M,
        H=H,
        G=G,
        f=rng.standard_normal(n),
        b=rng.standard_normal(p),
        w=rng.standard_normal(m),
        mu=np.array([0.3, 0.6]),
        spacedim=2,
        info={"title": "g"},
    )
    sol = _sol(rng, n, m, p)
    path = tmp_path / "global.hdf5"
    write_global(path, pb, sol)
    got = fclib_c({"op": "read_global", "path": str(path), "solution": True})
    assert got["spacedim"] == 2
    for key in ("M", "H", "G"):
        assert np.array_equal(_dense(got[key]), getattr(pb, key).toarray()), key
    for key in ("f", "b", "w", "mu"):
        assert np.array_equal(got[key], getattr(pb, key)), key
    for key in ("v", "u", "r", "l"):
        assert np.array_equal(got["solution"][key], getattr(sol, key)), key
    assert got["info"] == {"title": "g"}

    # the C library writes one (triplet H, rectangular: rows i, columns p), we read it
    path2 = tmp_path / "from_c_global.hdf5"
    fclib_c(
        {
            "op": "write_global",
            "path": str(path2),
            "solution": {k: getattr(sol, k).tolist() for k in ("v", "u", "r", "l")},
            "problem": {
                "M": _raw_csc(M),
                "H": _raw_triplet(H),
                "G": _raw_csc(G),
                "f": pb.f.tolist(),
                "b": pb.b.tolist(),
                "w": pb.w.tolist(),
                "mu": pb.mu.tolist(),
                "spacedim": 2,
            },
        }
    )
    data = read_fclib(path2)
    g = data.global_
    for key in ("M", "H", "G"):
        assert np.array_equal(getattr(g, key).toarray(), getattr(pb, key).toarray()), key
    for key in ("f", "b", "w", "mu"):
        assert np.array_equal(getattr(g, key), getattr(pb, key)), key
    _same_solution(data.solutions[0], sol)
    assert g.info == {}

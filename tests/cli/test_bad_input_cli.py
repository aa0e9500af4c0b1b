"""The bad-input corpus of the command line: every case must end in exit code 2 with exactly one
line on stderr that names the field or the file, no traceback, nothing on stdout, no file left
behind and every existing file intact byte for byte.

Each row of CASES is (id, files, argv, needle): ``files`` maps a file name (in a fresh folder, the
current directory of the run) to its content (str, bytes, or a function writing the file), ``argv``
is the command line and ``needle`` a piece of text the error line must hold (the field or file).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from contactcp.cli import main
from support.paths import ROOT


@pytest.fixture(scope="module", autouse=True)
def _kernels_compiled():
    """Compile (or load) every kernel first and mark the compile notice as given: a case that
    reaches a kernel on a machine with a cold numba cache must not print it among its error lines
    (the notice has its own test below)."""
    import contactcp._jit as jit

    jit.warmup()
    said = jit._state["said"]
    jit._state["said"] = True
    yield
    jit._state["said"] = said


# ------------------------------------------------------------------ file makers


def npz(**arrays):
    def make(path: Path) -> None:
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)

    return make


def npz_pickle(path: Path) -> None:
    """An archive whose M is an object array: reading it would unpickle."""
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([[1.0, None]], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("M.npy", buf.getvalue())
        zf.writestr("q.npy", _npy(np.ones(2)))


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr)
    return buf.getvalue()


def npz_huge_header(path: Path) -> None:
    """M's header claims 10^6 x 10^6 floats (8 TB); the archive holds 16 bytes of data."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)})
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("M.npy", buf.getvalue() + b"\0" * 16)
        zf.writestr("q.npy", _npy(np.ones(2)))


def npz_truncated(path: Path) -> None:
    npz(M=np.eye(30), q=np.ones(30))(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def npz_bad_crc(path: Path) -> None:
    """A stored (uncompressed) archive with one byte of M's data flipped."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("M.npy", _npy(np.eye(4)))
        zf.writestr("q.npy", _npy(np.ones(4)))
    data = bytearray(path.read_bytes())
    data[200] ^= 0xFF
    path.write_bytes(bytes(data))


def npy_named_npz(path: Path) -> None:
    with open(path, "wb") as fh:
        np.save(fh, np.eye(2))


def lcp_json(M, q) -> str:
    return json.dumps({"M": M, "q": q})


BIG = "9" * 400


SCENE = {
    "bodies": [{"mass": 1.0, "inertia": 0.1}],
    "contacts": [{"body": 0, "point": [0, 0, 0], "normal": [0, 0, 1], "mu": 0.5}],
}
ARM_SCENE = {
    "bodies": [{"mass": 1.0, "inertia": 0.1}],
    "arms": [{"dh": [[0, 0, 0, 0]], "joint_types": "P", "masses": [0.1], "q": [0.0]}],
    "contacts": [{"body": 0, "point": [0, 0, 0], "normal": [0, 0, 1], "mu": 0.5, "other": {"arm": 0, "link": 0}}],
}


def scene(body=None, contact=None, arm=None, top=None, base=SCENE) -> str:
    d = json.loads(json.dumps(base))
    d["bodies"][0].update(body or {})
    d["contacts"][0].update(contact or {})
    if arm is not None:
        d["arms"][0].update(arm)
    d.update(top or {})
    return json.dumps(d)


def quasistatic_json(**changes) -> str:
    from contactcp.scenarios.pang1994 import _D, _J_N, _J_T, DATA

    P, td, mu = DATA[1]
    d = {"P": np.asarray(P, dtype=float).tolist(), "J_n": _J_N, "J_t": _J_T, "theta_dot": td, "d": _D, "mu": mu}
    d.update(changes)
    return json.dumps(d)


# --------------------------------------------------------------- FCLIB makers


def fclib(kind: str):
    def make(path: Path) -> None:
        import h5py

        from contactcp.io.fclib import FclibLocal, write_local

        write_local(path, FclibLocal(W=np.eye(3), q=np.array([-1.0, 0.0, 0.0]), mu=np.array([0.5])))
        folder = path.parent
        with h5py.File(path, "a") as f:
            vec = f["fclib_local/vectors"]
            if kind == "external":
                (folder / "secret.txt").write_bytes(b"SECRET-BYTES-OF-ANOTHER-FILE!!!")
                del vec["q"]
                vec.create_dataset("q", shape=(3,), dtype="<f8", external=[(str(folder / "secret.txt"), 0, 24)])
            elif kind == "elink":
                with h5py.File(folder / "other.h5", "w") as o:
                    o["q"] = np.array([7.0, 8.0, 9.0])
                del vec["q"]
                vec["q"] = h5py.ExternalLink(str(folder / "other.h5"), "/q")
            elif kind == "soft":
                f["elsewhere"] = np.array([1.0, 2.0, 3.0])
                del vec["q"]
                vec["q"] = h5py.SoftLink("/elsewhere")
            elif kind == "virtual":
                with h5py.File(folder / "source.h5", "w") as o:
                    o["d"] = np.array([7.0, 8.0, 9.0])
                layout = h5py.VirtualLayout(shape=(3,), dtype="f8")
                layout[:] = h5py.VirtualSource(str(folder / "source.h5"), "d", shape=(3,))
                del vec["q"]
                vec.create_virtual_dataset("q", layout)
            elif kind == "huge":
                del vec["q"]
                vec.create_dataset("q", shape=(10**12,), dtype="f8", chunks=(1024,))
            elif kind == "string_q":
                del vec["q"]
                vec["q"] = np.array([b"a", b"b", b"c"])
            elif kind == "spacedim4":
                del f["fclib_local/spacedim"]
                f["fclib_local/spacedim"] = np.array([4], dtype=np.intc)
            elif kind == "negative_mu":
                vec["mu"][0] = -0.5
            elif kind == "bad_storage":
                del f["fclib_local/W/nz"]
                f["fclib_local/W/nz"] = np.array([-7], dtype=np.intc)
            elif kind == "no_local":
                del f["fclib_local"]
            elif kind == "huge_matrix":
                for key in ("m", "n"):
                    del f[f"fclib_local/W/{key}"]
                    f[f"fclib_local/W/{key}"] = np.array([2**31 - 1], dtype=np.intc)
        if kind == "truncated":
            data = path.read_bytes()
            path.write_bytes(data[: len(data) // 3])

    return make


# ------------------------------------------------------------------ the corpus

_M2 = [[2, 1], [1, 2]]

_MJCF_BODY = '<mujoco><worldbody><body name="b">{joint}<geom {geom}/></body></worldbody></mujoco>'
_INERTIAL = '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
_URDF = (
    '<robot name="r"><link name="a"><collision><geometry>{mesh}</geometry></collision>' + _INERTIAL + "</link>"
    '<link name="b">' + _INERTIAL + '</link><joint name="j" type="{joint}"><parent link="a"/><child link="b"/>'
    '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>'
)

CASES = [
    # --- lcp, JSON files
    ("lcp-ragged-M", {"p.json": lcp_json([[1, 2], [3]], [1, 2])}, ["lcp", "p.json"], "M: is ragged"),
    ("lcp-ragged-q", {"p.json": lcp_json(_M2, [[1], [2, 3]])}, ["lcp", "p.json"], "q: is ragged"),
    ("lcp-400-digit-q", {"p.json": '{"M": [[1]], "q": [' + BIG + "]}"}, ["lcp", "p.json"], "q: entry at index 0"),
    ("lcp-400-digit-M", {"p.json": '{"M": [[' + BIG + ']], "q": [1]}'}, ["lcp", "p.json"], "M: entry at index (0, 0)"),
    ("lcp-5000-digit", {"p.json": '{"M": [[1]], "q": [' + "7" * 5000 + "]}"}, ["lcp", "p.json"], "p.json"),
    (
        "lcp-strings",
        {"p.json": lcp_json([["1", "2"], ["3", "4"]], [1, 2])},
        ["lcp", "p.json"],
        "M: cannot be read as numbers",
    ),
    ("lcp-booleans", {"p.json": lcp_json([[True, False], [False, True]], [1, 2])}, ["lcp", "p.json"], "M: "),
    ("lcp-bool-in-q", {"p.json": lcp_json(_M2, [1.5, True])}, ["lcp", "p.json"], "q: "),
    ("lcp-null-entry", {"p.json": lcp_json(_M2, [1, None])}, ["lcp", "p.json"], "q: "),
    ("lcp-object-entry", {"p.json": lcp_json([[{"a": 1}, 1], [1, 1]], [1, 2])}, ["lcp", "p.json"], "M: "),
    ("lcp-not-square", {"p.json": lcp_json([[1, 2, 3]], [1])}, ["lcp", "p.json"], "M: must be square"),
    ("lcp-q-length", {"p.json": lcp_json(_M2, [1, 2, 3])}, ["lcp", "p.json"], "q: must have length 2"),
    ("lcp-nan", {"p.json": '{"M": [[1]], "q": [NaN]}'}, ["lcp", "p.json"], "q: contains NaN"),
    ("lcp-infinity", {"p.json": '{"M": [[Infinity]], "q": [1]}'}, ["lcp", "p.json"], "M: contains inf"),
    ("lcp-missing-q", {"p.json": '{"M": [[1]]}'}, ["lcp", "p.json"], "missing 'q'"),
    ("lcp-missing-M", {"p.json": '{"q": [1]}'}, ["lcp", "p.json"], "missing 'M'"),
    ("lcp-json-array", {"p.json": "[[1]]"}, ["lcp", "p.json"], "p.json: must hold a JSON object"),
    ("lcp-json-string", {"p.json": '"M"'}, ["lcp", "p.json"], "p.json: must hold a JSON object"),
    ("lcp-not-json", {"p.json": "not json"}, ["lcp", "p.json"], "p.json: cannot be read"),
    ("lcp-empty-json", {"p.json": ""}, ["lcp", "p.json"], "p.json: cannot be read"),
    ("lcp-binary-json", {"p.json": bytes(range(256))}, ["lcp", "p.json"], "p.json: is not UTF-8"),
    ("lcp-deep-json", {"p.json": "[" * 100_000 + "]" * 100_000}, ["lcp", "p.json"], "p.json"),
    ("lcp-3d-M", {"p.json": lcp_json([[[1]]], [1])}, ["lcp", "p.json"], "M: must be a 2-D matrix"),
    ("lcp-scalar-M", {"p.json": lcp_json(3, [1])}, ["lcp", "p.json"], "M: must be a 2-D matrix"),
    ("lcp-empty-M", {"p.json": lcp_json([], [])}, ["lcp", "p.json"], "M: "),
    ("lcp-string-M", {"p.json": lcp_json("abc", [1])}, ["lcp", "p.json"], "M: cannot be read as numbers"),
    # --- lcp, .npz files
    ("npz-truncated", {"p.npz": npz_truncated}, ["lcp", "p.npz"], "p.npz: cannot be read"),
    ("npz-is-npy", {"p.npz": npy_named_npz}, ["lcp", "p.npz"], "p.npz: is a .npy file"),
    ("npz-pickle", {"p.npz": npz_pickle}, ["lcp", "p.npz"], "M: array 'M'"),
    ("npz-huge-header", {"p.npz": npz_huge_header}, ["lcp", "p.npz"], "M: array 'M'"),
    ("npz-bad-crc", {"p.npz": npz_bad_crc}, ["lcp", "p.npz"], "p.npz: cannot be read"),
    (
        "npz-complex",
        {"p.npz": npz(M=np.eye(2) * (1 + 1j), q=np.ones(2))},
        ["lcp", "p.npz"],
        "M: cannot be read as real numbers",
    ),
    (
        "npz-bool",
        {"p.npz": npz(M=np.eye(2, dtype=bool), q=np.ones(2))},
        ["lcp", "p.npz"],
        "M: cannot be read as real numbers",
    ),
    (
        "npz-strings",
        {"p.npz": npz(M=np.array([["1", "0"], ["0", "1"]]), q=np.ones(2))},
        ["lcp", "p.npz"],
        "M: cannot be read as real numbers",
    ),
    (
        "npz-datetime",
        {"p.npz": npz(M=np.eye(2).astype("datetime64[s]"), q=np.ones(2))},
        ["lcp", "p.npz"],
        "M: cannot be read as real numbers",
    ),
    (
        "npz-timedelta",
        {"p.npz": npz(M=np.eye(2), q=np.ones(2).astype("timedelta64[s]"))},
        ["lcp", "p.npz"],
        "q: cannot be read as real numbers",
    ),
    ("npz-missing-q", {"p.npz": npz(M=np.eye(2))}, ["lcp", "p.npz"], "missing 'q'"),
    ("npz-empty-file", {"p.npz": b""}, ["lcp", "p.npz"], "p.npz: is not a .npz archive"),
    ("npz-text-file", {"p.npz": "M = [[1]]"}, ["lcp", "p.npz"], "p.npz: is not a .npz archive"),
    # --- lcp, files and options
    ("lcp-missing-file", {}, ["lcp", "nothere.json"], "nothere.json: no such file"),
    ("lcp-directory", {"d.json/x": "1"}, ["lcp", "d.json"], "d.json: is a directory"),
    ("lcp-unknown-suffix", {"p.txt": "1"}, ["lcp", "p.txt"], "p.txt: unknown file type"),
    (
        "lcp-unknown-method",
        {"p.json": lcp_json(_M2, [1, 1])},
        ["lcp", "p.json", "--method", "simplex"],
        "method 'simplex'",
    ),
    ("lcp-negative-tol", {"p.json": lcp_json(_M2, [1, 1])}, ["lcp", "p.json", "--tol", "-1"], "option 'tol'"),
    ("lcp-inf-tol", {"p.json": lcp_json(_M2, [1, 1])}, ["lcp", "p.json", "--tol", "inf"], "--tol"),
    ("lcp-nan-tol", {"p.json": lcp_json(_M2, [1, 1])}, ["lcp", "p.json", "--tol", "nan"], "--tol"),
    ("lcp-word-tol", {"p.json": lcp_json(_M2, [1, 1])}, ["lcp", "p.json", "--tol", "abc"], "--tol"),
    ("lcp-unknown-option", {"p.json": lcp_json(_M2, [1, 1])}, ["lcp", "p.json", "--bogus"], "--bogus"),
    ("lcp-no-file", {}, ["lcp"], "file"),
    ("unknown-command", {}, ["frobnicate"], "frobnicate"),
    # --- dynamic: scene files
    (
        "scene-v_t-string",
        {"s.json": scene(contact={"state": "sliding", "v_t": "abc"})},
        ["dynamic", "s.json"],
        "C1.v_t",
    ),
    (
        "scene-v_t-ragged",
        {"s.json": scene(contact={"state": "sliding", "v_t": [[1, 2], [3]]})},
        ["dynamic", "s.json"],
        "C1.v_t: is ragged",
    ),
    (
        "scene-v_t-three",
        {"s.json": scene(contact={"state": "sliding", "v_t": [1, 2, 3]})},
        ["dynamic", "s.json"],
        "C1.v_t",
    ),
    (
        "scene-binary",
        {"s.json": b"\x89PNG\r\n\x1a\n" + bytes(range(256))},
        ["dynamic", "s.json"],
        "s.json: is not UTF-8",
    ),
    ("scene-not-object", {"s.json": "[1, 2]"}, ["dynamic", "s.json"], "s.json: must hold a JSON object"),
    ("scene-not-json", {"s.json": "{bodies: 1}"}, ["dynamic", "s.json"], "s.json: cannot be read"),
    ("scene-no-bodies", {"s.json": scene(top={"bodies": []})}, ["dynamic", "s.json"], "bodies"),
    ("scene-unknown-key", {"s.json": scene(body={"colour": "red"})}, ["dynamic", "s.json"], "bodies[0]"),
    ("scene-mass-string", {"s.json": scene(body={"mass": "abc"})}, ["dynamic", "s.json"], "bodies[0].mass"),
    ("scene-mass-negative", {"s.json": scene(body={"mass": -1})}, ["dynamic", "s.json"], "bodies[0].mass"),
    ("scene-mass-bool", {"s.json": scene(body={"mass": True})}, ["dynamic", "s.json"], "bodies[0].mass"),
    (
        "scene-mass-400-digits",
        {"s.json": scene(body={"mass": 1}).replace('"mass": 1', '"mass": ' + BIG)},
        ["dynamic", "s.json"],
        "bodies[0].mass",
    ),
    (
        "scene-inertia-ragged",
        {"s.json": scene(body={"inertia": [[1, 0, 0], [0, 1]]})},
        ["dynamic", "s.json"],
        "bodies[0].inertia",
    ),
    ("scene-wrench-short", {"s.json": scene(body={"wrench": [1, 2, 3]})}, ["dynamic", "s.json"], "bodies[0].wrench"),
    (
        "scene-gravity-strings",
        {"s.json": scene(body={"gravity": ["0", "0", "-9.81"]})},
        ["dynamic", "s.json"],
        "bodies[0].gravity",
    ),
    ("scene-normal-not-unit", {"s.json": scene(contact={"normal": [0, 0, 2]})}, ["dynamic", "s.json"], "C1.normal"),
    ("scene-point-null", {"s.json": scene(contact={"point": [0, None, 0]})}, ["dynamic", "s.json"], "C1.point"),
    ("scene-mu-negative", {"s.json": scene(contact={"mu": -1})}, ["dynamic", "s.json"], "C1.mu"),
    ("scene-mu-string", {"s.json": scene(contact={"mu": "abc"})}, ["dynamic", "s.json"], "C1.mu"),
    ("scene-state", {"s.json": scene(contact={"state": "flying"})}, ["dynamic", "s.json"], "C1.state"),
    ("scene-tangent-parallel", {"s.json": scene(contact={"tangent": [0, 0, 1]})}, ["dynamic", "s.json"], "C1.tangent"),
    ("scene-body-index", {"s.json": scene(contact={"body": 3})}, ["dynamic", "s.json"], "C1.body"),
    ("scene-body-float", {"s.json": scene(contact={"body": 0.0})}, ["dynamic", "s.json"], "C1.body"),
    ("scene-planar-string", {"s.json": scene(top={"planar": "yes"})}, ["dynamic", "s.json"], "planar"),
    ("scene-other", {"s.json": scene(contact={"other": "wall"})}, ["dynamic", "s.json"], "contacts[0].other"),
    (
        "scene-arm-index",
        {"s.json": scene(contact={"other": {"arm": 4, "link": 0}}, base=ARM_SCENE)},
        ["dynamic", "s.json"],
        "C1.other",
    ),
    (
        "scene-arm-dh-ragged",
        {"s.json": scene(arm={"dh": [[0, 0, 0, 0], [0, 0]]}, base=ARM_SCENE)},
        ["dynamic", "s.json"],
        "dh",
    ),
    ("scene-arm-no-q", {"s.json": scene(arm={"q": None}, base=ARM_SCENE)}, ["dynamic", "s.json"], "arms[0].q"),
    (
        "scene-arm-model",
        {"s.json": scene(arm={"model": "kuka"}, base=ARM_SCENE)},
        ["dynamic", "s.json"],
        "arms[0].model",
    ),
    (
        "scene-arm-joint-types",
        {"s.json": scene(arm={"joint_types": "X"}, base=ARM_SCENE)},
        ["dynamic", "s.json"],
        "joint_types",
    ),
    ("scene-arm-q-complex-string", {"s.json": scene(arm={"q": ["1j"]}, base=ARM_SCENE)}, ["dynamic", "s.json"], ".q"),
    ("scene-missing-file", {}, ["dynamic", "none.json"], "none.json"),
    ("scene-directory", {"d/x": "1"}, ["dynamic", "d"], "d: is a directory"),
    # --- dynamic: options
    ("dynamic-random-huge", {}, ["dynamic", "--random", "100000"], "--random"),
    ("dynamic-random-zero", {}, ["dynamic", "--random", "0"], "--random"),
    ("dynamic-random-negative", {}, ["dynamic", "--random", "-3"], "--random"),
    ("dynamic-random-word", {}, ["dynamic", "--random", "many"], "--random"),
    ("dynamic-random-and-file", {"s.json": scene()}, ["dynamic", "s.json", "--random", "2"], "dynamic"),
    ("dynamic-nothing", {}, ["dynamic"], "dynamic"),
    ("dynamic-friction", {"s.json": scene()}, ["dynamic", "s.json", "--friction", "ellipse"], "--friction"),
    ("dynamic-negative-seed", {}, ["dynamic", "--random", "2", "--seed", "-1"], "seed"),
    # --- hand2d
    ("hand2d-map-huge", {}, ["hand2d", "--map", "--resolution", "100000"], "--resolution"),
    ("hand2d-map-resolution-1", {}, ["hand2d", "--map", "--resolution", "1"], "--resolution"),
    ("hand2d-tau-max-inf", {}, ["hand2d", "--map", "--tau-max", "inf"], "--tau-max"),
    ("hand2d-tau-max-nan", {}, ["hand2d", "--map", "--tau-max", "nan"], "--tau-max"),
    ("hand2d-tau-min-inf", {}, ["hand2d", "--map", "--tau-min", "-inf"], "--tau-min"),
    ("hand2d-tau-order", {}, ["hand2d", "--map", "--tau-min", "5", "--tau-max", "1"], "--tau-max"),
    ("hand2d-map-and-state", {}, ["hand2d", "--map", "--tau1", "1"], "hand2d"),
    ("hand2d-half-state", {}, ["hand2d", "--tau1", "1"], "hand2d"),
    ("hand2d-mu-inf", {}, ["hand2d", "--tau1", "1", "--tau2", "1", "--mu", "inf"], "--mu"),
    ("hand2d-mu-negative", {}, ["hand2d", "--tau1", "1", "--tau2", "1", "--mu", "-1"], "mu"),
    ("hand2d-out-suffix", {"old.npz": b"OLD"}, ["hand2d", "--map", "--out", "m.txt"], "--out"),
    ("hand2d-out-folder", {}, ["hand2d", "--map", "--out", "nofolder/m.npz"], "--out"),
    ("hand2d-out-is-dir", {"m.npz/keep": "x"}, ["hand2d", "--map", "--out", "m.npz"], "--out"),
    (
        "hand2d-picture-suffix",
        {"m.npz": b"OLD TABLE"},
        ["hand2d", "--map", "--out", "m.npz", "--picture", "m.bmp"],
        "--picture",
    ),
    # --- grasp
    ("grasp-picture-suffix", {"g.png": b"OLD PICTURE"}, ["grasp", "puma3", "--picture", "g.gif"], "--picture"),
    ("grasp-picture-folder", {}, ["grasp", "puma3", "--picture", "no/g.png"], "--picture"),
    ("grasp-mu-nan", {}, ["grasp", "puma3", "--mu", "nan"], "--mu"),
    ("grasp-scene", {}, ["grasp", "puma4"], "scene"),
    # --- quasistatic
    ("quasistatic-both", {"q.json": quasistatic_json()}, ["quasistatic", "q.json", "--dataset", "1"], "quasistatic"),
    ("quasistatic-neither", {}, ["quasistatic"], "quasistatic"),
    ("quasistatic-ragged-P", {"q.json": quasistatic_json(P=[[1, 2], [3]])}, ["quasistatic", "q.json"], "P: is ragged"),
    ("quasistatic-mu-string", {"q.json": quasistatic_json(mu=["a", "b", "c"])}, ["quasistatic", "q.json"], "mu"),
    ("quasistatic-alpha-floats", {"q.json": quasistatic_json(alpha=[0.5, 1.0])}, ["quasistatic", "q.json"], "alpha"),
    ("quasistatic-missing-d", {"q.json": json.dumps({"P": [[1]]})}, ["quasistatic", "q.json"], "q.json: missing"),
    ("quasistatic-dataset-7", {}, ["quasistatic", "--dataset", "7"], "--dataset"),
    # --- fclib
    ("fclib-directory", {"d/x": "1"}, ["fclib", "d", "--json"], "'d' holds no .hdf5 or .h5 file"),
    ("fclib-missing", {}, ["fclib", "none.hdf5"], "none.hdf5: no such file"),
    ("fclib-text", {"p.hdf5": "not HDF5"}, ["fclib", "p.hdf5"], "p.hdf5: not an HDF5 file"),
    ("fclib-truncated", {"p.hdf5": fclib("truncated")}, ["fclib", "p.hdf5", "--json"], "p.hdf5"),
    (
        "fclib-external-storage",
        {"p.hdf5": fclib("external")},
        ["fclib", "p.hdf5", "--json"],
        "/fclib_local/vectors/q uses HDF5 external storage",
    ),
    (
        "fclib-external-link",
        {"p.hdf5": fclib("elink")},
        ["fclib", "p.hdf5", "--json"],
        "/fclib_local/vectors/q is an external link",
    ),
    ("fclib-soft-link", {"p.hdf5": fclib("soft")}, ["fclib", "p.hdf5", "--json"], "/fclib_local/vectors/q is a soft"),
    (
        "fclib-virtual",
        {"p.hdf5": fclib("virtual")},
        ["fclib", "p.hdf5", "--json"],
        "/fclib_local/vectors/q is a virtual dataset",
    ),
    (
        "fclib-huge-dataset",
        {"p.hdf5": fclib("huge")},
        ["fclib", "p.hdf5", "--json"],
        "q: dataset /fclib_local/vectors/q",
    ),
    ("fclib-huge-matrix", {"p.hdf5": fclib("huge_matrix")}, ["fclib", "p.hdf5", "--json"], "W"),
    ("fclib-string-q", {"p.hdf5": fclib("string_q")}, ["fclib", "p.hdf5"], "q: dataset /fclib_local/vectors/q"),
    ("fclib-spacedim", {"p.hdf5": fclib("spacedim4")}, ["fclib", "p.hdf5"], "spacedim"),
    ("fclib-negative-mu", {"p.hdf5": fclib("negative_mu")}, ["fclib", "p.hdf5"], "mu[0]"),
    ("fclib-storage", {"p.hdf5": fclib("bad_storage")}, ["fclib", "p.hdf5"], "W: unknown storage"),
    ("fclib-no-local", {"p.hdf5": fclib("no_local")}, ["fclib", "p.hdf5"], "fclib_local"),
    ("fclib-method", {"p.hdf5": fclib("plain")}, ["fclib", "p.hdf5", "--method", "simplex"], "method 'simplex'"),
    # --- contacts (scenes)
    ("contacts-missing", {}, ["contacts", "nope.xml"], "nope.xml"),
    ("contacts-suffix", {"s.txt": "x"}, ["contacts", "s.txt"], "unknown file type"),
    ("contacts-xml-malformed", {"s.xml": "<mujoco><worldbody><geom"}, ["contacts", "s.xml"], "malformed XML"),
    ("contacts-xml-not-mjcf", {"s.xml": "<robot/>"}, ["contacts", "s.xml"], "not <mujoco>"),
    ("contacts-xml-no-worldbody", {"s.xml": "<mujoco/>"}, ["contacts", "s.xml"], "worldbody"),
    (
        "contacts-mjcf-joint-type",
        {"s.xml": _MJCF_BODY.format(joint='<joint name="j" type="weird"/>', geom='type="sphere" size="0.1"')},
        ["contacts", "s.xml"],
        "joint 'j'",
    ),
    (
        "contacts-mjcf-geom-type",
        {"s.xml": _MJCF_BODY.format(joint="<freejoint/>", geom='name="g" type="blob" size="0.1"')},
        ["contacts", "s.xml"],
        "geom 'g'",
    ),
    (
        "contacts-mjcf-class",
        {"s.xml": _MJCF_BODY.format(joint="<freejoint/>", geom='name="g" class="nope" size="0.1"')},
        ["contacts", "s.xml"],
        "unknown default class",
    ),
    (
        "contacts-mjcf-mesh",
        {
            "s.xml": '<mujoco><asset><mesh name="m" file="gone.stl"/></asset><worldbody><body name="b">'
            '<freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>'
        },
        ["contacts", "s.xml"],
        "mesh 'm'",
    ),
    (
        "contacts-urdf-joint-type",
        {"r.urdf": _URDF.format(joint="twisty", mesh='<sphere radius="0.1"/>')},
        ["contacts", "r.urdf"],
        "twisty",
    ),
    (
        "contacts-urdf-mesh",
        {"r.urdf": _URDF.format(joint="revolute", mesh='<mesh filename="gone.stl"/>')},
        ["contacts", "r.urdf"],
        "gone.stl",
    ),
    ("contacts-urdf-malformed", {"r.urdf": "<robot><link"}, ["contacts", "r.urdf"], "urdf"),
    ("contacts-json-key", {"s.json": '{"floor": 1}'}, ["contacts", "s.json"], "unknown key(s) ['floor']"),
    (
        "contacts-json-shape",
        {"s.json": '{"fixed": [{"name": "f", "shape": {"type": "cone"}}]}'},
        ["contacts", "s.json"],
        "f.shape.type",
    ),
    (
        "contacts-json-mass",
        {"s.json": '{"objects": [{"name": "b", "shape": {"type": "sphere", "radius": 1}, "mass": -1}]}'},
        ["contacts", "s.json"],
        "b.mass",
    ),
    (
        "contacts-json-friction",
        {"s.json": '{"fixed": [{"name": "f", "shape": {"type": "plane"}, "friction": -0.5}]}'},
        ["contacts", "s.json"],
        "f.friction",
    ),
    (
        "contacts-json-exclude-body",
        {"s.json": '{"fixed": [{"name": "f", "shape": {"type": "plane"}}], "exclude": [["world", "ghost"]]}'},
        ["contacts", "s.json"],
        "unknown body 'ghost'",
    ),
    (
        "contacts-json-joint",
        {
            "s.xml": _MJCF_BODY.format(joint='<joint name="j"/>', geom='type="sphere" size="0.1"'),
            "s.json": '{"robot": {"mjcf": "s.xml", "joints": {"k": {"position": 1}}}}',
        },
        ["contacts", "s.json"],
        "no joint named 'k'",
    ),
    (
        "contacts-json-robot-file",
        {"s.json": '{"robot": {"urdf": "none.urdf"}}'},
        ["contacts", "s.json"],
        "none.urdf",
    ),
    (
        "contacts-json-nan-pose",
        {
            "s.json": '{"objects": [{"name": "b", "shape": {"type": "sphere", "radius": 1}, "mass": 1, '
            '"pose": {"p": [0, NaN, 0]}}]}'
        },
        ["contacts", "s.json"],
        "b.pose.p",
    ),
    (
        "contacts-no-contact",
        {
            "s.json": '{"fixed": [{"name": "f", "shape": {"type": "plane"}}], "objects": [{"name": "b", '
            '"shape": {"type": "sphere", "radius": 1}, "mass": 1, "pose": {"p": [0, 0, 5]}}]}'
        },
        ["contacts", "s.json"],
        "no contact was detected",
    ),
    (
        "contacts-margin",
        {"s.json": '{"fixed": [{"name": "f", "shape": {"type": "plane"}}], "margin": -1}'},
        ["contacts", "s.json"],
        "margin",
    ),
    # --- maps with stores
    ("hand2d-resume-no-store", {}, ["hand2d", "--map", "--resolution", "5", "--resume"], "--resume"),
    ("hand2d-store-is-file", {"s": "x"}, ["hand2d", "--map", "--resolution", "5", "--store", "s"], "not a folder"),
    ("hand2d-workers-0", {}, ["hand2d", "--map", "--resolution", "5", "--workers", "0"], "--workers"),
    (
        "hand2d-scheduler-down",
        {},
        ["hand2d", "--map", "--resolution", "5", "--scheduler", "tcp://127.0.0.1:9"],
        "cannot reach the Dask scheduler",
    ),
    ("grasp-map-joints", {}, ["grasp", "puma3", "--map", "--joints", "2", "2"], "--joints"),
    ("grasp-map-joint-7", {}, ["grasp", "puma3", "--map", "--joints", "2", "7"], "--joints"),
    ("grasp-map-range", {}, ["grasp", "puma3", "--map", "--tau-min", "3", "--tau-max", "1"], "--tau-max"),
    (
        "hand2d-store-crafted",
        {"s/_manifest.json": '{"version": 1, "n_points": 25, "bounds": [[0, 30]]}'},
        ["hand2d", "--map", "--resolution", "5", "--store", "s", "--resume"],
        "not a valid sweep manifest",
    ),
    ("fclib-folder-out", {"d/p.hdf5": "x"}, ["fclib", "d", "--out", "s.hdf5"], "--out"),
    # --- reproduce
    ("reproduce-unknown", {}, ["reproduce", "nope", "--out", "res"], "nope"),
    ("reproduce-resolution-1", {}, ["reproduce", "yashima", "--resolution", "1", "--out", "res"], "--resolution"),
    (
        "reproduce-resolution-huge",
        {},
        ["reproduce", "yashima", "--resolution", "100000", "--out", "res"],
        "--resolution",
    ),
    ("reproduce-out-is-file", {"res": "a file"}, ["reproduce", "lcp_families", "--quick", "--out", "res"], "--out"),
]


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for folders), hidden files included."""
    out: dict[str, bytes | None] = {}
    for p in sorted(folder.rglob("*")):
        out[str(p.relative_to(folder))] = None if p.is_dir() else p.read_bytes()
    return out


def _setup(folder: Path, files: dict) -> None:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if callable(content):
            content(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def test_the_corpus_is_large_and_names_are_unique():
    assert len(CASES) >= 80
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("files, argv, needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_exit_2_one_line(tmp_path, monkeypatch, capsys, files, argv, needle):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CONTACTCP_DEBUG", raising=False)
    _setup(tmp_path, files)
    before = _snapshot(tmp_path)
    code = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1, err
    assert needle in lines[0], lines[0]
    assert "Traceback" not in err and out == ""
    assert _snapshot(tmp_path) == before  # nothing left behind, every existing file intact


def test_no_bytes_of_another_file_reach_the_output(tmp_path, monkeypatch, capsys):
    """The FCLIB external-storage case: the secret's bytes appear nowhere in the output."""
    monkeypatch.chdir(tmp_path)
    fclib("external")(tmp_path / "p.hdf5")
    assert main(["fclib", "p.hdf5", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "SECRET" not in err


# ----------------------------------------------------------- real processes

SUBPROCESS_CASES = [
    "lcp-ragged-M",
    "lcp-400-digit-q",
    "npz-is-npy",
    "scene-binary",
    "fclib-directory",
    "hand2d-tau-max-inf",
    "dynamic-random-huge",
    "hand2d-map-huge",
    "contacts-urdf-joint-type",
    "contacts-urdf-mesh",
    "contacts-mjcf-mesh",
]


@pytest.mark.parametrize("name", SUBPROCESS_CASES)
def test_bad_input_in_a_real_process(tmp_path, name):
    """The same through the module's entry point in a fresh interpreter (the module fixture has
    compiled and cached every kernel, so no compile notice can come first)."""
    files, argv, needle = next(c[1:] for c in CASES if c[0] == name)
    _setup(tmp_path, files)
    before = _snapshot(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "CONTACTCP_DEBUG"}
    p = subprocess.run(
        [sys.executable, "-m", "contactcp.cli", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert _snapshot(tmp_path) == before


# ------------------------------------------------- outputs: atomic, all or nothing


def _fail_savefig(monkeypatch):
    """matplotlib's savefig writes half a file, then the disk is full."""
    import matplotlib.figure

    def broken(self, fname, *args, **kwargs):
        with open(fname, "wb") as fh:
            fh.write(b"\x89PNG half a picture")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", broken)


def test_failed_picture_keeps_old_outputs_and_writes_no_table(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.npz").write_bytes(b"OLD TABLE")
    (tmp_path / "m.png").write_bytes(b"OLD PICTURE")
    before = _snapshot(tmp_path)
    _fail_savefig(monkeypatch)
    code = main(
        ["hand2d", "--map", "--resolution", "3", "--workers", "1", "--json", "--out", "m.npz", "--picture", "m.png"]
    )
    out, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1 and "No space left" in err
    assert out == ""
    assert _snapshot(tmp_path) == before  # the table was not committed either: both or neither


def test_failed_picture_leaves_no_first_output(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _fail_savefig(monkeypatch)
    assert (
        main(
            ["hand2d", "--map", "--resolution", "3", "--workers", "1", "--json", "--out", "m.csv", "--picture", "m.png"]
        )
        == 2
    )
    capsys.readouterr()
    assert _snapshot(tmp_path) == {}


def test_failed_grasp_picture_keeps_the_old_one(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.png").write_bytes(b"OLD PICTURE")
    _fail_savefig(monkeypatch)
    assert main(["grasp", "puma3", "--picture", "g.png", "--json"]) == 2
    capsys.readouterr()
    assert _snapshot(tmp_path) == {"g.png": b"OLD PICTURE"}


def test_successful_outputs_replace_old_ones(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.npz").write_bytes(b"OLD TABLE")
    assert (
        main(
            ["hand2d", "--map", "--resolution", "3", "--workers", "1", "--json", "--out", "m.npz", "--picture", "m.png"]
        )
        == 0
    )
    capsys.readouterr()
    from contactcp.sweep import Table

    table = Table.load(tmp_path / "m.npz")
    assert len(table) == 9 and set(np.unique(table["tau1"])) == {0.0, 5.0, 10.0}
    assert (tmp_path / "m.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz", "m.png"]  # no temporary files


def _fake_experiment(monkeypatch, interrupt: bool):
    """lcp_families' run replaced by one that writes two files, then is interrupted (or not)."""
    import contactcp.experiments.lcp_families as fam

    def run(out_dir, quick):
        (out_dir / "table.md").write_text("NEW TABLE")
        if interrupt:
            raise KeyboardInterrupt
        (out_dir / "table.csv").write_text("NEW CSV")
        return [out_dir / "table.md", out_dir / "table.csv"]

    monkeypatch.setattr(fam, "run", run)


def test_interrupted_reproduce_keeps_the_previous_results(tmp_path, monkeypatch, capsys):
    old = tmp_path / "res" / "lcp_families"
    old.mkdir(parents=True)
    (old / "table.md").write_text("OLD COMPLETE TABLE")
    before = _snapshot(tmp_path)
    _fake_experiment(monkeypatch, interrupt=True)
    assert main(["reproduce", "lcp_families", "--quick", "--out", str(tmp_path / "res")]) == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == "contactcp: interrupted"
    assert _snapshot(tmp_path) == before  # the old folder as it was, no temporary folder


def test_interrupted_first_reproduce_leaves_nothing(tmp_path, monkeypatch, capsys):
    _fake_experiment(monkeypatch, interrupt=True)
    assert main(["reproduce", "lcp_families", "--quick", "--out", str(tmp_path / "res")]) == 130
    capsys.readouterr()
    assert _snapshot(tmp_path / "res") == {}


def test_finished_reproduce_replaces_the_folder_as_a_whole(tmp_path, monkeypatch, capsys):
    old = tmp_path / "res" / "lcp_families"
    old.mkdir(parents=True)
    (old / "stale.md").write_text("from an older run")
    _fake_experiment(monkeypatch, interrupt=False)
    assert main(["reproduce", "lcp_families", "--quick", "--out", str(tmp_path / "res")]) == 0
    out = capsys.readouterr().out
    assert f"wrote {old / 'table.md'}" in out
    assert _snapshot(tmp_path / "res") == {
        "lcp_families": None,
        "lcp_families/table.csv": b"NEW CSV",
        "lcp_families/table.md": b"NEW TABLE",
    }


# ----------------------------------------------------- unexpected errors and notices


def test_internal_error_is_one_line_exit_1(monkeypatch, capsys):
    import contactcp.cli as cli

    def boom(args):
        raise RuntimeError("a bug\nover two lines")

    monkeypatch.setattr(cli, "_cmd_methods", boom)
    monkeypatch.delenv("CONTACTCP_DEBUG", raising=False)
    assert main(["methods"]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "contactcp: internal error: RuntimeError: a bug over two lines (set CONTACTCP_DEBUG=1 for the traceback)"
    ]
    monkeypatch.setenv("CONTACTCP_DEBUG", "1")
    assert main(["methods"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.strip().splitlines()[-1].startswith("contactcp: internal error")


def test_memory_error_is_bad_input(monkeypatch, capsys):
    import contactcp.cli as cli

    def boom(args):
        raise MemoryError

    monkeypatch.setattr(cli, "_cmd_methods", boom)
    assert main(["methods"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_compile_notice_is_one_line_once(monkeypatch, capsys):
    """A cold cache (a kernel numba has to compile) is announced once, in one line."""
    import numba

    import contactcp._jit as jit
    import contactcp.cli as cli

    def make_kernel():
        def kernel(x):
            return x + 1.0

        kernel.__module__ = "contactcp.fake_kernels"
        return numba.njit(kernel)  # no cache: compiles on every new dispatcher

    def cmd(args):
        make_kernel()(1.0)
        make_kernel()(2.0)
        return 0

    monkeypatch.setattr(cli, "_cmd_methods", cmd)
    monkeypatch.setitem(jit._state, "said", False)
    assert main(["methods"]) == 0
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        f"contactcp: compiling numerical kernels once (about {jit.COLD_COMPILE_SECONDS} s); later runs use the cache"
    ]
    assert main(["methods"]) == 0
    assert capsys.readouterr().err == ""


def test_warmup_command(capsys):
    assert main(["warmup"]) == 0
    out = capsys.readouterr().out
    assert "numerical kernel" in out and ("compiled" in out)
    from contactcp.solvers.lcp import lemke_kernel

    assert lemke_kernel.lemke_cold_solve.overloads  # compiled (or loaded) in this process


def test_readme_documents_warmup_next_to_the_install_commands():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert any("contactcp warmup" in ln for ln in lines[:16])

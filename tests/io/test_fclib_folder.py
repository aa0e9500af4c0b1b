"""A folder of FCLIB files through the sweep layer (io/fclib/collection.py): one row per file, each
answer re-solved and checked by the tests' own Coulomb measure; an unreadable file is a row, not a crash."""

import shutil
from pathlib import Path

import pytest

import contactcp as ccp
from contactcp.errors import InvalidOptionError, InvalidProblemError
from contactcp.io.fclib import read_fclib
from contactcp.io.fclib.collection import collection_files, solve_collection
from support.oracles import coulomb_error
from support.paths import DATA

SMALL = ["FC3D_Example1.hdf5", "FrictionContact3D_1c.hdf5", "NESpheres_30_1.hdf5"]


def test_one_row_per_file_and_each_answer_checked(tmp_path):
    for name in SMALL:
        shutil.copy(DATA / "fclib" / "local" / name, tmp_path / name)
    (tmp_path / "broken.h5").write_bytes(b"not HDF5")
    (tmp_path / "notes.txt").write_text("skipped: not an FCLIB suffix")
    table = solve_collection(tmp_path, workers=1, progress=False, tol=1e-8)
    names = [Path(p).name for p in table["file"]]
    assert names == sorted(SMALL + ["broken.h5"])
    for k, name in enumerate(names):
        if name == "broken.h5":
            assert table["status"][k] == "BAD_INPUT" and not table["success"][k] and table["message"][k]
            continue
        assert table["status"][k] == "SOLVED" and table["form"][k] == "local" and table["residual"][k] <= 1e-8
        p = read_fclib(tmp_path / name).local.to_problem()
        assert table["n_c"][k] == p.n_c
        res = ccp.solve(p, tol=1e-8)  # the same solve, its answer measured by independent code
        assert coulomb_error(p.W.toarray(), p.q, p.mu, res.x) <= 1e-8


def test_bad_folders_and_options(tmp_path):
    with pytest.raises(InvalidProblemError, match="holds no .hdf5"):
        collection_files(tmp_path)
    with pytest.raises(InvalidProblemError, match="is not a folder"):
        collection_files(tmp_path / "nowhere")
    shutil.copy(DATA / "fclib" / "local" / SMALL[0], tmp_path / SMALL[0])
    with pytest.raises(InvalidOptionError, match="form"):
        solve_collection(tmp_path, form="both", workers=1, progress=False)

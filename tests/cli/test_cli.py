"""The contactcp command line: JSON output, exit codes, one-line errors."""

import functools
import json
import subprocess
import sys

import numpy as np
import pytest

from contactcp import __version__
from contactcp.cli import main
from support.paths import DATA


@functools.cache
def _warm() -> None:
    """Compile every kernel once (a no-op with a warm numba cache): a child process that meets a cold
    cache would print the one-line compile notice before its own output."""
    import contactcp

    contactcp.warmup()


def run(*args):
    _warm()
    return subprocess.run([sys.executable, "-m", "contactcp.cli", *args], capture_output=True, text=True)


@pytest.fixture
def lcp_json(tmp_path):
    f = tmp_path / "lcp.json"
    f.write_text(json.dumps({"M": [[2, 1], [1, 2]], "q": [-5, -6]}))
    return f


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"contactcp {__version__}"


def test_lcp_json_output(lcp_json, capsys):
    assert main(["lcp", str(lcp_json), "--json"]) == 0
    out = capsys.readouterr().out
    d = json.loads(out)  # exactly one JSON object
    assert {"status", "success", "residual", "iterations", "x", "w", "message"} <= set(d)
    assert d["status"] == "SOLVED" and d["success"] is True
    np.testing.assert_allclose(d["x"], [4 / 3, 7 / 3])
    assert d["residual"] < 1e-12


def test_lcp_npz_and_methods(tmp_path, capsys):
    f = tmp_path / "p.npz"
    np.savez(f, M=np.zeros((2, 2)), q=np.array([-1.0, 1.0]))
    assert main(["lcp", str(f), "--json", "--method", "enumerate"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "NO_SOLUTION" and d["x"] is None and d["residual"] is None
    assert main(["lcp", str(f)]) == 1
    assert "NO_SOLUTION" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content, args, needle",
    [
        ('{"M": [[1, 2, 3]], "q": [1]}', [], "M: must be square"),
        ('{"M": [[1]]}', [], "missing 'q'"),
        ('{"M": [[1]], "q": [NaN]}', [], "q: contains NaN"),
        ("not json", [], "cannot be read"),
        ('{"M": [[1]], "q": [1]}', ["--method", "simplex"], "method 'simplex': unknown method"),
        ('{"M": [[1]], "q": [1]}', ["--tol", "-1"], "option 'tol'"),
    ],
)
def test_bad_input_one_line_exit_2(tmp_path, content, args, needle):
    f = tmp_path / "bad.json"
    f.write_text(content)
    p = run("lcp", str(f), *args)
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in p.stderr


def test_usage_errors_are_one_line():
    for args in (["lcp"], ["frobnicate"], ["lcp", "x.json", "--bogus"], ["lcp", "missing.txt"]):
        p = run(*args)
        assert p.returncode == 2, args
        assert len(p.stderr.strip().splitlines()) == 1, (args, p.stderr)


def test_reproduce_quick(tmp_path, capsys):
    assert main(["reproduce", "lcp_families", "--quick", "--out", str(tmp_path)]) == 0
    table = (tmp_path / "lcp_families" / "table.md").read_text()
    assert "| spd | 10 | lemke | 2/2 |" in table
    assert main(["reproduce", "nope", "--out", str(tmp_path)]) == 2


def test_reproduce_buffo2006_and_yashima_quick(tmp_path, capsys):
    assert main(["reproduce", "buffo2006", "yashima", "--quick", "--out", str(tmp_path)]) == 0
    t3 = (tmp_path / "buffo2006" / "table3.md").read_text()
    rows = [ln for ln in t3.splitlines() if ln.startswith("| 0.")]
    default = [ln for ln in rows if "| default" in ln]
    assert len(rows) == 20 and len(default) == 10  # 5 mu x 2 backends x 2 variants
    assert all("| SOLVED |" in ln for ln in default)  # the defaults certify every case
    assert any("| plain |" in ln and "| SOLVED |" not in ln for ln in rows)  # the backends alone do not
    assert (tmp_path / "buffo2006" / "steps.png").stat().st_size > 10_000
    findings = (tmp_path / "yashima" / "findings.md").read_text()
    rows = [ln for ln in findings.splitlines() if ln.startswith("| ") and ("| yes |" in ln or "| NO |" in ln)]
    assert len(rows) == 5 and all("| yes |" in ln for ln in rows)
    assert (tmp_path / "yashima" / "map_mu0.2.png").exists()


def test_json_output_is_strict_json_without_nan(capsys):
    """An undecided hand state has no check value: it is null, not the non-JSON token NaN."""
    assert main(["hand2d", "--mu", "1e12", "--tau1", "1", "--tau2", "1", "--json"]) == 1
    out = capsys.readouterr().out
    d = json.loads(out, parse_constant=lambda tok: pytest.fail(f"non-JSON token {tok}"))
    assert d["success"] is False and d["max_violation"] is None


def test_broken_pipe_exits_quietly(monkeypatch, capsys):
    class Closed:
        def write(self, s):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", Closed())
    assert main(["methods"]) == 0  # a reader that went away is not an error
    assert capsys.readouterr().err == ""


def test_quasistatic_json_is_the_only_thing_on_stdout():
    """In a fresh process (HiGHS's first instance prints a banner on file descriptor 1, which
    capsys does not see): stdout must be exactly one JSON object."""
    out = run("quasistatic", "--dataset", "2", "--method", "exact", "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["status"] == "SOLVED"


FCLIB = DATA / "fclib"
GLOBAL = FCLIB / "global"


def test_fclib_global_json_has_v_r_u_and_solves(capsys):
    from contactcp.io.fclib import read_fclib
    from support.oracles import global_errors

    path = GLOBAL / "GFC3D_TwoRods1.hdf5"
    assert main(["fclib", str(path), "--json", "--tol", "1e-10"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["form"] == "global" and d["success"] and d["status"] == "SOLVED"
    assert {"residual", "iterations", "method", "time", "r", "u", "v"} <= set(d)
    g = read_fclib(path).global_
    v, r = np.array(d["v"]), np.array(d["r"])
    eq, coulomb = global_errors(g.M, g.H, g.f, g.w, g.mu, v, r)
    assert eq <= 1e-12 and coulomb <= 1e-10
    np.testing.assert_allclose(d["u"], g.H.T @ v + g.w, atol=1e-12)


def test_fclib_out_writes_problem_and_solution(tmp_path, capsys):
    from contactcp.io.fclib import read_fclib

    out = tmp_path / "sol.hdf5"
    assert main(["fclib", str(GLOBAL / "GFC3D_Example1.hdf5"), "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    back = read_fclib(out)
    sol = back.solutions[0]
    p = back.global_.to_problem()
    assert p.residual(np.concatenate([sol.v, sol.r])).value <= 1e-9
    # a local file (its form found by the reader), written back with its own solution
    local = tmp_path / "local.hdf5"
    assert main(["fclib", str(FCLIB / "local" / "FC3D_Example1.hdf5"), "--out", str(local)]) == 0
    back = read_fclib(local)
    assert back.local.to_problem().residual(back.solutions[0].r).value <= 1e-9


def test_fclib_form_that_the_file_lacks_is_one_line_exit_2(capsys):
    assert main(["fclib", str(FCLIB / "local" / "Rover1039.hdf5"), "--form", "global"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "fclib_global" in err[0]


def _global_file(tmp_path, **change):
    import scipy.sparse as sp

    from contactcp.io.fclib import FclibGlobal, write_global

    data = dict(M=sp.csc_matrix(np.eye(3)), H=sp.csc_matrix(np.eye(3)), G=None, f=np.array([-1.0, 0.2, 0.0]))
    data.update(b=None, w=np.zeros(3), mu=np.array([0.5]), spacedim=3)
    data.update(change)
    path = tmp_path / "g.hdf5"
    write_global(path, FclibGlobal(**data))
    return path


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"M": np.zeros((3, 3)) + np.diag([1.0, 1.0, 0.0])}, "M: is singular"),
        ({"M": np.ones((3, 3))}, "M: is singular"),
        ({"G": np.eye(3)[:, :1], "b": np.zeros(1)}, "G: global problems with equality constraints"),
    ],
)
def test_fclib_global_bad_problem_is_one_line_exit_2(tmp_path, capsys, change, needle):
    import scipy.sparse as sp

    change = {k: (sp.csc_matrix(v) if k in ("M", "G") else v) for k, v in change.items()}
    path = _global_file(tmp_path, **change)
    out = tmp_path / "sol.hdf5"
    assert main(["fclib", str(path), "--json", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err
    assert not out.exists()


def test_fclib_global_one_contact_sticks(tmp_path, capsys):
    assert main(["fclib", str(_global_file(tmp_path)), "--json", "--tol", "1e-12"]) == 0
    d = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(d["r"], [1.0, -0.2, 0.0], atol=1e-12)
    np.testing.assert_allclose(d["v"], 0.0, atol=1e-12)


def test_contacts_json_world_frame_answers():
    from contactcp.io.scene_files import example_scene

    p = run("contacts", str(example_scene("box_on_plane.xml")), "--json", "--friction", "cone")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["status"] == "SOLVED" and d["success"] is True and d["residual"] <= 1e-8
    assert len(d["contacts"]) == 4
    for c in d["contacts"]:
        assert set(c) >= {"bodies", "point", "normal", "gap", "force_world", "mode"}
        assert c["bodies"] == ["box", "world"] and c["mode"] == "rolling"
        np.testing.assert_allclose(c["normal"], [0, 0, 1], atol=1e-9)
    total = np.sum([c["force_world"] for c in d["contacts"]], axis=0)
    np.testing.assert_allclose(total, [0, 0, 9.81], atol=1e-8)


def test_contacts_text_output_and_margin():
    from contactcp.io.scene_files import example_scene

    p = run("contacts", str(example_scene("gripper.json")), "--margin", "0.002")
    assert p.returncode == 0, p.stderr
    assert "8 contact(s) within 0.002 m" in p.stdout and "box|left_finger" in p.stdout


def test_hand2d_map_streams_into_a_store_and_resumes(tmp_path):
    store = tmp_path / "map"
    p = run("hand2d", "--map", "--resolution", "30", "--store", str(store), "--workers", "1", "--json")
    assert p.returncode == 0, p.stderr
    first = json.loads(p.stdout)
    assert (store / "_manifest.json").is_file() and len(list(store.glob("part-*.parquet"))) >= 1
    again = run("hand2d", "--map", "--resolution", "30", "--store", str(store), "--json")
    assert again.returncode == 2 and "already holds a sweep" in again.stderr and again.stderr.count("\n") == 1
    resumed = run("hand2d", "--map", "--resolution", "30", "--store", str(store), "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["classes"] == first["classes"]
    from contactcp.sweep import load

    table = load(store)
    assert table.shape == (30, 30)
    assert {k: int((table["cls"] == i).sum()) for i, k in enumerate(first["classes"])} == first["classes"]
    other = run("hand2d", "--map", "--resolution", "31", "--store", str(store), "--resume")
    assert other.returncode == 2 and "holds another sweep" in other.stderr
    alone = run("hand2d", "--map", "--resolution", "30", "--resume")
    assert alone.returncode == 2 and "--resume" in alone.stderr


def test_grasp_map_json_and_store(tmp_path):
    p = run("grasp", "puma3", "--map", "--resolution", "8", "--workers", "1", "--store", str(tmp_path / "g"), "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["success"] and sum(d["classes"].values()) == 64 and d["verdicts"]["determinate"] == 64
    assert d["classes"]["RRR"] > 0
    from contactcp.sweep import load

    assert load(tmp_path / "g").shape == (8, 8)


def test_fclib_folder_one_row_per_file_streamed_and_resumed(tmp_path):
    import shutil

    folder = tmp_path / "files"
    folder.mkdir()
    for name in sorted((DATA / "fclib" / "local").glob("*.hdf5"))[:3]:
        shutil.copy(name, folder / name.name)
    (folder / "broken.hdf5").write_bytes(b"not an hdf5 file")
    p = run("fclib", str(folder), "--json", "--workers", "1", "--store", str(tmp_path / "s"))
    assert p.returncode == 1, p.stderr  # the broken file is not solved
    d = json.loads(p.stdout)
    assert len(d["files"]) == 4 and d["solved"] == 3 and d["success"] is False
    broken = next(r for r in d["files"] if r["file"].endswith("broken.hdf5"))
    assert broken["status"] == "BAD_INPUT" and broken["message"]
    for r in d["files"]:
        if r is not broken:
            assert r["status"] == "SOLVED" and r["residual"] <= 1e-8 and r["n_c"] >= 1
    (tmp_path / "s" / "part-000001.parquet").unlink()  # as if killed before that file
    again = run("fclib", str(folder), "--json", "--store", str(tmp_path / "s"), "--resume")
    assert again.returncode == 1, again.stderr

    def strip(rows):
        return [{k: v for k, v in r.items() if k != "time"} for r in rows]

    assert strip(json.loads(again.stdout)["files"]) == strip(d["files"])  # the recomputed file: same answer
    out = run("fclib", str(folder), "--out", str(tmp_path / "x.hdf5"))
    assert out.returncode == 2 and "--out" in out.stderr


def test_ctrl_c_keeps_finished_chunks_and_says_how_to_resume(tmp_path):
    """SIGINT (Ctrl-C) to a map streaming into a store: exit 130, one line saying what was kept and
    how to resume; --resume then completes the same map."""
    import signal
    import time

    _warm()
    store = tmp_path / "s"
    args = [sys.executable, "-m", "contactcp.cli", "hand2d", "--map", "--resolution", "700", "--workers", "1"]
    # the child starts with Ctrl-C's default action, as from a terminal: a test run started in the
    # background by a non-interactive shell (nohup ... &) has SIGINT ignored, and a child would inherit
    # that and finish the map (exit 0)
    p = subprocess.Popen(
        [*args, "--store", str(store), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not list(store.glob("part-*.parquet")) and time.monotonic() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "interrupted: kept" in lines[0] and "--resume" in lines[0] and out == ""
    kept = len(list(store.glob("part-*.parquet")))
    assert kept >= 1
    done = subprocess.run([*args, "--store", str(store), "--resume", "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    d = json.loads(done.stdout)
    assert sum(d["classes"].values()) == 700 * 700

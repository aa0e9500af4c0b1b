"""The FCLIB benchmark (benchmarks/fclib.py): its own checks on known answers, its goal arithmetic,
and its smoke run (problems with <= 10 contacts, contactcp, and Siconos where Debian's python has it).

Nothing here depends on timing: the smoke run's exit status counts false SOLVED answers and crashes
of contactcp, never time-outs or speed; the summary test uses made-up times.
"""

import json
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from support.paths import ROOT

BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

from fclibbench import render  # noqa: E402
from fclibbench.check import check_global, check_local, cone_projection, global_scale  # noqa: E402
from fclibbench.problems import Entry  # noqa: E402

SMOKE_LOCAL = ["FrictionContact3D_1c", "FC3D_Example1", "Rover1039", "Rover4516"]


def test_cone_projection_known_points():
    mu = np.array([0.5, 0.5, 0.5, 0.0])
    X = np.array([[1.0, 0.3, 0.0], [-1.0, 0.1, 0.0], [0.25, -2.0, 0.0], [2.0, 1.0, 1.0]])
    P = cone_projection(X, mu)
    np.testing.assert_array_equal(P[0], X[0])  # inside: itself
    np.testing.assert_array_equal(P[1], 0.0)  # in the polar cone: the apex
    np.testing.assert_allclose(P[2], [1.0, -0.5, 0.0], rtol=0, atol=1e-15)  # onto the side
    np.testing.assert_array_equal(P[3], [2.0, 0.0, 0.0])  # mu = 0: the normal ray


def test_cone_projection_is_a_projection():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((500, 3)) * 10.0 ** rng.integers(-3, 4, (500, 1))
    mu = rng.uniform(0.0, 2.0, 500)
    P = cone_projection(X, mu)
    assert np.all(np.linalg.norm(P[:, 1:], axis=1) <= mu * P[:, 0] * (1 + 1e-12) + 1e-300)  # in the cone
    np.testing.assert_allclose(cone_projection(P, mu), P, rtol=1e-12, atol=0)  # idempotent
    scale = np.linalg.norm(X, axis=1) ** 2
    np.testing.assert_allclose(np.einsum("ij,ij->i", X - P, P) / scale, 0.0, atol=1e-12)  # X - P orthogonal to P


def test_check_local_known_answers():
    W = sp.identity(3, format="csc")
    mu = np.array([0.5])
    # sliding: u_N = 0, r_T = -mu r_N u_T / |u_T|
    q = np.array([-1.0, 2.0, 0.0])
    c = check_local(W, q, mu, [1.0, -0.5, 0.0], 1e-8)
    assert c["ok"] and c["residual"] <= 1e-15
    # separation: r = 0 with u = q in the dual cone; a small normal force is off by exactly itself
    q = np.array([1.0, 0.0, 0.0])
    assert check_local(W, q, mu, [0.0, 0.0, 0.0], 1e-8)["residual"] == 0.0
    c = check_local(W, q, mu, [1e-3, 0.0, 0.0], 1e-8)
    assert not c["ok"] and c["residual"] == pytest.approx(1e-3, rel=1e-12)
    # no answer, a wrong size, NaN: never solved
    for r in (None, [0.0, 0.0], [np.nan, 0.0, 0.0]):
        assert check_local(W, q, mu, r, 1e-8) == {
            "ok": False,
            "residual": float("inf"),
            "equilibrium": None,
            "relative": float("inf"),
        }


def test_check_global_agrees_with_the_local_problem():
    rng = np.random.default_rng(3)
    n, nc = 12, 5
    A = rng.standard_normal((n, n))
    M = sp.csc_matrix(A @ A.T + n * np.eye(n))
    H = sp.csc_matrix(rng.standard_normal((n, 3 * nc)))
    f, w, mu = rng.standard_normal(n), rng.standard_normal(3 * nc), rng.uniform(0.1, 1.0, nc)
    Minv = np.linalg.inv(M.toarray())
    W, q = H.T.toarray() @ Minv @ H.toarray(), w + H.T @ (Minv @ f)
    assert global_scale(M, H, f, w) == pytest.approx(np.linalg.norm(q), rel=1e-12)
    for _ in range(5):
        r = rng.standard_normal(3 * nc)
        v = np.linalg.solve(M.toarray(), H @ r + f)
        g = check_global(M, H, f, w, mu, v, r, 1e-8, global_scale(M, H, f, w))
        loc = check_local(W, q, mu, r, 1e-8)
        assert g["residual"] == pytest.approx(loc["residual"], rel=1e-10)
        assert g["equilibrium"] <= 1e-14
        g2 = check_global(M, H, f, w, mu, v + 1e-3, r, 1e-8, 1.0)  # v off equilibrium
        assert g2["equilibrium"] > 1e-6 and not g2["ok"]


def _rec(problem, backend, solver, status, t=None):
    return {"problem": problem, "form": "local", "backend": backend, "solver": solver, "status": status, "time": t}


def test_summary_arithmetic():
    entries = [Entry(name, "local", "", 1, {}) for name in ("a", "b", "c", "RockPile_x")]
    recs = [
        _rec("a", "contactcp", "default", "SOLVED", 2.0),
        _rec("a", "siconos", "NSGS", "SOLVED", 1.0),
        _rec("a", "siconos", "PROX", "SOLVED", 4.0),
        _rec("b", "contactcp", "default", "SOLVED", 1.0),
        _rec("b", "siconos", "NSGS", "SOLVED", 2.0),
        _rec("c", "contactcp", "default", "FAIL"),
        _rec("c", "siconos", "NSGS", "SOLVED", 1.0),
        _rec("RockPile_x", "contactcp", "default", "SOLVED", 3.0),
        _rec("RockPile_x", "siconos", "ADMM", "TIMEOUT"),
    ]
    s = render.summarize(entries, recs)
    assert (s["total"], s["default"], s["siconos"], s["both"], s["union"], s["wins"]) == (4, 3, 3, 2, 4, 2)
    assert s["ratios"] == {"a": 2.0, "b": 0.5}
    assert s["geomean"] == pytest.approx(1.0) and s["max"] == 2.0 and s["fraction"] == 0.5
    assert s["rock"] == {"RockPile_x": True}
    lines = render.goal_lines("local", s)
    assert "Goal 1: **NOT met**" in lines[0]  # c: Siconos solves it, the default chain does not


def test_fclib_smoke(tmp_path):
    out, js = tmp_path / "fclib.md", tmp_path / "fclib.json"
    proc = subprocess.run(
        # the project's own copy of the sample, whatever ../shared holds on this machine
        [sys.executable, BENCH / "fclib.py", "--smoke", "--no-shared", ROOT / "tests" / "data" / "fclib", "--out", out]
        + ["--json", js, "--store", tmp_path / "store"],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=ROOT,
    )
    log = (proc.stdout + proc.stderr)[-6000:]
    assert proc.returncode == 0, f"false SOLVED or contactcp crash (rerun: python benchmarks/fclib.py --smoke)\n{log}"
    recs = json.loads(js.read_text())["records"]
    from contactcp.sweep import load

    kept = load(tmp_path / "store")  # one row per file, its records as JSON: a run --resume completes
    assert sorted(r for text in kept["records"] for r in [json.dumps(x, sort_keys=True) for x in json.loads(text)]) == (
        sorted(json.dumps(r, sort_keys=True) for r in recs)
    )
    default = {r["problem"]: r for r in recs if r["backend"] == "contactcp" and r["solver"] == "default"}
    assert set(SMOKE_LOCAL) <= set(default), log
    for name in SMOKE_LOCAL:  # small, well-posed: the default chain solves them (checked by the benchmark)
        r = default[name]
        assert r["status"] in ("SOLVED", "TIMEOUT"), r  # a timeout only under heavy load, and never a claim
        if r["status"] == "SOLVED":
            assert r["residual"] <= 1e-8 and r["claimed"] is True, r
        else:
            assert not r.get("claimed"), r
    assert any(default[name]["status"] == "SOLVED" for name in SMOKE_LOCAL), log
    text = out.read_text()
    assert "## Local problems" in text and all(f"| {name} |" in text for name in SMOKE_LOCAL)
    assert (tmp_path / "fclib_profile.png").stat().st_size > 1000


def _fake_worker_run(monkeypatch, tmp_path, reps: int, solve_s: float, build_s: float = 0.0) -> dict:
    """benchmarks/fclibbench/worker.py's main on a fake backend (no solver, no file): its record."""
    import time as _time

    from fclibbench import worker

    def backend(job, d):
        def build():
            if build_s:
                _time.sleep(build_s)
            return None

        def run(state):
            if solve_s:
                _time.sleep(solve_s)
            return {"r": np.zeros(3)}, True, "ok", 1

        return build, run

    monkeypatch.setattr(worker, "contactcp_backend", backend)
    monkeypatch.setattr(worker, "read_npz", lambda path: {})
    monkeypatch.setattr(worker, "_check", lambda job, d, ans: True)
    job = {"backend": "contactcp", "form": "local", "npz": "-", "reps": reps, "budget": 60.0}
    job["out"] = str(tmp_path / "out.json")
    path = tmp_path / "job.json"
    path.write_text(json.dumps(job))
    assert worker.main(str(path)) == 0
    return json.loads((tmp_path / "out.json").read_text())


def test_worker_reps_zero_is_the_warm_up_only(monkeypatch, tmp_path):
    # benchmarks/fclib.py primes the numba cache with reps = 0: no timed run may follow the warm-up
    rec = _fake_worker_run(monkeypatch, tmp_path, reps=0, solve_s=0.0)
    assert rec["phase"] == "done" and rec["times"] == []


def test_worker_times_fast_solves_many_times_within_its_wall_limit(monkeypatch, tmp_path):
    from fclibbench import worker

    # an instant solve: more than the 3 asked for, at most MAX_REPS
    rec = _fake_worker_run(monkeypatch, tmp_path, reps=3, solve_s=0.0)
    assert 3 < len(rec["times"]) <= worker.MAX_REPS
    # an untimed build that dominates: the extra runs stop at MAX_WALL seconds of the loop
    monkeypatch.setattr(worker, "MAX_WALL", 0.2)
    rec = _fake_worker_run(monkeypatch, tmp_path, reps=3, solve_s=0.0, build_s=0.02)
    assert 3 <= len(rec["times"]) <= 0.2 / 0.02 + 1

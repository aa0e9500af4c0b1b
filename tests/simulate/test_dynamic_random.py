"""Random dynamic contact states: Lemke vs interior point on the pyramid LCP, cone solvers,
the scene JSON, the CLI commands `dynamic` and `fclib`."""

import json

import numpy as np
import pytest

import contactcp as ccp
from contactcp import InvalidProblemError
from contactcp.cli import main
from contactcp.formulations.dynamic_cone import cone_problem
from contactcp.formulations.pyramid_lcp import pyramid_lcp
from contactcp.formulations.theorem2 import theorem2
from contactcp.io.fclib import FclibLocal, write_local
from contactcp.io.scene import system_from_dict
from contactcp.scenarios.random_dynamic import random_system
from contactcp.simulate.instant import solve_dynamic


@pytest.mark.parametrize("seed", range(8))
def test_lemke_and_interior_point_agree_on_random_states(seed):
    cd = random_system(3 + seed % 4 * 3, seed=seed).dynamics()
    assert theorem2(cd)["full_column_rank"]
    lem = solve_dynamic(cd, "pyramid", method="lemke")
    ip = solve_dynamic(cd, "pyramid", method="interior-point")
    assert lem.success and ip.success
    assert lem.max_violation < 1e-8 and ip.max_violation < 1e-8
    # A positive definite with small friction: the contact accelerations agree
    np.testing.assert_allclose(lem.a, ip.a, atol=1e-6 * max(1.0, np.abs(lem.a).max()))


@pytest.mark.parametrize("seed", range(6))
def test_cone_newton_and_nsgs_answers_pass_the_original_conditions(seed):
    cd = random_system(4 + seed, seed=50 + seed).dynamics()
    for method in ("newton", "nsgs"):
        out = solve_dynamic(cd, "cone", method=method, tol=1e-10)
        assert out.success, (method, out.result.message)
        assert out.max_violation < 1e-7
        modes = {o.mode for o in out.contacts}
        assert modes <= {"rolling", "sliding", "breaking"}


def test_newton_solves_a_large_coupled_state_with_gmres():
    # 150 fingers on one light sphere: W has a large low-rank part (the sphere), the
    # active Newton system exceeds GMRES_ABOVE rows and is solved by preconditioned GMRES
    p = cone_problem(random_system(150, seed=3).dynamics())
    r = ccp.solve(p, "newton", tol=1e-9)
    assert r.success and r.residual.value <= 1e-9
    lu = ccp.solve(p, "newton", tol=1e-9, linear="lu")
    assert lu.success
    np.testing.assert_allclose(r.x, lu.x, atol=1e-6 * np.abs(lu.x).max())


def test_pyramid_lcp_has_one_pair_per_unknown():
    cd = random_system(5, seed=1).dynamics()
    form = pyramid_lcp(cd)
    sliding_dirs = sum(int(np.count_nonzero(cd.v_t[j])) for j in range(cd.n_c) if cd.sliding[j])
    assert form.lcp.n == cd.n_c + 2 * (2 * cd.n_c - sliding_dirs)


SCENE = {
    "bodies": [{"mass": 1.0, "inertia": 0.1, "wrench": [2.0, 0, 0, 0, 0, 0]}],
    "contacts": [{"body": 0, "point": [0, 0, 0], "normal": [0, 0, 1], "mu": 0.5, "tangent": [1, 0, 0]}],
}


def test_scene_dict_and_cli_json(tmp_path, capsys):
    out = solve_dynamic(system_from_dict(SCENE), "cone")
    assert out.success and out.contacts[0].mode == "rolling"
    f = tmp_path / "scene.json"
    f.write_text(json.dumps(SCENE))
    assert main(["dynamic", str(f), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "SOLVED" and d["success"] is True and d["method"] == "lemke"
    (c,) = d["contacts"]
    assert set(c) >= {"c", "a", "mode", "transition"}
    np.testing.assert_allclose(c["c"], [9.81, -2.0, 0.0], atol=1e-9)
    assert c["mode"] == "rolling" and c["transition"] == "unchanged"


def test_cli_dynamic_random_cone(capsys):
    assert main(["dynamic", "--random", "4", "--friction", "cone", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["success"] and len(d["contacts"]) == 4 and d["residual"] <= 1e-9


def test_cli_dynamic_bad_scene_one_line(tmp_path, capsys):
    bad = dict(SCENE, contacts=[dict(SCENE["contacts"][0], mu=-1.0)])
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(bad))
    assert main(["dynamic", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mu" in err and "Traceback" not in err
    with pytest.raises(InvalidProblemError, match="unknown key"):
        system_from_dict(dict(SCENE, extra=1))


def test_cli_fclib_round_trip(tmp_path, capsys):
    p = cone_problem(random_system(6, seed=2).dynamics())
    f = tmp_path / "p.hdf5"
    write_local(f, FclibLocal.from_problem(p))
    assert main(["fclib", str(f), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "SOLVED" and d["success"] and len(d["r"]) == 18 and len(d["u"]) == 18
    r = ccp.solve(p, "newton")
    np.testing.assert_allclose(d["r"], r.x, atol=1e-9)
    assert main(["fclib", str(tmp_path / "missing.hdf5")]) == 2

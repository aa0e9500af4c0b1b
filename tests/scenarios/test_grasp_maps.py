"""The three-finger grasp through the sweep layer: effort map, mu-scan, ensemble, each checked
against single solves."""

import numpy as np
import pytest

from contactcp.analysis.determinacy import analyse
from contactcp.analysis.modemap import mode_classes
from contactcp.scenarios.buffo2006 import puma3_grasp
from contactcp.scenarios.grasp_maps import _grasp_system, grasp_ensemble, grasp_map, grasp_scan
from contactcp.simulate.instant import solve_dynamic

CLASSES = mode_classes(3)


def test_grasp_map_agrees_with_analyse_point_by_point(tmp_path):
    t = np.array([-20.0, -5.0, 0.0, 9.0, 12.0, 20.0])
    table = grasp_map(0.4, t, t, workers=1, progress=False, store=tmp_path / "m")
    assert table.shape == (6, 6) and table.meta["store"] == str(tmp_path / "m")
    cls = table.grid("cls")
    for i, a in enumerate(t):
        for j, b in enumerate(t):
            out = analyse(_grasp_system(0.4, 0, (1, 2), a, b))
            assert out.verdict == "determinate"
            if "breaking" in out.modes:
                expected = "breaking"
            else:
                expected = "".join("R" if m == "rolling" else "S" for m in out.modes)
            assert CLASSES[cls[i, j]] == expected, (a, b, out.modes)
    assert CLASSES[cls[2, 2]] == "RRR"  # the paper's efforts hold the sphere at mu = 0.4
    assert {CLASSES[k] for k in np.unique(cls)} >= {"RRR", "breaking"}


def test_mu_scan_matches_single_solves():
    mus = [0.1, 0.2, 0.4, 0.8]
    table = grasp_scan(mus, workers=1, progress=False)
    assert table["solved"].all() and (table["residual"] <= 1e-8).all()
    for k, mu in enumerate(mus):
        ref = solve_dynamic(puma3_grasp(mu, "rolling").system, friction="cone")
        np.testing.assert_allclose(table["c"][k], np.concatenate([o.c for o in ref.contacts]), rtol=1e-6, atol=1e-6)
        assert table["modes"][k].tolist() == [{"rolling": 0, "sliding": 1}[o.mode] for o in ref.contacts]
    assert table["modes"][0].tolist() == [1, 1, 1] and table["modes"][2].tolist() == [0, 0, 0]


def test_ensemble_holds_with_friction_and_slips_without():
    table = grasp_ensemble([0.1, 0.4], [20.0], steps=3, dt=2e-3, workers=1, progress=False)
    held = table.grid("held")[:, 0]
    assert held.tolist() == [False, True]
    assert table.grid("sphere_dz")[0, 0] < -1e-5 < table.grid("sphere_dz")[1, 0]


def test_bad_arguments():
    from contactcp.errors import InvalidProblemError

    with pytest.raises(InvalidProblemError, match="finger"):
        grasp_map(0.4, [0.0, 1.0], [0.0, 1.0], finger=3, progress=False)
    with pytest.raises(InvalidProblemError, match="state"):
        grasp_scan([0.4], state="flying")

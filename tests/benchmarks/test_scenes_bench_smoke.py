"""benchmarks/scenes.py runs to the end (peers it cannot import are reported, not fatal) and its
statics measure is right on a scene built here."""

import subprocess
import sys

import numpy as np

from contactcp.models.scene import Scene
from contactcp.simulate.scene import solve_scene
from support.paths import ROOT


def test_imbalance_measures_the_net_force():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import scenes as bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    s = Scene()
    s.add_fixed("floor", {"type": "plane"}, friction=0.5)
    s.add_body("box", {"type": "box", "size": [0.2, 0.2, 0.2]}, 2.0, {"p": [0, 0, 0.1]})
    out = solve_scene(s)
    assert bench._imbalance(out) < 1e-12
    out.contacts[0].force[0] += 1.0  # one more newton up on one corner: a net force of 1 N on 2 kg
    assert np.isclose(bench._imbalance(out), 1.0 / (2.0 * 9.81), rtol=1e-9)


def test_scenes_benchmark_smoke(tmp_path):
    out = tmp_path / "scenes.md"
    p = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "scenes.py"), "--repeat", "3", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    text = out.read_text()
    assert "| box_on_plane.xml |" in text and "SOLVED" in text and "Load average" in text

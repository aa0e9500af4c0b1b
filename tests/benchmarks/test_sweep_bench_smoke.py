"""benchmarks/sweep.py's SIGKILL-and-resume measure on a small map: nothing lost, nothing duplicated."""

import sys

from support.paths import ROOT


def test_kill_and_resume_small_map():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import sweep as bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    out = bench.kill_and_resume(kills=2, resolution=40, seed=3)
    assert out["final_rc"] == 0
    assert out["lost"] == 0 and out["duplicated"] == 0 and out["identical"]
    assert out["points"] == 1600 and out["chunks"] == 4

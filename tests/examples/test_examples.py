"""Every script under examples/ runs to the end (each checks its own numbers with asserts)."""

import os
import subprocess
import sys

import pytest

from support.paths import ROOT

EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip(), "an example prints what it shows"

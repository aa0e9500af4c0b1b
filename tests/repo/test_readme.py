"""The README's Python examples run (each block in a fresh interpreter)."""

import os
import re
import subprocess
import sys

import pytest

from support.paths import ROOT

BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)


def test_the_readme_has_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("k", range(len(BLOCKS)))
def test_readme_example_runs(k, tmp_path):
    script = tmp_path / "example.py"  # saved as a script and run as written: no main guard needed
    script.write_text(BLOCKS[k])
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env
    )
    assert out.returncode == 0, out.stderr[-3000:]

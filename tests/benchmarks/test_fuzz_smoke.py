"""The fuzz harness's smoke subset (benchmarks/fuzz.py --smoke) as a test.

A few hundred seeded solver runs over every problem type and family, the targeted
cases of issue 11 among them; every answer is checked by the harness's own exact
arithmetic.  The test fails on any false SOLVED, false NO_SOLUTION, crash, hang
or harness error, and its message lists them with the command that reproduces each.
"""

import subprocess
import sys

from support.paths import ROOT

FUZZ = ROOT / "benchmarks" / "fuzz.py"


def test_fuzz_smoke():
    proc = subprocess.run(
        [sys.executable, FUZZ, "--smoke", "--quiet"], capture_output=True, text=True, timeout=1800, cwd=ROOT
    )
    out = proc.stdout + proc.stderr
    assert "problems," in proc.stdout, out[-3000:]
    summary = proc.stdout.strip().splitlines()[0]
    runs = int(summary.split(" runs")[0].rsplit(" ", 1)[-1])
    assert runs >= 200, summary
    assert proc.returncode == 0, (
        f"{summary}\nrerun: python benchmarks/fuzz.py --smoke (or --only KEY --methods M)\n{out[-6000:]}"
    )

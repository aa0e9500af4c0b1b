"""Where things are: the repository root, the source tree, the tests' data."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "contactcp"
DATA = ROOT / "tests" / "data"
SHARED = ROOT.parent / "shared"

"""The package's layering, read from the source: data flow one way, and no import cycle.

Each unit (a subpackage or a top-level module of ``contactcp``) sits in a layer; a unit may import
only from its own unit and from lower layers.  The order follows the data flow:
linear-algebra kernels -> problems -> solvers -> models -> formulations -> interpretation ->
simulate -> sweeps -> analysis -> io -> scenarios -> plotting -> experiments -> the CLI.
"""

from __future__ import annotations

import ast
import pathlib
from collections import defaultdict

import pytest

from support.paths import SRC

#: bottom first; every unit of the package must be listed
LAYERS = [
    {"errors", "settings", "_version", "result", "_validate", "_files"},
    {"linalg"},
    {"problems"},
    {"solvers"},
    {"models"},
    {"formulations"},
    {"interpret"},
    {"simulate"},
    {"sweep"},
    {"analysis"},
    {"io"},
    {"scenarios"},
    {"plotting"},
    {"experiments"},
    {"cli", "_jit", "__init__", "__main__"},
]
LEVEL = {unit: k for k, units in enumerate(LAYERS) for unit in units}


def _unit(path: pathlib.Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py") if len(rel.parts) > 1 or rel.name != "__init__.py" else "__init__"


def _imports(path: pathlib.Path) -> set[str]:
    """The contactcp units a module imports (absolute imports only: the package uses no relative ones)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            mod = node.module or ""
            if mod == "contactcp":
                out.update(a.name for a in node.names)
            elif mod.startswith("contactcp."):
                out.add(mod.split(".")[1])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("contactcp."))
    return out


def _graph() -> dict[str, dict[str, set[str]]]:
    """unit -> imported unit -> the files that import it."""
    g: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in SRC.rglob("*.py"):
        me = _unit(path)
        for other in _imports(path):
            if other != me:
                g[me][other].add(str(path.relative_to(SRC)))
    return g


def test_every_unit_has_a_layer():
    units = {_unit(p) for p in SRC.rglob("*.py")}
    assert units - set(LEVEL) == set(), "add these units to LAYERS"


def test_imports_only_go_down_the_layers():
    bad = []
    for me, targets in _graph().items():
        for other, files in targets.items():
            if other in LEVEL and LEVEL[other] > LEVEL[me]:
                bad.append(f"{me} (layer {LEVEL[me]}) imports {other} (layer {LEVEL[other]}) in {sorted(files)}")
    assert bad == []


def test_no_import_cycle_between_units():
    g = _graph()
    seen, stack, cycles = set(), [], []

    def visit(u):
        if u in stack:
            cycles.append(stack[stack.index(u) :] + [u])
            return
        if u in seen:
            return
        seen.add(u)
        stack.append(u)
        for v in g.get(u, {}):
            visit(v)
        stack.pop()

    for u in list(g):
        visit(u)
    assert cycles == []


@pytest.mark.parametrize("layer", ["linalg"])
def test_the_bottom_layers_import_only_the_base(layer):
    for other in _graph().get(layer, {}):
        assert LEVEL[other] == 0, other

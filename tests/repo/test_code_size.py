"""Small modules and functions: no module over 400 logical lines of code, no function over 80, without
a stated reason.  A logical line is a statement (however the formatter spreads it); docstrings,
comments and blank lines do not count (long explanations of a method are welcome)."""

from __future__ import annotations

import ast

import pytest

from support.paths import SRC

MODULE_MAX = 400
FUNCTION_MAX = 80

#: functions allowed above FUNCTION_MAX, and why
LONG_FUNCTIONS = {
    "solvers/lcp/lemke_kernel.py:lemke_core": "one compiled pivoting loop (numba): splitting it costs calls "
    "in the hot path",
}
#: modules allowed above MODULE_MAX, and why
LONG_MODULES: dict[str, str] = {}


def _code_lines(source: str) -> set[int]:
    """The logical lines of code: one per statement (a statement spread over several physical lines by
    the formatter counts once), docstrings, comments and blank lines excluded."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt):
            value = getattr(node, "value", None)
            if isinstance(node, ast.Expr) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                continue  # a docstring
            lines.add(node.lineno)
    return lines


def _files():
    return sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(SRC)))
def test_module_size(path):
    rel = str(path.relative_to(SRC))
    n = len(_code_lines(path.read_text()))
    assert n <= MODULE_MAX or rel in LONG_MODULES, f"{rel}: {n} lines of code"


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(SRC)))
def test_function_size(path):
    rel = str(path.relative_to(SRC))
    source = path.read_text()
    code = _code_lines(source)
    long = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = len(code & set(range(node.lineno, node.end_lineno + 1)))
            if n > FUNCTION_MAX and f"{rel}:{node.name}" not in LONG_FUNCTIONS:
                long.append(f"{node.name} ({n})")
    assert long == [], f"{rel}: " + ", ".join(long)

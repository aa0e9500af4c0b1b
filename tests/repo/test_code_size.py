"""Small modules and functions: no module over 400 lines of code, no function over 80, without a
stated reason.  Lines of code exclude blank lines, comments and docstrings (long explanations of a
method are welcome)."""

from __future__ import annotations

import ast
import io
import pathlib
import tokenize

import pytest

from support.paths import SRC
MODULE_MAX = 400
FUNCTION_MAX = 80

#: functions allowed above FUNCTION_MAX, and why
LONG_FUNCTIONS = {
    "solvers/lcp/lemke_kernel.py:lemke_core": "one compiled pivoting loop (numba): splitting it costs calls in the hot path",
}
#: modules allowed above MODULE_MAX, and why
LONG_MODULES: dict[str, str] = {}


def _code_lines(source: str) -> set[int]:
    """Line numbers holding code: not blank, not only a comment, not inside a docstring."""
    doc_lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                doc_lines.update(range(first.lineno, first.end_lineno + 1))
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                            tokenize.ENDMARKER):
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return lines - doc_lines


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

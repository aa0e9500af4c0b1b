"""The README's two fresh-machine commands stay true."""

from support.paths import ROOT


def _commands():
    lines = (ROOT / "README.md").read_text().splitlines()[:8]
    return [ln.strip("`") for ln in lines if ln.startswith("`python3 -m venv")]


def test_readme_starts_with_two_commands():
    cmds = _commands()
    assert len(cmds) == 2
    assert "contactcp reproduce all" in cmds[0]
    assert "pytest" in cmds[1] and ".[test]" in cmds[1]


def test_ci_runs_the_readme_test_command():
    assert _commands()[1] in (ROOT / ".ci" / "run").read_text()

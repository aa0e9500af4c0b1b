"""The in-tree kernel cache is dropped when a module changes (numba checks only a kernel's own file)."""

import os

from contactcp._jit import _STAMP, refresh_cache


def _tree(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub" / "__pycache__").mkdir(parents=True)
    (pkg / "__pycache__").mkdir()
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("from numba import njit\ny = 2\n")
    return pkg


def _cache_files(pkg, tag):
    files = [pkg / "__pycache__" / f"a.f-1.py311.{tag}.nbi", pkg / "sub" / "__pycache__" / f"b.g-3.py311.{tag}.nbc"]
    for f in files:
        f.write_bytes(b"cached")
    return files


def test_cache_kept_while_the_sources_do_not_change_and_dropped_when_one_does(tmp_path):
    pkg = _tree(tmp_path)
    first = _cache_files(pkg, "0")
    assert refresh_cache(pkg) == 2  # no stamp yet: whatever is there is of unknown sources
    assert not any(f.exists() for f in first)
    assert (pkg / "__pycache__" / _STAMP).exists()
    kept = _cache_files(pkg, "1")
    assert refresh_cache(pkg) == 0 and all(f.exists() for f in kept)  # unchanged sources: kept
    b = pkg / "sub" / "b.py"
    b.write_text("from numba import njit\ny = 3\n")  # a kernel module edited in place
    st = b.stat()
    os.utime(b, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert refresh_cache(pkg) == 2 and not any(f.exists() for f in kept)
    assert refresh_cache(pkg) == 0
    again = _cache_files(pkg, "2")
    a = pkg / "a.py"
    a.write_text("x = 2\n")  # a module without kernels edited: the cache stays
    os.utime(a, ns=(a.stat().st_atime_ns, a.stat().st_mtime_ns + 1_000_000_000))
    assert refresh_cache(pkg) == 0 and all(f.exists() for f in again)


def test_a_read_only_tree_is_left_alone(tmp_path, monkeypatch):
    pkg = _tree(tmp_path)
    files = _cache_files(pkg, "0")

    def refuse(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr("pathlib.Path.unlink", refuse)
    assert refresh_cache(pkg) == 0  # numba caches elsewhere then, by its own checks
    assert all(f.exists() for f in files)


def test_warmups_global_problems_take_the_paths_a_large_pile_takes(monkeypatch):
    # contactcp warmup left woodbury_step (the dense reduced matrix) and the projection's problem
    # (normal columns selected from the whole Jacobian) to a 50-box pile's first run; its two global
    # problems must keep taking those paths
    import importlib

    import contactcp as ccp
    from contactcp import _jit

    NG = importlib.import_module("contactcp.solvers.cone.newton_global")
    dense = []
    step = NG.woodbury_step

    def counting(*args):
        dense.append(1)
        return step(*args)

    monkeypatch.setattr(NG, "woodbury_step", counting)
    assert ccp.solve(_jit._coupled_global(), "newton-global").success
    assert dense  # the dense path, not the band one
    projection = _jit._projection_global()
    assert projection.dim == 2 and projection.n_c == 2
    assert ccp.solve(projection, "newton-global").success

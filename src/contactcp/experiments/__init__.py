"""Reproducible experiments: ``contactcp reproduce NAME`` writes ``results/NAME/``.

Each experiment module exposes ``run(out_dir: Path, quick: bool) -> list[Path]``
returning the files it wrote.
"""

from __future__ import annotations

import importlib
import inspect
import os
import shutil
import tempfile
import time
from pathlib import Path

#: name -> (module, one-line description)
EXPERIMENTS: dict[str, tuple[str, str]] = {
    "pang1994": (
        "contactcp.experiments.pang1994",
        "Pang-Trinkle-Lo 1994: Data Sets 1-4, the mu-scan of Data Set 2, Table 1",
    ),
    "buffo2006": (
        "contactcp.experiments.buffo2006",
        "Buffo-Maciel 2006: three PUMA-560 fingers, Tables 1-4 by the merit method, time steps",
    ),
    "yashima": (
        "contactcp.experiments.yashima",
        "Yashima-Yamaguchi: contact-mode maps over joint-torque space, determinacy, Figs. 7-8",
    ),
    "timestepping": (
        "contactcp.experiments.timestepping",
        "the time stepper on its verification scenes: Siconos' ball, slopes, rolling, stack, piles, robots",
    ),
    "lcp_families": (
        "contactcp.experiments.lcp_families",
        "every LCP method on the seeded test families, with certified residuals",
    ),
}


def run(name: str, out: str | Path = "results", quick: bool = False, **options) -> list[Path]:
    """Run one experiment into ``out/name`` and report the files written.

    The experiment writes into a new hidden sibling folder ``out/.name.tmp-*``,
    which replaces ``out/name`` only when the experiment has finished: until
    then a previous complete ``out/name`` stays as it was, and a failed or
    interrupted run (Ctrl-C) leaves the old results or nothing, never a
    half-written folder that looks complete.

    ``options`` (e.g. ``resolution`` of the mode maps) go to the experiments whose ``run`` accepts them.
    """
    module, desc = EXPERIMENTS[name]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    out_dir = out / name
    print(f"[{name}] {desc}", flush=True)
    t0 = time.perf_counter()
    fn = importlib.import_module(module).run
    accepted = inspect.signature(fn).parameters
    work = Path(tempfile.mkdtemp(dir=out, prefix=f".{name}.tmp-"))
    try:
        written = fn(work, quick, **{k: v for k, v in options.items() if k in accepted and v is not None})
        os.chmod(work, 0o777 & ~_umask())
        _replace_folder(work, out_dir)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    files = [out_dir / Path(f).relative_to(work) for f in written]
    for f in files:
        print(f"[{name}]   wrote {f}")
    print(f"[{name}] done in {time.perf_counter() - t0:.1f} s", flush=True)
    return files


def _umask() -> int:
    from contactcp._files import umask

    return umask()


def _replace_folder(new: Path, target: Path) -> None:
    """Put the complete folder ``new`` at ``target``; an old ``target`` is moved aside first and
    removed only after the new one is in place (put back if the rename fails)."""
    old = None
    if target.exists() or target.is_symlink():
        if not target.is_dir() or target.is_symlink():
            raise FileExistsError(f"{target} exists and is not a folder; not replaced")
        old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.old-"))
        os.rmdir(old)
        os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        if old is not None:
            os.rename(old, target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)

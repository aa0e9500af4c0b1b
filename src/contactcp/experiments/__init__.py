"""Reproducible experiments: ``contactcp reproduce NAME`` writes ``results/NAME/``.

Each experiment module exposes ``run(out_dir: Path, quick: bool) -> list[Path]``
returning the files it wrote.
"""

from __future__ import annotations

import importlib
import inspect
import time
from pathlib import Path

#: name -> (module, one-line description)
EXPERIMENTS: dict[str, tuple[str, str]] = {
    "pang1994": ("contactcp.experiments.pang1994",
                 "Pang-Trinkle-Lo 1994: Data Sets 1-4, the mu-scan of Data Set 2, Table 1"),
    "buffo2006": ("contactcp.experiments.buffo2006",
                  "Buffo-Maciel 2006: three PUMA-560 fingers, Tables 1-4 by the merit method, time steps"),
    "yashima": ("contactcp.experiments.yashima",
                "Yashima-Yamaguchi: contact-mode maps over joint-torque space, determinacy, Figs. 7-8"),
    "lcp_families": ("contactcp.experiments.lcp_families",
                     "every LCP method on the seeded test families, with certified residuals"),
}


def run(name: str, out: str | Path = "results", quick: bool = False, **options) -> list[Path]:
    """Run one experiment into ``out/name`` and report the files written.

    ``options`` (e.g. ``resolution`` of the mode maps) go to the experiments whose ``run`` accepts them.
    """
    module, desc = EXPERIMENTS[name]
    out_dir = Path(out) / name
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"[{name}] {desc}", flush=True)
    t0 = time.perf_counter()
    fn = importlib.import_module(module).run
    accepted = inspect.signature(fn).parameters
    files = fn(out_dir, quick, **{k: v for k, v in options.items() if k in accepted and v is not None})
    for f in files:
        print(f"[{name}]   wrote {f}")
    print(f"[{name}] done in {time.perf_counter() - t0:.1f} s", flush=True)
    return files

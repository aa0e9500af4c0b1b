"""A progress bar for sweeps on a terminal."""

from __future__ import annotations

import sys
import time

# --------------------------------------------------------------------------- progress


class _Progress:
    """tqdm on a terminal, else a small text bar; one summary line when stderr is not a terminal."""

    def __init__(self, total: int, desc: str, enabled: bool):
        self.total, self.desc, self.done = total, desc, 0
        self.enabled = enabled
        self.tty = enabled and getattr(sys.stderr, "isatty", lambda: False)()
        self.bar = None
        self.t0 = time.perf_counter()
        self.last = 0.0
        if self.tty:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=total, desc=desc, unit="pt", file=sys.stderr, dynamic_ncols=True)
            except ImportError:
                self._draw()

    def update(self, k: int) -> None:
        self.done += k
        if self.bar is not None:
            self.bar.update(k)
        elif self.tty:
            now = time.perf_counter()
            if now - self.last > 0.1 or self.done >= self.total:
                self.last = now
                self._draw()

    def _draw(self) -> None:
        frac = self.done / self.total if self.total else 1.0
        width = 30
        fill = int(round(frac * width))
        el = time.perf_counter() - self.t0
        sys.stderr.write(
            f"\r{self.desc}: {frac:4.0%} |{'#' * fill}{' ' * (width - fill)}| {self.done}/{self.total} [{el:.1f} s]"
        )
        sys.stderr.flush()

    def close(self, summary: str, ok: bool) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.tty:
            sys.stderr.write("\n")
        elif self.enabled and ok:
            sys.stderr.write(summary + "\n")
        if self.enabled:
            sys.stderr.flush()

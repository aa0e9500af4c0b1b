"""Solve every case with every method in killable worker processes, each solve under a deadline.

A worker rebuilds each case from its key (nothing unpicklable crosses the pipe),
announces each solve before starting it, solves, checks the answer with the
harness's own code and sends the verdict.  The parent kills a worker whose
solve passes the deadline (a hang: numba kernels ignore signals, so only a
process kill is reliable), or notices a worker that died (a crash), records it
and starts a fresh worker on the rest of that case's methods.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
import traceback
from collections import deque
from multiprocessing.connection import wait

import numpy as np

from .cases import build_case
from .check import check_answer, cross_check

__all__ = ["run_all", "solve_one", "methods_for"]

CHECK_DEADLINE = 300.0  # the harness's own check (exact arithmetic) of one answer
WALL_FACTOR = 10.0  # a solve is a hang after `timeout` CPU seconds, or this many times it in wall time
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) of a process, from /proc (None where unavailable): the hang test
    counts the worker's own CPU time, so that a loaded machine does not turn slow solves into hangs."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return None


def methods_for(ccp, case, only=None) -> list[str]:
    names = list(ccp.methods(case.problem)) + ["default"]
    return [m for m in names if only is None or m in only]


def _summary(res) -> dict:
    cert = res.certificate
    c = None
    if cert is not None:
        ex = getattr(cert, "exact", None)
        c = {
            "kind": cert.kind,
            "vector": None if cert.vector is None else np.array(cert.vector, dtype=float),
            "exact": None if ex is None else tuple(ex),
            "verified": bool(cert.verified),
        }
    chain = res.stats.get("chain") if isinstance(res.stats, dict) else None
    return {
        "status": res.status.name,
        "x": None if res.x is None else np.array(res.x, dtype=float),
        "w": None if res.w is None else np.array(res.w, dtype=float),
        "residual": None if res.residual is None else float(res.residual.value),
        "message": (res.message or "")[:300],
        "certificate": c,
        "method": res.method,
        "chain": None if chain is None else str(chain)[:200],
    }


def solve_one(ccp, case, method: str, tol: float) -> dict:
    opts = {} if method == "default" else dict(case.starts.get(method, {}))
    try:
        res = ccp.solve(case.problem, None if method == "default" else method, tol, **opts)
        return _summary(res)
    except Exception as exc:  # noqa: BLE001 - every exception is a finding, classified here
        typed = isinstance(exc, ccp.ContactCPError)
        return {
            "status": "EXCEPTION",
            "exception": {
                "type": type(exc).__name__,
                "typed": typed,
                "message": str(exc),
                "traceback": "".join(traceback.format_exception(exc)[-3:])[-800:],
                "options": sorted(opts),
            },
        }


def _worker(conn, seed: int, tol: float, only):
    import warnings

    warnings.simplefilter("ignore")  # the library's overflow warnings are not findings
    import contactcp as ccp

    while True:
        job = conn.recv()
        if job is None:
            return
        key, skip = job
        try:
            case = build_case(ccp, seed, key)
            names = methods_for(ccp, case, only)
        except Exception as exc:  # noqa: BLE001 - a generator or constructor failure is a finding too
            conn.send(("case_error", key, f"{type(exc).__name__}: {exc}"))
            conn.send(("done", key))
            continue
        conn.send(("methods", key, names, case.truth, case.size, case.note))
        for m in names:
            if m in skip:
                continue
            conn.send(("start", key, m))
            t0 = time.perf_counter()
            ans = solve_one(ccp, case, m, tol)
            dt = time.perf_counter() - t0
            conn.send(("checking", key, m))
            t1 = time.perf_counter()
            try:
                rec = check_answer(case, ans, tol)
            except Exception as exc:  # noqa: BLE001
                rec = {
                    "verdict": "harness_error",
                    "detail": f"{type(exc).__name__}: {exc}",
                    "exact_residual": None,
                    "status": ans.get("status"),
                }
            rec.update(
                time=dt,
                check_time=time.perf_counter() - t1,
                lib_residual=ans.get("residual"),
                message=ans.get("message", ""),
                x=None if ans.get("x") is None or ans["x"].size > 12 else ans["x"].tolist(),
                cert_kind=(ans.get("certificate") or {}).get("kind"),
                chain=ans.get("chain"),
            )
            conn.send(("rec", key, m, rec))
        conn.send(("done", key))


class _Slot:
    def __init__(self, ctx, seed, tol, only):
        self.parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, seed, tol, only), daemon=True)
        self.proc.start()
        child.close()
        self.key = None
        self.method = None
        self.phase = None
        self.deadline = None
        self.done_methods: set[str] = set()
        self.eof = False
        self.cpu0 = None

    def kill(self):
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.parent.close()


class _Pool:
    """Worker slots, the queue of (key, methods to skip) and the records received."""

    def __init__(self, keys, seed, tol, timeout, workers, only, progress):
        self.ctx = mp.get_context("fork")
        self.args = (seed, tol, only)
        self.timeout, self.progress = timeout, progress
        self.queue = deque((k, frozenset()) for k in keys)
        self.slots = [_Slot(self.ctx, *self.args) for _ in range(min(workers, max(1, len(keys))))]
        self.cases: dict[str, dict] = {}
        self.records: list[dict] = []
        self.busy = 0

    def dispatch(self, slot):
        if self.queue:
            key, skip = self.queue.popleft()
            slot.key, slot.method, slot.phase = key, None, "building"
            slot.deadline = time.monotonic() + CHECK_DEADLINE
            slot.done_methods = set(skip)
            slot.parent.send((key, skip))
            self.busy += 1
        else:
            slot.key = None

    def record(self, key, method, rec):
        ptype, family, index = key.split(":")
        self.records.append(
            {
                "key": key,
                "ptype": ptype,
                "family": family,
                "index": int(index),
                "method": method,
                "truth": self.cases.get(key, {}).get("truth", "unknown"),
                **rec,
            }
        )

    def fail(self, slot, verdict, detail):
        """The worker hung or died: record, replace it, requeue the rest of its case."""
        key, m = slot.key, slot.method
        if slot.phase in ("checking", "building") and verdict == "hang":
            verdict, detail = "harness_error", f"the harness's own {slot.phase} exceeded its deadline"
        self.record(
            key,
            m or "(case)",
            {
                "verdict": verdict,
                "detail": detail,
                "status": verdict.upper(),
                "exact_residual": None,
                "time": self.timeout if verdict == "hang" else None,
            },
        )
        skip = frozenset(slot.done_methods | ({m} if m else set()))
        slot.kill()
        self.busy -= 1
        i = self.slots.index(slot)
        self.slots[i] = _Slot(self.ctx, *self.args)
        if m is not None:
            self.queue.appendleft((key, skip))
        self.dispatch(self.slots[i])

    def handle(self, s, msg) -> bool:
        """One message from slot s; True when its case is done."""
        kind = msg[0]
        if kind == "methods":
            _, key, names, truth, size, note = msg
            self.cases[key] = {"truth": truth, "size": size, "note": note, "methods": names}
            s.phase, s.deadline = None, None
        elif kind == "start":
            s.method, s.phase, s.deadline = msg[2], "solving", time.monotonic() + WALL_FACTOR * self.timeout
            s.cpu0 = _cpu_seconds(s.proc.pid)
        elif kind == "checking":
            s.phase, s.deadline = "checking", time.monotonic() + CHECK_DEADLINE
        elif kind == "rec":
            self.record(msg[1], msg[2], msg[3])
            s.done_methods.add(msg[2])
            s.method, s.phase, s.deadline = None, None, None
            if self.progress:
                self.progress(len(self.records))
        elif kind == "case_error":
            self.record(
                msg[1],
                "(case)",
                {"verdict": "harness_error", "detail": msg[2], "status": "CASE_ERROR", "exact_residual": None},
            )
        elif kind == "done":
            self.busy -= 1
            self.dispatch(s)
            return True
        return False

    def watch(self, s):
        """Death, wall-clock deadline, or CPU time beyond the timeout of slot s's current solve."""
        if s.eof or (not s.proc.is_alive() and not s.parent.poll()):
            self.fail(s, "crash", f"worker process died (exit code {s.proc.exitcode}) during {s.phase}")
        elif s.deadline is not None and time.monotonic() > s.deadline:
            self.fail(
                s,
                "hang",
                f"no answer within {WALL_FACTOR * self.timeout:g} s of wall time"
                if s.phase == "solving"
                else "check deadline",
            )
        elif s.phase == "solving" and s.cpu0 is not None:
            cpu = _cpu_seconds(s.proc.pid)
            if cpu is not None and cpu - s.cpu0 > self.timeout:
                self.fail(s, "hang", f"no answer after {cpu - s.cpu0:.0f} s of CPU time")

    def run(self):
        for s in self.slots:
            self.dispatch(s)
        while self.busy:
            live = [s for s in self.slots if s.key is not None]
            dl = [s.deadline for s in live if s.deadline is not None]
            wait_for = max(0.0, min(dl) - time.monotonic()) if dl else 1.0
            ready = wait([s.parent for s in live] + [s.proc.sentinel for s in live], timeout=min(wait_for, 1.0))
            for s in live:
                while s.key is not None and s.parent in ready and s.parent.poll():
                    try:
                        msg = s.parent.recv()
                    except (EOFError, OSError):
                        s.eof = True
                        break
                    if self.handle(s, msg):
                        break
                if s.key is not None:
                    self.watch(s)
        for s in self.slots:
            try:
                s.parent.send(None)
            except (OSError, BrokenPipeError):
                pass
            s.proc.join(5)
            if s.proc.is_alive():
                s.proc.kill()


def run_all(keys, seed: int, tol: float, timeout: float, workers: int, only=None, progress=None) -> tuple[dict, list]:
    """Returns (cases: key -> {truth, size, note, methods}, records: list of dicts)."""
    pool = _Pool(keys, seed, tol, timeout, workers, only, progress)
    pool.run()
    cross_check(pool.records)
    return pool.cases, pool.records

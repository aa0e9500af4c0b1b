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

CHECK_DEADLINE = 300.0       # the harness's own check (exact arithmetic) of one answer
WALL_FACTOR = 10.0           # a solve is a hang after `timeout` CPU seconds, or this many times it in wall time
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
        c = {"kind": cert.kind, "vector": None if cert.vector is None else np.array(cert.vector, dtype=float),
             "exact": None if ex is None else tuple(ex), "verified": bool(cert.verified)}
    chain = res.stats.get("chain") if isinstance(res.stats, dict) else None
    return {"status": res.status.name, "x": None if res.x is None else np.array(res.x, dtype=float),
            "w": None if res.w is None else np.array(res.w, dtype=float),
            "residual": None if res.residual is None else float(res.residual.value),
            "message": (res.message or "")[:300], "certificate": c, "method": res.method,
            "chain": None if chain is None else str(chain)[:200]}


def solve_one(ccp, case, method: str, tol: float) -> dict:
    opts = {} if method == "default" else dict(case.starts.get(method, {}))
    try:
        res = ccp.solve(case.problem, None if method == "default" else method, tol, **opts)
        return _summary(res)
    except Exception as exc:   # noqa: BLE001 - every exception is a finding, classified here
        typed = isinstance(exc, ccp.ContactCPError)
        return {"status": "EXCEPTION", "exception": {
            "type": type(exc).__name__, "typed": typed, "message": str(exc),
            "traceback": "".join(traceback.format_exception(exc)[-3:])[-800:], "options": sorted(opts)}}


def _worker(conn, seed: int, tol: float, only):
    import warnings
    warnings.simplefilter("ignore")          # the library's overflow warnings are not findings
    import contactcp as ccp
    while True:
        job = conn.recv()
        if job is None:
            return
        key, skip = job
        try:
            case = build_case(ccp, seed, key)
            names = methods_for(ccp, case, only)
        except Exception as exc:   # noqa: BLE001 - a generator or constructor failure is a finding too
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
            except Exception as exc:   # noqa: BLE001
                rec = {"verdict": "harness_error", "detail": f"{type(exc).__name__}: {exc}",
                       "exact_residual": None, "status": ans.get("status")}
            rec.update(time=dt, check_time=time.perf_counter() - t1, lib_residual=ans.get("residual"), message=ans.get("message", ""),
                       x=None if ans.get("x") is None or ans["x"].size > 12 else ans["x"].tolist(),
                       cert_kind=(ans.get("certificate") or {}).get("kind"), chain=ans.get("chain"))
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


def run_all(keys, seed: int, tol: float, timeout: float, workers: int, only=None, progress=None) -> tuple[dict, list]:
    """Returns (cases: key -> {truth, size, note, methods}, records: list of dicts)."""
    ctx = mp.get_context("fork")
    queue = deque((k, frozenset()) for k in keys)
    slots = [_Slot(ctx, seed, tol, only) for _ in range(min(workers, max(1, len(keys))))]
    cases: dict[str, dict] = {}
    records: list[dict] = []
    busy = 0

    def dispatch(slot):
        nonlocal busy
        if queue:
            key, skip = queue.popleft()
            slot.key, slot.method, slot.phase = key, None, "building"
            slot.deadline = time.monotonic() + CHECK_DEADLINE
            slot.done_methods = set(skip)
            slot.parent.send((key, skip))
            busy += 1
        else:
            slot.key = None

    def record(key, method, rec):
        info = cases.get(key, {})
        ptype, family, index = key.split(":")
        records.append({"key": key, "ptype": ptype, "family": family, "index": int(index), "method": method,
                        "truth": info.get("truth", "unknown"), **rec})

    def fail(slot, verdict, detail):
        """The worker hung or died: record, replace it, requeue the rest of its case."""
        nonlocal busy
        key, m = slot.key, slot.method
        if slot.phase in ("checking", "building") and verdict == "hang":
            verdict, detail = "harness_error", f"the harness's own {slot.phase} exceeded its deadline"
        record(key, m or "(case)", {"verdict": verdict, "detail": detail, "status": verdict.upper(),
                                    "exact_residual": None, "time": timeout if verdict == "hang" else None})
        skip = frozenset(slot.done_methods | ({m} if m else set()))
        slot.kill()
        busy -= 1
        i = slots.index(slot)
        slots[i] = _Slot(ctx, seed, tol, only)
        if m is not None:
            queue.appendleft((key, skip))
        dispatch(slots[i])

    for s in slots:
        dispatch(s)
    while busy:
        now = time.monotonic()
        live = [s for s in slots if s.key is not None]
        dl = [s.deadline for s in live if s.deadline is not None]
        wait_for = max(0.0, min(dl) - now) if dl else 1.0
        ready = wait([s.parent for s in live] + [s.proc.sentinel for s in live], timeout=min(wait_for, 1.0))
        for s in list(live):
            while s.key is not None and s.parent in ready and s.parent.poll():
                try:
                    msg = s.parent.recv()
                except (EOFError, OSError):
                    s.eof = True
                    break
                kind = msg[0]
                if kind == "methods":
                    _, key, names, truth, size, note = msg
                    cases[key] = {"truth": truth, "size": size, "note": note, "methods": names}
                    s.phase, s.deadline = None, None
                elif kind == "start":
                    s.method, s.phase, s.deadline = msg[2], "solving", time.monotonic() + WALL_FACTOR * timeout
                    s.cpu0 = _cpu_seconds(s.proc.pid)
                elif kind == "checking":
                    s.phase, s.deadline = "checking", time.monotonic() + CHECK_DEADLINE
                elif kind == "rec":
                    record(msg[1], msg[2], msg[3])
                    s.done_methods.add(msg[2])
                    s.method, s.phase, s.deadline = None, None, None
                    if progress:
                        progress(len(records))
                elif kind == "case_error":
                    record(msg[1], "(case)", {"verdict": "harness_error", "detail": msg[2], "status": "CASE_ERROR",
                                              "exact_residual": None})
                elif kind == "done":
                    busy -= 1
                    dispatch(s)
                    break
            if s.key is None:
                continue
            if s.eof or (not s.proc.is_alive() and not s.parent.poll()):
                fail(s, "crash", f"worker process died (exit code {s.proc.exitcode}) during {s.phase}")
            elif s.deadline is not None and time.monotonic() > s.deadline:
                fail(s, "hang", f"no answer within {WALL_FACTOR * timeout:g} s of wall time"
                     if s.phase == "solving" else "check deadline")
            elif s.phase == "solving" and s.cpu0 is not None:
                cpu = _cpu_seconds(s.proc.pid)
                if cpu is not None and cpu - s.cpu0 > timeout:
                    fail(s, "hang", f"no answer after {cpu - s.cpu0:.0f} s of CPU time")
    for s in slots:
        try:
            s.parent.send(None)
        except (OSError, BrokenPipeError):
            pass
        s.proc.join(5)
        if s.proc.is_alive():
            s.proc.kill()
    cross_check(records)
    return cases, records

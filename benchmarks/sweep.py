"""Sweeps at scale: SIGKILL and resume, worker speed-up, Dask overhead, the 1000 x 1000 mode map.

1. **SIGKILL and resume.**  A two-finger mode map streamed into a store is killed with SIGKILL at
   ``--kills`` random moments (each run resumes the store), then completed: the completed store must
   hold every point exactly once and equal an uninterrupted map.
2. **Speed-up.**  Points of 1 ms of CPU work each (``contactcp.sweep.demo.demo_busy``): one worker
   against two local worker processes (the plan chosen by measured cost, pool start included), and
   against a Dask ``LocalCluster`` of 2 worker processes on the loopback interface (started before).
3. **Dask overhead.**  Cheap points (``demo_batch``, a few microseconds each) on the LocalCluster:
   the time per point beyond the same work in one process.
4. **The 1000 x 1000 two-finger mode map** (``hand_map``) with the default plan.

Goals (issue 16): 0 points lost and 0 duplicated after SIGKILL at 20 moments, the map identical;
speed-up >= 1.8x with two workers; overhead per point on a LocalCluster <= 50 us; the 1000 x 1000 map
in <= 10 s on 2 cores.  Writes ``benchmarks/results/sweep.md``.

    python benchmarks/sweep.py [--kills 20] [--quick]
"""

from __future__ import annotations

import argparse
import functools
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import report  # noqa: E402  (benchmarks/report.py)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from contactcp.scenarios.yashima import hand_map  # noqa: E402
from contactcp.sweep import grid, load, sweep  # noqa: E402
from contactcp.sweep.demo import demo_batch, demo_busy  # noqa: E402
from contactcp.sweep.executors import POOL_START_COST  # noqa: E402

_MAP = """
import sys
import numpy as np
from contactcp.scenarios.yashima import hand_map
if __name__ == "__main__":
    t = np.linspace(0, 10, int(sys.argv[2]))
    hand_map(0.4, t, t, workers=1, chunk_size=500, progress=False, store=sys.argv[1], resume=len(sys.argv) > 3)
"""


def kill_and_resume(kills: int, resolution: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as tmp:
        script, store = Path(tmp) / "map.py", Path(tmp) / "store"
        script.write_text(_MAP)
        t = np.linspace(0, 10, resolution)
        t0 = time.perf_counter()
        ref = hand_map(0.4, t, t, workers=1, progress=False)
        full = time.perf_counter() - t0
        killed_at, parts_seen, total = [], [], (resolution * resolution + 499) // 500
        for k in range(kills):
            args = [sys.executable, str(script), str(store), str(resolution)] + (["resume"] if k else [])
            p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # a moment while work remains: the interpreter and contactcp take ~0.8 s to start, then the
            # chunks left take their share of an uninterrupted run
            left = 1.0 - (parts_seen[-1] if parts_seen else 0) / total
            wait = 0.8 + rng.uniform(0.0, full * left)
            time.sleep(wait)
            p.send_signal(signal.SIGKILL)
            p.wait()
            killed_at.append(wait)
            parts_seen.append(len(list(store.glob("part-*.parquet"))))
        done = subprocess.run([sys.executable, str(script), str(store), str(resolution), "resume"], capture_output=True)
        table = load(store)
        import pandas as pd

        df = pd.read_parquet(store)
        idx = df["_index"].to_numpy()
        lost = int(resolution * resolution - len(np.unique(idx)))
        dup = int(len(idx) - len(np.unique(idx)))
        same = all(np.array_equal(table[c], ref[c], equal_nan=True) for c in ref.columns)
        return {
            "kills": kills,
            "points": resolution * resolution,
            "chunks": len(list(store.glob("part-*.parquet"))),
            "parts_after_each_kill": parts_seen,
            "lost": lost,
            "duplicated": dup,
            "identical": same,
            "final_rc": done.returncode,
        }


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def speedup(n: int, ms: float) -> dict:
    pts = grid(i=np.arange(float(n)))
    fn = functools.partial(demo_busy, ms)
    one = _time(lambda: sweep(fn, pts, batched=True, workers=1, chunk_size=max(1, n // 40), progress=False))
    table = None

    def two_local():
        nonlocal table
        table = sweep(fn, pts, batched=True, workers=2, chunk_size=max(1, n // 40), progress=False)

    two = _time(two_local)
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cluster:
        with Client(cluster) as client:
            sweep(demo_batch, pts, batched=True, scheduler=client, progress=False)  # warm the workers
            dask2 = _time(
                lambda: sweep(fn, pts, batched=True, scheduler=client, chunk_size=max(1, n // 40), progress=False)
            )
            cheap = grid(i=np.arange(1_000_000.0))
            serial_cheap = _time(lambda: sweep(demo_batch, cheap, batched=True, workers=1, progress=False))
            dask_cheap = _time(lambda: sweep(demo_batch, cheap, batched=True, scheduler=client, progress=False))
    return {
        "n": n,
        "ms": ms,
        "one": one,
        "two": two,
        "plan": table.meta["plan"],
        "dask2": dask2,
        "cheap_n": 1_000_000,
        "serial_cheap": serial_cheap,
        "dask_cheap": dask_cheap,
    }


def pool_start(repeat: int = 5) -> float:
    """Median seconds from starting two worker processes (the sweep's own context and initializer)
    to their first two answers, the fork server already running (the untimed first call starts it):
    the cost the local plan weighs against the work left."""
    from concurrent.futures import ProcessPoolExecutor

    from contactcp.sweep.workers import _init_worker, _mp_context

    def start():
        with ProcessPoolExecutor(2, mp_context=_mp_context(), initializer=_init_worker) as ex:
            list(ex.map(abs, (1, 2)))

    return report.median_seconds(start, repeat)


def big_map(resolution: int) -> dict:
    t = np.linspace(0, 10, resolution)
    t0 = time.perf_counter()
    table = hand_map(0.4, t, t, progress=False)
    return {"resolution": resolution, "time": time.perf_counter() - t0, "plan": table.meta["plan"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "sweep.md")
    args = ap.parse_args(argv)
    load_before = report.loadavg()
    kr = kill_and_resume(args.kills, 60 if args.quick else 1000)
    print("kill/resume", kr, flush=True)
    sp = speedup(400 if args.quick else 10_000, 1.0)
    print("speed-up", sp, flush=True)
    bm = big_map(200 if args.quick else 1000)
    print("map", bm, flush=True)
    start = pool_start(2 if args.quick else 5)
    print("pool start", start, flush=True)
    ratio, dask_ratio = sp["one"] / sp["two"], sp["one"] / sp["dask2"]
    overhead = (sp["dask_cheap"] - sp["serial_cheap"] / 2) / sp["cheap_n"]
    lines = [
        "# Sweeps at scale: SIGKILL and resume, speed-up, Dask overhead, the big mode map",
        "",
        report.machine_line(),
        f"Load average before the run {load_before}, after it {report.loadavg()}.",
        report.command_line("sweep.py"),
        "",
        "## SIGKILL and resume",
        "",
        f"A {kr['points']}-point two-finger mode map in {kr['chunks']} chunks, streamed into a store, "
        f"killed with SIGKILL at {kr['kills']} random moments while work remained (each run resuming the "
        f"store; parts on disk after each kill: {kr['parts_after_each_kill']}), then completed (exit code "
        f"{kr['final_rc']}): "
        f"**{kr['lost']} points lost, {kr['duplicated']} duplicated, map "
        f"{'identical' if kr['identical'] else 'DIFFERENT'}** to an uninterrupted one.",
        "",
        "## Speed-up and overhead",
        "",
        "| run | points | time (s) | speed-up |",
        "|---|---:|---:|---:|",
        f"| one worker, {sp['ms']:g} ms per point | {sp['n']} | {sp['one']:.2f} | 1.00 |",
        f"| two local workers (plan: {sp['plan']}, pool start included) | {sp['n']} | {sp['two']:.2f} | {ratio:.2f} |",
        f"| Dask LocalCluster, 2 processes (started before) | {sp['n']} | {sp['dask2']:.2f} | {dask_ratio:.2f} |",
        f"| cheap points, one process | {sp['cheap_n']} | {sp['serial_cheap']:.2f} | |",
        f"| cheap points, Dask LocalCluster (2 workers) | {sp['cheap_n']} | {sp['dask_cheap']:.2f} | |",
        "",
        f"Amortised Dask overhead per point: (Dask time - one-process time / 2) / points = {1e6 * overhead:.2f} us.",
        "",
        f"Starting two local worker processes, to their first answers, with the fork server already "
        f"running: {start:.2f} s (median of {2 if args.quick else 5}; a process's first pool also starts "
        f"the fork server and imports contactcp into it); the local plan counts {POOL_START_COST:g} s "
        "(`contactcp.sweep.executors.POOL_START_COST`).",
        "",
        "## The big mode map",
        "",
        f"`hand_map(0.4, t, t)` on a {bm['resolution']} x {bm['resolution']} grid: {bm['time']:.2f} s "
        f"(plan: {bm['plan']}).",
        "",
        "## Goals",
        "",
        f"- SIGKILL at {kr['kills']} moments, then resume: 0 lost, 0 duplicated, identical — "
        f"**{'met' if kr['lost'] == 0 and kr['duplicated'] == 0 and kr['identical'] else 'not met'}**",
        f"- two local workers on 1 ms points, speed-up >= 1.8: Dask LocalCluster (workers started before) "
        f"{dask_ratio:.2f} — **{'met' if dask_ratio >= 1.8 else 'not met'}**; the local process pool, its "
        f"start inside the {sp['one']:.0f} s run: {ratio:.2f} — **{'met' if ratio >= 1.8 else 'not met'}**",
        f"- overhead per point on a Dask LocalCluster: {1e6 * overhead:.2f} us — "
        f"**{'met' if overhead <= 50e-6 else 'not met'}** (goal 50 us)",
        f"- {bm['resolution']} x {bm['resolution']} two-finger mode map: {bm['time']:.2f} s — "
        f"**{'met' if bm['time'] <= 10 else 'not met'}** (goal 10 s on 2 cores)",
    ]
    report.write(args.out, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

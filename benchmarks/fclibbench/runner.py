"""Start one worker for one (solver, problem) pair, enforce its deadlines, and make its record.

Every solve of the worker (the warm-up and each timed run) must end within ``timeout`` seconds
of wall time (the warm-up gets ``warmup_extra`` more: contactcp's numba kernels may compile or
load from their cache there); the worker must reach its first solve within ``START_ALLOWANCE``.  Otherwise the process
is killed and the pair is a TIMEOUT.  A worker that exits without an answer is an ERROR (its
last lines of output are kept).  The answer is then checked here, by :mod:`.check`.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .check import check_global, check_local

__all__ = ["run_pair", "check_answer", "python_env", "WORKER", "START_ALLOWANCE"]

WORKER = Path(__file__).resolve().parent / "worker.py"
START_ALLOWANCE = 120.0  # interpreter start, imports, reading the .npz
POLL = 0.02


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _watch(proc: subprocess.Popen, out: Path, timeout: float, first_extra: float) -> str | None:
    """Wait for the worker; None when it exited by itself, else why it was killed."""
    t_start = time.time()
    while proc.poll() is None:
        time.sleep(POLL)
        st = _read(out)
        phase, started = st.get("phase"), st.get("started")
        now = time.time()
        if phase is None and now - t_start > START_ALLOWANCE:
            why = f"no solve started within {START_ALLOWANCE:g} s"
        elif started is not None and phase != "done":
            limit = timeout + (first_extra if phase == "warm-up" else 0.0)
            why = f"{phase} still running after {limit:g} s" if now - started > limit else None
        else:
            why = None
        if why:
            proc.kill()
            proc.wait()
            return why
    return None


def _spawn(job: dict, python: str, env: dict, folder: Path) -> tuple[subprocess.Popen, Path, Path]:
    tag = f"{job['backend']}_{job['solver']}_{Path(job['npz']).stem}"
    job_path, out, log = folder / f"{tag}.json", folder / f"{tag}.out.json", folder / f"{tag}.log"
    job = dict(job, out=str(out))
    job_path.write_text(json.dumps(job))
    out.unlink(missing_ok=True)
    fh = open(log, "w")  # noqa: SIM115 - closed by the caller's wait
    proc = subprocess.Popen([python, str(WORKER), str(job_path)], stdout=fh, stderr=subprocess.STDOUT, env=env)
    proc.log_handle = fh  # type: ignore[attr-defined]
    return proc, out, log


def _tail(log: Path, n: int = 3) -> str:
    try:
        lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-n:])[-300:]


def check_answer(entry, ans: dict, tol: float) -> dict:
    """The benchmark's check of a worker's answer on the entry's data."""
    d = entry.data
    if entry.form == "local":
        return check_local(d["W"], d["q"], d["mu"], ans.get("r"), tol, entry.dim)
    return check_global(d["M"], d["H"], d["f"], d["w"], d["mu"], ans.get("v"), ans.get("r"), tol, entry.scale)


def run_pair(entry, backend: str, solver: str, opts: dict) -> dict:
    """Run one solver on one problem in its own process; the record (status, time, check, claim).

    ``opts``: ``tol``, ``reps``, ``timeout``, ``python`` (interpreter), ``env``, ``folder`` (scratch),
    ``storage`` (Siconos' local W storage), ``warmup_extra`` (seconds the warm-up may add)."""
    job = {
        "backend": backend,
        "solver": solver,
        "form": entry.form,
        "npz": entry.npz,
        "tol": opts["tol"],
        "reps": opts["reps"],
        "budget": opts["timeout"],
        "scale": entry.scale,
        "storage": opts.get("storage", "SBM"),
    }
    rec = {"problem": entry.name, "form": entry.form, "backend": backend, "solver": solver}
    proc, out, log = _spawn(job, opts["python"], opts["env"], Path(opts["folder"]))
    extra = float(opts.get("warmup_extra", 0.0))
    t0 = time.time()
    try:
        killed = _watch(proc, out, opts["timeout"], extra)
    finally:  # also on Ctrl-C or SIGTERM of the parent: no worker outlives it
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.log_handle.close()
    rec["wall"] = time.time() - t0
    res = _read(out)
    if killed:
        return dict(rec, status="TIMEOUT", note=killed, claimed=None, time=None)
    if res.get("phase") != "done":
        return dict(rec, status="ERROR", note=f"exit {proc.returncode}: {_tail(log)}", claimed=None, time=None)
    chk = check_answer(entry, res, opts["tol"])
    times = res.get("times") or []
    rec.update(
        claimed=res["claimed"],
        message=res["message"],
        iterations=res.get("iterations"),
        residual=chk["residual"],
        equilibrium=chk["equilibrium"],
        relative=chk["relative"],
        times=times,
        warm_up=res.get("warm_up"),
        build=res.get("build"),
    )
    if chk["ok"] and times:
        return dict(rec, status="SOLVED", time=statistics.median(times))
    if chk["ok"] and opts["reps"] == 0:  # asked for the warm-up only
        return dict(rec, status="SOLVED", time=res.get("warm_up"))
    if chk["ok"]:  # cannot happen (the worker checks the same data); say so rather than guess a time
        return dict(rec, status="ERROR", note="the check passed here but failed in the worker", time=None)
    warm = res.get("warm_up") or 0.0
    if warm > opts["timeout"]:  # the warm-up may run past the limit (its allowance)
        return dict(rec, status="TIMEOUT", note=f"the (failed) warm-up took {warm:.1f} s", time=None)
    return dict(rec, status="FAIL", time=None)


def python_env(backend: str, blas_threads: int | None, src: Path, siconos_python: str) -> tuple[str, dict]:
    """The interpreter and environment of a backend's workers (``blas_threads`` BLAS, OpenMP and
    numba threads, if given)."""
    env = dict(os.environ)
    if blas_threads is not None:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
            env[var] = str(blas_threads)
    if backend == "siconos":
        env.pop("PYTHONPATH", None)
        return siconos_python, env
    env["PYTHONPATH"] = str(src)
    return sys.executable, env

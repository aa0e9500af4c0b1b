"""Start one worker (one simulator, one setting, one scene) under a time limit and read its answer.

Every worker gets ``OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = MKL_NUM_THREADS = NUMBA_NUM_THREADS = 1``
(all single-threaded).  Siconos' workers run under Debian's ``/usr/bin/python3`` (the only
interpreter that imports it) without ``PYTHONPATH``; the others under this interpreter.  A worker
that passes ``timeout`` seconds of wall time is killed: a TIMEOUT; one that leaves no answer or an
error is an ERROR.  (The CPU budget given to the worker stops its stepping loop earlier, with the
steps done so far: contactcp's long pile runs.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

WORKER = Path(__file__).resolve().parent.parent / "_ts_worker.py"
DEBIAN_PYTHON = "/usr/bin/python3"
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
#: the module whose import tells whether a simulator is there, by peer
MODULES = {
    "contactcp": "contactcp",
    "mujoco": "mujoco",
    "drake": "pydrake.multibody.plant",
    "pybullet": "pybullet",
    "siconos": "siconos.mechanics.collision.bullet",
}


def interpreter(peer: str, src: Path) -> tuple[str, dict]:
    """The interpreter and environment of a peer's workers."""
    env = dict(os.environ)
    for var in THREAD_VARS:
        env[var] = "1"
    env.pop("PYTHONPATH", None)
    if peer == "siconos":
        return DEBIAN_PYTHON, env
    env["PYTHONPATH"] = str(src)
    return sys.executable, env


def available(peer: str, src: Path) -> str | None:
    """None when the peer imports in its interpreter, else why not."""
    python, env = interpreter(peer, src)
    try:
        p = subprocess.run(
            [python, "-c", f"import {MODULES[peer]}"], capture_output=True, text=True, env=env, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{type(exc).__name__}: {exc}"
    if p.returncode == 0:
        return None
    lines = p.stderr.strip().splitlines()
    return f"`import {MODULES[peer]}` fails under {python}: " + (lines[-1] if lines else f"exit {p.returncode}")


def run(job: dict, folder: Path, tag: str, src: Path, timeout: float) -> dict:
    """Run one job in its own process; ``{"status": OK | TIMEOUT | ERROR, "note", "meta", arrays...}``."""
    python, env = interpreter(job["peer"], src)
    job_path, out, log = folder / f"{tag}.json", folder / f"{tag}.npz", folder / f"{tag}.log"
    job_path.write_text(json.dumps(job))
    out.unlink(missing_ok=True)
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            [python, str(WORKER), str(job_path), str(out)], stdout=fh, stderr=subprocess.STDOUT, env=env
        )
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return {"status": "TIMEOUT", "note": f"killed after {timeout:g} s of wall time", "meta": {}}
        finally:
            if proc.poll() is None:  # Ctrl-C or SIGTERM of the parent: no worker outlives it
                proc.kill()
                proc.wait()
    if not out.is_file():
        tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])[-300:]
        return {"status": "ERROR", "note": f"exit {proc.returncode}, no answer: {tail}", "meta": {}}
    with np.load(out) as d:
        rec = {key: d[key] for key in d.files if key != "meta"}
        meta = json.loads(str(d["meta"]))
    if "error" in meta:
        return {"status": "ERROR", "note": meta["error"], "meta": meta}
    return {"status": "OK", "note": "", "meta": meta, **rec}

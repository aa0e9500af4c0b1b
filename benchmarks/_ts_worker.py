"""Time-stepping benchmark worker: one simulator, one setting, one scene.

    python _ts_worker.py JOB.json OUT.npz

JOB.json: ``{"peer": "contactcp" | "mujoco" | "drake" | "pybullet" | "siconos", "setting": ...,
"spec": <tsbench.spec>, "dt": ..., "duration": ..., "budget": CPU seconds}``.  Builds the model
(``tsbench/peer_<peer>.py``), runs the untimed warm-up the adapter has (contactcp: its numba
kernels), then :func:`tsbench.loop.run`, and saves the trajectory and a JSON ``meta`` (CPU time,
steps done, what ran) to OUT.npz.  Depends on numpy and the simulator only: Siconos runs it under
Debian's python3, which cannot import contactcp.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from tsbench import loop  # noqa: E402


def main(job_path: str, out_path: str) -> int:
    job = json.loads(Path(job_path).read_text())
    meta: dict = {"peer": job["peer"], "setting": job["setting"]}
    arrays: dict = {}
    try:
        module = importlib.import_module(f"tsbench.peer_{job['peer']}")
        peer = module.Peer(job["spec"], job["setting"], float(job["dt"]))
        meta["info"] = peer.info
        steps = math.ceil(float(job["duration"]) / float(job["dt"]) - 1e-9)
        result = loop.run(peer, steps, float(job["budget"]))
        meta.update(result.pop("meta"))
        arrays = result
    except Exception as exc:  # noqa: BLE001 - reported as data
        meta["error"] = f"{type(exc).__name__}: {exc}"
        meta["traceback"] = traceback.format_exc()[-2000:]
    tmp = out_path + ".tmp.npz"
    np.savez(tmp, meta=np.array(json.dumps(meta, default=float)), **arrays)
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))

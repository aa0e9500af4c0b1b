"""Benchmark worker for the Coulomb-cone problem: one solver of one backend on .npz files (W, q, mu).

    python _fc_worker.py BACKEND SOLVER JOB.json OUT.json

Depends on numpy only (Siconos runs it under Debian's system python3).  For
each problem: one untimed warm-up, then ``reps`` timed runs of build + solve to
the target error ``tol`` (Siconos' error measure); the last answer is saved for
the parent's own check.
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np


def _contactcp(solver, tol):
    import contactcp as ccp
    from contactcp.problems import FrictionContactProblem

    def run(W, q, mu):
        r = ccp.solve(FrictionContactProblem(W, q, mu), solver, tol=tol)
        return r.x, f"{r.status.name} it={r.iterations}"

    return run


def _siconos(solver, tol):
    import siconos.numerics as sn

    sid = getattr(sn, "SICONOS_FRICTION_3D_" + solver)

    def run(W, q, mu):
        fcp = sn.FrictionContactProblem(3, W, q, mu)
        opts = sn.SolverOptions(sid)
        opts.iparam[sn.SICONOS_IPARAM_MAX_ITER] = 100000
        opts.dparam[sn.SICONOS_DPARAM_TOL] = tol
        r, u = np.zeros(q.shape[0]), np.zeros(q.shape[0])
        info = sn.fc3d_driver(fcp, r, u, opts)
        return r, f"info={info} it={opts.iparam[sn.SICONOS_IPARAM_ITER_DONE]}"

    return run


def main(backend, solver, job_path, out_path):
    job = json.load(open(job_path))
    out = {"backend": backend, "solver": solver, "results": []}
    try:
        run = {"contactcp": _contactcp, "siconos": _siconos}[backend](solver, job["tol"])
    except Exception as exc:  # noqa: BLE001
        out["error"] = f"{type(exc).__name__}: {exc}"
        json.dump(out, open(out_path, "w"))
        return
    for path in job["problems"]:
        with np.load(path) as d:
            W, q, mu = (np.ascontiguousarray(d[k]) for k in ("W", "q", "mu"))
        rec = {"problem": path}
        try:
            if W.shape[0] <= 600:  # warm-up (JIT, caches) on small problems only
                run(W, q, mu)
            times = []
            t0 = time.perf_counter()
            r, msg = run(W, q, mu)
            times.append(time.perf_counter() - t0)
            reps = int(min(job["max_reps"], max(1, math.ceil(job["target_s"] / max(times[0], 1e-9)))) - 1)
            for _ in range(reps):
                t0 = time.perf_counter()
                r, msg = run(W, q, mu)
                times.append(time.perf_counter() - t0)
            rec.update(times=times, message=msg, r=np.asarray(r, float).tolist())
        except Exception as exc:  # noqa: BLE001
            rec.update(error=f"{type(exc).__name__}: {exc}")
        out["results"].append(rec)
        json.dump(out, open(out_path, "w"))
    json.dump(out, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:5])

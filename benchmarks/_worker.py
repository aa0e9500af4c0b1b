"""Benchmark worker: times one solver of one backend on a list of problem files.

Runs in its own process (and, for Siconos, under Debian's system python3), so
it depends on numpy only; each backend is imported lazily.  Usage::

    python _worker.py BACKEND SOLVER JOB.json OUT.json

JOB.json: ``{"problems": [paths of .npz with M, q], "target_s": 0.3, "max_reps": 1000}``.
For each problem the worker solves once (warm-up, not timed), then repeats the
whole user-facing sequence (build the problem object, solve, read the answer)
``reps`` times and records every time; the answer of the last run is saved in
OUT.json for the parent to check independently.
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np


def _contactcp(solver):
    import contactcp as ccp

    method = None if solver == "default" else solver  # "default": the default chain
    ccp.solve(ccp.LCP(np.eye(2), [-1.0, 1.0]), method)  # JIT warm-up, outside any timing

    def run(M, q):
        r = ccp.solve(ccp.LCP(M, q), method)
        return r.x, r.status.name

    return run


def _siconos(solver):
    import siconos.numerics as sn

    sid = getattr(sn, "SICONOS_LCP_" + solver)

    def run(M, q):
        n = q.shape[0]
        z, w = np.zeros(n), np.zeros(n)
        opts = sn.SolverOptions(sid)
        opts.iparam[sn.SICONOS_IPARAM_MAX_ITER] = max(100000, 100 * n)
        opts.dparam[sn.SICONOS_DPARAM_TOL] = 1e-12
        info = sn.linearComplementarity_driver(sn.LCP(M, q), z, w, opts)
        return z, f"info={info}"

    return run


def _drake(solver):
    from pydrake.solvers import MathematicalProgram, MobyLcpSolver, UnrevisedLemkeSolver

    cls = {"UnrevisedLemkeSolver": UnrevisedLemkeSolver, "MobyLcpSolver": MobyLcpSolver}[solver]

    def run(M, q):
        # a fresh solver per call: UnrevisedLemkeSolver warm-starts from the basis of its
        # previous solve, which would turn repeated timings of one problem into ~1 pivot
        s = cls()
        prog = MathematicalProgram()
        z = prog.NewContinuousVariables(q.shape[0], "z")
        prog.AddLinearComplementarityConstraint(M, q, z)
        res = s.Solve(prog)
        return res.GetSolution(z), str(res.get_solution_result())

    return run


def _lemkelcp(solver):
    import lemkelcp.lemkelcp as lk

    def run(M, q):
        z, exit_code, msg = lk.lemkelcp(M, q)
        return (None if z is None else np.asarray(z, dtype=float)), f"exit={exit_code} {msg}"

    return run


BACKENDS = {"contactcp": _contactcp, "siconos": _siconos, "drake": _drake, "lemkelcp": _lemkelcp}


def main(backend: str, solver: str, job_path: str, out_path: str) -> None:
    job = json.load(open(job_path))
    out = {"backend": backend, "solver": solver, "results": []}
    try:
        run = BACKENDS[backend](solver)
    except Exception as exc:  # noqa: BLE001 - report any import/setup failure as data
        out["error"] = f"{type(exc).__name__}: {exc}"
        json.dump(out, open(out_path, "w"))
        return
    for path in job["problems"]:
        with np.load(path) as d:
            M, q = np.ascontiguousarray(d["M"]), np.ascontiguousarray(d["q"])
        rec = {"problem": path}
        try:
            t0 = time.perf_counter()
            z, msg = run(M, q)
            first = time.perf_counter() - t0
            reps = int(min(job["max_reps"], max(1, math.ceil(job["target_s"] / max(first, 1e-9)))))
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                z, msg = run(M, q)
                times.append(time.perf_counter() - t0)
            rec.update(times=times, message=msg, z=None if z is None else np.asarray(z, float).tolist())
        except Exception as exc:  # noqa: BLE001
            rec.update(error=f"{type(exc).__name__}: {exc}")
        out["results"].append(rec)
        json.dump(out, open(out_path, "w"))  # partial results survive a timeout
    json.dump(out, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:5])

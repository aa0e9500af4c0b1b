"""One solver on one problem, in its own process: build, warm up, time, answer.

    python worker.py JOB.json

``JOB.json`` holds ``backend`` ('contactcp' or 'siconos'), ``solver`` ('default' for contactcp's
default chain, a method name, or a Siconos solver name), ``form`` ('local' or 'global'),
``npz`` (the problem's arrays), ``out`` (where to write), ``tol``, ``reps``, ``budget``
(seconds of timed solving after which no further repetition starts) and ``scale`` (global).

Before the warm-up, the first timed run and then at most every ``WRITE_EVERY`` seconds, the worker
writes ``out`` with ``phase`` and ``started`` (wall clock), so the parent can kill a solve that
passes its deadline; at the end ``phase`` is 'done' with the
answer (``r``, and ``v`` for global problems), the times of the timed runs, what the solver
claimed (``claimed``: it said converged / SOLVED), its own message and iteration count.  The
problem is rebuilt before every run (untimed) so that no run reuses another's factorisations.
One untimed warm-up (numba compiles on its first call), then ``reps`` timed runs, and more until
their times add up to ``MIN_TIMED`` seconds (at most ``MAX_REPS``), unless the warm-up's answer
fails the check (then its time alone is kept: a failed answer is not timed).

Imports numpy and scipy only (contactcp or siconos.numerics on demand).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from fclibbench.check import check_global, check_local  # noqa: E402
from fclibbench.problems import read_npz  # noqa: E402

#: timed runs continue past ``reps`` until their times add up to this many seconds (at most
#: ``MAX_REPS`` runs, and no further run starts after ``MAX_WALL`` seconds of the loop, builds
#: included): three runs of a 20-microsecond solve measure the cold caches, not the solver.  At most
#: 2000 runs, a 10-microsecond solve's median covered 20 ms of solving (0.1 s with the builds), and one
#: burst of the shared machine moved it: FrictionContact3D_1c's Siconos NSGS 5.6 then 10.5 us,
#: FC3D_Example1's default chain 10.0 then 17.2 us in two runs of the same code; 20000 runs spread
#: the median over about a second
MIN_TIMED = 0.25
MAX_REPS = 20000
MAX_WALL = 2.0
#: seconds between two progress writes (``started`` of the run under way is at most this stale; a
#: write before every run of a microsecond solve had tripled its time: 94 against 35 microseconds)
WRITE_EVERY = 0.5
NEWTON_ITER = 1000  # iparam[0] of Siconos' Newton and interior-point solvers
FIRST_ORDER_ITER = 100000  # iparam[0] of the others


def _write(path: str, payload: dict) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(payload, fh)
    os.replace(tmp, path)


# ------------------------------------------------------------------ contactcp


def _ccp_problem(form: str, d: dict):
    from contactcp.io.fclib import FclibGlobal, FclibLocal

    if form == "local":
        return FclibLocal(W=d["W"], q=d["q"], mu=d["mu"]).to_problem()
    G = FclibGlobal(M=d["M"], H=d["H"], G=None, f=d["f"], b=None, w=d["w"], mu=d["mu"])
    return G.to_problem()


def contactcp_backend(job: dict, d: dict):
    """(build, run): build() the problem object (untimed), run(state) solves it."""
    import contactcp as ccp

    form, solver, tol = job["form"], job["solver"], job["tol"]
    method = None if solver == "default" else solver

    def build():
        return _ccp_problem(form, d)

    def run(problem):
        res = ccp.solve(problem, method, tol=tol)
        if form == "local":
            ans = {"r": res.x}
        else:
            v, r = problem.split(res.x)
            ans = {"v": v, "r": r}
        msg = f"{res.status.name} ({res.method}, {res.iterations} it)"
        return ans, bool(res.success), msg, int(res.iterations or 0)

    return build, run


# -------------------------------------------------------------------- Siconos


def _int64(A):
    A = A.tocsc(copy=True)
    A.indices, A.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    return A


def _options(sn, sid: int, solver: str, tol: float):
    opts = sn.SolverOptions(sid)
    newton = solver.startswith("NSN") or solver == "IPM"
    opts.iparam[sn.SICONOS_IPARAM_MAX_ITER] = NEWTON_ITER if newton else FIRST_ORDER_ITER
    opts.dparam[sn.SICONOS_DPARAM_TOL] = tol
    return opts


def _siconos_local(sn, d: dict, storage: str):
    W, q, mu = _int64(d["W"]), d["q"], d["mu"]
    n = q.shape[0]
    keep: list = [W, q, mu]
    if storage == "SBM":
        info, sbm = sn.SBM_from_csparse(3, W)
        if info != 0:
            raise RuntimeError(f"SBM_from_csparse returned {info}")
        M = sn.NM_new_SBM(n, n, sbm)
        keep.append(sbm)
    else:
        M = sn.NumericsMatrix(W)
    fcp = sn.FrictionContactProblem()
    fcp.dimension, fcp.numberOfContacts = 3, n // 3
    fcp.M, fcp.q, fcp.mu = M, q, mu  # set field by field: the constructor would convert SBM to sparse
    keep.append(M)
    return fcp, keep


def _siconos_global(sn, d: dict):
    M, H, f, w, mu = _int64(d["M"]), _int64(d["H"]), d["f"], d["w"], d["mu"]
    p = sn.GlobalFrictionContactProblem()
    p.dimension, p.numberOfContacts = 3, H.shape[1] // 3
    NM, NH = sn.NumericsMatrix(M), sn.NumericsMatrix(H)
    p.M, p.H, p.q, p.b, p.mu = NM, NH, f, w, mu
    p.norm_q, p.norm_b = float(np.linalg.norm(f)), float(np.linalg.norm(w))
    return p, [M, H, f, w, mu, NM, NH]


def siconos_backend(job: dict, d: dict):
    """(build, run) for Siconos' fc3d (local, W in the job's ``storage``) or gfc3d (global) driver."""
    import warnings

    warnings.simplefilter("ignore")  # index-width performance warnings: conversions happen while building
    import siconos.numerics as sn

    form, solver, tol = job["form"], job["solver"], job["tol"]
    prefix = "SICONOS_FRICTION_3D_" if form == "local" else "SICONOS_GLOBAL_FRICTION_3D_"
    sid = getattr(sn, prefix + solver)

    def build():
        if form == "local":
            return _siconos_local(sn, d, job.get("storage", "SBM"))
        return _siconos_global(sn, d)

    def run(state):
        prob = state[0]
        opts = _options(sn, sid, solver, tol)
        m = d["q"].shape[0] if form == "local" else d["H"].shape[1]
        r, u = np.zeros(m), np.zeros(m)
        if form == "local":
            info = sn.fc3d_driver(prob, r, u, opts)
            ans = {"r": r}
        else:
            v = np.zeros(d["M"].shape[0])
            info = sn.gfc3d_driver(prob, r, u, v, opts)
            ans = {"v": v, "r": r}
        it = int(opts.iparam[sn.SICONOS_IPARAM_ITER_DONE])
        own = float(opts.dparam[sn.SICONOS_DPARAM_RESIDU])
        return ans, info == 0, f"info={info}, {it} it, own error {own:.1e}", it

    return build, run


# ----------------------------------------------------------------------- main


def _check(job: dict, d: dict, ans: dict) -> bool:
    if job["form"] == "local":
        return check_local(d["W"], d["q"], d["mu"], ans.get("r"), job["tol"])["ok"]
    return check_global(d["M"], d["H"], d["f"], d["w"], d["mu"], ans.get("v"), ans.get("r"), job["tol"], job["scale"])[
        "ok"
    ]


def main(job_path: str) -> int:
    job = json.loads(Path(job_path).read_text())
    out = job["out"]
    d = read_npz(job["npz"])
    build, run = {"contactcp": contactcp_backend, "siconos": siconos_backend}[job["backend"]](job, d)
    times: list[float] = []
    builds: list[float] = []
    written = -math.inf
    reps = int(job["reps"])
    k = 0
    start = time.perf_counter()
    # reps == 0: the warm-up only (priming); the extra runs stop at MAX_WALL seconds of the loop's
    # wall time too (an untimed build of 20 ms before each 10-microsecond solve would take 40 s)
    while k <= reps or (
        reps > 0 and sum(times) < MIN_TIMED and len(times) < MAX_REPS and time.perf_counter() - start < MAX_WALL
    ):
        t0 = time.perf_counter()
        state = build()
        builds.append(time.perf_counter() - t0)
        if k <= 1 or time.time() - written > WRITE_EVERY:
            written = time.time()
            _write(out, {"phase": "warm-up" if k == 0 else f"run {k}", "started": written})
        t0 = time.perf_counter()
        ans, claimed, msg, it = run(state)
        dt = time.perf_counter() - t0
        if k == 0:
            warm = dt
            if not _check(job, d, ans):
                break  # a failed answer: no timing needed
        else:
            times.append(dt)
            if sum(times) + dt > job["budget"]:
                break
        k += 1
    payload = {"phase": "done", "times": times, "warm_up": warm, "claimed": claimed, "message": msg}
    if len(builds) == 1:  # the first build is a warm-up too (lazy imports): time one more
        t0 = time.perf_counter()
        build()
        builds.append(time.perf_counter() - t0)
    payload["build"] = sorted(builds[1:])[(len(builds) - 1) // 2]  # the median of the warm builds
    payload.update(iterations=it, **{k: np.asarray(v, float).tolist() for k, v in ans.items()})
    _write(out, payload)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

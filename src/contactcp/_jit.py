"""Compiled kernels: say so when they compile, and compile them all ahead (``contactcp warmup``).

The numerical kernels are numba functions with ``cache=True``: the first use
on a machine compiles them (about :data:`COLD_COMPILE_SECONDS` s in all) and
stores the machine code next to the modules (or in numba's user cache), so
later runs load it in milliseconds.  A cold cache is detected from numba's own
event API (a ``numba:compile`` event is raised only when a kernel is not in the
cache): the first such event for a contactcp kernel logs one warning on the
``contactcp`` logger, once per process (worker processes stay silent).
:func:`warmup` compiles every kernel the solvers use, so that no later run
waits.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import time
from pathlib import Path
from typing import Any

__all__ = ["COLD_COMPILE_SECONDS", "NOTICE", "install_notice", "refresh_cache", "warmup", "compile_events"]

#: seconds the first run spends compiling every kernel (``contactcp warmup`` on a cold cache: 230 kernels
#: in 210 s on a 2-core AMD EPYC; a run that uses fewer kernels compiles only those)
COLD_COMPILE_SECONDS = 200

NOTICE = f"compiling numerical kernels once (about {COLD_COMPILE_SECONDS} s); later runs use the cache"

from contactcp.settings import logger  # noqa: E402

#: the stamp of the package's sources whose compiled kernels the in-tree cache holds
_STAMP = "contactcp-sources.stamp"


def _stamp(paths: list[Path], root: Path) -> str:
    """The paths' sizes and modification times (what numba's cache checks per file), hashed."""
    h = hashlib.sha256()
    for path in paths:
        st = path.stat()
        h.update(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def refresh_cache(root: Path | None = None) -> int:
    """Drop the in-tree compiled kernels when a module with kernels changed since they were stored; the
    number of files removed.

    numba checks a cached kernel against its own module's file only, while the machine code of a
    kernel includes the kernels of other modules it calls: after an edit of ``one_contact.py`` the
    cached NSGS sweep of ``block_sparse.py`` still ran the old local solve (seen while developing).
    A source checkout edited in place therefore has its cache dropped as a whole (recompiled on first
    use, :data:`COLD_COMPILE_SECONDS`) when the stamp of its kernel modules (those that mention
    ``njit``) changes; the stamp of all modules, checked first, spares reading them on an unchanged
    tree.  An installed package changes all its files at once, which numba's own check covers."""
    root = Path(__file__).resolve().parent if root is None else root
    stamp_file = root / "__pycache__" / _STAMP
    try:
        sources = sorted(root.rglob("*.py"))
        every = _stamp(sources, root)
        old = stamp_file.read_text().split() if stamp_file.exists() else []
        if old[:1] == [every]:
            return 0
        kernels = _stamp([p for p in sources if "njit" in p.read_text(encoding="utf-8", errors="replace")], root)
        removed = 0
        if old[1:2] != [kernels]:
            for pattern in ("*.nbi", "*.nbc"):
                for f in root.rglob(pattern):
                    f.unlink(missing_ok=True)
                    removed += 1
        stamp_file.parent.mkdir(exist_ok=True)
        tmp = stamp_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(f"{every}\n{kernels}\n")
        os.replace(tmp, stamp_file)
        return removed
    except OSError:  # a read-only install: numba caches elsewhere, by its own checks
        return 0


_state: dict[str, Any] = {"said": False, "installed": False, "events": 0}


def _ours(event: Any) -> bool:
    data = getattr(event, "data", None) or {}
    func = getattr(data.get("dispatcher"), "py_func", None)
    return str(getattr(func, "__module__", "")).startswith("contactcp")


def compile_events() -> int:
    """How many contactcp kernels this process has compiled (cache misses) so far."""
    return int(_state["events"])


def install_notice() -> None:
    """Listen to numba's compile events and refresh a stale cache (:func:`refresh_cache`); once per
    process, called when contactcp is imported."""
    if _state["installed"]:
        return
    _state["installed"] = True
    if multiprocessing.parent_process() is None:  # workers start after their parent refreshed it
        refresh_cache()
    try:
        from numba.core import event as ev
    except ImportError:  # pragma: no cover - numba without the event API
        return

    class _Notice(ev.Listener):
        def on_start(self, event: Any) -> None:
            if not _ours(event):
                return
            _state["events"] += 1
            if _state["said"] or multiprocessing.parent_process() is not None:
                return
            _state["said"] = True
            logger.warning(NOTICE)

        def on_end(self, event: Any) -> None:
            pass

    ev.register("numba:compile", _Notice())


def _problems() -> list[Any]:
    import numpy as np
    import scipy.sparse as sp

    from contactcp.problems import LCP, BoxLCP, MixedLCP
    from contactcp.problems.friction import FrictionContactProblem
    from contactcp.problems.friction_global import GlobalFrictionContactProblem

    M = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    W3 = np.kron(np.eye(2), np.array([[2.0, 0.1, 0.0], [0.1, 1.5, 0.2], [0.0, 0.2, 1.0]]))
    W2 = np.array([[2.0, 0.3, 0.1, 0.0], [0.3, 1.0, 0.0, 0.1], [0.1, 0.0, 2.0, 0.2], [0.0, 0.1, 0.2, 1.0]])
    return [
        LCP(M, [-1.0, 2.0, -3.0]),
        LCP([[0.0, 1.0], [-1.0, 0.0]], [-1.0, -1.0]),  # a ray: certificates
        LCP([[-1.0, 0.0], [0.0, -1.0]], [-1.0, -1.0]),  # infeasible
        MixedLCP(M, [-1.0, 2.0, -3.0], [2]),
        BoxLCP(M, [-1.0, 2.0, -3.0], [0.0, -1.0, 0.0], [1.0, 1.0, np.inf]),
        FrictionContactProblem(W3, [-1.0, 0.5, 0.2, -2.0, -0.3, 0.1], [0.3, 0.8]),
        FrictionContactProblem(sp.csr_matrix(W3), [-1.0, 0.5, 0.2, -2.0, -0.3, 0.1], [0.3, 0.8]),
        FrictionContactProblem(W2, [-1.0, 0.5, -2.0, 0.3], [0.4, 0.6], dim=2),
        GlobalFrictionContactProblem(
            np.diag([2.0, 2.0, 2.0, 1.0, 1.0, 1.0]), W3, np.zeros(6), [-1.0, 0.5, 0.2, -2.0, -0.3, 0.1], [0.3, 0.8]
        ),
    ]


def _coupled_global() -> Any:
    """A global problem whose mass matrix couples all its velocities: the global Newton factors its
    reduced matrix dense (no band order pays), the path of a 50-box pile's steps."""
    import numpy as np

    from contactcp.problems.friction_global import GlobalFrictionContactProblem

    M = np.eye(6) + 0.1 * np.ones((6, 6))
    H = np.eye(6)[:, [0, 1, 2, 5, 4, 3]]
    return GlobalFrictionContactProblem(M, H, np.zeros(6), [-1.0, 0.5, 0.2, -2.0, -0.3, 0.1], [0.3, 0.8])


def _projection_global() -> Any:
    """The time stepper's position projection in global form, as it builds it for more than 20
    contacts: the normal columns of a contact Jacobian (every third, selected from the whole
    Jacobian) spread to every other column, on a constant (read-only) mass matrix."""
    import numpy as np

    from contactcp.problems.friction_global import GlobalFrictionContactProblem

    M = np.eye(6)
    M.setflags(write=False)
    H, normals = np.ascontiguousarray(np.eye(6)[:, [0, 1, 2, 5, 4, 3]]), np.arange(0, 6, 3)
    w = np.array([-1.0, 0.0, 0.5, 0.0])
    return GlobalFrictionContactProblem._derived(M, H, np.zeros(6), w, np.zeros(2), 2, 2, cols=normals)


def warmup(progress: bool = False) -> dict[str, Any]:
    """Compile (or load from the cache) every kernel the solvers use, by solving small problems with
    every registered method; returns ``{"compiled": kernels compiled now, "seconds": time spent,
    "solves": runs}``."""
    import numpy as np

    from contactcp import solve, solve_batch
    from contactcp.errors import ContactCPError
    from contactcp.solvers.registry import methods

    install_notice()
    t0 = time.perf_counter()
    before = compile_events()
    runs = 0
    for problem in _problems():
        for name in methods(problem):
            if progress:
                print(f"  {type(problem).__name__}: {name}", flush=True)
            try:
                solve(problem, name)
            except ContactCPError:  # a method that does not take this instance; the others still run
                pass
            runs += 1
    problems = _problems()
    extras = [
        (problems[0], "lemke", {"basis": [0]}),  # warm-started Lemke
        (problems[5], "newton", {"linear": "lu"}),
        (problems[5], "newton", {"linear": "gmres"}),
        (_coupled_global(), "newton-global", {}),  # the reduced matrix dense (woodbury_step): large piles
        (_projection_global(), "newton-global", {}),  # the position projection's problem of many contacts
    ]
    for problem, name, options in extras:
        try:
            solve(problem, name, **options)
        except ContactCPError:
            pass
        runs += 1
    solve_batch(np.eye(2), np.array([[-1.0, -2.0], [1.0, -1.0]]))
    from contactcp.linalg.pmatrix import p_matrix_test

    p_matrix_test(np.array([[1.0, 0.0, 0.0], [5.0, 1.0, 0.0], [5.0, 5.0, 1.0]])[[2, 0, 1]][:, [2, 0, 1]])
    from contactcp.models.scene import Scene, detect

    scene = Scene()  # the closed-form box pairs of contact detection
    scene.add_fixed("floor", {"type": "plane"})
    scene.add_body("lower", {"type": "box", "size": [0.1, 0.1, 0.1]}, 1.0, {"p": [0.0, 0.0, 0.05]})
    scene.add_body("upper", {"type": "box", "size": [0.1, 0.1, 0.1]}, 1.0, {"p": [0.0, 0.0, 0.15]})
    detect(scene)
    from contactcp.simulate.stepping import simulate

    simulate(scene, 0.003, 1e-3)  # the time stepper's kernels (free-body motion, impact timing)
    from contactcp.scenarios.timestepping import box_stack

    # six boxes: 24 contacts, the global form, its reduced matrix in band form (newton_global)
    simulate(box_stack(6), 0.002, 1e-3)
    from contactcp.scenarios.timestepping_robots import PUMA_MARGIN, puma_grasp

    # robot links: their Jacobian columns and speed bound from pinocchio's data.J
    simulate(puma_grasp(), 0.002, 1e-3, margin=PUMA_MARGIN)
    runs += 6
    return {"compiled": compile_events() - before, "seconds": time.perf_counter() - t0, "solves": runs}

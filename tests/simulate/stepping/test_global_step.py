"""A large three-dimensional step of free bodies in one compiled call (moreau_jean._advance_global,
global_kernels): the same trajectory, to the bit, as the general path it replaces (the same kernels
in the same order), with the same records, on a falling and landing 25-box pile, a stack at rest
and a landing row of boxes; the general path for what it leaves (a Newton it cannot certify); and
its velocity solve against the block solver's."""

import importlib

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

from contactcp.linalg.blockinv import BlockSolver
from contactcp.scenarios.timestepping import box_pile, box_stack
from contactcp.simulate.stepping import SceneSystem, Scheme
from contactcp.simulate.stepping.global_kernels import block_solve
from contactcp.simulate.stepping.substeps import advance_certified
from contactcp.solvers.cone.newton_global import csr64
from support.box_scenes import row_of_cubes, sunk_cube_under_a_hovering_one

MJ = importlib.import_module("contactcp.simulate.stepping.moreau_jean")


#: scene, steps, and the least number of them the compiled step takes (the others have at most
#: LOCAL_UP_TO active unknowns: the local form's)
SCENES = {
    "pile": (lambda: box_pile(25, seed=0), 260, 160),  # falling, then landing: gap LCPs in the call
    "stack": (lambda: box_stack(7), 40, 40),  # at rest: every contact hit, on target
    "row": (row_of_cubes, 30, 30),  # landing: the hit contacts corrected
    "reach": (lambda: sunk_cube_under_a_hovering_one(4e-4), 5, 5),  # the gap LCP on the contacts within reach
    "all": (
        lambda: sunk_cube_under_a_hovering_one(8e-5),
        5,
        5,
    ),  # the gap LCP on all contacts (the near ones' closes the far)
}


def _run(scene, steps, h=1e-3):
    system = SceneSystem(scene)
    q, v = system.initial_state()
    memory, out = {}, []
    for k in range(steps):
        q, v, rec = advance_certified(system, k * h, q, v, h, Scheme(), memory)
        out.append((q.copy(), v.copy(), rec))
    return out


def _counted(monkeypatch) -> list[bool]:
    """Whether the compiled step took each step it was asked (a list the calls fill)."""
    taken = []
    compiled = MJ._advance_global

    def counting(*args):
        got = compiled(*args)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(MJ, "_advance_global", counting)
    return taken


def _both(name, monkeypatch):
    make, steps, _ = SCENES[name]
    taken = _counted(monkeypatch)
    fast = _run(make(), steps)
    monkeypatch.setattr(MJ, "_advance_global", lambda *args: None)  # the general path only
    general = _run(make(), steps)
    return fast, general, taken


def _same_records(a, b):
    assert a.status is b.status and a.success and a.method == b.method
    assert a.residual == b.residual and a.iterations == b.iterations
    assert a.keys == b.keys and np.array_equal(a.active, b.active) and np.array_equal(a.mode, b.mode)
    assert np.array_equal(a.impulse, b.impulse) and np.array_equal(a.velocity, b.velocity)
    assert np.array_equal(a.slide_direction, b.slide_direction) and a.transitions == b.transitions
    assert a.projected == b.projected and a.projection_residual == b.projection_residual


@pytest.mark.parametrize("name", sorted(SCENES))
def test_the_compiled_global_step_is_the_general_step_to_the_bit(name, monkeypatch):
    fast, general, taken = _both(name, monkeypatch)
    assert sum(taken) >= SCENES[name][2]
    for (q1, v1, a), (q2, v2, b) in zip(fast, general):
        assert np.array_equal(q1, q2) and np.array_equal(v1, v2)
        _same_records(a, b)
    if name == "pile":  # it met landings with a gap LCP
        assert sum(s.projected and s.projection_residual > 0 for _, _, s in fast) >= 20
    if name in ("reach", "all"):
        assert fast[0][2].projection_residual > 0


def test_a_newton_the_compiled_step_cannot_certify_is_the_general_paths(monkeypatch):
    """With one Newton iteration the compiled step certifies no landing step of the row: each is
    taken again by the general path (its full Newton), and the trajectory is the general path's."""
    general = _run(row_of_cubes(), 30)
    monkeypatch.setattr(MJ, "_NEWTON", (1.0,) + MJ._NEWTON[1:])
    taken = _counted(monkeypatch)
    limited = _run(row_of_cubes(), 30)
    assert not all(taken)
    for (q1, v1, a), (q2, v2, b) in zip(limited, general):
        assert np.array_equal(q1, q2) and np.array_equal(v1, v2)
        _same_records(a, b)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_block_solve_is_the_block_solvers_solve(seed):
    """M^-1 b by the one-entry and small blocks, as BlockSolver.solve computes it, to the bit: a
    diagonal mass matrix (boxes) and one with full 6 x 6 blocks (bodies whose inertia is not along
    their axes) beside one-entry rows."""
    rng = np.random.default_rng(seed)
    blocks = []
    for _ in range(3):
        A = rng.normal(size=(6, 6))
        blocks.append(A @ A.T + 6 * np.eye(6))
    blocks.append(np.diag(rng.uniform(0.5, 2.0, size=6)))
    for M in (sp.csr_matrix(np.diag(rng.uniform(0.1, 10.0, size=30))), sp.csr_matrix(sla.block_diag(*blocks))):
        solver = BlockSolver(M)
        small, rows, diag = solver.block_parts()
        has_small = small is not None
        small = csr64(small) if has_small else (np.zeros(1, dtype=np.int64),) * 2 + (np.zeros(0),)
        for _ in range(20):
            b = rng.normal(size=M.shape[0]) * 10.0 ** rng.uniform(-6, 6, size=M.shape[0])
            got = block_solve(small, has_small, rows.astype(np.int64), diag, b)
            assert np.array_equal(got, solver.solve(b))


def test_the_compiled_steps_newton_options_are_the_prepared_newtons_defaults():
    """The compiled step runs the Newton with Prepared.newton's defaults (the general path calls it
    without options): the same max_iter, eps, armijo and memory, and the module's floor and band
    rule."""
    import inspect

    from contactcp.solvers.cone.newton_global import BAND_FLOPS, EPS_FLOOR
    from contactcp.solvers.cone.newton_global_direct import Prepared

    p = inspect.signature(Prepared.newton).parameters
    defaults = (p["max_iter"].default, p["eps"].default, EPS_FLOOR, p["armijo"].default, p["memory"].default)
    assert MJ._NEWTON == tuple(float(x) for x in defaults) + (float(BAND_FLOPS),)

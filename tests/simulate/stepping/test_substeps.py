"""A step whose problem is not certified is taken again in halves (simulate.stepping.substeps), and a
simulation runs BLAS on one thread."""

import h5py
import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import contactcp.simulate.stepping.substeps as substeps
from contactcp.errors import InvalidOptionError
from contactcp.result import Status
from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import Scheme, StepRecord, Trajectory, simulate
from contactcp.simulate.stepping.moreau_jean import STICKING
from contactcp.simulate.stepping.substeps import advance_certified, merge_records

H = 1e-3


def _record(t, ok, keys=("a",), impulse=None, residual=None, method="m"):
    n = len(keys)
    imp = np.zeros((n, 3)) if impulse is None else np.asarray(impulse, dtype=float)
    return StepRecord(
        t=t,
        status=Status.SOLVED if ok else Status.ITERATION_LIMIT,
        residual=(1e-12 if ok else 3e-9) if residual is None else residual,
        iterations=2,
        method=method,
        keys=list(keys),
        bodies=[("x", "y")] * n,
        points=np.zeros((n, 3)),
        normals=np.tile([0.0, 0.0, 1.0], (n, 1)),
        gap=np.zeros(n),
        active=imp[:, 0] > 0,
        impulse=imp,
        impulse_world=imp[:, [1, 2, 0]],  # a frame whose normal is world z
        velocity=np.zeros((n, 3)),
        mode=np.where(imp[:, 0] > 0, STICKING, 0).astype(np.int8),
        slide_direction=np.zeros((n, 3)),
        transitions=1,
    )


class _Stub:
    """``advance`` that certifies a step only when ``ok(t, h, thorough)``; ``q`` counts the time advanced, and
    the memory a step sees is logged (the warm starts must be those from before the step)."""

    def __init__(self, ok):
        self.ok, self.calls, self.schemes = ok, [], []

    def __call__(self, system, t, q, v, h, scheme, memory, thorough=True):
        self.calls.append((round(t / H, 6), round(h / H, 6), dict(memory), thorough))
        self.schemes.append(scheme)
        memory.clear()
        memory["a"] = (np.array([h, 0.0, 0.0]), STICKING)
        method = f"m{h / H:g}" + ("" if thorough else "q")  # q: the warm solver only
        return q + h, v, _record(t, self.ok(t, h, thorough), impulse=[[h, 0.5 * h, 0.0]], method=method)


def test_a_step_certified_only_at_half_size_is_taken_in_two_halves(monkeypatch):
    stub = _Stub(lambda t, h, thorough: h <= 0.5 * H)
    monkeypatch.setattr(substeps, "advance", stub)
    memory = {"a": (np.array([7.0, 0, 0]), STICKING)}
    q1, v1, rec = advance_certified(None, 0.0, np.zeros(1), np.zeros(1), H, Scheme(), memory)
    # the step of h, then its halves from the same state and the same memory
    assert [(t, h, thorough) for t, h, _, thorough in stub.calls] == [(0, 1, False), (0, 0.5, False), (0.5, 0.5, False)]
    assert stub.calls[1][2]["a"][0][0] == 7.0  # the first half is warm-started as the step of h was
    assert stub.calls[2][2]["a"][0][0] == 0.5 * H  # the second half from the first half's impulses
    np.testing.assert_allclose(q1, [H], rtol=0, atol=1e-18)
    assert rec.success and rec.substeps == 2 and rec.t == 0.0 and rec.method == "m0.5q"
    np.testing.assert_allclose(rec.impulse, [[H, 0.5 * H, 0]], rtol=1e-15)  # the halves' impulses summed
    assert rec.iterations == 4 and rec.transitions == 2
    assert "taken in 2 sub-steps" in rec.notes[0]


def test_halving_recurses_down_to_max_halvings_and_only_the_last_level_is_thorough(monkeypatch):
    stub = _Stub(lambda t, h, thorough: h <= 0.25 * H)
    monkeypatch.setattr(substeps, "advance", stub)
    _, _, rec = advance_certified(None, 0.0, np.zeros(1), np.zeros(1), H, Scheme(max_halvings=2), {})
    assert rec.success and rec.substeps == 4
    assert [h for _, h, _, _ in stub.calls] == [1, 0.5, 0.25, 0.25, 0.5, 0.25, 0.25]
    assert [thorough for *_, thorough in stub.calls] == [False, False, True, True, False, True, True]


def test_a_step_the_halves_cannot_certify_stands_as_not_certified(monkeypatch):
    stub = _Stub(lambda t, h, thorough: h <= 0.125 * H)
    monkeypatch.setattr(substeps, "advance", stub)
    memory: dict = {}
    q1, _, rec = advance_certified(None, 0.0, np.zeros(1), np.zeros(1), H, Scheme(max_halvings=2), memory)
    assert not rec.success and rec.substeps == 1 and rec.residual == 3e-9
    np.testing.assert_allclose(q1, [H], rtol=1e-15)  # the step of h, as it was taken
    assert memory["a"][0][0] == H  # and the memory it left
    assert "not certified in sub-steps down to h / 4" in rec.notes[-1]
    # the first half failed at the last level: the second half was never tried; then the step of h
    # with the whole chain, and with Siconos' activation, each from the memory before the step
    steps = [(h, thorough) for _, h, _, thorough in stub.calls]
    assert steps == [(1, False), (0.5, False), (0.25, True), (1, True), (1, True)]
    assert [s.activation_gap for s in stub.schemes] == [1e-8, 1e-8, 1e-8, 1e-8, 0.0]
    assert rec.method == "m1q" and stub.calls[-1][2] == stub.calls[-2][2] == {}


def test_a_step_only_siconos_activation_certifies_is_taken_with_it_last(monkeypatch):
    stub = _Stub(lambda t, h, thorough: False)
    real = stub.__call__

    def call(system, t, q, v, h, scheme, memory, thorough=True):
        q1, v1, rec = real(system, t, q, v, h, scheme, memory, thorough)
        if scheme.activation_gap == 0.0:
            rec.status = Status.SOLVED
        return q1, v1, rec

    monkeypatch.setattr(substeps, "advance", call)
    q1, _, rec = advance_certified(None, 0.0, np.zeros(1), np.zeros(1), H, Scheme(max_halvings=1), {})
    assert [s.activation_gap for s in stub.schemes] == [1e-8, 1e-8, 1e-8, 0.0]
    assert rec.success and rec.substeps == 1 and "activation_gap = 0" in rec.notes[-1]
    np.testing.assert_allclose(q1, [H], rtol=1e-15)


def test_a_step_only_the_whole_chain_certifies_is_taken_by_it_after_the_halves(monkeypatch):
    stub = _Stub(lambda t, h, thorough: thorough and h == 1.0 * H)
    monkeypatch.setattr(substeps, "advance", stub)
    memory = {"a": (np.array([7.0, 0, 0]), STICKING)}
    q1, _, rec = advance_certified(None, 0.0, np.zeros(1), np.zeros(1), H, Scheme(max_halvings=1), memory)
    assert [(h, thorough) for _, h, _, thorough in stub.calls] == [(1, False), (0.5, True), (1, True)]
    assert stub.calls[-1][2]["a"][0][0] == 7.0  # warm-started from the memory before the step
    assert rec.success and rec.substeps == 1 and rec.method == "m1"
    assert "certified by the whole chain" in rec.notes[-1]
    np.testing.assert_allclose(q1, [H], rtol=1e-15)


def test_no_halving_when_switched_off(monkeypatch):
    stub = _Stub(lambda t, h, thorough: False)
    monkeypatch.setattr(substeps, "advance", stub)
    _, _, rec = advance_certified(None, 0.0, np.zeros(1), np.zeros(1), H, Scheme.siconos(), {})
    assert len(stub.calls) == 1 and stub.calls[0][3] is True and not rec.success
    assert Scheme.siconos().max_halvings == 0 and Scheme().max_halvings == 3


def test_merged_impulses_are_summed_by_contact_key():
    first = _record(0.0, True, keys=("a", "b", "c", "d"), impulse=[[1, 0.1, 0], [2, 0, 0.25], [3, 0, 0], [0, 0, 0]])
    first.residual = 1e-12
    second = _record(0.5e-3, True, keys=("b", "a"), impulse=[[4, 0, 0.5], [0, 0, 0]], residual=5e-11)
    rec = merge_records([first, second])
    # the last sub-step's contacts, then "c", gone by then but with an impulse ("d" had none)
    assert rec.keys == ["b", "a", "c"] and rec.substeps == 2 and rec.residual == 5e-11 and rec.t == 0.0
    np.testing.assert_array_equal(rec.impulse, [[6, 0, 0.75], [1, 0.1, 0], [3, 0, 0]])
    np.testing.assert_array_equal(rec.impulse_world, [[0, 0.75, 6], [0.1, 0, 1], [0, 0, 3]])
    np.testing.assert_array_equal(rec.active, [True, True, True])  # "a" carried an impulse in the first half
    assert rec.mode.tolist() == [STICKING, 0, STICKING] and rec.points.shape == (3, 3) and len(rec.bodies) == 3
    assert merge_records([first]) is first


@pytest.mark.parametrize("bad", [-1, 1.5, True, 21, "3"])
def test_max_halvings_is_checked(bad):
    with pytest.raises(InvalidOptionError, match="max_halvings"):
        Scheme(max_halvings=bad)


def test_substeps_survive_the_file_and_old_files_read_as_single_steps(tmp_path):
    traj = simulate(ts.box_stack(2), 0.03, 1e-2)
    traj.steps[1].substeps = 4
    path = tmp_path / "t.h5"
    traj.to_hdf5(path)
    assert [s.substeps for s in Trajectory.from_hdf5(path).steps] == [1, 4, 1]
    with h5py.File(path, "a") as h5:
        del h5["steps/substeps"]
    assert [s.substeps for s in Trajectory.from_hdf5(path).steps] == [1, 1, 1]


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_a_simulation_runs_blas_on_one_thread_whatever_the_caller_set():
    seen: list[set[int]] = []
    scene = ts.box_stack(2)

    def efforts(t, q, v):
        seen.append(_blas_threads())
        return np.zeros(v.shape)

    with threadpool_limits(limits=2, user_api="blas"):
        outside = _blas_threads()
        simulate(scene, 0.02, 1e-2, efforts=efforts)
        after = _blas_threads()
    assert seen and all(s == {1} for s in seen)
    assert after == outside  # the caller's setting is restored

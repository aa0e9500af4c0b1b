"""NSGS's exact local solver (solvers/cone/one_contact.py), its fast first step in the default chain,
and the measure computed in the same compiled call as the sweeps."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contactcp as ccp
from contactcp.io.fclib import read_fclib
from contactcp.problems import FrictionContactProblem
from contactcp.solvers import registry
from contactcp.solvers.cone.nsgs import FIRST_OPTIONS, chain_first
from contactcp.solvers.cone.nsgs_kernels import _next_chunk
from contactcp.solvers.cone.one_contact import _quartic_angles, _slide_eq, block_step, one_contact
from support.paths import DATA
from support.results import assert_same_result

LOCAL = DATA / "fclib" / "local"


def _coulomb(A, b, mu, r):
    """The local conditions, each against the data's size: (cone, dual cone, complementarity)."""
    u = A @ r + b
    scale = max(np.abs(b).max(), np.abs(A * r).max())
    ut = np.linalg.norm(u[1:])
    uhat_n = u[0] + mu * ut
    return (
        max(np.linalg.norm(r[1:]) - mu * r[0], -r[0]) / scale,
        (mu * ut - uhat_n) / scale,
        abs(r[0] * uhat_n + r[1:] @ u[1:]) / (scale * max(np.linalg.norm(r), 1e-300)),
    )


@st.composite
def _local_problems(draw):
    d = draw(st.sampled_from([2, 3]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(d, d))
    A = B @ B.T + 1e-2 * np.eye(d)  # a Delassus block: symmetric positive definite
    if draw(st.booleans()):  # slightly non-symmetric, as some FCLIB files' blocks
        A = A + 1e-3 * np.abs(A).max() * rng.normal(size=(d, d))
    b = rng.normal(size=d) * 10.0 ** draw(st.integers(-6, 6))
    mu = draw(st.sampled_from([0.0, 0.05, 0.3, 0.8, 2.0]))
    # the iterate the solve starts from: zero, or on the cone's boundary (a contact that slid at the last
    # sweep: the slide is tried first, from its direction), or inside the cone
    start = np.zeros(d)
    kind = draw(st.sampled_from(["zero", "boundary", "inside"]))
    if kind != "zero":
        t = rng.uniform(0.0, 2.0 * math.pi)
        c = np.array([math.cos(t), math.sin(t)])[: d - 1]
        start = rng.uniform(0.1, 10.0) * np.concatenate([[1.0], -mu * (1.0 if kind == "boundary" else 0.5) * c])
    return A, b, mu, d, start


@settings(max_examples=600, deadline=None)
@given(_local_problems())
def test_one_contact_solves_every_positive_definite_block(data):
    A, b, mu, d, start = data
    if np.linalg.eigvalsh(0.5 * (A + A.T)).min() <= 0:
        return
    r = start.copy()
    assert one_contact(A, b, mu, d, r)
    cone, dual, comp = _coulomb(A, b, mu, r)
    assert cone <= 1e-10 and dual <= 1e-10 and comp <= 1e-10
    # and the problem's own certified measure agrees
    assert FrictionContactProblem(A, b, [mu], dim=d).residual(r).value <= 1e-9


def test_one_contact_cases():
    A = np.array([[2.0, 0.1, 0.0], [0.1, 1.0, 0.0], [0.0, 0.0, 1.0]])
    r = np.ones(3)
    assert one_contact(A, np.array([0.5, 1.0, -2.0]), 0.5, 3, r)  # b_N >= 0: take-off
    assert np.array_equal(r, np.zeros(3))
    b = np.array([-1.0, 0.01, 0.0])  # pressed, pushed sideways a little: sticks
    assert one_contact(A, b, 0.5, 3, r)
    np.testing.assert_allclose(A @ r + b, 0.0, atol=1e-15)
    b = np.array([-1.0, 5.0, 0.0])  # pushed hard sideways: slides against the push, r_T = -mu r_N
    assert one_contact(A, b, 0.5, 3, r)
    u = A @ r + b
    assert abs(u[0]) <= 1e-15 and u[1] > 0
    np.testing.assert_allclose(r[1], -0.5 * r[0], rtol=1e-14)
    assert one_contact(A, b, 0.0, 3, r)  # frictionless: r_T = 0, u_N = 0
    assert r[1] == r[2] == 0.0 and abs(A[0] @ r + b[0]) <= 1e-15


def test_a_sliding_iterate_tries_the_slide_first_and_still_finds_a_stick():
    A = np.array([[2.0, 0.1, 0.0], [0.1, 1.0, 0.0], [0.0, 0.0, 1.0]])
    mu = 0.5
    for t in np.linspace(0.0, 2.0 * math.pi, 13):
        boundary = 3.0 * np.array([1.0, -mu * math.cos(t), -mu * math.sin(t)])  # slid at the last sweep
        # pushed hard sideways: the slide, from the old direction, as the solve from zero finds it
        b = np.array([-1.0, 4.0, 3.0])
        r, r_zero = boundary.copy(), np.zeros(3)
        assert one_contact(A, b, mu, 3, r) and one_contact(A, b, mu, 3, r_zero)
        np.testing.assert_allclose(r, r_zero, rtol=0, atol=1e-14 * np.abs(r_zero).max())
        u = A @ r + b
        assert abs(u[0]) <= 1e-15 and u[1:] @ r[1:] < 0.0
        np.testing.assert_allclose(np.linalg.norm(r[1:]), mu * r[0], rtol=1e-14)
        # pressed, pushed sideways a little: the slide has no root with u_T along the slip, and it sticks
        b = np.array([-1.0, 0.01, -0.02])
        r = boundary.copy()
        assert one_contact(A, b, mu, 3, r)
        np.testing.assert_allclose(A @ r + b, 0.0, atol=1e-15)


def test_two_slide_roots_closer_than_the_sampling_are_found():
    """A block whose slide equation has two roots 0.16 rad apart (inside one sampling interval): the
    sampling sees no sign change; the quartic finds both, and the solution is a slide."""
    A = np.array(
        [
            [0.441325301260982, 1.0175856966173462, -1.25871730185704],
            [1.0175856966173462, 3.5900438741916547, -2.9609703459347494],
            [-1.25871730185704, -2.9609703459347494, 4.199314538884756],
        ]
    )
    b = np.array([-0.010296880669184251, 0.08504996988460302, 0.04182085134388046])
    roots = sorted(t % (2 * math.pi) for t in _quartic_angles(A, b, 0.5) if abs(_slide_eq(A, b, 0.5, t)[0]) < 1e-12)
    assert any(abs(t - 0.22115864) < 1e-7 for t in roots)
    assert any(0.0 < t < 0.2 for t in roots)
    r = np.zeros(3)
    assert one_contact(A, b, 0.5, 3, r)
    assert max(_coulomb(A, b, 0.5, r)) <= 1e-10
    np.testing.assert_allclose(np.linalg.norm(r[1:]), 0.5 * r[0], rtol=1e-12)


def test_block_step_is_one_over_the_largest_eigenvalue():
    A = np.array([[4.0, 1.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    lam = np.abs(np.linalg.eigvalsh(0.5 * (A + A.T))).max()
    assert block_step(A) == pytest.approx(1.0 / lam, rel=1e-14)
    assert block_step(np.zeros((3, 3))) == 0.0


@pytest.mark.parametrize("name", ["FrictionContact3D_1c", "FC3D_Example1"])
def test_one_sweep_solves_a_problem_of_uncoupled_contacts(name):
    p = read_fclib(LOCAL / f"{name}.hdf5").local.to_problem()
    res = ccp.solve(p, "nsgs", tol=1e-12, max_sweeps=1)
    assert res.success and res.iterations == 1


def test_next_chunk_follows_the_observed_rate():
    k = np.array([1, 3, 0, 0])
    v = np.array([1e-2, 1e-4, 0.0, 0.0])  # a factor 10 per sweep: 1e-8 * 0.9 is 4.05 sweeps away
    assert _next_chunk(k, v, 2, 1e-8, 2) == 5
    assert _next_chunk(k, v, 2, 1e-30, 2) == 16  # far: at most 16
    assert _next_chunk(k, np.array([1e-4, 1e-2, 0.0, 0.0]), 2, 1e-8, 2) == 4  # no decrease: doubling
    assert _next_chunk(k, v, 1, 1e-8, 8) == 16


def _problems():
    out = [read_fclib(LOCAL / f"{n}.hdf5").local.to_problem() for n in ("FrictionContact3D_1c", "Rover1039")]
    rng = np.random.default_rng(3)
    B = rng.normal(size=(12, 12))
    out.append(FrictionContactProblem(B @ B.T + np.eye(12), rng.normal(size=12), 0.4))  # dense
    out.append(FrictionContactProblem(B @ B.T, rng.normal(size=12), 0.4))  # NSGS hands over or not
    return out


@pytest.mark.parametrize("index", range(4))
def test_chain_first_is_the_registry_run_of_the_first_step(index):
    p = _problems()[index]
    spec = registry._step_spec(p, "nsgs")
    assert registry._chain_of(type(p))[0] == ("nsgs", FIRST_OPTIONS)
    fast, ref = chain_first(p, 1e-8), registry._run(p, spec, 1e-8, dict(FIRST_OPTIONS))
    assert_same_result(fast, ref)
    # the measure computed in the kernel's call is the problem's own, bit for bit
    assert fast.residual == p._certify(fast.x, None)[0]


def test_chain_first_leaves_data_out_of_range_to_the_registry():
    p = FrictionContactProblem(np.eye(3), [-1e305, 0.0, 0.0], 0.5)
    assert chain_first(p, 1e-8) is None
    res = ccp.solve(p)
    assert res.success and res.x[0] == pytest.approx(1e305, rel=1e-12)


def test_chain_first_hands_a_raising_kernel_to_the_registry(monkeypatch):
    import contactcp.solvers.cone.nsgs as nsgs_module

    def broken(*args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(nsgs_module, "nsgs_measured", broken)
    p = _problems()[2]
    assert chain_first(p, 1e-8) is None
    res = ccp.solve(p, tol=1e-8)  # the registry's NSGS reports the failure; the chain goes on
    assert res.success and res.stats["chain"][0]["method"] == "nsgs"
    assert res.stats["chain"][0]["status"] == "NUMERICAL_FAILURE"


@pytest.mark.parametrize("index", range(4))
def test_direct_warm_run_is_the_registry_run_with_r0(index):
    # nsgs.direct (the time stepper's warm start) against ccp.solve(p, "nsgs", r0=..., max_sweeps=...)
    from contactcp.solvers.cone.nsgs import direct

    p = _problems()[index]
    r0 = np.random.default_rng(index).normal(size=p.size)
    for sweeps in (1, 50):
        fast = direct(p, 1e-8, r0, sweeps, False)
        ref = ccp.solve(p, "nsgs", tol=1e-8, r0=r0, max_sweeps=sweeps)
        assert_same_result(fast, ref)
        assert fast.residual == p._certify(fast.x, None)[0]
    assert np.array_equal(r0, np.random.default_rng(index).normal(size=p.size))  # r0 is not changed


@pytest.mark.parametrize(
    "r0", [np.zeros(5), np.array([np.nan, 0.0, 0.0]), [0.0, 0.0, 0.0], np.zeros(3, dtype=np.float32)]
)
def test_direct_leaves_a_start_it_does_not_take_to_the_registry(r0):
    from contactcp.solvers.cone.nsgs import direct

    p = FrictionContactProblem(np.eye(3), [-1.0, 0.0, 0.0], 0.5)
    assert direct(p, 1e-8, r0, 10, False) is None

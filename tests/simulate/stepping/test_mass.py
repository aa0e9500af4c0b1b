"""The step's mass factor (mass.py): block inverses of a constant M, reused while M is unchanged;
dense Cholesky otherwise; a mass matrix that is not positive definite named."""

import numpy as np
import pytest
import scipy.linalg as sla

from contactcp.errors import InvalidProblemError
from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import SceneSystem
from contactcp.simulate.stepping.mass import DenseCholesky, mass_factor


def test_free_bodies_get_block_inverses_that_solve_like_cholesky():
    system = SceneSystem(ts.box_pile(4, seed=2))
    q, v = system.initial_state()
    M, _ = system.dynamics(0.0, q, v)
    assert system.constant_mass
    factor = mass_factor(system, M, 0.0)
    assert not isinstance(factor, DenseCholesky)  # the block solver
    B = np.random.default_rng(0).normal(size=(M.shape[0], 7))
    want = sla.cho_solve(sla.cho_factor(M), B)
    got = factor.solve(B)
    assert np.abs(got - want).max() <= 1e-13 * np.abs(want).max()
    assert mass_factor(system, M.copy(), 0.0) is factor  # the same M: kept
    M2 = M.copy()
    M2[0, 0] *= 2.0
    assert mass_factor(system, M2, 0.0) is not factor


class _Plain:
    constant_mass = False


def test_other_systems_get_dense_cholesky_and_a_named_error():
    M = np.array([[2.0, 0.5], [0.5, 1.0]])
    factor = mass_factor(_Plain(), M, 0.0)
    assert isinstance(factor, DenseCholesky)
    np.testing.assert_allclose(factor.solve(np.array([1.0, 2.0])), np.linalg.solve(M, [1.0, 2.0]), atol=1e-15)
    B = np.array([[1.0, 0.0, 3.0], [2.0, 1.0, -1.0]])
    np.testing.assert_allclose(factor.solve(B), np.linalg.solve(M, B), atol=1e-15)
    with pytest.raises(InvalidProblemError, match="not positive definite at t = 0.5"):
        mass_factor(_Plain(), np.array([[1.0, 2.0], [2.0, 1.0]]), 0.5)


def test_a_constant_mass_that_is_not_positive_definite_is_still_refused():
    class _Constant:
        constant_mass = True

    M = np.diag([1.0, -1.0, 2.0])  # one-entry blocks, one negative: not the block path
    with pytest.raises(InvalidProblemError, match="mass matrix"):
        mass_factor(_Constant(), M, 0.0)


def test_a_robot_joint_that_moves_no_mass_is_named_in_a_local_step():
    # the grasp's steps are taken in local form, M factored in the compiled step: a fingertip link
    # without inertia still gets the mass matrix's error, naming its joint
    import pinocchio as pin

    from contactcp.scenarios.timestepping_robots import PUMA_MARGIN, puma_grasp
    from contactcp.simulate.stepping import simulate

    scene = puma_grasp()
    j = scene.model.getJointId("f2_joint6")
    scene.model.inertias[j] = pin.Inertia.Zero()
    armature = scene.model.armature.copy()
    armature[scene.model.joints[j].idx_v] = 0.0
    scene.model.armature = armature
    scene._data = scene.model.createData()
    with pytest.raises(InvalidProblemError, match=r"mass matrix.*f2_joint6"):
        simulate(scene, 0.002, 1e-3, margin=PUMA_MARGIN)

"""The body frames' poses of a trajectory (SceneSystem.poses, compiled) against pinocchio's own frame
placements and quaternions."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contactcp.scenarios.timestepping import box_pile
from contactcp.scenarios.timestepping_robots import puma_grasp
from contactcp.simulate.stepping.pose_kernels import quaternion_wxyz
from contactcp.simulate.stepping.systems import SceneSystem


def _pinocchio_poses(scene, names, q):
    model, data = scene.model, scene._data
    pin.framesForwardKinematics(model, data, q)
    pos, quat = [], []
    for name in names:
        M = data.oMf[model.getFrameId(name)]
        x, y, z, w = pin.Quaternion(M.rotation).coeffs()
        pos.append(M.translation.copy())
        quat.append([w, x, y, z])
    return np.array(pos), np.array(quat)


@pytest.mark.parametrize("make", [lambda: box_pile(12, seed=3), lambda: puma_grasp(0.4)], ids=["pile", "grasp"])
def test_poses_are_pinocchios(make):
    scene = make()
    system = SceneSystem(scene, 1e-3, 0.0, None)
    pin.seed(0)  # pinocchio draws its random configurations from its own generator
    for _ in range(5):  # random configurations: every joint moved, quaternions normalised
        q = pin.randomConfiguration(scene.model, -np.ones(scene.model.nq), np.ones(scene.model.nq))
        pos, quat = system.poses(q)
        ref_pos, ref_quat = _pinocchio_poses(scene, system.body_names, q)
        np.testing.assert_allclose(pos, ref_pos, rtol=0, atol=1e-14)
        np.testing.assert_allclose(quat, ref_quat, rtol=0, atol=1e-14)
        assert np.allclose(np.linalg.norm(quat, axis=1), 1.0, rtol=0, atol=1e-14)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).filter(lambda c: np.linalg.norm(c) > 1e-3))
def test_quaternion_of_a_rotation_is_eigens(coeffs):
    """Every branch of the conversion (the trace's, and each largest diagonal entry's): the same
    quaternion as pinocchio's, to rounding (sign included)."""
    x, y, z, w = np.asarray(coeffs) / np.linalg.norm(coeffs)
    R = pin.Quaternion(w, x, y, z).toRotationMatrix()
    out = np.zeros(4)
    quaternion_wxyz(R, out)
    rx, ry, rz, rw = pin.Quaternion(R).coeffs()
    np.testing.assert_allclose(out, [rw, rx, ry, rz], rtol=0, atol=1e-15)

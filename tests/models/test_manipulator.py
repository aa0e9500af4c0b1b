"""Manipulator layer (pinocchio-backed) against independent oracles.

Oracles: closed-form 2-link planar arm dynamics (Spong, Hutchinson & Vidyasagar,
"Robot Modeling and Control", Sec. 7.4), a plain-numpy Lagrangian model written
here from the DH table (M = sum m Jv^T Jv + Jw^T R I R^T Jw; gravity and
Coriolis from complex-step derivatives of the potential energy and of M),
finite differences, and published Robotics Toolbox numbers for the PUMA 560.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pinocchio")

from contactcp.errors import ContactCPError, InvalidProblemError  # noqa: E402
from contactcp.models import puma560 as p560  # noqa: E402
from contactcp.models.manipulator import InverseKinematicsError, Manipulator  # noqa: E402

G0 = 9.81
RNG = np.random.default_rng(20240607)


# ----------------------------------------------------------------------------- numpy oracle


def _dh_frames(dh, types, q, base=None, convention="standard"):
    """World frames [T_base, T_1, ..., T_n] of a DH chain, complex-step safe (no abs/conj)."""
    dtype = np.result_type(q, float)
    T = np.eye(4, dtype=dtype) if base is None else np.asarray(base, dtype=dtype)
    frames = [T]
    for (theta, d, a, alpha), t, qi in zip(np.asarray(dh, float), types, q):
        if t == "R":
            theta = theta + qi
        else:
            d = d + qi
        ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
        if convention == "standard":
            A = np.array(
                [
                    [ct, -st * ca, st * sa, a * ct],
                    [st, ct * ca, -ct * sa, a * st],
                    [0 * ct, sa + 0 * ct, ca + 0 * ct, d + 0 * ct],
                    [0 * ct, 0 * ct, 0 * ct, 1 + 0 * ct],
                ],
                dtype=dtype,
            )
        else:
            A = np.array(
                [
                    [ct, -st, 0 * ct, a + 0 * ct],
                    [st * ca, ct * ca, -sa + 0 * ct, -sa * d],
                    [st * sa, ct * sa, ca + 0 * ct, ca * d],
                    [0 * ct, 0 * ct, 0 * ct, 1 + 0 * ct],
                ],
                dtype=dtype,
            )
        T = T @ A
        frames.append(T)
    return frames


def _axis_frame(frames, j, convention):
    """Frame whose z axis is joint j's axis (0-based)."""
    return frames[j] if convention == "standard" else frames[j + 1]


def _lagrangian_M(dh, types, m, c, I, q, base=None, convention="standard"):
    """M(q) = sum_i m_i Jv_i^T Jv_i + Jw_i^T R_i I_i R_i^T Jw_i (COM Jacobians, plain numpy)."""
    n = len(types)
    frames = _dh_frames(dh, types, q, base, convention)
    M = np.zeros((n, n), dtype=frames[0].dtype)
    for i in range(n):
        Ti = frames[i + 1]
        R = Ti[:3, :3]
        p = Ti[:3, :3] @ c[i] + Ti[:3, 3]
        Jv = np.zeros((3, n), dtype=M.dtype)
        Jw = np.zeros((3, n), dtype=M.dtype)
        for j in range(i + 1):
            F = _axis_frame(frames, j, convention)
            z, o = F[:3, 2], F[:3, 3]
            if types[j] == "R":
                Jv[:, j] = np.cross(z, p - o)
                Jw[:, j] = z
            else:
                Jv[:, j] = z
        M += m[i] * Jv.T @ Jv + Jw.T @ R @ I[i] @ R.T @ Jw
    return M


def _potential(dh, types, m, c, q, gvec, base=None, convention="standard"):
    frames = _dh_frames(dh, types, q, base, convention)
    return -sum(m[i] * (gvec @ (frames[i + 1][:3, :3] @ c[i] + frames[i + 1][:3, 3])) for i in range(len(types)))


def _complex_step(f, q, h=1e-30):
    """[df/dq_k for k] by the complex step (exact to rounding, no subtraction)."""
    out = []
    for k in range(len(q)):
        dq = np.array(q, dtype=complex)
        dq[k] += 1j * h
        out.append(np.imag(f(dq)) / h)
    return out


def _oracle(dh, types, m, c, I, q, qd, gvec, base=None, convention="standard", armature=None):
    """(M, g_man, h_man) from the Lagrangian: g = dV/dq, h_i = sum_jk (dM_ij/dq_k - dM_jk/dq_i / 2) qd_j qd_k."""
    M = _lagrangian_M(dh, types, m, c, I, q, base, convention).real
    if armature is not None:
        M = M + np.diag(armature)
    g = np.array(_complex_step(lambda x: _potential(dh, types, m, c, x, gvec, base, convention), q))
    dM = np.array(_complex_step(lambda x: _lagrangian_M(dh, types, m, c, I, x, base, convention), q))  # [k, i, j]
    h = np.einsum("kij,j,k->i", dM, qd, qd) - 0.5 * np.einsum("ijk,j,k->i", dM, qd, qd)
    return M, g, h


# ----------------------------------------------------------------------------- fixtures

L1, L2, M1, M2 = 0.7, 0.45, 2.3, 1.4
PUMA_FULL_INERTIA = np.array([[[p[0], p[3], p[5]], [p[3], p[1], p[4]], [p[5], p[4], p[2]]] for p in p560.INERTIAS])


def _two_link(kind):
    """Planar 2R arm in the x-y plane (joint axes along world z), gravity -y."""
    dh = [[0, 0, L1, 0], [0, 0, L2, 0]]
    if kind == "rod":
        lc1, lc2 = L1 / 2, L2 / 2
        Ic1, Ic2 = M1 * L1**2 / 12, M2 * L2**2 / 12
    else:  # point masses at the distal ends
        lc1, lc2, Ic1, Ic2 = L1, L2, 0.0, 0.0
    coms = [[lc1 - L1, 0, 0], [lc2 - L2, 0, 0]]  # DH frame i sits at the distal end, x along the link
    inertias = [np.diag([0, Ic1, Ic1]), np.diag([0, Ic2, Ic2])]
    arm = Manipulator.from_dh(dh, "RR", masses=[M1, M2], coms=coms, inertias=inertias, gravity=(0, -G0, 0))
    return arm, (lc1, lc2, Ic1, Ic2)


def _two_link_closed_form(q, qd, lc1, lc2, Ic1, Ic2):
    c1, c2, s2, c12 = np.cos(q[0]), np.cos(q[1]), np.sin(q[1]), np.cos(q[0] + q[1])
    m11 = M1 * lc1**2 + M2 * (L1**2 + lc2**2 + 2 * L1 * lc2 * c2) + Ic1 + Ic2
    m12 = M2 * (lc2**2 + L1 * lc2 * c2) + Ic2
    m22 = M2 * lc2**2 + Ic2
    hh = M2 * L1 * lc2 * s2
    h = np.array([-hh * (2 * qd[0] * qd[1] + qd[1] ** 2), hh * qd[0] ** 2])
    g = np.array([(M1 * lc1 + M2 * L1) * G0 * c1 + M2 * lc2 * G0 * c12, M2 * lc2 * G0 * c12])
    return np.array([[m11, m12], [m12, m22]]), g, h


def _rigid(rpy, t):
    a, b, c = rpy
    Rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    Ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
    Rz = np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0], [0, 0, 1]])
    T = np.eye(4)
    T[:3, :3] = Rz @ Ry @ Rx
    T[:3, 3] = t
    return T


BASE = _rigid((0.3, -0.2, 0.9), (0.1, -0.4, 0.25))
TOOL = _rigid((-0.5, 0.4, 0.1), (0.02, 0.03, 0.11))


# ----------------------------------------------------------------------------- 2-link closed form


@pytest.mark.parametrize("kind", ["rod", "point"])
@pytest.mark.parametrize(
    "q, qd",
    [([0.0, 0.0], [0.0, 0.0]), ([0.3, -1.1], [0.7, -2.0]), ([2.5, 0.4], [-1.3, 0.9]), ([-1.9, 2.8], [3.0, 1.5])],
)
def test_two_link_planar_closed_form(kind, q, qd):
    arm, params = _two_link(kind)
    M, g, h = _two_link_closed_form(np.array(q), np.array(qd), *params)
    np.testing.assert_allclose(arm.mass_matrix(q), M, rtol=0, atol=1e-12)
    np.testing.assert_allclose(arm.gravity_torques(q), g, rtol=0, atol=1e-12)
    np.testing.assert_allclose(arm.coriolis_torques(q, qd), h, rtol=0, atol=1e-12)
    tau = np.array([0.4, -1.2])
    np.testing.assert_allclose(arm.forward_dynamics(q, qd, tau), np.linalg.solve(M, tau - g - h), atol=1e-10)
    tip = [L1 * np.cos(q[0]) + L2 * np.cos(q[0] + q[1]), L1 * np.sin(q[0]) + L2 * np.sin(q[0] + q[1]), 0.0]
    np.testing.assert_allclose(arm.link_pose(q, "tool")[:3, 3], tip, atol=1e-14)
    np.testing.assert_allclose(arm.link_pose(q, 1), arm.link_pose(q, -1), atol=0)


def test_properties():
    arm, _ = _two_link("rod")
    assert arm.n == 2 and arm.name == "arm" and arm.joint_types == "RR"
    np.testing.assert_array_equal(arm.gravity, [0, -G0, 0])
    assert Manipulator.from_dh([[0, 0, 1, 0]]).gravity[2] == -9.81


# ----------------------------------------------------------------------------- Jacobians by finite differences


def _mixed_chain():
    dh = [[0.1, 0.3, 0.2, np.pi / 2], [0.0, 0.1, 0.4, -0.3], [0.5, 0.2, 0.1, 1.1], [0.0, 0.0, 0.3, 0.0]]
    return Manipulator.from_dh(dh, "RPRR", masses=[1, 2, 1, 0.5], base=BASE, tool=TOOL)


CHAINS = {
    "puma": lambda: p560.puma560(base=BASE, tool=TOOL),
    "mixed": _mixed_chain,
    "puma_mdh": lambda: Manipulator.from_dh(p560.DH, convention="modified", tool=TOOL),
}


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_point_jacobian_matches_finite_differences(chain):
    arm = CHAINS[chain]()
    h = 1e-6
    for _trial in range(3):
        q = RNG.uniform(-2, 2, arm.n)
        point = RNG.uniform(-0.3, 0.3, 3)
        for link in [*range(arm.n), -1, "tool"]:

            def pos(x):
                return (arm.link_pose(x, link) @ np.append(point, 1.0))[:3]

            fd = np.column_stack([(pos(q + h * e) - pos(q - h * e)) / (2 * h) for e in np.eye(arm.n)])
            J = arm.point_jacobian(q, link, point)
            assert J.shape == (3, arm.n)
            np.testing.assert_allclose(J, fd, rtol=0, atol=1e-8)
            np.testing.assert_allclose(arm.point_position(q, link, point), pos(q), atol=1e-14)


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_point_bias_acceleration_matches_finite_differences(chain):
    arm = CHAINS[chain]()
    h = 1e-5
    for _trial in range(3):
        q, qd = RNG.uniform(-2, 2, arm.n), RNG.uniform(-2, 2, arm.n)
        point = RNG.uniform(-0.3, 0.3, 3)
        for link in [*range(arm.n), -1]:
            # d/dt [J(q + t qd) qd] at t = 0, central difference
            dJ = arm.point_jacobian(q + h * qd, link, point) - arm.point_jacobian(q - h * qd, link, point)
            fd = dJ @ qd / (2 * h)
            np.testing.assert_allclose(arm.point_bias_acceleration(q, qd, link, point), fd, rtol=0, atol=1e-7)


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_contact_terms_equal_the_separate_calls(chain):
    """The one-pass assembly used by the contact model gives what the separate methods give."""
    arm = CHAINS[chain]()
    for _trial in range(3):
        q, qd, tau = RNG.uniform(-2, 2, arm.n), RNG.uniform(-2, 2, arm.n), RNG.uniform(-5, 5, arm.n)
        links = [*range(arm.n), -1]
        locals_ = [RNG.uniform(-0.3, 0.3, 3) for _ in links]
        worlds = [arm.point_position(q, link, p) for link, p in zip(links, locals_)]
        M, f, terms = arm.contact_terms(q, qd, tau, list(zip(links, worlds)))
        np.testing.assert_allclose(M, arm.mass_matrix(q), rtol=0, atol=1e-12)
        np.testing.assert_allclose(f, tau - arm.gravity_torques(q) - arm.coriolis_torques(q, qd), rtol=0, atol=1e-10)
        assert len(terms) == len(links)
        for (J, bias), link, p in zip(terms, links, locals_):
            np.testing.assert_allclose(J, arm.point_jacobian(q, link, p), rtol=0, atol=1e-12)
            np.testing.assert_allclose(bias, arm.point_bias_acceleration(q, qd, link, p), rtol=0, atol=1e-10)
    with pytest.raises(InvalidProblemError) as err:
        arm.contact_terms(q, qd, tau[:-1])
    assert err.value.field == "tau"


# ----------------------------------------------------------------------------- PUMA 560


@pytest.mark.parametrize("armature", [True, False])
def test_puma_against_numpy_lagrangian(armature):
    arm = p560.puma560(base=BASE, armature=armature)
    gvec = np.array([0, 0, -G0])
    arm_diag = p560.G**2 * p560.JM if armature else None
    for q in [p560.qz, p560.qr, p560.qs, p560.qn, *RNG.uniform(-np.pi, np.pi, (4, 6))]:
        qd = RNG.uniform(-2, 2, 6)
        M, g, h = _oracle(
            p560.DH, "RRRRRR", p560.MASSES, p560.COMS, PUMA_FULL_INERTIA, q, qd, gvec, base=BASE, armature=arm_diag
        )
        Mp = arm.mass_matrix(q)
        np.testing.assert_array_equal(Mp, Mp.T)
        assert np.linalg.eigvalsh(Mp).min() > 0
        np.testing.assert_allclose(Mp, M, rtol=0, atol=1e-10)
        np.testing.assert_allclose(arm.gravity_torques(q), g, rtol=0, atol=1e-10)
        np.testing.assert_allclose(arm.coriolis_torques(q, qd), h, rtol=0, atol=1e-10)
        tau = RNG.uniform(-5, 5, 6)
        np.testing.assert_allclose(
            arm.forward_dynamics(q, qd, tau), np.linalg.solve(M, tau - g - h), rtol=1e-9, atol=1e-9
        )
        frames = _dh_frames(p560.DH, "RRRRRR", q, BASE)
        for i in range(6):
            np.testing.assert_allclose(arm.link_pose(q, i), frames[i + 1], atol=1e-14)


def test_puma_gravity_is_gradient_of_potential_energy():
    """Central finite difference of V(q) = -sum m_i g . p_i(q), COMs from link_pose (a second, FD oracle)."""
    arm = p560.puma560()
    gvec = arm.gravity

    def V(q):
        return -sum(
            m * gvec @ (arm.link_pose(q, i) @ np.append(c, 1))[:3]
            for i, (m, c) in enumerate(zip(p560.MASSES, p560.COMS))
        )

    h = 1e-5
    for q in [p560.qn, RNG.uniform(-np.pi, np.pi, 6)]:
        fd = [(V(q + h * e) - V(q - h * e)) / (2 * h) for e in np.eye(6)]
        np.testing.assert_allclose(arm.gravity_torques(q), fd, rtol=0, atol=1e-8)


def test_puma_toolbox_reference_values():
    """Robotics Toolbox for Python (ropy era) tests/test_SerialLink.py: test_inertia, test_gravload and
    test_coriolis for Puma560() at qn, printed to 4 decimals (github.com/petercorke/robotics-toolbox-python).
    The toolbox's gravity [0, 0, 9.81] is the base acceleration, i.e. gravity -z as here; its inertia()
    includes G^2 Jm, so armature=True."""
    arm = p560.puma560()
    M_ref = [
        [3.6594, -0.4044, 0.1006, -0.0025, 0.0000, -0.0000],
        [-0.4044, 4.4137, 0.3509, 0.0000, 0.0024, 0.0000],
        [0.1006, 0.3509, 0.9378, 0.0000, 0.0015, 0.0000],
        [-0.0025, 0.0000, 0.0000, 0.1925, 0.0000, 0.0000],
        [0.0000, 0.0024, 0.0015, 0.0000, 0.1713, 0.0000],
        [-0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.1941],
    ]
    np.testing.assert_allclose(arm.mass_matrix(p560.qn), M_ref, rtol=0, atol=5.1e-5)
    np.testing.assert_allclose(arm.gravity_torques(p560.qn), [0, 31.6399, 6.0351, 0, 0.0283, 0], rtol=0, atol=5.1e-5)
    C_ref = np.array(
        [
            [-0.1735, -2.0494, -0.1178, -0.0002, -0.0045, 0.0001],
            [0.6274, 1.1572, 1.9287, -0.0015, -0.0003, -0.0000],
            [-0.3608, -0.7734, -0.0018, -0.0009, -0.0064, -0.0000],
            [0.0011, 0.0005, -0.0001, 0.0002, 0.0002, -0.0001],
            [-0.0002, 0.0028, 0.0046, -0.0002, -0.0000, -0.0000],
            [0.0001, 0.0000, 0.0000, 0.0000, 0.0000, 0],
        ]
    )
    qd = np.array([1.0, 2, 3, 1, 2, 3])
    # C_ref entries are rounded to 5e-5, so C_ref @ qd is known to sum(|qd|) * 5e-5 = 6e-4
    np.testing.assert_allclose(arm.coriolis_torques(p560.qn, qd), C_ref @ qd, rtol=0, atol=6e-4)
    # motor inertia enters only M's diagonal, as G^2 Jm
    bare = p560.puma560(armature=False)
    np.testing.assert_allclose(
        arm.mass_matrix(p560.qn) - bare.mass_matrix(p560.qn), np.diag(p560.G**2 * p560.JM), atol=1e-14
    )
    np.testing.assert_allclose(arm.gravity_torques(p560.qn), bare.gravity_torques(p560.qn), atol=1e-14)


def test_puma_postures_and_parameters():
    np.testing.assert_array_equal(p560.qz, np.zeros(6))
    np.testing.assert_allclose(p560.qr, [0, np.pi / 2, -np.pi / 2, 0, 0, 0])
    np.testing.assert_allclose(p560.qs, [0, 0, -np.pi / 2, 0, 0, 0])
    np.testing.assert_allclose(p560.qn, [0, np.pi / 4, np.pi, 0, np.pi / 4, 0])
    arm = p560.puma560()
    assert arm.n == 6 and arm.name == "puma560"
    # at qz the wrist centre is at (a2 + a3, -d3, d4) (standard DH, d1 = 0)
    np.testing.assert_allclose(arm.link_pose(p560.qz)[:3, 3], [0.4318 + 0.0203, -0.15005, 0.4318], atol=1e-14)
    lifted = p560.puma560(base=p560.pedestal_base())
    np.testing.assert_allclose(lifted.link_pose(p560.qz)[2, 3] - arm.link_pose(p560.qz)[2, 3], 0.67183, atol=1e-12)


# ----------------------------------------------------------------------------- prismatic, modified DH, URDF


def test_prismatic_finger():
    """PPP finger whose axes are world z, x, y: J is the axis matrix, M and g are closed form."""
    dh = [[-np.pi / 2, 0.2, 0.05, -np.pi / 2], [np.pi / 2, 0.1, 0.0, -np.pi / 2], [0.0, 0.03, 0.0, 0.0]]
    m = np.array([0.5, 0.3, 0.2])
    finger = Manipulator.from_dh(
        dh, "PPP", masses=m, coms=RNG.uniform(-0.1, 0.1, (3, 3)), inertias=[np.eye(3) * 1e-3] * 3
    )
    axes = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=float)  # columns: z, x, y
    for _ in range(3):
        q, qd = RNG.uniform(-0.5, 0.5, 3), RNG.uniform(-1, 1, 3)
        for link in range(3):
            J = finger.point_jacobian(q, link, RNG.uniform(-1, 1, 3))
            np.testing.assert_allclose(J[:, : link + 1], axes[:, : link + 1], atol=1e-14)
            np.testing.assert_array_equal(J[:, link + 1 :], 0)
        np.testing.assert_allclose(finger.point_jacobian(q), axes, atol=1e-14)
        np.testing.assert_allclose(finger.mass_matrix(q), np.diag(np.cumsum(m[::-1])[::-1]), atol=1e-14)
        np.testing.assert_allclose(finger.gravity_torques(q), [m.sum() * 9.81, 0, 0], atol=1e-12)
        np.testing.assert_allclose(finger.coriolis_torques(q, qd), 0, atol=1e-14)
        np.testing.assert_allclose(finger.point_bias_acceleration(q, qd), 0, atol=1e-14)
        # q moves the tip along the axes
        np.testing.assert_allclose(
            finger.link_pose(q)[:3, 3] - finger.link_pose(np.zeros(3))[:3, 3], axes @ q, atol=1e-14
        )


def test_modified_dh_two_link_matches_standard():
    std, (lc1, lc2, Ic1, Ic2) = _two_link("rod")
    # modified DH: frame i on joint i, rows [theta, d, a_{i-1}, alpha_{i-1}]
    mdh = Manipulator.from_dh(
        [[0, 0, 0, 0], [0, 0, L1, 0]],
        "RR",
        masses=[M1, M2],
        coms=[[lc1, 0, 0], [lc2, 0, 0]],
        inertias=[[0, Ic1, Ic1, 0, 0, 0], [0, Ic2, Ic2, 0, 0, 0]],
        tool=_rigid((0, 0, 0), (L2, 0, 0)),
        gravity=(0, -G0, 0),
        convention="modified",
    )
    for q, qd in [([0.3, -1.1], [0.7, -2.0]), ([2.5, 0.4], [-1.3, 0.9])]:
        np.testing.assert_allclose(mdh.mass_matrix(q), std.mass_matrix(q), atol=1e-12)
        np.testing.assert_allclose(mdh.gravity_torques(q), std.gravity_torques(q), atol=1e-12)
        np.testing.assert_allclose(mdh.coriolis_torques(q, qd), std.coriolis_torques(q, qd), atol=1e-12)
        np.testing.assert_allclose(mdh.link_pose(q), std.link_pose(q), atol=1e-14)
        np.testing.assert_allclose(mdh.link_pose(q, 1)[:3, 3], std.link_pose(q, 0)[:3, 3], atol=1e-14)


def test_modified_dh_against_numpy_lagrangian():
    dh = [[0.2, 0.1, 0.0, 0.0], [0.0, 0.05, 0.3, np.pi / 2], [0.4, 0.0, 0.25, -0.7]]
    m, c = np.array([1.0, 2.0, 0.7]), RNG.uniform(-0.1, 0.1, (3, 3))
    A = RNG.normal(size=(3, 3, 3))
    inertia = np.einsum("kij,klj->kil", A, A) * 0.01
    arm = Manipulator.from_dh(dh, "RPR", masses=m, coms=c, inertias=inertia, convention="modified")
    for _ in range(3):
        q, qd = RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 3)
        M, g, h = _oracle(dh, "RPR", m, c, inertia, q, qd, arm.gravity, convention="modified")
        np.testing.assert_allclose(arm.mass_matrix(q), M, atol=1e-12)
        np.testing.assert_allclose(arm.gravity_torques(q), g, atol=1e-12)
        np.testing.assert_allclose(arm.coriolis_torques(q, qd), h, atol=1e-12)


URDF_2R = f"""<?xml version="1.0"?>
<robot name="planar2r">
  <link name="base"/>
  <link name="l1">
    <inertial><origin xyz="{L1 / 2} 0 0"/><mass value="{M1}"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="{M1 * L1**2 / 12}" iyz="0" izz="{M1 * L1**2 / 12}"/></inertial>
  </link>
  <link name="l2">
    <inertial><origin xyz="{L2 / 2} 0 0"/><mass value="{M2}"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="{M2 * L2**2 / 12}" iyz="0" izz="{M2 * L2**2 / 12}"/></inertial>
  </link>
  <link name="tip"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0 0"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="{L1} 0 0"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
  <joint name="tipj" type="fixed"><parent link="l2"/><child link="tip"/><origin xyz="{L2} 0 0"/></joint>
</robot>
"""


def test_urdf_matches_dh():
    std, _ = _two_link("rod")
    urdf = Manipulator.from_urdf(URDF_2R, tip="tip", gravity=(0, -G0, 0))
    assert urdf.n == 2 and urdf.joint_types == "RR" and urdf.name == "planar2r"
    for q, qd in [([0.3, -1.1], [0.7, -2.0]), ([2.5, 0.4], [-1.3, 0.9])]:
        np.testing.assert_allclose(urdf.mass_matrix(q), std.mass_matrix(q), atol=1e-12)
        np.testing.assert_allclose(urdf.gravity_torques(q), std.gravity_torques(q), atol=1e-12)
        np.testing.assert_allclose(urdf.coriolis_torques(q, qd), std.coriolis_torques(q, qd), atol=1e-12)
        np.testing.assert_allclose(urdf.link_pose(q, "tool")[:3, 3], std.link_pose(q, "tool")[:3, 3], atol=1e-14)
        np.testing.assert_allclose(urdf.point_jacobian(q, 1, (L2, 0, 0)), std.point_jacobian(q), atol=1e-14)
    with pytest.raises(InvalidProblemError) as err:
        Manipulator.from_urdf(URDF_2R, tip="nope")
    assert err.value.field == "tip"
    with pytest.raises(InvalidProblemError) as err:
        Manipulator.from_urdf(URDF_2R.replace('type="revolute"', 'type="continuous"'))
    assert err.value.field == "text"


def test_urdf_from_a_path_and_trees_pointed_to_scenes(tmp_path):
    f = tmp_path / "arm.urdf"
    f.write_text(URDF_2R)
    for source in (f, str(f)):
        arm = Manipulator.from_urdf(source, tip="tip")
        np.testing.assert_allclose(
            arm.mass_matrix([0.3, -1.1]), Manipulator.from_urdf(URDF_2R, tip="tip").mass_matrix([0.3, -1.1])
        )
    with pytest.raises(InvalidProblemError, match="neither URDF text nor an existing file"):
        Manipulator.from_urdf(tmp_path / "missing.urdf")
    # a second chain on the base: a tree, which belongs to Scene.from_urdf
    tree = URDF_2R.replace(
        "</robot>",
        '<link name="extra"/><joint name="j3" type="revolute"><parent link="base"/>'
        '<child link="extra"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
        "</joint></robot>",
    )
    with pytest.raises(InvalidProblemError, match="Scene.from_urdf"):
        Manipulator.from_urdf(tree)


# ----------------------------------------------------------------------------- inverse kinematics


def test_inverse_kinematics_reaches_reachable_targets():
    arm = p560.puma560(base=BASE, tool=TOOL)
    point = np.array([0.01, -0.02, 0.05])
    for _ in range(4):
        q_star = RNG.uniform(-1.5, 1.5, 6)
        target = arm.point_position(q_star, -1, point)
        q = arm.inverse_kinematics(target, -1, point, q0=q_star + RNG.uniform(-0.4, 0.4, 6))
        assert np.linalg.norm(arm.point_position(q, -1, point) - target) < 1e-9
    two, _ = _two_link("rod")
    for target in [(0.8, 0.3, 0.0), (-0.2, 0.5, 0.0), (0.3, -0.3, 0.0)]:
        q = two.inverse_kinematics(target, q0=[0.1, 0.5])
        assert np.linalg.norm(two.link_pose(q)[:3, 3] - target) < 1e-9
    mid = np.array([np.cos(0.8), np.sin(0.8), 0.0]) * L1 / 2  # the middle of link 0 moves on a circle
    q = two.inverse_kinematics(mid, link=0, point=(-L1 / 2, 0, 0), q0=[0.1, 0.5])
    assert np.linalg.norm(two.point_position(q, 0, (-L1 / 2, 0, 0)) - mid) < 1e-9


@pytest.mark.parametrize("target", [(2.0, 0.0, 0.0), (0.1, 0.0, 0.0), (0.5, 0.5, 0.3)])
def test_inverse_kinematics_raises_when_unreachable(target):
    two, _ = _two_link("rod")  # reach: |L1 - L2| = 0.25 <= r <= 1.15, z = 0
    with pytest.raises(InverseKinematicsError) as err:
        two.inverse_kinematics(target, q0=[0.1, 0.5])
    assert isinstance(err.value, ContactCPError)
    assert err.value.residual > 1e-3 and err.value.q.shape == (2,)
    far = np.array(p560.puma560().link_pose(p560.qr))[:3, 3] * 3
    with pytest.raises(InverseKinematicsError):
        p560.puma560().inverse_kinematics(far, max_iter=50)


# ----------------------------------------------------------------------------- input validation

GOOD = dict(
    dh=[[0, 0, 1, 0], [0, 0, 1, 0]],
    joint_types="RR",
    masses=[1, 1],
    coms=np.zeros((2, 3)),
    inertias=np.zeros((2, 3, 3)),
)


@pytest.mark.parametrize(
    "change, field",
    [
        (dict(dh=[[0, 0, 1], [0, 0, 1]]), "dh"),
        (dict(dh=[[0, np.nan, 1, 0], [0, 0, 1, 0]]), "dh"),
        (dict(dh=np.zeros((0, 4))), "dh"),
        (dict(joint_types="RX"), "joint_types"),
        (dict(joint_types="RRR"), "joint_types"),
        (dict(masses=[1, -0.1]), "masses[1]"),
        (dict(masses=[1, 1, 1]), "masses"),
        (dict(coms=np.zeros((2, 2))), "coms"),
        (dict(coms=[[0, 0, 0], [0, np.inf, 0]]), "coms"),
        (dict(inertias=np.zeros((2, 4))), "inertias"),
        (dict(inertias=[np.eye(3), np.diag([1.0, -1.0, 1.0])]), "inertias[1]"),
        (dict(inertias=[[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]], np.eye(3)]), "inertias[0]"),
        (dict(inertias=[np.eye(3) * np.nan, np.eye(3)]), "inertias[0]"),
        (dict(base=np.eye(3)), "base"),
        (dict(base=2 * np.eye(4)), "base"),
        (dict(tool=np.diag([1.0, 1.0, -1.0, 1.0])), "tool"),
        (dict(gravity=(0, 0)), "gravity"),
        (dict(convention="craig"), "convention"),
        (dict(armature=[0.1, -1]), "armature[1]"),
    ],
)
def test_from_dh_rejects_bad_input(change, field):
    with pytest.raises(InvalidProblemError) as err:
        Manipulator.from_dh(**{**GOOD, **change})
    assert err.value.field == field


def test_methods_reject_bad_arguments():
    arm, _ = _two_link("rod")
    cases = [
        (lambda: arm.mass_matrix([0, 0, 0]), "q"),
        (lambda: arm.gravity_torques([np.nan, 0]), "q"),
        (lambda: arm.coriolis_torques([0, 0], [1]), "qdot"),
        (lambda: arm.link_pose([0, 0], 2), "link"),
        (lambda: arm.link_pose([0, 0], -2), "link"),
        (lambda: arm.link_pose([0, 0], "elbow"), "link"),
        (lambda: arm.point_jacobian([0, 0], 0, (1, 2)), "point"),
        (lambda: arm.forward_dynamics([0, 0], [0, 0], [1]), "tau"),
        (lambda: arm.inverse_kinematics((1, 0)), "target"),
        (lambda: arm.inverse_kinematics((1, 0, 0), q0=[0]), "q0"),
    ]
    for call, field in cases:
        with pytest.raises(InvalidProblemError) as err:
            call()
        assert err.value.field == field
    with pytest.raises(InvalidProblemError) as err:
        Manipulator.from_urdf("<robot")
    assert err.value.field == "text"

"""Spatial dynamic contact: single-contact cases with known answers, pyramid vs cone,
the independent check of the original conditions, and bad inputs."""

import numpy as np
import pytest

import contactcp as ccp
from contactcp import InvalidOptionError, InvalidProblemError, Status
from contactcp.dynamic import solve_dynamic
from contactcp.formulations.pyramid_lcp import pyramid_lcp
from contactcp.models import Body, Contact, MultibodySystem, RigidBody
from contactcp.problems import FrictionContactProblem

G = 9.81


def block_on_plane(fx, fy=0.0, fz=-G, mu=0.5, state="rolling", v_t=None, corners=True):
    body = RigidBody(mass=1.0, inertia=np.diag([1.0, 1.0, 1.0]), wrench=[fx, fy, fz, 0, 0, 0])
    pts = [(x, y) for x in (-1, 1) for y in (-1, 1)] if corners else [(0, 0)]
    contacts = [Contact(0, [x, y, 0], [0, 0, 1], mu=mu, tangent=[1, 0, 0], state=state, v_t=v_t)
                for x, y in pts]
    return MultibodySystem([body], contacts)


@pytest.mark.parametrize("friction", ["pyramid", "cone"])
def test_block_sticks_below_mu_g(friction):
    out = solve_dynamic(block_on_plane(fx=0.3 * G, corners=False), friction=friction)
    assert out.success and out.max_violation < 1e-9
    np.testing.assert_allclose(out.accelerations, 0.0, atol=1e-9)
    (c,) = out.contacts
    np.testing.assert_allclose(c.c, [G, -0.3 * G, 0.0], atol=1e-9)
    assert c.mode == "rolling" and c.transition == "unchanged"


@pytest.mark.parametrize("friction", ["pyramid", "cone"])
def test_block_slides_above_mu_g(friction):
    out = solve_dynamic(block_on_plane(fx=0.8 * G, corners=False), friction=friction)
    assert out.success
    np.testing.assert_allclose(out.accelerations[:3], [0.3 * G, 0.0, 0.0], atol=1e-9)
    (c,) = out.contacts
    np.testing.assert_allclose(c.c, [G, -0.5 * G, 0.0], atol=1e-9)
    assert c.mode == "sliding" and c.transition == "rolling->sliding"


def test_diagonal_push_pyramid_and_cone_differ():
    # push at 45 degrees with |f_T| = 0.6 g: inside the pyramid (|f_x|, |f_y| = 0.42 g < 0.5 g)
    # but outside the cone (0.6 g > 0.5 g): the pyramid sticks, the cone slides along the push
    f = 0.6 * G / np.sqrt(2)
    pyr = solve_dynamic(block_on_plane(f, f, corners=False), friction="pyramid")
    cone = solve_dynamic(block_on_plane(f, f, corners=False), friction="cone")
    assert pyr.success and cone.success
    assert pyr.contacts[0].mode == "rolling" and cone.contacts[0].mode == "sliding"
    acc = (0.6 - 0.5) * G / np.sqrt(2)
    np.testing.assert_allclose(cone.accelerations[:2], [acc, acc], atol=1e-8)
    np.testing.assert_allclose(np.linalg.norm(cone.contacts[0].c[1:]), 0.5 * G, rtol=1e-9)


@pytest.mark.parametrize("friction", ["pyramid", "cone"])
def test_lift_off(friction):
    out = solve_dynamic(block_on_plane(fx=1.0, fz=+2.0), friction=friction)
    assert out.success
    assert all(o.mode == "breaking" and o.transition == "rolling->breaking" for o in out.contacts)
    np.testing.assert_allclose(out.c, 0.0, atol=1e-12)
    np.testing.assert_allclose(out.accelerations[:3], [1.0, 0.0, 2.0], atol=1e-12)


@pytest.mark.parametrize("friction", ["pyramid", "cone"])
def test_sliding_block_decelerates(friction):
    # sliding in +x at mu = 0.5 with no push: a = -mu g; velocity given on the contact
    out = solve_dynamic(block_on_plane(0.0, corners=False, state="sliding", v_t=[1.0, 0.0]), friction=friction)
    assert out.success
    np.testing.assert_allclose(out.accelerations[:3], [-0.5 * G, 0.0, 0.0], atol=1e-9)
    assert out.contacts[0].mode == "sliding" and out.contacts[0].transition == "unchanged"


def test_four_corner_block_has_redundant_contacts_reported_by_theorem2():
    out = solve_dynamic(block_on_plane(fx=0.2 * G), friction="pyramid")
    assert out.success
    assert out.theorem2["full_column_rank"] is False and out.theorem2["rank"] == 6
    # total friction balances the push, total normal force the weight
    C = out.c.reshape(-1, 3)
    np.testing.assert_allclose(C.sum(axis=0), [G, -0.2 * G, 0.0], atol=1e-9)


def test_two_stacked_blocks_pyramid_equals_cone_for_a_push_along_t():
    # block 1 (mass 1) on block 0 (mass 2) on the ground, single point contacts and
    # huge inertias (rotation negligible); a push on the top block along t only, so
    # the pyramid and the cone are the same law and must give the same answer:
    # the top slides (0.9 g > 0.5 g), the bottom sticks (0.5 g < 0.2 * 3 g)
    bottom = RigidBody(mass=2.0, inertia=1e9, p=[0, 0, 0.5], wrench=[0, 0, -2 * G, 0, 0, 0])
    top = RigidBody(mass=1.0, inertia=1e9, p=[0, 0, 1.5], wrench=[0.9 * G, 0, -G, 0, 0, 0])
    contacts = [Contact(0, [0, 0, 0], [0, 0, 1], mu=0.2, tangent=[1, 0, 0]),
                Contact(1, [0, 0, 1], [0, 0, 1], mu=0.5, other=Body(0), tangent=[1, 0, 0])]
    outs = [solve_dynamic(MultibodySystem([bottom, top], contacts), friction=f) for f in ("pyramid", "cone")]
    for out in outs:
        assert out.success and out.max_violation < 1e-9
        top_c = out.contacts[1]
        assert top_c.mode == "sliding"
        assert top_c.c[1] == pytest.approx(-0.5 * top_c.c[0], rel=1e-9)
    np.testing.assert_allclose(outs[0].accelerations[6:9], [0.4 * G, 0, 0], atol=1e-6)
    np.testing.assert_allclose(outs[0].accelerations[0:3], 0.0, atol=1e-6)
    np.testing.assert_allclose(outs[0].accelerations, outs[1].accelerations, atol=1e-8)
    np.testing.assert_allclose(outs[0].c, outs[1].c, atol=1e-8)


def test_pyramid_lcp_sizes_and_solution_check_is_independent():
    sysm = block_on_plane(fx=0.8 * G, corners=False)
    form = pyramid_lcp(sysm.dynamics())
    assert form.lcp.n == 5              # c_n, (s+, a-) for t and o
    # a wrong force fails the independent check
    from contactcp.interpret.dynamic import check_dynamic
    viol, _, _ = check_dynamic(sysm.dynamics(), np.array([G, 0.0, 0.0]), "pyramid")
    assert viol > 0.1


def test_single_cone_problem_closed_form():
    # W = I: sticking when ||q_T|| <= mu (-q_N): r = -q; sliding: r_N = -q_N, r_T opposite q_T on the cone
    mu = 0.5
    p = FrictionContactProblem(np.eye(3), [-1.0, 0.3, 0.1], mu)
    for method in ("newton", "nsgs"):
        r = ccp.solve(p, method, tol=1e-12)
        assert r.success
        np.testing.assert_allclose(r.x, [1.0, -0.3, -0.1], atol=1e-10)
    q = np.array([-2.0, 3.0, 4.0])
    p = FrictionContactProblem(np.eye(3), q, mu)
    for method in ("newton", "nsgs"):
        r = ccp.solve(p, method, tol=1e-12)
        assert r.success
        np.testing.assert_allclose(r.x, [2.0, -0.5 * 2.0 * 0.6, -0.5 * 2.0 * 0.8], atol=1e-10)
    # a wrong answer has a large residual
    assert p.residual([0.0, 0.0, 0.0]).value > 0.1


def test_cone_methods_agree_on_random_problems():
    rng = np.random.default_rng(7)
    for _ in range(10):
        nc = int(rng.integers(2, 20))
        B = rng.standard_normal((3 * nc, 3 * nc + 3))
        W = B @ B.T / (3 * nc)
        q = rng.standard_normal(3 * nc)
        p = FrictionContactProblem(W, q, rng.uniform(0.1, 1.0, nc))
        a = ccp.solve(p, "newton", tol=1e-10)
        b = ccp.solve(p, "nsgs", tol=1e-10, max_sweeps=20000)
        assert a.success
        assert a.residual.value <= 1e-10
        if b.success:       # W positive definite: the solution is unique for small mu, close anyway
            assert np.linalg.norm(a.x - b.x) <= 1e-5 * max(1.0, np.linalg.norm(a.x))


def test_bad_inputs():
    with pytest.raises(InvalidProblemError, match="mu"):
        FrictionContactProblem(np.eye(3), np.zeros(3), -0.1)
    with pytest.raises(InvalidProblemError, match="W"):
        FrictionContactProblem(np.eye(4), np.zeros(4), 0.1)
    with pytest.raises(InvalidProblemError, match="q"):
        FrictionContactProblem(np.eye(3), [np.nan, 0, 0], 0.1)
    with pytest.raises(InvalidProblemError, match="mass"):
        RigidBody(mass=-1.0)
    with pytest.raises(InvalidProblemError, match="inertia"):
        RigidBody(mass=1.0, inertia=np.diag([1.0, 0.0, 1.0]))
    with pytest.raises(InvalidProblemError, match="normal"):
        Contact(0, [0, 0, 0], [0, 0, 2], mu=0.5)
    with pytest.raises(InvalidProblemError, match="mu"):
        Contact(0, [0, 0, 0], [0, 0, 1], mu=-0.5)
    with pytest.raises(InvalidProblemError, match="body"):
        MultibodySystem([RigidBody(mass=1.0)], [Contact(3, [0, 0, 0], [0, 0, 1], mu=0.5)])
    with pytest.raises(InvalidProblemError, match="v_t"):
        block_on_plane(0.0, corners=False, state="sliding", v_t=[0.0, 0.0]).dynamics()
    with pytest.raises(InvalidOptionError, match="friction"):
        solve_dynamic(block_on_plane(0.0), friction="ellipse")
    with pytest.raises(ccp.UnknownMethodError):
        ccp.solve(FrictionContactProblem(np.eye(3), np.zeros(3), 0.1), "lemke")


@pytest.mark.parametrize("friction", ["pyramid", "cone"])
def test_planar_system_matches_the_spatial_one(friction):
    # a disc in the plane z = 0 resting on a wall x = 0 (normal +x), pushed along +y with
    # gravity off: planar (3 DOF, one tangent) and spatial answers agree
    def build(planar):
        body = RigidBody(mass=2.0, inertia=0.5, p=[1.0, 0, 0], wrench=[-3.0, 4.0, 0, 0, 0, 0.5])
        return MultibodySystem([body], [Contact(0, [0, 0, 0], [1, 0, 0], mu=0.6, tangent=[0, 1, 0])],
                               planar=planar)
    p2 = solve_dynamic(build(True), friction=friction)
    p3 = solve_dynamic(build(False), friction=friction)
    assert p2.success and p3.success
    assert p2.dynamics.dim == 2 and p2.dynamics.A.shape == (2, 2)
    np.testing.assert_allclose(p2.contacts[0].c, p3.contacts[0].c[:2], atol=1e-9)
    np.testing.assert_allclose(p2.accelerations, p3.accelerations[[0, 1, 5]], atol=1e-9)
    assert p2.contacts[0].mode == p3.contacts[0].mode


def test_sliding_contact_direction_with_zero_velocity_behaves_as_rolling_in_the_pyramid():
    # sliding along t (v = (1, 0)); a push along o below mu g: the o direction sticks
    out = solve_dynamic(block_on_plane(0.0, fy=0.3 * G, corners=False, state="sliding", v_t=[1.0, 0.0]),
                        friction="pyramid")
    assert out.success
    c = out.contacts[0].c
    np.testing.assert_allclose(c, [G, -0.5 * G, -0.3 * G], atol=1e-9)
    np.testing.assert_allclose(out.accelerations[:3], [-0.5 * G, 0.0, 0.0], atol=1e-9)
    # above mu g along o it slides in o too, with friction on the pyramid's edge
    out = solve_dynamic(block_on_plane(0.0, fy=0.8 * G, corners=False, state="sliding", v_t=[1.0, 0.0]),
                        friction="pyramid")
    np.testing.assert_allclose(out.contacts[0].c, [G, -0.5 * G, -0.5 * G], atol=1e-9)
    np.testing.assert_allclose(out.accelerations[:3], [-0.5 * G, 0.3 * G, 0.0], atol=1e-9)


def test_compiled_newton_kernels_match_the_numpy_reference():
    from contactcp.solvers._fc_kernels import ac_phi_D, desaxce_residual, newton_matrix
    from contactcp.solvers._fc_newton import alart_curnier
    rng = np.random.default_rng(3)
    nc = 7
    B = rng.standard_normal((3 * nc, 3 * nc))
    W = B @ B.T
    q = rng.standard_normal(3 * nc)
    mu = rng.uniform(0.0, 1.0, nc)
    rho = rng.uniform(0.1, 1.0, nc)
    p = FrictionContactProblem(W, q, mu)
    for _ in range(5):
        r = rng.standard_normal(3 * nc)
        u = W @ r + q
        phi, D = alart_curnier(r, u, mu, rho, 3)
        phi_c, D_c = ac_phi_D(r, u, mu, rho, 3, True)
        np.testing.assert_allclose(phi_c, phi, atol=1e-13)
        np.testing.assert_allclose(D_c, D, atol=1e-13)
        J = newton_matrix(W, D, rho, np.arange(nc), 3)
        ref = np.eye(3 * nc) - sla_block(D) + sla_block(D * rho[:, None, None]) @ W
        np.testing.assert_allclose(J, ref, atol=1e-12)
        assert desaxce_residual(r, u, mu, 3) / np.linalg.norm(q) == pytest.approx(p.residual(r).value, rel=1e-12)


def sla_block(D):
    import scipy.linalg as sla
    return sla.block_diag(*D)

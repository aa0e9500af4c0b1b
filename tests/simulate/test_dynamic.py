"""Spatial dynamic contact: single-contact cases with known answers, pyramid vs cone,
the independent check of the original conditions, and bad inputs."""

import json

import numpy as np
import pytest

import contactcp as ccp
from contactcp import InvalidOptionError, InvalidProblemError, Status
from contactcp.formulations.pyramid_lcp import pyramid_lcp
from contactcp.models import Body, Contact, Link, MultibodySystem, RigidBody
from contactcp.problems import FrictionContactProblem
from contactcp.simulate.instant import solve_dynamic

G = 9.81


def block_on_plane(fx, fy=0.0, fz=0.0, mu=0.5, state="rolling", v_t=None, corners=True, gravity=(0, 0, -G)):
    """A unit block on the plane z = 0 under gravity, pushed by the applied force (fx, fy, fz)."""
    body = RigidBody(mass=1.0, inertia=np.diag([1.0, 1.0, 1.0]), wrench=[fx, fy, fz, 0, 0, 0], gravity=gravity)
    pts = [(x, y) for x in (-1, 1) for y in (-1, 1)] if corners else [(0, 0)]
    contacts = [Contact(0, [x, y, 0], [0, 0, 1], mu=mu, tangent=[1, 0, 0], state=state, v_t=v_t) for x, y in pts]
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
    out = solve_dynamic(block_on_plane(fx=1.0, fz=+2.0, gravity=(0, 0, 0)), friction=friction)  # weightless
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
    bottom = RigidBody(mass=2.0, inertia=1e9, p=[0, 0, 0.5], gravity=[0, 0, -G])
    top = RigidBody(mass=1.0, inertia=1e9, p=[0, 0, 1.5], wrench=[0.9 * G, 0, 0, 0, 0, 0], gravity=[0, 0, -G])
    contacts = [
        Contact(0, [0, 0, 0], [0, 0, 1], mu=0.2, tangent=[1, 0, 0]),
        Contact(1, [0, 0, 1], [0, 0, 1], mu=0.5, other=Body(0), tangent=[1, 0, 0]),
    ]
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
    assert form.lcp.n == 5  # c_n, (s+, a-) for t and o
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
        assert a.success and b.success
        assert a.residual.value <= 1e-10 and b.residual.value <= 1e-10
        # W positive definite: the solution is unique for small mu, close anyway
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


@pytest.mark.parametrize(
    "make, field",
    [
        (lambda: RigidBody(mass="a"), "mass"),
        (lambda: RigidBody(mass=1.0, inertia="x"), "inertia"),
        (lambda: RigidBody(mass=1.0, inertia=[[1.0, 2.0]]), "inertia"),
        (lambda: Contact(0, [0, 0, 0], [0, 0, 1], mu=None), "mu"),
        (lambda: Contact("0", [0, 0, 0], [0, 0, 1], mu=0.5), "body"),
        (lambda: Contact(0.0, [0, 0, 0], [0, 0, 1], mu=0.5), "body"),
        (lambda: Contact(0, [0, 0, 0], [0, 0, 1], mu=0.5, other=Link(0, "a")), "other.link"),
        (lambda: Contact(0, [0, 0, 0], [0, 0, 1], mu=0.5, other=Body(-1)), "other.body"),
    ],
)
def test_model_inputs_of_the_wrong_type_raise_project_errors(make, field):
    with pytest.raises(InvalidProblemError) as err:
        make()
    assert err.value.field.endswith(field)


@pytest.mark.parametrize(
    "path, value, field",
    [
        (("contacts", 0, "body"), "0", "body"),
        (("contacts", 0, "body"), 0.5, "body"),
        (("contacts", 0, "mu"), "a", "mu"),
        (("contacts", 0, "mu"), None, "mu"),
        (("bodies", 0, "mass"), "a", "mass"),
        (("bodies", 0, "mass"), [1, 2], "mass"),
        (("contacts", 0, "other"), {"body": "x"}, "other.body"),
        (("contacts", 0, "other"), {"arm": 0, "link": "a"}, "other.link"),
        (("arms",), {}, "arms"),
        (("planar",), "no", "planar"),
    ],
)
def test_scene_json_errors_name_the_field_and_exit_2(tmp_path, capsys, path, value, field):
    from contactcp.cli import main
    from contactcp.io.scene import system_from_dict

    scene = {"bodies": [{"mass": 1.0}], "contacts": [{"body": 0, "point": [0, 0, 0], "normal": [0, 0, 1], "mu": 0.5}]}
    target = scene
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(InvalidProblemError) as err:
        system_from_dict(scene)
    assert err.value.field.endswith(field)
    f = tmp_path / "scene.json"
    f.write_text(json.dumps(scene))
    assert main(["dynamic", str(f)]) == 2
    err_text = capsys.readouterr().err
    assert err_text.count("\n") == 1 and field in err_text and "Traceback" not in err_text


@pytest.mark.parametrize("friction", ["pyramid", "cone"])
def test_planar_system_matches_the_spatial_one(friction):
    # a disc in the plane z = 0 resting on a wall x = 0 (normal +x), pushed along +y with
    # gravity off: planar (3 DOF, one tangent) and spatial answers agree
    def build(planar):
        body = RigidBody(mass=2.0, inertia=0.5, p=[1.0, 0, 0], wrench=[-3.0, 4.0, 0, 0, 0, 0.5], gravity=[0, 0, 0])
        return MultibodySystem([body], [Contact(0, [0, 0, 0], [1, 0, 0], mu=0.6, tangent=[0, 1, 0])], planar=planar)

    p2 = solve_dynamic(build(True), friction=friction)
    p3 = solve_dynamic(build(False), friction=friction)
    assert p2.success and p3.success
    assert p2.dynamics.dim == 2 and p2.dynamics.A.shape == (2, 2)
    np.testing.assert_allclose(p2.contacts[0].c, p3.contacts[0].c[:2], atol=1e-9)
    np.testing.assert_allclose(p2.accelerations, p3.accelerations[[0, 1, 5]], atol=1e-9)
    assert p2.contacts[0].mode == p3.contacts[0].mode


def test_sliding_contact_direction_with_zero_velocity_behaves_as_rolling_in_the_pyramid():
    # sliding along t (v = (1, 0)); a push along o below mu g: the o direction sticks
    out = solve_dynamic(
        block_on_plane(0.0, fy=0.3 * G, corners=False, state="sliding", v_t=[1.0, 0.0]), friction="pyramid"
    )
    assert out.success
    c = out.contacts[0].c
    np.testing.assert_allclose(c, [G, -0.5 * G, -0.3 * G], atol=1e-9)
    np.testing.assert_allclose(out.accelerations[:3], [-0.5 * G, 0.0, 0.0], atol=1e-9)
    # above mu g along o it slides in o too, with friction on the pyramid's edge
    out = solve_dynamic(
        block_on_plane(0.0, fy=0.8 * G, corners=False, state="sliding", v_t=[1.0, 0.0]), friction="pyramid"
    )
    np.testing.assert_allclose(out.contacts[0].c, [G, -0.5 * G, -0.5 * G], atol=1e-9)
    np.testing.assert_allclose(out.accelerations[:3], [-0.5 * G, 0.3 * G, 0.0], atol=1e-9)


def test_compiled_newton_kernels_match_the_numpy_reference():
    from contactcp.solvers.cone.kernels import ac_phi_D, desaxce_residual, newton_matrix
    from contactcp.solvers.cone.newton import alart_curnier

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


def _reduced_reference(W, D, rho, phi):
    """The full Newton matrix and the rows with a nonzero D row (dense numpy)."""
    J = np.eye(W.shape[0]) - sla_block(D) + sla_block(D * rho[:, None, None]) @ W
    keep = np.flatnonzero(np.abs(D).max(axis=2).reshape(-1) > 0)
    return J, keep


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reduced_newton_system_matches_the_full_newton_matrix(dtype):
    # separating contacts and frictionless (mu = 0) ones give zero D rows, eliminated
    from contactcp.solvers.cone.kernels import abs_row_sums, ac_phi_D, reduced_newton_apply, reduced_newton_system

    rng = np.random.default_rng(11)
    nc = 9
    B = rng.standard_normal((3 * nc, 3 * nc))
    W = B @ B.T + 0.2 * rng.standard_normal((3 * nc, 3 * nc))
    q = rng.standard_normal(3 * nc)
    mu = rng.uniform(0.2, 1.0, nc)
    mu[:3] = 0.0
    rho = rng.uniform(0.1, 1.0, nc)
    r = rng.standard_normal(3 * nc)
    r[0::3] = np.abs(r[0::3])
    u = W @ r + q
    phi, D = ac_phi_D(r, u, mu, rho, 3, True)
    J, keep_ref = _reduced_reference(W, D, rho, phi)
    assert 0 < keep_ref.size < 3 * nc
    keep, Jr, rhs, dr, jnorm = reduced_newton_system(W, D, rho, phi, 3, np.empty(9 * nc * nc, dtype), abs_row_sums(W))
    assert Jr.dtype == dtype
    np.testing.assert_array_equal(keep, keep_ref)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(Jr, J[np.ix_(keep, keep)], atol=tol * np.abs(J).max())
    assert jnorm >= np.abs(J[np.ix_(keep, keep)]).sum(axis=1).max() * (1 - 1e-12)
    # solving the reduced system gives the full Newton step
    full = np.linalg.solve(J, -phi)
    dr[keep] = np.linalg.solve(J[np.ix_(keep, keep)], rhs)
    np.testing.assert_allclose(dr, full, atol=1e-9 * np.abs(full).max())
    # the matrix-free product
    x = np.zeros(3 * nc)
    x[keep] = rng.standard_normal(keep.size)
    np.testing.assert_allclose(reduced_newton_apply(W @ x, x, D, rho, keep, 3), (J @ x)[keep], atol=1e-12)


def test_compiled_merit_matches_the_numpy_reference():
    from contactcp.solvers.cone.kernels import ac_merit
    from contactcp.solvers.cone.newton import alart_curnier

    rng = np.random.default_rng(5)
    nc = 6
    W = rng.standard_normal((3 * nc, 3 * nc))
    q = rng.standard_normal(3 * nc)
    mu = rng.uniform(0.0, 1.0, nc)
    rho = rng.uniform(0.1, 1.0, nc)
    r, dr = rng.standard_normal(3 * nc), rng.standard_normal(3 * nc)
    u = W @ r + q
    for t in (1.0, 0.5, 1e-3):
        phi, _ = alart_curnier(r + t * dr, u + t * (W @ dr), mu, rho, 3, jacobian=False)
        assert ac_merit(r, u, dr, W @ dr, t, mu, rho, 3) == pytest.approx(0.5 * phi @ phi, rel=1e-12)


def test_mixed_precision_newton_step_equals_the_double_precision_step():
    # 60 contacts: above SINGLE_ABOVE rows, so the single-precision LU with refinement is used
    from contactcp.formulations.dynamic_cone import cone_problem
    from contactcp.scenarios.random_dynamic import random_system
    from contactcp.solvers.cone import newton as fn
    from contactcp.solvers.cone.kernels import ac_phi_D

    p = cone_problem(random_system(60, seed=8).dynamics())
    rho = fn.default_rho(p)
    r = np.abs(np.random.default_rng(2).standard_normal(p.size))
    u = p.W @ r + p.q
    phi, D = ac_phi_D(r, u, p.mu, rho, 3, True)
    single = [True]
    dr = fn._lu_step(p.W, D, rho, phi, 3, None, single)
    assert single[0]  # the refinement converged
    J, _ = _reduced_reference(p.W, D, rho, phi)
    ref = np.linalg.solve(J, -phi)
    np.testing.assert_allclose(dr, ref, atol=1e-11 * np.abs(ref).max())


def test_newton_on_duplicated_contacts_falls_back_to_double_precision_and_least_squares():
    # every contact twice: W = P W0 P^T is singular (so is every Newton matrix), the
    # single-precision LU is abandoned and the Levenberg-Marquardt step takes over;
    # half of each reaction on each copy solves it
    from contactcp.formulations.dynamic_cone import cone_problem
    from contactcp.scenarios.random_dynamic import random_system
    from contactcp.solvers.cone import newton as fn
    from contactcp.solvers.cone.kernels import ac_phi_D

    p0 = cone_problem(random_system(30, seed=1).dynamics())
    P = np.vstack([np.eye(p0.size), np.eye(p0.size)])
    p = FrictionContactProblem(P @ p0.W @ P.T, P @ p0.q, np.concatenate([p0.mu, p0.mu]))
    res = ccp.solve(p, "newton", tol=1e-9)
    assert res.success and res.residual.value <= 1e-9
    rho = fn.default_rho(p)
    r = np.abs(np.random.default_rng(0).standard_normal(p.size))
    phi, D = ac_phi_D(r, p.W @ r + p.q, p.mu, rho, 3, True)
    single = [True]
    dr = fn._lu_step(p.W, D, rho, phi, 3, None, single)
    assert not single[0] and dr is not None and np.all(np.isfinite(dr))


@pytest.mark.parametrize("sweeps", [0, 1, 4])
def test_newton_start_sweeps(sweeps):
    from contactcp.formulations.dynamic_cone import cone_problem
    from contactcp.problems.friction import cone_violation
    from contactcp.scenarios.random_dynamic import random_system
    from contactcp.solvers.cone.kernels import sweeps as gauss_seidel_sweeps

    p = cone_problem(random_system(40, seed=21).dynamics())
    res = ccp.solve(p, "newton", tol=1e-10, sweeps=sweeps)
    assert res.success and res.residual.value <= 1e-10
    start = np.zeros(p.size)
    gauss_seidel_sweeps(p.W, p.q, p.mu, start, 3, max(sweeps, 1), 5, np.zeros(p.n_c), 0.0)
    assert np.all(np.isfinite(start)) and cone_violation(start, p.mu, 3) <= 1e-12
    with pytest.raises(InvalidOptionError, match="sweeps"):
        ccp.solve(p, "newton", sweeps=-1)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("method", ["newton", "nsgs"])
def test_frictionless_contact_separating_has_zero_force(dim, method):
    """mu = 0, q_n > 0: r = 0 (the projection on K_0 = {r_T = 0, r_n >= 0} must drop r_n < 0;
    the comparison 0 <= 0 * r_n holds for r_n < 0 in floating point)."""
    p = FrictionContactProblem(np.eye(dim), np.eye(dim)[0], 0.0, dim=dim)
    r = ccp.solve(p, method)
    assert r.success
    np.testing.assert_array_equal(r.x, np.zeros(dim))


def test_newton_and_nsgs_agree_with_frictionless_contacts_mixed_in():
    rng = np.random.default_rng(7)
    for _ in range(20):
        n = 4
        B = rng.standard_normal((3 * n, 3 * n))
        p = FrictionContactProblem(B @ B.T + np.eye(3 * n), rng.standard_normal(3 * n), rng.choice([0.0, 0.3, 1.0], n))
        a, b = ccp.solve(p, "newton"), ccp.solve(p, "nsgs", max_sweeps=5000)
        assert a.success and b.success
        np.testing.assert_allclose(a.x, b.x, atol=1e-6)


def test_sparse_newton_path_matches_the_dense_one():
    """W given as a sparse matrix (as FCLIB files load): same certified answers as dense W,
    frictionless contacts mixed in (the Gauss-Seidel warm start also runs on the sparse path)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    solved = 0
    for trial in range(12):
        nc = int(rng.integers(2, 40))
        blocks = [B @ B.T + 0.1 * np.eye(3) for B in rng.standard_normal((nc, 3, 3))]
        C = sp.random(3 * nc, 3 * nc, density=0.02, random_state=trial)
        W = (sp.block_diag(blocks) + 0.1 * (C @ C.T)).tocsr()
        q = rng.standard_normal(3 * nc)
        mu = np.where(rng.random(nc) < 0.2, 0.0, rng.uniform(0, 1, nc))
        a = ccp.solve(FrictionContactProblem(W, q, mu), "newton", tol=1e-10)
        b = ccp.solve(FrictionContactProblem(W.toarray(), q, mu), "newton", tol=1e-10)
        assert a.success == b.success, (trial, a.status, b.status)
        solved += b.success
        if b.success:
            np.testing.assert_allclose(a.x, b.x, atol=1e-6 * max(1.0, np.abs(b.x).max()))
    assert solved >= 10  # Newton alone; the default chain adds NSGS for the rest


def test_cli_fclib_default_chain(tmp_path, capsys):
    """contactcp fclib without --method: Newton, then NSGS if Newton gives no certified answer."""
    from contactcp.cli import main
    from contactcp.io.fclib import FclibLocal, write_local

    rng = np.random.default_rng(2)
    B = rng.standard_normal((9, 9))
    p = FrictionContactProblem(B @ B.T + np.eye(9), rng.standard_normal(9), [0.3, 0.0, 1.0])
    f = tmp_path / "p.hdf5"
    write_local(f, FclibLocal.from_problem(p))
    assert main(["fclib", str(f), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["success"] and d["method"] in ("newton", "nsgs")


@pytest.mark.parametrize(
    "push, same",
    [
        ((0.2, 0.2), True),  # |f_T| = 0.28 g < mu g = 0.5 g: inside the cone, both laws stick
        ((0.4, 0.0), True),  # along a pyramid face normal, below mu g: both stick
        ((0.8, 0.0), True),  # along t, above mu g: both slide, friction on the shared edge point (-mu g, 0)
        ((0.45, 0.45), False),  # along the diagonal, |f_T| = 0.64 g > mu g but each component < mu g:
        # the pyramid sticks, the cone slides
    ],
)
def test_when_the_pyramid_answer_is_also_a_cone_answer(push, same):
    """The friction pyramid contains the cone (|c_t|, |c_o| <= mu c_n): its answer is a cone answer
    exactly when its tangential force lies in the cone (strictly inside while sticking, or on a
    point the two share while sliding); check_dynamic(..., 'cone') decides it."""
    from contactcp.interpret.dynamic import check_dynamic

    system = block_on_plane(fx=push[0] * G, fy=push[1] * G, corners=False)
    pyr = solve_dynamic(system, friction="pyramid")
    cone = solve_dynamic(system, friction="cone")
    assert pyr.success and cone.success
    viol, _, _ = check_dynamic(pyr.dynamics, pyr.c, "cone")
    assert (viol <= 1e-9) is same
    assert np.allclose(pyr.c, cone.c, atol=1e-8) is same


def test_a_body_pushed_off_its_contacts_has_zero_forces_and_is_solved():
    """No gravity, a box pushed away from its four corner contacts (tilted at random, so the LCP's
    forces come out as round-off, ~1e-17, not exact zeros): the forces are measured against the force
    that the data's accelerations correspond to, not against their own size (issue 11, item 8)."""
    from scipy.spatial.transform import Rotation

    from contactcp.models import Contact, MultibodySystem, RigidBody

    for seed in range(30):
        R = Rotation.random(random_state=seed).as_matrix()
        n = R @ np.array([0, 0, 1.0])
        push = list(4.0 * n + 0.7 * (R @ np.array([1.0, 0, 0]))) + [0, 0, 0]
        body = RigidBody(mass=1.3, wrench=push, gravity=[0, 0, 0])
        contacts = [Contact(0, list(R @ np.array([x, y, -0.5])), list(n), mu=0.5) for x in (-1, 1) for y in (-1, 1)]
        for friction in ("pyramid", "cone"):
            out = solve_dynamic(MultibodySystem([body], contacts), friction=friction)
            assert out.status is Status.SOLVED, (seed, friction, out.max_violation)
            assert np.abs(out.c).max() <= 1e-12
            assert {c.mode for c in out.contacts} == {"breaking"}

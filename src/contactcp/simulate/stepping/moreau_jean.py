"""One step of the Moreau–Jean scheme: velocities from a certified contact problem, then positions.

From ``(t_k, q_k, v_k)`` with step ``h`` (Moreau 1988; Jean 1999; Acary & Brogliato 2008, ch. 10):

1. ``M = M(q_k)``, ``f = f(t_k, q_k, v_k)``, the free velocity ``v_free = v_k + h M^{-1} f``.
2. Contacts within the margin; contact ``j`` is **active** when its predicted gap
   ``g_j + gamma h u_N,j(v_k) <= activation_gap`` (Siconos' rule; ``gamma = 1`` by default, where
   Siconos' ``1/2`` lets a body penetrate up to ``h |u_N| / 2`` before its impact) or, with
   ``impact_timing``, when it closes within the step in free motion: ``g_j + u_N t + a_N t^2 / 2``
   reaches 0 at some ``tau_j <= h`` (``a_N`` its normal acceleration without contact forces).
3. The impulse problem on the active contacts, ``u = H^T v_{k+1}``, ``M (v_{k+1} - v_free) = H r``,
   with Newton's impact law in the normal rows: in local form ``u' = W r + q``,
   ``W = H^T M^{-1} H``, ``q = H^T v_free - u*``, where ``u' = u`` but ``u'_N = u_N(v_{k+1}) - u*``
   and ``u*`` is the least normal velocity the law allows at the end of the step: Siconos'
   ``u* = -e u_N(v_k)``, or (``impact_timing``, the default) for a contact closing at ``tau`` with
   speed ``u_imp = u_N + a_N tau < 0``, ``u* = max(0, -e u_imp + a_N (h - tau))``: the rebound is
   taken at the impact and the forces act on the rest of the step (else the law ignores gravity
   during the step, an error of ``g h`` in the rebound speed, 0.26 % of a ball's apex at
   ``h = 1 ms``).  Coulomb's law with the friction cone in De Saxcé's form for three-dimensional
   contacts (or the friction pyramid, an LCP, with ``friction="pyramid"``), an LCP for
   frictionless ones, solved and certified by :func:`contactcp.solve`
   (:func:`~contactcp.simulate.stepping.impulses.solve_impulses`): up to 60 unknowns in local form
   (:class:`~contactcp.problems.FrictionContactProblem`, NSGS then Newton warm-started from the
   last step's impulses, else the default chain; a three-dimensional step whose warm NSGS
   certifies it is taken, with the hit contacts' correction of step 5, in one compiled call,
   :mod:`~contactcp.simulate.stepping.local_kernels`, the same arithmetic and certificate);
   above in global form in the velocity change ``dv = v_{k+1} - v_free``
   (:class:`~contactcp.problems.GlobalFrictionContactProblem`: ``M dv = H r``,
   ``u' = H^T dv + q``; ``W`` is never formed), by the global semismooth Newton warm-started from
   the last step's impulses (:mod:`contactcp.solvers.cone.newton_global`), else the default chain,
   certified with the global problem's own residual (on free bodies, when that Newton certifies the
   step, the step with its position correction's first part in one compiled call,
   :mod:`~contactcp.simulate.stepping.global_kernels`, the same arithmetic).
4. ``q_{k+1} = q_k (+) h (theta v_{k+1} + (1 - theta) v_k)`` (a Lie-group step for free bodies),
   and ``v_{k+1}``, computed in the tangent space at ``q_k``, is carried to the one at ``q_{k+1}``
   (a free body's twist is in its own axes, which the step turned).
5. **Projection** (optional, on by default): each contact's gap at ``q_{k+1}``, predicted to first
   order, ``g_pred,j = g_j + h (theta u_N,j(v_{k+1}) + (1 - theta) u_N,j(v_k))``, must reach a
   target ``g*_j``: zero, except for a contact that closed within the step and took an impulse
   (a *hit* contact), whose target is the gap its rebound opens after the impact,
   ``g*_j = -e u_imp (h - tau) + a_N (h - tau)^2 / 2`` (the event-driven answer, where the
   trapezoidal position update would reverse the velocity at the start of the step).  The hit
   contacts are moved to their targets by the least mass-weighted correction ``dq = M^{-1} H_N l``
   (least squares, on free bodies group by group of hit contacts joined by bodies:
   :mod:`~.hit_kernels`; none when every one is within ``projection_tol`` of its target already); then,
   if some ``g_pred,j - g*_j < -projection_tol``, by the smallest one with ``l >= 0``,
   ``W_N l + g_pred - g* >= 0``, complementary (an LCP, certified as well, in global form first on
   the contacts within reach of the correction, the others checked open; the projection of
   positions of Acary 2013, velocities untouched).  No penalty spring: a
   body at rest on another stays at zero gap, and an impact leaves no penetration.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla

from contactcp._validate import number
from contactcp.errors import InvalidOptionError, UnknownMethodError
from contactcp.problems import LCP, FrictionContactProblem, GlobalFrictionContactProblem
from contactcp.result import Status
from contactcp.simulate.stepping.global_kernels import DONE as GLOBAL_DONE
from contactcp.simulate.stepping.global_kernels import far_open, global_advance
from contactcp.simulate.stepping.hit_kernels import grouped_hit_correction
from contactcp.simulate.stepping.impact_kernels import (
    impact_targets,
    impact_times,
    off_target,
    small_lstsq,
    step_start,
    transpose_times,
)
from contactcp.simulate.stepping.impulses import LOCAL_UP_TO, WARM_SWEEPS, solve_impulses
from contactcp.simulate.stepping.local_kernels import DONE, NOT_POSITIVE, local_advance
from contactcp.simulate.stepping.mass import DenseCholesky, mass_factor
from contactcp.simulate.stepping.memory import last_impulses, remember
from contactcp.simulate.stepping.mode_kernels import contact_modes
from contactcp.solvers.cone import nsgs
from contactcp.solvers.cone.newton_global import BAND_FLOPS, DENSE_UP_TO, EPS_FLOOR, MEMORY, csr64
from contactcp.solvers.cone.newton_global_direct import mass_arrays, prepare
from contactcp.solvers.registry import methods_for, solve

__all__ = ["Scheme", "StepRecord", "advance", "impact_time", "MODES"]

#: the position projection's problem is certified to ``max(tol, PROJECTION_TOL)``: up to 20
#: contacts as the LCP in ``W_N`` (each row against its own scale, the gaps' scale: 1e-8 of a
#: micrometre's correction), above as the frictionless global problem (its Coulomb measure relative
#: to the 2-norm of the gaps' shortfall).  ``W_N`` is singular in a pile (141 normals on 150
#: velocities): there interior point stopped at 2.3e-10, Lemke's basis is ill-conditioned, and the
#: gaps need no more than this
PROJECTION_TOL = 1e-8

#: a position projection in global form whose Newton (the default proximal term, 1e-3) is not
#: certified tries it once more with this one, before the LCP chain.  On the first 0.4 s of 50-box
#: piles (seeds 0, 3 and 5; a script) the Newton failed on 3, 5 and 0 projections, whose chain took
#: 19-260 ms each (Lemke, else interior point); with this retry 0, 1 and 0 reached the chain (the
#: retries certified in 5-47 ms).  As the first term it failed more often (1, 2, 1 there)
GAP_RETRY_EPS = 1e-5

#: the position projection in global form is posed first on the contacts whose need is at most this
#: many times the largest shortfall (:func:`_gap_global`; 1 and 3 gave the same times on a falling
#: 25-box pile in a first version, the band 17 and 19 rows wide)
GAP_REACH = 3.0

#: contact modes, by code
MODES = ("separated", "sticking", "sliding", "closed")
SEPARATED, STICKING, SLIDING, CLOSED = range(4)


@dataclass(frozen=True)
class Scheme:
    """The scheme's parameters (module docstring).  ``tol`` is the step problem's tolerance (its own
    relative residual); ``slip_tol`` (m/s) the tangential speed above which a closed contact slides;
    ``method`` a solver method for every step (None: warm-started Newton, then the default chain).
    The position projection's problem is certified to ``max(tol, 1e-8)`` (:data:`PROJECTION_TOL`).
    ``friction="pyramid"`` replaces Coulomb's cone by the inscribed pyramid of ``pyramid_edges``
    directions, the Stewart–Trinkle / Anitescu–Potra LCP solved by Lemke
    (:func:`~contactcp.simulate.stepping.impulses.solve_pyramid`); the default ``"cone"`` is exact.
    A step whose problem is not certified is taken again as two steps of ``h / 2``, halved again
    down to ``h / 2**max_halvings`` (:mod:`~contactcp.simulate.stepping.substeps`; 0: never)."""

    theta: float = 0.5
    gamma: float | None = 1.0
    activation_gap: float = 1e-8
    projection: bool = True
    projection_tol: float = 1e-10
    impact_timing: bool = True
    tol: float = 1e-10
    slip_tol: float = 1e-9
    method: str | None = None
    friction: str = "cone"
    pyramid_edges: int = 8
    max_halvings: int = 3

    @classmethod
    def siconos(cls, **changes: Any) -> Scheme:
        """Siconos' Moreau–Jean as its examples run it: ``theta = gamma = 1/2``, activation at a
        predicted gap ``<= 0``, Newton's law on the step's end velocity, no projection."""
        base = {
            "theta": 0.5,
            "gamma": 0.5,
            "activation_gap": 0.0,
            "projection": False,
            "impact_timing": False,
            "max_halvings": 0,
        }
        return cls(**{**base, **changes})

    def __post_init__(self) -> None:
        theta = number(self.theta, "theta")
        if not 0.5 <= theta <= 1.0:
            raise InvalidOptionError(
                "theta", f"must be in [0.5, 1] (0.5: trapezoidal, 1: implicit), got {self.theta!r}"
            )
        gamma = theta if self.gamma is None else number(self.gamma, "gamma")
        if not 0.0 <= gamma <= 1.0:
            raise InvalidOptionError("gamma", f"must be in [0, 1], got {self.gamma!r}")
        object.__setattr__(self, "gamma", gamma)
        for name in ("activation_gap", "projection_tol", "slip_tol"):
            if not number(getattr(self, name), name) >= 0:
                raise InvalidOptionError(name, f"must be >= 0, got {getattr(self, name)!r}")
        tol = number(self.tol, "tol")
        if not 0 < tol < 1:
            raise InvalidOptionError("tol", f"must be in (0, 1), got {self.tol!r}")
        if self.friction not in ("cone", "pyramid"):
            raise InvalidOptionError("friction", f"must be 'cone' or 'pyramid', got {self.friction!r}")
        edges = self.pyramid_edges
        if isinstance(edges, bool) or not isinstance(edges, (int, np.integer)) or not 3 <= edges <= 64:
            raise InvalidOptionError("pyramid_edges", f"must be an integer in [3, 64], got {edges!r}")
        halvings = self.max_halvings
        if isinstance(halvings, bool) or not isinstance(halvings, (int, np.integer)) or not 0 <= halvings <= 20:
            raise InvalidOptionError("max_halvings", f"must be an integer in [0, 20], got {halvings!r}")
        for name in ("projection", "impact_timing"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidOptionError(name, f"must be True or False, got {getattr(self, name)!r}")
        if self.method is not None:
            known = sorted(
                set(methods_for(FrictionContactProblem))
                | set(methods_for(GlobalFrictionContactProblem))
                | set(methods_for(LCP))
            )
            if self.method not in known:
                raise UnknownMethodError(self.method, "a step's problem (friction cone or LCP)", known)
            if self.friction == "pyramid":
                self.check_method(3)

    @functools.cached_property
    def _local_options(self) -> tuple:
        """The options of :func:`~contactcp.simulate.stepping.local_kernels.local_step`, as floats."""
        flags = (self.theta, self.gamma, self.activation_gap, self.impact_timing, self.projection, self.projection_tol)
        return tuple(float(x) for x in flags)

    def check_method(self, dim: int) -> None:
        """``method`` must apply to the problem a step poses: an LCP for frictionless contacts
        (``dim`` 1) and for the pyramid, a friction-cone problem (local or global) otherwise."""
        if self.method is None:
            return
        if dim == 1 or self.friction == "pyramid":
            known, what = sorted(methods_for(LCP)), "an LCP (frictionless contacts, or the friction pyramid)"
        else:
            known = sorted(set(methods_for(FrictionContactProblem)) | set(methods_for(GlobalFrictionContactProblem)))
            what = "a friction-cone problem (local or global form)"
        if self.method not in known:
            raise UnknownMethodError(self.method, what, known)


@dataclass
class StepRecord:
    """What one step did: the certified status of its problems and every contact's answer."""

    t: float
    status: Status
    residual: float
    iterations: int
    method: str
    keys: list[str]
    bodies: list[tuple[str, str]]
    points: np.ndarray
    normals: np.ndarray
    gap: np.ndarray
    active: np.ndarray
    impulse: np.ndarray  # (n_c, 3) contact frame (normal, t, o); zeros for inactive contacts
    impulse_world: np.ndarray  # (n_c, 3)
    velocity: np.ndarray  # (n_c, 3) contact frame, at the end of the step
    mode: np.ndarray  # (n_c,) codes into MODES
    slide_direction: np.ndarray  # (n_c, 3) world unit vectors (zeros unless sliding)
    transitions: int = 0
    projected: bool = False
    projection_residual: float = 0.0
    notes: list[str] = field(default_factory=list)
    substeps: int = 1  # > 1: the step was taken again in sub-steps (simulate.stepping.substeps)

    @property
    def success(self) -> bool:
        return self.status is Status.SOLVED


def _mode(r: np.ndarray, u: np.ndarray, frame: np.ndarray, dim: int, mu: float, slip_tol: float):
    """A contact's mode code and, when it slides, its world sliding direction (``closed``: a
    frictionless contact that carries a force).  The rule, contact by contact; the stepper applies it
    to all contacts at once (:func:`_modes`, checked against this in the tests)."""
    none = np.zeros(3)
    if not r[0] > 0:
        return SEPARATED, none
    if dim == 1 or mu == 0:
        return CLOSED, none
    slip = float(np.hypot(u[1], u[2]))
    if slip <= slip_tol:
        return STICKING, none
    d = frame[:, 1] * u[1] + frame[:, 2] * u[2]
    return SLIDING, d / np.linalg.norm(d)


def _modes(imp, vel, frames, d: int, mu, active, slip_tol: float):
    """:func:`_mode` of every contact at once: ``(codes, sliding directions, world impulses)``
    (inactive contacts: separated; compiled, :func:`~contactcp.simulate.stepping.mode_kernels.contact_modes`)."""
    return contact_modes(
        _f64(imp), _f64(vel), _f64(frames), int(d), _f64(mu), np.asarray(active, dtype=np.bool_), float(slip_tol)
    )


def advance(
    system: Any, t: float, q: np.ndarray, v: np.ndarray, h: float, scheme: Scheme, memory: dict, thorough: bool = True
):
    """One step from ``(t, q, v)``: ``(q1, v1, StepRecord)``.  ``memory``: a dict, empty at the first
    step, in which each step leaves its contacts' impulses and modes by key for the next (warm
    starts and mode transitions; :mod:`~contactcp.simulate.stepping.memory`).  ``thorough=False``
    tries no chain of solvers after the warm Newton of a step in global form (a step that will be
    halved if it fails; :func:`~contactcp.simulate.stepping.impulses.solve_impulses`)."""
    M, f = system.dynamics(t, q, v)
    C = system.contacts(q, v, h)
    before, R0, warm = last_impulses(C, memory)
    chol = None
    if C.dim == 3 and 3 * C.n <= LOCAL_UP_TO and scheme.method is None and scheme.friction == "cone":
        done, chol, acc = _advance_local(system, t, q, v, h, scheme, memory, M, f, C, (before, R0, warm))
        if done is not None:
            return done
    if chol is None:
        chol = mass_factor(system, M, t)
        acc = chol.solve(f)
        if C.dim == 3 and C.blocks is not None and scheme.method is None and scheme.friction == "cone":
            done = _advance_global(system, t, q, v, h, scheme, memory, M, chol, acc, C, (before, R0, warm))
            if done is not None:
                return done
    v_free = v + h * acc
    d, n = C.dim, C.n
    # u_k, a_N, the impact times, the active contacts (step 2) and the law's u* (step 3), compiled
    H, blocks = _f64(C.H), (_NO_BLOCKS if C.blocks is None else C.blocks)
    uk, a, tau, u_imp, active, u_star = step_start(
        H, _f64(v), acc, _f64(C.gap), _f64(C.e), float(h), d,
        float(scheme.gamma), float(scheme.activation_gap), scheme.impact_timing, blocks,
    )  # fmt: skip
    r = np.zeros((n, d))
    status, residual, iters, method = Status.SOLVED, 0.0, 0, "free"
    v1 = v_free
    if active.any():
        cols = np.flatnonzero(np.repeat(active, d))
        w = np.zeros(cols.size)
        w[::d] = -u_star[active]
        r0 = None
        if warm[active].any() and d == 3:
            r0 = R0[active].reshape(-1)
        res, v_end, r_act = solve_impulses(M, chol, H, cols, v_free, w, C.mu[active], d, scheme, r0, thorough, C.blocks)
        status, iters, method = res.status, int(res.iterations), res.method
        residual = math.inf if res.residual is None else float(res.residual.value)
        if v_end is not None:
            r[active] = r_act.reshape(-1, d)
            v1 = v_end
    step = h * (scheme.theta * v1 + (1.0 - scheme.theta) * v)
    q1 = system.integrate(q, step)
    u1 = transpose_times(H, blocks, _f64(v1), _NO_VECTOR, d)[0].reshape(n, d)  # by rows in order: no BLAS
    record = _record(t, C, active, r, u1, status, residual, iters, method, scheme, memory, before)
    if scheme.projection and n:
        g_pred = C.gap + h * (scheme.theta * u1[:, 0] + (1.0 - scheme.theta) * uk[:, 0])
        hit, target = _impact_targets(C.e, a, tau, u_imp, r[:, 0], h)
        if hit.any() or (g_pred < -scheme.projection_tol).any():
            dq = _project(M, chol, C, g_pred, hit, target, scheme, record)
            q1 = system.integrate(q1, dq)
            v1 = system.transport(dq, system.transport(step, v1))  # the world velocity is kept
            return q1, v1, record
    return q1, system.transport(step, v1), record


def _advance_local(system, t, q, v, h, scheme: Scheme, memory: dict, M, f, C, last):
    """:func:`advance`'s step from its contacts ``C`` in one compiled call
    (:func:`~contactcp.simulate.stepping.local_kernels.local_advance`) when it is posed in local
    form and the last step's impulses, warm NSGS, certify it: ``(done, chol, acc)``, ``done`` the
    step's ``(q1, v1, record)`` or None (the general path takes the step with ``chol`` and ``acc =
    M^-1 f``).  A constant mass matrix comes factored (:func:`~contactcp.simulate.stepping.mass.
    mass_factor`'s block inverses); any other is factored in the call, by the Cholesky that
    ``mass_factor`` runs (the same factor, which the general path then solves with).  ``last``:
    :func:`~.memory.last_impulses`' answer."""
    n, (before, R0, warm) = C.n, last
    H = _f64(C.H)
    if getattr(system, "constant_mass", False):
        chol = mass_factor(system, M, t)
        Mk, acc, MinvH = _NO_MATRIX, chol.solve(f), chol.solve(H)
    else:
        chol, Mk, acc, MinvH = None, _f64(M), _NO_VECTOR, _NO_MATRIX
    motion = getattr(system, "motion_indices", None)
    L, work, need = _workspace(system, H.shape[0])
    code, active, r, u1, modes, slide, world, projected, residual, sweeps, moved, q1, v_end = local_advance(
        Mk, _f64(f), H, acc, MinvH, _f64(v), float(h), C.gap, C.e, C.mu, R0, warm,
        scheme._local_options, float(scheme.tol), _LOCAL_COUNTS, C.frames, float(scheme.slip_tol),
        _f64(q), *(motion or _NO_MOTION), motion is not None, L, work, need,
    )  # fmt: skip
    if code == NOT_POSITIVE:  # the same factorisation in mass_factor: it raises the error naming M
        chol = mass_factor(system, M, t)
        return None, chol, chol.solve(f)
    chol = chol if chol is not None else DenseCholesky(L)
    acc, v1, step, dq = work  # views, read within this step only
    if code != DONE:
        return None, chol, acc
    method, modes = ("nsgs" if active.any() else "free"), (modes, slide, world)
    record = _record(t, C, active, r, u1, Status.SOLVED, residual, int(sweeps), method, scheme, memory, before, modes)
    if moved:  # moved in the call: the projection needed no gap LCP
        record.projected = bool(projected)
        return (q1, v_end, record), chol, acc
    q1 = system.integrate(q, step)
    if not projected:
        return (q1, system.transport(step, v1), record), chol, acc
    dq = _lcp_correction(M, chol, C.H, 3, need[:n], dq, scheme, record)
    return (system.integrate(q1, dq), system.transport(dq, system.transport(step, v1)), record), chol, acc


def _advance_global(system, t, q, v, h, scheme: Scheme, memory: dict, M, chol, acc, C, last):
    """:func:`advance`'s step in global form on free bodies in one compiled call
    (:func:`~contactcp.simulate.stepping.global_kernels.global_advance`, the same arithmetic):
    ``(q1, v1, record)``, or None where it does not apply (a mass matrix not of free bodies' blocks,
    motion not compiled, too many velocities for the direct Newton) or answers the general path
    (then the step is taken from its start there).  The gap LCP, when the hit contacts' correction
    leaves a contact short, is solved in the call too; one it does not certify there is
    :func:`_lcp_correction`'s (the general path's code: its retries, chain and statuses)."""
    motion = getattr(system, "motion_indices", None)
    if motion is None or not getattr(chol, "finite", False) or C.H.shape[0] > DENSE_UP_TO or chol.inverse() is None:
        return None
    mass = _global_mass(chol)
    before, R0, warm = last
    try:
        found = global_advance(
            _f64(C.H), C.blocks, _f64(v), _f64(acc), float(h), _f64(C.gap), _f64(C.e), _f64(C.mu), R0, warm,
            scheme._local_options, float(scheme.tol), LOCAL_UP_TO, _NEWTON, mass, C.frames, float(scheme.slip_tol),
            _f64(q), *motion, (max(scheme.tol, PROJECTION_TOL), float(GAP_REACH), GAP_RETRY_EPS),
        )  # fmt: skip
    except ValueError:  # an entry outside the Newton's band: the general path's registry run reports it
        return None
    code, active, r, u1, modes, slide, world, residual, its, projected, lcp, q1, v_end, need, dq, gap = found
    if code != GLOBAL_DONE:
        return None
    method, modes = ("newton-global" if active.any() else "free"), (modes, slide, world)
    record = _record(t, C, active, r, u1, Status.SOLVED, residual, its, method, scheme, memory, before, modes)
    if not lcp:
        record.projected, record.projection_residual = projected, gap
        return q1, v_end, record
    dq = _lcp_correction(M, chol, C.H, 3, need, dq, scheme, record, C.blocks)
    return system.integrate(q1, dq), system.transport(dq, v_end), record


def _global_mass(chol) -> tuple:
    """What :func:`~.global_kernels.global_advance` reads of a block solver of ``M``: ``(M, M^-1,
    most entries in a row of M, the small blocks' inverses, whether there are any, the one-entry
    rows, their diagonal)``, the matrices in CSR form (kept for the last solver: a time stepper's,
    step after step)."""
    global _LAST_MASS
    if _LAST_MASS[0] is not chol:
        small, rows, diag = chol.block_parts()
        has_small = small is not None
        small = csr64(small) if has_small else (_NO_INDEX, _NO_INDEX, _NO_VECTOR)
        _LAST_MASS = (chol, mass_arrays(chol) + (small, has_small, rows.astype(np.int64), _f64(diag)))
    return _LAST_MASS[1]


_LAST_MASS: tuple = (None, None)


#: the Newton's options as :meth:`~contactcp.solvers.cone.newton_global_direct.Prepared.newton`
#: takes them by default: ``(max_iter, eps, eps_floor, armijo, memory, flops)``
_NEWTON = (50.0, 1e-3, EPS_FLOOR, 1e-4, float(MEMORY), float(BAND_FLOPS))
_NO_INDEX = np.zeros(1, dtype=np.int64)


def _workspace(system: Any, nv: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`~contactcp.simulate.stepping.local_kernels.local_advance` writes for the step to
    read within it (``L``, the rows ``acc, v1, step, dq``, ``need``), kept on the system."""
    work = getattr(system, "_local_work", None)
    if work is None or work[1].shape[1] != nv:
        work = (np.empty((nv, nv)), np.empty((4, nv)), np.empty(LOCAL_UP_TO // 3))
        system._local_work = work
    return work


_NO_MATRIX, _NO_VECTOR = np.zeros((0, 0)), np.zeros(0)
_NO_BLOCKS = np.zeros((0, 2), dtype=np.int64)
#: local_advance's motion indices when the system integrates otherwise
_NO_MOTION = (np.zeros(0, dtype=np.int64),) * 4


#: ``local_step``'s counts: the local form's most unknowns, the warm NSGS's sweeps, its local
#: iterations and Anderson pairs (those of impulses.solve_impulses's warm start)
_LOCAL_COUNTS = (LOCAL_UP_TO, WARM_SWEEPS, nsgs._LOCAL_ITER, nsgs.ANDERSON)


def impact_time(g: np.ndarray, u: np.ndarray, a: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """``(tau, u_imp)``: when each contact closes in free motion ``g + u t + a t^2 / 2`` (the first
    root in ``[0, h]``, ``h`` if none; 0 for a closed contact) and its normal velocity then.  The first
    root ``t >= 0`` of ``a t^2 / 2 + u t + g`` in the forms that do not cancel: ``2 g / (-u + root)``
    while that denominator is positive, else ``(u + root) / -a`` (a closed contact that separates now,
    ``u > 0``, and comes back under ``a < 0`` at ``t = -2 u / a``); compiled
    (:func:`~contactcp.simulate.stepping.impact_kernels.impact_times`)."""
    return impact_times(_f64(g), _f64(u), _f64(a), float(h))


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _impact_targets(e, a, tau, u_imp, r_n, h: float):
    """``(hit, target)``: the contacts that closed within the step and took an impulse, and the gap
    each should have at the end of the step: for a hit contact, the gap its rebound opens after the
    impact at ``tau``, ``max(0, -e u_imp (h - tau) + a (h - tau)^2 / 2)`` (0 when it comes to rest:
    the trapezoidal rule would leave it hovering where its last free velocity took it); else 0."""
    return impact_targets(_f64(e), _f64(a), tau, u_imp, _f64(r_n), float(h))


def _project(M, chol, C, g_pred, hit, target, scheme: Scheme, record: StepRecord) -> np.ndarray:
    """The position correction ``dq`` to the target gaps (module docstring): the hit contacts to their
    targets (the least mass-weighted correction, by least squares), then every contact to at least
    its target (:func:`_gap_lcp`)."""
    Hn = C.H[:, :: C.dim]
    dq = np.zeros(Hn.shape[0])
    # hit contacts all within projection_tol of their targets need no correction (the compiled
    # step's rule, impact_kernels.off_target): a pile at rest has every contact hit, within rounding
    # of its target (3e-16 m; the least squares took 0.2 ms)
    hits = np.flatnonzero(hit)
    if off_target(hits, _f64(target), _f64(g_pred), float(scheme.projection_tol)):
        grouped = _grouped_correction(chol, C, hits, target[hits] - g_pred[hits])
        if grouped is not None:  # free bodies: by groups of hit contacts (hit_kernels)
            dq = grouped
            g_pred = g_pred + transpose_times(_f64(C.H), C.blocks, dq, _NO_VECTOR, C.dim)[0][:: C.dim]
            return _lcp_correction(M, chol, C.H, C.dim, g_pred - target, dq, scheme, record, C.blocks)
        Mh = chol.solve(Hn[:, hit])
        Whh = Hn[:, hit].T @ Mh
        # any least-squares lam gives the same dq (two differ in the null space of W_hh, that of
        # H_N[:, hit]): QR with column pivoting, a third of the SVD's time on a pile's 140 hit
        # contacts; a few contacts by the SVD, compiled (impact_kernels.small_lstsq)
        A, b = 0.5 * (Whh + Whh.T), target[hit] - g_pred[hit]
        if b.size > 16:
            lam = sla.lstsq(A, b, lapack_driver="gelsy", check_finite=False)[0]
        else:
            lam = small_lstsq(A, b)
        dq = Mh @ lam
        g_pred = g_pred + Hn.T @ dq
    return _lcp_correction(M, chol, C.H, C.dim, g_pred - target, dq, scheme, record, C.blocks)


def _grouped_correction(chol, C, hits: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """The hit contacts' correction by groups (:func:`~.hit_kernels.grouped_hit_correction`), None
    where it does not apply: a contact's columns not known to lie on its free bodies' rows, ``M^-1``
    not sparse or coupling bodies."""
    inverse = getattr(chol, "inverse", None)
    if C.blocks is None or C.dim != 3 or inverse is None or inverse() is None:
        return None
    inv = mass_arrays(chol)[1]
    dq, ok = grouped_hit_correction(_f64(C.H), C.blocks, *inv, hits, _f64(b), 3)
    return dq if ok else None


def _lcp_correction(M, chol, H, d: int, need, dq, scheme: Scheme, record: StepRecord, blocks=None) -> np.ndarray:
    """``dq`` (the hit contacts' correction) and, if some contact's gap still falls short of its
    target by more than ``projection_tol`` (``need < -projection_tol``), the LCP's
    (:func:`_gap_lcp`; ``H`` the contacts' Jacobian, ``d`` columns a contact); the record notes the
    projection."""
    if (need < -scheme.projection_tol).any():
        tol = max(scheme.tol, PROJECTION_TOL)
        res, dl, record.projection_residual = _gap_lcp(M, chol, _f64(H), d, need, tol, blocks)
        if not res.success:
            record.status = res.status if record.status is Status.SOLVED else record.status
            record.notes.append(f"position projection: {res.status.name} (residual {record.projection_residual:.3g})")
        else:
            dq = dq + dl
    record.projected = True
    return dq


def _gap_lcp(M, chol, H: np.ndarray, d: int, need: np.ndarray, tol: float, blocks=None):
    """``(result, dq, residual)``: ``dq = M^-1 H_N l`` with ``0 <= l _|_ H_N^T dq + need >= 0``
    (``H_N`` every ``d``-th column of ``H``, the normals) and the problem's residual.  Up to
    :data:`~contactcp.simulate.stepping.impulses.LOCAL_UP_TO` / 3 contacts the LCP in ``W_N``
    (dense); above, the same problem in global form, a frictionless contact problem (``mu = 0``,
    a normal column a contact: :func:`_gap_newton`; ``W_N`` is singular in a pile and the LCP chain spent
    150 ms a step on 50 boxes), by the global Newton (:func:`_gap_global`), else the LCP."""
    n = need.shape[0]
    if n > LOCAL_UP_TO // 3:
        found = _gap_global(M, chol, H, d, need, tol, blocks)
        if found is not None:
            return found
    Hn = H[:, ::d]
    MinvHn = chol.solve(Hn)
    Wn = Hn.T @ MinvHn
    res = solve(LCP(0.5 * (Wn + Wn.T), need), tol=tol)
    residual = math.inf if res.residual is None else float(res.residual.value)
    return res, (MinvHn @ res.x if res.x is not None else None), residual


def _gap_global(M, chol, H: np.ndarray, d: int, need: np.ndarray, tol: float, blocks=None):
    """:func:`_gap_lcp`'s answer in global form, None when not certified.  First on the contacts
    within reach, ``need_j <= GAP_REACH max(-need)``: the others, open by more than the largest
    correction asked for (in a pile, contacts within the margin that do not touch), are left out
    and checked afterwards, each still open (``need_j + (H_N^T dq)_j > 0`` with ``l_j = 0``: its
    rows of the whole problem hold exactly).  The whole problem's measure is then no larger than
    the part's (to rounding-bound terms of a few units of ``eps``): its natural map is the part's,
    over the norm of a larger need, and its equilibrium rows are the part's.  Then, or when every
    contact is within reach, the whole problem (again with :data:`GAP_RETRY_EPS` if not certified).
    On 500 steps of a falling 25-box pile the band of ``M + H B H^T`` went from 38 to 19 rows, and
    a projection's time from 1.06 to 0.6 ms (a script timing the solves)."""
    nv = H.shape[0]
    near = np.flatnonzero(need <= GAP_REACH * max(-need.min(), 0.0))
    if near.size < need.shape[0]:
        res = _gap_newton(M, chol, H, d, need, near, tol, blocks)
        if res.success:
            dq = res.x[:nv]
            far = np.ones(need.shape[0], dtype=bool)
            far[near] = False
            rows = blocks if blocks is not None and d == 3 else _NO_BLOCKS  # each contact's rows, else all
            if far_open(H, rows, need, far, _f64(dq), d):
                return res, dq, float(res.residual.value)
    everyone = np.arange(need.shape[0])
    res = _gap_newton(M, chol, H, d, need, everyone, tol, blocks)
    if not res.success:  # once more, with a smaller proximal term (GAP_RETRY_EPS)
        res = _gap_newton(M, chol, H, d, need, everyone, tol, blocks, eps=GAP_RETRY_EPS)
    return (res, res.x[:nv], float(res.residual.value)) if res.success else None


def _gap_newton(M, chol, H: np.ndarray, d: int, need: np.ndarray, which: np.ndarray, tol: float, blocks, **options):
    """The global Newton on the projection's problem of the contacts ``which``, a normal column each
    (one-dimensional: :func:`~contactcp.solvers.cone.newton_global_direct.prepare`, ``blocks`` the
    contacts' rows of ``H`` when known), with ``rho`` twice the registry's ``1 / W_ii``.  Where that
    path does not apply, the registry's ``newton-global`` on the same problem as a two-dimensional
    one (the class's least dimension): ``H_N``'s columns spread to every other one, each contact's
    tangential column zero.  The two are the same iteration: the tangential rows stay zero and add
    zeros, and ``rho = 2 / W_ii`` is the two-dimensional rule's ``d / trace`` (1 / W_ii took 6.5
    iterations a projection where 2 / W_ii took 6.3, on 500 steps of a 25-box pile; the
    one-dimensional form's assembly took 20 us where the other's took 29, at 143 contacts).  Their
    iterates agree to the bit: both scale the residual by ``||q||`` summed in order
    (:func:`~contactcp.solvers.cone.kernels.residual_scale`), to which the zeros add nothing."""
    nv = H.shape[0]
    mu, cols = np.zeros(which.size), d * which
    prepared = prepare(chol, H, cols, 1, None, need[which], mu, 1, blocks, d, rho_scale=2.0)
    res = None if prepared is None else prepared.newton(tol, **options)
    if res is None:
        w2 = np.zeros(2 * which.size)
        w2[0::2] = need[which]
        problem = GlobalFrictionContactProblem._derived(M, H, np.zeros(nv), w2, mu, 2, spread=2, cols=cols, solver=chol)
        res = solve(problem, "newton-global", tol=tol, **options)
    return res


def _record(t, C, active, r, u1, status, residual, iters, method, scheme, memory, before, modes=None) -> StepRecord:
    """The step's record, its contacts kept in ``memory`` (:func:`~.memory.remember`; ``before``
    their last modes, :func:`~.memory.last_impulses`); ``modes`` :func:`_modes`' answer when the
    caller has it."""
    n, d = C.n, C.dim
    if d == 3:
        imp, vel = r, u1
    else:
        imp, vel = np.zeros((n, 3)), np.zeros((n, 3))
        imp[:, :d] = r
        vel[:, :d] = u1
    modes, slide, world = modes if modes is not None else _modes(imp, vel, C.frames, d, C.mu, active, scheme.slip_tol)
    keys = list(C.keys)
    # r is not changed after the step (the record holds it too): the next step's warm starts
    transitions = remember(memory, keys, r, active, modes, before)
    return StepRecord(
        t=t,
        status=status,
        residual=residual,
        iterations=iters,
        method=method,
        keys=keys,
        bodies=list(C.bodies),
        points=C.points,
        normals=C.frames[:, :, 0].copy(),
        gap=C.gap,
        active=active,
        impulse=imp,
        impulse_world=world,
        velocity=vel,
        mode=modes,
        slide_direction=slide,
        transitions=transitions,
    )

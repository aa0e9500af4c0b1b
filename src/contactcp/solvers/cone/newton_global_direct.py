"""The time stepper's global Newton on arrays, without a problem object: :func:`prepare`.

The stepper poses two global problems a step from its dense contact Jacobian ``H`` and the block
solver of its mass matrix: the impulses (:func:`~contactcp.simulate.stepping.impulses.solve_impulses`)
and the position projection (:func:`~contactcp.simulate.stepping.moreau_jean._gap_global`).  Through
the registry each call built a :class:`~contactcp.problems.GlobalFrictionContactProblem` (its CSR
``H`` by scipy, its checks), then :func:`~.newton_global._setup`'s pieces one by one, then the
registry's option checks and the answer's velocity: on a 25-box pile about 180 us a call beside the
Newton iterations (a script timing the pieces, 500 steps), two calls a landing step, one at rest.

Here the same arithmetic runs on the arrays: ``H``'s columns in CSR form by the same pass
(:func:`~contactcp.problems._coulomb_global.columns_to_csr`; or, when the detection tells which rows
each contact's columns fill, from those rows only, the same arrays:
:func:`~contactcp.problems._coulomb_global.blocks_to_csr`), then one compiled call
(:func:`~.newton_islands.island_newton`, the registry's ``newton-global`` runs the same) that
checks the start, builds what the steps need and runs the band path's iterations, then the velocity by the mass
matrix's own solver and the certificate: the global problem's own measure
(:func:`~contactcp.problems._coulomb_global.global_residual`, on the same arrays and term counts as
the problem's) through the registry's :func:`~contactcp.solvers.registry.certify`, status rules
and all.  The answer is the registry's ``newton-global`` to the last bit (the tests compare them).
A one-dimensional problem (the stepper's position projection, one normal column a contact) has no
problem class of its own: its iterates are those of its two-dimensional form, each contact's
tangential column zero, to the bit (:func:`~contactcp.simulate.stepping.moreau_jean._gap_newton`);
the certified measures, each computed on its own form, agree to rounding.
Where that path does not apply (``M^{-1}`` not sparse, a non-finite ``H``, more than
:data:`~.newton_global.DENSE_UP_TO` velocities, a reduced matrix that is not a band) :func:`prepare`
or :meth:`Prepared.newton` gives None and the caller takes the registry's way.
"""

from __future__ import annotations

import time

import numpy as np

from contactcp.problems._coulomb_global import blocks_to_csr, columns_to_csr, transpose_matvec
from contactcp.problems.friction_global import _NO_SHIFT, _row_most, global_measure
from contactcp.result import Residual, Result
from contactcp.solvers.cone.kernels import residual_scale
from contactcp.solvers.cone.newton_global import _OUTCOMES, BAND_FLOPS, DENSE_UP_TO, EPS_FLOOR, MEMORY, csr64
from contactcp.solvers.cone.newton_global_loop import ITERATION_LIMIT, NO_BAND
from contactcp.solvers.cone.newton_islands import island_newton
from contactcp.solvers.cone.woodbury_kernels import csr_matvec
from contactcp.solvers.registry import Raw, certify

__all__ = ["prepare", "Prepared", "mass_arrays"]


def mass_arrays(solver) -> tuple:
    """``(M, M^-1, most entries in a row of M)`` of a block solver, the matrices as the kernels take
    them (:func:`~.newton_global.csr64`; kept for the last solver: a time stepper's, step after step)."""
    global _LAST
    if _LAST[0] is not solver:
        _LAST = (solver, (csr64(solver.csr), csr64(solver.inverse()), _row_most(solver.csr)))
    return _LAST[1]


_LAST: tuple = (None, None)


class Prepared:
    """A stepper's global problem as arrays (module docstring): ``M v = H r``, ``u = H^T v + w`` with
    ``H``'s column ``spread j`` the dense ``H[:, cols[j]]`` (the others zero) and ``w``'s rows
    ``spread j`` shifted by ``H[:, cols]^T shift`` (as
    :meth:`~contactcp.problems.GlobalFrictionContactProblem._derived` poses it).  Built by
    :func:`prepare`."""

    __slots__ = ("solver", "H", "M", "inv", "w", "q", "mu", "d", "qscale", "terms", "f", "n", "rho_scale")

    def __init__(
        self, solver, H_csr, w: np.ndarray, mu: np.ndarray, d: int, most: tuple[int, int], rho_scale: float = 1.0
    ):  # fmt: skip
        self.solver, self.H, self.w, self.mu, self.d = solver, H_csr, w, mu, int(d)
        self.rho_scale = float(rho_scale)
        self.M, self.inv, row_most = mass_arrays(solver)
        self.n = solver.n
        self.f = np.zeros(self.n)
        # the problem's q = w + H^T M^-1 f: f = 0 and M^-1 f = 0, so w, but for the signs of its zeros
        self.q = transpose_matvec(*H_csr, self.f, w)
        self.qscale = float(residual_scale(self.q))
        self.terms = (max(row_most, 1) + max(most[0], 1) + 2, most[1] + 2)

    def newton(
        self, tol: float, r0: np.ndarray | None = None, *, eps: float = 1e-3, memory: int = MEMORY,
        max_iter: int = 50, armijo: float = 1e-4,
    ) -> Result | None:  # fmt: skip
        """The registry's ``solve(problem, "newton-global", tol=tol, r0=r0, eps=eps, ...)`` (the same
        iterations, answer and certified result), or None where its band path does not apply."""
        m = self.w.shape[0]
        r = np.zeros(m) if r0 is None else np.array(r0, dtype=float)
        if r.shape != (m,) or not np.isfinite(r).all():
            return None  # the registry names the option
        t0 = time.perf_counter()
        try:
            r, u, outcome, it, shrinks, discarded = island_newton(
                self.H, self.M, self.inv, self.q, self.mu, self.d, r, self.qscale, float(tol), int(max_iter),
                float(eps), EPS_FLOOR, float(armijo), int(memory), float(BAND_FLOPS), self.rho_scale,
            )  # fmt: skip
        except ValueError:  # an entry outside the band: the registry's run reports it
            return None
        if outcome == NO_BAND:
            return None
        status, msg = _OUTCOMES[outcome]
        if outcome == ITERATION_LIMIT:
            msg = msg.format(max_iter)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            v = self.solver.solve(csr_matvec(*self.H, r) + self.f)  # the problem's velocity(r)
        stats = {"rho_shrinks": shrinks} | ({"discarded_island_iterations": discarded} if discarded else {})
        raw = Raw(np.concatenate([v, r]), status, iterations=it, message=msg, stats=stats)
        return certify(self, raw, tol, "newton-global", time.perf_counter() - t0)

    def _certify(self, x: np.ndarray, w: np.ndarray | None) -> tuple[Residual, np.ndarray]:
        """The global problem's own measure of ``x = (v, r)``, as the problem takes it
        (:func:`~contactcp.problems.friction_global.global_measure`)."""
        residual, u = global_measure(
            self.M, self.H, x, self.f, self.w, self.q, self.mu, self.d, float(self.mu.max(initial=0.0)), self.terms
        )
        return residual, (np.full(self.w.shape[0], np.nan) if u is None else u)


def prepare(
    solver, H: np.ndarray, cols: np.ndarray, spread: int, shift: np.ndarray | None, w: np.ndarray, mu: np.ndarray,
    d: int, blocks: np.ndarray | None = None, per: int = 3, rho_scale: float = 1.0,
) -> Prepared | None:  # fmt: skip
    """The problem :meth:`~contactcp.problems.GlobalFrictionContactProblem._derived` would pose from
    the same arguments (``f = 0``), as :class:`Prepared`; None when ``solver`` has no sparse inverse
    or finite CSR form, ``H``'s columns are not finite, or there are more than
    :data:`~.newton_global.DENSE_UP_TO` velocities.  ``blocks``: where each contact's ``per``
    columns of ``H`` have their entries (:class:`~contactcp.simulate.stepping.systems.StepContacts`'
    ``blocks``), when known: only those rows are read
    (:func:`~contactcp.problems._coulomb_global.blocks_to_csr`, the same arrays).  ``d`` may be 1
    (frictionless contacts, a normal column each: the stepper's position projection) besides the
    problem class's 2 and 3; ``rho_scale`` multiplies the Newton's ``rho``
    (:func:`~.newton_global_loop.prepared_newton`)."""
    if not getattr(solver, "finite", False) or H.shape[0] > DENSE_UP_TO or solver.inverse() is None:
        return None
    v = _NO_SHIFT if shift is None else shift
    if blocks is None:
        Hp, Hi, Hx, finite, row_most, column_most, Htv = columns_to_csr(H, cols, spread, v)
    else:
        Hp, Hi, Hx, finite, row_most, column_most, Htv = blocks_to_csr(H, cols, spread, v, blocks, per)
    if not finite:
        return None
    w = np.array(w, dtype=float)
    if shift is not None:
        w[::spread] += Htv
    most = (int(row_most), int(column_most))
    return Prepared(solver, (Hp, Hi, Hx), w, np.asarray(mu, dtype=float), d, most, rho_scale)

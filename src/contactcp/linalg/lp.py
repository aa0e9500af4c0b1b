"""Linear programs over a standard-form polyhedron ``{x >= 0 : A x = b}`` with HiGHS.

:class:`Polyhedron` keeps one HiGHS model per polyhedron, so the sequence of
objectives of the bilinear method and the zero-fixings of branch-and-bound
re-solve from the previous basis.  It returns vertices (the simplex method
with presolve off returns basic solutions) with their bases, proves emptiness
with Farkas vectors that are checked here, and lists the extreme points
adjacent to a vertex by pivoting from its basis (Murty, *Linear Programming*,
Section 3.7.1), following degenerate pivots when the vertex is degenerate.
"""

from __future__ import annotations

from dataclasses import dataclass

import highspy
import numpy as np
import scipy.linalg as sla
from scipy.optimize import linprog

_INF = highspy.kHighsInf
_MS = highspy.HighsModelStatus


@dataclass
class Vertex:
    x: np.ndarray
    basis: np.ndarray  # indices of the basic columns (length = rank of A)


@dataclass
class Farkas:
    """``u`` with ``A[:, free]^T u >= 0`` and ``b^T u < 0``: ``{x >= 0 : A x = b, x[fixed] = 0}`` is empty."""

    u: np.ndarray
    free: np.ndarray
    min_ATu: float
    bTu: float
    exact: tuple | None = None  #: the rational vector the proof is about, when ``u``'s floats are not one


_CLEAN_REL = 1e-12
_BANNER_SHOWN = False
#: threads of every HiGHS instance the package makes (see :func:`_new_highs`)
_THREADS = 1


def _new_highs() -> highspy.Highs:
    """A quiet ``highspy.Highs`` set to one thread (every instance the package makes is).

    highspy prints a copyright banner on standard output when the first instance is made, before
    ``output_flag`` can be set; that would break the CLI's one-JSON-object output, so the first
    construction runs with file descriptor 1 pointed at /dev/null.

    HiGHS runs all the instances of a process on one global task scheduler, made by the first
    ``run`` with that instance's ``threads`` option (0, the default, means as many as the machine
    offers), and refuses to run an instance that asks for another number (see :func:`run_highs`).
    One thread everywhere keeps the package's own instances from refusing each other, and their
    answers from depending on the machine."""
    global _BANNER_SHOWN
    if _BANNER_SHOWN:
        h = highspy.Highs()
    else:
        import os
        import sys

        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 1)
                h = highspy.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        _BANNER_SHOWN = True
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", _THREADS)
    return h


def run_highs(h: highspy.Highs) -> highspy.HighsStatus:
    """``h.run()``, run once more after resetting HiGHS's global thread scheduler when HiGHS
    refused to start.

    The scheduler is shared by every ``highspy.Highs`` of the process and keeps the number of
    threads of the first run; a run whose ``threads`` option is another number (e.g. the package's
    one thread after some other code ran HiGHS with the default on a machine with several cores)
    ends at once with ``kError`` and model status ``kNotset``, having solved nothing.  Such a
    refusal would otherwise read as "no solution" to the caller, making the answer depend on
    what ran before in the process."""
    status = h.run()
    if status == highspy.HighsStatus.kError and h.getModelStatus() == _MS.kNotset:
        highspy.Highs.resetGlobalScheduler(True)
        status = h.run()
    return status


def clean(A: np.ndarray, b: np.ndarray, rel: float = _CLEAN_REL) -> tuple[np.ndarray, np.ndarray]:
    """Zero the entries of each row of ``[A b]`` below ``rel`` times the row's largest entry.

    Round-off left by forming ``Z`` or ``C`` (e.g. ``1e-17`` where the exact
    value is 0) would otherwise turn degenerate vertices into clusters of
    spurious ones.
    """
    A = np.array(A, dtype=float)
    b = np.array(b, dtype=float)
    big = np.maximum(np.abs(A).max(axis=1, initial=0.0), np.abs(b))
    A[np.abs(A) < rel * big[:, None]] = 0.0
    b[np.abs(b) < rel * big] = 0.0
    return A, b


class Polyhedron:
    """``{x >= 0 : A x = b}`` (rows made linearly independent and equilibrated first).

    Internally the polyhedron is ``{x' >= 0 : A' x' = b'}`` with unit rows and
    ``max |b'| = 1``, ``x = sigma x'``; every point handed out is in the caller's
    units, and Farkas vectors refer to ``(A', b')`` (attributes ``A``, ``b``).
    """

    def __init__(self, A: np.ndarray, b: np.ndarray, name: str = "X"):
        self.A_orig, self.b_orig = np.array(A, dtype=float), np.array(b, dtype=float)
        A, b = clean(A, b)
        self.name = name
        self.n = A.shape[1]
        self.A_full, self.b_full = A, b
        self.empty_rows: Farkas | None = None
        # equilibrate: unit rows (before the rank test, so that a row of small data is not taken for a
        # dependent one), and b scaled to max |b| = 1 (x = sigma x_internal), so HiGHS's absolute
        # tolerances mean the same thing for millimetres per second as for metres
        rn = np.linalg.norm(A, axis=1)
        rn[rn == 0] = 1.0
        A, b = self._independent_rows(A / rn[:, None], b / rn, rn)
        self._rn = rn[self._keep]
        self.sigma = float(np.abs(b).max(initial=0.0)) or 1.0
        self.A, self.b = A, b / self.sigma
        self.m = A.shape[0]
        self.scale = 1.0
        self.lps = 0
        self._fixed = np.zeros(self.n, dtype=bool)
        h = _new_highs()
        h.setOptionValue("presolve", "off")
        h.setOptionValue("solver", "simplex")
        h.setOptionValue("primal_feasibility_tolerance", 1e-10)
        h.setOptionValue("dual_feasibility_tolerance", 1e-10)
        self._last_infeasible: np.ndarray | None = None
        lp = highspy.HighsLp()
        lp.num_col_ = self.n
        lp.num_row_ = self.m
        lp.col_cost_ = np.zeros(self.n)
        lp.col_lower_ = np.zeros(self.n)
        lp.col_upper_ = np.full(self.n, _INF)
        lp.row_lower_ = self.b.copy()
        lp.row_upper_ = self.b.copy()
        csc = _csc(self.A)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = csc[0]
        lp.a_matrix_.index_ = csc[1]
        lp.a_matrix_.value_ = csc[2]
        h.passModel(lp)
        self.h = h

    def _independent_rows(self, A: np.ndarray, b: np.ndarray, rn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Drop dependent rows of the unit rows ``A`` (QR with column pivoting on A^T); an inconsistent
        dependent row means the polyhedron is empty, recorded in ``empty_rows`` (the caller's row
        ``k`` is ``rn_k`` times row ``k`` of ``A``)."""
        self._keep = np.arange(A.shape[0])
        if A.shape[0] == 0:
            return A, b
        _, R, piv = sla.qr(A.T, mode="economic", pivoting=True)
        d = np.abs(np.diag(R))
        tol = max(A.shape) * np.finfo(float).eps * max(d.max(initial=0.0), 1.0) * 1e3
        r = int((d > tol).sum())
        keep = np.sort(piv[:r])
        if r < A.shape[0]:
            # consistency of the dropped rows with the kept ones
            coef, *_ = np.linalg.lstsq(A[keep].T, A.T, rcond=None)
            resid = b - coef.T @ b[keep]
            bad = np.flatnonzero(np.abs(resid) > 1e-9 * max(1.0, np.abs(b).max()))
            if bad.size:
                i = bad[0]
                u = np.zeros(A.shape[0])
                u[i] = 1.0
                u[keep] = -coef[:, i]
                u /= rn  # on the caller's rows, whose b is rn * b
                ub = u @ (rn * b)
                u *= -np.sign(ub) if ub != 0 else 1.0
                self.empty_rows = self.certified(self._original(u, np.arange(A.shape[1]), reduced=False))
        self._keep = keep
        return A[keep], b[keep]

    def _original(self, u: np.ndarray, free: np.ndarray, reduced: bool = True) -> Farkas:
        """A Farkas vector of the internal (independent, equilibrated) rows, or of all rows
        (``reduced=False``), expressed on the rows of the caller's ``A``: ``A'^T u' = A^T u`` for
        ``u[keep] = u' / rn``, and ``b'^T u'`` has the sign of ``b^T u``."""
        if reduced:
            full = np.zeros(self.A_orig.shape[0])
            full[self._keep] = u / self._rn
            u = full
        Af = self.A_orig[:, free]
        return Farkas(u, free, float((Af.T @ u).min(initial=0.0)), float(self.b_orig @ u))

    def certified(self, f: Farkas) -> Farkas | None:
        """The independent, exact check of a Farkas vector against the caller's ``A``, ``b``
        (not the cleaned ones): the proving vector, or None."""
        return check_farkas(self.A_orig, self.b_orig, f)

    # ---------------------------------------------------------------- LP solves
    def _set_fixed(self, fixed: np.ndarray | None) -> None:
        fixed = np.zeros(self.n, dtype=bool) if fixed is None else fixed
        change = np.flatnonzero(fixed != self._fixed)
        if change.size:
            up = np.where(fixed[change], 0.0, _INF)
            self.h.changeColsBounds(change.size, change.astype(np.int32), np.zeros(change.size), up)
            self._fixed = fixed.copy()

    def minimize(
        self, c: np.ndarray | None = None, fixed: np.ndarray | None = None, exact: bool = True
    ) -> Vertex | None:
        """A vertex minimising ``c . x`` over the polyhedron (with ``x[fixed] = 0``); None if empty.

        The objective is bounded below whenever ``c >= 0`` (the bilinear method's case).
        With ``exact`` the vertex comes with a full basis and its values are
        recomputed from a fresh factorisation; otherwise HiGHS's point is returned
        as is (tolerance 1e-10) and ``basis`` is None (see :meth:`polish`).
        """
        self._last_infeasible = None
        if self.empty_rows is not None:
            return None
        self._set_fixed(fixed)
        c = np.zeros(self.n) if c is None else np.asarray(c, dtype=float)
        self.h.changeColsCost(self.n, np.arange(self.n, dtype=np.int32), c)
        run_highs(self.h)
        self.lps += 1
        st = self.h.getModelStatus()
        if st != _MS.kOptimal and st != _MS.kInfeasible:
            # a lost warm start or numerical trouble: retry once from scratch
            self.h.clearSolver()
            run_highs(self.h)
            self.lps += 1
            st = self.h.getModelStatus()
        if st == _MS.kInfeasible:
            self._last_infeasible = self._fixed.copy()
            return None
        if st != _MS.kOptimal:
            raise RuntimeError(f"HiGHS ended with {self.h.modelStatusToString(st)} on {self.name}")
        x = np.array(self.h.getSolution().col_value)
        if not exact:
            x[x <= 1e-12] = 0.0
            return Vertex(x * self.sigma, None)
        status = self.h.getBasis().col_status
        basic = np.array([i for i, s in enumerate(status) if s == highspy.HighsBasisStatus.kBasic], dtype=int)
        return self.vertex(x, basic)

    def polish(self, v: Vertex) -> Vertex:
        """``v`` with a full basis (its support, completed) and values recomputed from it."""
        if v.basis is not None:
            return v
        x = v.x / self.sigma
        return self.vertex(x, np.flatnonzero(x > 0))

    def strictly_positive(
        self, strict: list[int], fixed: np.ndarray | None = None, rel_tol: float = 1e-9
    ) -> np.ndarray | None:
        """A point of the face ``x[fixed] = 0`` with ``x_j > 0`` for every ``j`` in ``strict``, or None.

        Solves ``max t : A x = b, x >= 0, x[fixed] = 0, x_j >= t (j in strict), t <= scale``;
        the face has such a point iff ``t* > rel_tol * scale``.
        """
        if self.empty_rows is not None:
            return None
        n = self.n
        free = np.ones(n, dtype=bool) if fixed is None else ~fixed
        if not all(free[j] for j in strict):
            return None
        c = np.zeros(n + 1)
        c[-1] = -1.0
        A_eq = np.hstack([self.A, np.zeros((self.m, 1))])
        A_ub = np.zeros((len(strict), n + 1))
        for k, j in enumerate(strict):
            A_ub[k, j] = -1.0
            A_ub[k, -1] = 1.0
        bounds = [(0, None) if free[j] else (0, 0) for j in range(n)] + [(0, self.scale)]
        res = linprog(
            c,
            A_ub=A_ub if strict else None,
            b_ub=np.zeros(len(strict)) if strict else None,
            A_eq=A_eq,
            b_eq=self.b,
            bounds=bounds,
            method="highs",
        )
        self.lps += 1
        if res.status != 0 or -res.fun <= rel_tol * self.scale:
            return None
        return np.maximum(res.x[:n], 0.0) * self.sigma

    def singleton(self, fixed: np.ndarray | None = None) -> bool:
        """True when the (nonempty) face ``x[fixed] = 0`` is a single point: the free columns
        of ``A`` are linearly independent."""
        free = np.flatnonzero(~fixed) if fixed is not None else np.arange(self.n)
        if free.size == 0:
            return True
        return int(np.linalg.matrix_rank(self.A[:, free])) == free.size

    def vertex(self, x: np.ndarray, basic_hint: np.ndarray) -> Vertex:
        """Snap ``x`` to the vertex of a full basis containing ``basic_hint`` (completed if HiGHS
        left basic slacks) and recompute the basic values from a fresh factorisation."""
        basis = self._complete_basis(basic_hint, x)
        xb = np.linalg.solve(self.A[:, basis], self.b) if basis.size else np.zeros(0)
        out = np.zeros(self.n)
        out[basis] = np.where(np.abs(xb) <= 1e-12 * self.scale, 0.0, np.maximum(xb, 0.0))
        return Vertex(out * self.sigma, basis)

    def _complete_basis(self, hint: np.ndarray, x: np.ndarray) -> np.ndarray:
        """A basis (``m`` independent columns) containing the independent columns of ``hint``,
        completed greedily by the columns with the largest ``x`` (Gram-Schmidt on the fly)."""
        m = self.m
        if hint.size == m and m:
            d = np.abs(np.diag(np.linalg.qr(self.A[:, hint], mode="r")))
            if d.min() > 1e-12 * d.max():
                return np.sort(hint)
        hint_set = set(int(j) for j in hint)
        order = list(hint) + [int(j) for j in np.argsort(-x, kind="stable") if int(j) not in hint_set]
        Q = np.zeros((m, m))
        chosen: list[int] = []
        for j in order:
            a = self.A[:, j]
            na = np.linalg.norm(a)
            if na == 0:
                continue
            r = a - Q[:, : len(chosen)] @ (Q[:, : len(chosen)].T @ a)
            r -= Q[:, : len(chosen)] @ (Q[:, : len(chosen)].T @ r)  # re-orthogonalise
            nr = np.linalg.norm(r)
            if nr > 1e-9 * na:
                Q[:, len(chosen)] = r / nr
                chosen.append(j)
                if len(chosen) == m:
                    break
        return np.sort(np.array(chosen, dtype=int))

    # ---------------------------------------------------------------- emptiness proofs
    def farkas(self, fixed: np.ndarray | None = None) -> Farkas | None:
        """A checked Farkas vector proving emptiness (with ``x[fixed] = 0``), or None."""
        if self.empty_rows is not None:
            return self.empty_rows
        free = np.flatnonzero(~fixed) if fixed is not None else np.arange(self.n)
        A = self.A[:, free]
        fx = np.zeros(self.n, dtype=bool) if fixed is None else fixed
        if self._last_infeasible is not None and np.array_equal(self._last_infeasible, fx):
            # the dual ray of the infeasible LP just solved, if HiGHS kept one
            _, has_ray, ray = self.h.getDualRay()
            if has_ray:
                for u in (-np.asarray(ray), np.asarray(ray)):
                    f = self.certified(self._original(u, free))
                    if f is not None:
                        return f
        res = linprog(self.b, A_ub=-A.T, b_ub=np.zeros(free.size), bounds=(-1, 1), method="highs")
        self.lps += 1
        if res.status != 0 or res.fun >= -1e-9 * self.scale:
            return None
        return self.certified(self._original(res.x, free))

    # ---------------------------------------------------------------- adjacent vertices
    def adjacent(self, v: Vertex, max_bases: int = 16) -> list[Vertex]:
        """Extreme points adjacent to vertex ``v`` (distinct from it), by pivoting from its basis.

        Every nonbasic column not fixed at zero gives an edge direction; the
        ratio test (vectorised over all of them) gives the next vertex, or no
        vertex if the edge is unbounded.  At a degenerate vertex the zero-length
        pivots are followed breadth first (at most ``max_bases`` bases) so that
        edges leaving from other bases of the same vertex are found too.
        """
        v = self.polish(v)
        found: dict[bytes, Vertex] = {}
        seen = {tuple(v.basis)}
        queue = [v.basis]
        key0 = _key(v.x / self.sigma)
        eps = 1e-12 * self.scale
        while queue:
            basis = queue.pop(0)
            if basis.size == 0:
                break
            try:
                lu = sla.lu_factor(self.A[:, basis], check_finite=False)
            except (ValueError, np.linalg.LinAlgError):
                continue
            xb = np.maximum(sla.lu_solve(lu, self.b, check_finite=False), 0.0)
            isb = np.zeros(self.n, dtype=bool)
            isb[basis] = True
            nonbasic = np.flatnonzero(~isb & ~self._fixed)
            if nonbasic.size == 0:
                continue
            D = sla.lu_solve(lu, self.A[:, nonbasic], check_finite=False)
            pos = D > 1e-10 * max(1.0, float(np.abs(D).max()))
            with np.errstate(divide="ignore", invalid="ignore"):
                R = np.where(pos, xb[:, None] / np.where(pos, D, 1.0), np.inf)
            t = R.min(axis=0)
            leave = R.argmin(axis=0)
            for k in np.flatnonzero(np.isfinite(t)):
                j = nonbasic[k]
                nb = basis.copy()
                nb[leave[k]] = j
                nb = np.sort(nb)
                if t[k] <= eps:  # degenerate pivot: same point, another basis
                    if tuple(nb) not in seen and len(seen) < max_bases:
                        seen.add(tuple(nb))
                        queue.append(nb)
                    continue
                x = np.zeros(self.n)
                x[basis] = xb - t[k] * D[:, k]
                x[j] = t[k]
                x[x <= eps] = 0.0
                kx = _key(x)
                if kx != key0 and kx not in found:
                    found[kx] = Vertex(x * self.sigma, nb)
        return list(found.values())


def check_farkas(A: np.ndarray, b: np.ndarray, f: Farkas) -> Farkas | None:
    """The independent check that ``f`` proves ``{x >= 0 : A x = b, x[~free] = 0}`` empty:
    ``A[:, free]^T u >= 0`` and ``b^T u < 0`` *exactly* for the caller's floats (exact signs;
    failing that, ``u`` without round-off dust or recomputed on its support in rational arithmetic,
    :meth:`contactcp.linalg.farkas.FarkasSystem.prove`).  Returns the proving Farkas vector (with
    its rational form in ``exact`` when the floats alone do not prove it), or None: a vector that
    holds only up to a tolerance is no proof."""
    from contactcp.linalg.farkas import FarkasSystem

    Af = A[:, f.free]
    proof = FarkasSystem.polyhedron(Af, b).prove(f.u)
    if proof is None:
        return None
    v = proof.vector
    return Farkas(v, f.free, float((Af.T @ v).min(initial=0.0)), float(b @ v), proof.exact)


def _key(x: np.ndarray) -> bytes:
    return np.round(x, 9).tobytes()


def _csc(A: np.ndarray):
    import scipy.sparse as sp

    M = sp.csc_matrix(A)
    return M.indptr.astype(np.int32), M.indices.astype(np.int32), M.data.astype(float)

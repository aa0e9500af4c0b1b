"""The global frictional contact problem (FCLIB's ``fclib_global``, Siconos' GFC3D).

Given a mass (or iteration) matrix ``M`` (``n x n``, nonsingular), the contact operator ``H``
(``n x d n_c``), ``f`` and ``w``, find velocities ``v`` and reactions ``r`` with

    ``M v = H r + f``,   ``u = H^T v + w``,   ``K_i ∋ r_i ⟂ u_i + mu_i ||u_T,i|| e_N ∈ K_i^*``

(Acary, Brémond & Huber 2018, eq. (3); Coulomb's law in De Saxcé's form as for the local problem).
Eliminating ``v = M^{-1}(H r + f)`` gives the local problem ``u = W r + q`` with
``W = H^T M^{-1} H`` and ``q = w + H^T M^{-1} f`` (:meth:`GlobalFrictionContactProblem.local`).

The unknowns are stacked ``x = (v, r)`` (:meth:`~GlobalFrictionContactProblem.split`); the partner
vector is ``u``.  The residual is the larger of two relative measures, each an upper bound of its
exact value (rounding bounds added, never subtracted):

* equilibrium: ``max_i |M v - H r - f|_i / s_i`` with the row scale
  ``s_i = (|M| |v| + |H| |r| + |f|)_i`` (a row with ``s_i = 0`` must hold exactly);
* Coulomb's law: the natural map of ``(r, u)`` in 2-norm divided by ``||q||_2`` (by 1 when ``q = 0``),
  the local problem's measure (Siconos' ``fc3d_compute_error``), so the global and local forms of
  one problem are measured alike.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from contactcp._validate import integer, real_array, sparse_real, vector
from contactcp.errors import InvalidProblemError
from contactcp.linalg.blockinv import BlockSolver
from contactcp.problems._base import Problem, require
from contactcp.problems._coulomb_global import columns_to_csr, dense_to_csr, global_residual, transpose_matvec
from contactcp.problems.friction import (
    FrictionContactProblem,
    friction_coefficients,
)
from contactcp.result import Residual

__all__ = ["GlobalFrictionContactProblem"]

#: the solvers' local form has a dense ``W`` when ``H`` (``n_v x d n_c``) has at most this many entries
DENSE_LOCAL_UP_TO = 20_000


def _sparse(A: Any, field: str) -> sp.csr_matrix:
    """``A`` as a checked CSR matrix with read-only values.  The last read-only dense array converted
    is kept (a copy) with its CSR form, returned again for a read-only array equal to it bit for bit:
    a time stepper poses the same mass matrix of free bodies (kept read-only) at every step, whose
    conversion was 110 of the 320 us a 25-box step's problem took to build (the comparison: 10)."""
    global _LAST_DENSE
    A_in = A
    if type(A) is np.ndarray and not A.flags.writeable and _LAST_DENSE[0] is not None:
        kept = _LAST_DENSE[0]
        if kept.shape == A.shape and kept.dtype == A.dtype and np.array_equal(kept, A):
            return _LAST_DENSE[1]
    if sp.issparse(A):
        A = sparse_real(A, field)
        A.eliminate_zeros()
    else:
        arr = np.ascontiguousarray(A) if type(A) is np.ndarray and A.dtype == np.float64 else real_array(A, field)
        require(arr.ndim == 2, field, f"must be a matrix, got {arr.ndim} dimension(s)")
        if arr.shape[0] == 0 or arr.shape[1] == 0:  # the conversion's index arithmetic wants entries
            A = sp.csr_matrix(arr)
        else:
            indptr, indices, data, finite = dense_to_csr(arr)
            require(finite, field, "contains NaN or inf")
            if max(data.size, arr.shape[1]) < 2**31:  # scipy's own index type: half the constructor's time
                indptr, indices = indptr.astype(np.int32), indices.astype(np.int32)
            A = sp.csr_matrix((data, indices, indptr), shape=arr.shape)
            if arr is A_in and not arr.flags.writeable:
                _LAST_DENSE = (arr.copy(), A)
    A.data.setflags(write=False)
    return A


def _row_most(M: sp.csr_matrix) -> int:
    """The most entries in a row of ``M`` (kept with the last matrix asked about: a time stepper's
    mass matrix is the same object step after step)."""
    global _LAST_ROW_MOST
    if _LAST_ROW_MOST[0] is not M:
        _LAST_ROW_MOST = (M, int(np.diff(M.indptr).max(initial=0)))
    return _LAST_ROW_MOST[1]


_LAST_ROW_MOST: tuple = (None, 0)


def global_measure(M: tuple, H: tuple, x, f, w, q, mu, d: int, mu_max: float, terms: tuple):
    """``(Residual, u)``: the certified measure of ``x = (v, r)`` on a global problem's arrays (``M``,
    ``H`` as CSR ``(indptr, indices, data)``; ``terms`` the rounding bounds' term counts), by
    :func:`~contactcp.problems._coulomb_global.global_residual`; an infinite residual and ``u``
    None when ``x`` is not finite or a product overflowed.  The problem's own measure
    (:meth:`GlobalFrictionContactProblem.residual`) and the time stepper's problems on arrays
    (:class:`~contactcp.solvers.cone.newton_global_direct.Prepared`) both measure with it."""
    finite, value, nat, cone, dual, comp, eq, scale, u = global_residual(*M, *H, x, f, w, q, mu, d, mu_max, *terms)
    if not finite:
        inf = math.inf
        return Residual(inf, inf, inf, inf, inf, inf, 1.0), None
    return Residual(value, nat, cone, dual, comp, eq, scale), u


#: no shift (:meth:`GlobalFrictionContactProblem._derived`)
_NO_SHIFT = np.zeros(0)

#: (a copy of the last read-only dense array :func:`_sparse` converted, its CSR form)
_LAST_DENSE: tuple = (None, None)


class GlobalFrictionContactProblem(Problem):
    """Find ``(v, r)`` with ``M v = H r + f``, ``u = H^T v + w`` and Coulomb's law at every contact.

    Parameters
    ----------
    M : (n, n) sparse matrix or array, nonsingular (checked block by block)
    H : (n, d n_c) sparse matrix or array
    f : (n,) vector
    w : (d n_c,) vector
    mu : (n_c,) friction coefficients, >= 0 (a scalar is broadcast)
    dim : 3 or 2
    """

    kind = "GlobalFrictionContact"

    def __init__(self, M: Any, H: Any, f: Any, w: Any, mu: Any, dim: int = 3):
        dim = integer(dim, "dim", choices=(2, 3))
        M = _sparse(M, "M")
        H = _sparse(H, "H")
        n = M.shape[0]
        require(M.shape == (n, n), "M", f"must be square, got shape {M.shape}")
        require(H.shape[0] == n, "H", f"has {H.shape[0]} rows, M has {n}")
        m = H.shape[1]
        require(m >= dim and m % dim == 0, "H", f"has {m} columns, not a positive multiple of dim = {dim}")
        n_c = m // dim
        mu_arr = friction_coefficients(mu, n_c)
        self._set(M, H, vector(f, "f", n), vector(w, "w", m), mu_arr, dim)

    @classmethod
    def _derived(
        cls, M: Any, H: np.ndarray, f: np.ndarray, w: np.ndarray, mu: np.ndarray, dim: int, spread: int = 1,
        cols: np.ndarray | None = None, shift: np.ndarray | None = None, solver: Any = None,
    ):  # fmt: skip
        """The problem of data the caller computed and checked (the time stepper's: its mass matrix,
        a dense contact operator ``H``, finite vectors ``f`` and ``w`` of the right lengths, its
        contacts' checked ``mu``), with column ``cols[j]`` of ``H`` (all columns when None) as column
        ``spread j`` and zero columns between, and ``H[:, cols]^T shift`` added to ``w``'s rows
        ``spread j`` when ``shift`` is given (the stepper's ``q = H^T v_free + w``)
        (:func:`~contactcp.problems._coulomb_global.columns_to_csr`): only ``H``'s finiteness is
        checked, else the constructor runs (and names the field).  A 25-box pile's step problem
        (150 velocities, 417 columns; ``timeit``) took 150 us to build by the checked constructor,
        100 this way.  ``solver``: the caller's :class:`~contactcp.linalg.blockinv.BlockSolver` of
        ``M`` (the stepper's, :func:`~contactcp.simulate.stepping.mass.mass_factor`), whose CSR form
        and factors are taken when its values are finite (else ``M`` is converted and checked: 35 us
        a problem on the pile, the comparison with the last matrix and its solver's key)."""
        n = H.shape[0]
        cols = np.arange(H.shape[1]) if cols is None else cols
        m = cols.shape[0]
        Hp, Hi, Hx, finite, row_most, column_most, Htv = columns_to_csr(
            H, cols, spread, _NO_SHIFT if shift is None else shift
        )
        if shift is not None:
            w = w.copy()
            w[::spread] += Htv
        if not finite:
            spread_H = np.zeros((n, spread * m))
            spread_H[:, ::spread] = H[:, cols]
            return cls(M, spread_H, f, w, mu, dim)
        index = np.int32 if max(Hx.size, spread * m) < 2**31 else np.int64
        Hs = sp.csr_matrix((Hx, Hi.astype(index), Hp.astype(index)), shape=(n, spread * m))
        Hs.data.setflags(write=False)
        self = cls.__new__(cls)
        if getattr(solver, "finite", False):
            Mc = solver.csr
        else:
            Mc, solver = _sparse(M, "M"), None
        f, w = np.array(f, dtype=float), np.array(w, dtype=float)
        self._set(Mc, Hs, f, w, mu, dim, (row_most, column_most), solver)
        return self

    def _set(
        self,
        M: sp.csr_matrix,
        H: sp.csr_matrix,
        f: np.ndarray,
        w: np.ndarray,
        mu: np.ndarray,
        dim: int,
        most=None,
        solver: BlockSolver | None = None,
    ):
        """The attributes of checked data (``M``, ``H`` with read-only values; ``f``, ``w``, ``mu``
        owned here), frozen.  ``most``: the most entries in a row and in a column of ``H``, when
        known; ``solver``: ``M``'s block solver, when the caller has it."""
        m = H.shape[1]
        for a in (f, w, mu):
            a.setflags(write=False)
        self.M = M
        self.H = H
        self.f = f
        self.w = w
        self.mu = mu
        self.dim = int(dim)
        self.solver = solver if solver is not None else BlockSolver.of(M, "M")
        # the rounding bounds' term counts: an equilibrium row has at most row_terms products, a
        # contact velocity u_j at most col_terms (fixed by the data: computed once)
        if most is None:
            most = (int(np.diff(H.indptr).max(initial=0)), int(np.bincount(H.indices, minlength=m).max(initial=0)))
        row_terms = max(_row_most(M), 1) + max(int(most[0]), 1) + 2
        col_terms = int(most[1])
        self._terms = (row_terms, col_terms + 2)
        self._q: np.ndarray | None = None
        self._local: FrictionContactProblem | None = None
        self._local_dense: FrictionContactProblem | None = None
        self._mu_max = float(mu.max(initial=0.0))
        self._freeze()

    # ------------------------------------------------------------------ sizes and views
    @property
    def n_v(self) -> int:
        """Number of velocity unknowns (rows of ``M``)."""
        return self.M.shape[0]

    @property
    def n_c(self) -> int:
        return self.w.shape[0] // self.dim

    @property
    def size(self) -> int:
        return self.n_v + self.w.shape[0]

    def split(self, x: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(v, r)`` from the stacked unknowns ``x``."""
        x = self._point(x, "x")
        return x[: self.n_v], x[self.n_v :]

    def velocity(self, r: Any) -> np.ndarray:
        """``v = M^{-1} (H r + f)`` (equilibrium for given reactions)."""
        r = vector(r, "r", self.w.shape[0])
        return self.solver.solve(self.H @ r + self.f)

    @property
    def q(self) -> np.ndarray:
        """The local problem's ``q = w + H^T M^{-1} f``."""
        if self._q is None:
            H = self.H
            object.__setattr__(
                self, "_q", transpose_matvec(H.indptr, H.indices, H.data, self.solver.solve(self.f), self.w)
            )
        return self._q

    def local_for_solving(self) -> FrictionContactProblem:
        """The local problem the solvers run on (kept): :meth:`local`, but with ``W`` dense when ``H`` has
        at most :data:`DENSE_LOCAL_UP_TO` entries (a few contacts, where scipy's sparse products cost
        more than the arithmetic: on FCLIB's one-contact GFC3D_Example0, solved on fresh problem objects
        in a loop on the development machine, forming the sparse local form took 0.5 of the 0.85 ms
        of a solve, and the whole solve with the dense form 0.26 ms)."""
        if self.n_v * self.w.shape[0] > DENSE_LOCAL_UP_TO:
            return self.local()
        if self._local_dense is None:
            H = self.H.toarray()
            W = H.T @ self.solver.solve(H)
            object.__setattr__(self, "_local_dense", FrictionContactProblem._derived(W, self.q, self.mu, self.dim))
        return self._local_dense

    def local(self) -> FrictionContactProblem:
        """The local problem ``u = W r + q``, ``W = H^T M^{-1} H`` (sparse, formed block by block; computed
        once and kept)."""
        if self._local is None:
            W = sp.csr_matrix(self.H.T @ self.solver.solve_sparse(self.H))
            object.__setattr__(self, "_local", FrictionContactProblem(W, self.q, self.mu, self.dim))
        return self._local

    # ------------------------------------------------------------------ residual
    def residual(self, x: Any) -> Residual:
        """The residual of stacked unknowns ``x = (v, r)`` (see the module's docstring)."""
        return self._certify(self._point(x, "x"), None)[0]

    def _certify(self, x: np.ndarray, w: np.ndarray | None) -> tuple[Residual, np.ndarray]:
        x = np.asarray(x, dtype=float).reshape(-1)
        if x.shape != (self.size,):
            raise InvalidProblemError("x", f"solver returned length {x.size}, expected {self.size}")
        M, H = self.M, self.H
        residual, u = global_measure(
            (M.indptr, M.indices, M.data), (H.indptr, H.indices, H.data), x, self.f, self.w, self.q,
            self.mu, self.dim, self._mu_max, self._terms,
        )  # fmt: skip
        if u is None and np.all(np.isfinite(x)):  # a product overflowed
            with np.errstate(over="ignore", invalid="ignore"):
                return residual, self.H.T @ x[: self.n_v] + self.w
        return residual, (np.full(self.w.shape[0], np.nan) if u is None else u)

    def __repr__(self) -> str:
        return f"GlobalFrictionContactProblem(n_v={self.n_v}, n_c={self.n_c}, dim={self.dim})"

"""The local frictional contact problem with Coulomb's cone (FC3D / FC2D).

Given ``W`` (square, size ``d n_c``), ``q`` and friction coefficients ``mu``,
find reactions ``r`` and relative velocities (or accelerations) ``u = W r + q``
such that, for every contact ``i`` (components ordered normal first, then the
``d - 1`` tangential ones),

    ``K_i = {r : ||r_T|| <= mu_i r_N}  ∋  r_i  ⟂  u_i + mu_i ||u_T,i|| e_N  ∈  K_i^*``

(De Saxcé's bipotential form of Coulomb's law; with the acceleration map
``a = A c + b`` of Buffo–Maciel eqs. (21)–(24) it is their quadratic law
(15)–(20) for rolling contacts).  This is the problem stored in FCLIB files
(``W, q, mu``) and solved by Siconos' ``fc3d`` solvers.

The residual is the one of the friction-contact literature (Siconos'
``fc3d_compute_error``): the 2-norm over contacts of the natural map
``r_i - P_{K_i}(r_i - u_i - mu_i ||u_T,i|| e_N)``, divided by ``||q||``
(by 1 when ``q = 0``), plus a bound of what rounding can change in it (so it
is an upper bound of the exact value), evaluated on the data scaled by a power
of two into range (the problem is positively homogeneous in ``(r, q)``), so
that huge or tiny data neither overflow nor underflow into a false zero.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from contactcp._validate import coulomb_data, integer, matrix, real_array, sparse_real, vector
from contactcp.errors import InvalidProblemError
from contactcp.problems._base import Problem, require
from contactcp.problems._coulomb import coulomb_residual
from contactcp.problems._exact_coulomb import exact_measure
from contactcp.result import Residual

__all__ = ["FrictionContactProblem", "project_cones", "cone_violation"]

_NO_INT = np.zeros(0, dtype=np.int32)
_NO_FLOAT = np.zeros(0)
_NO_DENSE = np.zeros((0, 0))


def project_cones(x: np.ndarray, mu: np.ndarray, d: int) -> np.ndarray:
    """Project each ``d``-block of ``x`` on ``{||x_T|| <= mu x_N}`` (vectorised)."""
    X = x.reshape(-1, d)
    xn = X[:, 0]
    xt = X[:, 1:]
    nt = np.sqrt(np.einsum("ij,ij->i", xt, xt))
    out = np.empty_like(X)
    inside = (xn >= 0) & (nt <= mu * xn)
    polar = mu * nt <= -xn
    mid = ~(inside | polar)
    out[inside] = X[inside]
    out[polar] = 0.0
    if mid.any():
        m = mu[mid]
        pn = (m * nt[mid] + xn[mid]) / (1.0 + m * m)
        out[mid, 0] = pn
        out[mid, 1:] = (m * pn / nt[mid])[:, None] * xt[mid]
    return out.reshape(-1)


def _ldexp(x: float, k: int) -> float:
    """``x * 2**k`` as a float, ``inf`` when it overflows (``math.ldexp`` raises instead)."""
    try:
        return math.ldexp(x, k)
    except OverflowError:
        return math.copysign(math.inf, x)


def _plain(W: Any, q: Any, mu: Any, dim: Any) -> bool:
    """``W``, ``q``, ``mu`` float64 arrays of the shapes of a problem of dimension ``dim`` (2 or 3, an
    int): what a benchmark or a time stepper passes; the values are checked next."""
    if not (type(W) is np.ndarray and type(q) is np.ndarray and type(mu) is np.ndarray and type(dim) is int):
        return False
    if not (W.dtype == np.float64 and q.dtype == np.float64 and mu.dtype == np.float64 and dim in (2, 3)):
        return False
    m = q.shape[0] if q.ndim == 1 else -1
    return W.shape == (m, m) and m >= dim and m % dim == 0 and mu.shape == (m // dim,)


def friction_coefficients(mu: Any, n_c: int) -> np.ndarray:
    """``mu`` checked: a number (broadcast) or ``n_c`` finite numbers, each ``>= 0`` (the field named on error)."""
    mu_arr = real_array(mu, "mu")
    if mu_arr.ndim == 0:
        mu_arr = np.full(n_c, float(mu_arr))
    mu_arr = vector(mu_arr, "mu", n_c)
    if (mu_arr < 0).any():
        i = int(np.argmax(mu_arr < 0))
        raise InvalidProblemError(f"mu[{i}]", f"friction coefficient must be >= 0, got {mu_arr[i]}")
    return mu_arr


def cone_violation(x: np.ndarray, mu: np.ndarray, d: int) -> float:
    """Largest violation of ``||x_T|| <= mu x_N`` and ``x_N >= 0`` over the blocks."""
    X = x.reshape(-1, d)
    nt = np.sqrt(np.einsum("ij,ij->i", X[:, 1:], X[:, 1:]))
    return float(max(0.0, np.max(nt - mu * X[:, 0], initial=0.0), np.max(-X[:, 0], initial=0.0)))


def desaxce(u: np.ndarray, mu: np.ndarray, d: int) -> np.ndarray:
    """``u_i + mu_i ||u_T,i|| e_N`` for every contact (the modified velocity)."""
    U = u.reshape(-1, d).copy()
    U[:, 0] += mu * np.sqrt(np.einsum("ij,ij->i", U[:, 1:], U[:, 1:]))
    return U.reshape(-1)


class FrictionContactProblem(Problem):
    """Find ``r`` in the Coulomb cones with ``u = W r + q`` satisfying Coulomb's law.

    Parameters
    ----------
    W : (d n_c, d n_c) array or scipy sparse matrix (the Delassus operator)
    q : (d n_c,) vector
    mu : (n_c,) friction coefficients, >= 0 (a scalar is broadcast)
    dim : 3 (spatial: normal, two tangents) or 2 (planar: normal, one tangent)
    """

    kind = "FrictionContact"

    def __init__(self, W: Any, q: Any, mu: Any, dim: int = 3):
        if _plain(W, q, mu, dim):  # float64 arrays of matching shapes: their values in one compiled call
            W, q, mu = W.copy(), q.copy(), mu.copy()
            ok, mu_max, q_max = coulomb_data(W, q, mu)
            if ok:
                self._set(W, q, mu, dim, mu_max, q_max)
                return
        dim = integer(dim, "dim", choices=(2, 3))
        if sp.issparse(W):
            require(W.ndim == 2 and W.shape[0] == W.shape[1], "W", f"must be square, got shape {W.shape}")
            W = sparse_real(W, "W")
            W.data.setflags(write=False)
        else:
            W = matrix(W, "W", square=True)
        m = W.shape[0]
        require(m >= dim and m % dim == 0, "W", f"size {m} is not a positive multiple of dim = {dim}")
        n_c = m // dim
        mu_arr = friction_coefficients(mu, n_c)
        self.W = W
        self.q = vector(q, "q", m)
        self.mu = mu_arr
        self.dim = int(dim)
        self._mu_max = float(mu_arr.max(initial=0.0))
        self._sparse = sp.issparse(W)
        #: the binary exponent of max |q| (0 for q = 0): the solvers' scaling (solvers/cone/scale.py)
        self._q_exponent = math.frexp(float(np.abs(self.q).max(initial=0.0)))[1]
        self._freeze()

    @classmethod
    def _derived(cls, W: np.ndarray, q: np.ndarray, mu: np.ndarray, dim: int) -> FrictionContactProblem:
        """The problem of a dense ``W`` and ``q`` computed from a checked problem's data (the global
        problem's local form) with its checked ``mu``: only the finiteness of ``W`` and ``q`` is checked
        (a product can overflow; the constructor then names the field), not shapes or types (the
        validation was 15 of the 40 microseconds a one-contact global problem spent forming it)."""
        W = np.ascontiguousarray(W, dtype=np.float64)
        q = np.ascontiguousarray(q, dtype=np.float64)
        ok, mu_max, q_max = coulomb_data(W, q, mu)
        if not ok:
            return cls(W, q, mu, dim)
        self = cls.__new__(cls)
        self._set(W, q, mu, dim, mu_max, q_max)
        return self

    def _set(self, W: np.ndarray, q: np.ndarray, mu: np.ndarray, dim: int, mu_max: float, q_max: float) -> None:
        """The attributes of checked dense data (C-contiguous float64, owned here, with the maxima of
        ``mu`` and ``|q|`` from :func:`~contactcp._validate.coulomb_data`), frozen."""
        for a in (W, q, mu):
            a.setflags(write=False)
        for name, value in (("W", W), ("q", q), ("mu", mu), ("dim", int(dim)), ("_sparse", False)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_mu_max", float(mu_max))
        object.__setattr__(self, "_q_exponent", math.frexp(float(q_max))[1])
        self._freeze()

    @property
    def n_c(self) -> int:
        return self.q.shape[0] // self.dim

    @property
    def size(self) -> int:
        return self.q.shape[0]

    @property
    def sparse(self) -> bool:
        return self._sparse

    def u(self, r: Any) -> np.ndarray:
        """``W r + q``."""
        return self.W @ self._point(r, "r") + self.q

    def natural_map(self, r: np.ndarray, u: np.ndarray) -> np.ndarray:
        """``r - P_K(r - u - mu ||u_T|| e_N)`` (zero exactly at solutions)."""
        return r - project_cones(r - desaxce(u, self.mu, self.dim), self.mu, self.dim)

    def residual(self, r: Any) -> Residual:
        """Siconos' error measure: ``||natural map||_2 / ||q||_2`` (``/1`` if q = 0).

        The value is an upper bound: the natural map evaluated in floating point plus a bound of what
        rounding can change in it, which grows with ``||r||`` and with the terms of ``W r``.  When
        that allowance alone puts a point above the tolerance, :func:`contactcp.solve` evaluates the
        measure again with ``u = W r + q`` exact and the map in 60-digit decimals (:meth:`_refine`)."""
        return self._certify(self._point(r, "r"), None)[0]

    def _certify(self, x: np.ndarray, w: np.ndarray | None) -> tuple[Residual, np.ndarray]:
        r = np.asarray(x, dtype=float).reshape(-1)
        if r.shape != (self.size,):
            raise InvalidProblemError("r", f"solver returned length {r.size}, expected {self.size}")
        # the problem is positively homogeneous: (r, q) -> (2^-k r, 2^-k q) scales u and the natural map
        # by 2^-k exactly, so the measure is evaluated on data scaled into range (no overflow of the
        # norms, of u or of |u_T| for huge data; no underflow for tiny data); one compiled call
        W = self.W
        if self._sparse:
            storage = (W.indptr, W.indices, W.data, _NO_DENSE, True)
        else:
            storage = (_NO_INT, _NO_INT, _NO_FLOAT, W, False)
        return self._measured(coulomb_residual(*storage, r, self.q, self.mu, self.dim, self._mu_max))

    @staticmethod
    def _measured(measure: tuple) -> tuple[Residual, np.ndarray]:
        """``(Residual, u)`` from :func:`~._coulomb.coulomb_residual`'s output."""
        finite, value, nat, cone, dual, comp, scale, u = measure
        return Residual(value, nat, cone, dual, comp, 0.0, scale), u

    def _refine(self, x: np.ndarray, residual: Residual, tol: float) -> Residual:
        """``residual`` with its value evaluated exactly (:func:`~._exact_coulomb.exact_measure`) when
        its rounding allowance, not the natural map itself, puts it above ``tol``.

        The float value is ``(nat + slack) / ||q||`` with ``slack`` a bound of what rounding changes in
        the natural map ``nat``, so the exact map lies in ``[nat - slack, nat + slack]``: only when
        ``(nat - slack) / ||q|| = 2 nat / ||q|| - value <= tol`` can the exact evaluation certify the
        point.  Otherwise it is not run (it costs about 0.2 ms per unknown; a point of NSGS at
        1.8 tol on FCLIB's Kapla tower, 1710 unknowns, had cost 0.3 s for a known refusal)."""
        if not (residual.value > tol and residual.scale > 0):
            return residual
        if not 2.0 * (residual.natural / residual.scale) - residual.value <= tol:
            return residual
        r = np.asarray(x, dtype=float).reshape(-1)
        value = exact_measure(self.W, self.q, self.mu, self.dim, r)
        return residual if value is None or not value < residual.value else residual._replace(value=value)

    def __repr__(self) -> str:
        return f"FrictionContactProblem(n_c={self.n_c}, dim={self.dim}, {'sparse' if self.sparse else 'dense'})"


def _dual_cone_violation(uhat: np.ndarray, mu: np.ndarray, d: int) -> float:
    """Violation of ``uhat_i in K_i^* = {mu ||u_T|| <= u_N}`` (for mu = 0: ``u_N >= 0``)."""
    U = uhat.reshape(-1, d)
    nt = np.sqrt(np.einsum("ij,ij->i", U[:, 1:], U[:, 1:]))
    return float(max(0.0, np.max(mu * nt - U[:, 0], initial=0.0)))

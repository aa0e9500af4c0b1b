"""Linear complementarity problems: standard, mixed and box-constrained.

Notation follows Cottle, Pang & Stone, *The Linear Complementarity Problem*
(1992), and, for the mixed form, Buffo & Maciel (2006) eq. (2).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..errors import InvalidProblemError
from ..result import Certificate, Residual
from .._validate import finite_pair, index_mask, matrix, vector
from ._exact import exact_farkas
from ._base import Problem, data_scale, linear_residual, require, affine_residual

__all__ = ["LCP", "MixedLCP", "BoxLCP", "farkas_check"]


@functools.lru_cache(maxsize=64)
def _no_free(n: int) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    mask.setflags(write=False)
    return mask


class _Linear(Problem):
    """Shared parts of the problems defined by ``w = M z + q``."""

    M: np.ndarray
    q: np.ndarray

    @property
    def n(self) -> int:
        return self.M.shape[0]

    @property
    def size(self) -> int:
        return self.n

    def w(self, z: Any) -> np.ndarray:
        """``M z + q``."""
        return self.M @ self._point(z, "z") + self.q

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={self.n})"


class LCP(_Linear):
    """``LCP(q, M)``: find ``z >= 0`` with ``w = M z + q >= 0`` and ``z . w = 0``.

    Parameters
    ----------
    M : (n, n) array_like, finite
    q : (n,) array_like, finite
    """

    kind = "LCP"

    def __init__(self, M: Any, q: Any):
        if (type(M) is np.ndarray and type(q) is np.ndarray and M.dtype == np.float64 and q.dtype == np.float64
                and M.ndim == 2 and q.ndim == 1 and M.shape[0] == M.shape[1] == q.shape[0] >= 1):
            # fast path for the common call (float64 arrays of matching shapes): one
            # compiled finiteness check; anything unusual takes the general path below
            M, q = M.copy(), q.copy()
            if finite_pair(M, q):
                M.setflags(write=False)
                q.setflags(write=False)
                setattr_ = object.__setattr__
                setattr_(self, "M", M)
                setattr_(self, "q", q)
                setattr_(self, "_free", _no_free(q.shape[0]))
                setattr_(self, "_frozen", True)
                return
        M = matrix(M, "M", square=True)
        n = M.shape[0]
        if n < 1:
            raise InvalidProblemError("M", "must have at least one row")
        setattr_ = object.__setattr__
        setattr_(self, "M", M)
        setattr_(self, "q", vector(q, "q", n))
        setattr_(self, "_free", _no_free(n))
        setattr_(self, "_frozen", True)

    def residual(self, z: Any) -> Residual:
        """Scaled natural-map residual ``||min(z, M z + q)||_inf / scale``."""
        return linear_residual(self.M, self.q, self._point(z, "z"), self._free)[0]

    def check_certificate(self, y: Any, tol: float = 1e-9) -> tuple[bool, dict[str, float]]:
        """Check a Farkas vector: ``y >= 0``, ``M^T y <= 0``, ``q^T y < 0``."""
        return farkas_check(self.M, self.q, y, tol)

    def make_certificate(self, y: Any, tol: float = 1e-9, source: str = "") -> Certificate:
        ok, checks, y = _farkas(self.M, self.q, y, tol)
        desc = ("y >= 0 with M^T y <= 0 and q^T y < 0, so no z >= 0 has M z + q >= 0 "
                "(Farkas' lemma)")
        bound = checks.get("norm1_bound", np.inf)
        if ok and checks.get("rational"):
            desc += ("; proved in rational arithmetic: y recomputed on its support so that M^T y = 0 exactly "
                     "where it vanishes, then every sign checked exactly (the vector shown is its float value)")
        elif ok:
            desc += "; the signs of M^T y and q^T y were computed exactly"
        elif np.isfinite(bound) and checks.get("qTy", 0.0) < 0:
            desc += (f"; M^T y <= 0 holds only to {checks['MTy_max']:.1e} (relative), which shows only "
                     f"that no solution has ||z||_1 < {bound:.3e}: not a proof")
        if source:
            desc += f"; {source}"
        return Certificate(kind="farkas", vector=y, description=desc, checks=checks, verified=ok)


def farkas_check(M: np.ndarray, q: np.ndarray, y: Any, tol: float) -> tuple[bool, dict[str, float]]:
    """Check that ``y`` proves ``{z >= 0 : M z + q >= 0}`` empty; see :func:`_farkas`."""
    ok, checks, _ = _farkas(M, q, y, tol)
    return ok, checks


def _farkas(M: np.ndarray, q: np.ndarray, y: Any, tol: float) -> tuple[bool, dict[str, float], np.ndarray]:
    """Check that ``y`` proves ``{z >= 0 : M z + q >= 0}`` empty (Farkas' lemma), exactly.

    ``y`` is clipped at zero (a negative part larger than ``tol`` relative
    fails the check).  The proof is accepted only when ``M^T y <= 0`` and
    ``q^T y < 0`` hold *exactly* for the floats given (signs computed exactly,
    :mod:`contactcp.problems._exact`), for ``y`` itself, for ``y`` without its
    round-off dust, or for ``y`` recomputed on its support in rational
    arithmetic (supports up to 60).  A vector with ``M^T y <= delta`` only
    approximately proves just ``||z||_1 >= -q^T y / delta`` for every
    solution, which is no proof of infeasibility (the floats may have a
    solution of that size): ``checks["norm1_bound"]`` reports the bound and
    the check fails.  Returns ``(verified, checks, the vector the proof is
    about)``.
    """
    y = np.asarray(y, dtype=float).reshape(-1)
    if y.shape != q.shape or not np.all(np.isfinite(y)):
        return False, {"shape_or_nan": 1.0}, np.zeros(q.shape)
    ymax = max(float(np.abs(y).max()), np.finfo(float).tiny)
    neg = float(max(0.0, -y.min())) / ymax
    y = np.maximum(y, 0.0)
    if y.sum() <= 0:
        return False, {"y_negative": neg, "y_sum": 0.0}, y
    y = y * 2.0 ** -np.floor(np.log2(y.max()))          # a power of two: exact, keeps products in range
    proof = exact_farkas(M, q, y, signed=True)
    yc, kind = (y, None) if proof is None else proof
    s = float(yc.sum())
    MTy = M.T @ yc
    delta = max(0.0, float(MTy.max(initial=0.0))) / s
    gamma = -float(q @ yc) / s
    mscale = max(1.0, float(np.abs(M).max()))
    qscale = max(1.0, float(np.abs(q).max()))
    bound = np.inf if delta == 0 else gamma / delta
    checks = {"y_negative": neg, "MTy_max": delta / mscale, "qTy": -gamma / qscale,
              "norm1_bound": float(bound), "exact": float(proof is not None), "rational": float(kind == "rational")}
    return bool(proof is not None and neg <= tol), checks, yc


class MixedLCP(_Linear):
    """Mixed LCP: ``w = M x + q``; ``w_i = 0`` for free ``i``; ``0 <= x_i ⟂ w_i >= 0`` otherwise.

    This is the linear case of Buffo–Maciel eq. (2): the complementarity
    variables ``u = x[~free]`` with slacks ``z = w[~free]`` and the free
    variables ``v = x[free]`` with equations ``G = w[free] = 0``.

    Parameters
    ----------
    M : (n, n) array_like
    q : (n,) array_like
    free : boolean mask of length n, or 0-based indices of the free variables
    """

    kind = "MixedLCP"

    def __init__(self, M: Any, q: Any, free: Any):
        self.M = matrix(M, "M", square=True)
        self.q = vector(q, "q", self.M.shape[0])
        self.free = index_mask(free, "free", self.M.shape[0])
        self._free = self.free
        self._freeze()

    @classmethod
    def from_blocks(cls, A: Any, B: Any, C: Any, D: Any, a: Any, b: Any) -> "MixedLCP":
        """Build from ``F(u, v) = A u + B v + a`` (complementarity) and ``G(u, v) = C u + D v + b = 0``.

        The unknowns are ordered ``x = (u, v)``.
        """
        A = matrix(A, "A", square=True)
        p = A.shape[0]
        D = matrix(D, "D", square=True)
        m = D.shape[0]
        B = matrix(B, "B", (p, m))
        C = matrix(C, "C", (m, p))
        a = vector(a, "a", p)
        b = vector(b, "b", m)
        M = np.block([[A, B], [C, D]])
        return cls(M, np.concatenate([a, b]), np.arange(p, p + m))

    def residual(self, x: Any) -> Residual:
        """Natural-map residual of the complementarity rows plus ``||w_free||_inf``."""
        return linear_residual(self.M, self.q, self._point(x), self.free)[0]

    def __repr__(self) -> str:
        return f"MixedLCP(n={self.n}, free={int(self.free.sum())})"


class BoxLCP(_Linear):
    """Box-constrained LCP (a linear mixed complementarity problem).

    Find ``lower <= z <= upper`` with ``w = M z + q`` such that for each ``i``:
    ``z_i = lower_i => w_i >= 0``, ``z_i = upper_i => w_i <= 0``, and
    ``lower_i < z_i < upper_i => w_i = 0``.  Bounds may be infinite
    (``lower = 0, upper = inf`` everywhere is the standard LCP).  Used for
    rolling friction bounds (Yashima–Yamaguchi eq. (23)).
    """

    kind = "BoxLCP"

    def __init__(self, M: Any, q: Any, lower: Any, upper: Any):
        self.M = matrix(M, "M", square=True)
        n = self.M.shape[0]
        self.q = vector(q, "q", n)
        self.lower = vector(lower, "lower", n, allow_inf="-")
        self.upper = vector(upper, "upper", n, allow_inf="+")
        self._free = _no_free(n)
        bad = np.flatnonzero(self.lower > self.upper)
        require(bad.size == 0, "lower",
                f"must be <= upper; lower[{bad[0] if bad.size else 0}] > upper[{bad[0] if bad.size else 0}]")
        self._freeze()

    def residual(self, z: Any) -> Residual:
        """``||z - mid(lower, upper, z - w)||_inf / scale`` (the box natural map)."""
        z = self._point(z, "z")
        w, allow = affine_residual(self.M, z, self.q)
        nat = np.abs(z - np.clip(z - w, self.lower, self.upper))
        natural = float(np.max(nat))
        # g(w) = z - mid(l, u, z - w) is nondecreasing in w: over the true w's interval the
        # smallest |g| is 0 if the ends straddle zero, else the smaller end (z itself is exact)
        g_lo = z - np.clip(z - (w - allow), self.lower, self.upper)
        g_hi = z - np.clip(z - (w + allow), self.lower, self.upper)
        beyond = float(np.max(np.where((g_lo <= 0) & (g_hi >= 0), 0.0, np.minimum(np.abs(g_lo), np.abs(g_hi)))))
        bound = float(max(0.0, np.max(self.lower - z), np.max(z - self.upper)))
        with np.errstate(invalid="ignore"):
            gap_lo = np.where(np.isfinite(self.lower), z - self.lower, np.inf)
            gap_hi = np.where(np.isfinite(self.upper), self.upper - z, np.inf)
            prod = np.where(w > 0, gap_lo * w, np.where(w < 0, gap_hi * -w, 0.0))
        comp = float(np.sum(np.abs(prod)))
        scale = data_scale(self.q)
        return Residual(value=max(0.0, beyond, bound) / scale, natural=natural, z_violation=bound, w_violation=0.0,
                        complementarity=comp, equation=0.0, scale=scale)

    def _certify(self, x: np.ndarray, w: np.ndarray | None) -> tuple[Residual, np.ndarray | None]:
        return self.residual(x), self.M @ x + self.q

"""Linear complementarity problems: standard, mixed and box-constrained.

Notation follows Cottle, Pang & Stone, *The Linear Complementarity Problem*
(1992), and, for the mixed form, Buffo & Maciel (2006) eq. (2).
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import numpy as np

from contactcp._validate import index_mask, matrix, square_finite_pair, vector
from contactcp.errors import InvalidProblemError
from contactcp.linalg.farkas import FarkasSystem
from contactcp.problems._base import Problem, linear_residual, require, scaled_residual
from contactcp.result import Certificate, Residual

__all__ = ["LCP", "MixedLCP", "BoxLCP", "farkas_check", "farkas_certificate"]


_NDARRAY = np.ndarray  # a global read instead of a module attribute (the constructor's fast path)


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
        if type(M) is _NDARRAY and type(q) is _NDARRAY:
            # fast path for the common call (native float64 arrays of matching shapes): copies, then
            # one compiled check of their types, shapes and finiteness; anything else (another
            # dtype or layout, a byte-swapped array, a NaN) takes the general path below, which
            # names what is wrong
            M, q = M.copy(), q.copy()
            try:
                fast = square_finite_pair(M, q)
            except TypeError:
                fast = False
            if fast:
                M.setflags(write=False)
                q.setflags(write=False)
                fields = self.__dict__
                fields["M"] = M
                fields["q"] = q
                fields["_free"] = _no_free(q.shape[0])
                fields["_frozen"] = True
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

    def farkas_system(self) -> FarkasSystem:
        """The system whose emptiness a Farkas certificate proves: ``{z >= 0 : M z + q >= 0}``."""
        return FarkasSystem.lcp(self.M, self.q)


def _certificate_api(cls):
    """``check_certificate`` and ``make_certificate`` for the linear problems, from ``farkas_system``."""

    def check_certificate(self, y: Any, tol: float = 1e-9) -> tuple[bool, dict[str, float]]:
        """Check that ``y`` itself (floats, or a sequence of ``fractions.Fraction``) is a Farkas proof, *exactly*:
        for an LCP ``y >= 0``, ``M^T y <= 0``, ``q^T y < 0`` (see :mod:`contactcp.linalg.farkas`
        for the mixed and box forms).  ``tol`` is accepted for compatibility and not used: a
        proof holds exactly or not at all."""
        system = self.farkas_system()
        if isinstance(y, (list, tuple)) and y and all(isinstance(v, Fraction) for v in y):
            v = system.check_rational(list(y))
            return v is not None, {"margin": float(v) if v is not None else np.nan, "rational": 1.0}
        try:
            yv = np.asarray(y, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            return False, {"margin": np.nan, "exact": 0.0, "rational": 0.0}
        v = system.check(yv)
        return v is not None, {
            "margin": float(v) if v is not None else system.value_float(yv) if yv.shape == system.h.shape else np.nan,
            "exact": float(v is not None),
            "rational": 0.0,
        }

    def make_certificate(self, y: Any, tol: float = 1e-9, source: str = "") -> Certificate:
        """A certificate from a candidate Farkas vector, verified exactly (``verified`` says whether it is a
        proof; the vector handed out is the one the proof is about, rational when needed)."""
        system = self.farkas_system()
        proof = system.prove(y)
        return _certificate(self, system, y, proof, source)

    cls.check_certificate = check_certificate
    cls.make_certificate = make_certificate
    return cls


_FORMS = {
    "LCP": "y >= 0 with M^T y <= 0 and q^T y < 0, so no z >= 0 has M z + q >= 0 (Farkas' lemma)",
    "MixedLCP": (
        "y (>= 0 on the complementarity rows, free on the equations) with (M^T y)_j <= 0 on the "
        "complementarity columns, (M^T y)_j = 0 on the free ones and q^T y < 0, so no x has "
        "x_c >= 0, (M x + q)_c >= 0 and (M x + q)_f = 0 (Farkas' lemma)"
    ),
    "BoxLCP": (
        "y (>= 0 where only the lower bound is finite, <= 0 where only the upper one is, free where "
        "neither, 0 where both are) with max over the box of (M^T y)^T z plus q^T y < 0, so no z in "
        "the box has the signs of w = M z + q that the box LCP requires (Farkas' lemma)"
    ),
}


def _checks(system: FarkasSystem, y: Any, proof) -> dict[str, float]:
    try:
        yv = np.asarray(y, dtype=float).reshape(-1)
        approx = system.value_float(yv) if yv.shape == system.h.shape else np.nan
    except (TypeError, ValueError):
        approx = np.nan
    return {
        "margin": float(proof.value) if proof is not None else float(approx),
        "exact": float(proof is not None),
        "rational": float(proof is not None and proof.kind == "rational"),
    }


def _certificate(problem, system: FarkasSystem, y: Any, proof, source: str) -> Certificate:
    desc = _FORMS[problem.kind]
    if proof is None:
        vec = np.asarray(y, dtype=float).reshape(-1) if y is not None else np.zeros(0)
        desc += "; NOT a proof: the inequalities do not hold exactly for this vector"
        if source:
            desc += f"; {source}"
        return Certificate(kind="farkas", vector=vec, description=desc, checks=_checks(system, y, None), verified=False)
    if proof.kind == "rational":
        desc += (
            "; proved in rational arithmetic: y was recomputed on its support so that the equalities "
            "the proof needs hold exactly; `exact` holds that rational vector (the floats in `vector` "
            "are its nearest values and need not satisfy the inequalities themselves)"
        )
    else:
        desc += "; every sign was computed exactly for the floats of `vector`"
    if source:
        desc += f"; {source}"
    return Certificate(
        kind="farkas",
        vector=proof.vector,
        description=desc,
        checks=_checks(system, y, proof),
        verified=True,
        exact=proof.exact,
    )


def farkas_certificate(
    problem: LCP | MixedLCP | BoxLCP, candidate: Any = None, source: str = "", search: bool = True
) -> Certificate | None:
    """A verified Farkas certificate about ``problem`` itself (LCP, MixedLCP or BoxLCP), or None.

    ``candidate`` (a float vector, e.g. from a pivoting ray) is tried first; then, if ``search``,
    an LP over the problem's own data (:meth:`~contactcp.linalg.farkas.FarkasSystem.search`)."""
    system = problem.farkas_system()
    proof = system.prove(candidate) if candidate is not None else None
    if proof is None and search:
        proof = system.search()
        source = "y from an LP over the problem's own data (HiGHS), then verified exactly"
    return None if proof is None else _certificate(problem, system, candidate, proof, source)


_certificate_api(LCP)


def farkas_check(M: np.ndarray, q: np.ndarray, y: Any, tol: float = 1e-9) -> tuple[bool, dict[str, float]]:
    """Check that ``y`` proves ``{z >= 0 : M z + q >= 0}`` empty, exactly."""
    return LCP(M, q).check_certificate(y)


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
    def from_blocks(cls, A: Any, B: Any, C: Any, D: Any, a: Any, b: Any) -> MixedLCP:
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

    def farkas_system(self) -> FarkasSystem:
        """``{x : x_c >= 0, (M x + q)_c >= 0, (M x + q)_f = 0}``, whose emptiness a certificate proves."""
        return FarkasSystem.lcp(self.M, self.q, self.free)

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
        require(
            bad.size == 0,
            "lower",
            f"must be <= upper; lower[{bad[0] if bad.size else 0}] > upper[{bad[0] if bad.size else 0}]",
        )
        self._freeze()

    def farkas_system(self) -> FarkasSystem:
        """The box with the signs of ``w`` each bound type forces: empty means no solution."""
        return FarkasSystem.box(self.M, self.q, self.lower, self.upper)

    def residual(self, z: Any) -> Residual:
        """``max_i |z_i - mid(lower_i, upper_i, z_i - w_i / s_i)|`` and the bound violations.

        The box natural map of the row-equilibrated problem (``s_i = max(|q_i|, sum_j |M_ij| min(|z_j|, Z_j))``), as
        an upper bound of its exact value: ``g(w) = z - mid(l, u, z - w)`` is nondecreasing in ``w``,
        so over the guaranteed interval of ``w_i / s_i`` its largest ``|g|`` is at an end.
        """
        return self._residual(self._point(z, "z"))[0]

    def _residual(self, z: np.ndarray) -> tuple[Residual, np.ndarray]:
        w, lo, hi, s = scaled_residual(self.M, z, self.q)
        # g(t) = z - mid(l, u, z - t) written as mid(z - u, t, z - l): the same map, without forming
        # z - t, in which a small t vanishes beside a large z (an interior z of size 1e31 hid w / s = 1.7)
        with np.errstate(invalid="ignore"):
            below, above = z - self.upper, z - self.lower
        nat = np.abs(np.clip(w, below, above))
        natural = float(np.max(nat))
        g_lo = np.abs(np.clip(lo, below, above))
        g_hi = np.abs(np.clip(hi, below, above))
        value = float(np.max(np.maximum(g_lo, g_hi))) * (1.0 + 4.0 * np.finfo(float).eps)
        bound = float(max(0.0, np.max(self.lower - z), np.max(z - self.upper)))
        with np.errstate(invalid="ignore", over="ignore"):
            gap_lo = np.where(np.isfinite(self.lower), z - self.lower, np.inf)
            gap_hi = np.where(np.isfinite(self.upper), self.upper - z, np.inf)
            prod = np.where(w > 0, gap_lo * w, np.where(w < 0, gap_hi * -w, 0.0))
        comp = float(np.sum(np.abs(prod)))
        if not np.all(np.isfinite(z)):
            value = np.inf
        return Residual(
            value=max(value, bound),
            natural=natural,
            z_violation=bound,
            w_violation=0.0,
            complementarity=comp,
            equation=0.0,
            scale=float(np.max(s)),
        ), w

    def _certify(self, x: np.ndarray, w: np.ndarray | None) -> tuple[Residual, np.ndarray | None]:
        return self._residual(np.asarray(x, dtype=np.float64).reshape(-1))


_certificate_api(MixedLCP)
_certificate_api(BoxLCP)

"""The mixed nonlinear complementarity problem of Buffo & Maciel (2006), eqs. (1)-(2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from contactcp._validate import number, positive_int
from contactcp.errors import InvalidProblemError
from contactcp.problems._base import Problem, complementarity_residual, require
from contactcp.result import Residual

__all__ = ["MixedNCP"]

Func = Callable[[np.ndarray], Any]


class MixedNCP(Problem):
    """Find ``x = (u, v)``, ``u in R^p``, ``v in R^m`` with

    ``u >= 0,  F(u, v) >= 0,  u . F(u, v) = 0,  G(u, v) = 0``   (Buffo–Maciel eq. (2),
    with slacks ``z = F(u, v)``).

    Parameters
    ----------
    F : callable ``x -> (p,)``; G : callable ``x -> (m,)`` (may be None when m = 0)
    p, m : sizes of the complementarity and free parts
    jac_F, jac_G : optional callables ``x -> (p, p+m)`` and ``x -> (m, p+m)``
    scale : residuals are divided by ``max(1, scale)``; give the size of the
        terms of F and G (forces times compliances, say) to make them relative.
    """

    kind = "MixedNCP"

    def __init__(
        self,
        F: Func,
        G: Func | None,
        p: int,
        m: int = 0,
        *,
        jac_F: Func | None = None,
        jac_G: Func | None = None,
        scale: float = 1.0,
    ):
        p = positive_int(p, "p", minimum=0)
        m = positive_int(m, "m", minimum=0)
        require(p + m >= 1, "p", "p + m must be at least 1")
        require(callable(F) or p == 0, "F", "must be callable")
        require(m == 0 or callable(G), "G", "must be callable when m > 0")
        for name, fn in (("jac_F", jac_F), ("jac_G", jac_G)):
            require(fn is None or callable(fn), name, "must be callable or None")
        scale = number(scale, "scale")
        require(scale > 0, "scale", f"must be a positive number, got {scale}")
        self.F, self.G, self.p, self.m = F, G, p, m
        self.jac_F, self.jac_G = jac_F, jac_G
        self.scale = float(scale)
        self._freeze()

    @property
    def size(self) -> int:
        return self.p + self.m

    @property
    def has_jacobians(self) -> bool:
        return (self.p == 0 or self.jac_F is not None) and (self.m == 0 or self.jac_G is not None)

    def split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``x -> (u, v)``."""
        return x[: self.p], x[self.p :]

    def eval_F(self, x: np.ndarray) -> np.ndarray:
        return self._call(self.F, x, "F", (self.p,)) if self.p else np.zeros(0)

    def eval_G(self, x: np.ndarray) -> np.ndarray:
        return self._call(self.G, x, "G", (self.m,)) if self.m else np.zeros(0)

    def eval_jac_F(self, x: np.ndarray) -> np.ndarray:
        if self.p == 0:
            return np.zeros((0, self.size))
        if self.jac_F is None:
            raise InvalidProblemError("jac_F", "not given; this method needs the Jacobian of F")
        return self._call(self.jac_F, x, "jac_F", (self.p, self.size))

    def eval_jac_G(self, x: np.ndarray) -> np.ndarray:
        if self.m == 0:
            return np.zeros((0, self.size))
        if self.jac_G is None:
            raise InvalidProblemError("jac_G", "not given; this method needs the Jacobian of G")
        return self._call(self.jac_G, x, "jac_G", (self.m, self.size))

    @staticmethod
    def _call(fn: Func, x: np.ndarray, field: str, shape: tuple[int, ...]) -> np.ndarray:
        out = np.asarray(fn(np.array(x, dtype=float)), dtype=float)
        if out.shape != shape:
            out = out.reshape(shape) if out.size == int(np.prod(shape)) else out
        if out.shape != shape:
            raise InvalidProblemError(field, f"returned shape {out.shape}, expected {shape}")
        return out

    def residual(self, x: Any) -> Residual:
        """``max(||min(u, F)||_inf, ||G||_inf) / max(1, scale)``; non-finite values give ``inf``."""
        x = self._point(x)
        u, _ = self.split(x)
        F = self.eval_F(x)
        G = self.eval_G(x)
        if not (np.all(np.isfinite(F)) and np.all(np.isfinite(G))):
            inf = float("inf")
            return Residual(inf, inf, inf, inf, inf, inf, max(1.0, self.scale))
        eq = float(np.max(np.abs(G))) if G.size else 0.0
        return complementarity_residual(u, F, eq, max(1.0, self.scale))

    def _certify(self, x: np.ndarray, w: np.ndarray | None) -> tuple[Residual, np.ndarray | None]:
        return self.residual(x), self.eval_F(x)

    @classmethod
    def from_mixed_lcp(cls, M: np.ndarray, q: np.ndarray, free: np.ndarray) -> MixedNCP:
        """The linear case: reorder to ``x = (u, v)`` with ``u = x[~free]``, ``v = x[free]``.

        Returns the problem; the permutation is ``np.r_[flatnonzero(~free), flatnonzero(free)]``.
        """
        perm = np.r_[np.flatnonzero(~free), np.flatnonzero(free)]
        Mp = M[np.ix_(perm, perm)]
        qp = q[perm]
        p = int((~free).sum())
        Fm, Gm = Mp[:p], Mp[p:]
        return cls(
            lambda x: Fm @ x + qp[:p],
            lambda x: Gm @ x + qp[p:],
            p,
            len(q) - p,
            jac_F=lambda x: Fm,
            jac_G=lambda x: Gm,
            scale=max(1.0, float(np.abs(q).max(initial=0))),
        )

    def __repr__(self) -> str:
        return f"MixedNCP(p={self.p}, m={self.m})"

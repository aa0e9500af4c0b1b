"""FCLIB's problems and solutions as Python objects, and the checks every one passes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from contactcp.errors import InvalidProblemError

if TYPE_CHECKING:
    from contactcp.problems.friction import FrictionContactProblem
    from contactcp.problems.friction_global import GlobalFrictionContactProblem

__all__ = ["FclibLocal", "FclibGlobal", "FclibSolution", "FclibFile"]

_INT = np.dtype(np.intc)  # C int, what H5T_NATIVE_INT is
_INT_MAX = int(np.iinfo(_INT).max)
_INFO_STRINGS = ("title", "description", "math_info")
_MATRIX_INFO_FLOATS = ("conditioning", "determinant")
_SPARSITY = "sparsity"  # written by fclib 1.x, ignored by 3.x


# ----------------------------------------------------------------- containers


@dataclass
class FclibLocal:
    """A local frictional contact problem ``u = W r + V l + q``, ``V^T r + R l + s = 0``.

    ``W`` is a scipy sparse matrix or a dense array (read back as a
    ``scipy.sparse.csc_matrix``, or dense with ``dense=True``).  ``V``, ``R``
    and ``s`` are optional (all or none).  ``info`` may hold ``title``,
    ``description``, ``math_info`` (strings) and further integer/real/string
    entries stored as attributes of the info group.  ``matrix_info`` maps a
    matrix name (``"W"``, ...) to a dict with ``conditioning``,
    ``determinant``, ``rank`` and optionally ``comment``.
    """

    W: Any
    q: Any
    mu: Any
    spacedim: int = 3
    V: Any = None
    R: Any = None
    s: Any = None
    info: dict = field(default_factory=dict)
    matrix_info: dict = field(default_factory=dict)

    @property
    def n_contacts(self) -> int:
        return int(np.shape(self.W)[0]) // int(self.spacedim)

    def to_problem(self) -> FrictionContactProblem:
        """The :class:`~contactcp.problems.friction.FrictionContactProblem` (W, q, mu) (no V, R)."""
        if self.V is not None or self.R is not None:
            raise InvalidProblemError("V", "problems with V, R (equality constraints) have no FrictionContactProblem")
        from contactcp.problems.friction import FrictionContactProblem

        return FrictionContactProblem(self.W, self.q, self.mu, dim=int(self.spacedim))

    @classmethod
    def from_problem(cls, problem: Any, info: dict | None = None) -> FclibLocal:
        """From a :class:`~contactcp.problems.friction.FrictionContactProblem`."""
        W = problem.W.tocsc() if sp.issparse(problem.W) else np.array(problem.W)
        return cls(
            W=W, q=np.array(problem.q), mu=np.array(problem.mu), spacedim=int(problem.dim), info=dict(info or {})
        )


@dataclass
class FclibGlobal:
    """A global problem ``M v = H r + G l + f``, ``G^T v + b = 0``, ``u = H^T v + w``.

    ``G`` and ``b`` may be None (both or neither).  Matrices as in
    :class:`FclibLocal`.
    """

    M: Any
    H: Any
    G: Any
    f: Any
    b: Any
    w: Any
    mu: Any
    spacedim: int = 3
    info: dict = field(default_factory=dict)
    matrix_info: dict = field(default_factory=dict)

    @property
    def n_contacts(self) -> int:
        return int(np.shape(self.H)[1]) // int(self.spacedim)

    def to_problem(self) -> GlobalFrictionContactProblem:
        """The :class:`~contactcp.problems.GlobalFrictionContactProblem` (M, H, f, w, mu) (no G, b)."""
        if self.G is not None or self.b is not None:
            raise InvalidProblemError(
                "G", "global problems with equality constraints (G, b) are not supported: no solver takes them"
            )
        from contactcp.problems.friction_global import GlobalFrictionContactProblem

        return GlobalFrictionContactProblem(self.M, self.H, self.f, self.w, self.mu, dim=int(self.spacedim))

    @classmethod
    def from_problem(cls, problem: Any, info: dict | None = None) -> FclibGlobal:
        """From a :class:`~contactcp.problems.GlobalFrictionContactProblem`."""
        return cls(
            M=problem.M.tocsc(),
            H=problem.H.tocsc(),
            G=None,
            f=np.array(problem.f),
            b=None,
            w=np.array(problem.w),
            mu=np.array(problem.mu),
            spacedim=int(problem.dim),
            info=dict(info or {}),
        )


@dataclass
class FclibSolution:
    """A solution or an initial guess: global velocity ``v``, local velocity ``u``,
    reaction ``r`` and multiplier ``l`` (each None when absent)."""

    v: Any = None
    u: Any = None
    r: Any = None
    l: Any = None  # noqa: E741 - FCLIB's name


@dataclass
class FclibFile:
    """Everything in an FCLIB file."""

    local: FclibLocal | None
    global_: FclibGlobal | None
    solutions: list = field(default_factory=list)
    guesses: list = field(default_factory=list)
    path: str = ""


# ------------------------------------------------------------ normalisation


def _vector(value: Any, name: str, size: int | None, *, nonneg: bool = False) -> np.ndarray:
    try:
        arr = np.array(value, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise InvalidProblemError(name, f"cannot be read as an array of numbers ({exc})") from None
    if arr.ndim == 0:
        raise InvalidProblemError(name, "must be a 1-D vector, got a scalar")
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise InvalidProblemError(name, f"must be a 1-D vector, got shape {arr.shape}")
    if size is not None and arr.size != size:
        raise InvalidProblemError(name, f"must have length {size}, got {arr.size}")
    bad = ~np.isfinite(arr)
    if bad.any():
        k = int(np.argmax(bad))
        raise InvalidProblemError(name, f"contains {arr[k]} (first at index {k}); only finite values are allowed")
    if nonneg and (arr < 0).any():
        k = int(np.argmax(arr < 0))
        raise InvalidProblemError(f"{name}[{k}]", f"friction coefficient must be >= 0, got {arr[k]}")
    return arr


def _matrix(value: Any, name: str) -> sp.csc_matrix:
    """Any scipy sparse matrix or 2-D array -> float64 csc_matrix (finite, int32-indexable)."""
    if sp.issparse(value):
        try:
            A = sp.csc_matrix(value, dtype=np.float64, copy=True)
        except (TypeError, ValueError) as exc:
            raise InvalidProblemError(name, f"cannot be converted to a sparse float matrix ({exc})") from None
    else:
        try:
            dense = np.array(value, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidProblemError(name, f"cannot be read as a matrix of numbers ({exc})") from None
        if dense.ndim != 2:
            raise InvalidProblemError(name, f"must be a 2-D matrix, got shape {dense.shape}")
        if not np.isfinite(dense).all():
            idx = tuple(int(i) for i in np.argwhere(~np.isfinite(dense))[0])
            raise InvalidProblemError(name, f"contains {dense[idx]} at {idx}; only finite values are allowed")
        A = sp.csc_matrix(dense)
    if A.ndim != 2:
        raise InvalidProblemError(name, f"must be a 2-D matrix, got shape {A.shape}")
    if max(A.shape[0], A.shape[1], A.nnz) > _INT_MAX:
        raise InvalidProblemError(name, f"shape {A.shape} with {A.nnz} entries does not fit FCLIB's 32-bit indices")
    if not np.isfinite(A.data).all():
        k = int(np.argmax(~np.isfinite(A.data)))
        raise InvalidProblemError(name, f"contains {A.data[k]}; only finite values are allowed")
    return A


def _spacedim(value: Any) -> int:
    try:
        d = int(value)
    except (TypeError, ValueError):
        raise InvalidProblemError("spacedim", f"must be 2 or 3, got {value!r}") from None
    if d != value or d not in (2, 3):
        raise InvalidProblemError("spacedim", f"must be 2 or 3, got {value!r}")
    return d


def _check_local(pb: FclibLocal) -> dict[str, Any]:
    d = _spacedim(pb.spacedim)
    W = _matrix(pb.W, "W")
    m = W.shape[0]
    if W.shape[0] != W.shape[1] or m % d:
        raise InvalidProblemError("W", f"must be square of size spacedim * n_c (spacedim = {d}), got shape {W.shape}")
    out: dict[str, Any] = {
        "spacedim": d,
        "W": W,
        "q": _vector(pb.q, "q", m),
        "mu": _vector(pb.mu, "mu", m // d, nonneg=True),
    }
    if (pb.V is None) != (pb.R is None):
        raise InvalidProblemError("V" if pb.V is None else "R", "V and R must be given together")
    if pb.R is not None:
        V, R = _matrix(pb.V, "V"), _matrix(pb.R, "R")
        p = R.shape[0]
        if R.shape != (p, p):
            raise InvalidProblemError("R", f"must be square, got shape {R.shape}")
        if V.shape != (m, p):
            raise InvalidProblemError("V", f"must have shape ({m}, {p}) to match W and R, got {V.shape}")
        if pb.s is None:
            raise InvalidProblemError("s", "must be given with V and R")
        out.update(V=V, R=R, s=_vector(pb.s, "s", p))
    elif pb.s is not None:
        raise InvalidProblemError("s", "given without V and R")
    return out


def _check_global(pb: FclibGlobal) -> dict[str, Any]:
    d = _spacedim(pb.spacedim)
    M = _matrix(pb.M, "M")
    n = M.shape[0]
    if M.shape != (n, n):
        raise InvalidProblemError("M", f"must be square, got shape {M.shape}")
    H = _matrix(pb.H, "H")
    m = H.shape[1]
    if H.shape[0] != n or m % d:
        raise InvalidProblemError("H", f"must have shape ({n}, spacedim * n_c) (spacedim = {d}), got {H.shape}")
    out: dict[str, Any] = {
        "spacedim": d,
        "M": M,
        "H": H,
        "f": _vector(pb.f, "f", n),
        "w": _vector(pb.w, "w", m),
        "mu": _vector(pb.mu, "mu", m // d, nonneg=True),
    }
    if (pb.G is None) != (pb.b is None):
        raise InvalidProblemError("b" if pb.b is None else "G", "G and b must be given together")
    if pb.G is not None:
        G = _matrix(pb.G, "G")
        if G.shape[0] != n:
            raise InvalidProblemError("G", f"must have {n} rows to match M, got shape {G.shape}")
        out.update(G=G, b=_vector(pb.b, "b", G.shape[1]))
    return out


def _sizes(problem: dict[str, Any]) -> tuple[int, int, int]:
    """(nv, nr, nl): lengths of v, of u and r, of l (0 = absent), as read_nvnunrnl."""
    if "M" in problem:
        return problem["M"].shape[1], problem["H"].shape[1], (problem["G"].shape[1] if "G" in problem else 0)
    return 0, problem["W"].shape[1], (problem["R"].shape[1] if "R" in problem else 0)


def _check_solution(sol: Any, name: str, sizes: tuple[int, int, int], *, complete: bool) -> dict[str, np.ndarray]:
    """Validated vectors of a solution; ``complete`` requires what the C reader needs."""
    if not isinstance(sol, FclibSolution):
        raise InvalidProblemError(name, f"must be an FclibSolution, got {type(sol).__name__}")
    nv, nr, nl = sizes
    out = {}
    for key, size in (("v", nv), ("u", nr), ("r", nr), ("l", nl)):
        value = getattr(sol, key)
        if value is None:
            if complete and size:
                raise InvalidProblemError(f"{name}.{key}", f"is required (length {size})")
            continue
        if size == 0:
            what = "v (local problems have none)" if key == "v" else "l (the problem has no R or G)"
            raise InvalidProblemError(f"{name}.{key}", f"given, but there is no {what}")
        out[key] = _vector(value, f"{name}.{key}", size)
    return out

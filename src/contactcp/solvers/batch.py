"""Many small LCPs of one size in one call (maps and sweeps solve tens of thousands).

The pivoting runs in a compiled loop, in parallel over problems; each answer is
then certified by the batched residual kernel of :mod:`contactcp.problems`,
which shares no code with the solver.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactcp._validate import _all_finite, real_array
from contactcp.errors import InvalidOptionError, InvalidProblemError, UnknownMethodError
from contactcp.problems import LCP
from contactcp.problems._base import linear_residual
from contactcp.problems._kernels import lcp_residual_batch
from contactcp.result import Certificate, Status
from contactcp.settings import DEFAULT_TOL
from contactcp.solvers.lcp import lemke_kernel as K
from contactcp.solvers.lcp.certificates import lcp_farkas
from contactcp.solvers.registry import solve

__all__ = ["BatchResult", "solve_batch"]

_CODES = {
    K.SOLVED: Status.SOLVED,
    K.RAY: Status.RAY_TERMINATION,
    K.ITER_LIMIT: Status.ITERATION_LIMIT,
    K.SINGULAR: Status.NUMERICAL_FAILURE,
    K.BAD_START: Status.NUMERICAL_FAILURE,
}
_STATUS_LIST = list(Status)


@dataclass
class BatchResult:
    """Answers of :func:`solve_batch`, one row per problem.

    ``status`` holds indices into ``list(Status)``; :attr:`statuses` gives the
    enum members.  ``residual[k]`` is the independent scaled residual of
    ``x[k]`` (``inf`` where no point was returned).
    """

    x: np.ndarray
    w: np.ndarray
    status: np.ndarray
    residual: np.ndarray
    iterations: np.ndarray
    time: float
    method: str
    tol: float
    certificates: dict[int, Certificate] = field(default_factory=dict)

    @property
    def success(self) -> np.ndarray:
        return self.status == _STATUS_LIST.index(Status.SOLVED)

    @property
    def statuses(self) -> list[Status]:
        return [_STATUS_LIST[i] for i in self.status]

    def count(self) -> dict[str, int]:
        """How many problems ended in each status."""
        vals, cnt = np.unique(self.status, return_counts=True)
        return {_STATUS_LIST[v].name: int(c) for v, c in zip(vals, cnt)}

    def __len__(self) -> int:
        return self.x.shape[0]

    def __repr__(self) -> str:
        return f"BatchResult(K={len(self)}, method={self.method!r}, {self.count()}, time={self.time:.3g}s)"


def solve_batch(
    M: Any,
    q: Any,
    method: str = "lemke",
    tol: float = DEFAULT_TOL,
    *,
    d: Any = None,
    max_iter: int | None = None,
    piv_tol: float = 1e-11,
    lexicographic: bool = True,
    check_every: int = 16,
) -> BatchResult:
    """Solve ``K`` LCPs ``(M[k], q[k])`` of the same size ``n``.

    Parameters
    ----------
    M : (K, n, n) array, or (n, n) shared by every problem
    q : (K, n) array
    method : only ``"lemke"`` (cold start, lexicographic) is batched
    tol, d, max_iter, piv_tol, lexicographic, check_every : as for :func:`contactcp.solve`
    """
    if method != "lemke":
        raise UnknownMethodError(str(method), "batch of LCPs", ["lemke"])
    _check_tol(tol)
    q = _array(q, "q", 2)
    Kp, n = q.shape
    M = _array(M, "M", None)
    if M.ndim == 2:
        M = np.broadcast_to(M, (Kp,) + M.shape)
    if M.ndim != 3 or M.shape != (Kp, n, n):
        raise InvalidProblemError("M", f"must have shape ({Kp}, {n}, {n}) or ({n}, {n}) to match q, got {M.shape}")
    M = np.ascontiguousarray(M)
    try:
        dv = np.ones(n) if d is None else real_array(d, "d")
    except InvalidProblemError as exc:
        raise InvalidOptionError("d", f"must be a positive vector of length {n} ({exc.problem})") from None
    if dv.shape != (n,) or not np.all(dv > 0) or not np.all(np.isfinite(dv)):
        raise InvalidOptionError("d", f"must be a positive finite vector of length {n}")
    if max_iter is None:
        max_iter = max(1000, 50 * n)
    else:
        _check_count(max_iter, "max_iter")
    if (
        isinstance(piv_tol, (bool, np.bool_))
        or not isinstance(piv_tol, (int, float, np.integer, np.floating))
        or not 0 < piv_tol < 1
    ):
        raise InvalidOptionError("piv_tol", f"must be a number in (0, 1), got {piv_tol!r}")
    _check_count(check_every, "check_every")
    t0 = time.perf_counter()
    Z, ZH, codes, pivots = K.lemke_batch_core(M, q, dv, max_iter, float(piv_tol), bool(lexicographic), int(check_every))
    W, values, needs = lcp_residual_batch(M, q, Z)
    for k in np.flatnonzero(needs):  # rows floating point could not decide: exactly
        res, W[k] = linear_residual(M[k], q[k], Z[k], np.zeros(n, dtype=bool))
        values[k] = res.value
    status = np.empty(Kp, dtype=np.int64)
    idx = {s: _STATUS_LIST.index(s) for s in Status}
    for code, st in _CODES.items():
        status[codes == code] = idx[st]
    solved = codes == K.SOLVED
    status[solved & ~(values <= tol)] = idx[Status.INACCURATE]
    limit = codes == K.ITER_LIMIT
    status[limit & (values <= tol)] = idx[Status.SOLVED]
    values[~(solved | limit)] = np.inf
    certs: dict[int, Certificate] = {}
    for k in np.flatnonzero(codes == K.RAY):
        cert = lcp_farkas(LCP(M[k], q[k]), ZH[k], tol, "from Lemke's secondary ray")
        if cert is not None:
            certs[int(k)] = cert
            status[k] = idx[Status.NO_SOLUTION]
    # the rare inconclusive ones (a ray without proof, the pivot limit, an inaccurate point) go through
    # the single-problem Lemke, with its restarts, equilibration and certificates
    again = np.flatnonzero((status != idx[Status.SOLVED]) & (status != idx[Status.NO_SOLUTION]))
    for k in again:
        res = solve(
            LCP(M[k], q[k]),
            "lemke",
            tol,
            d=None if d is None else dv,
            max_iter=max_iter,
            piv_tol=float(piv_tol),
            lexicographic=bool(lexicographic),
            check_every=int(check_every),
        )
        if res.status is Status.SOLVED:
            Z[k], W[k], values[k], status[k] = res.x, res.w, res.residual.value, idx[Status.SOLVED]
        elif res.status is Status.NO_SOLUTION and res.certificate is not None and res.certificate.verified:
            certs[int(k)], status[k] = res.certificate, idx[Status.NO_SOLUTION]
        pivots[k] += res.iterations
    return BatchResult(
        x=Z,
        w=W,
        status=status,
        residual=values,
        iterations=pivots,
        time=time.perf_counter() - t0,
        method="lemke",
        tol=float(tol),
        certificates=certs,
    )


def _array(value: Any, field: str, ndim: int | None) -> np.ndarray:
    arr = np.ascontiguousarray(real_array(value, field))
    if ndim is not None and arr.ndim != ndim:
        raise InvalidProblemError(field, f"must be {ndim}-D, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidProblemError(field, "is empty")
    if not _all_finite(arr.reshape(-1)):
        raise InvalidProblemError(field, "contains NaN or inf")
    return arr


def _check_tol(tol: Any) -> None:
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not math.isfinite(tol) or tol <= 0:
        raise InvalidOptionError("tol", f"must be a positive finite number, got {tol!r}")


def _check_count(value: Any, name: str) -> None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidOptionError(name, f"must be a positive integer, got {value!r}")

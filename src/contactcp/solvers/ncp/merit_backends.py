"""The merit method's backends: scipy's trust-region least squares (trf) and L-BFGS-B, with a monitor
that stops a run as soon as the problem's own residual passes."""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.optimize import least_squares, minimize

from contactcp.solvers.ncp.merit_model import _Merit, _polish

__all__: list[str] = []

_POLISH_RETRY = 1e-2

# backend tolerances: tight, so that a run stops at a solution through the residual
# test, and otherwise only when the backend can make no further progress
_LSQ_TOL = 1e-15
_LBFGSB_GTOL = 1e-14
_LBFGSB_MAXCOR = 20


# ---------------------------------------------------------------------------
# one run of a backend


class _Run:
    """The outcome of one start: point, merit value, how it ended and its counts."""

    def __init__(self, y: np.ndarray, ending: str, nit: int, note: str, polished: bool = False):
        self.y, self.ending, self.nit, self.note, self.polished = y, ending, nit, note, polished
        self.f = math.inf
        self.residual = math.inf
        self.scale = 1.0
        self.pg = math.inf
        self.kappa = math.inf


class _Monitor:
    """The callback the backends share: stop at a certified point or at the iteration cap.

    With ``polish``, once the guessed active set ``{u_i > z_i}`` is the same at two
    consecutive iterates the active-set Newton step is tried, and the run stops when
    its result passes the residual test.  A guess is tried once for linear problems
    (the step is exact, so another try gives the same answer); for nonlinear ones it
    is tried again whenever the merit has fallen by ``_POLISH_RETRY`` since its last
    try (Newton converges from close enough).
    """

    def __init__(self, merit: _Merit, tol: float, max_iter: int, polish: bool):
        self.merit, self.tol, self.max_iter, self.polish = merit, tol, max_iter, polish
        self.nit = 0
        self.stop: str | None = None
        self.y: np.ndarray | None = None
        self.polished = False
        self.attempts = 0
        self._prev: bytes | None = None
        self._tried: dict[bytes, float] = {}

    def __call__(self, y: np.ndarray, nit: int) -> None:
        self.nit = nit
        model = self.merit.model
        x, u, z = self.merit.split(y)
        F, G = model.FG(x)
        if model.residual(x, F, G)[0] <= self.tol:  # the backends keep u >= 0
            self._halt("solved", y)
        if self.polish and self.try_polish(y, require_repeat=True):
            raise StopIteration
        if nit >= self.max_iter:
            self._halt("limit", y)

    def try_polish(self, y: np.ndarray, require_repeat: bool = False, final: bool = False) -> bool:
        """The active-set polish (:func:`_polish`) from ``y``; True when it passed the residual test.

        During a run it is tried when the guess ``{u > z}`` repeats, once per guess unless the merit
        value fell a lot since.  At the end of a run (``final``) it is tried whatever was tried before,
        from the slacks' guess and then from ``{u > F(x)}`` (the slacks ``z`` lag behind ``F`` when the
        run stops on a flat stretch)."""
        model = self.merit.model
        x, u, z = self.merit.split(y)
        key = (u > z).tobytes()
        repeat, self._prev = key == self._prev, key
        if require_repeat and not repeat:
            return False
        R = self.merit.R(y)
        f = float(R @ R)
        if not final and key in self._tried and (model.linear or not f < _POLISH_RETRY * self._tried[key]):
            return False
        self._tried[key] = f
        self.attempts += 1
        out = _polish(model, x, z, self.tol)
        if final and (out is None or not out[1] <= self.tol):
            F, _ = model.FG(x)
            if not np.array_equal(u > F, u > z):
                self.attempts += 1
                out = _polish(model, x, F, self.tol)
        if out is None or not out[1] <= self.tol:
            return False
        xp = out[0]
        F, _ = model.FG(xp)
        self.stop, self.polished = "solved", True
        self.y = np.concatenate([xp, np.maximum(F, 0.0)])
        return True

    def _halt(self, why: str, y: np.ndarray) -> None:
        self.stop, self.y = why, np.array(y)
        raise StopIteration


def _run_trf(merit: _Merit, y0: np.ndarray, mon: _Monitor) -> _Run:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = least_squares(
            merit.R,
            y0,
            jac=merit.J,
            bounds=(merit.lb, merit.ub),
            method="trf",
            ftol=_LSQ_TOL,
            xtol=_LSQ_TOL,
            gtol=_LSQ_TOL,
            tr_solver="exact",
            max_nfev=50 * mon.max_iter + 100,
            callback=lambda intermediate_result: mon(intermediate_result.x, int(intermediate_result.nit)),
        )
    if mon.stop is not None:
        ending = mon.stop
    elif res.status in (1, 2, 3, 4):
        ending = "converged"
    elif res.status == 0:
        ending = "limit"
    else:
        ending = "failed"
    y = mon.y if mon.y is not None else res.x
    return _Run(np.array(y), ending, mon.nit, f"least_squares(trf): {res.message}", mon.polished)


def _run_lbfgsb(merit: _Merit, y0: np.ndarray, mon: _Monitor) -> _Run:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = minimize(
            merit.f_and_grad,
            y0,
            jac=True,
            method="L-BFGS-B",
            bounds=list(zip(merit.lb, merit.ub)),
            callback=lambda intermediate_result: mon(intermediate_result.x, mon.nit + 1),
            options={
                "maxiter": mon.max_iter + 1,
                "maxfun": 50 * mon.max_iter + 100,
                "ftol": 0.0,
                "gtol": _LBFGSB_GTOL,
                "maxcor": _LBFGSB_MAXCOR,
            },
        )
    msg = str(res.message)
    if mon.stop is not None:
        ending = mon.stop
    elif res.status == 0 or "ABNORMAL" in msg.upper():
        # converged, or no decrease along the search direction: no further progress
        ending = "converged"
    elif res.status == 1:
        ending = "limit"
    else:
        ending = "failed"
    y = mon.y if mon.y is not None else res.x
    return _Run(np.array(y), ending, mon.nit, f"L-BFGS-B: {msg}", mon.polished)


_BACKEND_RUN = {"trf": _run_trf, "lbfgsb": _run_lbfgsb}

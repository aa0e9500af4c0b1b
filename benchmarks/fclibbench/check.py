"""The benchmark's own checks of an answer, computed from the file's data, whatever the solver said.

Local problem ``u = W r + q``: Siconos' error measure
``||r - P_K(r - (u + mu ||u_T|| e_N))||_2 / ||q||_2`` (the natural map over all contacts, K the
product of the Coulomb cones ``||r_T|| <= mu r_N``), with ``u`` recomputed from ``W`` and ``q``.

Global problem ``M v = H r + f``, ``u = H^T v + w``: the same natural map with ``u = H^T v + w``
recomputed, divided by the norm of the equivalent local problem's ``q = w + H^T M^-1 f`` (1 if it
is zero), and the equilibrium ``||M v - H r - f|| / (||f|| + ||H r|| + ||M v||)``.

Numpy and scipy only: the worker (which may run under another interpreter) imports this module
to decide whether timing an answer is worth it; the parent's check is the one reported.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

__all__ = ["cone_projection", "natural_map_norm", "check_local", "check_global", "global_scale", "vector"]


def vector(x, n: int) -> np.ndarray | None:
    """``x`` as a finite float vector of length ``n``, or None (no answer, wrong size, NaN or inf)."""
    if x is None:
        return None
    try:
        a = np.asarray(x, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return None
    if a.shape != (n,) or not np.all(np.isfinite(a)):
        return None
    return a


def cone_projection(X: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Rows of ``X`` (normal, tangents) projected on the cones ``||x_T|| <= mu_i x_N``."""
    xn, xt = X[:, 0], X[:, 1:]
    nt = np.linalg.norm(xt, axis=1)
    out = np.zeros_like(X)
    inside = nt <= mu * xn
    out[inside] = X[inside]
    polar = mu * nt <= -xn  # the polar cone projects to the apex (already zero)
    side = ~inside & ~polar
    if side.any():
        m, t = mu[side], nt[side]
        pn = (m * t + xn[side]) / (1.0 + m * m)
        out[side, 0] = pn
        out[side, 1:] = (m * pn / t)[:, None] * xt[side]
    return out


def natural_map_norm(r: np.ndarray, u: np.ndarray, mu: np.ndarray, dim: int = 3) -> float:
    """``||r - P_K(r - (u + mu ||u_T|| e_N))||_2`` over all contacts (not scaled)."""
    R, U = r.reshape(-1, dim), u.reshape(-1, dim).copy()
    U[:, 0] += mu * np.linalg.norm(U[:, 1:], axis=1)
    return float(np.linalg.norm(R - cone_projection(R - U, np.asarray(mu, float))))


def check_local(W, q: np.ndarray, mu: np.ndarray, r, tol: float, dim: int = 3) -> dict:
    """``residual`` (the natural map over ``||q||``, recomputed) and ``ok`` (residual <= tol) of the
    reaction ``r``; also ``relative``, the natural map over ``max(||q||, ||r||, ||u||)``: what Siconos
    4.4's ``fc3d_compute_error`` returns (measured: it divides by the largest of the three), which
    is smaller when the reactions or velocities are larger than ``q``."""
    r = vector(r, q.shape[0])
    if r is None:
        return {"ok": False, "residual": float("inf"), "equilibrium": None, "relative": float("inf")}
    u = W @ r + q
    nq = float(np.linalg.norm(q))
    nat = natural_map_norm(r, u, mu, dim)
    res = nat / (nq if nq > 0 else 1.0)
    big = max(nq, float(np.linalg.norm(r)), float(np.linalg.norm(u)))
    rel = nat / (big if big > 0 else 1.0)
    return {"ok": bool(res <= tol), "residual": res, "equilibrium": None, "relative": rel}


def global_scale(M, H, f: np.ndarray, w: np.ndarray) -> float:
    """``||w + H^T M^-1 f||_2`` (the local problem's ``||q||``), by a sparse factorisation of ``M``;
    1 when it is zero."""
    x = spla.splu(sp.csc_matrix(M)).solve(np.asarray(f, float))
    s = float(np.linalg.norm(w + H.T @ x))
    return s if s > 0 else 1.0


def check_global(M, H, f, w, mu, v, r, tol: float, scale: float, dim: int = 3) -> dict:
    """Natural map of ``(r, u = H^T v + w)`` divided by ``scale`` and the relative equilibrium error;
    ``ok`` when both are <= tol."""
    v, r = vector(v, M.shape[0]), vector(r, H.shape[1])
    if v is None or r is None:
        return {"ok": False, "residual": float("inf"), "equilibrium": float("inf"), "relative": None}
    u = H.T @ v + w
    res = natural_map_norm(r, u, mu, dim) / scale
    Mv, Hr = M @ v, H @ r
    den = float(np.linalg.norm(f) + np.linalg.norm(Hr) + np.linalg.norm(Mv))
    eq = float(np.linalg.norm(Mv - Hr - f)) / (den if den > 0 else 1.0)
    return {"ok": bool(res <= tol and eq <= tol), "residual": res, "equilibrium": eq, "relative": None}

"""Contact-mode maps over joint-torque space (Yashima & Yamaguchi, Figs. 7–8).

A map is a sweep (:mod:`contactcp.sweep`) of independent contact states that
differ only in two joint torques.  For a fixed configuration the system map
``a = A c + b`` has a fixed ``A`` and a ``b`` affine in the torques, so every
sign combination ``Pi`` has a fixed ``A_Pi`` (tested once for the P-property)
and ``b_Pi = P b(tau)``.  Each chunk of grid points is solved at once:

* combinations whose ``A_Pi`` is a P-matrix: the batched Lemke method
  (:func:`contactcp.solve_batch`, certified residuals) — the unique solution;
* the others: every solution, by enumerating the complementary supports
  (vectorised over the chunk; principal submatrices with condition number above
  1e12 are reported as incomplete).

Then, per point and exactly as :func:`contactcp.analysis.determinacy.analyse`
does for one state, the bound (23) selects the feasible solutions, equal
physical solutions are merged, and the verdict, modes (R/S/B), transitions and
the object's acceleration are read off (the P verdicts are exact; "determinate"
asks them for the margin of :data:`contactcp.analysis.determinacy.P_MARGIN`,
through the same :func:`~contactcp.analysis.determinacy.p_rank`; the column
``p_matrix`` is 1 for P with that margin, 0 for not P, -1 otherwise).  ``tests/test_yashima.py`` checks the
batched path against :func:`analyse` point by point.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from contactcp.batch import solve_batch
from contactcp.formulations.decomposition import CombinationLCP, combination_lcp, sign_combinations
from contactcp.interpret.dynamic import MODE_TOL
from contactcp.errors import InvalidProblemError
from contactcp._validate import number
from contactcp.scenarios.yashima import HandParameters, two_finger_hand
from contactcp.analysis.determinacy import BOUND_RTOL, CHECK_TOL, SAME_RTOL, VERDICTS, p_rank
from contactcp.analysis.pmatrix import PMatrixVerdict, p_matrix_test

__all__ = ["MODE_CLASSES", "MODE_NAMES", "HandModel", "hand_model", "hand_states", "hand_map"]

#: map classes (Fig. 7): finger 1's mode first
MODE_CLASSES = ("RR", "RS", "SR", "SS", "breaking", "not determinate")
#: per-contact mode codes
MODE_NAMES = ("rolling", "sliding", "breaking")
_COND_MAX = 1e12


@dataclass
class HandModel:
    """Everything that does not depend on the torques: ``b(tau) = b0 + B tau``, the combinations."""

    mu: float
    params: HandParameters
    A: np.ndarray
    b0: np.ndarray
    B: np.ndarray                       #: (d n_c, 2)
    v0: np.ndarray                      #: dV/dt at c = 0, tau = 0
    Vt: np.ndarray                      #: d(dV/dt)/d tau  (n_dof, 2)
    MiH: np.ndarray                     #: M^-1 H
    H: np.ndarray
    k: np.ndarray
    mu_c: np.ndarray                    #: friction coefficient per contact
    sliding: np.ndarray
    v_t: np.ndarray
    combos: list[CombinationLCP]
    pv: list[PMatrixVerdict]
    dim: int


@functools.lru_cache(maxsize=8)
def hand_model(mu: float, params: HandParameters | None = None) -> HandModel:
    """The torque-independent part of the hand's maps (cached per process)."""
    p = params or HandParameters()
    cds = [two_finger_hand(mu, t1, t2, p).system.dynamics() for t1, t2 in ((0, 0), (1, 0), (0, 1))]
    cd = cds[0]
    B = np.column_stack([cds[1].b - cd.b, cds[2].b - cd.b])
    solveM = lambda x: np.linalg.solve(cd.M, x)  # noqa: E731
    v0 = solveM(cd.f)
    Vt = np.column_stack([solveM(cds[1].f - cd.f), solveM(cds[2].f - cd.f)])
    combos = [combination_lcp(cd, s) for s in sign_combinations(cd)]
    pv = [p_matrix_test(c.A) for c in combos]
    return HandModel(float(mu), p, cd.A, cd.b, B, v0, Vt, solveM(cd.H), cd.H, cd.k, cd.mu, cd.sliding, cd.v_t,
                     combos, pv, cd.dim)


def _check_batch(m: HandModel, c: np.ndarray, Vdot: np.ndarray, bt: np.ndarray) -> np.ndarray:
    """The independent check of :func:`contactcp.interpret.dynamic.check_dynamic` ("decomposition" law),
    vectorised over the points: accelerations from the equations of motion, Signorini, friction."""
    K, d = c.shape[0], m.dim
    a = Vdot @ m.H + m.k[None, :]
    cs = np.maximum(np.abs(c).max(axis=1), np.finfo(float).tiny)
    as_ = np.maximum(np.maximum(np.abs(bt).max(axis=1), np.abs(c @ m.A.T).max(axis=1)), np.finfo(float).tiny)
    C = c.reshape(K, -1, d) / cs[:, None, None]
    Acc = a.reshape(K, -1, d) / as_[:, None, None]
    cn, an = C[:, :, 0], Acc[:, :, 0]
    mu = m.mu_c[None, :]
    viol = np.maximum.reduce([np.maximum(0, -cn).max(axis=1), np.maximum(0, -an).max(axis=1),
                              np.abs(np.minimum(cn, an)).max(axis=1)])
    for j in range(C.shape[1]):
        ct, at = C[:, j, 1:], Acc[:, j, 1:]
        if m.sliding[j]:
            e = m.v_t[j] / np.linalg.norm(m.v_t[j])
            v = np.abs(ct + m.mu_c[j] * cn[:, j, None] * e[None, :]).max(axis=1)
        else:
            box = np.maximum(0, np.abs(ct) - mu[:, j, None] * cn[:, j, None]).max(axis=1)
            sign = (np.maximum(0, at) * np.abs(ct + mu[:, j, None] * cn[:, j, None])
                    + np.maximum(0, -at) * np.abs(ct - mu[:, j, None] * cn[:, j, None])).max(axis=1)
            v = np.maximum(box, sign)
        viol = np.maximum(viol, v)
    return viol


def _enumerate_batch(A: np.ndarray, Q: np.ndarray, tol: float):
    """Every complementary-support solution of ``LCP(A, q_k)`` for all rows ``q_k`` of ``Q``.

    Yields ``(Y, ok, resid)`` per support; ``ok`` marks the rows where the support's point solves the LCP.
    """
    K, n = Q.shape
    for r in range(n + 1):
        for sup in itertools.combinations(range(n), r):
            s = list(sup)
            Y = np.zeros((K, n))
            if s:
                Ass = A[np.ix_(s, s)]
                if np.linalg.cond(Ass) > _COND_MAX:
                    yield None, None, None
                    continue
                Y[:, s] = -np.linalg.solve(Ass, Q[:, s].T).T
            W = Y @ A.T + Q
            scale = np.maximum(1.0, np.abs(Q).max(axis=1))
            resid = np.maximum(np.abs(np.minimum(Y, W)).max(axis=1), np.abs((Y * W).sum(axis=1))) / scale
            ok = (Y.min(axis=1) >= -tol * scale) & (W.min(axis=1) >= -tol * scale) & (resid <= tol)
            yield Y, ok, resid


def hand_states(tau1: np.ndarray, tau2: np.ndarray, *, mu: float, params: HandParameters | None = None,
                tol: float = 1e-9, mode_tol: float = MODE_TOL, model: HandModel | None = None) -> dict[str, np.ndarray]:
    """The verdict, modes and object acceleration at each ``(tau1[k], tau2[k])`` (one batch).

    ``model`` overrides :func:`hand_model` (e.g. to force the enumeration path in tests).
    """
    from contactcp._validate import vector

    t1, t2 = vector(tau1, "tau1"), vector(tau2, "tau2")
    if t1.shape != t2.shape:
        raise InvalidProblemError("tau2", f"must have the length of tau1 ({t1.size}), got {t2.size}")
    m = model if model is not None else hand_model(number(mu, "mu"), params)
    tau = np.column_stack([t1, t2])
    K, d = tau.shape[0], m.dim
    bt = m.b0[None, :] + tau @ m.B.T                                  # (K, d n_c)
    cands = []                                                        # (c, y, ok, resid, combo index)
    incomplete = np.zeros(K, dtype=bool)
    for ci, (comb, pv) in enumerate(zip(m.combos, m.pv)):
        Q = bt @ comb.P.T
        if pv.is_p:
            res = solve_batch(comb.A, Q, tol=tol)
            incomplete |= ~res.success          # a P-matrix LCP always has its solution: not found
            cands.append((res.x, res.success, res.residual, ci))
        else:
            for Y, ok, resid in _enumerate_batch(comb.A, Q, tol):
                if Y is None:
                    incomplete[:] = True
                    continue
                cands.append((Y, ok, resid, ci))
    n_c = m.A.shape[0] // d
    feas, Cs, As = [], [], []
    for Y, ok, resid, ci in cands:
        comb = m.combos[ci]
        scale = np.maximum(np.abs(Y).max(axis=1), np.abs(bt).max(axis=1))
        bound = comb.bound_violation(Y)
        good = ok & (bound.max(axis=1, initial=-np.inf) <= BOUND_RTOL * scale) if bound.size else ok.copy()
        C = Y @ comb.T.T
        feas.append(good)
        Cs.append(C)
        As.append(C @ m.A.T + bt)
    F = np.array(feas)                                                # (n_cand, K)
    cand_combo = np.array([ci for *_, ci in cands])
    n_feasible = np.array([F[cand_combo == ci].any(axis=0) for ci in range(len(m.combos))]).sum(axis=0)
    distinct = np.zeros(K, dtype=int)
    rep = np.full(K, -1)
    # solutions are compared on the data's scales, as in analyse: accelerations against
    # max(|a|, |b|), forces against max(|c|, |b| / max|A|)
    b_s = np.abs(bt).max(axis=1)
    c_s = b_s / max(float(np.abs(m.A).max()), 1e-300)

    def same_as(C1, A1, C2, A2):
        cs = np.maximum.reduce([np.abs(C1).max(axis=1), np.abs(C2).max(axis=1), c_s, np.full(K, 1e-300)])
        as_ = np.maximum.reduce([np.abs(A1).max(axis=1), np.abs(A2).max(axis=1), b_s, np.full(K, 1e-300)])
        return ((np.abs(C1 - C2).max(axis=1) <= SAME_RTOL * cs) & (np.abs(A1 - A2).max(axis=1) <= SAME_RTOL * as_))

    for i in range(len(cands)):
        new = F[i].copy()
        for j in range(i):
            same = F[j] & same_as(Cs[i], As[i], Cs[j], As[j])
            new &= ~same
        distinct += new
        rep[(rep < 0) & F[i]] = i
    has = rep >= 0
    c = np.full((K, d * n_c), np.nan)
    a = np.full((K, d * n_c), np.nan)
    resid = np.full(K, np.nan)
    pflag = np.full(K, -1, dtype=int)
    for i, (Y, ok, r, ci) in enumerate(cands):
        sel = rep == i
        c[sel], a[sel], resid[sel] = Cs[i][sel], As[i][sel], r[sel]
    # the P verdict of the solution: P (with a margin) if any combination that gives it is (as analyse)
    best = np.full(K, -1)
    for i, (Y, ok, r, ci) in enumerate(cands):
        same = has & F[i] & same_as(Cs[i], As[i], np.nan_to_num(c), np.nan_to_num(a))
        best[same] = np.maximum(best[same], p_rank(m.pv[ci]))
    pflag[best == 2], pflag[best == 0] = 1, 0
    Vdot = m.v0[None, :] + tau @ m.Vt.T + np.nan_to_num(c) @ m.MiH.T
    viol = np.where(has, _check_batch(m, np.nan_to_num(c), Vdot, bt), np.nan)
    failed = has & ~(viol <= CHECK_TOL)                               # the independent check failed
    verdict = np.full(K, VERDICTS.index("undecided"))
    verdict[(distinct > 1) & ~failed] = VERDICTS.index("several")
    verdict[(distinct == 0) & ~incomplete] = VERDICTS.index("none")
    one = (distinct == 1) & ~incomplete & ~failed
    verdict[one & (pflag == 1)] = VERDICTS.index("determinate")
    verdict[one & (pflag == 0)] = VERDICTS.index("not-P")
    det = verdict == VERDICTS.index("determinate")
    # modes, as interpret.dynamic.classify: thresholds relative to max(|b|, |A c|)
    as_ = np.maximum(np.abs(bt).max(axis=1), np.nan_to_num(np.abs(c @ m.A.T)).max(axis=1))
    aa = a.reshape(K, n_c, d)
    an, at = aa[:, :, 0], np.linalg.norm(aa[:, :, 1:], axis=2)
    modes = np.where(an > mode_tol * as_[:, None], 2, np.where(at > mode_tol * as_[:, None], 1, 0))
    modes[~has] = -1
    cls = np.full(K, MODE_CLASSES.index("not determinate"))
    brk = det & (modes == 2).any(axis=1)
    cls[brk] = MODE_CLASSES.index("breaking")
    ok2 = det & ~brk
    cls[ok2] = modes[ok2, 0] * 2 + modes[ok2, 1]                      # RR, RS, SR, SS
    Vdot[~has] = np.nan
    out: dict[str, Any] = {"cls": cls, "verdict": verdict, "determinate": det, "n_feasible": n_feasible,
                           "n_distinct": distinct, "p_matrix": pflag, "residual": resid, "max_violation": viol,
                           "a_x": Vdot[:, 0], "a_z": Vdot[:, 1], "alpha": Vdot[:, 2]}
    for j in range(n_c):
        out[f"mode{j + 1}"] = modes[:, j]
        out[f"c_n{j + 1}"], out[f"c_t{j + 1}"] = c[:, d * j], c[:, d * j + 1]
        out[f"a_n{j + 1}"], out[f"a_t{j + 1}"] = a[:, d * j], a[:, d * j + 1]
    return out


def _chunk(tau1: np.ndarray, tau2: np.ndarray, *, mu: float, params: HandParameters | None,
           tol: float) -> dict[str, np.ndarray]:
    return hand_states(tau1, tau2, mu=mu, params=params, tol=tol)


def hand_map(mu: float, tau1: np.ndarray, tau2: np.ndarray, *, params: HandParameters | None = None,
             tol: float = 1e-9, workers: int | None = None, executor: Any = None, chunk_size: int | None = None,
             progress: bool = True):
    """The map over the grid ``tau1 x tau2`` as a :class:`contactcp.sweep.Table` (columns of :func:`hand_states`)."""
    from contactcp.sweep import grid, sweep

    from contactcp._validate import vector

    mu = number(mu, "mu")
    hand_model(mu, params)                      # validates mu and params here, not in a worker
    pts = grid(tau1=vector(tau1, "tau1"), tau2=vector(tau2, "tau2"))
    fn = functools.partial(_chunk, mu=mu, params=params, tol=number(tol, "tol"))
    return sweep(fn, pts, batched=True, executor=executor, workers=workers, chunk_size=chunk_size,
                 progress=progress, desc=f"mode map mu={mu:g}")

"""Contact-mode maps over a system's applied efforts (Yashima & Yamaguchi, Figs. 7–8, for any system).

A map is a sweep (:mod:`contactcp.sweep`) of independent contact states that
differ only in some applied efforts (joint torques, forces on an object) that
enter the equations of motion linearly.  For a fixed configuration the system
map ``a = A c + b`` then has a fixed ``A`` and a ``b`` affine in the efforts,
so every sign combination ``Pi`` has a fixed ``A_Pi`` (tested once for the
P-property) and ``b_Pi = P b(e)``.  :func:`effort_model` computes the parts
that do not depend on the efforts from any system-building function
``system(**efforts) -> MultibodySystem`` (and checks that it is affine in
them); :func:`effort_states` evaluates a batch of points; :func:`effort_map`
runs the sweep.  Each chunk of grid points is solved at once:

* combinations whose ``A_Pi`` is a P-matrix: the batched Lemke method
  (:func:`contactcp.solve_batch`, certified residuals) — the unique solution;
* the others: every solution, by enumerating the complementary supports
  (vectorised over the chunk; principal submatrices with condition number above
  1e12 are reported as incomplete).

Then, per point and exactly as :func:`contactcp.analysis.determinacy.analyse`
does for one state, the bound (23) selects the feasible solutions, equal
physical solutions are merged, and the verdict, modes (R/S/B), transitions and
the first body's acceleration are read off (the P verdicts are exact;
"determinate" asks them for the margin of
:data:`contactcp.analysis.determinacy.P_MARGIN`, through the same
:func:`~contactcp.analysis.determinacy.p_rank`; the column ``p_matrix`` is 1 for
P with that margin, 0 for not P, -1 otherwise).  The two-finger hand's map
(:func:`contactcp.scenarios.yashima.hand_map`) is one use; ``tests/test_yashima.py``
checks the batched path against :func:`analyse` point by point.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from contactcp._validate import vector
from contactcp.analysis.determinacy import BOUND_RTOL, CHECK_TOL, SAME_RTOL, VERDICTS, p_rank
from contactcp.errors import InvalidProblemError
from contactcp.formulations.decomposition import CombinationLCP, combination_lcp, sign_combinations
from contactcp.interpret.dynamic import MODE_TOL
from contactcp.linalg.pmatrix import PMatrixVerdict, p_matrix_test
from contactcp.models.system import MultibodySystem
from contactcp.solvers.batch import solve_batch
from contactcp.sweep import Table

__all__ = [
    "MODE_NAMES",
    "mode_classes",
    "MODE_CLASSES",
    "EffortModel",
    "effort_model",
    "effort_states",
    "effort_map",
    "acceleration_names",
]

#: per-contact mode codes
MODE_NAMES = ("rolling", "sliding", "breaking")
_COND_MAX = 1e12
#: relative size of the departure from affinity that :func:`effort_model` accepts (round-off)
_AFFINE_RTOL = 1e-9


def mode_classes(n_c: int) -> tuple[str, ...]:
    """The map classes for ``n_c`` contacts (Fig. 7): one per rolling/sliding pattern (``"RS"``: the
    first contact rolls, the second slides; the first contact is the most significant), then
    ``"breaking"`` (some contact breaks) and ``"not determinate"``."""
    return tuple("".join(p) for p in itertools.product("RS", repeat=n_c)) + ("breaking", "not determinate")


#: the classes of two-contact maps (the hand of Fig. 7): RR, RS, SR, SS, breaking, not determinate
MODE_CLASSES = mode_classes(2)


@dataclass
class EffortModel:
    """Everything that does not depend on the efforts: ``b(e) = b0 + B e``, ``dV/dt`` likewise, the combinations."""

    efforts: tuple[str, ...]
    A: np.ndarray
    b0: np.ndarray
    B: np.ndarray  #: (d n_c, number of efforts)
    v0: np.ndarray  #: dV/dt at c = 0, e = 0
    Vt: np.ndarray  #: d(dV/dt)/de  (n_dof, number of efforts)
    MiH: np.ndarray  #: M^-1 H
    H: np.ndarray
    k: np.ndarray
    mu_c: np.ndarray  #: friction coefficient per contact
    sliding: np.ndarray
    v_t: np.ndarray
    combos: list[CombinationLCP]
    pv: list[PMatrixVerdict]
    dim: int
    names: tuple[str, ...] = ()  #: contact names


def effort_model(system: Callable[..., MultibodySystem], efforts: Sequence[str]) -> EffortModel:
    """The effort-independent parts of the maps of ``system(**efforts)``.

    ``system`` builds the contact state for given values of the named efforts; it is called at
    zero, at each unit effort and at twice each unit effort, and must be affine in them (the
    configuration, velocities and contacts may not depend on the efforts), else
    :class:`~contactcp.errors.InvalidProblemError` is raised."""
    names = tuple(efforts)
    if not names:
        raise InvalidProblemError("efforts", "name at least one effort")
    zero = {n: 0.0 for n in names}
    cd = system(**zero).dynamics()
    cols_b, cols_f = [], []
    for n in names:
        one, two = system(**{**zero, n: 1.0}).dynamics(), system(**{**zero, n: 2.0}).dynamics()
        db, df = one.b - cd.b, one.f - cd.f
        if (
            one.A.shape != cd.A.shape
            or not np.allclose(one.A, cd.A, rtol=_AFFINE_RTOL, atol=0)
            or not np.allclose(
                two.b - cd.b,
                2 * db,
                rtol=_AFFINE_RTOL,
                atol=_AFFINE_RTOL * max(1.0, float(np.abs(cd.b).max(initial=0.0))),
            )
        ):
            raise InvalidProblemError(
                n,
                "the system is not affine in this effort (A or b changes otherwise): "
                "a map over it needs a solve per point (contactcp.sweep with analyse)",
            )
        cols_b.append(db)
        cols_f.append(df)
    solveM = lambda x: np.linalg.solve(cd.M, x)  # noqa: E731
    v0 = solveM(cd.f)
    Vt = np.column_stack([solveM(f) for f in cols_f])
    combos = [combination_lcp(cd, s) for s in sign_combinations(cd)]
    pv = [p_matrix_test(c.A) for c in combos]
    return EffortModel(
        names,
        cd.A,
        cd.b,
        np.column_stack(cols_b),
        v0,
        Vt,
        solveM(cd.H),
        cd.H,
        cd.k,
        cd.mu,
        cd.sliding,
        cd.v_t,
        combos,
        pv,
        cd.dim,
        tuple(cd.names),
    )


def _check_batch(m: EffortModel, c: np.ndarray, Vdot: np.ndarray, bt: np.ndarray) -> np.ndarray:
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
    viol = np.maximum.reduce(
        [np.maximum(0, -cn).max(axis=1), np.maximum(0, -an).max(axis=1), np.abs(np.minimum(cn, an)).max(axis=1)]
    )
    for j in range(C.shape[1]):
        ct, at = C[:, j, 1:], Acc[:, j, 1:]
        if m.sliding[j]:
            e = m.v_t[j] / np.linalg.norm(m.v_t[j])
            v = np.abs(ct + m.mu_c[j] * cn[:, j, None] * e[None, :]).max(axis=1)
        else:
            box = np.maximum(0, np.abs(ct) - mu[:, j, None] * cn[:, j, None]).max(axis=1)
            sign = (
                np.maximum(0, at) * np.abs(ct + mu[:, j, None] * cn[:, j, None])
                + np.maximum(0, -at) * np.abs(ct - mu[:, j, None] * cn[:, j, None])
            ).max(axis=1)
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


def effort_states(
    model: EffortModel, efforts: dict[str, Any], *, tol: float = 1e-9, mode_tol: float = MODE_TOL
) -> dict[str, np.ndarray]:
    """The verdict, modes, forces and first-body acceleration at each point ``k`` of ``efforts``
    (``{name: values}``, one value per point, every effort of the model), in one batch."""
    m = model
    missing = [n for n in m.efforts if n not in efforts]
    if missing or set(efforts) - set(m.efforts):
        raise InvalidProblemError("efforts", f"give exactly the model's efforts {list(m.efforts)}, got {list(efforts)}")
    cols = [vector(efforts[n], n) for n in m.efforts]
    if any(c.shape != cols[0].shape for c in cols):
        raise InvalidProblemError(m.efforts[-1], f"must have the length of {m.efforts[0]} ({cols[0].size})")
    tau = np.column_stack(cols)
    d = m.dim
    bt = m.b0[None, :] + tau @ m.B.T  # (K, d n_c)
    cands, incomplete = _candidates(m, bt, tol)
    feas, Cs, As = _feasible(m, bt, cands)
    F = np.array(feas)  # (n_cand, K)
    cand_combo = np.array([ci for *_, ci in cands])
    n_feasible = np.array([F[cand_combo == ci].any(axis=0) for ci in range(len(m.combos))]).sum(axis=0)
    distinct, rep, same_as = _distinct(bt, F, Cs, As, float(np.abs(m.A).max()))
    c, a, resid, pflag, has = _representatives(m, cands, F, Cs, As, rep, same_as)
    Vdot = m.v0[None, :] + tau @ m.Vt.T + np.nan_to_num(c) @ m.MiH.T
    viol = np.where(has, _check_batch(m, np.nan_to_num(c), Vdot, bt), np.nan)
    verdict = _verdicts(distinct, incomplete, has, viol, pflag)
    det = verdict == VERDICTS.index("determinate")
    modes, cls = _modes(m, bt, c, a, has, det, mode_tol)
    Vdot[~has] = np.nan
    out: dict[str, Any] = {
        "cls": cls,
        "verdict": verdict,
        "determinate": det,
        "n_feasible": n_feasible,
        "n_distinct": distinct,
        "p_matrix": pflag,
        "residual": resid,
        "max_violation": viol,
        "vdot": Vdot,
    }
    for j in range(modes.shape[1]):
        out[f"mode{j + 1}"] = modes[:, j]
        out[f"c_n{j + 1}"], out[f"c_t{j + 1}"] = c[:, d * j], c[:, d * j + 1]
        out[f"a_n{j + 1}"], out[f"a_t{j + 1}"] = a[:, d * j], a[:, d * j + 1]
    return out


def _candidates(m: EffortModel, bt: np.ndarray, tol: float):
    """Every solution of every combination's LCP at every point: ``(Y, ok, resid, combo index)`` rows,
    and which points had a solution the batch could not find (incomplete)."""
    K = bt.shape[0]
    cands = []  # (y, ok, resid, combo index)
    incomplete = np.zeros(K, dtype=bool)
    for ci, (comb, pv) in enumerate(zip(m.combos, m.pv)):
        Q = bt @ comb.P.T
        if pv.is_p:
            res = solve_batch(comb.A, Q, tol=tol)
            incomplete |= ~res.success  # a P-matrix LCP always has its solution: not found
            cands.append((res.x, res.success, res.residual, ci))
        else:
            for Y, ok, resid in _enumerate_batch(comb.A, Q, tol):
                if Y is None:
                    incomplete[:] = True
                    continue
                cands.append((Y, ok, resid, ci))
    return cands, incomplete


def _feasible(m: EffortModel, bt: np.ndarray, cands: list):
    """Per candidate: which points satisfy the bound (23), the forces and the accelerations."""
    feas, Cs, As = [], [], []
    for Y, ok, _resid, ci in cands:
        comb = m.combos[ci]
        scale = np.maximum(np.abs(Y).max(axis=1), np.abs(bt).max(axis=1))
        bound = comb.bound_violation(Y)
        good = ok & (bound.max(axis=1, initial=-np.inf) <= BOUND_RTOL * scale) if bound.size else ok.copy()
        C = Y @ comb.T.T
        feas.append(good)
        Cs.append(C)
        As.append(C @ m.A.T + bt)
    return feas, Cs, As


def _distinct(bt: np.ndarray, F: np.ndarray, Cs: list, As: list, amax: float):
    """Distinct feasible solutions per point (compared on the data's scales, as in analyse) and the
    first candidate that gives each point's solution."""
    K = bt.shape[0]
    distinct = np.zeros(K, dtype=int)
    rep = np.full(K, -1)
    # solutions are compared on the data's scales, as in analyse: accelerations against
    # max(|a|, |b|), forces against max(|c|, |b| / max|A|)
    b_s = np.abs(bt).max(axis=1)
    c_s = b_s / max(amax, 1e-300)

    def same_as(C1, A1, C2, A2):
        cs = np.maximum.reduce([np.abs(C1).max(axis=1), np.abs(C2).max(axis=1), c_s, np.full(K, 1e-300)])
        as_ = np.maximum.reduce([np.abs(A1).max(axis=1), np.abs(A2).max(axis=1), b_s, np.full(K, 1e-300)])
        return (np.abs(C1 - C2).max(axis=1) <= SAME_RTOL * cs) & (np.abs(A1 - A2).max(axis=1) <= SAME_RTOL * as_)

    for i in range(F.shape[0]):
        new = F[i].copy()
        for j in range(i):
            same = F[j] & same_as(Cs[i], As[i], Cs[j], As[j])
            new &= ~same
        distinct += new
        rep[(rep < 0) & F[i]] = i
    return distinct, rep, same_as


def _representatives(m: EffortModel, cands: list, F: np.ndarray, Cs: list, As: list, rep: np.ndarray, same_as):
    """The representative solution of each point and its P verdict."""
    K = rep.shape[0]
    d = m.dim
    n_c = m.A.shape[0] // d
    has = rep >= 0
    c = np.full((K, d * n_c), np.nan)
    a = np.full((K, d * n_c), np.nan)
    resid = np.full(K, np.nan)
    pflag = np.full(K, -1, dtype=int)
    for i, (_Y, _ok, r, _ci) in enumerate(cands):
        sel = rep == i
        c[sel], a[sel], resid[sel] = Cs[i][sel], As[i][sel], r[sel]
    # the P verdict of the solution: P (with a margin) if any combination that gives it is (as analyse)
    best = np.full(K, -1)
    for i, (_Y, _ok, _r, ci) in enumerate(cands):
        same = has & F[i] & same_as(Cs[i], As[i], np.nan_to_num(c), np.nan_to_num(a))
        best[same] = np.maximum(best[same], p_rank(m.pv[ci]))
    pflag[best == 2], pflag[best == 0] = 1, 0
    return c, a, resid, pflag, has


def _verdicts(distinct, incomplete, has, viol, pflag) -> np.ndarray:
    """Each point's verdict (VERDICTS), as analyse decides it for one state."""
    K = distinct.shape[0]
    failed = has & ~(viol <= CHECK_TOL)  # the independent check failed
    verdict = np.full(K, VERDICTS.index("undecided"))
    verdict[(distinct > 1) & ~failed] = VERDICTS.index("several")
    verdict[(distinct == 0) & ~incomplete] = VERDICTS.index("none")
    one = (distinct == 1) & ~incomplete & ~failed
    verdict[one & (pflag == 1)] = VERDICTS.index("determinate")
    verdict[one & (pflag == 0)] = VERDICTS.index("not-P")
    return verdict


def _modes(m: EffortModel, bt, c, a, has, det, mode_tol) -> tuple[np.ndarray, np.ndarray]:
    """Each contact's mode (MODE_NAMES index; -1 without a solution) and each point's class
    (:func:`mode_classes`), as interpret.dynamic.classify: thresholds relative to max(|b|, |A c|)."""
    K, d = c.shape[0], m.dim
    n_c = m.A.shape[0] // d
    as_ = np.maximum(np.abs(bt).max(axis=1), np.nan_to_num(np.abs(c @ m.A.T)).max(axis=1))
    aa = a.reshape(K, n_c, d)
    an, at = aa[:, :, 0], np.linalg.norm(aa[:, :, 1:], axis=2)
    modes = np.where(an > mode_tol * as_[:, None], 2, np.where(at > mode_tol * as_[:, None], 1, 0))
    modes[~has] = -1
    classes = mode_classes(n_c)
    cls = np.full(K, classes.index("not determinate"))
    brk = det & (modes == 2).any(axis=1)
    cls[brk] = classes.index("breaking")
    ok2 = det & ~brk
    cls[ok2] = (modes[ok2] * (1 << np.arange(n_c - 1, -1, -1))[None, :]).sum(axis=1)  # RR, RS, SR, SS, ...
    return modes, cls


def acceleration_names(*labels: str) -> dict[str, str | None]:
    """``names`` for :func:`effort_map` keeping the first body's first accelerations under ``labels``
    (``vdot0`` as ``labels[0]``, ...) and dropping the others."""
    return {f"vdot{j}": (labels[j] if j < len(labels) else None) for j in range(6)}


def _chunk(model: EffortModel, tol: float, names: dict, **columns: np.ndarray) -> dict[str, np.ndarray]:
    out = effort_states(model, columns, tol=tol)
    vdot = out.pop("vdot")
    for j in range(min(vdot.shape[1], 6)):  # the first body's accelerations
        out[f"vdot{j}"] = vdot[:, j]
    return {names.get(k, k): v for k, v in out.items() if names.get(k, k) is not None}


def effort_map(
    model: EffortModel,
    axes: dict[str, Any],
    *,
    tol: float = 1e-9,
    workers: int | None = None,
    executor: Any = None,
    chunk_size: int | None = None,
    progress: bool = True,
    desc: str = "mode map",
    store: Any = None,
    resume: bool = False,
    scheduler: Any = None,
    names: dict[str, str | None] | None = None,
) -> Table:
    """The map over the grid of ``axes`` (``{effort: values}``, every effort of the model) as a
    :class:`contactcp.sweep.Table`: the columns of :func:`effort_states`, the first body's
    accelerations as ``vdot0``, ``vdot1``, ... (``names`` renames columns, ``None`` drops one, in the
    workers, so that a store holds the final names).  ``store``, ``resume``, ``scheduler``: as for
    :func:`contactcp.sweep.sweep` (stream into a folder, complete it, run on Dask)."""
    from contactcp._validate import number
    from contactcp.sweep import grid, sweep

    pts = grid(**{n: vector(v, n) for n, v in axes.items()})
    fn = functools.partial(_chunk, model, number(tol, "tol"), dict(names or {}))
    return sweep(
        fn,
        pts,
        batched=True,
        executor=executor,
        workers=workers,
        chunk_size=chunk_size,
        progress=progress,
        desc=desc,
        store=store,
        resume=resume,
        scheduler=scheduler,
    )

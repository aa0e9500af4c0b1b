"""The quasistatic contact problem as a UCP (Pang, Trinkle & Lo 1994, Section 2).

With ``P = [W^T  J_abar]`` and any ``Z`` whose null space is the column space of
``P``, Proposition 1 and Theorem 1 give

    X = {x = (v_n, v_t+, v_t-) >= 0 : Z_n v_n + Z_t (v_t+ - v_t-) + Z J_alpha theta_dot_alpha = 0}
    Y = {y = (c_n, s_t+, s_t-) >= 0 : C y + d = 0}

    C = [[2U,                         -I,          -I],
         [W_n - W_t U,                W_t,         0 ],
         [(J_n)_abar^T - (J_t)_abar^T U, (J_t)_abar^T, 0 ]]

and the motions are the pairs ``(x, y) in X x Y`` with ``x . y = 0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from contactcp.errors import InvalidProblemError
from contactcp.linalg.lp import clean
from contactcp.models.planar_quasistatic import PlanarQuasistaticProblem
from contactcp.problems import UCP

__all__ = ["QuasistaticUCP", "quasistatic_ucp", "null_space_rows"]


def null_space_rows(P: np.ndarray, rtol: float = 1e-10) -> tuple[np.ndarray, int]:
    """``Z`` with orthonormal rows spanning the left null space of ``P`` (so ``Z a = 0`` iff
    ``a = P b``), by SVD; returns ``(Z, rank P)``.  Singular values below
    ``rtol * s_max`` count as zero (the paper's data are printed to 3-4 digits)."""
    U, s, _ = np.linalg.svd(P, full_matrices=True)
    r = int((s > rtol * max(s.max(initial=0.0), 1e-300)).sum()) if s.size else 0
    return U[:, r:].T.copy(), r


def closed_form_Z(model: PlanarQuasistaticProblem) -> np.ndarray | None:
    """``Z = [W_n^-T  -W_t^-T]`` when ``abar`` is empty and ``W_n``, ``W_t`` are square and
    nonsingular (the paper's closed form); None otherwise."""
    if model.abar.size or model.n_q != model.n_c:
        return None
    try:
        if min(np.linalg.cond(model.W_n), np.linalg.cond(model.W_t)) > 1e12:
            return None
        return np.hstack([np.linalg.inv(model.W_n).T, -np.linalg.inv(model.W_t).T])
    except np.linalg.LinAlgError:
        return None


class QuasistaticUCP(UCP):
    """The UCP of a :class:`PlanarQuasistaticProblem`, remembering where it came from.

    Extra attributes: ``model``, ``Z``, ``rank_P``, ``z_method``
    (``"closed_form"`` or ``"svd"``) and ``rank_notes``: what rank deficiency of
    ``P`` or of ``C`` means for the answers (reported, never silently dropped).
    ``x = (v_n, v_t+, v_t-)``, ``y = (c_n, s_t+, s_t-)``.
    """

    def __init__(
        self,
        A_x: Any,
        b_x: Any,
        A_y: Any,
        b_y: Any,
        *,
        model: PlanarQuasistaticProblem,
        Z: np.ndarray,
        rank_P: int,
        z_method: str,
        rank_notes: tuple[str, ...] = (),
    ):
        super().__init__(A_x, b_x, A_y, b_y)
        for k, v in dict(model=model, Z=Z, rank_P=rank_P, z_method=z_method, rank_notes=rank_notes).items():
            object.__setattr__(self, k, v)

    @property
    def n_c(self) -> int:
        return self.model.n_c

    def __repr__(self) -> str:
        return (
            f"QuasistaticUCP(n_c={self.n_c}, rows_x={self.A_x.shape[0]}, rows_y={self.A_y.shape[0]}, "
            f"rank_P={self.rank_P}, Z={self.z_method})"
        )


def quasistatic_ucp(model: PlanarQuasistaticProblem, Z: str = "auto") -> QuasistaticUCP:
    """Build the UCP of ``model``.

    ``Z``: ``"svd"`` (orthonormal left null space of ``P``), ``"closed_form"``
    (``[W_n^-T, -W_t^-T]``, only when it applies) or ``"auto"`` (closed form when
    it applies, else SVD).  Entries below ``1e-12`` of their row's largest are
    zeroed so round-off cannot create spurious vertices.
    """
    if Z not in ("auto", "svd", "closed_form"):
        raise InvalidProblemError("Z", f"must be 'auto', 'svd' or 'closed_form', got {Z!r}")
    m = model
    n_c = m.n_c
    P = m.P
    Zm, rank = null_space_rows(P)
    how = "svd"
    if Z in ("auto", "closed_form"):
        zc = closed_form_Z(m)
        if zc is not None:
            Zm, how = zc, "closed_form"
        elif Z == "closed_form":
            raise InvalidProblemError("Z", "the closed form needs abar empty and W_n, W_t square and nonsingular")
    Z_n, Z_t = Zm[:, :n_c], Zm[:, n_c:]
    J = np.vstack([m.J_n, m.J_t])
    a = np.flatnonzero(m.alpha)
    A_x = np.hstack([Z_n, Z_t, -Z_t])
    b_x = -(Zm @ J[:, a] @ m.theta_dot[a]) if a.size else np.zeros(Zm.shape[0])
    U = np.diag(m.mu)
    I = np.eye(n_c)
    ab = m.abar
    Jn_ab, Jt_ab = m.J_n[:, ab].T, m.J_t[:, ab].T
    C = np.block(
        [
            [2 * U, -I, -I],
            [m.W_n - m.W_t @ U, m.W_t, np.zeros((m.n_q, n_c))],
            [Jn_ab - Jt_ab @ U, Jt_ab, np.zeros((ab.size, n_c))],
        ]
    )
    A_x, b_x = clean(A_x, b_x)
    A_y, b_y = clean(C, -m.d)
    return QuasistaticUCP(
        A_x, b_x, A_y, b_y, model=m, Z=Zm, rank_P=rank, z_method=how, rank_notes=_rank_notes(P, rank, C)
    )


def _rank_notes(P: np.ndarray, rank: int, C: np.ndarray) -> tuple[str, ...]:
    """What the ranks of ``P`` and ``C`` mean, in words (Section 2, Proposition 1)."""
    notes = []
    if P.shape[1] and rank == 0:
        raise InvalidProblemError("P", "is zero: no contact constrains the motion")
    if rank < P.shape[1]:
        notes.append(
            f"P has rank {rank} < {P.shape[1]} columns: the contact velocities are determined, but the "
            f"object velocity and the unknown joint velocities are not unique ({P.shape[1] - rank}-"
            f"dimensional freedom); the reported ones are the least-squares choice"
        )
    rc = int(np.linalg.matrix_rank(C)) if C.size else 0
    if rc < C.shape[0]:
        notes.append(
            f"C has rank {rc} < {C.shape[0]} rows: {C.shape[0] - rc} equilibrium/effort equation(s) "
            f"depend on the others (consistent ones are dropped; an inconsistent one makes Y empty, "
            f"with a Farkas proof)"
        )
    return tuple(notes)

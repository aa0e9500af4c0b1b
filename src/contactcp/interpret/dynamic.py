"""Contact modes and transitions of a dynamic answer, and the check of the original conditions.

Given forces ``c`` the check recomputes everything from the equations of motion
``M dV/dt = f + H c`` and the kinematics ``a = H^T dV/dt + k`` (Buffo–Maciel
(7), (9), (11)), not from the formulation's ``A`` and ``b``, and measures

* Signorini (15)–(17): ``c_n >= 0``, ``a_n >= 0``, ``c_n a_n = 0``;
* the friction law: in the cone ``||c_T|| <= mu c_n`` (18) or the pyramid
  ``|c_k| <= mu c_n``; sliding contacts: friction opposing the sliding
  velocity on the boundary (19); rolling contacts: ``a_T != 0`` only with
  friction on the boundary opposing it (20) (pyramid: per direction).

Violations are divided by the scales of forces (``max|c|``, at least the force
that the acceleration scale corresponds to) and accelerations (``max(|b|, |A c|)``),
so the measure is dimensionless and data-based.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contactcp.models.system import ContactDynamics

__all__ = ["ContactOutcome", "classify", "check_dynamic"]

from contactcp.settings import MODE_TOL  # noqa: E402  (re-exported)


@dataclass
class ContactOutcome:
    """One contact's answer: force ``c`` and relative acceleration ``a`` (normal first)."""

    name: str
    c: np.ndarray
    a: np.ndarray
    state: str
    mode: str
    loaded: bool

    @property
    def transition(self) -> str:
        return "unchanged" if self.mode == self.state else f"{self.state}->{self.mode}"

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "c": self.c.tolist(),
            "a": self.a.tolist(),
            "state": self.state,
            "mode": self.mode,
            "transition": self.transition,
            "loaded": self.loaded,
        }


def _scales(cd: ContactDynamics, c: np.ndarray, a: np.ndarray) -> tuple[float, float]:
    """``(force scale, acceleration scale)``: the accelerations' is ``max(|b|, |A c|)`` (the free
    motion and what the forces do); the forces' is ``max|c|``, but at least the force that the
    acceleration scale corresponds to through ``A`` (``max(|b|, |A c|) / max|A_ij|``), so that
    forces that are zero up to round-off (a body pushed off its contacts) are measured against
    the data and not against their own size."""
    as_ = max(float(np.abs(cd.b).max(initial=0.0)), float(np.abs(cd.A @ c).max(initial=0.0)), np.finfo(float).tiny)
    amax = float(np.abs(cd.A).max(initial=0.0))
    cs = max(float(np.abs(c).max(initial=0.0)), as_ / amax if amax > 0 else 0.0, np.finfo(float).tiny)
    return cs, as_


def classify(cd: ContactDynamics, c: np.ndarray, a: np.ndarray, tol: float = MODE_TOL) -> list[ContactOutcome]:
    """Mode of each contact: ``breaking`` (``a_n > 0``), ``sliding`` or ``rolling``.

    A contact with ``c_n = 0`` and ``a_n = 0`` stays (``loaded = False``), as in
    the quasistatic interpretation.  Thresholds are ``tol`` times the scales.
    """
    d = cd.dim
    cs, as_ = _scales(cd, c, a)
    out = []
    for j in range(cd.n_c):
        cj, aj = c[d * j : d * j + d], a[d * j : d * j + d]
        state = "sliding" if cd.sliding[j] else "rolling"
        if aj[0] > tol * as_:
            mode = "breaking"
        elif state == "sliding" or np.linalg.norm(aj[1:]) > tol * as_:
            mode = "sliding"
        else:
            mode = "rolling"
        out.append(ContactOutcome(cd.names[j], cj.copy(), aj.copy(), state, mode, bool(cj[0] > tol * cs)))
    return out


def check_dynamic(cd: ContactDynamics, c: np.ndarray, friction: str) -> tuple[float, np.ndarray, np.ndarray]:
    """``(max scaled violation, a, dV/dt)`` of the original conditions for forces ``c``.

    ``friction``: ``"cone"``, ``"pyramid"``, or ``"decomposition"`` (Yashima–Yamaguchi: the
    pyramid for rolling contacts, eq. (15), and the cone's direction for sliding ones, eq. (5)).
    """
    d = cd.dim
    Vdot = cd.accelerations(c)
    a = cd.H.T @ Vdot + cd.k
    cs, as_ = _scales(cd, c, a)
    # equations of motion, relative to their terms
    eom = np.abs(cd.M @ Vdot - cd.f - cd.H @ c).max(initial=0.0) / max(
        1.0, float(np.abs(cd.f).max(initial=0.0)), float(np.abs(cd.H @ c).max(initial=0.0))
    )
    C = c.reshape(-1, d)
    Acc = a.reshape(-1, d)
    cn, an = C[:, 0] / cs, Acc[:, 0] / as_
    viol = [eom, max(0.0, -cn.min()), max(0.0, -an.min()), float(np.abs(np.minimum(cn, an)).max())]
    mu = cd.mu
    for j in range(cd.n_c):
        ct, at = C[j, 1:] / cs, Acc[j, 1:] / as_
        cnj = cn[j]
        if friction == "cone" or (friction == "decomposition" and cd.sliding[j]):
            viol.append(max(0.0, np.linalg.norm(ct) - mu[j] * cnj))
            if cd.sliding[j]:
                viol.append(float(np.abs(ct - cnj * cd.sliding_friction(j)).max()))
            else:
                # maximal dissipation: c_T = -mu c_n a_T / ||a_T|| when a_T != 0, i.e.
                # mu c_n a_T + c_T ||a_T|| = 0 (Buffo–Maciel (20))
                viol.append(float(np.abs(mu[j] * cnj * at + ct * np.linalg.norm(at)).max(initial=0.0)))
        else:
            viol.append(float(max(0.0, (np.abs(ct) - mu[j] * cnj).max(initial=0.0))))
            for k in range(d - 1):
                vk = cd.v_t[j, k] if cd.sliding[j] else 0.0
                if vk != 0.0:
                    viol.append(abs(ct[k] + mu[j] * cnj * np.sign(vk)))
                else:
                    # a_k > 0 needs c_k = -mu c_n, a_k < 0 needs c_k = +mu c_n
                    viol.append(
                        max(0.0, at[k]) * abs(ct[k] + mu[j] * cnj) + max(0.0, -at[k]) * abs(ct[k] - mu[j] * cnj)
                    )
    return float(max(viol)), a, Vdot

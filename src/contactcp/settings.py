"""Tolerances and the package logger, in one place.

Every default tolerance of the package is defined here and read from here (by the solvers, the
independent checks, the CLI): change a default by assigning a new value before calling, e.g.
``contactcp.settings.CHECK_TOL = 1e-6``, or pass the tolerance to the call.

* :data:`DEFAULT_TOL` — a result is ``SOLVED`` when its problem's own residual is at most this
  (:class:`contactcp.result.Residual`).
* :data:`CHECK_TOL` — the independent check of the original contact conditions of a dynamic
  answer (equations of motion, Signorini, the friction law), dimensionless
  (:func:`contactcp.interpret.dynamic.check_dynamic`).
* :data:`QUASISTATIC_CHECK_TOL` — the same for the planar quasistatic conditions (2)–(10) of Pang,
  Trinkle & Lo.
* :data:`MODE_TOL` — a relative acceleration counts as nonzero (sliding, breaking) above this times
  the acceleration scale of the state.

The logger ``logging.getLogger("contactcp")`` (:data:`logger`) carries the package's notices (a
numba kernel compiled on a cold cache, ...); the package adds no handler: Python's last-resort
handler prints warnings, and an application configures its own.
"""

from __future__ import annotations

import logging

__all__ = ["DEFAULT_TOL", "CHECK_TOL", "QUASISTATIC_CHECK_TOL", "MODE_TOL", "logger"]

DEFAULT_TOL = 1e-9
CHECK_TOL = 1e-7
QUASISTATIC_CHECK_TOL = 1e-8
MODE_TOL = 1e-7

logger = logging.getLogger("contactcp")

"""Solvers, grouped by problem type, behind one registry.

* :mod:`contactcp.solvers.registry` — :func:`solve`, :func:`methods`, the default chains, and the
  public extension point :func:`register` (with :class:`Raw` and the option checks ``integer``,
  ``real``, ``boolean``, ``choice``, ``vector``): a new method is a function registered there.
* :mod:`~contactcp.solvers.lcp` (LCP, mixed and box LCPs), :mod:`~contactcp.solvers.cone` (the
  Coulomb-cone problem), :mod:`~contactcp.solvers.ncp` (mixed NCPs), :mod:`~contactcp.solvers.ucp`
  (uncoupled problems); :mod:`~contactcp.solvers.batch` solves many small LCPs at once.
* :mod:`~contactcp.solvers.catalog` lists every method module; it is imported on first use.
"""

from contactcp.solvers.registry import (
    Raw,
    boolean,
    choice,
    default_chain,
    integer,
    method_info,
    methods,
    real,
    register,
    solve,
    vector,
)

__all__ = [
    "solve",
    "methods",
    "method_info",
    "default_chain",
    "register",
    "Raw",
    "integer",
    "real",
    "boolean",
    "choice",
    "vector",
]

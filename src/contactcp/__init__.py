"""contactcp: rigid-body contact with Coulomb friction as certified complementarity problems.

>>> import contactcp as ccp
>>> res = ccp.solve(ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0]))
>>> res.status.name, res.x.round(6).tolist()
('SOLVED', [1.333333, 2.333333])

The names below are the public API.  Importing the package is light: the solvers (and their
compiled kernels) load on the first solve, and ``solve_batch``/``warmup`` on first use.
"""

from contactcp._jit import install_notice as _install_notice

_install_notice()  # one warning on the "contactcp" logger when kernels compile (cold cache)

from contactcp._version import __version__  # noqa: E402
from contactcp.errors import (  # noqa: E402
    ContactCPError,
    InvalidOptionError,
    InvalidProblemError,
    InverseKinematicsError,
    SweepError,
    UnknownMethodError,
)
from contactcp.problems import (  # noqa: E402
    LCP,
    UCP,
    BoxLCP,
    FrictionContactProblem,
    GlobalFrictionContactProblem,
    MixedLCP,
    MixedNCP,
    Problem,
)
from contactcp.result import (  # noqa: E402
    INCONCLUSIVE_STATUSES,
    INFEASIBLE_STATUSES,
    SOLVED_STATUSES,
    Certificate,
    Residual,
    Result,
    Status,
)
from contactcp.settings import DEFAULT_TOL  # noqa: E402
from contactcp.solvers.registry import methods, solve  # noqa: E402

__all__ = [
    "__version__",
    "solve",
    "solve_batch",
    "solve_friction_batch",
    "BatchResult",
    "methods",
    "DEFAULT_TOL",
    "warmup",
    "LCP",
    "MixedLCP",
    "BoxLCP",
    "UCP",
    "MixedNCP",
    "FrictionContactProblem",
    "GlobalFrictionContactProblem",
    "Problem",
    "Result",
    "Residual",
    "Certificate",
    "Status",
    "SOLVED_STATUSES",
    "INFEASIBLE_STATUSES",
    "INCONCLUSIVE_STATUSES",
    "ContactCPError",
    "InvalidProblemError",
    "UnknownMethodError",
    "InvalidOptionError",
    "SweepError",
    "InverseKinematicsError",
]

_LAZY = {
    "solve_batch": ("contactcp.solvers.batch", "solve_batch"),
    "solve_friction_batch": ("contactcp.solvers.friction_batch", "solve_friction_batch"),
    "BatchResult": ("contactcp.solvers.batch", "BatchResult"),
    "warmup": ("contactcp._jit", "warmup"),
}


def __getattr__(name: str):
    """The heavier names, imported on first use (PEP 562)."""
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'contactcp' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

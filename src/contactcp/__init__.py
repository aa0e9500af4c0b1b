"""contactcp: rigid-body contact with Coulomb friction as certified complementarity problems.

>>> import contactcp as ccp
>>> res = ccp.solve(ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0]))
>>> res.status.name, res.x.round(6).tolist()
('SOLVED', [1.333333, 2.333333])
"""

from contactcp._jit import install_notice as _install_notice

_install_notice()                       # one warning on the "contactcp" logger when kernels compile (cold cache)

from contactcp._jit import warmup  # noqa: E402
from contactcp.solvers.registry import DEFAULT_TOL, methods, solve  # noqa: E402
from contactcp.solvers.batch import BatchResult, solve_batch  # noqa: E402
from contactcp.errors import ContactCPError, InvalidOptionError, InvalidProblemError, UnknownMethodError  # noqa: E402
from contactcp.problems import LCP, UCP, BoxLCP, FrictionContactProblem, MixedLCP, MixedNCP, Problem  # noqa: E402
from contactcp.result import (INCONCLUSIVE_STATUSES, INFEASIBLE_STATUSES, SOLVED_STATUSES, Certificate,  # noqa: E402
                     Residual, Result, Status)

__version__ = "0.1.0"

__all__ = [
    "__version__", "solve", "solve_batch", "BatchResult", "methods", "DEFAULT_TOL", "warmup",
    "LCP", "MixedLCP", "BoxLCP", "UCP", "MixedNCP", "FrictionContactProblem", "Problem",
    "Result", "Residual", "Certificate", "Status",
    "SOLVED_STATUSES", "INFEASIBLE_STATUSES", "INCONCLUSIVE_STATUSES",
    "ContactCPError", "InvalidProblemError", "UnknownMethodError", "InvalidOptionError",
]

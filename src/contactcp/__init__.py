"""contactcp: rigid-body contact with Coulomb friction as certified complementarity problems.

>>> import contactcp as ccp
>>> res = ccp.solve(ccp.LCP([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0]))
>>> res.status.name, res.x.round(6).tolist()
('SOLVED', [1.333333, 2.333333])
"""

from ._registry import DEFAULT_TOL, methods, solve
from .batch import BatchResult, solve_batch
from .errors import ContactCPError, InvalidOptionError, InvalidProblemError, UnknownMethodError
from .problems import LCP, UCP, BoxLCP, MixedLCP, MixedNCP, Problem
from .result import (INCONCLUSIVE_STATUSES, INFEASIBLE_STATUSES, SOLVED_STATUSES, Certificate, Residual,
                     Result, Status)

__version__ = "0.1.0"

__all__ = [
    "__version__", "solve", "solve_batch", "BatchResult", "methods", "DEFAULT_TOL",
    "LCP", "MixedLCP", "BoxLCP", "UCP", "MixedNCP", "Problem",
    "Result", "Residual", "Certificate", "Status",
    "SOLVED_STATUSES", "INFEASIBLE_STATUSES", "INCONCLUSIVE_STATUSES",
    "ContactCPError", "InvalidProblemError", "UnknownMethodError", "InvalidOptionError",
]

"""Complementarity problem types (validated on construction, immutable)."""

from contactcp.problems._base import Problem
from contactcp.problems.friction import FrictionContactProblem
from contactcp.problems.friction_global import GlobalFrictionContactProblem
from contactcp.problems.lcp import LCP, BoxLCP, MixedLCP
from contactcp.problems.ncp import MixedNCP
from contactcp.problems.ucp import UCP

__all__ = [
    "Problem",
    "LCP",
    "MixedLCP",
    "BoxLCP",
    "UCP",
    "MixedNCP",
    "FrictionContactProblem",
    "GlobalFrictionContactProblem",
]

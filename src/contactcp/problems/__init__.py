"""Complementarity problem types (validated on construction, immutable)."""

from ._base import Problem
from .friction import FrictionContactProblem
from .lcp import LCP, BoxLCP, MixedLCP
from .ncp import MixedNCP
from .ucp import UCP

__all__ = ["Problem", "LCP", "MixedLCP", "BoxLCP", "UCP", "MixedNCP", "FrictionContactProblem"]

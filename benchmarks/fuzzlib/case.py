"""A fuzz case: the problem, the data the harness checks against, and what is known about it."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Case", "case_rng", "far_start", "warm_starts", "START_OPTIONS"]

# the option through which each method takes a start (checked against the registry before use)
START_OPTIONS = {"pgs": "z0", "interior-point": "z0", "merit": "x0", "newton": "r0", "nsgs": "r0"}


@dataclass
class Case:
    ptype: str  # LCP, MixedLCP, BoxLCP, FrictionContact, UCP, MixedNCP
    family: str
    index: int
    problem: Any  # the contactcp problem object
    data: dict  # the floats the harness checks against (its own copy)
    truth: str = "unknown"  # "solvable" (a planted exact solution), "infeasible" (a planted
    # exact Farkas vector with margin), "unknown"
    note: str = ""  # sub-family, structure
    starts: dict = field(default_factory=dict)  # method -> options (far-away warm starts)
    planted: Any = None  # the planted solution or Farkas vector (for the report)
    margin: float | None = None  # infeasible: no point has a contract residual below this

    @property
    def key(self) -> str:
        return f"{self.ptype}:{self.family}:{self.index}"

    @property
    def size(self) -> int:
        d = self.data
        for k in ("q", "b_x", "k"):
            if k in d:
                return len(d[k]) if k != "b_x" else int(np.shape(d["A_x"])[1])
        return 0


def case_rng(seed: int, ptype: str, family: str, index: int) -> np.random.Generator:
    """One independent, reproducible stream per problem."""
    return np.random.default_rng([seed, zlib.crc32(ptype.encode()), zlib.crc32(family.encode()), index])


def far_start(rng: np.random.Generator, n: int, positive: bool = False) -> np.ndarray:
    """A start of size 1e6 .. 1e150 (per entry magnitudes within two decades of a common one)."""
    e = rng.uniform(6, 150)
    mag = 10.0 ** (e + rng.uniform(-2, 0, n))
    sign = np.ones(n) if positive else rng.choice([-1.0, 1.0], n)
    x = sign * mag
    if not positive and n > 1:
        x[rng.random(n) < 0.2] = 0.0
    return x


def warm_starts(ccp, problem, n: int, rng: np.random.Generator) -> dict:
    """Far-away starts for every applicable method whose registered options include its start option
    (``contactcp.solvers.registry.method_info(name)[i].options``); interior-point needs a positive start."""
    from contactcp.solvers.registry import method_info

    out = {}
    for m in ccp.methods(problem):
        opt = START_OPTIONS.get(m)
        if opt and any(opt in s.options and s.applies(problem) for s in method_info(m)):
            out[m] = {opt: far_start(rng, n, positive=(m == "interior-point"))}
    return out

"""The problem schedule: which (type, family, index) keys a run covers, and how to rebuild any of them."""

from __future__ import annotations

from .case import Case, case_rng
from .gen_fc import FC_FAMILIES, make_fc
from .gen_linear import LINEAR_FAMILIES, make_linear
from .gen_other import NCP_FAMILIES, UCP_FAMILIES, make_ncp, make_ucp
from .targeted import targeted_cases

__all__ = ["TYPES", "plan", "build_case"]

# type -> (families, share of the problems)
TYPES = {
    "LCP": (LINEAR_FAMILIES, 0.40),
    "MixedLCP": (LINEAR_FAMILIES, 0.13),
    "BoxLCP": ([f for f in LINEAR_FAMILIES if f != "warm"], 0.10),
    "FrictionContact": (FC_FAMILIES, 0.17),
    "UCP": (UCP_FAMILIES, 0.10),
    "MixedNCP": (NCP_FAMILIES, 0.10),
}

_TARGETED: list[Case] | None = None


def _targeted(ccp) -> list[Case]:
    global _TARGETED
    if _TARGETED is None:
        _TARGETED = targeted_cases(ccp)
    return _TARGETED


def plan(ccp, n_problems: int, types: list[str], targeted: bool = True) -> list[str]:
    """Keys ``TYPE:FAMILY:INDEX``, the families of a type in turn; the targeted cases first."""
    keys = []
    if targeted:
        keys += [c.key for c in _targeted(ccp) if c.ptype in types]
    total = sum(TYPES[t][1] for t in types)
    rest = max(0, n_problems - len(keys))
    for t in types:
        fams, share = TYPES[t]
        count = round(rest * share / total)
        keys += [f"{t}:{fams[i % len(fams)]}:{i // len(fams)}" for i in range(count)]
    return keys


def build_case(ccp, seed: int, key: str) -> Case:
    ptype, family, index = key.split(":")
    index = int(index)
    if family == "targeted":
        case = _targeted(ccp)[index]
        if case.ptype != ptype:
            raise KeyError(key)
        return case
    rng = case_rng(seed, ptype, family, index)
    if ptype in ("LCP", "MixedLCP", "BoxLCP"):
        case = make_linear(ccp, ptype, family, index, rng)
    elif ptype == "FrictionContact":
        case = make_fc(ccp, family, index, rng)
    elif ptype == "UCP":
        case = make_ucp(ccp, family, index, rng)
    elif ptype == "MixedNCP":
        case = make_ncp(ccp, family, index, rng)
    else:
        raise KeyError(key)
    return case

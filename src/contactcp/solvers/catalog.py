"""The catalogue of methods: importing this module registers every method with
:func:`contactcp.solve` and declares each problem type's default chain.

The registry imports it on first use (:func:`contactcp.solvers.registry.solve`), so that
``import contactcp`` does not import (and compile) every solver.  A new method module is listed
here; a new problem type declares its chain here.
"""

import numpy as np

from contactcp.problems import (
    LCP,
    UCP,
    BoxLCP,
    FrictionContactProblem,
    GlobalFrictionContactProblem,
    MixedLCP,
    MixedNCP,
)
from contactcp.solvers import registry
from contactcp.solvers.cone import admm, global_form, newton, newton_global, newton_minnorm, nsgs, prox  # noqa: F401
from contactcp.solvers.lcp import bpp, enumerate, enumerate_box, interior_point, lemke, milp, pgs  # noqa: F401
from contactcp.solvers.lcp.polish import finish_linear
from contactcp.solvers.ncp import merit  # noqa: F401
from contactcp.solvers.ucp import bilinear, exact  # noqa: F401
from contactcp.solvers.ucp import enumerate as ucp_enumerate  # noqa: F401

# the default chains: each method runs while the answers are inconclusive (contactcp.solve)
#: the linear problems end with the MILP search (any matrix; small problems), which the fuzz's
#: indefinite, negative semidefinite and badly scaled planted problems need (benchmarks/fuzz.py)
registry.set_default_chain(
    LCP,
    "lemke",
    "interior-point",
    "merit",
    ("enumerate", {"max_n": 12}),
    "milp",
    finish=finish_linear,
    first=lemke.chain_first,
)
#: mixed and box LCPs end with the exact support enumeration when they have few supports (the
#: fuzz's planted problems with columns scaled by 2^+-498, which the MILP's tolerances cannot span)
registry.set_default_chain(MixedLCP, "lemke", "merit", "milp", "enumerate", finish=finish_linear)
registry.set_default_chain(BoxLCP, "lemke", "milp", "enumerate", finish=finish_linear)
#: friction-cone problems, local and global (the global ones on their local form); each step starts
#: from the best point of the steps before it, but ADMM (whose warm starts were slower than cold ones
#: on FCLIB's Kapla tower in a trial run, not recorded in a benchmark table) and the proximal-point
#: method when that point is farther than 10 tol (its ``warm_within``: from a point NSGS left with its
#: contact modes unsettled, its inner problems were hard).
#: NSGS first: it solves 8 of the 12 local FCLIB sample problems on its own
#: (benchmarks/results/fclib.md), and hands over early when its rate cannot reach the tolerance; the
#: proximal-point method solves the rank-deficient ones (capsules, stacks, walls); Newton, ADMM and
#: a long NSGS are the fallbacks.  The order was chosen on the FCLIB sample (benchmarks/fclib.py) and
#: the piles of scenarios.piles (tests/scenarios/test_piles.py solves them).  Last, for small
#: problems, pure Newton with minimum-norm steps: W nearly singular and slightly non-symmetric
#: (solvers/cone/newton_minnorm.py).
FRICTION_CHAIN = (
    ("nsgs", nsgs.FIRST_OPTIONS),
    ("prox", {"restarts": 6, "warm_within": 10.0}),
    ("newton", {"max_iter": 50}),
    ("admm", {"max_iter": 1000, "r0": None}),
    ("nsgs", {"max_sweeps": 5000}),
    ("newton-minnorm", {}),
)


def _warm_local(problem: FrictionContactProblem, x) -> dict:
    better = problem.residual(x).value < problem.residual(np.zeros(problem.size)).value
    return {"r0": x} if better else {}


def _warm_global(problem: GlobalFrictionContactProblem, x) -> dict:
    return _warm_local(problem.local_for_solving(), problem.split(x)[1])


registry.set_default_chain(FrictionContactProblem, *FRICTION_CHAIN, warm=_warm_local, first=nsgs.chain_first)
global_form.register_all()
registry.set_default_chain(GlobalFrictionContactProblem, *FRICTION_CHAIN, warm=_warm_global)
registry.set_default_chain(UCP, "bilinear", "exact")
#: the mixed NCP: trf first (the paper's least-squares view), then L-BFGS-B from the same start, which
#: finishes degenerate problems (a zero row of F, both-zero pairs) where trf creeps to its iteration
#: limit (benchmarks/results/fuzz_merit_rows.md: MixedNCP degenerate, planted and warm families)
registry.set_default_chain(MixedNCP, "merit", ("merit", {"backend": "lbfgsb"}))

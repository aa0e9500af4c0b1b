"""The catalogue of methods: importing this module registers every method with
:func:`contactcp.solve` and declares each problem type's default chain.

The registry imports it on first use (:func:`contactcp.solvers.registry.solve`), so that
``import contactcp`` does not import (and compile) every solver.  A new method module is listed
here; a new problem type declares its chain here.
"""

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
from contactcp.solvers.cone import global_form, newton, nsgs, prox  # noqa: F401
from contactcp.solvers.lcp import bpp, enumerate, interior_point, lemke, pgs  # noqa: F401
from contactcp.solvers.lcp.polish import finish_linear
from contactcp.solvers.ncp import merit  # noqa: F401
from contactcp.solvers.ucp import bilinear, exact  # noqa: F401
from contactcp.solvers.ucp import enumerate as ucp_enumerate  # noqa: F401

# the default chains: each method runs while the answers are inconclusive (contactcp.solve)
registry.set_default_chain(LCP, "lemke", "interior-point", "merit", ("enumerate", {"max_n": 12}), finish=finish_linear)
registry.set_default_chain(MixedLCP, "lemke", "merit", finish=finish_linear)
registry.set_default_chain(BoxLCP, "lemke")
#: friction-cone problems, local and global (the global ones on their local form)
FRICTION_CHAIN = ("newton", ("prox", {"restarts": 6}), ("nsgs", {"max_sweeps": 5000}))
registry.set_default_chain(FrictionContactProblem, *FRICTION_CHAIN)
global_form.register_all()
registry.set_default_chain(GlobalFrictionContactProblem, *FRICTION_CHAIN)
registry.set_default_chain(UCP, "bilinear", "exact")
registry.set_default_chain(MixedNCP, "merit")

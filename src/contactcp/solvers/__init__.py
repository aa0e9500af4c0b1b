"""Solver modules; importing this package registers every method with :func:`contactcp.solve`
and declares each problem type's default chain."""

from contactcp import _registry
from contactcp.problems import LCP, UCP, BoxLCP, FrictionContactProblem, MixedLCP, MixedNCP
from contactcp.solvers import _bpp, _enumerate, _fc_newton, _fc_nsgs, _fc_prox, _interior_point, _lemke, _merit, _pgs, _ucp_bilinear, _ucp_enumerate, _ucp_exact  # noqa: F401

from contactcp.solvers._polish import finish_linear

# the default chains: each method runs while the answers are inconclusive (contactcp.solve)
_registry.set_default_chain(LCP, "lemke", "interior-point", "merit", ("enumerate", {"max_n": 12}),
                            finish=finish_linear)
_registry.set_default_chain(MixedLCP, "lemke", "merit", finish=finish_linear)
_registry.set_default_chain(BoxLCP, "lemke")
_registry.set_default_chain(FrictionContactProblem, "newton", ("prox", {"restarts": 6}), ("nsgs", {"max_sweeps": 5000}))
_registry.set_default_chain(UCP, "bilinear", "exact")
_registry.set_default_chain(MixedNCP, "merit")

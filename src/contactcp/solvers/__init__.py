"""Solver modules; importing this package registers every method with :func:`contactcp.solve`."""

from . import _bpp, _enumerate, _fc_newton, _fc_nsgs, _interior_point, _lemke, _merit, _pgs, _ucp_bilinear, _ucp_enumerate, _ucp_exact  # noqa: F401

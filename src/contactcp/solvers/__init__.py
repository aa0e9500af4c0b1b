"""Solver modules; importing this package registers every method with :func:`contactcp.solve`."""

from . import _bpp, _enumerate, _lemke, _ucp_bilinear, _ucp_enumerate, _ucp_exact  # noqa: F401

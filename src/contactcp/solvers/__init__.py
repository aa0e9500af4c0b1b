"""Solver modules; importing this package registers every method with :func:`contactcp.solve`."""

from . import _bpp, _enumerate, _lemke  # noqa: F401

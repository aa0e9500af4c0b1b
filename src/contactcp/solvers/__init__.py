"""Solver modules; importing this package registers every method with :func:`contactcp.solve`."""

from . import _lemke  # noqa: F401

"""Mechanical models: scenes of objects, manipulators and contacts."""

from .planar_quasistatic import PlanarQuasistaticProblem, planar_wrench, prismatic_fingers, revolute_chain_jacobian

__all__ = ["PlanarQuasistaticProblem", "planar_wrench", "prismatic_fingers", "revolute_chain_jacobian"]

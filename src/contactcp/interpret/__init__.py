"""Interpretation: from a complementarity solution back to forces, velocities and contact modes."""

from contactcp.interpret.quasistatic import QuasistaticSolution, check_quasistatic, interpret_quasistatic

__all__ = ["QuasistaticSolution", "interpret_quasistatic", "check_quasistatic"]

"""Formulations: from a mechanical model to a complementarity problem."""

from contactcp.formulations.quasistatic_ucp import QuasistaticUCP, null_space_rows, quasistatic_ucp

__all__ = ["QuasistaticUCP", "quasistatic_ucp", "null_space_rows"]

"""Analysis on top of the solvers: P-matrix tests, dynamic determinacy, contact-mode maps, time steps."""

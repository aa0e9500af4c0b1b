"""Pictures (matplotlib, non-interactive backend unless one is already chosen)."""

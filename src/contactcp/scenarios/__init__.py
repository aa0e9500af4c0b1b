"""Scenarios: the papers' data sets and seeded random problem generators."""

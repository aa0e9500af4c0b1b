"""The tests' shared support: exact oracles (:mod:`support.oracles`) and paths (:mod:`support.paths`)."""

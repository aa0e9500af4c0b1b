"""The time-stepping benchmark's parts (``benchmarks/timestepping.py``).

:mod:`.spec` turns contactcp's verification scenes into plain JSON (run by the parent only, the one
module here that imports contactcp); :mod:`.loop` is the stepping loop every worker runs
(numpy only: it also runs under Debian's python3 for Siconos); ``peer_*`` build one simulator's
model of a scene; :mod:`.runner` starts the workers under a time limit; :mod:`.metrics` measures
the trajectories against the analytic answers; :mod:`.render` writes the tables.
"""

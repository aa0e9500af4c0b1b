"""The FCLIB benchmark's parts (benchmarks/fclib.py is the command).

* :mod:`.check`: the benchmark's own checks of every answer (numpy/scipy only);
* :mod:`.problems`: finding, reading and exporting the problems (contactcp's FCLIB reader);
* :mod:`.worker`: one solver on one problem in its own process, timed (numpy/scipy only, so that
  Debian's python with Siconos can run it);
* :mod:`.runner`: starting a worker, its deadlines, its record;
* :mod:`.render`: the Markdown tables, the goals and the performance profile.
"""

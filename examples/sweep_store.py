"""Sweeps that survive interruption and run on a cluster: a store on disk, resume, Dask.

A two-finger mode map streams into a store (one Parquet file per finished chunk): pandas reads it
without contactcp, ``load`` gives back the table, and a store left incomplete (Ctrl-C, SIGKILL,
a crash) is completed with ``resume=True``, which computes only the missing chunks.  The same map
then runs on a Dask LocalCluster on this machine (``scheduler="tcp://HOST:PORT"`` reaches a real one).
No ``if __name__ == "__main__":`` guard is needed: an unguarded script gets threads, not processes.
"""

import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from contactcp.analysis.modemap import MODE_CLASSES
from contactcp.scenarios.yashima import hand_map
from contactcp.sweep import load

folder = Path(tempfile.mkdtemp())
store = folder / "map"
t = np.linspace(0, 10, 120)
table = hand_map(0.4, t, t, store=store, progress=False)
print(table)

df = pd.read_parquet(store)  # any Parquet reader: one row per point, with its grid indices
print(df[["_i_tau1", "_i_tau2", "tau1", "tau2", "cls"]].head(3))
assert len(df) == 120 * 120

# an interrupted map: drop some finished parts, as if the run had been killed, then resume
parts = sorted(store.glob("part-*.parquet"))
for p in parts[::2]:
    p.unlink()
resumed = hand_map(0.4, t, t, store=store, resume=True, progress=False)
print(f"resumed: {resumed.meta['resumed_chunks']} of {resumed.meta['n_chunks']} chunks were on disk")
assert np.array_equal(resumed["cls"], table["cls"]) and np.array_equal(load(store)["cls"], table["cls"])

names = np.array(MODE_CLASSES)[load(store).grid("cls")]  # class names on the grid
print({name: int((names == name).sum()) for name in MODE_CLASSES})

# the same map on a Dask cluster: here a LocalCluster on the loopback interface, started and stopped
on_dask = hand_map(0.4, t, t, scheduler="local", workers=2, progress=False)
print("dask:", on_dask.meta["plan"], on_dask.meta["workers"], "workers")
assert np.array_equal(on_dask["cls"], table["cls"])
shutil.rmtree(folder)

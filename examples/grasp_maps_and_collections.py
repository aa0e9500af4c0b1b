"""Many solves through the sweep layer: the three-finger grasp's maps, a mu-scan, an ensemble of short
simulations, and a folder of FCLIB files, one row each.

Run: python examples/grasp_maps_and_collections.py
"""

import tempfile
from pathlib import Path

import numpy as np

from contactcp.analysis.modemap import mode_classes
from contactcp.io.fclib import FclibGlobal, write_global
from contactcp.io.fclib.collection import solve_collection
from contactcp.scenarios import piles
from contactcp.scenarios.grasp_maps import grasp_ensemble, grasp_map, grasp_scan

# the grasp's contact modes when finger 1's shoulder and elbow get extra torque (N m)
t = np.linspace(-20.0, 20.0, 9)
table = grasp_map(0.4, t, t, workers=1, progress=False)
classes = np.array(mode_classes(3))[table.grid("cls")]
print("at the paper's efforts:", classes[4, 4], "| classes seen:", sorted({str(c) for c in classes.ravel()}))
assert classes[4, 4] == "RRR" and (table["verdict"] == 0).all()  # 0: determinate

# a mu-scan: the grasp with the Coulomb cone at each friction value (0 rolling, 1 sliding)
scan = grasp_scan([0.1, 0.2, 0.4, 0.8], workers=1, progress=False)
print("modes per mu:", scan["modes"].tolist(), "residuals <=", float(scan["residual"].max()))
assert scan["solved"].all() and scan["modes"][0].tolist() == [1, 1, 1] and scan["modes"][2].tolist() == [0, 0, 0]

# an ensemble of short simulations over friction x squeeze: where the sphere is held
ens = grasp_ensemble([0.1, 0.4], [10.0, 20.0], steps=3, dt=2e-3, workers=1, progress=False)
print("held (mu x squeeze):", ens.grid("held").tolist())
assert ens.grid("held").tolist() == [[False, False], [True, True]]

# a folder of FCLIB files, one row each (here two generated walls, written as FCLIB files)
with tempfile.TemporaryDirectory() as tmp:
    for seed in (1, 2):
        write_global(Path(tmp) / f"wall-{seed}.hdf5", FclibGlobal.from_problem(piles.box_wall(3, 4, seed=seed)))
    files = solve_collection(tmp, workers=1, progress=False)
    for name, status, res in zip(files["file"], files["status"], files["residual"]):
        print(f"{Path(name).name}: {status}, residual {res:.1e}")
    assert files["success"].all() and (files["residual"] <= 1e-8).all()

"""The Unimation PUMA 560 as a ready :class:`~contactcp.models.manipulator.Manipulator`.

Parameters are those of P. Corke & B. Armstrong-Hélouvry, "A search for
consensus among model parameters reported for the PUMA 560 robot", Proc. IEEE
ICRA 1994, pp. 1608-1613, exactly as shipped in Peter Corke's Robotics Toolbox
(MATLAB ``models/mdl_puma560.m``, "params of 8/95"; the same numbers are in
robotics-toolbox-python ``roboticstoolbox/models/DH/Puma560.py``): standard DH
``a, d, alpha``, link masses ``m``, COM vectors ``r`` and COM inertia diagonals
``I`` in the DH link frames, motor inertias ``Jm`` and gear ratios ``G``.

* Base height: ``d1 = 0`` as in the MATLAB model (frame 0 on the shoulder).
  The Python toolbox instead puts ``d1 = 26.45 in = 0.67183 m`` (pedestal);
  pass ``base=pedestal_base()`` to reproduce that.
* Motor inertia: the toolbox's ``rne``/``inertia()`` add ``G^2 Jm qdd_j`` at
  each joint, i.e. a reflected rotor inertia on ``M``'s diagonal.  Here it is
  pinocchio's ``model.armature = G^2 Jm`` when ``armature=True`` (the default,
  matching the toolbox's ``inertia()``); ``armature=False`` gives the bare
  link inertia.  Gravity and Coriolis terms do not depend on it.
* Friction (``B``, ``Tc``) is not modelled.

Signs follow Buffo–Maciel eq. (9): ``M qdd = tau - g_man - h_man - J^T c``; the
toolbox's ``gravload`` equals ``g_man`` here (both the holding torque).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from contactcp.models.manipulator import Manipulator

__all__ = ["puma560", "pedestal_base", "DH", "MASSES", "COMS", "INERTIAS", "JM", "G", "qz", "qr", "qs", "qn"]

_PI = np.pi

#: Standard DH rows [theta_offset, d, a, alpha] (m, rad).
DH = np.array(
    [
        [0.0, 0.0, 0.0, _PI / 2],
        [0.0, 0.0, 0.4318, 0.0],
        [0.0, 0.15005, 0.0203, -_PI / 2],
        [0.0, 0.4318, 0.0, _PI / 2],
        [0.0, 0.0, 0.0, -_PI / 2],
        [0.0, 0.0, 0.0, 0.0],
    ]
)
#: Link masses (kg); m1 = 0 as in the toolbox (Armstrong found no value; it does not enter tau1).
MASSES = np.array([0.0, 17.4, 4.8, 0.82, 0.34, 0.09])
#: COM of each link in its DH frame (m).
COMS = np.array(
    [
        [0.0, 0.0, 0.0],
        [-0.3638, 0.006, 0.2275],
        [-0.0203, -0.0141, 0.070],
        [0.0, 0.019, 0.0],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.032],
    ]
)
#: Inertia about the COM, [Ixx, Iyy, Izz, Ixy, Iyz, Ixz] in the link frame (kg m^2).
INERTIAS = np.array(
    [
        [0.0, 0.35, 0.0, 0, 0, 0],
        [0.13, 0.524, 0.539, 0, 0, 0],
        [0.066, 0.086, 0.0125, 0, 0, 0],
        [1.8e-3, 1.3e-3, 1.8e-3, 0, 0, 0],
        [0.3e-3, 0.4e-3, 0.3e-3, 0, 0, 0],
        [0.15e-3, 0.15e-3, 0.04e-3, 0, 0, 0],
    ]
)
#: Motor (armature) inertia (kg m^2, at the motor) and gear ratio of each joint.
JM = np.array([200e-6, 200e-6, 200e-6, 33e-6, 33e-6, 33e-6])
G = np.array([-62.6111, 107.815, -53.7063, 76.0364, 71.923, 76.686])

#: Named postures of the toolbox: zero ('L' shape), ready (arm up), stretched, nominal.
qz = np.zeros(6)
qr = np.array([0.0, _PI / 2, -_PI / 2, 0.0, 0.0, 0.0])
qs = np.array([0.0, 0.0, -_PI / 2, 0.0, 0.0, 0.0])
qn = np.array([0.0, _PI / 4, _PI, 0.0, _PI / 4, 0.0])
for _q in (qz, qr, qs, qn):
    _q.setflags(write=False)
for _a in (DH, MASSES, COMS, INERTIAS, JM, G):
    _a.setflags(write=False)


def pedestal_base(height: float = 26.45 * 0.0254) -> np.ndarray:
    """A base transform lifting the shoulder by ``height`` (default the Python toolbox's 26.45 in)."""
    T = np.eye(4)
    T[2, 3] = height
    return T


def puma560(base: Any = None, tool: Any = None, armature: bool = True, gravity: Any = (0.0, 0.0, -9.81)) -> Manipulator:
    """The PUMA 560 (Corke & Armstrong-Hélouvry 1994, as in Corke's ``mdl_puma560``).

    ``armature=True`` adds the reflected rotor inertia ``G^2 Jm`` to ``M``'s
    diagonal, as the toolbox's ``inertia()`` does.
    """
    return Manipulator.from_dh(
        DH,
        "RRRRRR",
        masses=MASSES,
        coms=COMS,
        inertias=INERTIAS,
        base=base,
        tool=tool,
        gravity=gravity,
        convention="standard",
        name="puma560",
        armature=G**2 * JM if armature else None,
    )

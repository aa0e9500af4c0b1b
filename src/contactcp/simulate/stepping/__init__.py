"""Time stepping: velocity-level simulation with exact Coulomb friction, impacts, and a certified
contact problem at every step (the Moreau–Jean scheme).

:func:`simulate` runs a :class:`~contactcp.models.scene.Scene` (or a system of
:mod:`~contactcp.simulate.stepping.systems`) and returns a :class:`Trajectory`; one step is
:func:`~contactcp.simulate.stepping.moreau_jean.advance`.
"""

from contactcp.simulate.stepping.moreau_jean import MODES, Scheme, StepRecord, advance
from contactcp.simulate.stepping.run import pd_efforts, simulate
from contactcp.simulate.stepping.systems import LinearSystem, SceneSystem, StepContacts
from contactcp.simulate.stepping.trajectory import Trajectory

__all__ = [
    "simulate",
    "pd_efforts",
    "Trajectory",
    "Scheme",
    "StepRecord",
    "advance",
    "MODES",
    "SceneSystem",
    "LinearSystem",
    "StepContacts",
]

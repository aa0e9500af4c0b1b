"""A simulated trajectory: states, body poses, energy, and every step's certified contact answer.

:class:`Trajectory` holds ``t`` (N), ``q`` (N, nq), ``v`` (N, nv), ``body_names`` (nb),
``body_pos`` (N, nb, 3; world position of each body frame), ``body_quat`` (N, nb, 4; w, x, y, z),
``energy`` (N; kinetic plus gravitational potential) and ``steps`` (N - 1
:class:`~contactcp.simulate.stepping.moreau_jean.StepRecord`).  ``status`` is ``SOLVED`` when every
step's problems were certified, else the status of the first step that was not (the run goes on
from that step's best point unless it was asked to stop, and the step is counted in
``failed_steps``: never silently accepted).  :meth:`Trajectory.to_hdf5` writes it all atomically,
with the bodies' collision shapes (``shapes``, :mod:`~contactcp.simulate.stepping.bodyshapes`) so that
the file alone can be drawn; :meth:`Trajectory.from_hdf5` reads it back.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactcp._files import atomic_hdf5
from contactcp._version import __version__
from contactcp.result import Status
from contactcp.simulate.result import PipelineResult
from contactcp.simulate.stepping.bodyshapes import BodyShape, write_shapes
from contactcp.simulate.stepping.moreau_jean import MODES, Scheme, StepRecord

__all__ = ["Trajectory"]


@dataclass(repr=False)
class Trajectory(PipelineResult):
    """See the module docstring."""

    name: str
    dt: float
    scheme: Scheme
    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    body_names: list[str]
    body_pos: np.ndarray
    body_quat: np.ndarray
    energy: np.ndarray
    steps: list[StepRecord] = field(default_factory=list)
    wall_time: float = 0.0
    stopped: bool = False
    #: the bodies' collision shapes (:class:`~contactcp.simulate.stepping.bodyshapes.BodyShape`), for pictures
    shapes: list[BodyShape] = field(default_factory=list)

    # ------------------------------------------------------------------ the result protocol
    @property
    def failed_steps(self) -> int:
        return sum(not s.success for s in self.steps)

    @property
    def halved_steps(self) -> int:
        """Steps taken again in sub-steps (:mod:`~contactcp.simulate.stepping.substeps`)."""
        return sum(s.substeps > 1 for s in self.steps)

    @property
    def status(self) -> Status:  # type: ignore[override]
        for s in self.steps:
            if not s.success:
                return s.status
        return Status.SOLVED

    @property
    def success(self) -> bool:  # type: ignore[override]
        return self.status is Status.SOLVED and not self.stopped

    @property
    def method(self) -> str:  # type: ignore[override]
        return "moreau-jean"

    @property
    def residual(self) -> float:  # type: ignore[override]
        return self.max_residual

    @property
    def message(self) -> str:  # type: ignore[override]
        if self.stopped:
            return f"stopped at t = {self.final_time:g} s after a step that was not solved"
        if self.failed_steps:
            return f"{self.failed_steps} of {len(self.steps)} steps were not certified"
        return f"every step certified (residual <= {self.scheme.tol:g}) up to t = {self.final_time:g} s"

    @property
    def max_residual(self) -> float:
        return max((max(s.residual, s.projection_residual) for s in self.steps), default=0.0)

    @property
    def final_time(self) -> float:
        return float(self.t[-1])

    def _facts(self) -> dict[str, Any]:
        return {
            "steps": len(self.steps),
            "failed_steps": self.failed_steps,
            "halved_steps": self.halved_steps,
            "final_time": self.final_time,
            "max_residual": self.max_residual,
        }

    def _details(self) -> list[str]:
        modes = self.mode_counts()
        lines = [f"  dt = {self.dt:g} s, {len(self.steps)} steps, wall time {self.wall_time:.3g} s"]
        lines.append("  contact-steps by mode: " + ", ".join(f"{k} {v}" for k, v in modes.items()))
        lines.append(
            f"  energy: {self.energy[0]:.6g} J -> {self.energy[-1]:.6g} J, "
            f"largest gain in a step {self.max_energy_gain:.3g} J"
        )
        bad = [s for s in self.steps if not s.success][:3]
        lines += [f"  step at t = {s.t:g}: {s.status.name} residual {s.residual:.3g} {'; '.join(s.notes)}" for s in bad]
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.name,
            "success": self.success,
            "steps": len(self.steps),
            "failed_steps": self.failed_steps,
            "halved_steps": self.halved_steps,
            "final_time": self.final_time,
            "wall_time": self.wall_time,
            "max_residual": self.max_residual,
            "dt": self.dt,
            "name": self.name,
            "max_energy_gain": self.max_energy_gain,
        }

    # ------------------------------------------------------------------ analysis
    @property
    def max_energy_gain(self) -> float:
        """The largest increase of the energy over one step (J; 0 when it never increases)."""
        return float(max(np.diff(self.energy).max(initial=0.0), 0.0))

    def mode_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(MODES, 0)
        for s in self.steps:
            for m in s.mode:
                counts[MODES[m]] += 1
        return counts

    def body(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """``(positions (N, 3), quaternions (N, 4))`` of one body."""
        i = self.body_names.index(name)
        return self.body_pos[:, i], self.body_quat[:, i]

    def contact_force_sum(self, step: int) -> np.ndarray:
        """The sum of the world-frame contact forces of one step (impulses / dt), N."""
        return self.steps[step].impulse_world.sum(axis=0) / self.dt

    # ------------------------------------------------------------------ output
    def to_hdf5(self, path: str | os.PathLike) -> None:
        """Write the trajectory to an HDF5 file, atomically (module docstring; ``contacts/offset``
        gives the rows ``offset[k]:offset[k + 1]`` of step ``k`` in the ``contacts`` datasets)."""
        atomic_hdf5(path, self._fill)

    @classmethod
    def from_hdf5(cls, path: str | os.PathLike) -> Trajectory:
        """A trajectory read back from a file of :meth:`to_hdf5`
        (:func:`~contactcp.simulate.stepping.trajectory_file.read_trajectory`)."""
        from contactcp.simulate.stepping.trajectory_file import read_trajectory

        return read_trajectory(path)

    def _fill(self, h5: Any) -> None:
        import h5py

        steps = self.steps
        offset = np.cumsum([0] + [len(s.keys) for s in steps])
        text = h5py.string_dtype()
        h5.attrs.update({"name": self.name, "dt": self.dt, "status": self.status.name, "contactcp": __version__})
        h5.attrs.update({"wall_time": self.wall_time, "stopped": self.stopped})
        h5.attrs.update({f"scheme.{k}": ("" if v is None else v) for k, v in vars(self.scheme).items()})
        for key in ("t", "q", "v", "body_pos", "body_quat", "energy"):
            h5.create_dataset(key, data=getattr(self, key))
        h5.create_dataset("body_names", data=np.array(self.body_names, dtype=object), dtype=text)
        g = h5.create_group("steps")
        g.create_dataset("t", data=np.array([s.t for s in steps]))
        g.create_dataset("status", data=np.array([s.status.name for s in steps], dtype=object), dtype=text)
        g.create_dataset("method", data=np.array([s.method for s in steps], dtype=object), dtype=text)
        for key in ("residual", "iterations", "transitions", "projected", "projection_residual", "substeps"):
            g.create_dataset(key, data=np.array([getattr(s, key) for s in steps]))
        g.create_dataset("n_contacts", data=np.array([len(s.keys) for s in steps]))
        g.create_dataset("n_active", data=np.array([int(s.active.sum()) for s in steps]))
        c = h5.create_group("contacts")
        c.attrs["modes"] = ",".join(MODES)
        c.create_dataset("offset", data=offset)
        c.create_dataset("key", data=np.array([k for s in steps for k in s.keys], dtype=object), dtype=text)
        pairs = np.array([b for s in steps for b in s.bodies], dtype=object).reshape(-1, 2)
        c.create_dataset("bodies", data=pairs, dtype=text)
        for key, shape in (
            ("points", (3,)),
            ("normals", (3,)),
            ("gap", ()),
            ("active", ()),
            ("impulse", (3,)),
            ("impulse_world", (3,)),
            ("velocity", (3,)),
            ("mode", ()),
            ("slide_direction", (3,)),
        ):
            parts = [np.asarray(getattr(s, key)).reshape((-1, *shape)) for s in steps]
            c.create_dataset(key, data=np.concatenate(parts) if parts else np.zeros((0, *shape)))
        write_shapes(h5, self.shapes)

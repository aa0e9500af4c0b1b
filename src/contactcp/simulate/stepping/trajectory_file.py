"""Read a trajectory file (:meth:`~contactcp.simulate.stepping.Trajectory.to_hdf5`) back into a
:class:`~contactcp.simulate.stepping.Trajectory`: :func:`read_trajectory`.

Everything the file holds comes back (states, poses, energy, every step's status and contacts, the
scheme, the bodies' shapes); the steps' free-text notes are not written, so they come back empty.
A missing, unreadable or malformed file raises :class:`~contactcp.errors.InvalidProblemError`
naming the file and what is wrong with it; sizes are checked before the arrays are read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from contactcp._files import check_file
from contactcp._validate import check_memory
from contactcp.errors import ContactCPError, InvalidProblemError
from contactcp.result import Status
from contactcp.simulate.stepping.bodyshapes import read_shapes
from contactcp.simulate.stepping.moreau_jean import Scheme, StepRecord
from contactcp.simulate.stepping.trajectory import Trajectory

__all__ = ["read_trajectory"]

_STATE = ("t", "q", "v", "body_pos", "body_quat", "energy")
_STEP_NUMBERS = ("residual", "iterations", "transitions", "projected", "projection_residual")
_CONTACT_ROWS = {
    "points": (3,),
    "normals": (3,),
    "gap": (),
    "active": (),
    "impulse": (3,),
    "impulse_world": (3,),
    "velocity": (3,),
    "mode": (),
    "slide_direction": (3,),
}


def _array(h5: Any, key: str, where: str) -> np.ndarray:
    if key not in h5:
        raise InvalidProblemError(where, f"not a contactcp trajectory file: no {key!r}")
    data = h5[key]
    if not hasattr(data, "dtype"):
        raise InvalidProblemError(where, f"{key!r} is a group, not an array")
    return data[()]


def _strings(h5: Any, key: str, where: str, n: int) -> list[str]:
    data = np.asarray(_array(h5, key, where))
    if data.shape != (n,):
        raise InvalidProblemError(where, f"{key!r} must hold {n} strings, got shape {data.shape}")
    return [x.decode() if isinstance(x, bytes) else str(x) for x in data]


def _shaped(x: np.ndarray, shape: tuple, key: str, where: str, dtype: Any = float) -> np.ndarray:
    if x.shape != shape:
        raise InvalidProblemError(where, f"{key!r} has shape {x.shape}, expected {shape}")
    try:
        return np.asarray(x, dtype=dtype)
    except (TypeError, ValueError):
        raise InvalidProblemError(where, f"{key!r} does not hold numbers") from None


def _scheme(attrs: Any) -> Scheme:
    fields = {}
    for name in Scheme.__dataclass_fields__:
        value = attrs.get(f"scheme.{name}")
        if value is None:
            continue
        value = value.item() if isinstance(value, np.generic) else value
        fields[name] = None if value == "" else value
    try:
        return Scheme(**fields)
    except (ContactCPError, TypeError):  # a method this installation lacks, ...: the defaults
        return Scheme()


def _state(h5: Any, where: str) -> dict[str, Any]:
    t = np.asarray(_array(h5, "t", where))
    if t.ndim != 1 or t.size < 1:
        raise InvalidProblemError(where, f"'t' must be a non-empty vector, got shape {t.shape}")
    N = t.size
    names = np.asarray(_array(h5, "body_names", where))
    nb = names.size if names.ndim == 1 else -1
    out = {"t": _shaped(t, (N,), "t", where), "body_names": _strings(h5, "body_names", where, nb)}
    q, v = np.asarray(_array(h5, "q", where)), np.asarray(_array(h5, "v", where))
    out["q"] = _shaped(q, (N, q.shape[1] if q.ndim == 2 else -1), "q", where)
    out["v"] = _shaped(v, (N, v.shape[1] if v.ndim == 2 else -1), "v", where)
    out["body_pos"] = _shaped(np.asarray(_array(h5, "body_pos", where)), (N, nb, 3), "body_pos", where)
    out["body_quat"] = _shaped(np.asarray(_array(h5, "body_quat", where)), (N, nb, 4), "body_quat", where)
    out["energy"] = _shaped(np.asarray(_array(h5, "energy", where)), (N,), "energy", where)
    return out


def _steps(h5: Any, n: int, where: str) -> list[StepRecord]:
    g, c = h5.get("steps"), h5.get("contacts")
    if g is None or c is None:
        raise InvalidProblemError(where, "not a contactcp trajectory file: no 'steps' or 'contacts' group")
    t = _shaped(np.asarray(_array(g, "t", where)), (n,), "steps/t", where)
    status = _strings(g, "status", where, n)
    method = _strings(g, "method", where, n)
    numbers = {k: _shaped(np.asarray(_array(g, k, where)), (n,), f"steps/{k}", where) for k in _STEP_NUMBERS}
    # files written before sub-steps existed have no 'substeps': every step was one step
    numbers["substeps"] = np.ones(n)
    if "substeps" in g:
        numbers["substeps"] = _shaped(np.asarray(_array(g, "substeps", where)), (n,), "steps/substeps", where)
    sub = numbers["substeps"]
    if not np.all((sub >= 1) & (sub <= 2**20) & (sub == np.floor(sub))):
        raise InvalidProblemError(where, "'steps/substeps' must hold whole numbers >= 1")
    offset = _shaped(np.asarray(_array(c, "offset", where)), (n + 1,), "contacts/offset", where, np.int64)
    m = int(offset[-1])
    if offset[0] != 0 or np.any(np.diff(offset) < 0):
        raise InvalidProblemError(where, "'contacts/offset' must start at 0 and never decrease")
    keys = _strings(c, "key", where, m)
    pairs = np.asarray(_array(c, "bodies", where))
    if pairs.shape != (m, 2):
        raise InvalidProblemError(where, f"'contacts/bodies' has shape {pairs.shape}, expected {(m, 2)}")
    pairs = [tuple(x.decode() if isinstance(x, bytes) else str(x) for x in row) for row in pairs]
    rows = {
        k: _shaped(np.asarray(_array(c, k, where)), (m, *shape), f"contacts/{k}", where)
        for k, shape in _CONTACT_ROWS.items()
    }
    rows["active"], rows["mode"] = rows["active"].astype(bool), rows["mode"].astype(np.int64)
    records = []
    for k in range(n):
        if status[k] not in Status.__members__:
            raise InvalidProblemError(where, f"step {k} has an unknown status {status[k]!r}")
        s = slice(int(offset[k]), int(offset[k + 1]))
        records.append(
            StepRecord(
                t=float(t[k]),
                status=Status[status[k]],
                residual=float(numbers["residual"][k]),
                iterations=int(numbers["iterations"][k]),
                method=method[k],
                keys=keys[s],
                bodies=pairs[s],
                **{key: value[s].copy() for key, value in rows.items()},
                transitions=int(numbers["transitions"][k]),
                projected=bool(numbers["projected"][k]),
                projection_residual=float(numbers["projection_residual"][k]),
                substeps=int(numbers["substeps"][k]),
            )
        )
    return records


def read_trajectory(path: str | os.PathLike) -> Trajectory:
    """The :class:`~contactcp.simulate.stepping.Trajectory` of a file written by ``to_hdf5`` (see the
    module docstring)."""
    import h5py

    path = Path(path)
    where = str(path)
    check_file(path, where)
    try:
        h5 = h5py.File(path, "r")
    except OSError as exc:
        raise InvalidProblemError(where, f"is not a readable HDF5 file ({exc})") from None
    with h5:
        try:
            size = sum(d.size * d.dtype.itemsize for d in _datasets(h5))
            check_memory(float(size), where, "reading this trajectory", "refused")
            state = _state(h5, where)
            steps = _steps(h5, state["t"].size - 1, where)
            shapes = read_shapes(h5, where)
            attrs = h5.attrs
            scheme = _scheme(attrs)
            name, dt = str(attrs.get("name", path.stem)), float(attrs.get("dt", np.nan))
            wall, stopped = float(attrs.get("wall_time", 0.0)), bool(attrs.get("stopped", False))
        except (OSError, KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ContactCPError):
                raise
            raise InvalidProblemError(where, f"is not a well-formed trajectory file ({exc})") from None
    if not dt > 0:
        raise InvalidProblemError(where, "the file has no positive time step 'dt'")
    return Trajectory(
        name,
        dt,
        scheme,
        state["t"],
        state["q"],
        state["v"],
        state["body_names"],
        state["body_pos"],
        state["body_quat"],
        state["energy"],
        steps,
        wall,
        stopped,
        shapes,
    )


def _datasets(h5: Any) -> list[Any]:
    found = []
    h5.visititems(lambda _, obj: found.append(obj) if hasattr(obj, "dtype") else None)
    return found

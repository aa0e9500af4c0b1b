"""A step whose problem is not certified, taken again as two steps of half the size.

A step's contact problem can be solvable in exact arithmetic and still out of the solvers' reach
at the step's tolerance: in a pile, many contacts on few bodies make ``W`` rank-deficient, and a
face that lands on another with its corners closing at slightly different times gives Coulomb
problems whose solution set is nearly degenerate (one such step of ``box_pile(50, seed=4)`` at
t = 0.406 s ends at 2.6e-9 against the tolerance 1e-10 after the whole default chain, and the
minimum-norm Newton from its best point stalls at the same value).  Half the step changes the
data (which contacts close, their impact times, the free velocities), and both halves of that
step are certified (1.6e-13 and 1.5e-11).

So :func:`advance_certified` takes a step by
:func:`~contactcp.simulate.stepping.moreau_jean.advance` and, when its problem (or its position
projection) is not certified, takes it again from the same state as two steps of ``h / 2``, each
of which may be halved again, down to ``h / 2**scheme.max_halvings``.  A step in global form that
can still be halved tries only its warm Newton (and its damped retry,
:data:`~contactcp.simulate.stepping.impulses.RETRY_EPS`), the last level the whole default chain:
on that pile a failing step had cost 17-24 s in the chain's fallbacks (process CPU time of
``simulate(box_pile(50, seed=4), 0.5, 1e-3)``: 91-102 s with halving and a short chain of NSGS
and one proximal-point run at every level, 226 s with halving and the whole chain, 117 s and one
step not certified without halving; with the warm Newton alone above the last level, 10.4 s for
seed 4, 12.9 s for seed 0 (55 s with the short chain) and 14.6 s for seed 8, no step left
uncertified; a script, not a benchmark: ``benchmarks/results/pile_seeds.md`` has all seeds).  The
retry is kept only when every sub-step is certified; the step's record then sums the sub-steps
(:func:`merge_records`).  Else the step of ``h`` is taken once more with the whole default
chain (on ``box_pile(50, seed=3)`` at t = 0.362 s, in one trajectory, no sub-step certified down
to ``h / 8`` while the whole chain's proximal-point runs certified the step of ``h`` at 2.4e-11 in
3 s), then with Siconos' activation, ``activation_gap = 0``: a contact takes part only when
predicted closed (on ``box_pile(50, seed=8)`` at t = 0.303 s no solver got below 1.2e-7 at any
step size down to ``h / 32``, with the 211 contacts the default ``activation_gap = 1e-8`` takes;
with the 124 predicted closed the warm Newton certified the step at 5.6e-13 in 0.3 s; the
position projection then holds every contact, active or not).  If neither is certified, the first
step of ``h`` stands, reported as not certified.  This is step-size control on failure, not on an
error estimate: a step that certifies is never refined.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from contactcp.result import Status
from contactcp.simulate.stepping.moreau_jean import StepRecord, advance

__all__ = ["advance_certified", "merge_records"]


def _finite(q: np.ndarray, v: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(q)) and np.all(np.isfinite(v)))


def advance_certified(
    system: Any, t: float, q: np.ndarray, v: np.ndarray, h: float, scheme: Any, memory: dict
) -> tuple[np.ndarray, np.ndarray, StepRecord]:
    """One step of ``h`` from ``(t, q, v)``, halved while not certified (module docstring):
    ``(q1, v1, record)``; ``memory`` as for :func:`~contactcp.simulate.stepping.moreau_jean.advance`."""
    q1, v1, records = _step(system, t, q, v, h, scheme, memory, 0)
    return q1, v1, merge_records(records)


def _step(system, t, q, v, h, scheme, memory, depth):
    before = dict(memory)
    # a step that can still be halved tries its warm Newton only (impulses.solve_impulses)
    q1, v1, record = advance(system, t, q, v, h, scheme, memory, thorough=depth >= scheme.max_halvings)
    if record.success or depth >= scheme.max_halvings or not _finite(q1, v1):
        return q1, v1, [record]
    after = dict(memory)
    memory.clear()
    memory.update(before)
    half = 0.5 * h
    qa, va, first = _step(system, t, q, v, half, scheme, memory, depth + 1)
    if all(r.success for r in first) and _finite(qa, va):
        qb, vb, second = _step(system, t + half, qa, va, half, scheme, memory, depth + 1)
        if all(r.success for r in second) and _finite(qb, vb):
            return qb, vb, first + second
    if depth == 0:  # the halves do not certify either: the step of h, last resorts (module docstring)
        for retry, note in _last_resorts(scheme):
            memory.clear()
            memory.update(before)
            q2, v2, again = advance(system, t, q, v, h, retry, memory, thorough=True)
            if again.success and _finite(q2, v2):
                again.notes.append(note)
                return q2, v2, [again]
    # nothing certified: the step of h stands, as it was
    memory.clear()
    memory.update(after)
    if depth == 0:
        record.notes.append(
            f"not certified in sub-steps down to h / {2**scheme.max_halvings:g} either: the step of h is kept"
        )
    return q1, v1, [record]


def _last_resorts(scheme: Any):
    """``(scheme, note)`` for the step of ``h`` once its sub-steps failed: the whole chain of solvers,
    then (when the scheme activates contacts predicted open by up to ``activation_gap > 0``) with
    Siconos' activation, the contacts predicted closed only."""
    yield scheme, "certified by the whole chain of solvers after its sub-steps were not"
    if scheme.activation_gap > 0:
        note = "certified with activation_gap = 0 (the contacts predicted closed only) after its sub-steps were not"
        yield dataclasses.replace(scheme, activation_gap=0.0), note


def merge_records(records: list[StepRecord]) -> StepRecord:
    """One record for a step taken in sub-steps: its contacts are those of the last sub-step, then
    those of earlier sub-steps that took an impulse and are gone by the last (each with the data of
    the last sub-step it appears in: point, normal, gap, end velocity, mode), so that the record's
    impulses are the step's; each contact's impulse is summed over the sub-steps (world components
    exactly; contact-frame components each in its sub-step's frame, which turns by the sub-step's
    rotation); the largest residuals, the iterations and transitions summed, the methods listed;
    ``substeps`` says how many.  One record is returned as it is."""
    if len(records) == 1:
        return records[0]
    # the rows: (record, index) of each contact's latest appearance, the last sub-step's first
    rows: dict = {key: (records[-1], j) for j, key in enumerate(records[-1].keys)}
    for rec in reversed(records[:-1]):
        for j, key in enumerate(rec.keys):
            if key not in rows and np.any(rec.impulse[j] != 0):
                rows[key] = (rec, j)
    keys = list(rows)
    index = {key: i for i, key in enumerate(keys)}
    imp = np.zeros((len(keys), 3))
    world = np.zeros((len(keys), 3))
    for rec in records:
        for j, key in enumerate(rec.keys):
            i = index.get(key)
            if i is not None:
                imp[i] += rec.impulse[j]
                world[i] += rec.impulse_world[j]

    def column(name: str) -> np.ndarray:
        return np.array([getattr(rec, name)[j] for rec, j in rows.values()]).reshape(
            len(keys), *getattr(records[-1], name).shape[1:]
        )

    last = records[-1]
    notes = [f"taken in {len(records)} sub-steps (the step of h was not certified)"]
    for rec in records:
        notes += rec.notes
    return StepRecord(
        t=records[0].t,
        status=Status.SOLVED,
        residual=max(rec.residual for rec in records),
        iterations=sum(rec.iterations for rec in records),
        method="+".join(dict.fromkeys(rec.method for rec in records)),
        keys=keys,
        bodies=[rec.bodies[j] for rec, j in rows.values()],
        points=column("points"),
        normals=column("normals"),
        gap=column("gap").astype(last.gap.dtype),
        active=column("active").astype(bool) | (imp[:, 0] > 0),
        impulse=imp,
        impulse_world=world,
        velocity=column("velocity"),
        mode=column("mode").astype(last.mode.dtype),
        slide_direction=column("slide_direction"),
        transitions=sum(rec.transitions for rec in records),
        projected=any(rec.projected for rec in records),
        projection_residual=max(rec.projection_residual for rec in records),
        notes=notes,
        substeps=len(records),
    )

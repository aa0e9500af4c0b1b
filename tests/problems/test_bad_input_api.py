"""The bad-input corpus of the Python API: every case raises the project's InvalidProblemError whose
``field`` starts with the expected name (and ``str(err)`` shows it), never a numpy, scipy or Python
exception and never a silently converted value.

Each row of CASES is (id, call, field): ``call`` builds the bad input, ``field`` is the start of
``err.field``.
"""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

import contactcp as ccp
from contactcp.errors import ContactCPError, InvalidProblemError
from contactcp.models import Contact, RigidBody
from contactcp.problems.friction import FrictionContactProblem

E2 = np.eye(2)
E3 = np.eye(3)
BIG = 10**400


def _deep(levels: int):
    x = [1.0]
    for _ in range(levels):
        x = [x]
    return x


def FC(W=E3, q=(1.0, 0.0, 0.0), mu=0.5, **kw):
    return FrictionContactProblem(W, q, mu, **kw)


def NCP(**kw):
    args = {"F": lambda x: x, "G": None, "p": 1}
    args.update(kw)
    return ccp.MixedNCP(args.pop("F"), args.pop("G"), args.pop("p"), **args)


def contact(**kw):
    args = {"body": 0, "point": [0, 0, 0], "normal": [0, 0, 1], "mu": 0.5}
    args.update(kw)
    return Contact(**args)


CASES = [
    # --- LCP: shapes and nesting
    ("lcp-ragged-M", lambda: ccp.LCP([[1, 2], [3]], [1, 2]), "M"),
    ("lcp-ragged-q", lambda: ccp.LCP(E2, [[1], [2, 3]]), "q"),
    ("lcp-ragged-deep", lambda: ccp.LCP([[[1]], [1]], [1, 2]), "M"),
    ("lcp-3d", lambda: ccp.LCP(np.ones((2, 2, 2)), [1, 2]), "M"),
    ("lcp-nested-10000-deep", lambda: ccp.LCP(_deep(10_000), [1]), "M"),
    ("lcp-nested-ragged-deep", lambda: ccp.LCP([_deep(100), 1.0], [1]), "M"),
    ("lcp-not-square", lambda: ccp.LCP(np.ones((2, 3)), [1, 2]), "M"),
    ("lcp-q-length", lambda: ccp.LCP(E2, [1, 2, 3]), "q"),
    ("lcp-scalar-M", lambda: ccp.LCP(3.0, [1]), "M"),
    ("lcp-empty", lambda: ccp.LCP(np.zeros((0, 0)), []), "M"),
    # --- LCP: values
    ("lcp-10**400-M", lambda: ccp.LCP([[BIG]], [1]), "M"),
    ("lcp-10**400-q", lambda: ccp.LCP([[1.0]], [BIG]), "q"),
    ("lcp-fraction-overflow", lambda: ccp.LCP([[Fraction(BIG, 3)]], [1]), "M"),
    ("lcp-nan", lambda: ccp.LCP(E2, [np.nan, 1]), "q"),
    ("lcp-inf", lambda: ccp.LCP([[np.inf, 0], [0, 1]], [1, 1]), "M"),
    ("lcp-longdouble-overflow", lambda: ccp.LCP(np.array([[np.longdouble("1e4000")]]), [1.0]), "M"),
    # --- LCP: things that are not real numbers
    ("lcp-strings", lambda: ccp.LCP([["1", "0"], ["0", "1"]], [1, 2]), "M"),
    ("lcp-numeric-string-q", lambda: ccp.LCP(E2, ["1.5", "2"]), "q"),
    ("lcp-string-array", lambda: ccp.LCP(np.array([["1", "0"], ["0", "1"]]), [1, 2]), "M"),
    ("lcp-bytes", lambda: ccp.LCP(E2, [b"1", b"2"]), "q"),
    ("lcp-bool-list", lambda: ccp.LCP([[True, False], [False, True]], [1, 2]), "M"),
    ("lcp-bool-mixed", lambda: ccp.LCP(E2, [True, 2.0]), "q"),
    ("lcp-bool-array", lambda: ccp.LCP(np.eye(2, dtype=bool), [1, 2]), "M"),
    ("lcp-numpy-bool-scalar", lambda: ccp.LCP(E2, [np.bool_(True), 1.0]), "q"),
    ("lcp-datetime64", lambda: ccp.LCP(np.eye(2).astype("datetime64[s]"), [1, 2]), "M"),
    ("lcp-timedelta64", lambda: ccp.LCP(E2, np.array([1, 2], dtype="timedelta64[s]")), "q"),
    ("lcp-datetime-objects", lambda: ccp.LCP(E2, [datetime.date(2020, 1, 1), 1.0]), "q"),
    ("lcp-complex-list", lambda: ccp.LCP([[1 + 0j, 0], [0, 1]], [1, 2]), "M"),
    ("lcp-complex-array", lambda: ccp.LCP(E2 * (1 + 0j), [1, 2]), "M"),
    ("lcp-none", lambda: ccp.LCP(E2, [None, 1.0]), "q"),
    ("lcp-dict", lambda: ccp.LCP({"a": 1}, [1]), "M"),
    ("lcp-object-array", lambda: ccp.LCP(np.array([[object(), 1.0], [1.0, 1.0]], dtype=object), [1, 2]), "M"),
    ("lcp-sparse", lambda: ccp.LCP(sp.csr_matrix(E2), [1, 2]), "M"),
    ("lcp-string", lambda: ccp.LCP("M", [1]), "M"),
    # --- MixedLCP / BoxLCP / UCP
    ("mlcp-free-ragged", lambda: ccp.MixedLCP(E2, [1, 1], [[0], [1, 0]]), "free"),
    ("mlcp-free-strings", lambda: ccp.MixedLCP(E2, [1, 1], ["0"]), "free"),
    ("mlcp-free-floats", lambda: ccp.MixedLCP(E2, [1, 1], [0.5]), "free"),
    ("mlcp-free-range", lambda: ccp.MixedLCP(E2, [1, 1], [2]), "free"),
    ("mlcp-free-duplicate", lambda: ccp.MixedLCP(E2, [1, 1], [0, 0]), "free"),
    ("mlcp-free-mask-length", lambda: ccp.MixedLCP(E2, [1, 1], [True, False, True]), "free"),
    ("mlcp-free-bool-int-mix", lambda: ccp.MixedLCP(E3, [1, 1, 1], [True, 2]), "free"),
    ("mlcp-ragged-M", lambda: ccp.MixedLCP([[1, 2], [3]], [1, 1], [0]), "M"),
    ("mlcp-complex-q", lambda: ccp.MixedLCP(E2, [1j, 1], [0]), "q"),
    ("box-lower-string", lambda: ccp.BoxLCP(E2, [1, 1], ["0", "0"], [1, 1]), "lower"),
    ("box-upper-complex", lambda: ccp.BoxLCP(E2, [1, 1], [0, 0], [1j, 1]), "upper"),
    ("box-upper-minus-inf", lambda: ccp.BoxLCP(E2, [1, 1], [0, 0], [-np.inf, 1]), "upper"),
    ("box-order", lambda: ccp.BoxLCP(E2, [1, 1], [2, 0], [1, 1]), "lower"),
    ("ucp-bool", lambda: ccp.UCP(np.ones((1, 2), dtype=bool), [1], np.ones((1, 2)), [1]), "A_x"),
    ("ucp-ragged", lambda: ccp.UCP(np.ones((1, 2)), [1], [[1, 1], [1]], [1, 1]), "A_y"),
    # --- FrictionContactProblem
    ("fc-mu-string", lambda: FC(mu="abc"), "mu"),
    ("fc-mu-numeric-string", lambda: FC(mu="0.5"), "mu"),
    ("fc-mu-complex", lambda: FC(mu=1j), "mu"),
    ("fc-mu-numpy-complex", lambda: FC(mu=np.complex128(0.5)), "mu"),
    ("fc-mu-complex-array", lambda: FC(mu=np.array([0.5 + 0j])), "mu"),
    ("fc-mu-bool", lambda: FC(mu=True), "mu"),
    ("fc-mu-none", lambda: FC(mu=None), "mu"),
    ("fc-mu-negative", lambda: FC(mu=-0.1), "mu[0]"),
    ("fc-mu-length", lambda: FC(mu=[0.1, 0.2]), "mu"),
    ("fc-mu-ragged", lambda: FC(W=np.eye(6), q=np.ones(6), mu=[[0.1], [0.2, 0.3]]), "mu"),
    ("fc-dim-float", lambda: FC(dim=3.0), "dim"),
    ("fc-dim-bool", lambda: FC(dim=True), "dim"),
    ("fc-dim-string", lambda: FC(dim="3"), "dim"),
    ("fc-dim-4", lambda: FC(W=np.eye(4), q=np.ones(4), dim=4), "dim"),
    ("fc-W-sparse-complex", lambda: FC(W=sp.csr_matrix(E3 * (1 + 1j))), "W"),
    ("fc-W-sparse-bool", lambda: FC(W=sp.csr_matrix(np.eye(3, dtype=bool))), "W"),
    ("fc-W-sparse-nan", lambda: FC(W=sp.csr_matrix(E3 * np.nan)), "W"),
    ("fc-W-ragged", lambda: FC(W=[[1, 0, 0], [0, 1], [0, 0, 1]]), "W"),
    ("fc-W-10**400", lambda: FC(W=[[BIG, 0, 0], [0, 1, 0], [0, 0, 1]]), "W"),
    ("fc-W-size", lambda: FC(W=E2, q=[1, 0]), "W"),
    ("fc-q-strings", lambda: FC(q=["1", "0", "0"]), "q"),
    # --- MixedNCP
    ("ncp-scale-string", lambda: NCP(scale="a"), "scale"),
    ("ncp-scale-complex", lambda: NCP(scale=1j), "scale"),
    ("ncp-scale-bool", lambda: NCP(scale=True), "scale"),
    ("ncp-scale-negative", lambda: NCP(scale=-1.0), "scale"),
    ("ncp-scale-inf", lambda: NCP(scale=np.inf), "scale"),
    ("ncp-scale-array", lambda: NCP(scale=np.ones(2)), "scale"),
    ("ncp-p-float", lambda: NCP(p=2.0), "p"),
    ("ncp-m-string", lambda: NCP(m="1"), "m"),
    ("ncp-F-not-callable", lambda: NCP(F=3), "F"),
    # --- models: Contact and RigidBody
    ("contact-v_t-string", lambda: contact(state="sliding", v_t="abc"), "contact.v_t"),
    ("contact-v_t-ragged", lambda: contact(state="sliding", v_t=[[1, 2], [3]]), "contact.v_t"),
    ("contact-v_t-three", lambda: contact(state="sliding", v_t=[1, 2, 3]), "contact.v_t"),
    ("contact-v_t-complex", lambda: contact(state="sliding", v_t=[1j, 1]), "contact.v_t"),
    ("contact-mu-string", lambda: contact(mu="abc"), "contact.mu"),
    ("contact-mu-bool", lambda: contact(mu=True), "contact.mu"),
    ("contact-mu-10**400", lambda: contact(mu=BIG), "contact.mu"),
    ("contact-normal-ragged", lambda: contact(normal=[[0, 0], [1]]), "contact.normal"),
    ("contact-point-strings", lambda: contact(point=["0", "0", "0"]), "contact.point"),
    ("contact-body-float", lambda: contact(body=0.0), "contact.body"),
    ("contact-state", lambda: contact(state="flying"), "contact.state"),
    ("body-mass-string", lambda: RigidBody(mass="abc"), "object.mass"),
    ("body-mass-bool", lambda: RigidBody(mass=True), "object.mass"),
    ("body-mass-complex", lambda: RigidBody(mass=1j), "object.mass"),
    ("body-inertia-ragged", lambda: RigidBody(mass=1.0, inertia=[[1, 0, 0], [0, 1]]), "object.inertia"),
    ("body-inertia-string", lambda: RigidBody(mass=1.0, inertia="x"), "object.inertia"),
    ("body-wrench-short", lambda: RigidBody(mass=1.0, wrench=[1, 2, 3]), "object.wrench"),
    ("body-wrench-string", lambda: RigidBody(mass=1.0, wrench="abc"), "object.wrench"),
    ("body-gravity-strings", lambda: RigidBody(mass=1.0, gravity=["0", "0", "-9.81"]), "object.gravity"),
    ("body-R-bool", lambda: RigidBody(mass=1.0, R=np.eye(3, dtype=bool)), "object.R"),
    # --- solve_batch
    ("batch-complex-M", lambda: ccp.solve_batch(E2 * (1 + 0j), [[1, 1]]), "M"),
    ("batch-bool-M", lambda: ccp.solve_batch(np.eye(2, dtype=bool), [[1, 1]]), "M"),
    ("batch-string-q", lambda: ccp.solve_batch(E2, [["1", "1"]]), "q"),
    ("batch-ragged-q", lambda: ccp.solve_batch(E2, [[1, 1], [1]]), "q"),
    ("batch-datetime-q", lambda: ccp.solve_batch(E2, np.ones((1, 2)).astype("datetime64[s]")), "q"),
]


def test_the_corpus_is_large_and_names_are_unique():
    assert len(CASES) >= 60
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("call, field", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_invalid_problem_naming_the_field(call, field):
    with pytest.raises(ContactCPError) as info:
        call()
    err = info.value
    assert type(err) is InvalidProblemError, repr(err)
    assert err.field.startswith(field), (err.field, str(err))
    assert str(err).startswith(f"{err.field}: ") and err.problem


# ----------------------------------------------------------- files, through the API


def test_load_lcp_names_file_and_field(tmp_path):
    from contactcp.io import load_lcp

    f = tmp_path / "p.json"
    f.write_text(json.dumps({"M": [[1, 2], [3]], "q": [1, 2]}))
    with pytest.raises(InvalidProblemError) as info:
        load_lcp(f)
    assert info.value.field == "M" and str(f) in str(info.value)


def test_read_fclib_refuses_an_external_link(tmp_path):
    import h5py

    from contactcp.io.fclib import FclibLocal, read_local, write_local

    path = tmp_path / "p.hdf5"
    write_local(path, FclibLocal(W=np.eye(3), q=np.array([-1.0, 0.0, 0.0]), mu=np.array([0.5])))
    with h5py.File(tmp_path / "other.h5", "w") as o:
        o["W"] = np.eye(3)
    with h5py.File(path, "a") as f:
        del f["fclib_local/W"]
        f["fclib_local/W"] = h5py.ExternalLink(str(tmp_path / "other.h5"), "/W")
    with pytest.raises(InvalidProblemError) as info:
        read_local(path)
    assert info.value.field == "W" and "external link" in info.value.problem


# ------------------------------------------------------ what is still accepted, exactly


@pytest.mark.parametrize(
    "value",
    [
        [[2, 1], [1, 2]],  # Python ints
        np.array([[2, 1], [1, 2]], dtype=np.int32),  # integer dtypes
        np.array([[2, 1], [1, 2]], dtype=np.uint8),
        [[Fraction(2), Fraction(1)], [Fraction(1), Fraction(2)]],
        [[Decimal("2"), Decimal("1")], [Decimal("1"), Decimal("2")]],
        np.array([[2, 1], [1, 2]], dtype=np.float32),
        [np.array([2.0, 1.0]), np.array([1.0, 2.0])],  # a list of rows
        ((2.0, 1.0), (1.0, 2.0)),
    ],
)
def test_numbers_of_every_real_kind_are_accepted(value):
    lcp = ccp.LCP(value, [-5, -6])
    assert lcp.M.dtype == np.float64 and lcp.M.tolist() == [[2.0, 1.0], [1.0, 2.0]]
    assert ccp.solve(lcp).x.round(12).tolist() == [round(4 / 3, 12), round(7 / 3, 12)]


def test_friction_problem_exported_at_the_top_level():
    assert ccp.FrictionContactProblem is FrictionContactProblem and "FrictionContactProblem" in ccp.__all__
    p = ccp.FrictionContactProblem(E3, [-1.0, 0.0, 0.0], np.float32(0.5), dim=np.int64(3))
    assert p.mu.tolist() == [0.5] and p.dim == 3 and type(p.dim) is int


# --------------------------------------------------- gravity is separate from the applied wrench


def test_applied_wrench_does_not_replace_gravity():
    pushed = RigidBody(mass=2.0, wrench=[1.0, 0, 0, 0, 0, 0.5])
    assert pushed.wrench.tolist() == [1.0, 0, 0, 0, 0, 0.5]
    assert pushed.external_wrench.tolist() == [1.0, 0.0, 2.0 * -9.81, 0.0, 0.0, 0.5]
    weightless = RigidBody(mass=2.0, wrench=[1.0, 0, 0, 0, 0, 0.5], gravity=[0, 0, 0])
    assert weightless.external_wrench.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0, 0.5]
    assert RigidBody(mass=3.0, gravity=[0, -1.5, 0]).external_wrench.tolist() == [0.0, -4.5, 0.0, 0.0, 0.0, 0.0]


def test_pushed_block_feels_its_weight():
    """A unit block on four corner contacts pushed by 2 N: with gravity the contacts carry its
    weight exactly (sum of normal forces = m g); the push alone used to remove the weight."""
    from contactcp.models import MultibodySystem
    from contactcp.simulate.instant import solve_dynamic

    block = RigidBody(mass=1.0, wrench=[2.0, 0, 0, 0, 0, 0])
    contacts = [Contact(0, [x, y, 0], [0, 0, 1], mu=0.5) for x in (-1, 1) for y in (-1, 1)]
    out = solve_dynamic(MultibodySystem([block], contacts), friction="pyramid")
    assert out.success
    force = sum(ct.frame @ cj for ct, cj in zip(contacts, out.c.reshape(4, 3)))  # world frame
    assert force == pytest.approx([-2.0, 0.0, 9.81], abs=1e-12)  # friction holds the push, normals the weight

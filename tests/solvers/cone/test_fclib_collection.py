"""Real problems (the FCLIB sample of Siconos' test collection, tests/data/fclib): the default chain
solves each local file that it solves within a few seconds (all but the three in ``SLOW``, which
only benchmarks/fclib.py runs), checked by the tests' own measure on the file's data; every global
file, checked by its own equilibrium and Coulomb errors; the global and local forms of one problem
agree."""

import numpy as np
import pytest

import contactcp as ccp
from contactcp.io.fclib import read_fclib
from contactcp.scenarios import piles
from support.oracles import coulomb_error, global_errors
from support.paths import DATA

TOL = 1e-8
LOCAL = sorted((DATA / "fclib" / "local").glob("*.hdf5"))
GLOBAL = sorted((DATA / "fclib" / "global").glob("*.hdf5"))
#: the local files that take more than a few seconds today (benchmarks/fclib.py measures them)
SLOW = {"KaplasTower-i1061-4", "RockPile_tob1", "Capsules-i122-1617"}


@pytest.mark.parametrize("path", [p for p in LOCAL if p.stem not in SLOW], ids=lambda p: p.stem)
def test_local_file_solved_and_checked(path):
    p = read_fclib(path).local.to_problem()
    res = ccp.solve(p, tol=TOL)
    assert res.success, res.message
    assert coulomb_error(p.W.toarray(), p.q, p.mu, res.x) <= TOL


@pytest.mark.parametrize("path", GLOBAL, ids=lambda p: p.stem)
def test_global_file_solved_and_checked(path):
    g = read_fclib(path).global_
    p = g.to_problem()
    res = ccp.solve(p, tol=TOL)
    assert res.success, res.message
    v, r = p.split(res.x)
    eq, coulomb = global_errors(g.M, g.H, g.f, g.w, g.mu, v, r)
    assert eq <= 1e-12 and coulomb <= TOL


@pytest.mark.parametrize("make", [lambda: piles.box_stack(4, 2, seed=5), lambda: piles.sphere_pile(30, seed=5)])
def test_global_and_local_forms_agree(make):
    g = make()
    loc = g.local()
    a, b = ccp.solve(g, tol=1e-10), ccp.solve(loc, tol=1e-10)
    assert a.success and b.success
    v, r = g.split(a.x)
    # the global answer's reactions solve the local form, and the local answer's give a global solution
    assert coulomb_error(loc.W.toarray(), loc.q, loc.mu, r) <= 1e-9
    assert g.residual(np.concatenate([g.velocity(b.x), b.x])).value <= 1e-9
    # u is the same vector in both forms
    np.testing.assert_allclose(a.w, loc.W @ r + loc.q, atol=1e-9 * np.linalg.norm(loc.q))

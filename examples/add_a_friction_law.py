"""Adding a friction law: a formulation registered in contactcp.formulations.laws.

Here a frictionless law (normal forces only) is written as an LCP over the normal rows.

Run: python examples/add_a_friction_law.py
"""

from dataclasses import dataclass

import numpy as np

import contactcp as ccp
from contactcp.formulations.laws import friction_laws, register_law
from contactcp.models import Contact, MultibodySystem, RigidBody
from contactcp.simulate.instant import solve_dynamic


@dataclass
class Frictionless:
    problem: ccp.LCP
    dim: int
    check_law: str = "cone"

    def forces(self, z):
        c = np.zeros(self.dim * z.size)
        c[:: self.dim] = z  # normal components only
        return c


@register_law("frictionless", check_law="cone")
def frictionless(cd):
    n = np.arange(cd.n_c) * cd.dim  # the normal rows of a = A c + b
    return Frictionless(ccp.LCP(cd.A[np.ix_(n, n)], cd.b[n]), cd.dim)


block = RigidBody(mass=2.0, wrench=[3.0, 0, 0, 0, 0, 0])
contacts = [Contact(0, [x, y, 0], [0, 0, 1], mu=0.0) for x in (-1, 1) for y in (-1, 1)]
out = solve_dynamic(MultibodySystem([block], contacts), friction="frictionless")
print("frictionless" in friction_laws(), out.status.name, "a_x =", round(float(out.accelerations[0]), 6))
assert out.success and np.isclose(out.accelerations[0], 1.5)

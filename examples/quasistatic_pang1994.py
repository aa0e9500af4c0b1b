"""The planar quasistatic model of Pang, Trinkle & Lo (1994): the paper's Data Sets 2 and 4.

Run: python examples/quasistatic_pang1994.py
"""

from contactcp.scenarios.pang1994 import data_set
from contactcp.simulate.quasistatic import solve_quasistatic

out = solve_quasistatic(data_set(2), method="exact")
print(out.summary())
assert out.success and out.solutions[0].mode_codes == "S+ S- S-"

none = solve_quasistatic(data_set(4), method="exact")  # no motion exists: a proof
print(none.status.name, "-", none.result.certificate.description[:80], "...")
assert none.status.name == "NO_SOLUTION" and none.result.certificate.verified

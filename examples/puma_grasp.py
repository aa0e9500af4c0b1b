"""Three PUMA-560 fingers holding a sphere (Buffo & Maciel 2006): rolling contacts, cone law.

Run: python examples/puma_grasp.py
"""

from contactcp.scenarios.buffo2006 import puma3_grasp
from contactcp.simulate.instant import solve_dynamic

out = solve_dynamic(puma3_grasp(mu=0.4, state="rolling").system, friction="cone")
print(out.summary())
assert out.success and all(c.mode == "rolling" for c in out.contacts)

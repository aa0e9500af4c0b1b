from contactcp.plotting.grasp import plot_grasp
from contactcp.scenarios.buffo2006 import puma3_grasp
from contactcp.simulate.instant import solve_dynamic

grasp = puma3_grasp(0.4, "rolling")
plot_grasp(grasp, solve_dynamic(grasp.system, friction="cone").contacts)

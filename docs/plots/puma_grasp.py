from contactcp.plotting.grasp import plot_grasp
from contactcp.scenarios.buffo2006 import puma3_grasp, solve_grasp

grasp = puma3_grasp(0.4, "rolling")
plot_grasp(grasp, solve_grasp(grasp).contacts)

from contactcp.plotting.planar import plot_motion
from contactcp.scenarios.pang1994 import data_set
from contactcp.simulate.quasistatic import solve_quasistatic

problem = data_set(2)
plot_motion(problem, solve_quasistatic(problem, method="exact").solutions[0])

from contactcp.plotting.trajectory import plot_trajectory
from contactcp.scenarios.timestepping import box_pile
from contactcp.simulate.stepping import simulate

plot_trajectory(simulate(box_pile(4), duration=0.3, dt=1e-2))

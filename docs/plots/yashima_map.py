import numpy as np

from contactcp.plotting.modemap import plot_mode_map
from contactcp.scenarios.yashima import hand_map

t = np.linspace(0.0, 10.0, 61)
table = hand_map(0.4, t, t, workers=1, progress=False)
plot_mode_map(table.grid("cls"), t, t, "two-finger hand: contact modes, mu = 0.4")

"""The two-finger hand of Yashima & Yamaguchi: determinacy of one state, and a contact-mode map.

Run: python examples/two_finger_map.py  (writes two_finger_map.png)
"""

import numpy as np

from contactcp.analysis.determinacy import analyse
from contactcp.analysis.modemap import MODE_CLASSES
from contactcp.scenarios.yashima import hand_map, two_finger_hand

out = analyse(two_finger_hand(mu=0.4, tau1=3.0, tau2=6.0).system)
print(out.verdict, out.modes, "P-matrix:", out.p_matrix)

if __name__ == "__main__":  # the map's sweep may start worker processes
    t = np.linspace(0.0, 10.0, 41)
    table = hand_map(0.4, t, t, workers=1, progress=False)
    counts = {name: int((table["cls"] == k).sum()) for k, name in enumerate(MODE_CLASSES)}
    print(counts)
    assert sum(counts.values()) == 41 * 41
    from contactcp.plotting.modemap import plot_mode_map, save

    save(plot_mode_map(table.grid("cls"), t, t, "contact modes, mu = 0.4"), "two_finger_map.png")

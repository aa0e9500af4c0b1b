"""The targeted cases of issue 11 and Siconos' classic LCPs (tests/data/lcp)."""

from __future__ import annotations

import glob
import os

import numpy as np

from .case import Case

__all__ = ["targeted_cases"]

#: Siconos' classic LCPs: the repository's copy (tests/data/lcp), or the folder FUZZ_SHARED_LCP names
SHARED = os.environ.get(
    "FUZZ_SHARED_LCP", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "lcp")
)
ISSUE_MIXED_M = [
    [-1.0, -0.9934840736580629, 0.8500773804089156],
    [0.0, 0.6824078919901083, 0.46553985967261974],
    [0.0, 0.46553985967261974, 0.31759210803697474],
]
ISSUE_MIXED_Q = [0.6821217903604927, -1.1454852839923613, -0.7814520679425953]
INF = float("inf")

# Lemke's kernel reads out of bounds (segfault or garbage, depending on memory) on these near-overflow
# data: the tie filter after the ratio test keeps no row and _lexico_rows indexes an empty array
SEGV_BOX = dict(
    M=[
        [0.0, 0.7047119140625, -0.716547966003418, 0.12896728515625, 0.3498802185058594, 0.1533346176147461],
        [
            8.520454287881976e306,
            0.0,
            -4.087944632534544e306,
            4.4207016304962394e306,
            -2.1966355050761355e306,
            1.8084386517786227e306,
        ],
        [
            -1.8592683413320212e305,
            -6.30297526162455e305,
            0.0,
            -5.669693583991081e305,
            -3.274677635994721e305,
            6.073330876318148e305,
        ],
        [0.0, 0.0, -1.0972248137587377e304, 0.0, 3.291674441276213e304, -1.0972248137587377e304],
        [-0.3430042266845703, -0.8055362701416016, -0.12694072723388672, -0.5677709579467773, 0.0, -0.6525039672851562],
        [
            -6.849591983723034e305,
            -4.499050339853699e305,
            2.462179446880554e305,
            1.1598290435193544e306,
            -1.3759027723157421e306,
            0.0,
        ],
    ],
    q=[
        0.000385284423828125,
        -8.464917996771512e302,
        2.82610395145378e302,
        -3.511119404027961e305,
        -0.0007839202880859375,
        -9.308731024930697e302,
    ],
    lower=[-INF, 0.0, 3.0, -INF, 4.0, 2.0],
    upper=[INF, INF, 3.0, INF, 12.0, 2.0],
)
SEGV_LCP = dict(
    M=[
        [
            0.0,
            -4.087944632534544e306,
            -2.1966355050761355e306,
            1.8084386517786227e306,
            0.0,
            0.0,
            0.0,
            8.520454287881976e306,
            4.4207016304962394e306,
            -8.520454287881976e306,
            -4.4207016304962394e306,
        ],
        [
            -6.30297526162455e305,
            0.0,
            -3.274677635994721e305,
            6.073330876318148e305,
            1.0,
            0.0,
            0.0,
            -1.8592683413320212e305,
            -5.669693583991081e305,
            1.8592683413320212e305,
            5.669693583991081e305,
        ],
        [
            -0.8055362701416016,
            -0.12694072723388672,
            0.0,
            -0.6525039672851562,
            0.0,
            1.0,
            0.0,
            -0.3430042266845703,
            -0.5677709579467773,
            0.3430042266845703,
            0.5677709579467773,
        ],
        [
            -4.499050339853699e305,
            2.462179446880554e305,
            -1.3759027723157421e306,
            0.0,
            0.0,
            0.0,
            1.0,
            -6.849591983723034e305,
            1.1598290435193544e306,
            6.849591983723034e305,
            -1.1598290435193544e306,
        ],
        [0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0],
        [0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0],
        [0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0],
        [
            0.7047119140625,
            -0.716547966003418,
            0.3498802185058594,
            0.1533346176147461,
            0.0,
            0.0,
            0.0,
            0.0,
            0.12896728515625,
            -0.0,
            -0.12896728515625,
        ],
        [
            0.0,
            -1.0972248137587377e304,
            3.291674441276213e304,
            -1.0972248137587377e304,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            -0.0,
            -0.0,
        ],
        [
            -0.7047119140625,
            0.716547966003418,
            -0.3498802185058594,
            -0.1533346176147461,
            -0.0,
            -0.0,
            -0.0,
            -0.0,
            -0.12896728515625,
            0.0,
            0.12896728515625,
        ],
        [
            -0.0,
            1.0972248137587377e304,
            -3.291674441276213e304,
            1.0972248137587377e304,
            -0.0,
            -0.0,
            -0.0,
            -0.0,
            -0.0,
            0.0,
            0.0,
        ],
    ],
    q=[
        -1.7434345106150606e307,
        -9.492226873911346e304,
        -1.6866140365600586,
        -4.7658881283012954e306,
        0.0,
        8.0,
        0.0,
        -0.4430685043334961,
        -2.7430620343968443e305,
        0.4430685043334961,
        2.7430620343968443e305,
    ],
)


def targeted_cases(ccp) -> list[Case]:
    FCP = getattr(ccp, "FrictionContactProblem", None)
    if FCP is None:
        from contactcp.problems import FrictionContactProblem as FCP
    out: list[Case] = []

    def lcp(name, M, q, truth="unknown", starts=None):
        M, q = np.array(M, dtype=float), np.array(q, dtype=float)
        out.append(Case("LCP", "targeted", len(out), ccp.LCP(M, q), {"M": M, "q": q}, truth, name, starts=starts or {}))

    for f in sorted(glob.glob(os.path.join(SHARED, "*.npz"))):
        d = np.load(f)
        lcp(os.path.basename(f)[:-4], d["M"], d["q"])
    big = [[0.0, 1e154, -1e154], [0.0, -1.0, 1.0], [0.0, 1.0, -1.0]]
    z0 = np.array([0.0, 1e154, 1e154])
    lcp(
        "issue 3: 1e154 LCP (infeasible), merit/pgs/ip started at (0, 1e154, 1e154)",
        big,
        [-1.0, 0.0, 0.0],
        starts={"merit": {"x0": z0}, "pgs": {"z0": z0}, "interior-point": {"z0": z0 + 1.0}},
    )
    lcp("issue 3: 1e154 LCP cold", big, [-1.0, 0.0, 0.0])
    lcp(
        "issue 3 variant: 1e300 entries",
        [[0.0, 1e300, -1e300], [0.0, -1.0, 1.0], [0.0, 1.0, -1.0]],
        [-1.0, 0.0, 0.0],
        starts={"merit": {"x0": [0.0, 1e300, 1e300]}},
    )
    lcp("z = 1 beside w = 1e16", [[1.0, 0.0], [0.0, 1.0]], [1e16, -1.0])
    # issue 4: exactly infeasible LCPs with rows of very different scales
    for _k, e in enumerate((30, -30, 60)):
        s = 2.0**e
        lcp(f"issue 4: infeasible, row scaled 2^{e}", [[s, -s], [-1.0, 1.0]], [-s * 1e-3, -1.0])
        lcp(
            f"issue 4: infeasible with small q row, 2^{e}",
            [[1.0, -1.0, 0.0], [-s, s, 0.0], [0.0, 0.0, 1.0]],
            [-1e-8, -s * 1e-8, 1.0],
        )
    # a triangular P-matrix with 1e4 entries, rows and columns permuted (issue: the BLAS-dependent verdict)
    T = np.triu(np.full((6, 6), 1e4), 1) + np.eye(6)
    p = np.array([3, 0, 5, 1, 4, 2])
    lcp(
        "permuted triangular P-matrix with 1e4 entries",
        T[np.ix_(p, p)],
        [-1.0, 2.0, -3.0, 1.0, -1.0, -2.0],
        truth="solvable",
    )

    Mm, qm = np.array(ISSUE_MIXED_M), np.array(ISSUE_MIXED_Q)
    free = np.array([False, True, True])
    out.append(
        Case(
            "MixedLCP",
            "targeted",
            len(out),
            ccp.MixedLCP(Mm, qm, free),
            {"M": Mm, "q": qm, "free": free},
            "unknown",
            "issue 1: mixed LCP, ill-conditioned free block",
        )
    )

    def fc(name, W, q, mu, dim=3):
        W, q = np.array(W, dtype=float), np.array(q, dtype=float)
        mu = np.broadcast_to(np.asarray(mu, dtype=float), (len(q) // dim,)).copy()
        out.append(
            Case(
                "FrictionContact",
                "targeted",
                len(out),
                FCP(W, q, mu, dim),
                {"W": W, "q": q, "mu": mu, "dim": dim},
                "solvable" if np.allclose(W, np.eye(len(q))) else "unknown",
                name,
            )
        )

    fc("issue 2: eye(3), q = (-2e154, 2e154, 0), mu 0.5", np.eye(3), [-2e154, 2e154, 0.0], 0.5)
    fc("issue 2 scaled: eye(3), q = (-2, 2, 0), mu 0.5", np.eye(3), [-2.0, 2.0, 0.0], 0.5)
    fc("q near overflow: eye(3), (-1e308, 1e308, 0)", np.eye(3), [-1e308, 1e308, 0.0], 0.5)
    fc("tiny q: eye(3), (-2e-300, 2e-300, 0)", np.eye(3), [-2e-300, 2e-300, 0.0], 0.5)
    fc("two contacts, q 1e154 and 1", np.eye(6), [-2e154, 2e154, 0.0, -1.0, 0.5, 0.0], [0.5, 0.3])
    fc("2D eye, q = (-3e200, 1e200)", np.eye(2), [-3e200, 1e200], 0.5, dim=2)
    # found by the fuzz (keep new cases at the end: the keys of the earlier ones stay valid)
    B = {k: np.array(v, dtype=float) for k, v in SEGV_BOX.items()}
    out.append(
        Case(
            "BoxLCP",
            "targeted",
            len(out),
            ccp.BoxLCP(B["M"], B["q"], B["lower"], B["upper"]),
            B,
            "unknown",
            "Lemke kernel out-of-bounds read (segfault): near-overflow box LCP",
        )
    )

    lcp(
        "Lemke kernel out-of-bounds read (segfault): reduced LCP of a near-overflow box LCP",
        SEGV_LCP["M"],
        SEGV_LCP["q"],
    )
    return out

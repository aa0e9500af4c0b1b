"""The one-contact Coulomb problem solved by cases: NSGS's exact local solver.

With the other contacts frozen, contact ``i`` of a sweep has ``u = A r + b`` (``A = W_ii``, ``b`` the
rest of ``u_i``) and must satisfy Coulomb's law: ``r`` in the cone ``K = {||r_T|| <= mu r_N}``,
``u + mu ||u_T|| e_N`` in its dual, the two orthogonal.  A solution is one of three kinds
(the enumerative view of the one-contact problem; O. Bonnefon and G. Daviet, in an INRIA technical
report of 2011, reduce the last to a quartic polynomial, which Siconos' one-contact "quartic" solver
follows):

- **take-off**: ``r = 0``, a solution exactly when ``b_N >= 0``;
- **stick**: ``u = 0``, ``r = -A^-1 b``, a solution when it lies in ``K``;
- **slide**: ``u_N = 0`` and ``r = r_N (1, -mu c)`` with ``c`` the unit slip direction and ``u_T = alpha c``,
  ``r_N > 0``, ``alpha >= 0``.  ``u_N = 0`` gives ``r_N = -b_N / g_N(c)`` with ``g(c) = A (1, -mu c)``, so
  ``u_T = w(c) / g_N(c)``, ``w(c) = g_N(c) b_T - b_N g_T(c)``, and ``c`` solves ``w(c) x c = 0``: in 3-D, with
  ``c = (cos t, sin t)``, a trigonometric polynomial of degree 2 in ``t`` (at most four roots), found by
  Newton's method from the current slip direction, else by sign changes on :data:`SAMPLES` angles
  refined by safeguarded Newton, else (two roots closer than the sampling) as the real roots of its
  quartic in ``tan(t / 2)``; in 2-D, ``c = +-1``.

:func:`one_contact` tries them in that order and keeps the first whose point passes a local check of the
three conditions (relative to the sizes of ``b`` and ``A r``); it returns False when none does (a root
the sampling missed, a singular block), and the caller falls back to projected fixed-point steps.
The answer of the whole problem is certified by the problem's own residual either way.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: angles sampled for the sign changes of the slide equation (3-D)
SAMPLES = 24
_T = 2.0 * np.pi * np.arange(SAMPLES + 1) / SAMPLES
_COS = np.cos(_T)
_SIN = np.sin(_T)
#: the local check's relative tolerance
LOCAL_TOL = 1e-11


@njit(cache=True, nogil=True, inline="always")
def _slide_terms(A, b, mu, c1, c2):
    """``(g_N, w_1, w_2)`` at the direction ``(c1, c2)`` (module docstring)."""
    gn = A[0, 0] - mu * (A[0, 1] * c1 + A[0, 2] * c2)
    g1 = A[1, 0] - mu * (A[1, 1] * c1 + A[1, 2] * c2)
    g2 = A[2, 0] - mu * (A[2, 1] * c1 + A[2, 2] * c2)
    return gn, gn * b[1] - b[0] * g1, gn * b[2] - b[0] * g2


@njit(cache=True, nogil=True, inline="always")
def _slide_eq(A, b, mu, t):
    """``(G, G')`` at the angle ``t``: ``G = w x c``."""
    return _slide_eq_at(A, b, mu, math.cos(t), math.sin(t))


@njit(cache=True, nogil=True, inline="always")
def _slide_eq_at(A, b, mu, c1, c2):
    """``(G, G')`` at the direction ``(c1, c2) = (cos t, sin t)``."""
    gn, w1, w2 = _slide_terms(A, b, mu, c1, c2)
    # derivatives along dc/dt = (-c2, c1)
    dgn = -mu * (A[0, 1] * -c2 + A[0, 2] * c1)
    dg1 = -mu * (A[1, 1] * -c2 + A[1, 2] * c1)
    dg2 = -mu * (A[2, 1] * -c2 + A[2, 2] * c1)
    dw1 = dgn * b[1] - b[0] * dg1
    dw2 = dgn * b[2] - b[0] * dg2
    G = w1 * c2 - w2 * c1
    dG = dw1 * c2 + w1 * c1 - dw2 * c1 + w2 * c2
    return G, dG


@njit(cache=True, nogil=True)
def _refine(A, b, mu, a, fa, z):
    """A root of ``G`` in ``[a, z]`` (``G(a) = fa`` and ``G(z)`` of opposite signs): Newton steps kept
    inside the bracket, bisection otherwise."""
    t = 0.5 * (a + z)
    for _ in range(60):
        G, dG = _slide_eq(A, b, mu, t)
        if G == 0.0:
            return t
        if (G > 0.0) == (fa > 0.0):
            a, fa = t, G
        else:
            z = t
        step = t - G / dG if dG != 0.0 else 0.5 * (a + z)
        lo, hi = min(a, z), max(a, z)
        if not (lo < step < hi):
            step = 0.5 * (a + z)
        if abs(step - t) <= 4e-16 * (1.0 + abs(t)):
            return step
        t = step
    return t


@njit(cache=True, nogil=True)
def _check(A, b, mu, r, d, scale):
    """Whether ``r`` satisfies the local conditions within ``LOCAL_TOL * scale``."""
    u0 = b[0]
    u1 = b[1]
    u2 = b[2] if d == 3 else 0.0
    for k in range(d):
        u0 += A[0, k] * r[k]
        u1 += A[1, k] * r[k]
        if d == 3:
            u2 += A[2, k] * r[k]
    r2 = r[2] if d == 3 else 0.0
    ut = math.sqrt(u1 * u1 + u2 * u2)
    rt = math.sqrt(r[1] * r[1] + r2 * r2)
    tol = LOCAL_TOL * scale
    un_hat = u0 + mu * ut
    if rt > mu * r[0] + tol or r[0] < -tol or mu * ut > un_hat + tol:
        return False
    dot = r[0] * un_hat + r[1] * u1 + r2 * u2
    return abs(dot) <= tol * (math.sqrt(r[0] * r[0] + rt * rt) + 1e-300)


@njit(cache=True, nogil=True)
def inverse(A, d, out):
    """``out = A^-1`` by the adjugate over the determinant (Cramer's rule); ``out[0, 0]`` NaN when ``A`` is
    singular (a zero or non-finite determinant)."""
    if d == 2:
        det = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
        if det == 0.0 or not math.isfinite(det):
            out[0, 0] = np.nan
            return
        out[0, 0] = A[1, 1] / det
        out[0, 1] = -A[0, 1] / det
        out[1, 0] = -A[1, 0] / det
        out[1, 1] = A[0, 0] / det
        return
    m00 = A[1, 1] * A[2, 2] - A[1, 2] * A[2, 1]
    m01 = A[1, 2] * A[2, 0] - A[1, 0] * A[2, 2]
    m02 = A[1, 0] * A[2, 1] - A[1, 1] * A[2, 0]
    det = A[0, 0] * m00 + A[0, 1] * m01 + A[0, 2] * m02
    if det == 0.0 or not math.isfinite(det):
        out[0, 0] = np.nan
        return
    # row a of the inverse: column a of the adjugate
    out[0, 0] = m00 / det
    out[0, 1] = (A[0, 2] * A[2, 1] - A[0, 1] * A[2, 2]) / det
    out[0, 2] = (A[0, 1] * A[1, 2] - A[0, 2] * A[1, 1]) / det
    out[1, 0] = m01 / det
    out[1, 1] = (A[0, 0] * A[2, 2] - A[0, 2] * A[2, 0]) / det
    out[1, 2] = (A[0, 2] * A[1, 0] - A[0, 0] * A[1, 2]) / det
    out[2, 0] = m02 / det
    out[2, 1] = (A[0, 1] * A[2, 0] - A[0, 0] * A[2, 1]) / det
    out[2, 2] = (A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]) / det


@njit(cache=True, nogil=True)
def block_inverses(blocks):
    """:func:`inverse` of each ``d x d`` block of ``blocks`` (``(n_c, d, d)``): a sweep's stick cases are
    then a product each (:func:`one_contact_inv`)."""
    n_c, d = blocks.shape[0], blocks.shape[1]
    out = np.empty((n_c, d, d))
    for i in range(n_c):
        inverse(blocks[i], d, out[i])
    return out


@njit(cache=True, nogil=True, inline="always")
def _stick(Ainv, b, d, r):
    """``r = -A^-1 b`` from the inverse (:func:`inverse`; the point is checked by :func:`_check`
    afterwards); False when ``A`` is singular."""
    if not Ainv[0, 0] == Ainv[0, 0]:
        return False
    for a in range(d):
        s = 0.0
        for k in range(d):
            s += Ainv[a, k] * b[k]
        r[a] = -s
    return True


@njit(cache=True, nogil=True)
def _slide_point(A, b, mu, d, c1, c2, r):
    """``r = r_N (1, -mu c)`` for the direction ``c``; False unless ``g_N > 0`` and ``alpha >= 0``."""
    if d == 3:
        gn, w1, w2 = _slide_terms(A, b, mu, c1, c2)
        along = w1 * c1 + w2 * c2
    else:
        gn = A[0, 0] - mu * A[0, 1] * c1
        along = (gn * b[1] - b[0] * (A[1, 0] - mu * A[1, 1] * c1)) * c1
    if not (gn > 0.0 and along >= 0.0):
        return False
    rn = -b[0] / gn
    r[0] = rn
    r[1] = -mu * rn * c1
    if d == 3:
        r[2] = -mu * rn * c2
    return True


@njit(cache=True, nogil=True, inline="always")
def _slide(A, b, mu, d, c1, c2, r, scale):
    """The slide point of the direction ``c`` in ``r`` (:func:`_slide_point`), if it passes the local check."""
    return _slide_point(A, b, mu, d, c1, c2, r) and _check(A, b, mu, r, d, _size(A, r, d, scale))


@njit(cache=True, nogil=True)
def one_contact(A, b, mu, d, r):
    """Solve ``u = A r + b`` under Coulomb's law for one contact (module docstring): True with the
    solution in ``r`` (length ``d``), else False with ``r`` unspecified.  On entry ``r`` holds the current
    iterate: in 3-D its slip direction (:func:`_guess`) starts Newton's method on the slide equation
    before any sampling.  :func:`one_contact_inv` with ``A^-1`` worked out here."""
    Ainv = np.empty((d, d))
    inverse(A, d, Ainv)
    return one_contact_inv(A, Ainv, b, mu, d, r)


@njit(cache=True, nogil=True, inline="always")
def one_contact_inv(A, Ainv, b, mu, d, r):
    """:func:`one_contact` given ``Ainv``, ``A``'s :func:`inverse` (the sweeps work out each block's once).
    Take-off and stick are tried here, inlined into the sweeps; the slide cases are a call
    (:func:`_slide_cases`).  FCLIB's Kapla tower, at the iterate of 60 sweeps: a stick case 56 ns with
    Cramer's rule in a call, 47 ns with the inverse in a call, 24 ns inlined (a script, 100 x 431 stick
    solves; its whole NSGS solve 17.1 -> 16.1 ms).

    An iterate on its cone's boundary (a contact that slid at the last sweep, :func:`_on_boundary`) tries
    the slide first, by Newton's method from its slip direction (:func:`_slide_newton`), then stick and
    the other slide cases: between two sweeps a contact mostly keeps its mode, and the stick attempt
    that fails costs a sliding contact a third of its Newton solve (Kapla tower, 60 sweeps in, its 144
    sliding contacts: 184 -> 124 ns each with :func:`_slide_newton`'s earlier stop; a script, best of
    7 x 20 x 144 solves)."""
    scale = 0.0
    for a in range(d):
        scale = max(scale, abs(b[a]))
    if b[0] >= 0.0:  # take-off
        for a in range(d):
            r[a] = 0.0
        return True
    p0, p1, p2 = r[0], r[1], r[2] if d == 3 else 0.0  # the iterate, for the slide's first guess
    tried = d == 3 and mu > 0.0 and _on_boundary(p0, p1, p2, mu)
    if tried:
        c1, c2 = _guess(A, b, p0, p1, p2)
        if _slide_newton(A, b, mu, r, scale, c1, c2):
            return True
    if _stick(Ainv, b, d, r) and _check(A, b, mu, r, d, _size(A, r, d, scale)):
        return True
    return _slide_cases(A, b, mu, d, r, scale, p0, p1, p2, tried)


@njit(cache=True, nogil=True, inline="always")
def _on_boundary(p0, p1, p2, mu):
    """Whether ``(p0, p1, p2)`` (``p0 > 0``) is on the boundary of its cone ``||p_T|| = mu p_N`` up to
    1e-9 relative (where a slide solve, and the projection on the cone, put it)."""
    m = mu * p0
    return p0 > 0.0 and p1 * p1 + p2 * p2 >= m * m * (1.0 - 1e-9)


@njit(cache=True, nogil=True)
def _slide_newton(A, b, mu, r, scale, c1, c2):
    """Newton's method on the slide equation's angle from the direction ``(c1, c2)`` (3-D; the angle
    carried as the unit vector, :func:`_turn`): True with the slide point in ``r`` once a step is at most
    1e-7 and the point passes the local check (the next step, of order ``step^2``, would not change it
    at that check's tolerance), False when a step of at most 1e-13 leaves a point that fails it, at a
    zero derivative, or after 8 steps.  The old stop (a step of at most 1e-13, then the check) took one
    step more: 3 to 4 steps on the Kapla tower's sliding contacts from the last sweep's direction (a
    script, one sweep 60 in)."""
    if c1 == 0.0 and c2 == 0.0:
        return False
    for _ in range(8):
        G, dG = _slide_eq_at(A, b, mu, c1, c2)
        if dG == 0.0:
            return False
        step = G / dG
        c1, c2 = _turn(c1, c2, step)
        if abs(step) <= 1e-7:
            if _slide(A, b, mu, 3, c1, c2, r, scale):
                return True
            if abs(step) <= 1e-13:
                return False
    return False


@njit(cache=True, nogil=True)
def _slide_cases(A, b, mu, d, r, scale, p0, p1, p2, tried):
    """:func:`one_contact`'s cases after take-off and stick (``b_N < 0``; ``(p0, p1, p2)`` the iterate;
    ``tried``: Newton's method from the iterate's slip direction has been tried)."""
    if mu == 0.0:
        if not A[0, 0] > 0.0:
            return False
        r[0] = -b[0] / A[0, 0]
        for a in range(1, d):
            r[a] = 0.0
        return _check(A, b, mu, r, d, _size(A, r, d, scale))
    if d == 2:
        for c in (1.0, -1.0):
            if _slide(A, b, mu, d, c, 0.0, r, scale):
                return True
        return False
    if not tried:
        c1, c2 = _guess(A, b, p0, p1, p2)
        if _slide_newton(A, b, mu, r, scale, c1, c2):
            return True
    prev = _slide_eq_at(A, b, mu, 1.0, 0.0)[0]
    for j in range(SAMPLES):
        G1 = _slide_eq_at(A, b, mu, _COS[j + 1], _SIN[j + 1])[0]
        if prev == 0.0:
            t = _T[j]
        elif (prev > 0.0) != (G1 > 0.0) and G1 != 0.0:
            t = _refine(A, b, mu, _T[j], prev, _T[j + 1])
        else:
            prev = G1
            continue
        prev = G1
        if _slide(A, b, mu, d, math.cos(t), math.sin(t), r, scale):
            return True
    # two roots closer than the sampling (no sign change between samples): all roots, of the quartic
    for t in _quartic_angles(A, b, mu):
        if _slide(A, b, mu, d, math.cos(t), math.sin(t), r, scale):
            return True
    return False


@njit(cache=True, nogil=True)
def _guess(A, b, r0, r1, r2):
    """A unit slip direction for the iterate ``r = (r0, r1, r2)`` (3-D): the direction the tangential
    reaction opposes, ``-r_T``, else (``r_T = 0``) that of ``u_T`` at ``r``; ``(0, 0)`` if both are
    zero.  ``-r_T`` first: between two sweeps a contact's reaction turns little, while ``u_T`` at the
    old reaction with the new ``b`` is mostly the change of ``b`` (on FCLIB's Kapla tower, 60 sweeps in,
    one sweep: Newton's steps from ``u_T`` 3 to 97 per sliding contact, five contacts left to the
    sampling; from ``-r_T`` 2 to 5, none; a sweep 175 -> 127 us)."""
    if r1 != 0.0 or r2 != 0.0:
        n = _length(r1, r2)
        return -r1 / n, -r2 / n
    u1 = b[1] + A[1, 0] * r0 + A[1, 1] * r1 + A[1, 2] * r2
    u2 = b[2] + A[2, 0] * r0 + A[2, 1] * r1 + A[2, 2] * r2
    if u1 != 0.0 or u2 != 0.0:
        n = _length(u1, u2)
        return u1 / n, u2 / n
    return 0.0, 0.0


@njit(cache=True, nogil=True, inline="always")
def _length(x, y):
    """``hypot(x, y)``: the square root of the sum of squares where that neither overflows nor
    underflows (libm's hypot guards against both at a cost), else hypot."""
    s = x * x + y * y
    return math.sqrt(s) if 1e-290 < s < 1e290 else math.hypot(x, y)


@njit(cache=True, nogil=True, inline="always")
def _turn(c1, c2, s):
    """The unit direction ``c = (cos t, sin t)`` turned to the angle ``t - s``: by a rotation for a large
    ``s``, else (``|s| <= 1/2``) by the tangent step ``c - s c'`` scaled back to unit length, a turn by
    ``atan(s) = s + O(s^3)`` that keeps Newton's quadratic convergence without a cosine and a sine; for
    ``|s| <= 1e-4`` the scaling ``1 / sqrt(1 + s^2)`` is ``1 - s^2 / 2`` (the next term, ``3 s^4 / 8``, is
    below half an ulp) without the square root and the division."""
    if abs(s) <= 1e-4:
        h = 1.0 - 0.5 * s * s
        return (c1 + s * c2) * h, (c2 - s * c1) * h
    if abs(s) > 0.5:
        cs = math.cos(s)
        sn = math.sin(s)
        return c1 * cs + c2 * sn, c2 * cs - c1 * sn
    n1 = c1 + s * c2
    n2 = c2 - s * c1
    h = 1.0 / math.sqrt(1.0 + s * s)
    return n1 * h, n2 * h


@njit(cache=True, nogil=True)
def _quartic_angles(A, b, mu):
    """Every real root of the slide equation ``G(t) = 0`` (3-D): with ``x = tan(t / 2)``, ``(1 + x^2)^2 G``
    is a quartic in ``x`` (its roots are the eigenvalues of its companion matrix; ``t = pi`` is the root
    at infinity), each polished by Newton steps on ``G``."""
    p0, p1, p2 = A[0, 0], -mu * A[0, 1], -mu * A[0, 2]
    # w_1 = e0 + e1 c1 + e2 c2, w_2 = f0 + f1 c1 + f2 c2
    e0 = b[1] * p0 - b[0] * A[1, 0]
    e1 = b[1] * p1 + b[0] * mu * A[1, 1]
    e2 = b[1] * p2 + b[0] * mu * A[1, 2]
    f0 = b[2] * p0 - b[0] * A[2, 0]
    f1 = b[2] * p1 + b[0] * mu * A[2, 1]
    f2 = b[2] * p2 + b[0] * mu * A[2, 2]
    coef = np.array([f0 - f1, 2.0 * (e0 - e1 + f2), 4.0 * e2 + 2.0 * f1, 2.0 * (e0 + e1 - f2), -f0 - f1])
    out = [np.pi]
    big = np.abs(coef).max()
    if big == 0.0:
        return out
    lead = 0
    while lead < 4 and abs(coef[lead]) <= 1e-14 * big:
        lead += 1
    n = 4 - lead
    if n == 0:
        return out
    C = np.zeros((n, n), dtype=np.complex128)
    for k in range(n):
        C[0, k] = -coef[lead + 1 + k] / coef[lead]
    for k in range(1, n):
        C[k, k - 1] = 1.0
    for x in np.linalg.eigvals(C):
        if abs(x.imag) <= 1e-6 * (1.0 + abs(x.real)):
            t = 2.0 * math.atan(x.real)
            for _ in range(4):
                G, dG = _slide_eq(A, b, mu, t)
                if dG == 0.0 or G == 0.0:
                    break
                t -= G / dG
            out.append(t)
    return out


@njit(cache=True, nogil=True, inline="always")
def _size(A, r, d, scale):
    s = scale
    for a in range(d):
        for k in range(d):
            s = max(s, abs(A[a, k] * r[k]))
    return s


@njit(cache=True, nogil=True)
def block_step(A):
    """``1 / lambda_max`` of ``A``'s symmetric part (absolute largest eigenvalue), 1 when it is zero, 0 for a
    zero block: the step of the projected fixed-point fallback."""
    d = A.shape[0]
    S = np.empty((d, d))
    fro = 0.0
    for a in range(d):
        for k in range(d):
            S[a, k] = 0.5 * (A[a, k] + A[k, a])
            fro += A[a, k] * A[a, k]
    if fro == 0.0:
        return 0.0
    lam = np.abs(np.linalg.eigvalsh(S)).max()
    return 1.0 / lam if lam > 0.0 else 1.0

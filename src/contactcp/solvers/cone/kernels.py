"""Compiled pieces of the semismooth Newton method for the Coulomb-cone problem.

``ac_phi_D`` and ``ac_merit`` compute exactly what
:func:`contactcp.solvers.cone.newton.alart_curnier` documents (kept there in
numpy as the readable reference, and checked against these kernels in the
tests); ``newton_matrix`` and ``reduced_newton_system`` build
``I - D + D rho W`` (the latter without the rows whose ``D`` row is zero),
checked against the dense numpy product; ``desaxce_residual`` is the
problem's own residual.  Compiling them removes the per-iteration Python
overhead that dominated small and medium problems.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from contactcp.problems._coulomb import project_cone
from contactcp.solvers.cone.one_contact import block_inverses, block_step, one_contact_inv


@njit(cache=True, nogil=True)
def ac_phi_D(r, u, mu, rho, d, want_D):
    """Alart–Curnier ``Phi`` and the projection Jacobian blocks ``D`` (``(n_c, d, d)``)."""
    n_c = mu.shape[0]
    phi = np.empty(n_c * d)
    D = np.zeros((n_c, d, d)) if want_D else np.zeros((0, d, d))
    for i in range(n_c):
        o = i * d
        yn = r[o] - rho[i] * u[o]
        pn = yn if yn > 0.0 else 0.0
        rad = mu[i] * pn
        nt2 = 0.0
        for k in range(1, d):
            yk = r[o + k] - rho[i] * u[o + k]
            nt2 += yk * yk
        nt = np.sqrt(nt2)
        phi[o] = r[o] - pn
        out = nt > rad
        scale = rad / nt if out else 1.0
        for k in range(1, d):
            yk = r[o + k] - rho[i] * u[o + k]
            phi[o + k] = r[o + k] - yk * scale
        if want_D:
            if yn > 0.0:
                D[i, 0, 0] = 1.0
            for k in range(1, d):
                D[i, k, k] = scale
            if out and nt > 0.0:
                for k in range(1, d):
                    ek = (r[o + k] - rho[i] * u[o + k]) / nt
                    for l in range(1, d):
                        el = (r[o + l] - rho[i] * u[o + l]) / nt
                        D[i, k, l] -= scale * ek * el
                    if yn > 0.0:
                        D[i, k, 0] = mu[i] * ek
    return phi, D


@njit(cache=True, nogil=True)
def newton_matrix(W, D, rho, act, d):
    """``I - D + D rho W`` restricted to the active contacts ``act`` (dense).

    Row by row: ``J[(i,k), :] = sum_t rho_i D[i,k,t] W[(i,t), act]``, skipping the
    zero entries of ``D`` (most blocks are diagonal or rank one).
    """
    na = act.shape[0]
    m = na * d
    cols = np.empty(m, dtype=np.int64)
    for b in range(na):
        for l in range(d):
            cols[b * d + l] = act[b] * d + l
    J = np.zeros((m, m))
    for a in range(na):
        i = act[a]
        for k in range(d):
            row = a * d + k
            for t in range(d):
                c = rho[i] * D[i, k, t]
                if c != 0.0:
                    src = i * d + t
                    for col in range(m):
                        J[row, col] += c * W[src, cols[col]]
            for l in range(d):
                J[row, a * d + l] += (1.0 if k == l else 0.0) - D[i, k, l]
    return J


@njit(cache=True, nogil=True)
def residual_scale(q):
    """``||q||_2`` summed in index order (1 where it is below the smallest normal float): the scale
    the Newton methods divide their residual by.  A sequential sum, not ``np.linalg.norm`` (a BLAS
    dot whose rounding depends on the CPU's kernels), so that the iterations' stopping and
    proximal schedules, hence trajectories, are the same bits on every machine."""
    total = 0.0
    for k in range(q.shape[0]):
        total += q[k] * q[k]
    nq = np.sqrt(total)
    return nq if nq > np.finfo(np.float64).tiny else 1.0


@njit(cache=True, nogil=True, inline="always")
def _add_contact_residual2(r, u, mu, d, i, x, total):
    """``total`` plus contact ``i``'s squares in :func:`desaxce_residual`'s sum, added one by one
    (``x``: room for ``d``)."""
    o = i * d
    ut2 = 0.0
    for k in range(1, d):
        ut2 += u[o + k] * u[o + k]
    x[0] = r[o] - (u[o] + mu[i] * np.sqrt(ut2))
    for k in range(1, d):
        x[k] = r[o + k] - u[o + k]
    project_cone(x, mu[i], d)
    for k in range(d):
        diff = r[o + k] - x[k]
        total += diff * diff
    return total


@njit(cache=True, nogil=True)
def desaxce_residual(r, u, mu, d):
    """``||r - P_K(r - u - mu ||u_T|| e_N)||_2`` (unscaled)."""
    total = 0.0
    x = np.empty(d)
    for i in range(mu.shape[0]):
        total = _add_contact_residual2(r, u, mu, d, i, x, total)
    return np.sqrt(total)


@njit(cache=True, nogil=True)
def desaxce_residuals_by(r, u, mu, d, label, count):
    """:func:`desaxce_residual` of each group of contacts (``label``: each contact's, ``0 ..
    count - 1``), each sum in its contacts' order (the bits of :func:`desaxce_residual` on the
    group's contacts alone)."""
    parts = np.zeros(count)
    x = np.empty(d)
    for i in range(mu.shape[0]):
        parts[label[i]] = _add_contact_residual2(r, u, mu, d, i, x, parts[label[i]])
    return np.sqrt(parts)


@njit(cache=True, nogil=True)
def reduced_newton_system(W, D, rho, phi, d, buf, wabs):
    """The Newton system ``(I - D + D rho W) dr = -phi`` with the trivial rows eliminated.

    A row ``(i, k)`` whose ``D[i, k, :]`` is zero (separating contacts, the
    tangential rows of a frictionless or freely sliding contact) reads
    ``dr_(i,k) = -phi_(i,k)``; those entries are filled in ``dr`` and moved to
    the right-hand side of the remaining rows ``keep``.  Returns ``keep``, the
    reduced matrix ``J`` (C order, ``J[a, b]`` is row ``keep[a]``, column
    ``keep[b]``; a view of the workspace ``buf``, of length at least ``n^2``,
    whose type it has: float32 or float64), its right-hand side, ``dr`` (zero
    on ``keep``) and an upper bound of ``||J||_inf`` from ``wabs``, the
    absolute row sums of ``W``.
    """
    m = phi.shape[0]
    n_c = m // d
    keep = np.empty(m, dtype=np.int64)
    elim = np.empty(m, dtype=np.int64)
    pos = np.empty(m, dtype=np.int64)
    dr = np.empty(m)
    na = 0
    ne = 0
    for i in range(n_c):
        for k in range(d):
            row = i * d + k
            nz = False
            for l in range(d):
                if D[i, k, l] != 0.0:
                    nz = True
            if nz:
                keep[na] = row
                pos[row] = na
                dr[row] = 0.0
                na += 1
            else:
                elim[ne] = row
                pos[row] = -1
                dr[row] = -phi[row]
                ne += 1
    keep = keep[:na]
    elim = elim[:ne]
    J = buf[: na * na].reshape((na, na))
    rhs = np.empty(na)
    # the eliminated unknowns' contribution W dr (dr is zero on keep)
    coupling = W @ dr if ne > 0 else np.zeros(m)
    jnorm = 0.0
    for a in range(na):
        row = keep[a]
        i = row // d
        k = row - i * d
        acc = -phi[row]
        Ja = J[a]
        for b in range(na):
            Ja[b] = 0.0
        bound = 0.0
        for t in range(d):
            c = rho[i] * D[i, k, t]
            if c != 0.0:
                Wr = W[i * d + t]
                for b in range(na):
                    Ja[b] += c * Wr[keep[b]]
                acc -= c * coupling[i * d + t]
                bound += abs(c) * wabs[i * d + t]
        for l in range(d):
            col = i * d + l
            v = (1.0 if k == l else 0.0) - D[i, k, l]
            if v != 0.0:
                bound += abs(v)
                if pos[col] >= 0:
                    Ja[pos[col]] += v
                else:
                    acc -= v * dr[col]
        rhs[a] = acc
        if bound > jnorm:
            jnorm = bound
    return keep, J, rhs, dr, jnorm


@njit(cache=True, nogil=True)
def reduced_newton_apply(Wx, x, D, rho, keep, d):
    """``J x`` for the reduced Newton matrix of :func:`reduced_newton_system`,
    without the matrix: ``x`` is the full-length vector (zero off ``keep``) and
    ``Wx = W @ x``."""
    na = keep.shape[0]
    out = np.empty(na)
    for a in range(na):
        row = keep[a]
        i = row // d
        k = row - i * d
        o = i * d
        v = x[row]
        for t in range(d):
            c = D[i, k, t]
            if c != 0.0:
                v += c * (rho[i] * Wx[o + t] - x[o + t])
        out[a] = v
    return out


@njit(cache=True, nogil=True)
def ac_merit(r, u, dr, du, t, mu, rho, d):
    """``||Phi(r + t dr)||^2 / 2`` with ``u + t du`` (no temporary vectors)."""
    n_c = mu.shape[0]
    total = 0.0
    for i in range(n_c):
        o = i * d
        rn = r[o] + t * dr[o]
        yn = rn - rho[i] * (u[o] + t * du[o])
        pn = yn if yn > 0.0 else 0.0
        rad = mu[i] * pn
        nt2 = 0.0
        for k in range(1, d):
            yk = r[o + k] + t * dr[o + k] - rho[i] * (u[o + k] + t * du[o + k])
            nt2 += yk * yk
        nt = np.sqrt(nt2)
        scale = rad / nt if nt > rad else 1.0
        f = rn - pn
        total += f * f
        for k in range(1, d):
            rk = r[o + k] + t * dr[o + k]
            yk = rk - rho[i] * (u[o + k] + t * du[o + k])
            f = rk - yk * scale
            total += f * f
    return 0.5 * total


@njit(cache=True, nogil=True)
def abs_row_sums(W):
    """``sum_j |W_ij|`` for every row of a dense ``W``."""
    m = W.shape[0]
    out = np.empty(m)
    for i in range(m):
        s = 0.0
        for j in range(W.shape[1]):
            s += abs(W[i, j])
        out[i] = s
    return out


@njit(cache=True, nogil=True, fastmath=True)
def _dot(x, y):
    """``x @ y`` (reassociated, so it vectorises)."""
    s = 0.0
    for j in range(x.shape[0]):
        s += x[j] * y[j]
    return s


@njit(cache=True, nogil=True, inline="always")
def _solved_here(Wii, Winv, ui, r, o, mu_i, d, x, ri):
    """Contact ``i``'s local problem with the others frozen, from ``ui = W_i r + q_i`` at the current
    ``r``: ``u_i = W_ii r_i + b_i`` with ``x = b_i`` (the own block's part taken off), solved by cases
    (:func:`~contactcp.solvers.cone.one_contact.one_contact_inv`; ``Winv`` is ``Wii``'s inverse) into
    ``r``.  False when no case gives a point: ``x`` then holds ``b_i`` for :func:`_fallback`, which the
    sweeps call outside their loop (a call in the loop, even untaken, cost a fifth of a block sweep's
    time: :func:`~contactcp.solvers.cone.block_sparse.bsr_sweep`)."""
    for a in range(d):
        s = ui[a]
        for b in range(d):
            s -= Wii[a, b] * r[o + b]
        x[a] = s
    for a in range(d):
        ri[a] = r[o + a]
    if not one_contact_inv(Wii, Winv, x, mu_i, d, ri):
        return False
    for a in range(d):
        r[o + a] = ri[a]
    return True


@njit(cache=True, nogil=True)
def _fallback(Wii, bi, r, o, mu_i, rho, i, d, local_iter, local_tol):
    """At most ``local_iter`` projected fixed-point steps ``r_i <- P_K(r_i - rho_i (u_i + mu ||u_T|| e_N))``
    on ``u_i = W_ii r_i + b_i``, stopping when a step moves ``r_i`` by less than ``local_tol`` relative.
    ``rho[i] < 0`` means ``1 / lambda_max`` of ``Wii``'s symmetric part, worked out here when first
    needed (and stored)."""
    if rho[i] < 0.0:
        rho[i] = block_step(Wii)
    rho_i = rho[i]
    if not rho_i > 0.0:
        return
    x = np.empty(d)
    ri = np.empty(d)
    for a in range(d):
        ri[a] = r[o + a]
    for _it in range(local_iter):
        # u_i at the current local iterate
        ut2 = 0.0
        for a in range(d):
            v = bi[a]
            for b in range(d):
                v += Wii[a, b] * ri[b]
            x[a] = v
            if a > 0:
                ut2 += v * v
        x[0] += mu_i * np.sqrt(ut2)
        for a in range(d):
            x[a] = ri[a] - rho_i * x[a]
        project_cone(x, mu_i, d)
        diff = 0.0
        size = 0.0
        for a in range(d):
            diff += (x[a] - ri[a]) ** 2
            size += x[a] * x[a]
            ri[a] = x[a]
        if diff <= local_tol * local_tol * size:
            break
    for a in range(d):
        r[o + a] = ri[a]


@njit(cache=True, nogil=True)
def gauss_seidel_sweeps(W, blocks, inv, q, mu, r, d, n_sweeps, local_iter, rho, local_tol):
    """``n_sweeps`` non-smooth Gauss–Seidel sweeps over the contacts, in place on ``r`` (Jean & Moreau's NSGS).

    Contact ``i`` reads ``u_i = W_i r + q_i`` (its ``d`` rows of ``W``, so a sweep costs one product
    with ``W`` and touches ``W`` row by row), then solves its local problem with the others frozen
    (:func:`_solved_here`, on its diagonal block ``blocks[i] = W_ii``), else by :func:`_fallback`
    (``rho[i]`` its step, ``< 0`` to be worked out when needed); a contact with ``rho[i] == 0`` is
    skipped.  Dense ``W``; the sparse versions are :func:`gauss_seidel_sweeps_csr` and
    :func:`~contactcp.solvers.cone.block_sparse.bsr_sweep`; :func:`sweeps` chooses, and fills in the
    steps.  Used by the NSGS method and as the Newton method's warm start.
    """
    _sweeps(W, _NO_I, _NO_I, _NO_F, False, blocks, inv, q, mu, r, d, n_sweeps, local_iter, rho, local_tol)


@njit(cache=True, nogil=True)
def gauss_seidel_sweeps_csr(indptr, indices, data, blocks, inv, q, mu, r, d, n_sweeps, local_iter, rho, local_tol):
    """:func:`gauss_seidel_sweeps` on a sparse ``W`` in CSR form (``indptr``, ``indices``, ``data``): a
    sweep costs one pass over the stored entries, and no dense copy of ``W`` is made."""
    _sweeps(_NO_W, indptr, indices, data, True, blocks, inv, q, mu, r, d, n_sweeps, local_iter, rho, local_tol)


_NO_I = np.zeros(0, dtype=np.int64)
_NO_F = np.zeros(0)
_NO_W = np.zeros((0, 0))


@njit(cache=True, nogil=True)
def _sweeps(W, indptr, indices, data, sparse, blocks, inv, q, mu, r, d, n_sweeps, local_iter, rho, local_tol):
    """The sweeps of :func:`gauss_seidel_sweeps` (dense ``W``) and :func:`gauss_seidel_sweeps_csr`
    (``sparse``: the CSR arrays): :func:`_solve_from`'s loop, and the fallback of a contact it stops at."""
    n_c = q.shape[0] // d
    ui = np.empty(d)
    x = np.empty(d)
    ri = np.empty(d)
    for _ in range(n_sweeps):
        i = 0
        while i < n_c:
            if d == 3:
                i = _solve_from(i, W, indptr, indices, data, sparse, blocks, inv, q, mu, r, rho, 3, ui, x, ri)
            else:
                i = _solve_from(i, W, indptr, indices, data, sparse, blocks, inv, q, mu, r, rho, 2, ui, x, ri)
            if i < n_c:  # x holds contact i's b_i
                _fallback(blocks[i], x, r, i * d, mu[i], rho, i, d, local_iter, local_tol)
                i += 1


@njit(cache=True, nogil=True, inline="always")
def _solve_from(i0, W, indptr, indices, data, sparse, blocks, inv, q, mu, r, rho, d, ui, x, ri):
    """The sweep's loop from contact ``i0`` (``d`` a constant in each call: the compiler specialises the
    local solve's loops; a block sweep of FCLIB's Kapla tower 122 -> 107 us, a script): the first contact
    no case solves (:func:`_solved_here`), else ``n_c``."""
    n_c = q.shape[0] // d
    for i in range(i0, n_c):
        if rho[i] == 0.0:
            continue
        o = i * d
        for a in range(d):
            if sparse:
                s = q[o + a]
                for k in range(indptr[o + a], indptr[o + a + 1]):
                    s += data[k] * r[indices[k]]
                ui[a] = s
            else:
                ui[a] = q[o + a] + _dot(W[o + a], r)
        if not _solved_here(blocks[i], inv[i], ui, r, o, mu[i], d, x, ri):
            return i
    return n_c


@njit(cache=True, nogil=True)
def _csr_diagonal_blocks(indptr, indices, data, d, n_c):
    out = np.zeros((n_c, d, d))
    for i in range(n_c):
        o = i * d
        for a in range(d):
            for k in range(indptr[o + a], indptr[o + a + 1]):
                col = indices[k]
                if o <= col < o + d:
                    out[i, a, col - o] += data[k]
    return out


def diagonal_blocks(W, d: int) -> np.ndarray:
    """The ``(n_c, d, d)`` diagonal blocks ``W_ii`` of a dense or CSR ``W``."""
    n_c = W.shape[0] // d
    if not hasattr(W, "indptr"):
        return np.ascontiguousarray(W.reshape(n_c, d, n_c, d)[np.arange(n_c), :, np.arange(n_c), :])
    return _csr_diagonal_blocks(W.indptr, W.indices, W.data, d, n_c)


def sweeps(W, q, mu, r, d, n_sweeps, local_iter, rho, local_tol, blocks=None) -> None:
    """Gauss–Seidel sweeps on a dense or sparse ``W`` (``blocks`` from :func:`diagonal_blocks`, computed
    here when not given).  ``rho[i] <= 0`` means ``1 / ||W_ii||_F``; a contact whose block is zero is
    skipped.  The steps are fixed by the data, so they are worked out here once, not at every sweep."""
    if blocks is None:
        blocks = diagonal_blocks(W, d)
    inv = block_inverses(blocks)
    fro = np.sqrt(np.einsum("iab,iab->i", blocks, blocks))
    with np.errstate(divide="ignore"):
        steps = np.where(fro > 0, np.where(rho > 0, rho, 1.0 / fro), 0.0)
    if hasattr(W, "indptr"):
        gauss_seidel_sweeps_csr(
            W.indptr, W.indices, W.data, blocks, inv, q, mu, r, d, n_sweeps, local_iter, steps, local_tol
        )
    else:
        gauss_seidel_sweeps(W, blocks, inv, q, mu, r, d, n_sweeps, local_iter, steps, local_tol)


@njit(cache=True, nogil=True, inline="always")
def zero_block(blocks, i):
    """Whether the ``d x d`` block ``blocks[i]`` is all zeros."""
    d = blocks.shape[1]
    for a in range(d):
        for b in range(d):
            if blocks[i, a, b] != 0.0:
                return False
    return True


@njit(cache=True, nogil=True)
def sparse_newton_system(indptr, indices, data, D, rho, phi, d):
    """The sparse Newton system ``(I - D + D rho W) dr = -phi`` with the separating contacts eliminated.

    A contact whose block ``D_i`` is zero reads ``dr_i = -phi_i``; its columns move to the right-hand
    side of the others.  Returns ``(rows, J_indptr, J_indices, J_data, rhs, dr)``: ``rows`` the
    unknowns kept (the ``d`` rows of each other contact, in order), the kept matrix in CSR form
    (row ``a`` is row ``rows[a]``, columns numbered as ``rows``), its right-hand side, and ``dr``
    with the eliminated entries filled in (zero on ``rows``).  Row ``(i, k)`` of the matrix is
    ``sum_t rho_i D[i,k,t] W[(i,t), :]`` plus ``(I - D_i)[k, :]`` on the diagonal block, built with a
    dense accumulator per row (:func:`scipy.sparse` products did the same in a dozen calls)."""
    n = phi.shape[0]
    n_c = n // d
    pos = np.full(n_c, -1, dtype=np.int64)
    na = 0
    for i in range(n_c):
        if not zero_block(D, i):
            pos[i] = na
            na += 1
    m = na * d
    rows = np.empty(m, dtype=np.int64)
    dr = np.zeros(n)
    for i in range(n_c):
        if pos[i] >= 0:
            for a in range(d):
                rows[pos[i] * d + a] = i * d + a
        else:
            for a in range(d):
                dr[i * d + a] = -phi[i * d + a]
    cap = 0
    for i in range(n_c):
        if pos[i] >= 0:
            width = 0
            for t in range(d):
                width += indptr[i * d + t + 1] - indptr[i * d + t]
            cap += d * (width + d)
    J_indptr = np.zeros(m + 1, dtype=np.int64)
    J_indices = np.empty(cap, dtype=np.int64)
    J_data = np.empty(cap)
    rhs = np.empty(m)
    acc = np.zeros(m)
    seen = np.full(m, -1, dtype=np.int64)
    cols = np.empty(m, dtype=np.int64)
    nnz = 0
    for i in range(n_c):
        a = pos[i]
        if a < 0:
            continue
        for k in range(d):
            row = a * d + k
            ncol = 0
            coupling = 0.0
            for t in range(d):
                c = rho[i] * D[i, k, t]
                if c == 0.0:
                    continue
                src = i * d + t
                for p in range(indptr[src], indptr[src + 1]):
                    j = indices[p]
                    b = pos[j // d]
                    if b < 0:
                        coupling += c * data[p] * dr[j]
                        continue
                    col = b * d + j % d
                    if seen[col] != row:
                        seen[col] = row
                        acc[col] = 0.0
                        cols[ncol] = col
                        ncol += 1
                    acc[col] += c * data[p]
            for l in range(d):
                col = a * d + l
                v = (1.0 if k == l else 0.0) - D[i, k, l]
                if seen[col] != row:
                    seen[col] = row
                    acc[col] = 0.0
                    cols[ncol] = col
                    ncol += 1
                acc[col] += v
            for e in range(ncol):
                J_indices[nnz] = cols[e]
                J_data[nnz] = acc[cols[e]]
                nnz += 1
            J_indptr[row + 1] = nnz
            rhs[row] = -phi[i * d + k] - coupling
    return rows, J_indptr, J_indices[:nnz], J_data[:nnz], rhs, dr

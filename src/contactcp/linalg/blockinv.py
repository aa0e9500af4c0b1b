"""Solves with a sparse matrix that splits into independent blocks (a mass matrix).

The mass matrix ``M`` of a multibody system is block diagonal up to a permutation: one block per
rigid body (6 x 6, often diagonal), one per flexible body or articulated chain.  :class:`BlockSolver`
finds the blocks (the connected components of ``M``'s sparsity graph), factors each one densely
(Cholesky when the block is symmetric positive definite, LU otherwise) and offers

* :meth:`BlockSolver.solve` — ``M^{-1} b`` for vectors and dense matrices;
* :meth:`BlockSolver.solve_sparse` — ``M^{-1} H`` for a sparse ``H``, sparse, block by block: block
  ``c`` meets only the columns of ``H`` with entries in its rows, so the product keeps ``H``'s
  sparsity pattern at body granularity and no dense ``n x m`` array is formed.

Blocks of up to :data:`SMALL_BLOCK` rows (a rigid body's 6 x 6) that are symmetric positive definite
are factored together, all blocks of one size in one batched Cholesky, and kept as their inverses in
one sparse block-diagonal matrix: solving with them is then one sparse product, where a loop over the
bodies of a pile spent more in Python than in arithmetic.  (Solving with the explicit inverse has
errors of the order of the block's condition number times the rounding unit, like the triangular
solves it replaces; every answer that uses it is certified on ``M`` itself.)

A singular block raises :class:`~contactcp.errors.InvalidProblemError` naming ``M`` and the block's rows.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from contactcp.errors import InvalidProblemError

__all__ = ["BlockSolver"]

#: a block whose LU pivots fall below this times its largest entry is treated as singular
_SINGULAR = 1e-13
#: symmetric positive definite blocks up to this size are inverted in batches (module docstring)
SMALL_BLOCK = 12


#: the last factored matrices (:meth:`BlockSolver.of`), at most :data:`_KEEP`, the least recently used first
_MEMO: dict[bytes, BlockSolver] = {}
_KEEP = 8


class BlockSolver:
    """Factor ``M`` (square, sparse or dense) block by block; see the module's docstring.

    Parameters
    ----------
    M : (n, n) sparse matrix or array
    field : the name used in error messages (default ``"M"``)
    """

    def __init__(self, M, field: str = "M"):
        M = sp.csr_matrix(M, dtype=np.float64, copy=True)  # its own (kept read-only below)
        n = M.shape[0]
        if M.shape != (n, n):
            raise InvalidProblemError(field, f"must be square, got shape {M.shape}")
        self.n = n
        self.field = field
        pattern = M + M.T
        _, labels = connected_components(pattern, directed=False)
        sizes = np.bincount(labels, minlength=1)
        # one-entry blocks (a diagonal mass matrix: principal-axis inertia) in one vector; the others
        # factored below
        alone = sizes[labels] == 1
        self.diag_rows = np.flatnonzero(alone)
        order = np.argsort(labels[~alone], kind="stable")
        rest = np.flatnonzero(~alone)[order]
        bounds = np.flatnonzero(np.diff(labels[rest])) + 1
        blocks = np.split(rest, bounds) if rest.size else []
        self.diag = M.diagonal()[self.diag_rows]
        zero = np.flatnonzero(self.diag == 0.0)
        if zero.size:
            raise InvalidProblemError(field, f"is singular: its block at row {self.diag_rows[zero[0]]} is zero")
        self._small, batched = self._batch(M, blocks)
        self.blocks = [b for b, done in zip(blocks, batched) if not done]
        self._factors = [self._factor(M, idx) for idx in self.blocks]
        self._inv: sp.csr_matrix | None = None
        # the matrix factored, for problems posed on it by a caller that holds this solver
        # (GlobalFrictionContactProblem._derived(solver=)): CSR with read-only values, and whether
        # they are finite
        M.data.setflags(write=False)
        self.csr = M
        self.finite = bool(np.isfinite(M.data).all())

    @classmethod
    def of(cls, M: sp.csr_matrix, field: str = "M") -> BlockSolver:
        """The solver of a CSR matrix, shared with the last problems built on the same matrix (the same
        shape, pattern and values, compared byte for byte): a time stepper poses the same mass matrix
        of free bodies at every step, and analysing and factoring it took 0.56 of the 1.2 ms a 25-box
        step's global problem cost to build.  A solver is not changed after it is built (but for the
        inverse :meth:`solve_sparse` forms once)."""
        key = b"".join(
            (np.array(M.shape, dtype=np.int64).tobytes(), M.indptr.tobytes(), M.indices.tobytes(), M.data.tobytes())
        )
        solver = _MEMO.pop(key, None)  # the least recently used is dropped: a hit moves to the end
        if solver is None:
            solver = cls(M, field)
            if len(_MEMO) >= _KEEP:
                _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = solver
        return solver

    def _batch(self, M: sp.csr_matrix, blocks: list[np.ndarray]):
        """The inverses of the small symmetric positive definite blocks, batched by size, as one sparse
        matrix (None if none), and which of ``blocks`` it covers; the others are factored alone."""
        covered = [False] * len(blocks)
        rows, cols, vals = [], [], []
        by_size: dict[int, list[int]] = {}
        for j, b in enumerate(blocks):
            if b.size <= SMALL_BLOCK:
                by_size.setdefault(b.size, []).append(j)
        for size, group in by_size.items():
            idx = np.array([blocks[j] for j in group])  # (k, size)
            flat = idx.reshape(-1)
            # M restricted to these blocks' rows and columns has entries within the blocks only (they
            # are connected components): entry (a, b) is entry (a % size, b % size) of block a // size
            S = M[flat][:, flat].tocoo()
            B = np.zeros((len(group), size, size))
            np.add.at(B, (S.row // size, S.row % size, S.col % size), S.data)
            sym = np.all(B == np.transpose(B, (0, 2, 1)), axis=(1, 2))
            big = np.abs(B).max(axis=(1, 2))
            if not sym.any():
                continue
            try:
                L = np.linalg.cholesky(B[sym])
            except np.linalg.LinAlgError:  # one block is not positive definite: each is factored alone
                continue
            piv = np.min(np.abs(np.diagonal(L, axis1=1, axis2=2)), axis=1) ** 2
            good = np.flatnonzero(sym)[piv > _SINGULAR * big[sym]]
            if not good.size:
                continue
            Linv = np.linalg.inv(L[piv > _SINGULAR * big[sym]])
            inv = np.transpose(Linv, (0, 2, 1)) @ Linv
            gi = idx[good]
            rows.append(np.repeat(gi, size, axis=1).reshape(-1))
            cols.append(np.tile(gi, (1, size)).reshape(-1))
            vals.append(inv.reshape(-1))
            for g in good:
                covered[group[g]] = True
        if not vals:
            return None, covered
        inv = sp.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(self.n, self.n)
        )
        return inv, covered

    def _factor(self, M: sp.csr_matrix, idx: np.ndarray):
        B = M[idx][:, idx].toarray()
        big = float(np.abs(B).max(initial=0.0))
        where = f"rows {idx.min()}..{idx.max()}"
        if big == 0.0:
            raise InvalidProblemError(self.field, f"is singular: its block at {where} is zero")
        if np.array_equal(B, B.T):
            try:
                c = sla.cho_factor(B, check_finite=False)
                if np.min(np.abs(np.diag(c[0]))) ** 2 > _SINGULAR * big:
                    return ("chol", c)
            except np.linalg.LinAlgError:
                pass
        with warnings.catch_warnings():  # a singular block is reported below, naming the field
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            lu = sla.lu_factor(B, check_finite=False)
        if np.min(np.abs(np.diag(lu[0]))) <= _SINGULAR * big:
            raise InvalidProblemError(self.field, f"is singular (numerically): its block at {where} has no stable LU")
        return ("lu", lu)

    @staticmethod
    def _apply(factor, b: np.ndarray) -> np.ndarray:
        kind, f = factor
        if kind == "chol":
            return sla.cho_solve(f, b, check_finite=False)
        return sla.lu_solve(f, b, check_finite=False)

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``M^{-1} b`` (``b`` a vector or a dense matrix with ``n`` rows)."""
        b = np.asarray(b, dtype=np.float64)
        out = np.empty_like(b) if self._small is None else np.asarray(self._small @ b)
        d = self.diag_rows
        out[d] = b[d] / (self.diag if b.ndim == 1 else self.diag[:, None])
        for idx, fac in zip(self.blocks, self._factors):
            out[idx] = self._apply(fac, b[idx])
        return out

    def _small_inverse(self) -> sp.csr_matrix:
        """The one-entry and small blocks' inverses, one sparse matrix (built once)."""
        if self._inv is None:
            d = self.diag_rows
            inv = sp.csr_matrix((1.0 / self.diag, (d, d)), shape=(self.n, self.n))
            self._inv = inv if self._small is None else (inv + self._small).tocsr()
        return self._inv

    def block_parts(self) -> tuple[sp.csr_matrix | None, np.ndarray, np.ndarray]:
        """``(small, rows, diag)``: the small blocks' inverses as one CSR matrix (None if none), the
        one-entry blocks' rows and their entries; with no larger blocks (:meth:`inverse` not None)
        :meth:`solve` is ``small @ b`` with rows ``rows`` replaced by ``b[rows] / diag``, what the
        time stepper's compiled step computes (:func:`~contactcp.simulate.stepping.global_kernels.
        block_solve`)."""
        return self._small, self.diag_rows, self.diag

    def inverse(self) -> sp.csr_matrix | None:
        """``M^{-1}`` as a sparse matrix when every block is a one-entry or a small one (a multibody
        system of rigid bodies), else None (the larger blocks are kept factored, not inverted)."""
        return None if self.blocks else self._small_inverse()

    def solve_sparse(self, H) -> sp.csc_matrix:
        """``M^{-1} H`` as a sparse matrix, block by block (only the columns each block meets)."""
        H = sp.csr_matrix(H, dtype=np.float64)
        if H.shape[0] != self.n:
            raise InvalidProblemError("H", f"has {H.shape[0]} rows, M has {self.n}")
        X = self._small_inverse() @ H
        if not self.blocks:  # a multibody system of rigid bodies: one product
            return X.tocsc()
        D = X.tocoo()
        rows, cols, vals = [D.row], [D.col], [D.data]
        for idx, fac in zip(self.blocks, self._factors):
            Hc = H[idx]
            used = np.unique(Hc.indices)
            if used.size == 0:
                continue
            X = self._apply(fac, Hc[:, used].toarray())
            r, c = np.nonzero(X)
            rows.append(idx[r])
            cols.append(used[c])
            vals.append(X[r, c])
        return sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=H.shape)

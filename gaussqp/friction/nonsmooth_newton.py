"""A globalized semismooth Newton method for mode-free Coulomb friction, sparse.

The problem is the local (Delassus) form ``u = W r + q`` with Coulomb's law in De Saxcé's form
(:mod:`gaussqp.friction.coulomb_law`), contact blocks (normal, t1[, t2]). Its solutions are the zeros of the
**natural map** with a per-contact weight ``ρ_j > 0``

    φ_ρ(r) = r − P_K(r − ρ s(W r + q)),    s(u) = u + μ‖u_t‖ e_n,

(Acary, Brémond, Huber 2018, eq. (12); every ``ρ > 0`` has the same zeros; with ρ = 1 it is the residual our
certificate recomputes). ``P_K`` is piecewise smooth, hence semismooth (Hayashi, Yamashita, Fukushima, "A combined
smoothing and regularization method for monotone second-order cone complementarity problems", SIAM J. Optim. 2005,
for the SOC natural map), and so is ``φ_ρ``; an element of its generalized Jacobian is

    J = I − P'(z) (I − ρ D(u) W),    z = r − ρ s(u),

with ``P'`` a B-subdifferential element of the projection (block diagonal, closed form) and ``D = ∂s/∂u`` (identity
plus ``μ u_tᵀ/‖u_t‖`` in the normal row). This is the structure of Siconos's ``fc3d_nonsmooth_Newton_natural_map``
and of Alart–Curnier's method (Alart, Curnier 1991; ``fc3d_nonsmooth_Newton_AlartCurnier``): block-diagonal
derivatives of the law around one product with W.

**Globalization** (the damped semismooth Newton of Qi and Sun, "A nonsmooth version of Newton's method", Math.
Program. 1993, with the merit ``θ(r) = ½‖φ_ρ(r)‖²``):

- Armijo backtracking on θ along the Newton step; when the step does not descend, the projected step ``−φ_ρ`` (one
  projected Jacobi sweep, the PROX/fixed-point direction), then the merit's steepest descent ``−Jᵀφ_ρ``; every
  step must decrease θ by ``σ t ‖φ_ρ‖²`` (the Newton step's predicted decrease) below the reference value;
- the reference value is the largest merit of the last :data:`~gaussqp.settings.COULOMB_NN_NONMONOTONE` iterates
  (Grippo, Lampariello, Lucidi, "A nonmonotone line search technique for Newton's method", SIAM J. Numer. Anal.
  1986), then, if that phase stalls, a monotone phase from its best point;
- the Jacobian is regularized by ``δ P'D`` (``W → W + δ diag(1/ρ)`` in the derivative only: a proximal term, as
  Siconos's PROX adds to W) with ``δ`` vanishing with the residual, so a rank-deficient W (``local_problem_test``,
  towers) does not make the linear system singular, and a non-symmetric W (Capsules) needs nothing special;
  ``δ = θ min(1, ‖φ_ρ‖/‖ρq‖)``; the route (:func:`gaussqp.formulations.coulomb.solve_mode_free`) tries the θ of
  :data:`~gaussqp.settings.COULOMB_NN_REG_THETAS` in turn: a strong damping far from a solution is what lets
  robots with many contacts per foot (a W whose nonzero spectrum spans decades) converge, a weak one keeps piles fast;
- ``ρ_j = 1/‖W_jj‖_F`` from W's diagonal blocks: each contact's own scale, so that ρ(W r + q) is in the units of r
  (PerioBox's blocks are ~2e-5, local_problem_test's ~700);
- starts: a given guess (a re-solve along a trajectory); else the best by merit of "every contact sticks"
  (``u = 0``: one linear solve of ``W r = −q``, projected on the cones — exact at rest; retried as
  ``(W + δ diag(1/ρ)) r = −q`` when W is singular), and ``r = 0``.

It stops when ``‖φ_1(r)‖ ≤ target·‖q‖`` (converged) or reports why it did not (``max_iter``, ``stalled``: the best
merit has not halved for :data:`~gaussqp.settings.COULOMB_NN_STALL_ITER` iterations, ``no descent``, a singular
system): the caller (:mod:`gaussqp.formulations.coulomb`) then falls back to the convex iteration. Nothing here is
a certificate: the route recomputes the residual and judges it.

**Linear algebra.** Everything per contact is a batch of (d × d) blocks in NumPy (no per-contact Python loop, no
``block_diag``); one linear solve per Newton step: LAPACK on a dense W of at most
:data:`~gaussqp.settings.COULOMB_NN_DENSE_MAX` unknowns (or a dense-ish W), else SuperLU on ``J`` assembled as
``blockdiag(I − P' + δP'D) + blockdiag(P'ρD) · W`` in CSC, whose pattern is W's: ordered once per pattern (minimum
degree on J + Jᵀ) and pivoted by threshold (:meth:`BlockPattern.factor`), and the compiled kernels
(:mod:`gaussqp.friction.compiled`) evaluate the maps and the Jacobian's blocks around SciPy's product with W. For a
global problem ``M v = H r + f`` with sparse M, :func:`sparse_delassus` forms ``W = Hᵀ M⁻¹ H`` sparse from M's connected
blocks (a block-diagonal M⁻¹ of rigid bodies), never a dense W.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

from collections import OrderedDict

import numpy as np
import scipy.sparse as sp

from ..settings import (
    COULOMB_ARMIJO,
    COULOMB_BACKTRACK,
    COULOMB_NN_ACCEPT_RTOL,
    COULOMB_NN_BLOCK_MAX,
    COULOMB_NN_COMPILED_SPARSE_WORK_MIN,
    COULOMB_NN_CYCLE_ITER,
    COULOMB_NN_CYCLE_RTOL,
    COULOMB_NN_DENSE_MAX,
    COULOMB_NN_GUESS_RTOL,
    COULOMB_NN_ITER_MAX,
    COULOMB_NN_STEP_MIN,
    COULOMB_NN_NONMONOTONE,
    COULOMB_NN_PIVOT_THRESHOLD,
    COULOMB_NN_REG_FLOOR,
    COULOMB_NN_REG_THETA,
    COULOMB_NN_SPARSE_DENSITY,
    COULOMB_NN_SPARSE_ORDERING,
    COULOMB_NN_STALL_FACTOR,
    COULOMB_NN_STALL_ITER,
    COULOMB_NN_TARGET_RTOL,
)
from ..linalg.csr import canonical, csr_entries, csr_from_arrays, csr_like, repeats, summed
from ..linalg.csr import plus as csr_plus, product as csr_product, transpose as csr_transpose
from ..linalg.dense import lu_solver, sparse_digest
from .compiled import kernels, kernels_when_worth, loaded, plain, spent_in_numpy
from .coulomb_law import project_cone

#: why a run stopped (``NewtonResult.reason``)
CONVERGED, MAX_ITER, STALLED, NO_DESCENT = "converged", "max_iter", "stalled", "no descent"


@dataclass
class NewtonResult:
    """What :func:`solve_newton` returns.

    ``r``, ``u = W r + q`` the best iterate (least ρ = 1 residual), ``residual`` its ``‖φ_1‖/‖q‖``,
    ``converged`` whether it reached the target, ``reason`` why it stopped, ``iterations`` Newton steps taken,
    ``start`` the start it kept (``guess``, ``stick``, ``zero``), ``history`` one dict per iteration, ``times``
    (seconds: ``setup``, ``start``, ``iterations``), ``linear_algebra`` ``dense`` or ``sparse``."""

    r: np.ndarray
    u: np.ndarray
    residual: float
    converged: bool
    reason: str
    iterations: int
    start: str
    history: list = field(default_factory=list)
    times: dict = field(default_factory=dict)
    linear_algebra: str = "dense"


# --------------------------------------------------------------------------------------------- per-contact blocks
def cone_projection_jacobian(z: np.ndarray, mu: np.ndarray, d: int) -> np.ndarray:
    """B-subdifferential element of the projection on ``K_μ`` at the stacked blocks ``z``: (m, d, d), vectorized.

    Same pieces as :func:`gaussqp.friction.coulomb_law.project_cone_jacobian` (identity inside, 0 in the polar
    cone; on the side, with ``t = ‖z_t‖``, ``e = z_t/t``, ``c = 1/(1+μ²)``, ``α = c(z_n + μt)``: first row
    ``c(1, μe)``, tangent rows ``μ c e (1, μe) + (μα/t)(I − eeᵀ)``), computed for all contacts at once."""
    Z = z.reshape(-1, d)
    m = Z.shape[0]
    zn, zt = Z[:, 0], Z[:, 1:]
    t = np.linalg.norm(zt, axis=1)
    inside = (t <= mu * zn) & (zn >= 0)
    polar = mu * t <= -zn
    side = ~inside & ~polar
    out = np.zeros((m, d, d))
    out[inside] = np.eye(d)
    if np.any(side):
        ms, ts = mu[side], t[side]
        safe = np.where(ts > 0, ts, 1.0)
        e = zt[side] / safe[:, None]
        c = 1.0 / (1.0 + ms * ms)
        alpha = c * (zn[side] + ms * ts)
        blk = np.zeros((ms.size, d, d))
        blk[:, 0, 0] = c
        blk[:, 0, 1:] = (ms * c)[:, None] * e
        blk[:, 1:, 0] = (ms * c)[:, None] * e
        eet = e[:, :, None] * e[:, None, :]
        k = np.where(ts > 0, ms * alpha / safe, 0.0)
        blk[:, 1:, 1:] = (ms * ms * c)[:, None, None] * eet + k[:, None, None] * (np.eye(d - 1)[None] - eet)
        out[side] = blk
    return out


def shift_jacobian(u: np.ndarray, mu: np.ndarray, d: int) -> np.ndarray:
    """``D = ∂(u + μ‖u_t‖e_n)/∂u`` blocks (m, d, d): identity plus ``μ u_tᵀ/‖u_t‖`` in the normal row (0 at
    ``u_t = 0``, an element of the generalized gradient of the norm)."""
    U = u.reshape(-1, d)
    m = U.shape[0]
    D = np.zeros((m, d, d))
    D[:, np.arange(d), np.arange(d)] = 1.0
    nt = np.linalg.norm(U[:, 1:], axis=1)
    slide = nt > 0
    D[slide, 0, 1:] = (mu[slide] / nt[slide])[:, None] * U[slide, 1:]
    return D


def diagonal_blocks(W, m: int, d: int) -> np.ndarray:
    """W's diagonal (d × d) blocks, (m, d, d), from a dense or sparse W."""
    if sp.issparse(W):
        W = sp.csr_matrix(W)
        if not repeats(W):  # each entry stored once: read the blocks' entries off the arrays
            rows, cols = csr_entries(W)
            inside = rows // d == cols // d
            out = np.zeros((m, d, d))
            out[rows[inside] // d, rows[inside] % d, cols[inside] % d] = W.data[inside]
            return out
        base = np.arange(m)[:, None, None] * d
        rows = np.broadcast_to(base + np.arange(d)[None, :, None], (m, d, d))
        cols = np.broadcast_to(base + np.arange(d)[None, None, :], (m, d, d))
        return np.asarray(W[rows.ravel(), cols.ravel()]).reshape(m, d, d)
    ar = np.arange(m)
    return np.asarray(W).reshape(m, d, m, d)[ar, :, ar, :]


def contact_scales(W, m: int, d: int) -> np.ndarray:
    """Each contact's own scale ``‖W_jj‖_F`` (m,), from W's diagonal blocks; a contact whose block vanishes gets the
    largest block's scale (or 1 when every block vanishes). The Newton's weights are ``ρ_j = 1/‖W_jj‖_F``, the
    proximal rounds' term is ``σ ‖W_jj‖_F`` (:mod:`gaussqp.friction.proximal_newton`)."""
    nrm = np.linalg.norm(diagonal_blocks(W, m, d).reshape(m, -1), axis=1)
    top = float(nrm.max(initial=0.0))
    return np.where(nrm > 0, nrm, top if top > 0 else 1.0)


def contact_components(W, m: int, d: int) -> tuple[int, np.ndarray]:
    """The groups of contacts W couples: the connected components of the graph whose edges are W's nonzero (d × d)
    blocks (an explicitly stored zero counts as an edge). Contacts in different components do not interact: the
    equation ``φ(r) = 0`` splits into one equation per component.

    Parameters
    ----------
    W : (m·d, m·d) array or scipy.sparse matrix
    m, d : contacts and their dimension

    Returns
    -------
    (int, ndarray)
        the number of components and each contact's component (m,), numbered from 0 in order of first contact.
    """
    from scipy.sparse.csgraph import connected_components

    if m == 0:
        return 0, np.zeros(0, dtype=np.int64)
    if sp.issparse(W):
        C = sp.csr_matrix(W)
        # W's own graph of unknowns connected (one heap, one robot): so is the contacts' graph, which is not built
        if connected_components(C, directed=False)[0] == 1:
            return 1, np.zeros(m, dtype=np.int64)
        rows = np.repeat(np.arange(C.shape[0]) // d, np.diff(C.indptr))
        cols = C.indices // d
    else:
        blocks = np.asarray(W).reshape(m, d, m, d) != 0
        rows, cols = np.nonzero(blocks.any(axis=(1, 3)))
    graph = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(m, m))
    count, labels = connected_components(graph, directed=False)
    return int(count), labels.astype(np.int64)


# --------------------------------------------------------------------------------------------- global form
class BlockInverse:
    """``M⁻¹`` of a sparse symmetric positive definite M by its connected blocks (the bodies of a multibody system;
    scipy's ``connected_components`` of M's pattern): blocks of at most :data:`~gaussqp.settings.COULOMB_NN_BLOCK_MAX`
    coordinates inverted densely, batched by size (a diagonal M: one batch of 1 × 1 blocks), into the sparse
    block-diagonal ``small``; each larger block kept as its sparse LU (SuperLU), never inverted.
    ``Minv @ x`` applies M⁻¹ to a vector or a dense matrix. Raises ``numpy.linalg.LinAlgError`` or
    ``RuntimeError`` when a block is singular."""

    def __init__(self, M):
        from scipy.sparse.csgraph import connected_components
        import scipy.sparse.linalg as spla

        M = summed(sp.csr_matrix(M))  # an entry stored twice stands for their sum; the blocks read one each
        n = self.n = M.shape[0]
        ncomp, label = connected_components(M, directed=False)
        order = np.argsort(label, kind="stable")
        sizes = np.bincount(label, minlength=ncomp)
        starts = np.concatenate([[0], np.cumsum(sizes)])
        # ``small`` is assembled in CSR directly: row i of a block of size s holds that block's inverse's row, its s
        # columns in increasing order (a component's coordinates are increasing in ``order``); rows of the large
        # blocks are empty: the arrays SciPy's conversion from triplets gives, without its sort and checks
        width = np.where(sizes[label] > COULOMB_NN_BLOCK_MAX, 0, sizes[label])  # each row's entries
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(width, out=indptr[1:])
        indices = np.zeros(int(indptr[-1]), dtype=np.int64)
        data = np.zeros(int(indptr[-1]))
        rows_of, cols_of = csr_entries(M)
        self.large: list = []  # (indices, SuperLU) of the blocks above COULOMB_NN_BLOCK_MAX
        for s in np.unique(sizes):
            comps = np.flatnonzero(sizes == s)
            if s > COULOMB_NN_BLOCK_MAX:
                for c in comps:
                    idx = order[starts[c] : starts[c] + s]
                    self.large.append((idx, spla.splu(sp.csc_matrix(M[idx][:, idx]))))
                continue
            idx = order[starts[comps][:, None] + np.arange(s)[None, :]]  # (components, s)
            # gather the dense blocks B[c] = M[idx[c]][:, idx[c]] from M's entries at once
            pos = np.full(n, -1)
            pos[idx.ravel()] = np.tile(np.arange(s), len(comps))
            owner = np.full(n, -1)
            owner[idx.ravel()] = np.repeat(np.arange(len(comps)), s)
            keep = (owner[rows_of] >= 0) & (owner[cols_of] == owner[rows_of])
            blk = np.zeros((len(comps), s, s))
            blk[owner[rows_of[keep]], pos[rows_of[keep]], pos[cols_of[keep]]] = M.data[keep]
            inv = np.linalg.inv(blk)
            first = indptr[idx.ravel()]  # where each of these rows starts
            at = (first[:, None] + np.arange(s)[None, :]).ravel()
            indices[at] = np.repeat(idx, s, axis=0).ravel()
            data[at] = inv.ravel()
        self.small = csr_from_arrays(data, indices, indptr, (n, n))

    def __matmul__(self, x):
        x = np.asarray(x, dtype=float)
        y = np.asarray(self.small @ x)
        for idx, lu in self.large:
            y[idx] = lu.solve(np.ascontiguousarray(x[idx]))
        return y


def sparse_delassus(M, J) -> tuple[sp.csr_matrix, BlockInverse]:
    """``(W, M⁻¹)`` with ``W = J M⁻¹ Jᵀ`` sparse (symmetrized: symmetric up to round-off) for a sparse symmetric
    positive definite ``M`` (n × n) and contact rows ``J`` (m·d × n), M⁻¹ a :class:`BlockInverse`. W keeps the
    sparsity of the contact graph (Spheres: 0.5 % nonzero); a large block (FEM) adds ``J_b (M_b⁻¹ J_bᵀ)`` from its
    LU, dense only in the contacts that touch it."""
    Minv = BlockInverse(M)
    J = sp.csr_matrix(J)
    # SciPy's products and sums through its own routines (gaussqp.linalg.csr): the numbers of
    # ``csr_matrix(J @ Minv.small @ J.T)`` and of ``csr_matrix((W + W.T) / 2)`` without the operators' checks
    W = csr_product(csr_product(J, Minv.small), csr_transpose(J))
    JtT = sp.csc_matrix(J.T) if Minv.large else None
    for idx, lu in Minv.large:
        Jb = sp.csr_matrix(J[:, idx])
        touched = np.flatnonzero(np.diff(Jb.indptr))
        if touched.size:
            X = lu.solve(np.ascontiguousarray(JtT[idx][:, touched].toarray()))
            Wb = np.asarray(Jb[touched] @ X)
            W = W + sp.csr_matrix(
                (Wb.ravel(), (np.repeat(touched, touched.size), np.tile(touched, touched.size))), shape=W.shape
            )
    W = sp.csr_matrix(W)
    both = csr_plus(W, csr_transpose(W))
    return csr_like(both, both.data * 0.5), Minv


class BlockPattern:
    """The (d × d)-block pattern of a sparse W, its diagonal blocks included, and the layout of the Newton matrix
    ``J = blockdiag(A) + blockdiag(B) W`` in CSC (SuperLU's input), computed once per pattern: each step then forms
    J's blocks ``B_i W_ij`` (and ``+ A_i`` on the diagonal) with one batched product and gathers them into CSC's
    order, instead of a sparse product, a sum and two format conversions (issue #27: on a pile of 4,248 contacts
    they took 8 ms of each step's 26 ms)."""

    def __init__(self, W: sp.csr_matrix, d: int):
        N = W.shape[0]
        m = N // d
        rows = np.repeat(np.arange(N), np.diff(W.indptr))
        cols = W.indices
        keys = (rows // d) * m + cols // d
        blocks = np.union1d(keys, np.arange(m) * (m + 1))  # every W block, and every diagonal block
        self.m, self.d, self.N = m, d, N
        self.block_row, block_col = blocks // m, blocks % m
        self.diagonal = np.searchsorted(blocks, np.arange(m) * (m + 1))
        #: position in the block data (blocks, d, d) of each stored entry of W, in W's CSR order
        self.entry = np.searchsorted(blocks, keys) * d * d + (rows % d) * d + cols % d
        ii, jj = np.meshgrid(np.arange(d), np.arange(d), indexing="ij")
        grow = (self.block_row[:, None, None] * d + ii[None]).ravel()
        gcol = (block_col[:, None, None] * d + jj[None]).ravel()
        self._grow, self._gcol = grow, gcol
        self.order, self.indices, self.indptr = self._layout(gcol, grow)  # block data -> CSC data
        #: SuperLU's column order of J (the settings' ordering, postordered), found by the first factorization of this
        #: pattern
        self.columns: np.ndarray | None = None
        self._ordered: tuple | None = None  # the CSC layout of J[columns][:, columns] (see factor)

    def _layout(self, col: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(order, indices, indptr) of the CSC matrix whose block entry k sits in column ``col[k]`` with the row
        label ``row[k]``, the rows of each column in the order of their index in J (``_grow``): its data is
        ``blocks.ravel()[order]``."""
        order = np.lexsort((self._grow, col))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(col, minlength=self.N))])
        return order, row[order].astype(np.intc), indptr.astype(np.intc)  # SuperLU's index type

    def blocks_of(self, W: sp.csr_matrix) -> np.ndarray:
        """W's values in this pattern's blocks (blocks, d, d) (W of this pattern, canonical CSR)."""
        out = np.zeros(self.block_row.size * self.d * self.d)
        out[self.entry] = W.data
        return out.reshape(-1, self.d, self.d)

    def _blocks(self, Wblocks: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        J = np.matmul(B[self.block_row], Wblocks)
        J[self.diagonal] += A
        return J.ravel()

    def matrix(self, Wblocks: np.ndarray, A: np.ndarray, B: np.ndarray) -> sp.csc_matrix:
        """``blockdiag(A) + blockdiag(B) W`` in CSC, from W's blocks ``Wblocks`` (:meth:`blocks_of`)."""
        return self.csc(self._blocks(Wblocks, A, B))

    def csc(self, data: np.ndarray) -> sp.csc_matrix:
        """The CSC matrix of this pattern with the block data ``data`` (:meth:`_blocks`)."""
        return sp.csc_matrix((data[self.order], self.indices, self.indptr), shape=(self.N, self.N))

    def factor(self, Wblocks: np.ndarray, A: np.ndarray, B: np.ndarray) -> SparseFactors:
        """SuperLU's LU of the Newton matrix ``J = blockdiag(A) + blockdiag(B) W`` (:meth:`matrix`; the generalized
        Jacobian of the natural map, module docstring), its column order computed once per pattern.

        SuperLU orders J's columns by :data:`~gaussqp.settings.COULOMB_NN_SPARSE_ORDERING` (minimum degree on J +
        Jᵀ: J's pattern is W's, symmetric by blocks), a function of J's pattern alone (every stored entry counts, zero
        or not), and pivots by threshold (:data:`~gaussqp.settings.COULOMB_NN_PIVOT_THRESHOLD`: the diagonal unless
        another entry of its column is larger by more than its inverse), and this pattern stores every entry of every
        block whatever the values: the first factorization gives the order, kept in :attr:`columns`; later ones assemble
        ``P = J[columns][:, columns]`` directly in CSC and factor it in its natural order (SuperLU's etree postorder of
        it is the identity). Rows are renamed with the columns so that SuperLU's diagonal, which its threshold pivoting
        prefers, is J's; the rows of each column stay in J's row order (not sorted by their new names: SuperLU reads
        them in the order given, and breaks other ties by it). The pivots, the factors and the solutions are then
        SuperLU's with that ordering, bit for bit, without ordering each matrix again (the ordering took a third of a
        factorization's time on the groups of a box pile). Renaming the columns alone would change the pivots where a
        column's largest entries tie (equal contacts, as on generated quadrupeds and box walls); sorting the renamed
        rows would change others.

        Parameters
        ----------
        Wblocks : (blocks, d, d) W's values in this pattern's blocks (:meth:`blocks_of`)
        A, B : (m, d, d) the blocks of ``blockdiag(A) + blockdiag(B) W``

        Returns
        -------
        SparseFactors
            ``J⁻¹ b`` and ``J x``.

        Raises
        ------
        RuntimeError
            SuperLU's, when J is exactly singular.
        """
        import scipy.sparse.linalg as spla

        data = self._blocks(Wblocks, A, B)
        if self.columns is None:
            Jm = self.csc(data)
            lu = spla.splu(Jm, permc_spec=COULOMB_NN_SPARSE_ORDERING, diag_pivot_thresh=COULOMB_NN_PIVOT_THRESHOLD)
            position = np.asarray(lu.perm_c)  # column j of J is column position[j] of the ordered matrix
            self.columns = np.argsort(position)
            self._ordered = self._layout(position[self._gcol], position[self._grow])
            return SparseFactors(lu, None, self, data, Jm)
        order, indices, indptr = self._ordered
        P = sp.csc_matrix((data[order], indices, indptr), shape=(self.N, self.N))
        # no duplicates; the rows of a column deliberately in J's order, which splu would otherwise sort
        P.has_canonical_format = True
        lu = spla.splu(P, permc_spec="NATURAL", diag_pivot_thresh=COULOMB_NN_PIVOT_THRESHOLD)
        return SparseFactors(lu, self.columns, self, data)


class SparseFactors:
    """SuperLU's factors of a Newton matrix J, possibly of ``J[columns][:, columns]``
    (:meth:`BlockPattern.factor`): the solve ``J⁻¹ b`` and the product ``J x``, summed in J's own column order as
    :meth:`BlockPattern.matrix`'s product is (a product with the reordered matrix sums in another order, and the
    iterative refinement of ``_System.solve`` would then round differently).

    Parameters
    ----------
    lu : scipy.sparse.linalg.SuperLU
        the factors of ``J[columns][:, columns]`` (of J when ``columns`` is None)
    columns : (N,) int array or None
        row and column k of the factored matrix are row and column ``columns[k]`` of J
    pattern : BlockPattern
        J's pattern
    data : (blocks·d·d,) array
        J's block data (``BlockPattern._blocks``), for the product
    J : scipy.sparse.csc_matrix, optional
        J itself when the caller has built it (:meth:`BlockPattern.csc`); else built at the first product
    """

    def __init__(
        self,
        lu,
        columns: np.ndarray | None,
        pattern: BlockPattern,
        data: np.ndarray,
        J: sp.csc_matrix | None = None,
    ):
        self.lu, self.columns, self._pattern, self._data = lu, columns, pattern, data
        self._J = J

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """``J⁻¹ rhs``."""
        if self.columns is None:
            return self.lu.solve(rhs)
        y = self.lu.solve(rhs[self.columns])
        x = np.empty_like(y)
        x[self.columns] = y
        return x

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        """``J x``, summed in J's own column order (the same numbers as :meth:`BlockPattern.matrix`'s product)."""
        if self._J is None:
            self._J = self._pattern.csc(self._data)
        return self._J @ x


#: the last few :class:`BlockPattern` by W's pattern digest: the proximal rounds solve one problem after another
#: with W + σΛ, whose pattern does not change (120 systems on a pile of 4,248 contacts)
_PATTERNS: OrderedDict = OrderedDict()


def _pattern_of(W: sp.csr_matrix, d: int) -> BlockPattern:
    """The :class:`BlockPattern` of the canonical CSR ``W`` with blocks of size d, built once per pattern."""
    key = (d, sparse_digest(W))
    if key not in _PATTERNS:
        _PATTERNS[key] = BlockPattern(W, d)
        while len(_PATTERNS) > 4:
            _PATTERNS.popitem(last=False)
    return _PATTERNS[key]


# --------------------------------------------------------------------------------------------- the method
#: unknowns the sparse Newton's NumPy maps have evaluated in this process (m·d per evaluation): past
#: :data:`~gaussqp.settings.COULOMB_NN_COMPILED_SPARSE_WORK_MIN` a sparse system loads the compiled kernels
_SPARSE_WORK = [0]


class _System:
    """The equation ``φ_ρ(r) = 0`` of one problem and its Newton linear algebra (module docstring)."""

    def __init__(self, W, q: np.ndarray, mu: np.ndarray, d: int):
        self.q, self.mu, self.d = q, mu, d
        self.m = mu.size
        self.N = q.size
        nnz = W.nnz if sp.issparse(W) else np.count_nonzero(W)
        self.sparse = self.N > COULOMB_NN_DENSE_MAX and nnz <= COULOMB_NN_SPARSE_DENSITY * self.N * self.N
        if self.sparse:
            self.W = canonical(sp.csr_matrix(W, dtype=float))  # a copy when summed: the caller's arrays are shared
            self.pattern = _pattern_of(self.W, d)
            self.Wblocks = self.pattern.blocks_of(self.W)
        else:
            self.W = np.ascontiguousarray(W.toarray() if sp.issparse(W) else W, dtype=float)
        #: the compiled kernels (:mod:`gaussqp.friction.compiled`), None without numba; a dense system loads them by
        #: the rent-or-buy rule of :func:`~gaussqp.friction.compiled.worth_loading`, a sparse one (its W's product is
        #: SciPy's) only past COULOMB_NN_COMPILED_SPARSE_WORK_MIN (``_SPARSE_WORK``)
        if not self.sparse:
            self.fast = kernels_when_worth()
        else:
            self.fast = kernels() if loaded() or _SPARSE_WORK[0] >= COULOMB_NN_COMPILED_SPARSE_WORK_MIN else None
        if self.fast is not None:  # one type for every kernel argument (C order, writable): one compiled signature
            self.q, self.mu = plain(q), plain(mu)
            if not self.sparse:
                self.W = plain(self.W)
            else:  # W's CSR arrays for the compiled product, its indices as unsigned views of the same bits (an index
                # known nonnegative: no test for a negative index at each of the product's reads, 1.6x faster)
                self.csr = (_unsigned(self.W.indptr), _unsigned(self.W.indices), self.W.data)
        self.rho_c = plain(1.0 / contact_scales(self.W, self.m, d))  # ρ_j = 1/‖W_jj‖_F
        self.rho = plain(np.repeat(self.rho_c, d))
        self.mu2 = np.concatenate([mu, mu])
        self.qn = float(np.linalg.norm(q))
        self.rq = max(float(np.linalg.norm(self.rho * q)), np.finfo(float).tiny)
        self._stick: list | None = None  # the starts, computed when first asked (stick_starts, zero_start)
        self._zero: tuple | None = None

    def velocity(self, r: np.ndarray) -> np.ndarray:
        return np.asarray(self.W @ r).ravel() + self.q

    def stick_starts(self) -> list:
        """The start "every contact sticks" (``W r = −q``, exact at rest; none when its solves fail), as
        ``[("stick", r, φ_ρ, u, z, residual)]``, computed once. Solved as ``(W + δ diag(1/ρ)) r = −q`` with δ at the
        regularization floor and refined to ``W r = −q`` (one LU, a singular W included); when that is not accurate (an
        ill-conditioned regular W), again with δ = 0. Each solve is projected on the cones. With the compiled kernels
        and a dense W, each solve is :func:`gaussqp.friction.compiled_kernels.stick_start` (the same operations, the
        same numbers bit for bit)."""
        if self._stick is None:
            d, mu, q = self.d, self.mu, self.q
            B = np.eye(d)[None] * self.rho_c[:, None, None]
            starts: list = []
            for delta in (COULOMB_NN_REG_FLOOR, 0.0):
                if self.fast is not None and not self.sparse:
                    code, x, vn = self.fast.stick_start(self.W, q, self.rho, self.rho_c, float(delta), int(d))
                    if code:  # J not finite, or singular: as the NumPy solve's errors
                        continue
                    r = project_cone(x, mu, d)
                    starts.append(("stick", r, *self.evaluate(r)))
                    if vn <= COULOMB_NN_ACCEPT_RTOL * self.qn:
                        break
                    continue
                try:
                    A = delta * np.eye(d)[None] + np.zeros((self.m, 1, 1))
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # a singular W: SuperLU/LAPACK warn, the merit decides
                        x = self.solve(A, B, -self.rho * q, refine=np.zeros_like(A))
                    r = project_cone(x, mu, d)
                    starts.append(("stick", r, *self.evaluate(r)))
                    # W x = −q solved to the acceptance bound: no retry needed
                    if np.linalg.norm(self.velocity(x)) <= COULOMB_NN_ACCEPT_RTOL * self.qn:
                        break
                except (np.linalg.LinAlgError, RuntimeError, ValueError):
                    continue
            self._stick = starts
        return list(self._stick)

    def zero_start(self) -> tuple:
        """The start ``r = 0``, as ``("zero", r, φ_ρ, u, z, residual)``, computed once."""
        if self._zero is None:
            r = np.zeros(self.N)
            self._zero = ("zero", r, *self.evaluate(r))
        return self._zero

    def evaluate(self, r: np.ndarray):
        """(φ_ρ, u, z, ‖φ_1‖/‖q‖) at ``r``."""
        d, mu = self.d, self.mu
        if self.fast is not None and self.sparse:
            u = self.fast.csr_velocity(*self.csr, plain(r), self.q)  # SciPy's W @ r + q, compiled
            phi, z, phi1 = self.fast.maps_at(u, plain(r), mu, self.rho, d)
            return phi, u, z, float(np.sqrt(phi1 @ phi1)) / (self.qn if self.qn > 0 else 1.0)
        if self.fast is not None:
            phi, u, z, n1 = self.fast.natural_maps(self.W, self.q, plain(r), mu, self.rho, d)
            return phi, u, z, float(n1) / (self.qn if self.qn > 0 else 1.0)
        u = self.velocity(r)
        if self.sparse:
            _SPARSE_WORK[0] += self.N
        U = u.reshape(-1, d)
        s = U.copy()
        Ut = U[:, 1:]
        s[:, 0] += mu * np.sqrt(np.add.reduce(Ut * Ut, axis=1))
        s = s.ravel()
        z = r - self.rho * s
        both = project_cone(np.concatenate([z, r - s]), self.mu2, d)  # the ρ map and the certificate's ρ = 1 map
        phi = r - both[: self.N]
        phi1 = r - both[self.N :]
        return phi, u, z, float(np.sqrt(phi1 @ phi1)) / (self.qn if self.qn > 0 else 1.0)

    def jacobian_blocks(self, u: np.ndarray, z: np.ndarray, delta: float, unregularized: bool = False):
        """(A, B): ``J = blockdiag(A) + blockdiag(B) W`` with ``A = I − P' + δP'D``, ``B = P'ρD``; with
        ``unregularized`` also ``A₀ = I − P'`` (the blocks of the Jacobian without its regularization)."""
        d = self.d
        if self.fast is not None:
            A, B, A0 = self.fast.jacobian_blocks(plain(u), plain(z), self.mu, self.rho_c, float(delta), int(d))
            return (A, B, A0) if unregularized else (A, B)
        P = cone_projection_jacobian(z, self.mu, d)
        D = shift_jacobian(u, self.mu, d)
        PD = P @ D
        A0 = np.eye(d)[None] - P
        A = A0 + delta * PD
        B = PD * self.rho_c[:, None, None]
        return (A, B, A0) if unregularized else (A, B)

    def solve(self, A: np.ndarray, B: np.ndarray, rhs: np.ndarray, refine: np.ndarray | None = None) -> np.ndarray:
        """Solve ``(blockdiag(A) + blockdiag(B) W) x = rhs``; raises ``LinAlgError``/``RuntimeError`` if singular.

        ``refine``: blocks ``A₀`` of the system ``J₀ = blockdiag(A₀) + blockdiag(B) W`` actually wanted, of which
        ``J`` is a regularization: one step of iterative refinement ``x += J⁻¹(rhs − J₀ x)`` with J's factors (one
        step of the proximal-point iteration), kept when it lowers ``‖rhs − J₀ x‖``. The stick start solves
        ``(W + δ diag(1/ρ)) x = −q`` when W is singular (the humanoid's: rank 27 of 42); its bias ``δ x`` left a
        residual of ~4e-12 of ‖q‖ and cost a Newton iteration; the refined ``x`` solves ``W x = −q`` to round-off.
        With ``refine``, a dense W and the compiled kernels, the whole solve is
        :func:`gaussqp.friction.compiled_kernels.refined_solve` (the same operations, the same numbers bit for bit)."""
        m, d, N = self.m, self.d, self.N
        if refine is not None and self.fast is not None and not self.sparse:
            code, x = self.fast.refined_solve(self.W, plain(A), plain(B), plain(refine), plain(rhs), int(d))
            if code == 1:
                raise ValueError("the matrix to factor has non-finite entries")  # lu_solver's
            if code == 2:
                raise np.linalg.LinAlgError("the Newton system is singular")
            return x
        if self.sparse:
            Jm = self.pattern.factor(self.Wblocks, A, B)
            back = Jm.solve
        else:
            Jm = np.matmul(B, self.W.reshape(m, d, N)).reshape(N, N)
            ar = np.arange(m)
            J4 = Jm.reshape(m, d, m, d)
            J4[ar, :, ar, :] += A
            back = lu_solver(Jm)

        x = back(rhs)
        if not np.all(np.isfinite(x)):
            raise np.linalg.LinAlgError("the Newton system is singular")
        if refine is not None:
            dA = A - refine

            def res0(y):  # rhs − J₀ y = rhs − J y + blockdiag(A − A₀) y
                Y = y.reshape(m, d)
                return rhs - np.asarray(Jm @ y).ravel() + np.matmul(dA, Y[:, :, None]).ravel()

            r0 = res0(x)
            x2 = x + back(r0)
            if np.all(np.isfinite(x2)):
                r2 = res0(x2)
                if float(r2 @ r2) < float(r0 @ r0):
                    x = x2
        return x

    def jt_times(self, A: np.ndarray, B: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``Jᵀ v`` (the merit's gradient direction) without forming J."""
        d = self.d
        V = v.reshape(-1, d)
        a = np.einsum("jba,jb->ja", A, V).ravel()
        bv = np.einsum("jba,jb->ja", B, V).ravel()
        return a + np.asarray(self.W.T @ bv).ravel()


def _unsigned(index: np.ndarray) -> np.ndarray:
    """A CSR index array (nonnegative) as the unsigned integers of the same width, a view of the same bits."""
    return index.view(np.uint32 if index.dtype.itemsize == 4 else np.uint64)


def _cycling(merits: list) -> bool:
    """No progress over the last four merits: the last two each within :data:`~gaussqp.settings.COULOMB_NN_CYCLE_RTOL`
    of the merit two iterations before it (a plateau, or an iteration alternating between two pieces of the map)."""
    if len(merits) < 4:
        return False
    a, b, c, d = merits[-4:]
    return abs(d - b) <= COULOMB_NN_CYCLE_RTOL * max(d, b) and abs(c - a) <= COULOMB_NN_CYCLE_RTOL * max(c, a)


def _regularization(phi: np.ndarray, sysm: _System, theta: float) -> float:
    return max(COULOMB_NN_REG_FLOOR, theta * min(1.0, float(np.linalg.norm(phi)) / sysm.rq))


def newton_system(W, q: np.ndarray, mu: np.ndarray, dimension: int) -> _System:
    """The set-up of :func:`solve_newton` for one problem ``u = W r + q`` (W dense or sparse as the method will keep
    it, its contacts' scales ρ, the compiled kernels when loaded), to pass as its ``system`` to several runs on that
    problem: W is copied and scaled once, and the starts "every contact sticks" and zero are computed once, when first
    needed.

    Parameters
    ----------
    W, q, mu, dimension : as :func:`solve_newton`

    Returns
    -------
    object
        opaque; only for :func:`solve_newton`'s ``system``.
    """
    return _System(W, np.asarray(q, dtype=float).ravel(), np.asarray(mu, dtype=float).ravel(), int(dimension))


def solve_newton(
    W,
    q: np.ndarray,
    mu: np.ndarray,
    dimension: int,
    *,
    r0: np.ndarray | None = None,
    target: float = COULOMB_NN_TARGET_RTOL,
    max_iter: int = COULOMB_NN_ITER_MAX,
    reg_theta: float = COULOMB_NN_REG_THETA,
    guess_only: bool = False,
    stop_cycles: bool = False,
    system: "_System | None" = None,
) -> NewtonResult:
    """Solve ``u = W r + q``, Coulomb's law in De Saxcé's form, by the globalized semismooth Newton method of the
    module docstring.

    Parameters
    ----------
    W : (m·d, m·d) array or scipy.sparse matrix, any symmetry, possibly singular
    q : (m·d,) free velocity, blocks (normal, t1[, t2])
    mu : (m,) friction coefficients (0: frictionless)
    dimension : d >= 2
    r0 : optional guess (e.g. the previous state's answer); projected on the cones
    target : stop once ``‖φ_1(r)‖ <= target · ‖q‖`` (ρ = 1: the certificate's map)
    max_iter : at most this many Newton iterations (0: only the starts are evaluated)
    reg_theta : θ of the Jacobian's regularization ``δ = θ · min(1, ‖φ_ρ‖/‖ρ q‖)`` (floored at
        :data:`~gaussqp.settings.COULOMB_NN_REG_FLOOR`): larger θ is a stronger proximal term far from a solution
        (a Levenberg–Marquardt-like damping), still vanishing with the residual
    guess_only : the guess ``r0`` (and its one Newton step) is the only start, whatever its residual: a start chosen
        by the caller (:func:`gaussqp.friction.convex_start.convex_start`) after the others were tried
    stop_cycles : also stop (stalled) when the last four merits repeat at lag two
        (:data:`~gaussqp.settings.COULOMB_NN_CYCLE_RTOL`: a plateau or a cycle between two pieces): for a caller with
        another start or θ to try next
    system : the equation's set-up for these ``W, q, mu, dimension`` (:func:`newton_system`), shared by a caller that
        runs the method several times on one problem (the damping schedule): W's copy and scales, and the starts
        "every contact sticks" and zero, computed once

    Returns
    -------
    NewtonResult
        The best iterate and why the method stopped; ``converged`` is a claim the caller re-checks.
    """
    t0 = time.perf_counter()
    q = np.asarray(q, dtype=float).ravel()
    mu = np.asarray(mu, dtype=float).ravel()
    d = int(dimension)
    N = q.size
    if N == 0 or not np.any(q):  # r = 0 is a solution (u = 0: φ = −P_K(0) = 0)
        return NewtonResult(np.zeros(N), q.copy(), 0.0, True, CONVERGED, 0, "zero")
    t_run = t0
    if system is not None and (system.N != N or system.d != d):
        raise ValueError(
            f"solve_newton: the system given is of {system.N} unknowns in blocks of {system.d}, not {N} of {d}"
        )
    sysm = system if system is not None else _System(W, q, mu, d)
    times = {"setup": time.perf_counter() - t0}
    t0 = time.perf_counter()

    # ---- starts
    cands = []
    if r0 is not None:
        r = project_cone(np.asarray(r0, dtype=float).ravel(), mu, d)
        guess = ("guess", r, *sysm.evaluate(r))
        cands.append(guess)
        if guess[-1] > target:
            # one Newton step from the guess on its own piece (a re-solve's pieces are mostly the last state's):
            # regularized at the floor, refined to the unregularized Jacobian; exact when that piece is linear
            _, r, phi, u, z, _ = guess
            A, B, A0 = sysm.jacobian_blocks(u, z, COULOMB_NN_REG_FLOOR, unregularized=True)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    x = r + sysm.solve(A, B, -phi, refine=A0)
                cands.append(("guess step", x, *sysm.evaluate(x)))
            except (np.linalg.LinAlgError, RuntimeError, ValueError):
                pass
    if not cands or (min(c[-1] for c in cands) > COULOMB_NN_GUESS_RTOL and not guess_only):
        cands += sysm.stick_starts()
        if min(c[-1] for c in cands) > target if cands else True:  # r = 0 is tried unless a start has converged
            cands.append(sysm.zero_start())
    start, r, phi, u, z, res = min(cands, key=lambda c: float(c[2] @ c[2]))
    times["start"] = time.perf_counter() - t0
    t0 = time.perf_counter()

    history: list = []
    best, k, reason = _iterate(
        sysm, r, (phi, u, z, res), target, max_iter, COULOMB_NN_NONMONOTONE, history, reg_theta, stop_cycles
    )
    if best[0] > target and COULOMB_NN_NONMONOTONE > 1 and k < max_iter:
        # the nonmonotone phase stalled: a monotone phase from its best point (PerioBox, badly scaled, needs it)
        r = best[1]
        best2, k2, reason = _iterate(
            sysm, r, sysm.evaluate(r), target, max_iter - k, 1, history, reg_theta, stop_cycles
        )
        k += k2
        best = min(best, best2, key=lambda b: b[0])
    times["iterations"] = time.perf_counter() - t0
    if sysm.fast is None and not sysm.sparse:  # a dense run by the NumPy kernels: towards loading the compiled ones
        spent_in_numpy(time.perf_counter() - t_run)
    res, r, u = best
    return NewtonResult(
        r=r.copy(),  # a start's arrays are the system's, shared by the runs on it
        u=u.copy(),
        residual=res,
        converged=res <= target,
        reason=CONVERGED if res <= target else reason,
        iterations=k,
        start=start,
        history=history,
        times=times,
        linear_algebra="sparse" if sysm.sparse else "dense",
    )


def _search(
    sysm: _System,
    r: np.ndarray,
    phi: np.ndarray,
    merit: float,
    merit_ref: float,
    target: float,
    A: np.ndarray,
    B: np.ndarray,
    step: np.ndarray | None,
    kinds: tuple[str, ...],
) -> tuple:
    """The line search of :func:`_iterate` along the directions ``kinds`` in turn (``newton``: ``step``, skipped when
    None; ``projected``: ``−φ``; ``gradient``: steepest descent ``−Jᵀφ``): Armijo's decrease from ``merit_ref``.
    Returns ``(accepted, kind, t, r', φ, u, z, residual, merit)``."""
    kind, t = "newton", 0.0
    for kind in kinds:
        if kind == "projected":
            step = -phi
        elif kind == "gradient":
            g = sysm.jt_times(A, B, phi)
            gg = float(g @ g)
            if gg <= 0:
                break
            step = -g * (merit / gg)  # t = 1 would zero the linearized merit along −Jᵀφ
        if step is None:
            continue
        t = 1.0
        while t >= COULOMB_NN_STEP_MIN:
            rn = r + t * step
            phin, un, zn, resn = sysm.evaluate(rn)
            mn = float(phin @ phin)
            if mn <= merit_ref - 2 * COULOMB_ARMIJO * t * merit or (kind == "newton" and resn <= target):
                return True, kind, t, rn, phin, un, zn, resn, mn
            t *= COULOMB_BACKTRACK
    return (False, kind, t) + (None,) * 6


#: the directions of :func:`_iterate`'s line search, in the order tried; the compiled searches
#: (``compiled_kernels.newton_iteration``, ``line_search_csr``) return the index of the one they accepted (2: neither
#: of the first two)
_DIRECTIONS = ("newton", "projected", "gradient")
_NO_STEP = np.zeros(0)


def _compiled_iterate(
    sysm: _System,
    r: np.ndarray,
    state: tuple,
    target: float,
    max_iter: int,
    window: int,
    history: list,
    reg_theta: float,
    stop_cycles: bool,
) -> tuple[tuple, int, str]:
    """:func:`_iterate` on a dense W with the compiled kernels loaded: its loop compiled (``compiled_kernels.newton_loop``:
    the Newton matrix, its LU by LAPACK's ``getrf``/``getrs`` through SciPy's bindings as
    :func:`~gaussqp.linalg.dense.lu_solver` calls them, the line search along the Newton and the projected steps, the
    best iterate, the stall and cycle tests), the same operations in the same order as the NumPy loop, so the same
    iterates bit for bit. When neither step descends, the steepest descent is searched here by :func:`_search`, and
    the loop goes on. Returns what :func:`_iterate` returns, and appends the same records to ``history``."""
    f = sysm.fast  # the kernels' module: newton_loop and the layout of its arrays
    phi, u, z, res = state
    merit = float(phi @ phi)
    work = np.empty((6, sysm.N))
    for row, x in (
        (f.STATE_R, r),
        (f.STATE_PHI, phi),
        (f.STATE_U, u),
        (f.STATE_Z, z),
        (f.STATE_BEST_R, r),
        (f.STATE_BEST_U, u),
    ):
        work[row] = x
    values = np.zeros(6)
    values[[f.VALUE_RES, f.VALUE_BEST_RES]] = res
    values[[f.VALUE_MERIT, f.VALUE_BEST_MERIT]] = merit
    counts = np.zeros(3, dtype=np.int64)
    counts[f.COUNT_KEPT] = 1
    recent = np.empty(max_iter + 1)
    recent[0] = merit
    log = np.empty((max_iter, 4))
    consts = np.empty(6)
    for i, value in (
        (f.CONST_ARMIJO, COULOMB_ARMIJO),
        (f.CONST_BACKTRACK, COULOMB_BACKTRACK),
        (f.CONST_STEP_MIN, COULOMB_NN_STEP_MIN),
        (f.CONST_FLOOR, COULOMB_NN_REG_FLOOR),
        (f.CONST_STALL_FACTOR, COULOMB_NN_STALL_FACTOR),
        (f.CONST_CYCLE_RTOL, COULOMB_NN_CYCLE_RTOL),
    ):
        consts[i] = value
    limits = np.array([COULOMB_NN_STALL_ITER, COULOMB_NN_CYCLE_ITER])
    pending, none = -1.0, None
    while True:
        outcome, A, B = f.newton_loop(
            sysm.W,
            sysm.q,
            sysm.mu,
            sysm.rho,
            sysm.rho_c,
            sysm.d,
            sysm.qn,
            sysm.rq,
            float(target),
            int(max_iter),
            int(window),
            float(reg_theta),
            bool(stop_cycles),
            consts,
            limits,
            work,
            values,
            counts,
            recent,
            log,
            pending,
        )
        if outcome != f.LOOP_DESCENT:
            break
        r_now, phi_now = work[f.STATE_R].copy(), work[f.STATE_PHI].copy()
        merit_now, ref = float(values[f.VALUE_MERIT]), float(values[f.VALUE_REF])
        accepted, _, t, rn, phin, un, zn, resn, mn = _search(
            sysm, r_now, phi_now, merit_now, ref, target, A, B, None, ("gradient",)
        )
        if not accepted:
            none = {
                "iteration": int(counts[f.COUNT_K]),
                "residual": float(values[f.VALUE_RES]),
                "step": 0.0,
                "direction": "none",
            }
            break
        for row, x in ((f.STATE_R, rn), (f.STATE_PHI, phin), (f.STATE_U, un), (f.STATE_Z, zn)):
            work[row] = x
        values[f.VALUE_RES], values[f.VALUE_MERIT], pending = resn, mn, float(t)
    k = int(counts[f.COUNT_K])
    for i in range(k - 1 if none is not None else k):
        res_i, t_i, kind_i, delta_i = log[i]
        history.append(
            {
                "iteration": i + 1,
                "residual": float(res_i),
                "step": float(t_i),
                "direction": _DIRECTIONS[int(kind_i)],
                "delta": float(delta_i),
                "window": window,
            }
        )
    if none is not None:
        history.append(none)
        reason = NO_DESCENT
    else:
        reason = {f.LOOP_CONVERGED: CONVERGED, f.LOOP_MAX_ITER: MAX_ITER, f.LOOP_STALLED: STALLED}[outcome]
    best = (float(values[f.VALUE_BEST_RES]), work[f.STATE_BEST_R].copy(), work[f.STATE_BEST_U].copy())
    return best, k, reason


def _compiled_sparse_search(
    sysm: _System, r: np.ndarray, phi: np.ndarray, merit: float, merit_ref: float, target: float, A, B, step
) -> tuple:
    """The line search of :func:`_iterate` on a sparse W with the compiled kernels loaded: the backtracking along the
    Newton step (``step``, from the sparse LU; None when it failed) and the projected step by the compiled kernel
    (``compiled_kernels.line_search_csr``: W's product as SciPy's, the operations of :func:`_search` in the same
    order, so the same numbers bit for bit), the steepest descent by :func:`_search` when neither descends. Returns
    what :func:`_search` returns."""
    out = sysm.fast.line_search_csr(
        *sysm.csr,
        sysm.q,
        plain(r),
        sysm.mu,
        sysm.rho,
        sysm.d,
        sysm.qn,
        plain(phi),
        merit,
        merit_ref,
        _NO_STEP if step is None else plain(step),
        target,
        COULOMB_ARMIJO,
        COULOMB_BACKTRACK,
        COULOMB_NN_STEP_MIN,
    )
    kind = int(out[0])
    if kind == 2:
        return _search(sysm, r, phi, merit, merit_ref, target, A, B, None, ("gradient",))
    _, t, rn, phin, un, zn, resn, mn = out
    return True, _DIRECTIONS[kind], float(t), rn, phin, un, zn, float(resn), float(mn)


def _iterate(
    sysm: _System,
    r: np.ndarray,
    state: tuple,
    target: float,
    max_iter: int,
    window: int,
    history: list,
    reg_theta: float,
    stop_cycles: bool = False,
) -> tuple[tuple, int, str]:
    """At most ``max_iter`` globalized Newton iterations from ``r`` (``state`` = its ``evaluate``), Armijo's
    decrease measured from the largest merit of the last ``window`` iterates. Returns ((res, r, u) of the best
    iterate, iterations, why it stopped). ``stop_cycles``: also stalled when the merits make no progress
    (:func:`_cycling`: a plateau or a cycle)."""
    if sysm.fast is not None and not sysm.sparse and window >= 1 and max_iter >= 0:  # dense, compiled: the loop too
        return _compiled_iterate(sysm, r, state, target, max_iter, window, history, reg_theta, stop_cycles)
    phi, u, z, res = state
    best = (res, r, u)
    merit = float(phi @ phi)
    best_merit, since = merit, 0
    recent = [merit]
    reason = MAX_ITER
    k = 0
    while True:
        if res <= target:
            reason = CONVERGED
            break
        if k >= max_iter:
            break
        k += 1
        delta = _regularization(phi, sysm, reg_theta)
        merit_ref = max(recent[-window:])  # Grippo–Lampariello–Lucidi's nonmonotone reference
        A, B = sysm.jacobian_blocks(u, z, delta)
        try:
            step = sysm.solve(A, B, -phi)
        except (np.linalg.LinAlgError, RuntimeError, ValueError):
            step = None
        # Newton direction, then the projected step −φ, then steepest descent −Jᵀφ
        if sysm.fast is not None:  # sparse: the backtracking compiled
            accepted, kind, t, rn, phin, un, zn, resn, mn = _compiled_sparse_search(
                sysm, r, phi, merit, merit_ref, target, A, B, step
            )
        else:
            accepted, kind, t, rn, phin, un, zn, resn, mn = _search(
                sysm, r, phi, merit, merit_ref, target, A, B, step, _DIRECTIONS
            )
        if not accepted:
            history.append({"iteration": k, "residual": res, "step": 0.0, "direction": "none"})
            reason = NO_DESCENT
            break
        r, phi, u, z, res, merit = rn, phin, un, zn, resn, mn
        recent.append(merit)
        history.append(
            {"iteration": k, "residual": res, "step": t, "direction": kind, "delta": delta, "window": window}
        )
        if res < best[0]:
            best = (res, r, u)
        if merit <= COULOMB_NN_STALL_FACTOR * best_merit:  # ‖φ_ρ‖ halved
            best_merit, since = merit, 0
        else:
            since += 1
            if since >= COULOMB_NN_STALL_ITER or (stop_cycles and since >= COULOMB_NN_CYCLE_ITER and _cycling(recent)):
                reason = STALLED
                break
    return best, k, reason


__all__ = [
    "BlockInverse",
    "BlockPattern",
    "CONVERGED",
    "MAX_ITER",
    "NO_DESCENT",
    "STALLED",
    "NewtonResult",
    "SparseFactors",
    "cone_projection_jacobian",
    "contact_components",
    "contact_scales",
    "diagonal_blocks",
    "shift_jacobian",
    "newton_system",
    "solve_newton",
    "sparse_delassus",
]

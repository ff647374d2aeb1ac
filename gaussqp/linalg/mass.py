"""The mass matrix M (symmetric positive semidefinite, possibly singular, dense or sparse): its factorization
with the rank decided on the Jacobi-equilibrated matrix, and solves with it.

Singular (16)–(21) and inertial §2: M may be singular; the definite case uses M⁻¹.

Lazy imports (the idiom of :mod:`gaussqp.backends`): ``scipy.linalg`` and ``scipy.sparse.csgraph`` are
imported inside the functions that use them, not when this module is imported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .dense import as_dense, jacobi_scaling, rank_tol, symmetric_splu


@dataclass(frozen=True)
class MassFactor:
    """Factorization ``M = Rᵀ R`` of a symmetric PSD mass matrix.

    ``R`` has ``rank`` rows; ``kernel`` is an orthonormal basis of ker M (n × (n - rank)).
    The rank is decided on the *Jacobi-equilibrated* matrix ``M̃ = S M S`` with
    ``S = diag(M)^(-1/2)`` (``scaling`` holds S's diagonal; 1 where ``M_ii = 0``): M̃ has a unit
    diagonal whatever the units of the coordinates (masses and lever arms over six decades make
    cond(M) ~ 1e12 with a perfectly conditioned M̃), and ``rank(M̃) = rank(M)``. ``eigenvalues``
    is the spectrum of M̃ (dimensionless, its largest between 1 and n). ``R`` is sparse when
    ``M`` was given sparse (block-diagonal structure is exploited).
    """

    R: np.ndarray | sp.spmatrix
    kernel: np.ndarray
    rank: int
    eigenvalues: np.ndarray
    n: int
    scaling: np.ndarray | None = None

    @property
    def definite(self) -> bool:
        return self.rank == self.n

    @property
    def min_eigenvalue(self) -> float:
        return float(self.eigenvalues.min()) if self.eigenvalues.size else 0.0


def _eig_factor_dense(M: np.ndarray):
    """Equilibrate, decide the rank on the unit-diagonal matrix, and map back: ``R = √w Vᵀ S⁻¹``.

    Returns (R, kernel basis of M, eigenvalues of M̃, S)."""
    W, V, S, keep = _eig_batched(M[None])
    R, K = _factor_from_eig(W[0], V[0], S[0], keep[0])
    return R, K, W[0], S[0]


def _factor_from_eig(w: np.ndarray, V: np.ndarray, s: np.ndarray, keep: np.ndarray):
    """``(R, K)`` of one block from the eigenpairs ``(w, V)`` of its equilibrated matrix, its Jacobi scaling ``s``
    and the eigenvalues ``keep``-t: ``R = √w Vᵀ S⁻¹`` on the kept ones, ``K`` an orthonormal basis of
    ``ker M = S ker M̃`` (0 columns when none is dropped)."""
    R = (np.sqrt(w[keep])[:, None] * V[:, keep].T) / s[None, :]
    K = V[:, ~keep] * s[:, None]
    if K.shape[1]:
        K, _ = np.linalg.qr(K)
    return R, K


def factor_mass(M) -> MassFactor:
    """Factor ``M = Rᵀ R`` with ``R`` of full row rank r = rank(M) (rank decided on the
    Jacobi-equilibrated matrix, see :class:`MassFactor`).

    Dense ``M``: symmetric eigendecomposition. Sparse ``M``: the connected components of
    its sparsity graph (the bodies of a multibody system) are factored one block at a
    time, so block-diagonal mass matrices of thousands of coordinates stay cheap.
    """
    from scipy.sparse.csgraph import connected_components

    n = M.shape[0]
    if not sp.issparse(M):
        R, K, w, s = _eig_factor_dense(as_dense(M))
        return MassFactor(R=R, kernel=K, rank=R.shape[0], eigenvalues=w, n=n, scaling=s)
    Ms = sp.csr_matrix(M)
    ncomp, labels = connected_components(Ms, directed=False)
    sizes = np.bincount(labels, minlength=ncomp)
    order = np.argsort(labels, kind="stable")  # the coordinates of each component, ascending, component by component
    starts = np.concatenate([[0], np.cumsum(sizes)])
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n) - starts[labels[order]]  # a coordinate's place in its component
    coo = Ms.tocoo()
    scaling = np.ones(n)
    # per component: (eigenvalues, R's (row-in-block, column, value) triples, kernel columns); filled group by group
    eig_of: list = [None] * ncomp
    r_of: list = [None] * ncomp
    k_of: list = [None] * ncomp
    for size in np.unique(sizes):
        comps = np.flatnonzero(sizes == size)  # every component of this size: one batched eigendecomposition
        slot = np.full(ncomp, -1, dtype=np.int64)
        slot[comps] = np.arange(comps.size)
        idx = order[starts[comps][:, None] + np.arange(size)[None, :]]  # (c, size): each block's coordinates
        mine = slot[labels[coo.row]] >= 0
        blocks = np.zeros((comps.size, size, size))
        np.add.at(blocks, (slot[labels[coo.row[mine]]], pos[coo.row[mine]], pos[coo.col[mine]]), coo.data[mine])
        W, V, S, keep = _eig_batched(blocks)
        scaling[idx.ravel()] = S.ravel()
        for b, c in enumerate(comps):
            eig_of[c] = W[b]
            Rb, K = _factor_from_eig(W[b], V[b], S[b], keep[b])
            rr, cc = np.nonzero(Rb)
            r_of[c] = (rr, idx[b][cc], Rb[rr, cc], Rb.shape[0])
            if K.shape[1]:  # a singular block: its kernel
                k_of[c] = (idx[b], K)
    rows, cols, vals, kernel_cols = [], [], [], []
    r = 0
    for c in range(ncomp):
        rr, cc, vv, nr = r_of[c]
        rows.append(rr + r)
        cols.append(cc)
        vals.append(vv)
        r += nr
        if k_of[c] is not None:
            ib, K = k_of[c]
            for j in range(K.shape[1]):
                v = np.zeros(n)
                v[ib] = K[:, j]
                kernel_cols.append(v)
    R = sp.csr_matrix(
        (
            np.concatenate(vals) if vals else [],
            (np.concatenate(rows) if rows else [], np.concatenate(cols) if cols else []),
        ),
        shape=(r, n),
    )
    K = np.column_stack(kernel_cols) if kernel_cols else np.zeros((n, 0))
    return MassFactor(
        R=R, kernel=K, rank=r, eigenvalues=np.concatenate(eig_of) if ncomp else np.zeros(0), n=n, scaling=scaling
    )


def _eig_batched(blocks: np.ndarray):
    """The factorization's decisions on a stack of same-size blocks at once (one batched ``eigh``; a dense ``M`` is a
    stack of one, :func:`_eig_factor_dense`): the
    symmetrized blocks, their Jacobi scalings, the eigenpairs of the equilibrated blocks and which eigenvalues are
    kept (above :func:`~gaussqp.linalg.dense.rank_tol` of each block's largest magnitude). Returns (W, V, S, keep)."""
    B = 0.5 * (blocks + np.swapaxes(blocks, 1, 2))
    S = jacobi_scaling(np.diagonal(B, axis1=1, axis2=2).ravel()).reshape(B.shape[0], B.shape[1])
    Bt = S[:, :, None] * B * S[:, None, :]
    W, V = np.linalg.eigh(0.5 * (Bt + np.swapaxes(Bt, 1, 2)))
    ref = np.abs(W).max(axis=1) if W.shape[1] else np.zeros(W.shape[0])
    tol = np.array([rank_tol(float(x), B.shape[1:]) for x in ref])  # the dense rule, block by block
    keep = W > tol[:, None]
    return W, V, S, keep


def solve_mass(M, B: np.ndarray) -> np.ndarray:
    """``M⁻¹ B`` for symmetric positive definite ``M`` (Cholesky, or sparse LU).

    A dense float64 ``M``: :func:`cholesky` then :func:`cholesky_solve`, LAPACK's ``potrf`` and ``potrs`` called
    directly with the arguments, the checks and the errors of SciPy's ``cho_factor`` and ``cho_solve`` (the same
    numbers; ~20 µs against ~80 µs through SciPy's wrappers on a robot's 27 coordinates: the LCP route and the
    cross-check call this on every answer).

    Raises
    ------
    numpy.linalg.LinAlgError
        ``M`` is not positive definite.
    ValueError
        ``M`` or ``B`` holds a NaN or an infinity.
    """
    if sp.issparse(M):
        lu = symmetric_splu(M)
        B2 = np.asarray(B, dtype=float)
        return lu.solve(B2) if B2.ndim == 2 else lu.solve(B2[:, None])[:, 0]
    B2 = np.asarray(B, dtype=float)  # read first, as before: a B that is not numbers fails here
    # SciPy's order: M checked and factored, then B checked (an indefinite M with a NaN in B is a LinAlgError); any
    # other input takes SciPy's path inside the two, with its own errors
    return cholesky_solve(cholesky(as_dense(M)), B2)


def cholesky(M: np.ndarray) -> tuple[np.ndarray, bool]:
    """``scipy.linalg.cho_factor(M)`` (upper factor, ``(c, False)``) of a dense float64 square ``M``: LAPACK's ``potrf``
    called directly, with SciPy's arguments, checks and errors (the same factor, without its wrapper's cost).

    Raises
    ------
    numpy.linalg.LinAlgError
        ``M`` is not positive definite.
    ValueError
        ``M`` holds a NaN or an infinity.
    """
    import scipy.linalg as sla
    from scipy.linalg import lapack

    if not (type(M) is np.ndarray and M.dtype == np.float64 and M.ndim == 2 and M.size and M.shape[0] == M.shape[1]):
        return sla.cho_factor(M)  # SciPy's path, its own errors
    if not np.isfinite(M).all():
        raise ValueError("array must not contain infs or NaNs")  # SciPy's check_finite, and its message
    c, info = lapack.dpotrf(M, lower=False, overwrite_a=False, clean=False)
    if info > 0:
        raise np.linalg.LinAlgError(f"{info}-th leading minor of the array is not positive definite")
    if info < 0:  # an illegal argument: SciPy raises its own error
        return sla.cho_factor(M)
    return c, False


def cholesky_solve(factor: tuple[np.ndarray, bool], B) -> np.ndarray:
    """``scipy.linalg.cho_solve(factor, B)``: for a float64 factor of :func:`cholesky` or ``cho_factor`` (upper or
    lower) and a real ``B`` of one or two dimensions, LAPACK's ``potrs`` called directly with SciPy's arguments, checks
    (B, then the factor) and errors; any other input (an empty or single-precision factor, a complex ``B``, a shape
    SciPy refuses) takes SciPy's own path.

    Raises
    ------
    ValueError
        ``B`` or the factor holds a NaN or an infinity.
    """
    import scipy.linalg as sla
    from scipy.linalg import lapack

    c, lower = factor
    plain = type(c) is np.ndarray and c.dtype == np.float64 and c.ndim == 2 and c.size and not np.iscomplexobj(B)
    B2 = np.asarray(B, dtype=float) if plain else None
    if B2 is None or B2.ndim not in (1, 2) or c.shape[0] != c.shape[1] or B2.shape[0] != c.shape[0]:
        return sla.cho_solve(factor, B)  # SciPy's path, its own errors
    if not (np.isfinite(B2).all() and np.isfinite(c).all()):
        raise ValueError("array must not contain infs or NaNs")  # SciPy's check_finite, and its message
    x, info = lapack.dpotrs(c, B2, lower=lower, overwrite_b=False)
    return x if info == 0 else sla.cho_solve(factor, B)  # an illegal argument: SciPy raises its own error

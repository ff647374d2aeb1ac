"""Dense/sparse linear algebra shared by formulations and certificates.

Rank decisions use one relative tolerance rule, :func:`rank_tol`, so that every module
decides "is this singular value zero?" the same way.
"""

from __future__ import annotations

import hashlib
from typing import Callable
from collections import OrderedDict

import numpy as np
import scipy.sparse as sp

from ..settings import (
    EIG_RESIDUAL_RTOL,
    EQUILIBRATION_PASSES,
    RANK_RTOL,
    SCALE_FLOOR,
    SOLVE_COND_MAX,
    SPARSE_RANK_LANCZOS_VECTORS,
    SPARSE_RANK_MEMO_SIZE,
    SPARSE_RANK_RTOL,
)


def as_dense(A) -> np.ndarray:
    """Return ``A`` as a dense float array (sparse matrices are densified)."""
    if type(A) is np.ndarray and A.dtype == np.float64:  # the common case, first: A itself
        return A
    if sp.issparse(A):
        return np.asarray(A.toarray(), dtype=float)
    return np.asarray(A, dtype=float)


def is_plain(x) -> bool:
    """Whether ``x`` is a C-ordered float64 ndarray: the layout on which the compiled kernels' products are NumPy's.

    Parameters
    ----------
    x : object

    Returns
    -------
    bool
    """
    return type(x) is np.ndarray and x.dtype == np.float64 and x.flags.c_contiguous


def plain(x: np.ndarray) -> np.ndarray:
    """``x`` as a writable C-ordered float array: the one argument type the compiled kernels are compiled for (one
    compiled signature each; :mod:`gaussqp.friction.compiled`, :mod:`gaussqp.linalg.lemke_compiled`).

    Parameters
    ----------
    x : array_like

    Returns
    -------
    numpy.ndarray
        ``x`` itself when it is one already, else a copy that is.
    """
    if is_plain(x):
        # the common cases without numpy.require's checks: the kernels' own outputs and fresh iterates as they are,
        # a read-only array (a memoized matrix) copied
        return x if x.flags.writeable else x.copy()
    return np.require(x, dtype=float, requirements=("C", "W"))


#: the machine epsilon of float64
_EPS = float(np.finfo(float).eps)


def rank_tol(s_max: float, shape: tuple[int, ...]) -> float:
    """Absolute threshold under which a singular value counts as zero."""
    return max(RANK_RTOL, max(shape, default=1) * _EPS) * max(s_max, SCALE_FLOOR)


def null_space(A: np.ndarray, scale: float | None = None) -> np.ndarray:
    """Orthonormal basis (columns) of ker A, by SVD with the rank rule of :func:`rank_tol`.

    ``scale`` replaces the largest singular value as the reference magnitude, which matters
    when ``A`` stacks blocks of different units (the caller normalizes them first).
    """
    A = as_dense(A)
    n = A.shape[1]
    if A.shape[0] == 0:
        return np.eye(n)
    _, s, vt = np.linalg.svd(A, full_matrices=True)
    ref = scale if scale is not None else (s[0] if s.size else 0.0)
    r = int(np.count_nonzero(s > rank_tol(ref, A.shape))) if ref > 0 else 0
    return vt[r:].T.copy()


def surplus_null_vector(A: np.ndarray) -> np.ndarray:
    """A unit vector ``q`` with ``Aᵀ q = 0`` for a matrix ``A`` of more rows than columns (k > n), whose existence
    is a count, not a rank decision: ``Aᵀ`` maps ``Rᵏ`` to ``Rⁿ``, so its kernel has dimension at least ``k − n > 0``
    whatever the entries. The last column of the complete QR factorization ``A = Q R``: orthogonal to the first n
    columns of Q, which span the range of A, so ``Aᵀ q = Rᵀ Q₁ᵀ q = 0`` up to round-off (the caller checks it at the
    scale it needs). Only that column is formed: Householder's QR (LAPACK's ``dgeqrf``) and its reflectors applied to
    the last unit vector (``dormqr``), 30 µs on 30 × 27 against 120 µs for SciPy's whole Q.

    Parameters
    ----------
    A : (k, n) array, k > n

    Returns
    -------
    numpy.ndarray
        (k,) of unit length.

    Raises
    ------
    ValueError
        ``A`` has no more rows than columns (a kernel vector is then a rank decision: :func:`null_space`).
    """
    from scipy.linalg import lapack

    A = as_dense(A)
    k, n = A.shape
    if k <= n:
        raise ValueError(f"surplus_null_vector: A has {k} rows for {n} columns; it needs more rows than columns")
    last = np.zeros((k, 1))
    last[-1, 0] = 1.0
    if n == 0:  # no columns: every vector is in the kernel
        return last[:, 0]
    reflectors, tau, _, info = lapack.dgeqrf(np.asarray(A, dtype=float))
    if info == 0:
        q, _, info = lapack.dormqr("L", "N", reflectors, tau, last, lwork=max(1, n))
        if info == 0:
            return np.ascontiguousarray(q[:, 0])
    return np.ascontiguousarray(np.linalg.qr(A, mode="complete")[0][:, -1])  # LAPACK refused: NumPy's whole Q


def matrix_rank(A: np.ndarray, scale: float | None = None) -> int:
    """Numerical rank with the rule of :func:`rank_tol`.

    ``scale`` is the reference magnitude (default: the largest singular value). Pass it
    when ``A`` is built from normalized data, so that a matrix that is zero up to
    round-off is not given full rank relative to its own tiny norm.
    """
    A = as_dense(A)
    if A.size == 0:
        return 0
    return singular_value_rank(np.linalg.svd(A, compute_uv=False), A.shape, scale)


def singular_value_rank(s: np.ndarray, shape: tuple[int, int], scale: float | None = None) -> int:
    """:func:`matrix_rank` from already computed singular values ``s`` (descending) of a matrix of ``shape``."""
    if not s.size:
        return 0
    ref = s[0] if scale is None else max(scale, s[0])
    return int(np.count_nonzero(s > rank_tol(ref, shape))) if ref > 0 else 0


def rank_and_null_space(A: np.ndarray, scale: float | None = None) -> tuple[int, np.ndarray]:
    """``(rank, N)`` from ONE SVD and ONE cut: the rank rule of :func:`matrix_rank` (reference
    ``max(scale, s_max)``) and ``N`` an orthonormal basis (columns) of the right singular vectors
    past that rank, so ``N.shape[1] == A.shape[1] - rank`` always (the rank decision and the null
    space cannot disagree)."""
    A = as_dense(A)
    n = A.shape[1]
    if A.shape[0] == 0 or n == 0:
        return 0, np.eye(n)
    _, s, vt = np.linalg.svd(A, full_matrices=True)
    r = singular_value_rank(s, A.shape, scale)
    return r, vt[r:].T.copy()


def min_norm_lstsq(A: np.ndarray, b: np.ndarray, kernels=None) -> np.ndarray:
    """The minimum-norm least-squares solution of ``A x ≈ b`` (dense), by LAPACK's complete orthogonal factorization.

    ``gelsy``: QR with column pivoting, the rank decided by an incremental estimate of the condition number of the
    leading block of ``R`` against ``max(A.shape) ε`` (numpy's ``rcond``), then the minimum-norm solution on that rank.
    The same solution as ``numpy.linalg.lstsq(A, b, rcond=None)`` (an SVD) wherever the rank is clear; with singular
    values within a few decades of that threshold the two rank decisions may differ. A third of the SVD's cost on the
    small dense systems of a Newton step (F9's, whose line search judges every step it takes).

    Parameters
    ----------
    A : (k, N) array
    b : (k,) array
    kernels : module, optional
        the compiled kernels (:mod:`gaussqp.friction.compiled_kernels`), when the caller has them loaded: the same
        ``gelsy`` call through their ``gelsy_lstsq`` (SciPy's bindings, called as ``scipy.linalg.lstsq`` calls them:
        the same numbers bit for bit), without SciPy's wrapper (~0.1 ms on F9's 69 × 69 start).

    Returns
    -------
    numpy.ndarray
        ``x`` (N,); NaN everywhere when ``A`` or ``b`` is not finite (the callers test the step), zeros when ``A`` is
        empty.
    """
    import scipy.linalg as sla

    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
        return np.full(A.shape[1], np.nan)
    if A.size == 0:
        return np.zeros(A.shape[1])
    cond = max(A.shape) * np.finfo(float).eps
    if kernels is not None and A.ndim == 2 and b.ndim == 1 and b.shape[0] == A.shape[0]:
        return kernels.gelsy_lstsq(A, b, cond)
    return sla.lstsq(A, b, cond=cond, lapack_driver="gelsy", check_finite=False)[0]


def lu_solver(A: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``b ↦ A⁻¹ b`` by one LU factorization with partial pivoting.

    LAPACK ``getrf``/``getrs`` called directly: the same factors and solves as ``scipy.linalg.lu_factor``/``lu_solve``
    (bit for bit), without their wrappers' checks, which cost more than the solve on the small systems of a Newton
    step.

    Parameters
    ----------
    A : (N, N) array

    Returns
    -------
    Callable
        ``solve(b)`` for ``b`` of shape (N,) or (N, k). An exactly singular ``A`` gives non-finite solutions (the
        callers test them).

    Raises
    ------
    ValueError
        ``A`` has non-finite entries.
    """
    from scipy.linalg import lapack

    if not np.all(np.isfinite(A)):
        raise ValueError("the matrix to factor has non-finite entries")
    if np.shape(A)[0] == 0:
        return lambda b: np.zeros(np.shape(b))
    lu, piv, info = lapack.dgetrf(A)
    if info < 0:
        raise ValueError(f"LAPACK getrf: argument {-info} is invalid")

    def solve(b: np.ndarray) -> np.ndarray:
        x, info_s = lapack.dgetrs(lu, piv, b)
        if info_s < 0:
            raise ValueError(f"LAPACK getrs: argument {-info_s} is invalid")
        return x

    return solve


def gram(J: np.ndarray) -> np.ndarray:
    """``JᵀJ`` by BLAS's ``dsyrk`` through SciPy's bindings (one triangle, then mirrored): the call the compiled kernels
    make (:func:`gaussqp.friction.compiled_kernels.gram`), so the two give the same numbers bit for bit on any machine.
    NumPy's ``J.T @ J`` calls ``syrk`` as well, but from NumPy's own OpenBLAS, another build, whose kernels may round
    otherwise on some processors.

    Parameters
    ----------
    J : (k, N) array

    Returns
    -------
    numpy.ndarray
        (N, N), C-ordered, symmetric.
    """
    from scipy.linalg import blas

    J = np.ascontiguousarray(J, dtype=float)
    N = J.shape[1]
    if N == 0 or J.shape[0] == 0:
        return np.zeros((N, N))
    # J's buffer read column-major is Jᵀ (N, k): its product with its transpose, the lower triangle column-major,
    # i.e. the upper triangle of the C-ordered result, as the kernel's call fills it
    upper = np.ascontiguousarray(blas.dsyrk(1.0, J.T, trans=0, lower=1).T)
    below = np.tril_indices(N, -1)
    upper[below] = upper.T[below]
    return upper


def gesv(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, bool]:
    """``(A⁻¹ b, True)`` by LAPACK's ``getrf`` then ``getrs`` through SciPy's bindings, or ``(b, False)`` when ``getrf``
    meets an exactly zero pivot (where ``numpy.linalg.solve`` raises ``LinAlgError``): the calls of the compiled kernels'
    ``_gesv`` (:mod:`gaussqp.friction.compiled_kernels`), so the two give the same numbers bit for bit on any machine.
    ``numpy.linalg.solve`` calls NumPy's own LAPACK, another OpenBLAS build: on an AVX-512 processor (NumPy's OpenBLAS
    0.3.31, SciPy's 0.3.30) the two solved 42 × 42 systems to other last bits.

    Parameters
    ----------
    A : (N, N) array
    b : (N,) array

    Returns
    -------
    tuple
        the solution, and whether ``A`` was factored without a zero pivot.
    """
    from scipy.linalg import lapack

    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
    if b.shape[0] == 0:
        return np.zeros(0), True
    lu, piv, info = lapack.dgetrf(A)
    if info > 0:
        return b, False
    return lapack.dgetrs(lu, piv, b)[0], True


def symmetric_splu(A):
    """SuperLU factors of a sparse matrix with a symmetric pattern (a mass matrix, a Gram matrix ``AAᵀ``, an
    equality KKT matrix): the columns ordered by minimum degree on ``Aᵀ + A``, SuperLU's ordering for symmetric
    structures (its default, COLAMD on ``AᵀA``, fills more: the n = 3000 chain's KKT factor 2.1 → 1.2 ms, its
    Gram 0.8 → 0.4 ms). Partial pivoting is kept (the KKT matrix has a zero block). Raises SuperLU's
    ``RuntimeError`` on an exactly singular matrix."""
    from scipy.sparse.linalg import splu

    return splu(sp.csc_matrix(A), permc_spec="MMD_AT_PLUS_A")


def sparse_full_row_rank(A) -> float | None:
    """σ_min(A) when it proves that the sparse ``A`` (k <= n rows) has full row rank, else None.

    λ_min of the Gram matrix ``AAᵀ`` by Lanczos (ARPACK) in shift-invert mode on a sparse LU of
    ``AAᵀ``, its residual checked in ``AAᵀ``; λ_max bounded above by Gershgorin. Only
    ``σ_min >= SPARSE_RANK_RTOL · σ_max`` is trusted, far above :func:`rank_tol`, so a yes agrees
    with the dense rule of :func:`matrix_rank`; None (singular LU, no convergence, small σ_min,
    fewer than 3 rows) leaves the decision to a dense SVD.
    """
    A = sp.csr_matrix(A, dtype=float)
    k, n = A.shape
    if k < 3 or k > n:
        return None
    key = sparse_digest(A, values=True)
    if key not in _FULL_ROW_RANK_MEMO:
        _FULL_ROW_RANK_MEMO[key] = _sparse_full_row_rank(A)
        while len(_FULL_ROW_RANK_MEMO) > SPARSE_RANK_MEMO_SIZE:
            _FULL_ROW_RANK_MEMO.popitem(last=False)
    return _FULL_ROW_RANK_MEMO[key]


#: :func:`sparse_full_row_rank`'s answers by the content of the matrix (its shape, pattern and values): one solve
#: asks it of the same multiplier rows for the answer and for the cross-check's answer
_FULL_ROW_RANK_MEMO: OrderedDict = OrderedDict()


def sparse_digest(*mats, values: bool = False) -> str:
    """A 128-bit BLAKE2b digest of compressed sparse matrices (CSR or CSC) as they are stored: each one's shape,
    index pointers and indices (its sparsity pattern, explicit zeros included), and with ``values`` its entries too.
    Equal digests mean equal patterns (equal matrices with ``values``); the caller puts the matrices in one
    canonical form first. Keys of the caches that must not be re-asked for the same structure or matrix: the
    direct solver objects (:mod:`gaussqp.backends.direct`), the batch API's structures (:mod:`gaussqp.batch`) and
    :func:`sparse_full_row_rank`'s memo."""
    h = hashlib.blake2b(digest_size=16)
    for A in mats:
        parts = [
            np.asarray(A.shape, dtype=np.int64),
            np.asarray(A.indptr, dtype=np.int64),
            np.asarray(A.indices, dtype=np.int64),
        ]
        if values:
            parts.append(np.asarray(A.data, dtype=float))
        for part in parts:
            h.update(part.tobytes())
    return h.hexdigest()


def _sparse_full_row_rank(A: sp.csr_matrix) -> float | None:
    """The computation of :func:`sparse_full_row_rank` (k >= 3 rows, k <= n)."""
    from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh

    gram = (A @ A.T).tocsc()
    lam_max = float(abs(gram).sum(axis=1).max())  # Gershgorin: an upper bound makes the test only stricter
    try:
        lu = symmetric_splu(gram)
        inv = LinearOperator(gram.shape, matvec=lu.solve, dtype=float)
        w, v = eigsh(gram, k=1, sigma=0.0, OPinv=inv, which="LM", ncv=min(SPARSE_RANK_LANCZOS_VECTORS, gram.shape[0]))
    except (RuntimeError, ArpackError):  # exactly singular LU, or ARPACK without convergence
        return None
    lam_min, v = float(w[0]), v[:, 0]
    if not (lam_max > 0 and np.isfinite(lam_min)) or lam_min < SPARSE_RANK_RTOL**2 * lam_max:
        return None
    if np.linalg.norm(gram @ v - lam_min * v) > EIG_RESIDUAL_RTOL * lam_max * np.linalg.norm(v):
        return None
    return float(np.sqrt(lam_min))


def row_space_by_support(A) -> sp.csr_matrix:
    """Rows spanning the row space of the sparse ``A``, without the redundancy inside each group of rows whose
    supports nest: rows are grouped by their support (their nonzero columns), a group whose support lies inside a
    larger group's is merged into it (the contacts between the same two bodies, one of which has an exactly zero
    entry; a body's contacts with the ground inside one of its contacts with another body), and each group is replaced
    by its right singular vectors scaled by their singular values (``Σ_r V_rᵀ``, the rank decided by
    :func:`matrix_rank`'s rule on the group): the Gram matrix of the result is ``AᵀA`` less the dropped part, so a
    near-dependence spread across groups is not magnified (unit vectors had turned a direction of weight ε into one of
    weight 1, and a numerically singular A into a full-rank result). Any grouping spans the same rows, so ``rank(A)`` is the rank of the result, which has at most as
    many rows.

    A pile's normal rows are redundant mostly within a pair of bodies (four parallel normals on a face span three
    directions); removing that redundancy group by group lets :func:`sparse_full_row_rank` prove the rank of the
    rest without densifying ``A`` (whose pivoted QR is O(n m²)).
    """
    A = sp.csr_matrix(A, dtype=float)
    A.sort_indices()
    k, n = A.shape
    by_support: dict[bytes, list[int]] = {}
    for i in range(k):
        by_support.setdefault(A.indices[A.indptr[i] : A.indptr[i + 1]].tobytes(), []).append(i)
    supports = sorted(by_support, key=len, reverse=True)  # larger supports first: they absorb the nested ones
    groups: list[list[int]] = []
    owners: dict[int, set[int]] = {}  # column -> the groups whose support holds it
    for key in supports:
        cols = np.frombuffer(key, dtype=A.indices.dtype)
        inside = set.intersection(*(owners.get(int(c), set()) for c in cols)) if cols.size else set()
        if inside:
            groups[min(inside)] += by_support[key]
            continue
        for c in cols:
            owners.setdefault(int(c), set()).add(len(groups))
        groups.append(list(by_support[key]))
    rows, cols_out, vals = [], [], []
    out = 0
    for members in groups:
        sub = A[sorted(members)]
        cj = np.unique(sub.indices)
        block = sub[:, cj].toarray()
        if len(members) > 1:
            _, s, vt = np.linalg.svd(block, full_matrices=False)
            r = singular_value_rank(s, block.shape)
            block = s[:r, None] * vt[:r]  # Σ_r V_rᵀ: BᵀB = AᵀA but the dropped part, so B's singular values track A's
        r = block.shape[0]
        rows.append(np.repeat(np.arange(out, out + r), cj.size))
        cols_out.append(np.tile(cj, r))
        vals.append(block.ravel())
        out += r
    if not rows:
        return sp.csr_matrix((0, n))
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols_out))), shape=(out, n))


def row_rank(A) -> tuple[int, float]:
    """``(rank, σ_k)`` of a matrix with k rows: the numerical rank (the rule of :func:`matrix_rank`) and
    its k-th singular value (0 when k > n). A sparse ``A`` is first tried with
    :func:`sparse_full_row_rank`; only when that does not prove full row rank is it densified."""
    k, n = A.shape
    if sp.issparse(A):
        s = sparse_full_row_rank(A)
        if s is not None:
            return k, s
    A = as_dense(A)
    if A.size == 0:
        return 0, 0.0
    sv = np.linalg.svd(A, compute_uv=False)
    return singular_value_rank(sv, A.shape), (float(sv[-1]) if k <= n else 0.0)


def singular_values(A: np.ndarray) -> np.ndarray:
    """The singular values of ``A``, largest first, by LAPACK's ``dgesdd`` (values only) from SciPy's build with its
    wrapper's default workspace: the call :func:`gaussqp.model.compiled_kernels._singular_values` makes, so that a
    compiled step and this one give the same numbers bit for bit (NumPy's ``svd`` calls ``dgesdd`` from another
    OpenBLAS build, which rounds otherwise on large matrices with several BLAS threads). Where ``dgesdd`` reports a
    failure (no convergence), NumPy's ``svd`` answers instead (it raises ``LinAlgError`` where it fails too).

    Parameters
    ----------
    A : (m, n) array_like

    Returns
    -------
    numpy.ndarray
        ``min(m, n)`` values.
    """
    from scipy.linalg import lapack

    A = np.asarray(A, dtype=float)
    if A.ndim != 2 or A.size == 0:
        return np.linalg.svd(A, compute_uv=False)
    _, sv, _, info = lapack.dgesdd(A, compute_uv=0)
    if info != 0:
        return np.linalg.svd(A, compute_uv=False)
    return sv


def smallest_singular_value(A: np.ndarray) -> float:
    """sigma_min of ``A`` over min(shape) values (0.0 for an empty matrix)."""
    A = as_dense(A)
    if A.size == 0:
        return 0.0
    return float(np.linalg.svd(A, compute_uv=False)[-1])


def normalize_rows(A: np.ndarray) -> np.ndarray:
    """Rows scaled to unit Euclidean norm (zero rows kept at zero); sparse in, sparse out."""
    if sp.issparse(A):
        A = sp.csr_matrix(A, dtype=float)
        norms = np.sqrt(np.asarray(A.multiply(A).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        return sp.diags(1.0 / norms) @ A
    A = as_dense(A)
    norms = np.linalg.norm(A, axis=1)
    norms[norms == 0] = 1.0
    return A / norms[:, None]


def equilibrated_min_eigenvalue(A: np.ndarray, ref_diag: np.ndarray) -> float:
    """λ_min of ``D A D`` with ``D = diag(ref_diag)^(-1/2)``: a definiteness margin on the data's scale.

    ``ref_diag`` must come from the data, not from ``A`` when ``A`` is a computed quantity that may be
    zero up to round-off (e.g. the Delassus diagonal of the unconstrained rows, ``G M⁻¹ Gᵀ``, for the
    constrained ``A_c``): then a matrix that is zero up to round-off gets a margin of round-off size, not
    1. A row whose reference is zero (a zero row of the data) makes the margin 0.
    """
    A = 0.5 * (np.asarray(A, dtype=float) + np.asarray(A, dtype=float).T)
    if A.size == 0:
        return float("inf")
    ref = np.asarray(ref_diag, dtype=float)
    if np.any(ref <= 0):
        return 0.0
    d = 1.0 / np.sqrt(ref)
    return float(np.linalg.eigvalsh(d[:, None] * A * d[None, :]).min())


def equilibrated_pinv(A: np.ndarray) -> np.ndarray:
    """A generalized inverse of the symmetric PSD ``A`` computed on its Jacobi-equilibrated form
    ``D A D`` (``D = diag(A)^(-1/2)``, 1 on zero diagonals): ``G = D (D A D)⁺ D`` satisfies ``A G A = A``,
    and the rank is decided with :data:`RANK_RTOL` on a unit diagonal, so a row of norm 1e-6 next to
    one of norm 1 is not cut as round-off."""
    A = np.asarray(A, dtype=float)
    if A.size == 0:
        return np.zeros_like(A)
    d = jacobi_scaling(np.diag(A))
    At = d[:, None] * A * d[None, :]
    return d[:, None] * np.linalg.pinv(0.5 * (At + At.T), rcond=RANK_RTOL, hermitian=True) * d[None, :]


def jacobi_scaling(diag: np.ndarray) -> np.ndarray:
    """``diag(M)^(-1/2)`` with 1 where the diagonal is not positive (a zero row of a PSD matrix)."""
    d = np.asarray(diag, dtype=float)
    out = np.ones_like(d)
    pos = d > 0
    out[pos] = 1.0 / np.sqrt(d[pos])
    return out


def ruiz_scaling(A: np.ndarray, passes: int = EQUILIBRATION_PASSES) -> tuple[np.ndarray, np.ndarray]:
    """Row and column scalings ``(r, c)`` with every row and column of ``diag(r) A diag(c)`` of largest magnitude
    near 1 (Ruiz's iteration: each pass divides rows, then columns, by the square roots of their ∞-norms; zero
    rows/columns keep 1). For a matrix of *data* (a piece of the enumeration, a KKT block), not for a computed
    one that may be zero up to round-off (that one is scaled by a reference from the data, as
    :func:`equilibrated_min_eigenvalue`)."""
    A = np.abs(np.asarray(A, dtype=float))
    r, c = np.ones(A.shape[0]), np.ones(A.shape[1])
    for _ in range(passes):
        S = A * r[:, None] * c[None, :]
        rn = S.max(axis=1, initial=0.0)
        r = r / np.sqrt(np.where(rn > 0, rn, 1.0))
        S = A * r[:, None] * c[None, :]
        cn = S.max(axis=0, initial=0.0)
        c = c / np.sqrt(np.where(cn > 0, cn, 1.0))
    return r, c


def scaled_solve(A: np.ndarray, B: np.ndarray, r: np.ndarray, c: np.ndarray) -> tuple[np.ndarray | None, float]:
    """``(A⁻¹ B, cond)`` computed on ``Â = diag(r) A diag(c)`` (``A⁻¹ = diag(c) Â⁻¹ diag(r)``), with ``cond`` the
    2-norm condition number of Â; ``(None, cond)`` when ``cond >= SOLVE_COND_MAX``: the singularity decision is made
    once the scales of rows and unknowns are gone (a mass ratio of 1e10 is not a singular system), never on the
    raw matrix."""
    Ah = np.asarray(A, dtype=float) * r[:, None] * c[None, :]
    try:
        cond = float(np.linalg.cond(Ah))
    except np.linalg.LinAlgError:
        cond = float("inf")
    if not cond < SOLVE_COND_MAX:
        return None, cond
    B = np.asarray(B, dtype=float)
    rb = r[:, None] * B if B.ndim == 2 else r * B
    X = np.linalg.solve(Ah, rb)
    return (c[:, None] * X if X.ndim == 2 else c * X), cond


def relative_asymmetry(M) -> float:
    """``max |M_ij − M_ji| / max(sqrt(|M_ii M_jj|), |M_ij| + |M_ji|)`` over the asymmetric entries (dense or sparse):
    each entry's asymmetry against its own scale — what a PSD matrix's ``|M_ij|`` is bounded by, or the two entries
    themselves — never against 1 or the largest entry (a light coordinate beside a heavy one, or M in small units,
    is checked as strictly). 0 for a symmetric matrix."""
    if sp.issparse(M):
        D = sp.coo_matrix(M - M.T)
    else:
        diff = np.asarray(M) - np.asarray(M).T
        if not diff.any():  # no asymmetric entry (the common case, without building the COO matrix below)
            return 0.0
        D = sp.coo_matrix(diff)
    if not D.nnz:
        return 0.0
    d = np.sqrt(np.abs(np.asarray(M.diagonal()).ravel()))
    Mc = sp.csr_matrix(M) if sp.issparse(M) else np.asarray(M)
    mij = np.abs(np.asarray(Mc[D.row, D.col]).ravel())
    mji = np.abs(np.asarray(Mc[D.col, D.row]).ravel())
    scale = np.maximum(d[D.row] * d[D.col], mij + mji)
    return float((np.abs(D.data) / np.where(scale > 0, scale, 1.0)).max())

"""CSR matrices assembled from their arrays, for the set-up of the sparse mode-free route (issue #27).

SciPy's sparse constructors and operators check and convert their input on every call: on a quadruped of 18 contacts
the set-up of one solve (the contact blocks, M⁻¹ by blocks, the rows' scales) made ~70 such calls and cost more than
the Newton iterations. The functions here compute what those operations compute — the same entries, the same values
bit for bit, in the same storage order, so that the products that follow add their terms in the same order — from
the index arrays directly, and build the result with one constructor call on index arrays of the type SciPy would
choose (int32 while it fits), which it then does not convert. The products, sums and transpositions call the same
compiled routines as SciPy's operators (``scipy.sparse._sparsetools``: ``csr_matmat``, ``csr_plus_csr``,
``csr_tocsc``, ``csr_matvec``, ``csc_matvec``), so their results are SciPy's bit for bit; where that module does not have them (another SciPy),
SciPy's operators themselves run.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

_INT32_MAX = int(np.iinfo(np.int32).max)

try:  # SciPy's compiled routines behind its sparse operators (a private module: checked, with the operators as fallback)
    from scipy.sparse import _sparsetools as _routines

    _HAVE_ROUTINES = all(
        hasattr(_routines, name)
        for name in ("csr_matmat_maxnnz", "csr_matmat", "csr_plus_csr", "csr_tocsc", "csr_matvec", "csc_matvec")
    )
except ImportError:  # pragma: no cover - every SciPy this project supports has the module
    _routines = None
    _HAVE_ROUTINES = False


def _index_type(*counts: int) -> type:
    return np.int32 if max(counts) < _INT32_MAX else np.int64


def _index_arrays(kind: type, *arrays: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(a, dtype=kind) for a in arrays]


def _check_shapes(what: str, got: tuple, expected: tuple) -> None:
    """SciPy's operators refuse operands of mismatched shapes; its compiled routines would read out of bounds."""
    if tuple(int(x) for x in got) != tuple(int(x) for x in expected):
        raise ValueError(f"{what}: operand of shape {tuple(got)} where {tuple(expected)} is expected")


def csr_from_arrays(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, shape: tuple[int, int]) -> sp.csr_matrix:
    """``scipy.sparse.csr_matrix((data, indices, indptr), shape)`` with the index arrays in int32 when the shape and
    the entries fit (the type SciPy's operators pick for int32 inputs; they keep int64 inputs in int64, which this does
    not: the values and their order are the same either way), passed without a copy.

    Parameters
    ----------
    data : (nnz,) float
    indices : (nnz,) int, each row's columns in storage order
    indptr : (rows + 1,) int
    shape : (rows, columns)

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    small = max(int(shape[0]), int(shape[1]), int(len(data))) < _INT32_MAX
    kind = np.int32 if small else np.int64
    return sp.csr_matrix(
        (np.asarray(data, dtype=float), np.asarray(indices, dtype=kind), np.asarray(indptr, dtype=kind)),
        shape=(int(shape[0]), int(shape[1])),
        copy=False,
    )


def csr_entries(A: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """The row and the column of each stored entry of ``A``, in its storage order (``A.data``'s).

    Parameters
    ----------
    A : scipy.sparse.csr_matrix

    Returns
    -------
    rows, cols : (nnz,) int64
    """
    return np.repeat(np.arange(A.shape[0]), np.diff(A.indptr)), np.asarray(A.indices, dtype=np.int64)


def repeats(A: sp.csr_matrix) -> bool:
    """Whether some entry of ``A`` is stored more than once (its columns may be in any order within a row).

    Parameters
    ----------
    A : scipy.sparse.csr_matrix

    Returns
    -------
    bool
    """
    if A.has_canonical_format:
        return False
    rows, cols = csr_entries(A)
    keys = np.sort(rows * A.shape[1] + cols)
    return bool((keys[1:] == keys[:-1]).any())


def summed(A: sp.csr_matrix) -> sp.csr_matrix:
    """``A`` with each repeated entry stored once, as their sum (SciPy's convention): ``A`` itself when no entry repeats
    (:func:`repeats`), else a copy (``A``'s own arrays are left as given).

    Parameters
    ----------
    A : scipy.sparse.csr_matrix

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    if not repeats(A):
        return A
    out = A.copy()
    out.sum_duplicates()
    return out


def canonical(A):
    """``A`` in SciPy's canonical format (indices sorted in each row or column, each repeated entry stored once, as
    their sum): ``A`` itself when it is already, else a copy (``A``'s own arrays, which a caller's matrix may share, are
    never rewritten by SciPy's in-place ``sum_duplicates``).

    Parameters
    ----------
    A : scipy.sparse.csr_matrix or scipy.sparse.csc_matrix

    Returns
    -------
    the same type as ``A``
    """
    if A.has_canonical_format:
        return A
    out = A.copy()
    out.sum_duplicates()
    return out


def csr_like(A: sp.csr_matrix, data: np.ndarray) -> sp.csr_matrix:
    """A CSR matrix with ``A``'s pattern and storage order and the values ``data`` (one per stored entry of ``A``).

    Parameters
    ----------
    A : scipy.sparse.csr_matrix
    data : (A.nnz,) float

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    return csr_from_arrays(data, A.indices, A.indptr, A.shape)


def _two_operands(routine, shape: tuple[int, int], room: int, kind: type, a: tuple, b: tuple) -> sp.csr_matrix:
    """The CSR result of SciPy's compiled ``routine(M, N, Ap, Aj, Ax, Bp, Bj, Bx, Cp, Cj, Cx)`` on the operands'
    arrays ``a``, ``b`` (index arrays of type ``kind``), with room for ``room`` entries, trimmed to those it wrote."""
    M, N = shape
    indptr = np.empty(M + 1, dtype=kind)
    indices = np.empty(room, dtype=kind)
    data = np.empty(room, dtype=float)
    routine(M, N, a[0], a[1], np.asarray(a[2], dtype=float), b[0], b[1], np.asarray(b[2], dtype=float), indptr, indices,
            data)  # fmt: skip
    end = int(indptr[-1])
    return csr_from_arrays(data[:end], indices[:end], indptr, (M, N))


def product(A: sp.csr_matrix, B: sp.csr_matrix) -> sp.csr_matrix:
    """``A @ B`` of two CSR matrices, as SciPy computes it (its ``csr_matmat``: each row's entries in the order that
    routine leaves them, a sum that is exactly zero dropped).

    Parameters
    ----------
    A : (M, K) scipy.sparse.csr_matrix
    B : (K, N) scipy.sparse.csr_matrix

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    if not _HAVE_ROUTINES:
        return sp.csr_matrix(A @ B)
    _check_shapes("product", (B.shape[0],), (A.shape[1],))
    M, N = int(A.shape[0]), int(B.shape[1])
    kind = _index_type(M, N, A.nnz, B.nnz, A.shape[1])
    Ap, Aj, Bp, Bj = _index_arrays(kind, A.indptr, A.indices, B.indptr, B.indices)
    nnz = int(_routines.csr_matmat_maxnnz(M, N, Ap, Aj, Bp, Bj))
    kind2 = _index_type(M, N, nnz, A.nnz, B.nnz, A.shape[1])
    if kind2 is not kind:
        kind = kind2
        Ap, Aj, Bp, Bj = _index_arrays(kind, A.indptr, A.indices, B.indptr, B.indices)
    return _two_operands(_routines.csr_matmat, (M, N), nnz, kind, (Ap, Aj, A.data), (Bp, Bj, B.data))


def transpose(A: sp.csr_matrix) -> sp.csr_matrix:
    """``Aᵀ`` in CSR, as ``scipy.sparse.csr_matrix(A.T)`` gives it (SciPy's ``csr_tocsc``: each row's entries in
    increasing column order).

    Parameters
    ----------
    A : (M, N) scipy.sparse.csr_matrix

    Returns
    -------
    (N, M) scipy.sparse.csr_matrix
    """
    if not _HAVE_ROUTINES:
        return sp.csr_matrix(A.T)
    M, N = int(A.shape[0]), int(A.shape[1])
    kind = _index_type(M, N, A.nnz)
    Ap, Aj = _index_arrays(kind, A.indptr, A.indices)
    indptr = np.empty(N + 1, dtype=kind)
    indices = np.empty(A.nnz, dtype=kind)
    data = np.empty(A.nnz, dtype=float)
    _routines.csr_tocsc(M, N, Ap, Aj, np.asarray(A.data, dtype=float), indptr, indices, data)
    out = csr_from_arrays(data, indices, indptr, (N, M))
    out.has_sorted_indices = True
    return out


def plus(A: sp.csr_matrix, B: sp.csr_matrix) -> sp.csr_matrix:
    """``A + B`` of two CSR matrices of one shape, as SciPy computes it (its ``csr_plus_csr``; a sum that is exactly
    zero dropped).

    Parameters
    ----------
    A, B : scipy.sparse.csr_matrix

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    if not _HAVE_ROUTINES:
        return sp.csr_matrix(A + B)
    _check_shapes("plus", B.shape, A.shape)
    M, N = int(A.shape[0]), int(A.shape[1])
    maxnnz = A.nnz + B.nnz
    kind = _index_type(M, N, maxnnz)
    Ap, Aj, Bp, Bj = _index_arrays(kind, A.indptr, A.indices, B.indptr, B.indices)
    return _two_operands(_routines.csr_plus_csr, (M, N), maxnnz, kind, (Ap, Aj, A.data), (Bp, Bj, B.data))


def matvec(A: sp.csr_matrix, x: np.ndarray, transposed: bool = False, magnitudes: bool = False) -> np.ndarray:
    """``A @ x``, or ``A.T @ x`` when ``transposed`` (SciPy's product with the CSC view ``A.T``), as SciPy computes
    it (its ``csr_matvec``, ``csc_matvec``); ``magnitudes``: with ``abs(A)`` in place of ``A`` (SciPy's ``abs(A) @ x``;
    an ``A`` not in SciPy's canonical format takes SciPy's operators, whose ``abs`` sorts ``A``'s arrays in place and sums
    its repeated entries first, which changes the order of the product's terms — and ``A`` itself, as before).

    Parameters
    ----------
    A : (M, N) scipy.sparse.csr_matrix
    x : (N,) float, or (M,) when ``transposed``
    transposed, magnitudes : bool

    Returns
    -------
    numpy.ndarray
    """
    x = np.asarray(x, dtype=float)
    _check_shapes("matvec", x.shape, (A.shape[0] if transposed else A.shape[1],))
    if not _HAVE_ROUTINES or (magnitudes and not A.has_canonical_format):
        B = abs(A) if magnitudes else A
        return np.asarray((B.T if transposed else B) @ x).ravel()
    M, N = int(A.shape[0]), int(A.shape[1])
    data = np.abs(A.data) if magnitudes else np.asarray(A.data, dtype=float)
    if transposed:
        out = np.zeros(N)
        _routines.csc_matvec(N, M, A.indptr, A.indices, data, x, out)
    else:
        out = np.zeros(M)
        _routines.csr_matvec(M, N, A.indptr, A.indices, data, x, out)
    return out


__all__ = [
    "csr_entries",
    "csr_from_arrays",
    "csr_like",
    "matvec",
    "plus",
    "product",
    "repeats",
    "summed",
    "transpose",
]

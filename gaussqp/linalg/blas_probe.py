"""Whether numba's BLAS products give NumPy's bits on this installation (imported only by the loaders of the compiled
kernels, :mod:`gaussqp.friction.compiled` and :func:`gaussqp.linalg.lemke.compiled_pivots`, and only with numba).

The compiled kernels promise the NumPy code's numbers bit for bit. Their matrix products call BLAS through numba,
which binds SciPy's BLAS, while NumPy's ``@`` calls NumPy's own: two builds (two OpenBLAS versions in the wheels, or an
MKL NumPy) can round a product differently. :func:`disagreement` compares both on the products the kernels make
(``dgemv`` on C- and column-ordered matrices, ``dgemm`` of small blocks, one by one against NumPy's batched product of
the same blocks, ``ddot``), byte for byte; a loader that gets a reason back keeps the NumPy code. (numba's LU solve,
LAPACK's ``gesv``, is not used: under several BLAS threads it rounds otherwise than ``getrf``/``getrs`` at 150
unknowns.)
"""

from __future__ import annotations

import numpy as np

from .jit import njit


@njit
def _products(A, x, y, P, Q):
    return np.dot(A, x), np.dot(A.T, y), np.dot(P, Q), np.dot(x, x)


@njit
def _blocks(B, W, d):
    # the Newton matrix's products (compiled_kernels.newton_matrix): block row j is B_j W_j by dgemm
    out = np.empty(W.shape)
    for j in range(B.shape[0]):
        out[j * d : (j + 1) * d, :] = np.dot(
            np.ascontiguousarray(B[j]), np.ascontiguousarray(W[j * d : (j + 1) * d, :])
        )
    return out


def disagreement() -> str | None:
    """None when numba's products equal NumPy's byte for byte on a sample of the kernels' shapes, else the shape where
    they differ.

    Returns
    -------
    str or None
        e.g. ``"dgemv (27, 27)"``, or None.
    """
    rng = np.random.default_rng(20261127)
    for k, n, d in ((5, 27, 3), (28, 28, 2), (42, 42, 3), (14, 120, 3), (150, 150, 3)):
        A = rng.normal(size=(k, n)) * 10.0 ** rng.uniform(-3, 3, size=(k, 1))
        x, y = rng.normal(size=n), rng.normal(size=k)
        P, Q = rng.normal(size=(d, d)), rng.normal(size=(d, n))
        ax, aty, pq, xx = _products(A, x, y, P, Q)
        checks = (
            (ax, A @ x, f"dgemv {A.shape}"),
            (aty, A.T @ y, f"dgemv (transposed) {A.shape}"),
            (pq, P @ Q, f"dgemm {(d, n)}"),
            (np.array([xx]), np.array([x @ x]), f"ddot ({n},)"),
        )
        for got, ref, what in checks:
            if got.tobytes() != ref.tobytes():
                return what
        if k == n and n % d == 0:  # the Newton matrix's block products, against NumPy's batched product
            B = rng.normal(size=(n // d, d, d)) * 10.0 ** rng.uniform(-3, 3, size=(n // d, 1, 1))
            if _blocks(B, A, d).tobytes() != np.matmul(B, A.reshape(n // d, d, n)).reshape(n, n).tobytes():
                return f"batched dgemm {(n // d, d, d)} × {(n // d, d, n)}"
    return None


__all__ = ["disagreement"]

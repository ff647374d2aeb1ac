"""Whether numba's BLAS products give NumPy's bits on this installation (imported only by the loaders of the compiled
kernels, :mod:`gaussqp.friction.compiled` and :func:`gaussqp.linalg.lemke.compiled_pivots`, and only with numba).

The compiled kernels promise the NumPy code's numbers bit for bit. Their matrix products call BLAS through numba,
which binds SciPy's BLAS, while NumPy's ``@`` calls NumPy's own: two builds (two OpenBLAS versions in the wheels, or an
MKL NumPy) can round a product differently. :func:`disagreement` compares both on the products the kernels make
(``dgemv`` on C- and column-ordered matrices, ``dgemm`` of small blocks, ``ddot``), byte for byte; a loader that gets a reason
back keeps the NumPy code.
"""

from __future__ import annotations

import numpy as np

from .jit import njit


@njit
def _products(A, x, y, P, Q):
    return np.dot(A, x), np.dot(A.T, y), np.dot(P, Q), np.dot(x, x)


def disagreement() -> str | None:
    """None when numba's products equal NumPy's byte for byte on a sample of the kernels' shapes, else the shape where
    they differ.

    Returns
    -------
    str or None
        e.g. ``"dgemv (27, 27)"``, or None.
    """
    rng = np.random.default_rng(20261127)
    for k, n, d in ((5, 27, 3), (27, 27, 2), (42, 42, 3), (14, 120, 3), (150, 150, 3)):
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
    return None


__all__ = ["disagreement"]

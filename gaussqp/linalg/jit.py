"""The decorator and the shared helpers of the compiled kernels (:mod:`gaussqp.friction.compiled_kernels`,
:mod:`gaussqp.linalg.lemke_compiled`, :mod:`gaussqp.linalg.blas_probe`, :mod:`gaussqp.certificates.compiled_kernels`,
:mod:`gaussqp.model.scales_kernels`; imported only by them, and only with numba installed)."""

from __future__ import annotations

import warnings

import numba
import numpy as np

_warned = False


def njit(fn):
    """``numba.njit`` with numba's on-disk cache; without it, warned once, where numba finds no writable cache directory
    (the kernels then compile in every process: ~10 s)."""
    global _warned
    try:
        return numba.njit(cache=True, nogil=True)(fn)
    except RuntimeError as e:
        if not _warned:
            _warned = True
            warnings.warn(
                f"gaussqp: numba cannot cache the compiled kernels ({e}); they compile in every process (~10 s): set "
                "NUMBA_CACHE_DIR to a writable directory",
                RuntimeWarning,
                stacklevel=2,
            )
        return numba.njit(nogil=True)(fn)


@njit
def matvec(A, x):
    """``A @ x`` as NumPy's ``matmul`` makes it, for the compiled kernels to give NumPy's bits: BLAS's ``dot`` when
    ``A`` has one row (a 1 × 1 result), ``gemv`` otherwise (on ``A``'s layout: a transpose is a column-ordered view)."""
    if A.shape[0] == 1:
        out = np.empty(1)
        out[0] = np.dot(np.ascontiguousarray(A[0]), x)
        return out
    return np.dot(A, x)


@njit
def python_max(out, x):
    """Python's ``max(out, x)`` of two numbers: ``x`` only when it is larger (a NaN second argument is passed over), for
    the compiled kernels to follow the NumPy code where it takes Python's ``max``."""
    if x > out:
        return x
    return out


__all__ = ["matvec", "njit", "python_max"]

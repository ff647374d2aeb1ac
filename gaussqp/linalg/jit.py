"""The decorator of the compiled kernels (:mod:`gaussqp.friction.compiled_kernels`, :mod:`gaussqp.linalg.lemke_compiled`,
:mod:`gaussqp.linalg.blas_probe`; imported only by them, and only with numba installed)."""

from __future__ import annotations

import warnings

import numba

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


__all__ = ["njit"]

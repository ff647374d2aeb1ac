"""LAPACK's functions for the compiled kernels, through SciPy's Cython bindings (imported only by the kernel modules,
:mod:`gaussqp.friction.compiled_kernels`, :mod:`gaussqp.model.compiled_kernels` and
:mod:`gaussqp.linalg.lemke_compiled`, and only with numba installed).

They are the functions ``scipy.linalg.lapack`` calls, so a kernel that calls one with the arguments SciPy's wrapper
passes (the same workspace sizes: blocked and unblocked code give other bits) gets SciPy's numbers bit for bit. Each is
registered under a name of its own (llvmlite's ``add_symbol``) and declared as a numba ``ExternalFunction`` taking
pointers, so numba's on-disk cache refers to the symbol, not to this process's address. Only declarations live here:
a compiled function's cache is renewed when its own file changes, so the compiled helpers that call these stay in the
kernel modules.

- ``dgetrf`` / ``dgetrs`` / ``dgetri``: the LU with partial pivoting, its solve and its inverse; ``dgecon``: the
  estimate of its reciprocal condition number;
- ``dgesdd``: the singular values (``jobz = 'N'``) by divide and conquer, as
  :func:`gaussqp.linalg.dense.singular_values` computes them through SciPy's wrapper;
- ``dgelsy``: the minimum-norm least-squares solution by a complete orthogonal factorization, as
  :func:`gaussqp.linalg.dense.min_norm_lstsq` computes it through ``scipy.linalg.lstsq``;
- BLAS's ``dsyrk``: ``AᵀA``'s triangle, as :func:`gaussqp.linalg.dense.gram` computes it through SciPy's wrapper (NumPy's
  ``A.T @ A`` calls ``syrk`` too, from NumPy's own BLAS build, then mirrors the triangle; a ``gemm`` rounds otherwise).
"""

from __future__ import annotations

import llvmlite.binding as _llvm
from numba import types as _types
from numba.extending import get_cython_function_address


def _lapack_ilp64() -> bool:
    """Whether SciPy's LAPACK was built with 64-bit integers (``scipy.show_config``; unknown counts as not)."""
    import scipy

    try:
        deps = scipy.show_config(mode="dicts")["Build Dependencies"]
    except Exception:  # an older SciPy without the dictionary form: its wheels were LP64
        return False
    return any(bool(deps.get(lib, {}).get("has ilp64", False)) for lib in ("lapack", "blas"))


if _lapack_ilp64():
    raise ImportError("SciPy's LAPACK takes 64-bit integers (an ILP64 build): the compiled kernels pass 32-bit ones")
for _name in ("dgetrf", "dgetrs", "dgetri", "dgecon", "dgesdd", "dgelsy"):
    _llvm.add_symbol("gaussqp_" + _name, get_cython_function_address("scipy.linalg.cython_lapack", _name))
_llvm.add_symbol("gaussqp_dsyrk", get_cython_function_address("scipy.linalg.cython_blas", "dsyrk"))
_P = _types.voidptr
#: ``dgetrf(m, n, a, lda, ipiv, info)``
dgetrf = _types.ExternalFunction("gaussqp_dgetrf", _types.void(_P, _P, _P, _P, _P, _P))
#: ``dgetrs(trans, n, nrhs, a, lda, ipiv, b, ldb, info)``
dgetrs = _types.ExternalFunction("gaussqp_dgetrs", _types.void(_P, _P, _P, _P, _P, _P, _P, _P, _P))
#: ``dgetri(n, a, lda, ipiv, work, lwork, info)``
dgetri = _types.ExternalFunction("gaussqp_dgetri", _types.void(_P, _P, _P, _P, _P, _P, _P))
#: ``dgecon(norm, n, a, lda, anorm, rcond, work, iwork, info)``
dgecon = _types.ExternalFunction("gaussqp_dgecon", _types.void(*([_P] * 9)))
#: ``dgesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info)``
dgesdd = _types.ExternalFunction("gaussqp_dgesdd", _types.void(*([_P] * 14)))
#: ``dgelsy(m, n, nrhs, a, lda, b, ldb, jpvt, rcond, rank, work, lwork, info)``
dgelsy = _types.ExternalFunction("gaussqp_dgelsy", _types.void(*([_P] * 13)))
#: BLAS ``dsyrk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc)``
dsyrk = _types.ExternalFunction("gaussqp_dsyrk", _types.void(*([_P] * 10)))

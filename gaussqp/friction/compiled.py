"""Compiled kernels of the dense semismooth Newton method (:mod:`gaussqp.friction.nonsmooth_newton`), optional.

The Newton method's work per iteration on a small dense problem (a robot's 10–50 contacts) is a few dozen NumPy
calls on arrays of a few hundred entries: the map ``φ_ρ`` and its certificate's ``φ_1`` (one product with W, two
cone projections), the blocks of the generalized Jacobian and the Newton matrix
``J = blockdiag(A) + blockdiag(B) W``. Their time is the calls', not the arithmetic's (~2 µs each, ~250 µs an
iteration on the humanoid's 42 unknowns). With ``numba`` installed (``pip install 'gaussqp[fast]'``) these three
steps run as compiled loops over the contacts, the same formulas in the same order of pieces:

- :func:`natural_maps`: ``u = W r + q``, ``s = u + μ‖u_t‖e_n``, ``z = r − ρ s``, ``φ_ρ = r − P_K(z)``,
  ``φ_1 = r − P_K(r − s)`` (Acary, Brémond, Huber 2018, eq. (12); :func:`gaussqp.friction.coulomb_law.project_cone`);
- :func:`jacobian_blocks`: ``P' = ∂P_K(z)`` (:func:`gaussqp.friction.nonsmooth_newton.cone_projection_jacobian`),
  ``D = ∂s/∂u`` (:func:`~gaussqp.friction.nonsmooth_newton.shift_jacobian`), ``A = I − P' + δP'D``, ``B = ρ P'D``,
  ``A₀ = I − P'``;
- :func:`newton_matrix`: ``J`` assembled densely;
- :func:`projection_with_jacobian`: ``P_K(z)`` and ``P'(z)`` block by block (F9's map,
  :meth:`gaussqp.friction.mixed_law.MixedSystem.evaluate`).

The linear solves stay with LAPACK (``getrf``/``getrs``). Nothing here decides anything: the NumPy functions are the
reference (``tests/friction/test_compiled_kernels.py`` checks these against them), the route's answer is judged on
its recomputed residual either way. Without numba :func:`kernels` is None and the NumPy path runs. The kernels live in
:mod:`gaussqp.friction.compiled_kernels` (module-level functions, imported only here): compiled on first use and
cached on disk by numba (beside the module, else in the user's cache directory; compiled in each process when neither
is writable).
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np


@lru_cache(maxsize=1)
def kernels() -> SimpleNamespace | None:
    """The compiled kernels (``natural_maps``, ``jacobian_blocks``, ``newton_matrix``, ``projection_with_jacobian``),
    or None without ``numba`` (the NumPy kernels then run)."""
    try:
        from . import compiled_kernels as k
    except ImportError:  # numba is not installed
        return None
    return SimpleNamespace(
        natural_maps=k.natural_maps,
        jacobian_blocks=k.jacobian_blocks,
        newton_matrix=k.newton_matrix,
        projection_with_jacobian=k.projection_with_jacobian,
    )


def plain(x) -> np.ndarray:
    """``x`` as a writable C-ordered float array (a copy only when it is not one): the one argument type the kernels
    are compiled for."""
    if type(x) is np.ndarray and x.dtype == np.float64 and x.flags.c_contiguous and x.flags.writeable:
        return x  # the common case (the kernels' own outputs, fresh iterates), without numpy.require's checks
    return np.require(x, dtype=float, requirements=("C", "W"))


__all__ = ["kernels", "plain"]

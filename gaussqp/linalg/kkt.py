"""The equality KKT solve ``[M -Jᵀ; J 0] z = rhs`` by sparse LU (:func:`sparse_kkt_solve`): pure linear algebra.

The KKT system of an active set of a contact problem (the active-row guess, its equilibrated assembly and SVD, the
memo by problem) is mechanics: :mod:`gaussqp.mechanics.active_set`. Its names are still
importable from here (``from gaussqp.linalg.kkt import equilibrated_kkt``), with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .dense import symmetric_splu
from ..settings import KKT_SOLVE_RTOL


def sparse_kkt_solve(M, J, rhs: np.ndarray) -> np.ndarray | None:
    """Solve ``[M -Jᵀ; J 0] z = rhs`` by sparse LU; None when K is singular (redundant rows or
    singular M: the dense min-norm path decides) or the residual is not at round-off."""
    k = J.shape[0]
    K = sp.bmat([[sp.csr_matrix(M), -J.T], [J, sp.csr_matrix((k, k))]], format="csc")
    try:
        z = symmetric_splu(K).solve(rhs)
    except RuntimeError:
        return None
    if not np.all(np.isfinite(z)):
        return None
    # the normwise backward error ‖Kz − rhs‖∞ / ‖|K||z| + |rhs|‖∞ (the solve's own terms; not max(1, ‖rhs‖),
    # under which anything passed in small units); the answer is judged at the data's scale by the caller
    terms = np.asarray(abs(K) @ np.abs(z)).ravel() + np.abs(rhs)
    if np.abs(K @ z - rhs).max(initial=0) > KKT_SOLVE_RTOL * terms.max(initial=0):
        return None
    return z


#: the names that moved to :mod:`gaussqp.mechanics.active_set`, still answered here
MOVED = (
    "EquilibratedKKT",
    "KKTFactor",
    "equilibrated_kkt",
    "equilibrated_kkt_svd",
    "guess_active",
    "sparse_active_set_solution",
)


def __getattr__(name: str):
    """A name that moved to :mod:`gaussqp.mechanics.active_set`, with a :class:`DeprecationWarning` (imported on
    first use: linalg imports nothing of the mechanics or the model at load time)."""
    if name in MOVED:
        import warnings

        from ..mechanics import active_set

        warnings.warn(
            f"gaussqp.linalg.kkt.{name} moved to gaussqp.mechanics.active_set.{name}", DeprecationWarning, stacklevel=2
        )
        return getattr(active_set, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

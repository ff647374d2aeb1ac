"""A start for the mode-free Newton method from one convex program: Coulomb's law with the shift frozen at zero.

The problem is the local form ``u = W r + q`` with Coulomb's law in De Saxcé's form
(:mod:`gaussqp.friction.coulomb_law`): ``K_μ ∋ r ⟂ u + μ‖u_t‖e_n ∈ K_μ*``. With the shift ``s = μ‖u_t‖`` frozen at
zero (and the skew part of a non-symmetric W at ``r = 0``) it is the optimality system of the convex program

    min ½ rᵀ W_s r + qᵀ r   s.t.  r_j ∈ K_μj,   W_s = (W + Wᵀ)/2,

the first program of the convex iteration on the shift (Acary, Cadoux, Lemaréchal, Malick, "A formulation of the
linear discrete Coulomb friction problem via convex optimization", ZAMM 2011, §3; Acary, Brémond, Huber 2018 §4.3;
:func:`gaussqp.formulations.coulomb.solve_local`'s stage 1, there dense and iterated). Its answer is friction with an
associated (normal-dilatant) law: no spurious stationary point of a merit can hold it, so it lands near a solution
of the Coulomb problem whenever the shift is small against the normal velocities, which is where the Newton
method from "every contact sticks" or from zero can stall at a point that is not a solution (a box pile of 1,071
contacts: a stationary point of ``‖φ‖²`` at 2.2e-8, its velocity 3 % away from the solution's).

Here it is solved once, sparse: W_s in Clarabel's upper triangle (``W`` sparse stays sparse), each cone a
second-order cone ``(μ_j r_n, r_t)`` and ``r_n >= 0`` rows; in the data's units (``r = (‖q‖/max|W_s|) x``, the
objective divided by ``‖q‖ · ‖q‖/max|W_s|``) so that Clarabel's tolerances apply to O(1) numbers; Clarabel (a
dependency of gaussqp) is called directly, not through cvxpy, whose import alone costs about a second. Nothing here is a
certificate: the point is a start, judged by the Newton method's merit and then by the route's recomputed residual.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..backends.clarabel_ import CLARABEL
from ..backends.direct import RowBlock, conic_presets, solve_conic
from ..linalg.csr import csr_entries, csr_like, plus, transpose
from ..settings import get_tolerance


def convex_start(W, q: np.ndarray, mu: np.ndarray, dimension: int) -> np.ndarray | None:
    """The answer ``r`` of ``min ½ rᵀ W_s r + qᵀ r`` over the friction cones (module docstring), or None when
    Clarabel returns no point (neither ``solved`` nor ``inaccurate``).

    Parameters
    ----------
    W : (m·d, m·d) array or scipy.sparse matrix (any symmetry: its symmetric part is used)
    q : (m·d,) free velocity, blocks (normal, t1[, t2])
    mu : (m,) friction coefficients (0: frictionless, the tangential reaction pinned to 0)
    dimension : d >= 2

    Returns
    -------
    numpy.ndarray or None
        ``r`` (m·d,), in the cones up to Clarabel's tolerance (the Newton method projects its starts); None also when
        the symmetric part of W is zero or overflows.

    Notes
    -----
    The first program of the convex iteration on De Saxcé's shift (Acary, Cadoux, Lemaréchal, Malick 2011 §3), as a
    start of :func:`gaussqp.friction.nonsmooth_newton.solve_newton` (issue #27).
    """
    q = np.asarray(q, dtype=float).ravel()
    mu = np.asarray(mu, dtype=float).ravel()
    d = int(dimension)
    N = q.size
    m = N // d
    qn = float(np.linalg.norm(q))
    if N == 0 or qn == 0.0:
        return np.zeros(N)
    Wc = sp.csr_matrix(W, dtype=float) if sp.issparse(W) else sp.csr_matrix(np.asarray(W, dtype=float))
    canonical = Wc.has_canonical_format  # sorted, no repeated entry: the arrays are read directly
    Ws = _symmetric_part(Wc) if canonical else (Wc + Wc.T) / 2
    top = float(np.abs(Ws.data).max()) if Ws.nnz else 0.0
    if not (0.0 < top < np.inf):  # no W to scale by (zero, or a sum beyond the floats): no start from this program
        return None
    scale = qn / top  # r = scale · x
    P = _upper_triangle_csc(Ws, top) if canonical else sp.triu(Ws / top, format="csc")
    base = np.arange(m) * d
    # r_n >= 0: −x_n + s = 0, s >= 0
    nonneg = RowBlock(np.arange(m), base, -np.ones(m), m, "nonneg")
    # (μ r_n, r_t) in the second-order cone: −(μ x_n, x_t) + s = 0
    rows = np.arange(N)
    vals = -np.where(np.arange(N) % d == 0, np.repeat(mu, d), 1.0)
    soc = RowBlock(rows, np.arange(N), vals, N, "soc", soc=(d,) * m)
    res = solve_conic(P, q / qn, [nonneg, soc], N, conic_presets(CLARABEL, get_tolerance("high")))
    if res.x is None or not np.all(np.isfinite(res.x)):
        return None
    return scale * res.x


def _symmetric_part(W: sp.csr_matrix) -> sp.csr_matrix:
    """``(W + Wᵀ)/2`` of a CSR matrix in SciPy's canonical format, as SciPy's operators compute ``(W + W.T) / 2`` (the
    same entries, values and storage order bit for bit: a sum that is exactly zero dropped, halving exact), through
    :mod:`gaussqp.linalg.csr` instead of the operators' checks and conversions (a quadruped's 96 unknowns: 0.20 ms
    against 0.33 ms).

    Parameters
    ----------
    W : (N, N) scipy.sparse.csr_matrix, canonical (sorted indices, no repeated entry)

    Returns
    -------
    scipy.sparse.csr_matrix
        Canonical, symmetric in pattern and, bit for bit, in value (``a + b == b + a`` in floating point).
    """
    both = plus(W, transpose(W))
    return csr_like(both, both.data * 0.5)


def _upper_triangle_csc(Ws: sp.csr_matrix, top: float) -> sp.csc_matrix:
    """``scipy.sparse.triu(Ws / top, format="csc")`` of a matrix symmetric in pattern and value (:func:`_symmetric_part`,
    canonical: sorted indices, no repeated entry): column j of the upper triangle holds the entries ``(i, j)``,
    ``i <= j``, which are row j's entries left of the diagonal in CSR, in the same increasing order. Read off the
    CSR arrays, without the COO round trip (0.16 ms against 0.51 ms on 96 unknowns).

    Parameters
    ----------
    Ws : (N, N) scipy.sparse.csr_matrix, symmetric, canonical
    top : float
        the divisor of every entry (Clarabel's data in O(1) units)

    Returns
    -------
    scipy.sparse.csc_matrix
    """
    N = Ws.shape[0]
    rows, cols = csr_entries(Ws)
    keep = cols <= rows
    indptr = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=N), out=indptr[1:])
    # times the reciprocal, as SciPy divides a sparse matrix by a scalar (not the division: another rounding)
    return sp.csc_matrix((Ws.data[keep] * (1.0 / top), cols[keep], indptr), shape=(N, N))


__all__ = ["convex_start"]

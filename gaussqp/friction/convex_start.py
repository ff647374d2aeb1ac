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
        ``r`` (m·d,), in the cones up to Clarabel's tolerance (the Newton method projects its starts).

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
    Ws = sp.csr_matrix(W, dtype=float) if sp.issparse(W) else sp.csr_matrix(np.asarray(W, dtype=float))
    Ws = (Ws + Ws.T) / 2
    top = float(abs(Ws).max()) if Ws.nnz else 0.0
    if top == 0.0:
        return None
    scale = qn / top  # r = scale · x
    P = sp.triu(Ws / top, format="csc")
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


__all__ = ["convex_start"]

"""The multiplier set Λ(a) of the all-sticking problem at a fixed acceleration, and its conic Farkas vectors.

docs/DESIGN.md §3.2; sticking paper §2-§4, (14)(43)(60)(65). Notation: ``E a + e = 0`` collects
the bilateral normal rows and the tangent rows of the sticking contacts, ``G a + g >= 0`` the
unilateral normal rows (``ContactProblem.equalities / inequalities``); ``λ_eq``, ``λ_in`` their
multipliers; ``J = [E; G]``, ``b = [e; g]``.

Two exact reformulations are used:

*One stage (the solver decides which contacts are active).* For any ``(a, λ)`` with
stationarity ``M a + F = Jᵀλ``, primal feasibility and ``λ_in >= 0``,

.. math:: a^T M a + F^T a + b^T\\lambda = \\lambda^T (J a + b) \\ge 0

(the duality gap of the Gauss QP F1: tutorial (5)(15), sticking (9)(43)). It vanishes exactly
at the KKT points of F1. So the all-sticking problem (65) has a solution iff

.. math:: \\min\\; a^T M a + F^T a + b^T\\lambda \\quad\\text{s.t. stationarity, feasibility, }
          \\lambda_{in} \\ge 0,\\; (\\lambda_{n,i}, \\lambda_{t,i}) \\in \\mathcal{C}_i

is 0: a convex SOCP (disks, F4) or QP (polygons, F5) valid for singular ``M`` and redundant rows.

*Fixed acceleration (the multiplier set).* F1's KKT pairs are (primal optimal set) × (dual
optimal set), so for any optimal ``a*`` the multipliers of the sticking mode are
``Λ(a*) = {λ : Jᵀλ = M a* + F, λ_in >= 0, λ_in,i = 0 where G_i a* + g_i > 0} ∩ cones``.
It depends on ``a*`` only through the active set, which needs a tolerance (reported). On Λ
we compute the robustness margin, the contacts forced onto their cone boundary, the smallest
friction coefficient ``μ_min`` (sticking Prop. 11) and, when Λ ∩ cones is empty, a conic
Farkas vector ``y`` (``(J y)_i ∈ C_i*``, ``(M a* + F)ᵀ y = -1``) that proves it.

Bilateral sticking contacts have the cone ``‖λ_t‖ <= μ |λ_n|`` (sticking (14b)), a union of two
convex cones; the sign of ``λ_n`` is enumerated (:data:`gaussqp.settings.BILATERAL_STICKING_MAX`
contacts at most). The cones and the programs' layout are in :mod:`gaussqp.friction.cones`.

Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy is imported inside the functions that use it,
not when this module is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from ..model.problem import ContactProblem
from ..model.scales import data_scales
from ..settings import (
    ACTIVE_RTOL,
    CONIC_FARKAS_ROW_SPACE_RTOL,
    CONIC_FARKAS_RTOL,
    CONIC_FARKAS_VALUE_MAX,
    NEGLIGIBLE_FORCE_RTOL,
    SCALE_FLOOR,
)
from .cones import DISK, ConeModel, Layout, NormalSelection


def detaching(problem: ContactProblem, a: np.ndarray, active_tol: float, lam_n: np.ndarray | None = None) -> np.ndarray:
    """Unilateral contacts (input indices) with ``n_i a + b_i > active_tol``: they detach (a_n > 0).

    With the multipliers ``lam_n`` of the same solution, a row whose multiplier is not negligible
    (``λ̂_i = λ_i ‖(J S)_i‖∞ / force > 1e-6``, the data's units of :mod:`gaussqp.model.scales`, not
    ``max(1, |λ|)``, which in units of 1e-6 called every force negligible) counts as active whatever its
    slack: a slack that small next to a nonzero force is solver round-off, not a detachment."""
    G, g = problem.inequalities
    if not len(problem.unilateral):
        return np.zeros(0, dtype=int)
    slack = np.asarray(G @ a).ravel() + g
    off = slack > active_tol
    if lam_n is not None:
        sc = data_scales(problem)
        lu = np.asarray(lam_n, dtype=float)[problem.unilateral] * sc.normal_weight[problem.unilateral] / sc.force
        off &= lu <= NEGLIGIBLE_FORCE_RTOL
    return problem.unilateral[off]


def active_tolerance(problem: ContactProblem, a: np.ndarray, tol: float = ACTIVE_RTOL) -> np.ndarray:
    """The slack under which each unilateral row (``problem.unilateral`` order) counts as active at ``a`` in the
    sticking verdict and the two-stage route: ``tol ·`` that row's data scale (``|n_i| S accel + |b_i|``,
    :func:`gaussqp.model.scales.data_scales`), never the magnitude of the ``a`` being judged (with
    ``max(1, |a|)`` an answer of size 1e15 made every slack below 1e8 "active"). ``a`` is kept in the signature
    for the callers; the tolerance does not depend on it."""
    return tol * data_scales(problem).inequality_row


def multiplier_set_constraints(problem: ContactProblem, a: np.ndarray, active_tol: float, lam_n=None):
    """Variables (λ_eq, λ_in) and the constraints of Λ(a) without the cones."""
    import cvxpy as cp

    p = problem
    E, _ = p.equalities
    G, _ = p.inequalities
    L = Layout(p)
    le = cp.Variable(L.pe, name="lambda_eq")
    li = cp.Variable(L.pg, name="lambda_in")
    r = np.asarray(p.M @ a).ravel() + p.F
    expr = 0
    if L.pe:
        expr = expr + E.T @ le
    if L.pg:
        expr = expr + G.T @ li
    cons = [expr == r] if (L.pe or L.pg) else []
    if L.pg:
        cons.append(li >= 0)
        off = [L.pos_u[int(i)] for i in detaching(p, a, active_tol, lam_n)]
        if off:
            cons.append(li[off] == 0)
    return L, le, li, cons, r


@dataclass
class ConicFarkas:
    y: np.ndarray
    signs: dict
    violation: float
    value: float


def conic_farkas(
    problem: ContactProblem, a: np.ndarray, active_tol: float, model: ConeModel, signs: dict[int, int], solve
) -> ConicFarkas | None:
    """A vector y proving Λ(a) ∩ cones = ∅: ``(J y)_i ∈ C_i*`` for every multiplier block, ``rᵀy = -1``.

    For λ in the set, ``rᵀy = λᵀ J y = Σ_i ⟨λ_i, (J y)_i⟩ >= 0``, a contradiction. Dual cones: free
    rows (bilateral, frictionless) need ``(J y)_j = 0``; active frictionless unilateral rows
    ``(J y)_j >= 0``; inactive rows nothing; a sticking contact with disk ``‖λ_t‖ <= μ s λ_n`` needs
    ``μ ‖T_i y‖ <= s n_i y``, with polygon ``{C λ_t <= r μ s λ_n}`` needs
    ``(s n_i y, T_i y) = (r μ Σν, -Cᵀν)``, ``ν >= 0``. ``solve(prob)`` runs the backend.
    Returns the verified vector or None.
    """
    import cvxpy as cp

    p = problem
    E, _ = p.equalities
    G, _ = p.inequalities
    L = Layout(p)
    r = np.asarray(p.M @ a).ravel() + p.F
    y = cp.Variable(p.n, name="y")
    Ey = E @ y if L.pe else None
    Gy = G @ y if L.pg else None
    det = set(int(i) for i in detaching(p, a, active_tol))
    ix = _dual_cone_index(p, L, det, signs)
    # the program normalized by ‖r‖∞ (y ~ 1, where the backend's absolute tolerances mean something); the proof is
    # homogeneous, y / ‖r‖∞ satisfies rᵀy = -1 with the same dual-cone conditions
    rn = float(np.abs(r).max(initial=0.0))
    if rn == 0.0:
        return None  # rᵀy = -1 has no solution
    cons = [(r / rn) @ y == -1]
    if ix.zero.size:
        cons.append(Ey[ix.zero] == 0)
    if ix.nonneg.size:
        cons.append(Gy[ix.nonneg] >= 0)
    nu = None
    nc = ix.cone.size
    if nc:
        u = ix.normals(Ey, Gy)
        V = cp.reshape(Ey[ix.tangent], (L.d1, nc), order="F")  # column k: T_i y of the k-th cone contact
        if model.second_order(p.dimension):
            cons.append(cp.SOC(u, V @ sp.diags(ix.mu)))  # μ_i ‖T_i y‖ <= s_i n_i y
        else:
            C, rr = model.polygon(p.dimension)
            nu = cp.Variable((C.shape[0], nc), nonneg=True)
            cons += [u == rr * cp.multiply(ix.mu, cp.sum(nu, axis=0)), V == -C.T @ nu]
    prob = cp.Problem(cp.Minimize(cp.norm(y, 1)), cons)
    status = solve(prob)
    if status != "solved" or y.value is None:
        return None
    yv = row_space_part(E, G, np.asarray(y.value).ravel() / rn)  # a ker J part would only widen the allowance
    viol = _dual_cone_violation(
        ix,
        np.asarray(E @ yv).ravel() if L.pe else np.zeros(0),
        np.asarray(G @ yv).ravel() if L.pg else np.zeros(0),
        L.d1,
        model,
        p.dimension,
        None if nu is None else np.asarray(nu.value) / rn,
    )
    value = float(r @ yv)
    scale = max(SCALE_FLOOR, float(np.abs(yv).max()) * max(_abs_max(E), _abs_max(G)))
    if value < CONIC_FARKAS_VALUE_MAX and viol <= CONIC_FARKAS_RTOL * scale:
        return ConicFarkas(y=yv, signs=dict(signs), violation=viol, value=value)
    return None


def farkas_lower_end(
    p: ContactProblem,
    det: set | frozenset,
    signs: dict[int, int],
    r: np.ndarray,
    y: np.ndarray | None,
    theta: float,
    best: float,
) -> float | None:
    """A lower end of μ_min proven by a conic Farkas vector of Λ(a) ∩ cones(θ), verified in NumPy: the largest
    ``θ_c`` in ``[theta, best)`` at which ``y`` proves the set empty, or None when it proves nothing.

    For a common μ = θ the set ``{λ : Jᵀλ = r, λ ∈ C(θ)}`` (``r = M a + F``, ``C(θ)`` the cones of sticking (14b),
    λ_in >= 0, λ = 0 on the detaching rows ``det``) is empty when some ``y`` has ``rᵀy < 0`` and ``J y ∈ C(θ)*``:
    for λ in it, ``rᵀy = λᵀ J y >= 0``. The dual cone is that of :func:`conic_farkas`
    with μ_i = θ: ``(J y)_j = 0`` on free rows, ``>= 0`` on active frictionless unilateral rows, and
    ``θ ‖T_i y‖ <= s_i n_i y`` on the non-detaching sticking contacts. The dual cone grows as θ falls, so ``y`` proves
    emptiness for every θ up to ``θ_y = min_i s_i n_i y / ‖T_i y‖``: ``θ_c = θ_y`` when ``θ_y < best``
    (``best`` is an achieved ratio, a μ that works: ``y`` cannot prove anything at it), ``theta`` when ``θ_y >= best``,
    None when ``θ_y < theta`` (θ_y over the contacts whose ``T_i y`` is above the round-off allowance). The set being
    monotone in μ, ``μ_min > θ_c`` (sticking Prop. 11).

    ``y`` is first reduced to its part in the row space of J (:func:`row_space_part`), then normalized to ``rᵀy = −1`` (recomputed: below :data:`CONIC_FARKAS_VALUE_MAX`), ``J y`` is recomputed in
    NumPy and the dual-cone conditions at ``θ_c`` must hold to :data:`CONIC_FARKAS_RTOL` of the product's scale
    ``max|y| · max|J|`` (round-off of ``J y``), the acceptance rule of
    :func:`conic_farkas`. ``y``: e.g. the stationarity rows' dual of a ratio step
    :meth:`~gaussqp.friction.multiplier_conic.MultiplierSetConic.ratio_step` at ``θ < μ_min`` (optimum ``t > 0``), or
    Clarabel's certificate of an infeasible feasibility program
    (:attr:`~gaussqp.friction.multiplier_conic.ConicAnswer.y`); ``r = M a + F`` at the verdict's acceleration.

    Notes
    -----
    Sticking paper Prop. 11 (μ_min over Λ(a)); the alternative is the conic Farkas lemma (Ben-Tal & Nemirovski,
    Prop. 1.4.2) for the closed cone ``C(θ)``.
    """
    if y is None or not (0.0 < theta < best) or not np.isfinite(best):
        return None
    y = np.asarray(y, dtype=float).ravel()
    r = np.asarray(r, dtype=float).ravel()
    if y.shape != (p.n,) or not np.all(np.isfinite(y)):
        return None
    E, _ = p.equalities
    G, _ = p.inequalities
    y = row_space_part(E, G, y)  # a ker J part would only widen the allowance below
    value = float(r @ y)
    if not value < 0.0:
        return None
    y = y / -value
    if not float(r @ y) < CONIC_FARKAS_VALUE_MAX:
        return None
    L = Layout(p)
    Ey = np.asarray(E @ y).ravel() if L.pe else np.zeros(0)
    Gy = np.asarray(G @ y).ravel() if L.pg else np.zeros(0)
    ix = _dual_cone_index(p, L, set(int(i) for i in det), signs)
    if not ix.cone.size:
        return None  # no cone: y would prove Λ(a) empty, which the caller's point at ``best`` contradicts
    u = np.asarray(ix.normals(Ey, Gy)).ravel()
    nt = np.linalg.norm(Ey[ix.tangent].reshape(ix.cone.size, L.d1), axis=1)
    scale = max(SCALE_FLOOR, float(np.abs(y).max()) * max(_abs_max(E), _abs_max(G)))
    # θ_y from the contacts whose T_i y is above the round-off allowance (on the others the condition is judged
    # within that allowance below, at whatever θ is claimed)
    pos = nt > CONIC_FARKAS_RTOL * scale
    theta_y = float(np.min(u[pos] / nt[pos])) if pos.any() else float("inf")
    if theta_y < theta:
        return None  # y proves emptiness up to θ_y only, below the θ asked: never claimed beyond what it proves
    # at ``best`` a point is known, so a θ_y at or above it is round-off and ``theta`` (≤ θ_y) is claimed
    at = theta_y if theta_y < best else theta
    # the free and the nonnegative rows as conic_farkas checks them; the disks' dual cone (in 2D the interval's,
    # the same formula) at the common θ
    viol = max(
        _dual_cone_violation(replace(ix, cone=ix.cone[:0]), Ey, Gy, L.d1, DISK, p.dimension, None),
        float((at * nt - u).max()),
    )
    return at if viol <= CONIC_FARKAS_RTOL * scale else None


def row_space_part(E, G, y: np.ndarray) -> np.ndarray:
    """``y`` without its component in ``ker J`` (``J = [E; G]``): ``Jᵀw`` with ``w`` the least-squares solution of
    ``Jᵀw = y``. A Farkas vector is judged on ``J y`` and ``rᵀy``, and ``J z = 0``, ``rᵀz = 0`` (r = Jᵀλ for any λ
    of a nonempty set) for ``z`` in ``ker J``: such a component proves nothing, but it would inflate the round-off
    allowance ``max|y| · max|J|`` that the dual-cone conditions are judged at, without bound. Judging the
    row-space part makes that allowance the certificate's own."""
    blocks = [B for B in (E, G) if B.shape[0]]
    if not blocks:
        return np.zeros_like(y)
    if any(sp.issparse(B) for B in blocks):
        import scipy.sparse.linalg as spla

        J = sp.vstack([sp.csr_matrix(B) for B in blocks], format="csr")
        w = spla.lsqr(
            J.T, y, atol=CONIC_FARKAS_ROW_SPACE_RTOL, btol=CONIC_FARKAS_ROW_SPACE_RTOL, iter_lim=10 * J.shape[0] + 100
        )[0]
    else:
        J = np.vstack([np.asarray(B, dtype=float) for B in blocks])
        w = np.linalg.lstsq(J.T, y, rcond=None)[0]
    return np.asarray(J.T @ w).ravel()


def _abs_max(A) -> float:
    return float(abs(A).max()) if A.shape[0] and A.shape[1] else 0.0


@dataclass(frozen=True)
class DualConeIndex:
    """Where the dual-cone conditions of :func:`conic_farkas` sit in ``(E y, G y)``: rows that must
    vanish (frictionless bilateral normals: free multipliers), rows that must be >= 0 (active
    frictionless unilateral normals), and the non-detaching sticking contacts, with ``u = s_i n_i y``,
    their tangent rows (contact-major) and μ_i. Inactive rows carry no condition."""

    zero: np.ndarray
    nonneg: np.ndarray
    cone: np.ndarray
    normals: NormalSelection  # (E y, G y) -> (s_i n_i y) over the cone contacts
    tangent: np.ndarray
    mu: np.ndarray


def _dual_cone_index(p: ContactProblem, L: Layout, det: set, signs: dict) -> DualConeIndex:
    stick = set(L.sticking)
    zero = [L.pos_b[int(i)] for i in p.bilateral if int(i) not in stick]
    nonneg = [L.pos_u[int(i)] for i in p.unilateral if int(i) not in det and int(i) not in stick]
    cone = [i for i in L.sticking if i not in det]
    tangent = np.array([L.mb + L.pos_s[i] * L.d1 + j for i in cone for j in range(L.d1)], dtype=int)
    return DualConeIndex(
        zero=np.array(zero, dtype=int),
        nonneg=np.array(nonneg, dtype=int),
        cone=np.array(cone, dtype=int),
        normals=L.normal_selection(cone, signs),
        tangent=tangent,
        mu=np.array([float(p.friction[i]) for i in cone]),
    )


def _dual_cone_violation(
    ix: DualConeIndex, Ey: np.ndarray, Gy: np.ndarray, d1: int, model: ConeModel, dimension: int, nu: np.ndarray | None
) -> float:
    """Largest violation of the dual-cone conditions of :func:`conic_farkas`, recomputed in NumPy."""
    worst = [0.0]
    if ix.zero.size:
        worst.append(float(np.abs(Ey[ix.zero]).max()))
    if ix.nonneg.size:
        worst.append(float(-Gy[ix.nonneg].min()))
    if ix.cone.size:
        u = np.asarray(ix.normals(Ey, Gy)).ravel()
        V = Ey[ix.tangent].reshape(ix.cone.size, d1)  # row k: T_i y of the k-th cone contact
        if model.second_order(dimension):
            worst.append(float((ix.mu * np.linalg.norm(V, axis=1) - u).max()))
        else:
            C, rr = model.polygon(dimension)
            nu = np.maximum(nu, 0.0)
            worst.append(float(np.abs(u - rr * ix.mu * nu.sum(axis=0)).max()))
            worst.append(float(np.abs(V.T + C.T @ nu).max()))
    return max(worst)

"""Sliding Coulomb friction (F6): reduced matrices, the LCPs (41)/(50)/(58), the fixed point of
Prop. 9/11 and the P-matrix test (the exhaustive piece enumeration is in :mod:`.enumeration`).

Notation (docs/DESIGN.md §1). A sliding contact i carries ``λ_t,i = -μ_i |λ_n,i| s_i`` with ``s_i``
the unit slip direction, so its generalized force is ``(n_iᵀ - μ_i σ_i t_i) λ_n,i`` with the
*friction column* ``t_i = T_iᵀ s_i`` and ``σ_i = sgn(λ_n,i)`` (tutorial (35); ``t_i`` is the
paper's ``H_t,i ξ_i``). With M ≻ 0, frictionless bilateral rows are eliminated through the
constrained inverse ``M_c⁻¹ = M⁻¹(I - J_0ᵀ A_00⁺ J_0 M⁻¹)``: every Delassus-type block below is
then the Schur complement of tutorial (44)-(45) (Prop. 11) and of (64) (Prop. 14), so one
reduction serves the all-frictional and the mixed frictional/frictionless cases.

Blocks (b = sliding bilateral contacts, u = unilateral contacts, frictionless ones with μ = 0):

- ``A_nb = J_b M_c⁻¹ J_bᵀ``, ``A_tb = J_b M_c⁻¹ T_b`` (tutorial (37)), ``A_nu``, ``A_tu`` ((49)),
  ``A_nbnu = J_b M_c⁻¹ J_uᵀ``, ``A_nbtu = J_b M_c⁻¹ T_u``, ``A_nunb``, ``A_nutb`` (footnote 12);
- ``w1 = J_b a_0 + b_b``, ``w2 = J_u a_0 + b_u`` with ``a_0`` the acceleration under the
  frictionless bilateral rows alone (the paper's w₁, w₂ of (57)).

The bilateral sliding equation (37) is ``A_nb λ_b - A_tb[μ_b]|λ_b| + B λ_u + w1 = 0`` with
``B = A_nbnu - A_nbtu[μ_u]``; the unilateral complementarity is
``0 <= λ_u ⟂ A_nunb λ_b - A_nutb[μ_b]|λ_b| + D λ_u + w2 >= 0`` with ``D = A_nu - A_tu[μ_u]``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from ..errors import NotApplicableError
from ..linalg.dense import as_dense, jacobi_scaling, scaled_solve
from ..mechanics.delassus import eliminate_bilateral
from ..model.memo import per_problem
from ..model.problem import ContactProblem
from ..settings import (
    FIXED_POINT_DIVERGENCE,
    FIXED_POINT_ITER_MAX,
    FIXED_POINT_RTOL,
    P_MATRIX_EXACT_MAX,
    P_MINOR_RTOL,
    SCALE_FLOOR,
)


def friction_columns(problem: ContactProblem, idx) -> np.ndarray:
    """(n, k) matrix of friction columns ``t_i = T_iᵀ s_i`` of the contacts ``idx`` (0 when not sliding)."""
    d1 = problem.dimension - 1
    Jt = as_dense(problem.J_t)
    cols = np.zeros((problem.n, len(idx)))
    for j, i in enumerate(idx):
        if problem.modes[i] == "sliding":
            cols[:, j] = Jt[i * d1 : (i + 1) * d1].T @ problem.slip[i]
    return cols


@dataclass(frozen=True)
class SlidingReduction:
    """The reduced matrices of tutorial §3 for a problem with sliding (and frictionless) contacts."""

    B: np.ndarray  # problem indices of the sliding bilateral contacts
    U: np.ndarray  # problem indices of the unilateral contacts (frictionless or sliding)
    Z: np.ndarray  # problem indices of the frictionless bilateral contacts (eliminated)
    Minv: np.ndarray
    Mc_inv: np.ndarray
    a0: np.ndarray
    J_b: np.ndarray
    T_b: np.ndarray
    J_u: np.ndarray
    T_u: np.ndarray
    mu_b: np.ndarray
    mu_u: np.ndarray
    A_nb: np.ndarray
    A_tb: np.ndarray
    A_nbnu: np.ndarray
    A_nbtu: np.ndarray
    A_nunb: np.ndarray
    A_nutb: np.ndarray
    A_nu: np.ndarray
    A_tu: np.ndarray
    w1: np.ndarray
    w2: np.ndarray
    J_0: np.ndarray
    A_00_pinv: np.ndarray
    e_0: np.ndarray

    def recover(self, problem: ContactProblem, lam_b: np.ndarray, lam_u: np.ndarray):
        """(a, λ_n, λ_t) in the original variables from the reduced unknowns (tutorial (39), (44))."""
        absb = np.abs(lam_b)
        f = self.J_b.T @ lam_b - self.T_b @ (self.mu_b * absb) + self.J_u.T @ lam_u - self.T_u @ (self.mu_u * lam_u)
        a = self.Mc_inv @ f + self.a0
        lam_n = np.zeros(problem.m)
        lam_n[self.B] = lam_b
        lam_n[self.U] = lam_u
        if self.Z.size:
            r = self.Minv @ (f - problem.F)
            lam_n[self.Z] = -self.A_00_pinv @ (self.J_0 @ r + self.e_0)
        return a, lam_n, sliding_tangent(problem, lam_n)


def sliding_tangent(problem: ContactProblem, lam_n: np.ndarray) -> np.ndarray:
    """λ_t (m, d-1) of the sliding law ``λ_t,i = -μ_i |λ_n,i| s_i`` (zero rows elsewhere)."""
    lam_t = np.zeros((problem.m, problem.dimension - 1))
    for i in problem.sliding:
        lam_t[i] = -problem.friction[i] * abs(lam_n[i]) * problem.slip[i]
    return lam_t


@per_problem
def reduce(problem: ContactProblem) -> SlidingReduction:
    """The reduction of tutorial §3 (M ≻ 0; no sticking contacts), computed once per problem (its arrays read-only):
    the route (F6), the P-matrix certificate and the friction bounds (C7) share it."""
    if not problem.mass_factor.definite:
        raise NotApplicableError(
            "the sliding reduction (tutorial §3) needs M ≻ 0; "
            "use formulation 'sliding_enumeration', which works with singular M"
        )
    if len(problem.sticking):
        raise NotApplicableError(
            "the sliding reduction has no sticking contacts; "
            "use 'sliding_enumeration' (the stick/slip problem, sticking (71))"
        )
    n = problem.n
    modes = problem.modes
    B = np.array([i for i in problem.bilateral if modes[i] == "sliding"], dtype=int)
    Z = np.array([i for i in problem.bilateral if modes[i] != "sliding"], dtype=int)
    U = np.asarray(problem.unilateral, dtype=int)
    Jn = as_dense(problem.J_n).reshape(problem.m, n)
    b = problem.normal_drift
    J0, e0 = Jn[Z], b[Z]
    el = eliminate_bilateral(problem, J0, e0)  # the frictionless bilateral rows (one elimination for all callers)
    Minv, Mc, a0, A00p = el.Minv, el.Mc_inv, el.a_free, el.A_pinv
    Jb, Ju = Jn[B], Jn[U]
    Tb, Tu = friction_columns(problem, B), friction_columns(problem, U)
    mu = problem.friction
    mu_b = np.array([mu[i] for i in B])
    mu_u = np.array([mu[i] if modes[i] == "sliding" else 0.0 for i in U])
    red = SlidingReduction(
        B=B,
        U=U,
        Z=Z,
        Minv=Minv,
        Mc_inv=Mc,
        a0=a0,
        J_b=Jb,
        T_b=Tb,
        J_u=Ju,
        T_u=Tu,
        mu_b=mu_b,
        mu_u=mu_u,
        A_nb=Jb @ Mc @ Jb.T,
        A_tb=Jb @ Mc @ Tb,
        A_nbnu=Jb @ Mc @ Ju.T,
        A_nbtu=Jb @ Mc @ Tu,
        A_nunb=Ju @ Mc @ Jb.T,
        A_nutb=Ju @ Mc @ Tb,
        A_nu=Ju @ Mc @ Ju.T,
        A_tu=Ju @ Mc @ Tu,
        w1=Jb @ a0 + b[B],
        w2=Ju @ a0 + b[U],
        J_0=J0,
        A_00_pinv=A00p,
        e_0=e0,
    )
    for value in vars(red).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return red


# ---------------------------------------------------------------------------- the sliding LCP (58)
@dataclass(frozen=True)
class ReducedSlidingLCP:
    """``0 <= x ⟂ M x + q >= 0`` with ``x = (λ⁻, λ_u)`` (tutorial (58)); ``form`` names the case."""

    M: np.ndarray
    q: np.ndarray
    form: str  # "hLCP (41)", "LCP (50)", "LCP (58)"
    mb: int
    Ainv_Abar: np.ndarray
    Ainv_B: np.ndarray
    z1: np.ndarray

    def multipliers(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(λ_b, λ_u) from an LCP solution: ``λ⁺ = A⁻¹Āλ⁻ - A⁻¹Bλ_u + z1``, ``λ_b = λ⁺ - λ⁻``."""
        lm, lu = x[: self.mb], x[self.mb :]
        lp = self.Ainv_Abar @ lm - self.Ainv_B @ lu + self.z1
        return np.maximum(lp, 0.0) - lm, lu


def sliding_lcp(red: SlidingReduction, mu_b=None, mu_u=None) -> ReducedSlidingLCP:
    """Build the LCP (58) (tutorial §3.4.1); with no unilateral contact it is the hLCP (41) written as an
    LCP in λ⁻, with no sliding bilateral contact it is the LCP (50) (with frictionless bilateral rows
    eliminated, the matrix of Prop. 14). ``mu_b``/``mu_u`` override the friction coefficients.

    Note: the second line of the printed (57) has ``-(A_nunb - A_nutb[μ_bξ_b])λ⁻``; substituting
    ``λ_b = λ⁺ - λ⁻``, ``|λ_b| = λ⁺ + λ⁻`` gives ``-(A_nunb + A_nutb[μ_bξ_b])λ⁻``, which is what (58)
    uses (``C̄``) and what we build.
    """
    mu_b = red.mu_b if mu_b is None else np.asarray(mu_b, dtype=float)
    mu_u = red.mu_u if mu_u is None else np.asarray(mu_u, dtype=float)
    mb, mu = red.B.size, red.U.size
    A = red.A_nb - red.A_tb * mu_b[None, :]
    Abar = red.A_nb + red.A_tb * mu_b[None, :]
    Bm = red.A_nbnu - red.A_nbtu * mu_u[None, :]
    C = red.A_nunb - red.A_nutb * mu_b[None, :]
    Cbar = red.A_nunb + red.A_nutb * mu_b[None, :]
    D = red.A_nu - red.A_tu * mu_u[None, :]
    if mb:
        # singular or not on the equilibrated matrix D A D (D from the data: the kinetic norms of the rows,
        # diag(A_nb)), never on the raw one, whose condition number carries the rows' and masses' scales
        d = jacobi_scaling(np.diag(red.A_nb))
        sol, _ = scaled_solve(A, np.column_stack([Abar, Bm, red.w1]), d, d)
        if sol is None:
            raise NotApplicableError(
                "A_nb - A_tb[μ_b ξ_b] is singular: the LCP (58) does not exist here (use 'sliding_enumeration')"
            )
        AiAbar, AiB, z1 = sol[:, :mb], (sol[:, mb : mb + mu] if mu else np.zeros((mb, 0))), -sol[:, -1]
    else:
        AiAbar, AiB, z1 = np.zeros((0, 0)), np.zeros((0, mu)), np.zeros(0)
    M = np.block([[AiAbar, -AiB], [C @ AiAbar - Cbar, D - C @ AiB]]) if mb and mu else (AiAbar if mb else D)
    q = np.concatenate([z1, red.w2 + C @ z1]) if mb else red.w2.copy()
    form = "LCP (58)" if mb and mu else ("hLCP (41)" if mb else "LCP (50)")
    return ReducedSlidingLCP(M=M, q=q, form=form, mb=mb, Ainv_Abar=AiAbar, Ainv_B=AiB, z1=z1)


def frictionless_sliding_lcp_matrix(red: SlidingReduction) -> np.ndarray:
    """``M⁰_ub``: the matrix of (58) with every friction coefficient 0 (tutorial Remark 3, (59))."""
    return sliding_lcp(red, np.zeros(red.B.size), np.zeros(red.U.size)).M


# ---------------------------------------------------------------------------- P-matrices
@dataclass(frozen=True)
class PMatrixTest:
    """Exact P-matrix test by principal minors: ``holds`` None above :data:`P_MATRIX_EXACT_MAX`."""

    holds: bool | None
    min_minor: float
    witness: tuple[int, ...] | None
    size: int
    minors_checked: int


def p_matrix_test(A: np.ndarray, max_size: int = P_MATRIX_EXACT_MAX, rtol: float = P_MINOR_RTOL) -> PMatrixTest:
    """Is every principal minor of ``A`` positive? (Cottle–Pang–Stone Thm 3.3.7: LCP(q, A) has a unique
    solution for every q iff A is a P-matrix.) Exact enumeration of the 2^k - 1 minors, k <= ``max_size``;
    a minor counts as positive when it exceeds ``rtol`` times the product of the row norms (Hadamard
    bound) of its submatrix. ``min_minor`` is the smallest of these relative minors."""
    A = np.asarray(A, dtype=float)
    k = A.shape[0]
    if k == 0:
        return PMatrixTest(True, float("inf"), None, 0, 0)
    if k > max_size:
        return PMatrixTest(None, float("nan"), None, k, 0)
    worst, witness, count = float("inf"), None, 0
    for r in range(1, k + 1):
        subsets = np.array(list(itertools.combinations(range(k), r)), dtype=int)
        S = A[subsets[:, :, None], subsets[:, None, :]]
        dets = np.linalg.det(S)
        hb = np.prod(np.linalg.norm(S, axis=2), axis=1)
        rel = dets / np.maximum(hb, SCALE_FLOOR)
        count += len(subsets)
        j = int(np.argmin(rel))
        if rel[j] < worst:
            worst, witness = float(rel[j]), tuple(int(x) for x in subsets[j])
    return PMatrixTest(worst > rtol, worst, witness if worst <= rtol else None, k, count)


# ---------------------------------------------------------------------------- fixed point
@dataclass
class FixedPointResult:
    lam_b: np.ndarray | None
    converged: bool
    iterations: int
    contraction: float  # ‖U⁻¹ A_nb⁻¹ A_tb [μ] U‖₂, U = I or the Jacobi scaling of A_nb (< 1: Banach, tutorial (40))
    error_bound: float  # a posteriori ‖λ_k - λ*‖₂ <= max(u) L/(1-L) ‖U⁻¹(λ_k - λ_{k-1})‖₂ (inf when L >= 1)
    history: list = field(default_factory=list)


def fixed_point(
    red: SlidingReduction, tol: float = FIXED_POINT_RTOL, max_iter: int = FIXED_POINT_ITER_MAX
) -> FixedPointResult:
    """Iterate ``λ ← A_nb⁻¹(A_tb[μ]|λ| - w1)`` (tutorial Prop. 9 proof, (39); Prop. 11 with frictionless
    bilateral rows eliminated). Bilateral problems only. ``contraction`` L is the Lipschitz constant of
    the map in the 2-norm of ``U⁻¹ λ``, the smaller of raw units (U = I) and the equilibrated ones
    (U = diag(A_nb)^(-1/2), invariant under a scaling of any row): L < 1 certifies existence and uniqueness
    (Banach), and is implied by (38) (which bounds the raw L)."""
    if red.U.size:
        raise NotApplicableError("the fixed point of Prop. 9/11 is for bilateral contacts only")
    A = red.A_nb
    if red.B.size == 0:
        return FixedPointResult(np.zeros(0), True, 0, 0.0, 0.0)
    d = jacobi_scaling(np.diag(A))  # the decision on D A_nb D (unit diagonal), not on the raw A_nb
    sol, _ = scaled_solve(A, np.column_stack([red.A_tb * red.mu_b[None, :], red.w1]), d, d)
    if sol is None:
        raise NotApplicableError("A_nb is singular: Prop. 9/11 needs A_nb ≻ 0 (independent bilateral rows)")
    K = sol[:, :-1]
    c = -sol[:, -1]
    # the map in the units λ̃ = λ / u is λ̃ ← (U⁻¹ K U)|λ̃| + U⁻¹ c; a contraction in any such units proves
    # existence and uniqueness (Banach). Raw units (u = 1, the ones (38) bounds) and the equilibrated ones
    # (u = d, λ̃ invariant under a scaling of any bilateral row): the smaller constant is kept, and the steps and the
    # a posteriori bound are measured in its units (a row scaled by 1e-2 no longer hides a contraction)
    L_raw = float(np.linalg.norm(K, 2))
    L_eq = float(np.linalg.norm(K * (d[None, :] / d[:, None]), 2))
    u = d if L_eq < L_raw else np.ones_like(d)
    L = min(L_raw, L_eq)
    lam = c.copy()
    # the stopping and divergence tests relative to the first iterate c (data: -A_nb⁻¹ w1) in those units, not to
    # max(1, ‖c‖∞): in units where c ~ 1e-6 the absolute floor stopped 7 digits early. c = 0 gives λ = 0 at once
    scale = float(np.abs(c / u).max(initial=0.0))
    hist = []
    for it in range(1, max_iter + 1):
        new = K @ np.abs(lam) + c
        step = float(np.linalg.norm((new - lam) / u))
        hist.append(step)
        lam = new
        if step <= tol * scale:
            bound = L / (1 - L) * step * float(u.max()) if L < 1 else float("inf")
            return FixedPointResult(lam, True, it, L, bound, hist)
        if not np.isfinite(step) or step > FIXED_POINT_DIVERGENCE * scale:
            break
    return FixedPointResult(None, False, len(hist), L, float("inf"), hist)

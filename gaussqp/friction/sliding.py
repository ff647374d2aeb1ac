"""Sliding Coulomb friction (F6): reduced matrices, the LCPs (41)/(50)/(58), the fixed point of
Prop. 9/11, the exhaustive piece enumeration and the P-matrix test.

Notation (FORMULATIONS §1). A sliding contact i carries ``λ_t,i = -μ_i |λ_n,i| s_i`` with ``s_i``
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
import weakref
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linprog

from ..linalg.polyhedral_cones import cone_is_trivial
from ..errors import UndecidedError
from ..errors import NotApplicableError, SolverError, TooLargeError
from ..linalg.dense import as_dense, matrix_rank, normalize_rows, null_space, solve_mass
from ..model.problem import ContactProblem
from ..results import Certificate

#: Largest number of enumerated contacts (sliding/sticking bilateral + unilateral): 2^12 pieces.
ENUMERATION_MAX = 12
#: Largest LCP matrix tested exactly by its 2^k - 1 principal minors.
P_MATRIX_EXACT_MAX = 16
#: Relative tolerance of the piece tests of the enumeration (signs, complementarity, cones).
PIECE_RTOL = 1e-9


def friction_columns(problem: ContactProblem, idx) -> np.ndarray:
    """(n, k) matrix of friction columns ``t_i = T_iᵀ s_i`` of the contacts ``idx`` (0 when not sliding)."""
    d1 = problem.dimension - 1
    Jt = as_dense(problem.J_t)
    cols = np.zeros((problem.n, len(idx)))
    for j, i in enumerate(idx):
        if problem.modes[i] == "sliding":
            cols[:, j] = Jt[i * d1:(i + 1) * d1].T @ problem.slip[i]
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
        f = (self.J_b.T @ lam_b - self.T_b @ (self.mu_b * absb)
             + self.J_u.T @ lam_u - self.T_u @ (self.mu_u * lam_u))
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


#: reductions already computed, per problem object (problems are immutable; the arrays are read-only)
_REDUCTIONS: "weakref.WeakKeyDictionary[ContactProblem, SlidingReduction]" = weakref.WeakKeyDictionary()


def reduce(problem: ContactProblem) -> SlidingReduction:
    """The reduction of tutorial §3 (M ≻ 0; no sticking contacts), computed once per problem: the route
    (F6), the P-matrix certificate and the friction bounds (C7) share it."""
    red = _REDUCTIONS.get(problem)
    if red is None:
        red = _REDUCTIONS[problem] = _reduce(problem)
    return red


def _reduce(problem: ContactProblem) -> SlidingReduction:
    if not problem.mass_factor.definite:
        raise NotApplicableError("the sliding reduction (tutorial §3) needs M ≻ 0; "
                                 "use formulation 'sliding_enumeration', which works with singular M")
    if len(problem.sticking):
        raise NotApplicableError("the sliding reduction has no sticking contacts; "
                                 "use 'sliding_enumeration' (the stick/slip problem, sticking (71))")
    n = problem.n
    modes = problem.modes
    B = np.array([i for i in problem.bilateral if modes[i] == "sliding"], dtype=int)
    Z = np.array([i for i in problem.bilateral if modes[i] != "sliding"], dtype=int)
    U = np.asarray(problem.unilateral, dtype=int)
    Jn = as_dense(problem.J_n).reshape(problem.m, n)
    b = problem.normal_drift
    Minv = solve_mass(problem.M, np.eye(n))
    Minv = 0.5 * (Minv + Minv.T)
    J0, e0 = Jn[Z], b[Z]
    if Z.size:
        A00 = J0 @ Minv @ J0.T
        A00p = np.linalg.pinv(0.5 * (A00 + A00.T), rcond=1e-12, hermitian=True)
        Mc = Minv - Minv @ J0.T @ A00p @ J0 @ Minv
        Mc = 0.5 * (Mc + Mc.T)
        a0 = -Mc @ problem.F - Minv @ J0.T @ A00p @ e0
    else:
        A00p = np.zeros((0, 0))
        Mc = Minv
        a0 = -Minv @ problem.F
    Jb, Ju = Jn[B], Jn[U]
    Tb, Tu = friction_columns(problem, B), friction_columns(problem, U)
    mu = problem.friction
    mu_b = np.array([mu[i] for i in B])
    mu_u = np.array([mu[i] if modes[i] == "sliding" else 0.0 for i in U])
    red = SlidingReduction(
        B=B, U=U, Z=Z, Minv=Minv, Mc_inv=Mc, a0=a0, J_b=Jb, T_b=Tb, J_u=Ju, T_u=Tu, mu_b=mu_b, mu_u=mu_u,
        A_nb=Jb @ Mc @ Jb.T, A_tb=Jb @ Mc @ Tb, A_nbnu=Jb @ Mc @ Ju.T, A_nbtu=Jb @ Mc @ Tu,
        A_nunb=Ju @ Mc @ Jb.T, A_nutb=Ju @ Mc @ Tb, A_nu=Ju @ Mc @ Ju.T, A_tu=Ju @ Mc @ Tu,
        w1=Jb @ a0 + b[B], w2=Ju @ a0 + b[U], J_0=J0, A_00_pinv=A00p, e_0=e0)
    for value in vars(red).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return red


# ---------------------------------------------------------------------------- the LCP (58)
@dataclass(frozen=True)
class LCP58:
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
        lm, lu = x[:self.mb], x[self.mb:]
        lp = self.Ainv_Abar @ lm - self.Ainv_B @ lu + self.z1
        return np.maximum(lp, 0.0) - lm, lu


def lcp58(red: SlidingReduction, mu_b=None, mu_u=None) -> LCP58:
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
        if np.linalg.cond(A) > 1e12:
            raise NotApplicableError("A_nb - A_tb[μ_b ξ_b] is singular: the LCP (58) does not exist here "
                                     "(use 'sliding_enumeration')")
        AiAbar = np.linalg.solve(A, Abar)
        AiB = np.linalg.solve(A, Bm) if mu else np.zeros((mb, 0))
        z1 = -np.linalg.solve(A, red.w1)
    else:
        AiAbar, AiB, z1 = np.zeros((0, 0)), np.zeros((0, mu)), np.zeros(0)
    M = np.block([[AiAbar, -AiB], [C @ AiAbar - Cbar, D - C @ AiB]]) if mb and mu else (
        AiAbar if mb else D)
    q = np.concatenate([z1, red.w2 + C @ z1]) if mb else red.w2.copy()
    form = "LCP (58)" if mb and mu else ("hLCP (41)" if mb else "LCP (50)")
    return LCP58(M=M, q=q, form=form, mb=mb, Ainv_Abar=AiAbar, Ainv_B=AiB, z1=z1)


def lcp58_frictionless(red: SlidingReduction) -> np.ndarray:
    """``M⁰_ub``: the matrix of (58) with every friction coefficient 0 (tutorial Remark 3, (59))."""
    return lcp58(red, np.zeros(red.B.size), np.zeros(red.U.size)).M


# ---------------------------------------------------------------------------- P-matrices
@dataclass(frozen=True)
class PMatrixTest:
    """Exact P-matrix test by principal minors: ``holds`` None above :data:`P_MATRIX_EXACT_MAX`."""

    holds: bool | None
    min_minor: float
    witness: tuple[int, ...] | None
    size: int
    minors_checked: int


def p_matrix_test(A: np.ndarray, max_size: int = P_MATRIX_EXACT_MAX, rtol: float = 1e-12) -> PMatrixTest:
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
        rel = dets / np.maximum(hb, 1e-300)
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
    contraction: float  # ‖A_nb⁻¹ A_tb [μ]‖₂ (< 1: Banach contraction, tutorial (40))
    error_bound: float  # a posteriori ‖λ_k - λ*‖ <= L/(1-L) ‖λ_k - λ_{k-1}‖ (inf when L >= 1)
    history: list = field(default_factory=list)


def fixed_point(red: SlidingReduction, tol: float = 1e-13, max_iter: int = 10_000) -> FixedPointResult:
    """Iterate ``λ ← A_nb⁻¹(A_tb[μ]|λ| - w1)`` (tutorial Prop. 9 proof, (39); Prop. 11 with frictionless
    bilateral rows eliminated). Bilateral problems only. ``contraction`` L is the Lipschitz constant of
    the map in the 2-norm: L < 1 certifies existence and uniqueness (Banach), and is implied by (38)."""
    if red.U.size:
        raise NotApplicableError("the fixed point of Prop. 9/11 is for bilateral contacts only")
    A = red.A_nb
    if red.B.size == 0:
        return FixedPointResult(np.zeros(0), True, 0, 0.0, 0.0)
    if np.linalg.cond(A) > 1e12:
        raise NotApplicableError("A_nb is singular: Prop. 9/11 needs A_nb ≻ 0 (independent bilateral rows)")
    K = np.linalg.solve(A, red.A_tb * red.mu_b[None, :])
    L = float(np.linalg.norm(K, 2))
    c = -np.linalg.solve(A, red.w1)
    lam = c.copy()
    scale = max(1.0, float(np.abs(c).max()))
    hist = []
    for it in range(1, max_iter + 1):
        new = K @ np.abs(lam) + c
        step = float(np.linalg.norm(new - lam))
        hist.append(step)
        lam = new
        if step <= tol * scale:
            bound = L / (1 - L) * step if L < 1 else float("inf")
            return FixedPointResult(lam, True, it, L, bound, hist)
        if not np.isfinite(step) or step > 1e12 * scale:
            break
    return FixedPointResult(None, False, len(hist), L, float("inf"), hist)


# ---------------------------------------------------------------------------- enumeration
@dataclass
class PieceSolution:
    a: np.ndarray
    lam_n: np.ndarray
    lam_t: np.ndarray
    piece: str
    isolated: bool | None  # the piece's solution set is this single point (None: not decided)
    #: the acceleration is the same at every point of the piece's solution set (True when isolated;
    #: a segment of multipliers at one acceleration is False for ``isolated`` but True here)
    acceleration_fixed: bool | None = None
    pieces: list = field(default_factory=list)  # every piece this point was found on

    def merge(self, piece: str, isolated: bool | None, acceleration_fixed: bool | None) -> None:
        """The same point found on another piece: keep the *weaker* claims (False < None < True), since a
        point isolated on one piece may lie on a segment of another."""
        self.pieces.append(piece)
        self.isolated = _weaker(self.isolated, isolated)
        self.acceleration_fixed = _weaker(self.acceleration_fixed, acceleration_fixed)


def _weaker(x: bool | None, y: bool | None) -> bool | None:
    if x is False or y is False:
        return False
    if x is None or y is None:
        return None
    return True


@dataclass
class Enumeration:
    """Every solution of the frictional contact problem, piece by piece (exact; few contacts).

    Two multiplicities, each "none" | "unique" | "multiple" | "continuum" | "undecided":

    - ``multiplicity``: of the *acceleration* (the physical question: a Painlevé paradox of
      indeterminacy is several accelerations). "multiple": finitely many distinct accelerations found,
      "continuum": a piece on which the acceleration varies, "undecided": one acceleration found on a
      conic piece whose other points are not examined.
    - ``multiplier_multiplicity``: of the solution points ``(a, λ)``: several points, or a piece that is
      a polyhedron with more than one point, at one acceleration is a hyperstatic (non-unique
      multipliers) case, not a paradox.

    Accelerations are "the same" when they differ by at most :data:`SAME_RTOL` times
    ``acceleration_scale``, a unit taken from the data (:func:`gaussqp.friction.coulomb.acceleration_scale`),
    never from the solutions compared.
    """

    solutions: list[PieceSolution]
    pieces: int
    enumerated: list[int]
    multiplicity: str
    multiplier_multiplicity: str = "undecided"
    acceleration_scale: float = 1.0
    distinct_accelerations: int = 0

    @property
    def count(self) -> int:
        return len(self.solutions)


#: two solutions of the enumeration are the same point (or have the same acceleration) when they differ
#: by at most this times the data's unit (acceleration, or force per unit row norm)
SAME_RTOL = 1e-7


@dataclass(frozen=True)
class _Units:
    """Units from the data (never from an answer) to compare solutions: an acceleration unit and one
    multiplier unit per contact (the force unit divided by the row norm)."""

    a: float
    lam_n: np.ndarray
    lam_t: np.ndarray

    @classmethod
    def of(cls, problem: ContactProblem, Jn: np.ndarray, Jt: np.ndarray, M: np.ndarray) -> "_Units":
        from .coulomb import acceleration_scale

        ua = acceleration_scale(problem)
        force = max(float(np.abs(problem.F).max(initial=0.0)), float(np.abs(M).sum(axis=1).max(initial=0.0)) * ua)
        d1 = problem.dimension - 1
        nn = np.linalg.norm(Jn, axis=1)
        nt = (np.array([np.linalg.norm(Jt[i * d1:(i + 1) * d1], 2) for i in range(problem.m)])
              if Jt.shape[0] else np.zeros(problem.m))
        with np.errstate(divide="ignore"):
            ln = np.where(nn > 0, force / np.where(nn > 0, nn, 1.0), force)
            lt = np.where(nt > 0, force / np.where(nt > 0, nt, 1.0), force)
        return cls(ua, ln, lt)

    def same_acceleration(self, a1: np.ndarray, a2: np.ndarray) -> bool:
        return float(np.abs(a1 - a2).max(initial=0.0)) <= SAME_RTOL * self.a

    def same_point(self, s: PieceSolution, a, lam_n, lam_t) -> bool:
        return (self.same_acceleration(s.a, a)
                and bool(np.all(np.abs(s.lam_n - lam_n) <= SAME_RTOL * self.lam_n))
                and bool(np.all(np.abs(s.lam_t - lam_t).max(axis=1, initial=0.0) <= SAME_RTOL * self.lam_t)))


def _enumerated_contacts(problem: ContactProblem) -> list[int]:
    """Contacts whose law is piecewise: frictional bilateral (sign of λ_n) and every unilateral."""
    modes, types = problem.modes, problem.types
    return [i for i in range(problem.m)
            if types[i] == "unilateral" or modes[i] != "frictionless"]


def enumerate_solutions(problem: ContactProblem, max_contacts: int = ENUMERATION_MAX,
                        solver: str | None = None) -> Enumeration:
    """All solutions by enumeration of the pieces (tutorial §3.2.1 "by inspecting each of the 2^m_b
    possible signs", extended to the complementarity pieces of (50)/(58) and to the stick/slip problem
    (71) of sticking §5, solved as stated in (a, λ); its reformulations (72)-(77) — the MLCP (73) and
    Prop. 13 assume M ≻ 0 — are not used).

    Unknowns ``y = (a, λ_n, λ_t of sticking contacts)`` in the original variables, so singular M and
    redundant rows are allowed. A piece fixes the sign of λ_n,i of each frictional bilateral contact and,
    for each unilateral contact, whether ``λ_n,i = 0`` or ``n_i a + b_i = 0``; on a piece the sliding law
    is linear and the problem is a polyhedron (a second-order-cone set with 3D sticking contacts). Each
    nonempty piece is found exactly: a nonsingular square equality system gives its only candidate, else
    an LP (HiGHS) or, with 3D sticking cones, an SOCP decides it, and an LP-plus-rank test
    (:func:`gaussqp.linalg.polyhedral_cones.cone_is_trivial`) says whether the polyhedral piece is a single point.
    Solutions found on several pieces (on their common boundary) are merged.

    Raises :class:`TooLargeError` above ``max_contacts`` enumerated contacts (2^k pieces).
    """
    enum = _enumerated_contacts(problem)
    k = len(enum)
    if k > max_contacts:
        raise TooLargeError(f"sign/complementarity enumeration over {k} contacts (2^{k} pieces) exceeds the "
                            f"limit of {max_contacts}; use 'sliding_lcp' (Lemke) for larger problems")
    n, m, d1 = problem.n, problem.m, problem.dimension - 1
    S = list(problem.sticking)
    nt = d1 * len(S)
    N = n + m + nt
    Jn = as_dense(problem.J_n).reshape(m, n)
    Jt = as_dense(problem.J_t).reshape(-1, n)
    M = as_dense(problem.M)
    mu, b, c = problem.friction, problem.normal_drift, problem.tangent_drift
    ia, il = 0, n
    it0 = n + m
    scale = max(1.0, float(np.abs(problem.F).max(initial=0)), float(np.abs(b).max(initial=0)))
    units = _Units.of(problem, Jn, Jt, M)
    cone3d = problem.dimension == 3 and len(S) > 0
    sols: list[PieceSolution] = []
    for pattern in itertools.product((0, 1), repeat=k):
        choice = dict(zip(enum, pattern))
        # dynamics: M a - Σ col_i λ_n,i - Σ T_iᵀ λ_t,i = -F
        dyn = np.zeros((n, N))
        dyn[:, ia:ia + n] = M
        sign = np.ones(m)
        for i in range(m):
            if problem.types[i] == "bilateral" and problem.modes[i] != "frictionless":
                sign[i] = 1.0 if choice[i] == 1 else -1.0
            col = Jn[i].copy()
            if problem.modes[i] == "sliding":
                col = col - mu[i] * sign[i] * (Jt[i * d1:(i + 1) * d1].T @ problem.slip[i])
            dyn[:, il + i] = -col
        for j, i in enumerate(S):
            dyn[:, it0 + j * d1:it0 + (j + 1) * d1] = -Jt[i * d1:(i + 1) * d1].T
        eq_rows, eq_rhs, in_rows, in_rhs = [dyn], [-problem.F], [], []
        for i in range(m):
            row = np.zeros(N)
            row[ia:ia + n] = Jn[i]
            if problem.types[i] == "bilateral":
                eq_rows.append(row[None]), eq_rhs.append([-b[i]])
                if problem.modes[i] != "frictionless":
                    r = np.zeros(N)
                    r[il + i] = sign[i]
                    in_rows.append(r), in_rhs.append(0.0)
            elif choice[i] == 1:  # active: n a + b = 0, λ >= 0
                eq_rows.append(row[None]), eq_rhs.append([-b[i]])
                r = np.zeros(N)
                r[il + i] = 1.0
                in_rows.append(r), in_rhs.append(0.0)
            else:  # detached: λ = 0, n a + b >= 0
                r = np.zeros(N)
                r[il + i] = 1.0
                eq_rows.append(r[None]), eq_rhs.append([0.0])
                in_rows.append(row), in_rhs.append(-b[i])
        for j, i in enumerate(S):
            T = np.zeros((d1, N))
            T[:, ia:ia + n] = Jt[i * d1:(i + 1) * d1]
            eq_rows.append(T), eq_rhs.append(-c[i * d1:(i + 1) * d1])
            if not cone3d:  # 2D: |λ_t| <= μ σ λ_n is two linear inequalities
                for s in (1.0, -1.0):
                    r = np.zeros(N)
                    r[il + i] = mu[i] * sign[i]
                    r[it0 + j] = -s
                    in_rows.append(r), in_rhs.append(0.0)
        Aeq = np.vstack(eq_rows)
        beq = np.concatenate([np.atleast_1d(np.asarray(x, dtype=float)) for x in eq_rhs])
        G = np.array(in_rows).reshape(-1, N)
        h = np.array(in_rhs, dtype=float)  # G y >= h
        label = "".join("+" if choice[i] else ("-" if problem.types[i] == "bilateral" else "0") for i in enum)
        y, isolated, a_fixed = _solve_piece(Aeq, beq, G, h, scale,
                                            cone3d and _cone_data(problem, S, sign, il, it0, N, d1), solver, n)
        if y is None:
            continue
        a, lam_n = y[ia:ia + n], y[il:il + m]
        lam_t = sliding_tangent(problem, lam_n)
        for j, i in enumerate(S):
            lam_t[i] = y[it0 + j * d1:it0 + (j + 1) * d1]
        same = next((s for s in sols if units.same_point(s, a, lam_n, lam_t)), None)
        if same is not None:
            same.merge(label, isolated, a_fixed)
            continue
        sols.append(PieceSolution(a, lam_n, lam_t, label, isolated, a_fixed, [label]))
    a_mult, lam_mult, distinct = _multiplicities(sols, units)
    return Enumeration(sols, 2 ** k, enum, a_mult, lam_mult, units.a, distinct)


def _multiplicities(sols: list[PieceSolution], units: _Units) -> tuple[str, str, int]:
    """(multiplicity of the acceleration, of the solution points, number of distinct accelerations)."""
    if not sols:
        return "none", "none", 0
    reps: list[np.ndarray] = []
    for s in sols:
        if not any(units.same_acceleration(r, s.a) for r in reps):
            reps.append(s.a)
    if any(s.acceleration_fixed is False for s in sols):
        a_mult = "continuum"
    elif len(reps) > 1:
        a_mult = "multiple"
    elif any(s.acceleration_fixed is None for s in sols):
        a_mult = "undecided"
    else:
        a_mult = "unique"
    if any(s.isolated is False for s in sols):
        lam_mult = "continuum"
    elif len(sols) > 1:
        lam_mult = "multiple"
    elif sols[0].isolated is None:
        lam_mult = "undecided"
    else:
        lam_mult = "unique"
    return a_mult, lam_mult, len(reps)


def _cone_data(problem, S, sign, il, it0, N, d1):
    return [(il + i, it0 + j * d1, problem.friction[i] * sign[i]) for j, i in enumerate(S)]


def _solve_piece(Aeq, beq, G, h, scale, cones, solver, n):
    """A point of ``{Aeq y = beq, G y >= h}`` (∩ cones) or None, whether it is the only one, and whether
    the acceleration (the first ``n`` unknowns) is the same at every point of the piece."""
    N = Aeq.shape[1]
    tol = PIECE_RTOL * scale
    if not cones and Aeq.shape[0] == N:
        try:
            cond = np.linalg.cond(Aeq)
        except np.linalg.LinAlgError:
            cond = np.inf
        if cond < 1e12:
            y = np.linalg.solve(Aeq, beq)
            ymag = max(1.0, float(np.abs(y).max()))
            ok = (G @ y - h).min(initial=0.0) >= -tol * ymag
            return (y, True, True) if ok else (None, None, None)
    if cones:
        y = _socp_piece(Aeq, beq, G, h, cones, solver)
        if y is None:
            return None, None, None
        # a nonsingular square equality system pins the point; otherwise uniqueness is not decided
        pinned = Aeq.shape[0] >= N and matrix_rank(Aeq) == N
        return y, (True if pinned else None), (True if pinned else None)
    res = linprog(np.zeros(N), A_ub=-G if G.size else None, b_ub=-h if G.size else None, A_eq=Aeq, b_eq=beq,
                  bounds=[(None, None)] * N, method="highs")
    if res.status == 2:
        return None, None, None
    if res.status != 0:
        raise SolverError(f"piece LP failed: {res.message}")
    y = res.x
    ymag = max(1.0, float(np.abs(y).max()))
    if np.abs(Aeq @ y - beq).max(initial=0) > 1e-7 * ymag * scale or (G @ y - h).min(initial=0) < -1e-7 * ymag * scale:
        raise SolverError("piece LP returned a point that fails its constraints")
    active = (G @ y - h) <= 1e-9 * ymag * scale
    try:
        t = cone_is_trivial(Aeq, G[active], N)
    except UndecidedError:  # isolation not decided either way: the weaker claim (None) is kept
        return y, None, None
    if t.trivial:
        return y, True, True
    try:
        return y, False, _projection_is_zero(Aeq, G[active], n)
    except UndecidedError:
        return y, False, None


def _projection_is_zero(E: np.ndarray, G: np.ndarray, n: int) -> bool:
    """Is the projection on the first ``n`` coordinates of the cone ``K = {v : E v = 0, G v >= 0}`` {0}?

    K is the cone of feasible directions of the piece at the point found, and the piece lies in
    ``point + K``, so the acceleration is the same at every point of the piece iff ``P_a K = {0}``.
    With Z an orthonormal basis of ker E and ``B = G Z``: for each coordinate j and sign s, the LP
    ``max s (Z_a y)_j  s.t.  B y >= 0, -1 <= Z_a y <= 1`` is 0 (bounded: the box is on ``Z_a y``)."""
    N = E.shape[1]
    En = normalize_rows(E.reshape(-1, N))
    Gn = normalize_rows(G.reshape(-1, N))
    Z = null_space(En, scale=max(1.0, float(np.linalg.norm(En, 2)) if En.size else 1.0))
    if Z.shape[1] == 0:
        return True
    Za = Z[:n]
    if matrix_rank(Za, scale=1.0) == 0:
        return True
    k = Z.shape[1]
    B = Gn @ Z
    A_ub = np.vstack([-B, Za, -Za]) if B.shape[0] else np.vstack([Za, -Za])
    b_ub = np.concatenate([np.zeros(B.shape[0]), np.ones(2 * n)])
    for j in range(n):
        for sgn in (1.0, -1.0):
            res = linprog(-sgn * Za[j], A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * k, method="highs")
            if res.status != 0:
                raise SolverError(f"acceleration-projection LP failed: {res.message}")
            if -float(res.fun) > 1e-9:
                return False
    return True


def _socp_piece(Aeq, beq, G, h, cones, solver):
    import cvxpy as cp

    from ..backends import get_backend, run_cvxpy
    from ..settings import get_tolerance

    N = Aeq.shape[1]
    y = cp.Variable(N)
    cons = [Aeq @ y == beq]
    if G.size:
        cons.append(G @ y >= h)
    for iln, it, musig in cones:
        cons.append(cp.SOC(musig * y[iln], y[it:it + 2]))
    prob = cp.Problem(cp.Minimize(0), cons)
    backend = get_backend(solver, needs="socp")
    status, _ = run_cvxpy(prob, backend, get_tolerance("high"))
    if status == "infeasible":
        return None
    if status != "solved" or y.value is None:
        raise SolverError(f"stick/slip piece SOCP ended with status {status!r}; the enumeration cannot decide")
    return np.asarray(y.value).ravel()


# ---------------------------------------------------------------------------- certificates
def enumeration_certificate(problem: ContactProblem, enum: Enumeration) -> Certificate:
    """The exhaustive enumeration as a certificate: how many accelerations and how many solution points
    the instance has. ``holds`` when the acceleration question is decided in the papers' sense: no
    solution, or exactly one acceleration (the multipliers may still form a set, a hyperstatic case)."""
    sols = enum.solutions
    k = enum.distinct_accelerations
    accel = {
        "none": "no acceleration and contact forces satisfy the sliding problem (inconsistent case, "
                "Painlevé paradox / jamming): every piece was checked and is empty",
        "unique": "exactly one acceleration",
        "multiple": f"{k} distinct accelerations (indeterminate case, Painlevé paradox)",
        "continuum": "a continuum of accelerations (a piece on which the acceleration varies; indeterminate case)",
        "undecided": "one acceleration found; whether its (conic) piece holds other accelerations is not decided",
    }[enum.multiplicity]
    mult = {
        "none": "",
        "unique": "; the multipliers are unique",
        "multiple": f"; {len(sols)} distinct multiplier vectors",
        "continuum": "; a continuum of multipliers (a piece is a polyhedron with more than one point)",
        "undecided": "; multiplier uniqueness on the (conic) piece is not decided",
    }[enum.multiplier_multiplicity]
    implies = accel + mult + ("" if enum.multiplicity != "unique" or enum.multiplier_multiplicity == "unique"
                              else " at that one acceleration (not a paradox)")
    return Certificate(
        id="sliding_enumeration", name="solutions by exhaustive piece enumeration",
        source="tutorial §3.2.1 (enumeration of (37)); (50), (58); sticking (71)",
        holds=enum.multiplicity in ("none", "unique"), margin=float(len(sols)),
        implies=implies,
        data={"solutions": len(sols), "pieces": enum.pieces, "multiplicity": enum.multiplicity,
              "acceleration_multiplicity": enum.multiplicity,
              "multiplier_multiplicity": enum.multiplier_multiplicity,
              "distinct_accelerations": k, "acceleration_scale": enum.acceleration_scale,
              "enumerated_contacts": list(enum.enumerated),
              "lambda_normal": [s.lam_n for s in sols], "accelerations": [s.a for s in sols],
              "piece_labels": [s.piece for s in sols], "isolated": [s.isolated for s in sols],
              "found_on_pieces": [list(s.pieces) for s in sols]})


def p_matrix_certificate(problem: ContactProblem, lcp: LCP58 | None = None) -> Certificate:
    """Exact P-matrix test of the LCP matrix (58) (tutorial Prop. 13; Cottle–Pang–Stone Thm 3.3.7).

    ``lcp`` is the problem's LCP when the caller already built it (``sliding_lcp`` does)."""
    size = sum(problem.modes[i] == "sliding" for i in problem.bilateral) + len(problem.unilateral)
    if size > P_MATRIX_EXACT_MAX:  # decided before the dense reduction, which the test would not use
        return Certificate(id="p_matrix", name="LCP matrix (58) is a P-matrix", source="tutorial (58), Prop. 13",
                           holds=None, margin=float("nan"),
                           implies=f"size {size} > {P_MATRIX_EXACT_MAX}: the exact test by principal minors is "
                                   "not run; see friction_bounds for sufficient conditions")
    try:
        L = lcp if lcp is not None else lcp58(reduce(problem))
    except NotApplicableError as exc:
        return Certificate(id="p_matrix", name="LCP matrix (58) is a P-matrix", source="tutorial (58), Prop. 13",
                           holds=None, margin=float("nan"), implies=f"not applicable: {exc}")
    t = p_matrix_test(L.M)
    return Certificate(
        id="p_matrix", name=f"{L.form} matrix is a P-matrix (exact, {t.minors_checked} principal minors)",
        source="tutorial (41), (50), (58), Prop. 13; Cottle–Pang–Stone Thm 3.3.7",
        holds=t.holds, margin=t.min_minor,
        implies=("the sliding problem has exactly one solution for every load at this state" if t.holds else
                 "not a P-matrix: some loads give no or several solutions at this state (principal minor "
                 f"{t.witness} is <= 0)"),
        data={"form": L.form, "matrix": L.M, "witness": t.witness})

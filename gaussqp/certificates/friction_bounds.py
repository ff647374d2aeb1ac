"""C7 — friction bounds (docs/DESIGN.md §4.1): sufficient conditions of the tutorial §3 and sticking §4.1.

Each bound is a :class:`FrictionBound` with its source, its value (a friction coefficient below which the
guarantee holds, or for the sticking criterion (64) a ratio that must exceed 1), what it guarantees, and
whether the problem's own coefficients satisfy it. Friction columns carry the slip direction
(``t_i = T_iᵀ s_i``, the paper's ``H_t,i ξ_i``): in 2D σ(A_tb) is the paper's, in 3D it is the
σ of the columns that actually act (no larger than with the full tangent block).

- (38) Prop. 9: ``μ < σ_min(A_nb)/σ_max(A_tb)`` — all contacts bilateral and sliding;
- Prop. 10: one third of (38) (the hLCP (41) matrix is then positive definite);
- Prop. 11: (38) on the Schur complements of (45) — frictionless and sliding bilateral contacts;
- (51) Prop. 12: ``μ < σ_min(A_nu)/σ_max(A_tu)`` — unilateral sliding contacts;
- (64) Prop. 14: (51) on the Schur complements — frictionless bilateral plus unilateral sliding;
- Prop. 13: ``β₂(M⁰_ub) ‖P_μ‖₂ < 1`` and (38) on the bilateral part — mixed sliding contacts;
- sticking Prop. 12, (64): ``σ_max(H₂)² < σ_min(A^st_nu) σ_min(H₁)`` — A_c^st of (63) positive definite.

Lazy imports (the idiom of :mod:`gaussqp.backends`): ``scipy.optimize`` is imported inside the functions
that use it, not when this module is imported.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ..jsonable import json_float, to_jsonable
from ..errors import NotApplicableError
from ..linalg.dense import as_dense
from ..linalg.mass import solve_mass
from ..model.problem import ContactProblem
from ..friction.sliding import SlidingReduction, sliding_lcp, frictionless_sliding_lcp_matrix, p_matrix_test, reduce
from ..settings import (
    BETA2_REFINED,
    BETA2_SLSQP_FTOL,
    BETA2_SLSQP_MAXITER,
    BETA2_STARTS,
    BETA2_VERTEX_MAX,
    FRICTION_BOUND_SINGULAR_RTOL,
    PROP13_BISECTIONS,
    PROP13_GRID_POINTS,
    PROP13_MU_MAX,
    PROP13_MU_MIN,
)


@dataclass(frozen=True)
class FrictionBound:
    id: str
    source: str
    value: float
    guarantees: str
    holds: bool | None  # do the problem's coefficients satisfy it (None: the premises fail)
    mu: float = float("nan")  # the largest friction coefficient the bound is compared with
    data: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = {
            "id": self.id,
            "source": self.source,
            "value": json_float(self.value),
            "guarantees": self.guarantees,
            "holds": None if self.holds is None else bool(self.holds),
            "mu": json_float(self.mu),
        }
        if self.data:
            d["data"] = {k: to_jsonable(v) for k, v in self.data.items()}
        return d


def _sv(A: np.ndarray) -> np.ndarray:
    return np.linalg.svd(A, compute_uv=False) if A.size else np.zeros(0)


def sigma_ratio(A_n: np.ndarray, A_t: np.ndarray) -> float:
    """``σ_min(A_n)/σ_max(A_t)`` (inf when A_t = 0; 0 when A_n is singular)."""
    s_n, s_t = _sv(A_n), _sv(A_t)
    smax = float(s_t.max(initial=0.0))
    smin = float(s_n.min()) if s_n.size else 0.0
    # singular relative to A_n's own largest singular value, not max(1, ·): in units of 1e-6 every A_n was singular
    if smin <= FRICTION_BOUND_SINGULAR_RTOL * float(s_n.max(initial=0.0)):
        return 0.0
    return math.inf if smax == 0 else smin / smax


def beta2(M: np.ndarray, starts: int = BETA2_STARTS, seed: int = 0) -> tuple[float, np.ndarray]:
    """``β₂(M) = max_{d ∈ [0,1]^k} ‖(I - D + DM)⁻¹ D‖₂`` (tutorial App. D, Thm 3; Chen & Xiang 2006).

    The maximum of a nonconvex function over a box: we evaluate every vertex (k <= 12), then refine
    with SciPy's SLSQP (the sequential least-squares solver the tutorial used) from the best vertices,
    the centre and ``starts`` random points. The value is the best found, a *lower* estimate of the
    true maximum — so the friction bound built on it is validated by the exact P-matrix test
    (:func:`common_mu_bound`). For symmetric positive definite M, β₂(M) = ‖M⁻¹‖₂ (checked in the tests).
    """
    from scipy.optimize import minimize

    M = np.asarray(M, dtype=float)
    k = M.shape[0]
    I = np.eye(k)

    def f(d):
        D = np.diag(d)
        try:
            return float(np.linalg.norm(np.linalg.solve(I - D + D @ M, D), 2))
        except np.linalg.LinAlgError:
            return math.inf

    cands = []
    if k <= BETA2_VERTEX_MAX:
        for v in itertools.product((0.0, 1.0), repeat=k):
            d = np.array(v)
            cands.append((f(d), d))
    rng = np.random.default_rng(seed)
    cands += [(f(d), d) for d in [np.full(k, 0.5)] + [rng.uniform(0, 1, k) for _ in range(starts)]]
    cands.sort(key=lambda t: -t[0])
    best, dbest = cands[0]
    for _, d0 in cands[:BETA2_REFINED] + cands[-starts:]:
        with np.errstate(invalid="ignore"):  # f is +inf where I - D + DM is singular; SLSQP then stops there
            res = minimize(
                lambda d: -f(d),
                d0,
                method="SLSQP",
                bounds=[(0.0, 1.0)] * k,
                options={"maxiter": BETA2_SLSQP_MAXITER, "ftol": BETA2_SLSQP_FTOL},
            )
        val = f(np.clip(res.x, 0, 1))
        if val > best:
            best, dbest = val, np.clip(res.x, 0, 1)
    return best, dbest


def common_mu_bound(red: SlidingReduction, mu_grid_max: float = PROP13_MU_MAX) -> dict:
    """Prop. 13's implicit bound for a common friction coefficient μ on every contact: the smallest μ with
    ``β₂(M⁰_ub)‖P_μ‖₂ = 1`` (``P_μ = M^μ_ub - M⁰_ub``, tutorial (60)-(63)), capped by (38) on the bilateral
    part; found on a geometric grid then by bisection (the tutorial used a secant method). Validated by the
    exact P-matrix test of ``M^μ_ub`` on a grid of μ below the bound."""
    M0 = frictionless_sliding_lcp_matrix(red)
    b2, dstar = beta2(M0)
    mu_b38 = sigma_ratio(red.A_nb, red.A_tb)

    def excess(mu: float) -> float:
        try:
            Mmu = sliding_lcp(red, np.full(red.B.size, mu), np.full(red.U.size, mu)).M
        except NotApplicableError:
            return math.inf
        return b2 * float(np.linalg.norm(Mmu - M0, 2)) - 1.0

    hi = min(mu_b38, mu_grid_max)
    grid = np.geomspace(PROP13_MU_MIN, hi, PROP13_GRID_POINTS) if hi > PROP13_MU_MIN else np.zeros(0)
    lo, up = 0.0, hi
    for mu in grid:
        if excess(mu) >= 0 or mu >= hi:
            up = float(mu)
            break
        lo = float(mu)
    for _ in range(PROP13_BISECTIONS):
        mid = 0.5 * (lo + up)
        if excess(mid) < 0:
            lo = mid
        else:
            up = mid
    value = lo
    checks = []
    validated = True
    for frac in (0.25, 0.5, 0.75, 0.99):
        mu = frac * value
        try:
            t = p_matrix_test(sliding_lcp(red, np.full(red.B.size, mu), np.full(red.U.size, mu)).M).holds
        except NotApplicableError:  # no LCP (58) at this μ: the bound is not validated there
            t = False
        checks.append((mu, t))
        validated = validated and t is not False
    return {
        "value": value,
        "beta2": b2,
        "beta2_argmax": dstar,
        "mu_b_38": mu_b38,
        "validated": validated,
        "p_matrix_checks": checks,
    }


def not_applicable(bid: str, source: str, exc: Exception) -> FrictionBound:
    """A bound whose premises fail on this problem (e.g. dependent sliding rows: ``A_nb`` singular, so the
    LCP (58) and its frictionless matrix ``M⁰_ub`` do not exist): reported with ``holds`` None and the
    reason, never raised out of ``solve``/``check``."""
    return FrictionBound(
        bid, source, float("nan"), f"not applicable: {exc}", None, float("nan"), {"premise": f"fails: {exc}"}
    )


def _max_mu(problem: ContactProblem, idx) -> float:
    vals = [float(problem.friction[i]) for i in idx if problem.modes[i] == "sliding"]
    return max(vals) if vals else 0.0


def sliding_bounds(problem: ContactProblem) -> list[FrictionBound]:
    """The tutorial §3 bounds that apply to this problem (M ≻ 0, sliding and frictionless contacts)."""
    try:
        red = reduce(problem)
    except NotApplicableError as exc:
        return [not_applicable("tutorial §3 bounds", "tutorial (38), (51), (64), Props. 9-14", exc)]
    out = []
    mb, mu = red.B.size, red.U.size
    mu_b, mu_u = _max_mu(problem, red.B), _max_mu(problem, red.U)
    any_u_sliding = any(problem.modes[i] == "sliding" for i in red.U)
    if mb and not mu:
        v = sigma_ratio(red.A_nb, red.A_tb)
        pre = "A_nb ≻ 0" if v > 0 else "A_nb singular: premise fails"
        if red.Z.size:
            out.append(
                FrictionBound(
                    "Prop. 11",
                    "tutorial Prop. 11, (44)-(46)",
                    v,
                    "with all bilateral sliding coefficients below it, (42) has exactly one solution (a, λ⁰, λ^μ)",
                    (mu_b < v) if v > 0 else None,
                    mu_b,
                    {"premise": pre},
                )
            )
        else:
            out.append(
                FrictionBound(
                    "(38)",
                    "tutorial (38), Prop. 9",
                    v,
                    "with all bilateral sliding coefficients below it, (36) has exactly one solution (a, λ_n,b)",
                    (mu_b < v) if v > 0 else None,
                    mu_b,
                    {"premise": pre},
                )
            )
            out.append(
                FrictionBound(
                    "Prop. 10",
                    "tutorial Prop. 10",
                    v / 3.0,
                    "the hLCP (41) matrix (A_nb - A_tb[μξ])⁻¹(A_nb + A_tb[μξ]) is positive definite: one solution",
                    (mu_b < v / 3.0) if v > 0 else None,
                    mu_b,
                )
            )
    if mu and any_u_sliding and not mb:
        v = sigma_ratio(red.A_nu, red.A_tu)
        if red.Z.size:
            out.append(
                FrictionBound(
                    "(64)",
                    "tutorial (64), Prop. 14",
                    v,
                    "frictionless bilateral + unilateral sliding: the LCP matrix is positive definite, one solution",
                    (mu_u < v) if v > 0 else None,
                    mu_u,
                )
            )
        else:
            out.append(
                FrictionBound(
                    "(51)",
                    "tutorial (51), Prop. 12",
                    v,
                    "A_u,μ,ξ ≻ 0: the LCP (50) has exactly one solution, Lipschitz in w_u",
                    (mu_u < v) if v > 0 else None,
                    mu_u,
                )
            )
    if mb and mu:
        try:
            pb = common_mu_bound(red)
        except NotApplicableError as exc:
            out.append(not_applicable("Prop. 13", "tutorial Prop. 13, (58)-(63), App. D Thm 3 (β₂ by SLSQP)", exc))
            return out
        try:
            M0 = frictionless_sliding_lcp_matrix(red)
            Mmu = sliding_lcp(red).M
            actual = pb["beta2"] * float(np.linalg.norm(Mmu - M0, 2))
            holds = actual < 1 and mu_b < pb["mu_b_38"]
        except NotApplicableError:
            actual, holds = math.inf, False
        out.append(
            FrictionBound(
                "Prop. 13",
                "tutorial Prop. 13, (58)-(63), App. D Thm 3 (β₂ by SLSQP)",
                pb["value"],
                "with every coefficient equal to μ below it, M^μ_ub is a P-matrix: (56) has one solution for any load",
                holds,
                max(mu_b, mu_u),
                {
                    "beta2": pb["beta2"],
                    "mu_b_38": pb["mu_b_38"],
                    "beta2_times_norm_P": actual,
                    "validated_by_p_matrix_test": pb["validated"],
                },
            )
        )
    return out


def sticking_mu_bound(problem: ContactProblem) -> FrictionBound | None:
    """Sticking Prop. 12, (64): ``σ_max(N_u M⁻¹ H) σ_max(H₂) < σ_min(A^st_nu) σ_min(H₁)`` with
    ``H = (H_t,b^st H_t,u^st ∇h_n,b^st)``, ``H₁ = HᵀM⁻¹H``, ``H₂ = HᵀM⁻¹∇h_n,u^st`` (sticking (62)-(63)).
    Value: the ratio right/left (the criterion holds when it exceeds 1)."""
    if not len(problem.sticking) or len(problem.sliding) or not problem.mass_factor.definite:
        return None
    U = [i for i in problem.unilateral if problem.modes[i] == "sticking"]
    if not U:
        return None
    Jn = as_dense(problem.J_n).reshape(problem.m, problem.n)
    Jt = as_dense(problem.J_t).reshape(-1, problem.n)
    Bst = [i for i in problem.bilateral if problem.modes[i] == "sticking"]
    rows_t = problem.tangent_rows(list(Bst) + list(U))
    H = np.vstack([Jt[rows_t], Jn[Bst]]).T
    Nu = Jn[U]
    MinvH = solve_mass(problem.M, H)
    MinvN = solve_mass(problem.M, Nu.T)
    H1 = H.T @ MinvH
    H2 = H.T @ MinvN
    A = Nu @ MinvN
    lhs = float(_sv(Nu @ MinvH).max(initial=0)) * float(_sv(H2).max(initial=0))
    sa, s1 = _sv(A), _sv(H1)
    rhs = (float(sa.min()) if sa.size else 0.0) * (float(s1.min()) if s1.size else 0.0)
    # A^st_nu and H₁ nonsingular, each relative to its own largest singular value (not rhs against max(1, lhs):
    # in units of 1e-6 the premise failed on every problem, in units of 1e6 it held on singular ones)
    premise = bool(
        sa.size
        and s1.size
        and sa.min() > FRICTION_BOUND_SINGULAR_RTOL * sa.max()
        and s1.min() > FRICTION_BOUND_SINGULAR_RTOL * s1.max()
    )
    ratio = (math.inf if lhs == 0 else rhs / lhs) if premise else 0.0
    return FrictionBound(
        "sticking Prop. 12 (64)",
        "sticking Prop. 12, (62)-(64)",
        ratio,
        (
            "ratio > 1: A_c^st of (63) is positive definite and the sticking contact LCP has a unique solution"
            if premise
            else "premise fails: A^st_nu or H₁ is singular (dependent rows)"
        ),
        (ratio > 1) if premise else None,
        float("nan"),
        {"lhs": lhs, "rhs": rhs},
    )


def friction_bounds(problem: ContactProblem) -> list[FrictionBound]:
    """Every C7 bound that applies to ``problem`` (empty for frictionless problems)."""
    out = sliding_bounds(problem) if len(problem.sliding) and not len(problem.sticking) else []
    sp12 = sticking_mu_bound(problem)
    if sp12 is not None:
        out.append(sp12)
    return out

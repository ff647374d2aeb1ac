"""The friction verdicts: the sticking verdict (margin, contacts on the cone boundary, detaching contacts,
μ_min) and the sliding verdict (how many solutions a sliding problem has, from the exact enumeration or
the P-matrix test, with the certificates :func:`enumeration_certificate` and :func:`p_matrix_certificate`).

The sticking verdict:

All quantities are computed on the multiplier set Λ(a) of :mod:`gaussqp.friction.multiplier_set` (fixed
acceleration; its active set needs a tolerance, which is reported):

- ``margin`` = max over Λ(a) of min over the non-detaching sticking contacts of
  ``μ_i |λ_n,i| - ‖λ_t,i‖`` (force units). ``> 0``: some admissible forces lie strictly inside
  every cone, so sticking persists for continuous data (sticking Prop. 4(i)); ``= 0``: every
  admissible force has a contact on its cone boundary (Prop. 4(ii): stick→slip possible);
  ``< 0``: no admissible forces (sticking infeasible), by that much. ``inf`` when internal forces
  can grow without bound inside the cones.
- ``boundary_contacts``: contacts whose own ``max μ_i|λ_n,i| - ‖λ_t,i‖`` over Λ(a) ∩ cones is 0
  (they are on the boundary for *every* admissible force: exact, one SOCP each, up to
  :data:`gaussqp.settings.BOUNDARY_EXACT_MAX` contacts; beyond, at the max-margin forces).
- ``detaching_contacts``: unilateral sticking contacts with ``n_i a + b_i > 0`` (they leave, Prop. 4
  and footnote 3 of the sticking paper).
- ``mu_min``: the smallest friction coefficient, common to all sticking contacts, for which the
  all-sticking problem is solvable (sticking Prop. 11), by bisection on the conic feasibility of
  Λ(a) (independent of μ, so this is exact up to the bisection tolerance); ``inf`` when no μ works (proven),
  None when undecided (``mu_min_reason`` says why).
  ``mu_min_lower`` is the bisection's proven lower end: where a program near the optimum decides
  nothing, the bisection stops and ``[mu_min_lower, mu_min]`` is what is proven.

When the multiplier rows are independent, Λ(a) is a single point (the solution's multipliers, or
F1's when sticking is infeasible) and :func:`singleton_verdict` reads all four off it without a program.

Lazy imports (issue #15, the idiom of :mod:`gaussqp.backends`): cvxpy is imported inside the functions that use it,
not when this module is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..jsonable import json_float, to_jsonable
from ..backends import direct_backend, get_backend, solve_program
from ..errors import NotApplicableError
from ..model.problem import ContactProblem
from ..model.rows import assemble_multipliers
from ..model.scales import data_scales
from ..results import INACCURATE, INFEASIBLE, SOLVED, UNBOUNDED, Certificate, Solution
from ..settings import (AFFINE_SET_DENSE_MAX, BOUNDARY_EXACT_MAX, BOUNDARY_RTOL, DIRECT_CONIC_BACKENDS, ENUMERATION_MAX,
                        IN_ENUMERATION_RTOL, KERNEL_COMPONENT_TOL, MU_ACCEPT_RTOL, MU_BISECTION_MAX, MU_BRACKET_RTOL,
                        MU_FLOOR, MU_LOWER_PROOF_RTOL, MU_MAX, MU_RTOL, P_MATRIX_EXACT_MAX, SAME_RTOL, SINGLETON_DENSE_MAX, Tolerance,
                        ZERO_FORCE_RTOL)
from .cones import DISK, Layout, cone_constraints
from ..linalg.dense import as_dense
from .enumeration import Enumeration, enumerate_solutions, enumerated_contacts
from .multiplier_conic import MultiplierSetConic
from .multiplier_set import active_tolerance, detaching, multiplier_set_constraints
from .sliding import ReducedSlidingLCP, p_matrix_test, reduce, sliding_lcp

if TYPE_CHECKING:  # annotations only; cvxpy itself is imported inside the functions that build a program
    import cvxpy as cp


@dataclass
class StickingVerdict:
    feasible: bool | None
    margin: float | None
    boundary_contacts: list[int] = field(default_factory=list)
    detaching_contacts: list[int] = field(default_factory=list)
    mu_min: float | None = None
    #: the proven lower end of μ_min (:func:`mu_min_bracket`); None when μ_min was read off a single point
    mu_min_lower: float | None = None
    #: why ``mu_min`` is None (undecided: a program decided nothing), else None
    mu_min_reason: str | None = None
    active_tolerance: float | np.ndarray = 0.0  # per unilateral row (multiplier_set.active_tolerance)
    boundary_test: str = "exact"
    signs: dict = field(default_factory=dict)
    #: the point the margin was measured at: the acceleration and the multipliers ``(λ_n (m,), λ_t (m, d−1))`` in
    #: input order (the max-margin multipliers of Λ(a), or λ* when Λ(a) is a point); None when no margin was found
    acceleration: np.ndarray | None = None
    multipliers: tuple | None = None

    def as_dict(self) -> dict:
        """The verdict as JSON, with ``evidence`` (the acceleration and multipliers its margin was read at, and what
        to check on them) when a finite margin was measured at a point."""
        ev = {}
        if self.multipliers is not None and self.acceleration is not None and self.margin is not None \
                and np.isfinite(self.margin):
            ev = {"evidence": to_jsonable({
                "verify": "M a + F = J_nᵀλ_n + J_tᵀλ_t; tangent_i,k · a + tangent_drift_i,k = 0 on sticking contacts; "
                          "λ_n,i >= 0 on unilateral contacts and λ_n,i = 0 where normal_i · a + normal_drift_i > 0 "
                          "(detaching_contacts); on every sticking contact not detaching μ_i s_i λ_n,i − ‖λ_t,i‖ >= "
                          "margin (s_i from signs, 1 when absent): margin > 0 means sticking persists",
                "acceleration": self.acceleration, "lambda_normal": self.multipliers[0],
                "lambda_tangent": self.multipliers[1], "signs": self.signs})}
        return {**ev, "feasible": self.feasible, "margin": json_float(self.margin) if self.margin is not None else None,
                "boundary_contacts": list(self.boundary_contacts), "detaching_contacts": list(self.detaching_contacts),
                "mu_min": json_float(self.mu_min) if self.mu_min is not None else None,
                "mu_min_lower": json_float(self.mu_min_lower) if self.mu_min_lower is not None else None,
                "mu_min_reason": self.mu_min_reason,
                "active_tolerance": np.asarray(self.active_tolerance, dtype=float).tolist(), "boundary_test": self.boundary_test}


def _margin_program(p: ContactProblem, a, atol, signs, det, lam_n=None):
    import cvxpy as cp

    L, le, li, cons, _ = multiplier_set_constraints(p, a, atol, lam_n)
    t = cp.Variable(name="t")
    cons += cone_constraints(L, le, li, p.friction, DISK, signs, slack=t, no_slack=det)
    return cp.Problem(cp.Maximize(t), cons), t, L, le, li


def margin(p: ContactProblem, a: np.ndarray, atol: float, signs: dict, run, lam_n=None,
           conic: MultiplierSetConic | None = None) -> tuple[float | None, tuple | None]:
    """max-min cone margin on Λ(a) for one sign pattern; (value, (λ_eq, λ_in) at the optimum) or (None, None).

    ``conic``: the same program in Clarabel's form (:mod:`gaussqp.friction.multiplier_conic`), tried first; the
    cvxpy program runs when it ends anything but solved / infeasible / unbounded."""
    det = frozenset(int(i) for i in detaching(p, a, atol, lam_n))
    status, value, point = "failed", None, None
    if conic is not None:
        ans = conic.margin(signs, det)
        status, value, point = ans.status, ans.value, (ans.lev, ans.liv)
        if status == "unbounded":
            # a backend's "unbounded" is a ray of the objective, which proves nothing about feasibility: when
            # every sticking contact detaches, t appears in no constraint and an *infeasible* set (tangent rows
            # pinning a tangential force on contacts with λ_n = 0) is reported "unbounded". Decide it.
            feas = conic.margin(signs, det, feasibility=True).status
            if feas == "failed":
                status = "failed"  # undecided here: the cvxpy program decides
            elif feas != "solved":
                return None, None
    if status == "failed":
        prob, t, L, le, li = _margin_program(p, a, atol, signs, det, lam_n)
        status = run(prob)
        if status == "unbounded" and not _feasible(prob, run):
            return None, None
        if status == "solved" and t.value is not None:
            value, point = float(t.value), _values(L, le, li)
    if status == "unbounded":
        return float("inf"), None
    if status != "solved" or value is None:
        return None, None  # infeasible: no admissible forces and no contact to measure a (negative) margin on
    return float(value), point


def _values(L: Layout, le, li) -> tuple[np.ndarray, np.ndarray]:
    """The values of the cvxpy variables (λ_eq, λ_in) as arrays (empty blocks as empty arrays)."""
    lev = np.asarray(le.value).ravel() if L.pe else np.zeros(0)
    liv = np.asarray(li.value).ravel() if L.pg else np.zeros(0)
    return lev, liv


def contact_margins(p: ContactProblem, a: np.ndarray, atol: float, signs: dict, run, lam_n=None,
                    conic: MultiplierSetConic | None = None) -> dict[int, float]:
    """For each non-detaching sticking contact, max of ``μ_i s λ_n,i - ‖λ_t,i‖`` over Λ(a) ∩ cones (``conic``: the
    programs in Clarabel's form, tried first, as in :func:`margin`)."""
    det = set(int(i) for i in detaching(p, a, atol, lam_n))
    out = {}
    for i in Layout(p).sticking:
        if i in det:
            continue
        status, value = "failed", None
        if conic is not None:
            ans = conic.contact_margin(i, signs)
            status, value = ans.status, ans.value
            if status == "unbounded":
                feas = conic.feasible(None, signs).status
                status = "failed" if feas == "failed" else ("unbounded" if feas == "solved" else "infeasible")
        if status == "failed":
            import cvxpy as cp  # the fallback only: the direct path needs no cvxpy

            L, le, li, cons, _ = multiplier_set_constraints(p, a, atol, lam_n)
            cons += cone_constraints(L, le, li, p.friction, DISK, signs)
            obj = p.friction[i] * signs.get(i, 1) * L.normal(i, le, li) - cp.norm(L.tangent(i, le), 2)
            prob = cp.Problem(cp.Maximize(obj), cons)
            status = run(prob)
            if status == "unbounded" and not _feasible(prob, run):
                status = "infeasible"
            value = prob.value
        out[i] = float("inf") if status == "unbounded" else (float(value) if status == "solved" else float("nan"))
    return out


def _feasible(prob: cp.Problem, run) -> bool:
    """Is the constraint set of ``prob`` nonempty? (the same constraints, objective 0)"""
    import cvxpy as cp

    return run(cp.Problem(cp.Minimize(0), prob.constraints)) == "solved"


class _AffineSet:
    """The affine hull of Λ(a) in dense form: ``λ_act = (λ_eq, λ_in over the non-detaching rows)`` with
    ``J_actᵀ λ_act = r = M a + F`` (detaching rows carry λ = 0). Used to put a solver's multipliers
    exactly on it (a least-squares correction) before a ratio is read off, and to tell whether the
    normal multipliers of the sticking contacts are the same at every point of it."""

    def __init__(self, p: ContactProblem, a: np.ndarray, atol: float, lam_n=None):
        from ..linalg.dense import as_dense

        E, _ = p.equalities
        G, _ = p.inequalities
        self.L = L = Layout(p)
        self.det = set(int(i) for i in detaching(p, a, atol, lam_n))
        self.keep = np.array([k for k, i in enumerate(p.unilateral) if int(i) not in self.det], dtype=int)
        J = np.vstack([as_dense(E).reshape(L.pe, p.n), as_dense(G).reshape(L.pg, p.n)[self.keep]])
        self.J = J
        Ma = np.asarray(p.M @ a).ravel()
        self.r = Ma + p.F
        self.load_terms = max(float(np.abs(Ma).max(initial=0.0)), float(np.abs(p.F).max(initial=0.0)))
        self.pinv = np.linalg.pinv(J.T) if J.size else np.zeros((0, p.n))

    def project(self, lev: np.ndarray, liv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(λ_eq, λ_in) moved by the least-squares correction onto ``J_actᵀλ = r``."""
        x = np.concatenate([lev, liv[self.keep]])
        x = x + self.pinv @ (self.r - self.J.T @ x)
        li = np.zeros_like(liv)
        li[self.keep] = x[self.L.pe:]
        return x[:self.L.pe], li

    def pinned_normals(self, p: ContactProblem) -> dict[int, float] | None:
        """{contact: λ_n} when every sticking normal multiplier is the same on the whole affine hull
        (its coordinate is zero in every kernel vector of ``J_actᵀ``), else None."""
        from ..linalg.dense import null_space

        if self.J.shape[0] == 0:
            return None
        K = null_space(self.J.T)
        x0 = self.pinv @ self.r
        out = {}
        for i in self.L.sticking:
            if i in self.det:
                continue
            k = self.L.pos_b[i] if i in self.L.pos_b else self.L.pe + int(np.searchsorted(self.keep, self.L.pos_u[i]))
            if K.shape[1] and float(np.abs(K[k]).max()) > KERNEL_COMPONENT_TOL:
                return None
            out[i] = float(x0[k])
        return out


def achieved_ratio(p: ContactProblem, L: Layout, lev: np.ndarray, liv: np.ndarray, det: set,
                   zero: float) -> float:
    """``max_i ‖λ_t,i‖ / |λ_n,i|`` over the sticking contacts for given multipliers (inf when a contact
    with a tangential force has no normal force, e.g. a detaching one); tangential forces below ``zero``
    count as zero. Every value of it at a point of Λ(a) is a friction coefficient that works."""
    worst = 0.0
    for i in L.sticking:
        t = float(np.linalg.norm(L.tangent(i, lev)))
        if t <= zero:
            continue
        nrm = 0.0 if i in det else abs(float(L.normal(i, lev, liv)))
        worst = max(worst, t / nrm if nrm > zero else float("inf"))
    return worst


def _direct_mu_min(p: ContactProblem, a, atol, run, lam_n, aff: _AffineSet, normals: dict[int, float],
                   conic: MultiplierSetConic | None = None):
    """μ_min's upper end when the sticking normal multipliers are pinned on Λ(a): ``min μ`` s.t. λ ∈ Λ(a),
    ``‖λ_t,i‖ <= μ |λ*_n,i|`` on the pinned contacts and ``λ_t,i = 0`` on the detaching sticking ones (``λ_n,i = 0``:
    their disk, sticking (14b), is {0} for every μ) is then one LP (2D) or SOCP (3D) in (μ, λ) (sticking Prop. 11
    with the normal forces fixed). Returns the achieved ratio of the solution put exactly on the affine hull, a
    friction coefficient that provably works, inf when the program is ``infeasible`` (μ is one of its variables:
    no μ works), or None when it ends anything else (``conic``: the program in Clarabel's form, tried first). The
    lower end is proven by the caller (:func:`mu_min_bracket`)."""
    no_force = tuple(i for i in aff.L.sticking if i in aff.det)
    point = None
    if conic is not None:
        ans = conic.min_common_mu(normals, no_force)
        if ans.status == "solved":
            point = (ans.lev, ans.liv)
        elif ans.status != "failed":
            return float("inf") if ans.status == "infeasible" else None
    if point is None:
        import cvxpy as cp  # the fallback only: the direct path needs no cvxpy

        L, le, li, cons, _ = multiplier_set_constraints(p, a, atol, lam_n)
        mu = cp.Variable(nonneg=True)
        for i, lam in normals.items():
            cons.append(cp.norm(L.tangent(i, le), 2) <= mu * abs(lam))
        for i in no_force:
            cons.append(L.tangent(i, le) == 0)
        prob = cp.Problem(cp.Minimize(mu), cons)
        status = run(prob)
        if status == "infeasible":
            return float("inf")
        if status != "solved" or mu.value is None:
            return None
        point = _values(L, le, li)
    lev, liv = aff.project(*point)
    return achieved_ratio(p, aff.L, lev, liv, aff.det, _zero(aff))


def _zero(aff: _AffineSet) -> float:
    """Forces below 1e-9 of the load's terms ``max(‖M a‖∞, ‖F‖∞)`` count as zero (the rule of
    :func:`singleton_verdict`): a ratio of two solver-noise forces says nothing."""
    return ZERO_FORCE_RTOL * aff.load_terms


def mu_min(p: ContactProblem, a: np.ndarray, atol: float, run, lam_n=None,
           conic: MultiplierSetConic | None = None) -> float | None:
    """Smallest common μ making Λ(a) ∩ cones(μ) nonempty (sticking Prop. 11): the upper end of
    :func:`mu_min_bracket` (inf when no μ up to MU_MAX works, proven; None when undecided)."""
    return mu_min_bracket(p, a, atol, run, lam_n, conic)[1]


def mu_min_bracket(p: ContactProblem, a: np.ndarray, atol: float, run, lam_n=None,
                   conic: MultiplierSetConic | None = None, why: list | None = None
                   ) -> tuple[float | None, float | None]:
    """``(lower, μ_min)``, both ends proven: ``μ_min`` a common friction coefficient that works (the achieved ratio
    of a point of Λ(a) ∩ cones(μ_min) put exactly on the affine hull of Λ(a)), ``lower`` the largest μ at which every
    sign pattern's program ended ``infeasible`` (0.0 when none did: μ >= 0 is no claim), so the smallest common μ
    of sticking Prop. 11 lies in ``[lower, μ_min]``. ``(lower, inf)`` when the program at the largest μ tried (up
    to :data:`MU_MAX`) ended ``infeasible`` (the set is monotone in μ: no μ up to it works). ``(lower, None)`` when
    it cannot be decided: a status that decides nothing is never read as "infeasible" (13 of 1,000 sticking
    problems of issue #25 reported inf where a common μ works). ``why``: a list that receives the reason of an
    undecided answer.

    Λ(a) is the same set at every optimal ``a`` of F1 (its KKT pairs are primal optima × dual optima), so this is
    μ_min over the whole sticking solution set, the quantity a solve at common μ decides.

    - Sticking normal forces pinned on Λ(a) (e.g. redundant tangent rows only): one program gives the upper end,
      :func:`_direct_mu_min`; one feasibility program at ``μ_min (1 − MU_LOWER_PROOF_RTOL)`` proves the lower end,
      else the bisection below runs from it.
    - Otherwise (quasi-convex: μ multiplies the variable λ_n) bisection on the conic feasibility of
      Λ(a), where each *feasible* answer is put exactly on the affine hull of Λ(a) and its achieved
      ratio :func:`achieved_ratio` becomes the upper end (a friction coefficient that provably works,
      never the solver's tolerance below it), and only an ``infeasible`` status moves the lower end: a
      status that decides nothing ends the bisection at the achieved upper end instead of being read as
      infeasible (which made μ_min too large). It stops when ``hi − lo`` reaches :data:`MU_RTOL` or when the
      proven bracket ``[lo, best]`` reaches :data:`MU_BRACKET_RTOL`.

    ``conic``: the feasibility programs in Clarabel's form (:mod:`gaussqp.friction.multiplier_conic`), tried
    first; the cvxpy program of a sign pattern is built only when its Clarabel form ends undecided.
    """
    why = [] if why is None else why
    L = Layout(p)
    aff = _AffineSet(p, a, atol, lam_n) if p.n <= AFFINE_SET_DENSE_MAX and p.m <= AFFINE_SET_DENSE_MAX else None
    patterns = list(L.sign_patterns())
    progs: dict = {}  # the cvxpy programs (μ a Parameter), built when the Clarabel form of one decides nothing

    def program(k: int):
        import cvxpy as cp  # the fallback only: the direct path needs no cvxpy

        if "mu" not in progs:
            progs["mu"] = cp.Parameter(p.m, nonneg=True)
        if k not in progs:
            L2, le, li, cons, _ = multiplier_set_constraints(p, a, atol, lam_n)
            cons += cone_constraints(L2, le, li, progs["mu"], DISK, patterns[k])
            progs[k] = (cp.Problem(cp.Minimize(0), cons), le, li)
        return progs[k]

    def feasible_point(k: int, value: float) -> tuple[str, tuple | None]:
        if conic is not None:
            ans = conic.feasible(np.full(p.m, value), patterns[k])
            if ans.status != "failed":
                return ans.status, (ans.lev, ans.liv)
        pr, le, li = program(k)
        progs["mu"].value = np.full(p.m, value)
        st = run(pr)
        return st, (_values(L, le, li) if st == "solved" else None)

    def attempt(value: float) -> tuple[str, float]:
        """('feasible', achieved ratio) | ('infeasible', nan) | ('undecided', nan)"""
        statuses = []
        for k in range(len(patterns)):
            st, point = feasible_point(k, value)
            statuses.append(st)
            if st == "solved":
                if aff is None:
                    return "feasible", value
                lev, liv = aff.project(*point)
                got = achieved_ratio(p, L, lev, liv, aff.det, _zero(aff))
                # the solver's point works with its own ratio; one far above ``value`` decides nothing
                return ("feasible", got) if got <= value * (1 + MU_ACCEPT_RTOL) + _zero(aff) else ("undecided", got)
        return ("infeasible" if all(s == "infeasible" for s in statuses) else "undecided"), float("nan")

    lo, hi, best = 0.0, None, None
    normals = aff.pinned_normals(p) if aff is not None else None
    if normals is not None:
        direct = _direct_mu_min(p, a, atol, run, lam_n, aff, normals, conic)
        if direct == float("inf"):
            return float("inf"), float("inf")  # the program in (μ, λ) is infeasible: no μ at all works
        if direct is not None:
            hi = best = direct
            if best == 0.0:
                return 0.0, 0.0
            # the lower end: below the backend's feasibility tolerance (MU_ACCEPT_RTOL) a program near the optimum
            # decides nothing, so the proof is asked at MU_LOWER_PROOF_RTOL below the optimum
            cand = best * (1 - MU_LOWER_PROOF_RTOL)
            st, val = attempt(cand)
            if st == "infeasible":
                return cand, best
            if st == "feasible":
                hi, best = cand, min(best, val)
    if hi is None:
        st, val = attempt(0.0)
        if st == "feasible":
            return 0.0, 0.0
        hi = max(1.0, float(p.friction[p.sticking].max(initial=0.0)))
        while True:
            st, val = attempt(hi)
            if st == "feasible":
                break
            if st == "infeasible":
                lo = hi  # proven: the set is monotone in μ, so every μ <= hi fails too
            grown = hi * 4.0
            if grown > MU_MAX:
                if st == "infeasible":
                    return lo, float("inf")
                why.append(f"the feasibility program at μ = {hi:.6g} decided nothing (status other than solved or "
                           "infeasible): μ_min is not proven finite nor infinite")
                return lo, None
            hi = grown
        best = val  # the smallest ratio achieved by a point of Λ(a): a friction coefficient that works
    for _ in range(MU_BISECTION_MAX):
        if hi - lo <= MU_RTOL * max(hi, MU_FLOOR) or best - lo <= MU_BRACKET_RTOL * max(best, MU_FLOOR):
            break
        for frac in (0.5, 0.25, 0.75):  # a backend that decides nothing at the midpoint: try the quarters
            mid = lo + frac * (hi - lo)
            st, val = attempt(mid)
            if st != "undecided":
                break
        if st == "feasible":
            hi, best = mid, min(best, val)
        elif st == "infeasible":
            lo = mid
        else:
            break
    return lo, best


def _exact_point(p: ContactProblem, a, atol, lam_n, lam_t):
    """(λ_n, λ_t) put on the affine hull of Λ(a) (see :class:`_AffineSet`)."""
    L = Layout(p)
    S = L.sticking
    lev = np.concatenate([lam_n[p.bilateral], lam_t[S].ravel()]) if L.pe else np.zeros(0)
    liv = lam_n[p.unilateral] if L.pg else np.zeros(0)
    aff = _AffineSet(p, a, atol, lam_n)
    lev, liv = aff.project(lev, liv)
    ln, lt = lam_n.copy(), lam_t.copy()
    ln[p.bilateral] = lev[:L.mb]
    ln[p.unilateral] = liv
    if len(S):
        lt[S] = lev[L.mb:].reshape(len(S), L.d1)
    return ln, lt


def singleton_verdict(p: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray,
                      feasible: bool) -> StickingVerdict:
    """The verdict when the multiplier rows ``J_all`` are independent (tutorial Prop. 3(i), 7(i)): then
    Λ(a) without the cones is {λ*} (the solution's multipliers; when sticking is infeasible, F1's at the
    same acceleration), and everything is read off λ* exactly, with no program: the margin is
    ``min_i μ_i |λ_n,i| - ‖λ_t,i‖`` over the non-detaching sticking contacts (None when a detaching
    contact carries a tangential force: no μ helps), the boundary contacts (feasible case) are those
    where it vanishes (sticking Prop. 4(ii)), and ``μ_min = max_i ‖λ_t,i‖ / |λ_n,i|`` (sticking
    Prop. 11 with a single admissible force).

    λ* is recomputed exactly (up to :data:`SINGLETON_DENSE_MAX` coordinates): the solver's multipliers
    are put on the affine hull of Λ(a) by a least-squares correction, which *is* λ* when the hull is a
    point, so μ_min and the margin do not inherit the backend's tolerance (an interior-point answer of
    a degenerate problem is off by about the square root of it). Forces below 1e-9 of the load's
    terms ``max(‖M a‖∞, ‖F‖∞)`` (the data of Λ(a), not the multipliers judged) count as zero."""
    atol = active_tolerance(p, a)
    det = [int(i) for i in detaching(p, a, atol, lam_n) if p.modes[i] == "sticking"]
    L = Layout(p)
    lam_n = np.asarray(lam_n, dtype=float)
    lam_t = np.asarray(lam_t, dtype=float).reshape(p.m, p.dimension - 1)
    Ma = np.asarray(p.M @ a).ravel()
    # the terms of the load M a + F, not their sum: a zero load (free flight) is round-off of them
    load = max(float(np.abs(Ma).max(initial=0.0)), float(np.abs(p.F).max(initial=0.0)))
    if p.n <= SINGLETON_DENSE_MAX and p.m <= SINGLETON_DENSE_MAX:
        lam_n, lam_t = _exact_point(p, a, atol, lam_n, lam_t)
    zero = ZERO_FORCE_RTOL * load
    slack, ratio, pinned = {}, 0.0, False
    for i in L.sticking:
        t, nrm = float(np.linalg.norm(lam_t[i])), abs(float(lam_n[i]))
        if i not in det:
            slack[i] = p.friction[i] * nrm - t
        elif t > zero:
            pinned = True  # a detaching contact has λ_n = 0, so its disk is {0}
        if t > zero:
            ratio = max(ratio, t / nrm if nrm > zero else float("inf"))
    scale = load
    signs = {i: (1 if lam_n[i] >= 0 else -1) for i in L.bilateral_sticking}
    margin = None if pinned else (min(slack.values()) if slack else float("inf"))
    if not feasible and margin is not None and margin > 0:
        margin = None  # a positive margin contradicts the infeasible answer: not measured, never +inf
    return StickingVerdict(feasible=feasible, margin=margin,
                           boundary_contacts=[i for i, x in slack.items() if x <= BOUNDARY_RTOL * scale] if feasible else [],
                           detaching_contacts=det, mu_min=ratio, active_tolerance=atol,
                           boundary_test="exact (unique multipliers)", signs=signs,
                           acceleration=np.asarray(a, dtype=float), multipliers=(lam_n, lam_t))


def analyze(p: ContactProblem, a: np.ndarray, feasible: bool | None, solver: str | None, tol: Tolerance,
            want_mu_min: bool = True, lam_n: np.ndarray | None = None) -> StickingVerdict:
    """The verdict at acceleration ``a`` (F4's when sticking is feasible, F1's otherwise); ``lam_n``, the
    normal multipliers of the same solution, keeps rows with a nonzero force active (see
    :func:`gaussqp.friction.multiplier_set.detaching`)."""
    needs = "socp" if p.dimension >= 3 else "qp"
    name = solver if needs == "qp" or solver != "osqp" else None
    chosen: dict = {}

    def run(prob: cp.Problem) -> str:  # every cvxpy program of the verdict, through the single solve path
        if "backend" not in chosen:  # resolved once (a lookup costs ~1 ms), and only when a cvxpy program runs
            chosen["backend"] = get_backend(name, needs=needs)
        return solve_program(prob, chosen["backend"], tol, needs)[1]

    atol = active_tolerance(p, a)
    # the programs in Clarabel's form, built once on Λ(a) (issue #15); the cvxpy programs are their fallback
    direct = direct_backend(name, needs, DIRECT_CONIC_BACKENDS)
    conic = MultiplierSetConic(p, a, atol, lam_n, direct, tol) if direct is not None else None
    det = [int(i) for i in detaching(p, a, atol, lam_n) if p.modes[i] == "sticking"]
    L = Layout(p)
    best, best_signs, best_point = None, {}, None
    for signs in L.sign_patterns():
        m, point = margin(p, a, atol, signs, run, lam_n, conic)
        if m is not None and (best is None or m > best):
            best, best_signs, best_point = m, signs, point
    v = StickingVerdict(feasible=feasible, margin=best, detaching_contacts=det, active_tolerance=atol,
                        signs=best_signs)
    if best_point is not None and best_point[0] is not None and best_point[1] is not None:
        v.acceleration = np.asarray(a, dtype=float)
        v.multipliers = assemble_multipliers(p, np.asarray(best_point[0], dtype=float).ravel(),
                                             np.asarray(best_point[1], dtype=float).ravel())
    # the contact force M a + F = Jᵀλ itself, not max(1, |M a + F|): in units of 1e-6 a contact with a margin of
    # 1e-3 of its load was on the boundary
    scale = float(np.abs(np.asarray(p.M @ a).ravel() + p.F).max(initial=0.0))
    if feasible and best is not None and np.isfinite(best):
        if len(L.sticking) <= BOUNDARY_EXACT_MAX:
            cm = contact_margins(p, a, atol, best_signs, run, lam_n, conic)
            v.boundary_contacts = [i for i, x in cm.items() if x <= BOUNDARY_RTOL * scale]
        elif best_point is not None:
            v.boundary_test = "at the max-margin multipliers"
            lev, liv = best_point
            for i in L.sticking:
                if i in det:
                    continue
                slack = p.friction[i] * best_signs.get(i, 1) * float(L.normal(i, lev, liv)) - \
                    float(np.linalg.norm(L.tangent(i, lev)))
                if slack <= BOUNDARY_RTOL * scale:
                    v.boundary_contacts.append(i)
    if want_mu_min:
        why: list = []
        v.mu_min_lower, v.mu_min = mu_min_bracket(p, a, atol, run, lam_n, conic, why)
        v.mu_min_reason = why[0] if v.mu_min is None and why else None
    return v


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
              "found_on_pieces": [list(s.pieces) for s in sols], "modes": [list(s.modes) for s in sols],
              "coulomb_contacts": list(enum.coulomb),
              **({"evidence": {
                  "verify": "each solution (accelerations[k], lambda_normal[k], lambda_tangent[k]) satisfies the "
                            "contact problem: M a + F = J_nᵀλ_n + J_tᵀλ_t, every contact's row and law in its mode "
                            "(modes[k]); 'none' has no vector: every piece was solved and found empty",
                  "accelerations": [s.a for s in sols], "lambda_normal": [s.lam_n for s in sols],
                  "lambda_tangent": [s.lam_t for s in sols], "modes": [list(s.modes) for s in sols]}}
                 if sols else {})})


def p_matrix_certificate(problem: ContactProblem, lcp: ReducedSlidingLCP | None = None) -> Certificate:
    """Exact P-matrix test of the LCP matrix (58) (tutorial Prop. 13; Cottle–Pang–Stone Thm 3.3.7).

    ``lcp`` is the problem's LCP when the caller already built it (``sliding_lcp`` does)."""
    size = sum(problem.modes[i] == "sliding" for i in problem.bilateral) + len(problem.unilateral)
    if size > P_MATRIX_EXACT_MAX:  # decided before the dense reduction, which the test would not use
        return Certificate(id="p_matrix", name="LCP matrix (58) is a P-matrix", source="tutorial (58), Prop. 13",
                           holds=None, margin=float("nan"),
                           implies=f"size {size} > {P_MATRIX_EXACT_MAX}: the exact test by principal minors is "
                                   "not run; see friction_bounds for sufficient conditions")
    try:
        L = lcp if lcp is not None else sliding_lcp(reduce(problem))
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
        data={"form": L.form, "matrix": L.M, "witness": t.witness,
              **({} if t.witness is None else {"evidence": {
                  "verify": "det(matrix[I][:, I]) <= 0 for the principal index set I = principal_indices: the "
                            "matrix is not a P-matrix",
                  "matrix": L.M, "principal_indices": list(t.witness)}})})


def sliding_verdict(sol: Solution, enum: Enumeration | None = None) -> None:
    """Attach the uniqueness verdict of a sliding answer: the enumeration (exact for this instance) when
    at most :data:`ENUMERATION_MAX` contacts are enumerated, and the P-matrix test when M ≻ 0."""
    p = sol.problem
    if enum is None and len(enumerated_contacts(p)) <= ENUMERATION_MAX:
        enum = enumerate_solutions(p)
    if enum is not None and sol.certificate("sliding_enumeration") is not None:
        sol.certificates = [c for c in sol.certificates if c.id != "sliding_enumeration"]
    certs = []
    pm = (p_matrix_certificate(p, sol.extras.get("lcp")) if p.mass_factor.definite and not len(p.sticking)
          else None)
    if pm is not None:
        certs.append(pm)
    unique = {"acceleration": None, "generalized_force": None, "multipliers": None}
    if enum is not None:
        ec = enumeration_certificate(p, enum)
        certs.append(ec)
        sol.enumeration = enum
        unique = _uniqueness(p, enum)
        if sol.status == SOLVED and sol.acceleration is not None:
            found = any(_same_multipliers(p, s.lam_n, sol.lambda_normal) for s in enum.solutions)
            sol.in_enumeration = bool(found) or enum.multiplier_multiplicity == "continuum"
    elif pm is not None and pm.holds:
        unique = {"acceleration": True, "generalized_force": True, "multipliers": True}
    sol.certificates += certs
    sol.unique = unique


def enumeration_verdict(sol: Solution, enum: Enumeration) -> None:
    """Attach the verdict of the exact enumeration alone (no P-matrix test): for a problem with "coulomb"
    contacts, whose stick/slip mode the enumeration decided (``coulomb_enumeration``). The instance
    certificates ``unique_acceleration`` / ``unique_multipliers`` of the judge describe F1's optimality
    conditions, in which a coulomb contact would be frictionless: they are replaced by the enumeration's
    decision, exact for this instance (issue #12: "unique" only from an exact route)."""
    p = sol.problem
    drop = {"sliding_enumeration", "unique_acceleration", "unique_multipliers"}
    sol.certificates = [c for c in sol.certificates if c.id not in drop]
    sol.certificates.append(enumeration_certificate(p, enum))
    sol.enumeration = enum
    sol.unique = _uniqueness(p, enum)
    if sol.status == SOLVED and sol.acceleration is not None:
        found = any(_same_multipliers(p, s.lam_n, sol.lambda_normal) for s in enum.solutions)
        sol.in_enumeration = bool(found) or enum.multiplier_multiplicity == "continuum"


def _same_multipliers(problem: ContactProblem, x: np.ndarray, y: np.ndarray) -> bool:
    """Do two normal multiplier vectors agree to :data:`IN_ENUMERATION_RTOL`, row by row in the data's units
    ``λ̂_i = λ_i ‖(J S)_i‖∞ / force`` (:mod:`gaussqp.model.scales`)? Not against ``max(1, |λ|)``: in units of
    1e-6 every answer matched every enumerated point."""
    sc = data_scales(problem)
    diff = np.abs(np.asarray(x, dtype=float) - np.asarray(y, dtype=float)) * sc.normal_weight / sc.force
    return bool(diff.max(initial=0.0) <= IN_ENUMERATION_RTOL)


_DECIDED = {"unique": True, "multiple": False, "continuum": False}


def _uniqueness(problem: ContactProblem, enum: Enumeration) -> dict:
    """``Solution.unique`` from the enumeration: the acceleration and the multipliers separately
    (:class:`gaussqp.friction.enumeration.Enumeration`). ``Jᵀλ = M a + F`` is unique with the acceleration; when the
    accelerations are not unique it is not unique either as soon as two found ``M a`` differ (M ≻ 0: always; on the
    force unit of the data, ``max(‖F‖∞, ‖M‖∞ · acceleration unit)``), else undecided."""
    a = _DECIDED.get(enum.multiplicity)
    gf = a
    if a is False and not problem.mass_factor.definite:
        M = as_dense(problem.M)
        unit = max(float(np.abs(problem.F).max(initial=0.0)),
                   float(np.abs(M).sum(axis=1).max(initial=0.0)) * enum.acceleration_scale)
        Ma = [M @ s.a for s in enum.solutions]
        gf = False if any(np.abs(x - Ma[0]).max(initial=0.0) > SAME_RTOL * unit for x in Ma) else None
    return {"acceleration": a, "generalized_force": gf, "multipliers": _DECIDED.get(enum.multiplier_multiplicity)}


def sticking_verdict(sol: Solution, solver: str | None, tol: Tolerance) -> None:
    """Put the :class:`~gaussqp.friction.verdict.StickingVerdict` in ``sol.sticking`` and
    settle multiplier uniqueness inside the cones: a polyhedral multiplier set that is not a
    singleton stays non-unique inside the cones when the margin is positive (a neighbourhood of
    the max-margin point lies in every cone); with margin 0 the question is left undecided."""
    p = sol.problem
    if sol.status in (SOLVED, INACCURATE) and sol.acceleration is not None:
        a, feasible = sol.acceleration, sol.status == SOLVED
    elif sol.status == INFEASIBLE and "a_cones_removed" in sol.extras:
        a, feasible = sol.extras["a_cones_removed"], False
    elif sol.status in (INFEASIBLE, UNBOUNDED):
        sol.sticking = StickingVerdict(feasible=False, margin=None, mu_min=float("inf"))
        return
    else:
        return
    if feasible:
        um = sol.certificate("unique_multipliers")
        single = um is not None and bool(um.holds) and bool(um.data.get("rows_independent"))
        lam = (sol.lambda_normal, sol.lambda_tangent)
    else:  # the multipliers of F1 (the sticking MLCP without cones) at the same acceleration
        fm = sol.extras.get("cones_removed_multipliers", {})
        single, lam = fm.get("rows_independent", False), (fm.get("lambda_normal"), fm.get("lambda_tangent"))
    if single:
        v = singleton_verdict(p, a, lam[0], lam[1], feasible)
    else:
        v = analyze(p, a, feasible, solver, tol, lam_n=sol.lambda_normal if feasible else None)
    sol.sticking = v
    if feasible and sol.unique.get("multipliers") is False and v.margin is not None and \
            v.margin <= BOUNDARY_RTOL * float(np.abs(sol.generalized_force).max(initial=0.0)):
        sol.unique["multipliers"] = None
        sol.message = (sol.message + "; " if sol.message else "") + \
            "multiplier uniqueness inside the cones undecided (a contact is on its cone boundary)"

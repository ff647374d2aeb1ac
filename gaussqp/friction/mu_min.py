"""μ_min of the sticking verdict (sticking Prop. 11): the smallest friction coefficient, common to all sticking
contacts, for which the all-sticking problem is solvable, bracketed by :func:`mu_min_bracket` on the multiplier set
Λ(a) (split from :mod:`gaussqp.friction.verdict`).

Λ(a) is independent of μ, so the bisection on its conic feasibility is exact up to its tolerance; ``inf`` when no μ
works (proven), None when undecided. Every upper end is the achieved ratio :func:`achieved_ratio` of a point put
exactly on the affine hull of Λ(a) (:class:`AffineSet`), a friction coefficient that provably works; the lower end
moves only on an ``infeasible`` status or on a conic Farkas vector verified in NumPy (:func:`~gaussqp.friction.multiplier_set.farkas_lower_end`).

Each program is tried first in Clarabel's form (:mod:`gaussqp.friction.multiplier_conic`); the cvxpy program is its
definition and fallback. Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy is imported inside the
functions that use it, not when this module is imported.
"""

from __future__ import annotations

import numpy as np

from ..model.problem import ContactProblem
from ..settings import (
    AFFINE_SET_DENSE_MAX,
    KERNEL_COMPONENT_TOL,
    MU_ACCEPT_RTOL,
    MU_BISECTION_MAX,
    MU_BRACKET_RTOL,
    MU_DUAL_PROOF_RTOL,
    MU_DUAL_PROOF_WIDENING,
    MU_FLOOR,
    MU_LOWER_PROOF_RTOL,
    MU_LOWER_PROOF_WIDENING,
    MU_MAX,
    MU_RATIO_STEPS_MAX,
    MU_RATIO_STEPS_NEAR_RTOL,
    MU_RTOL,
    ZERO_FORCE_RTOL,
)
from .cones import DISK, Layout, cone_constraints
from .multiplier_conic import MultiplierSetConic
from .multiplier_set import detaching, farkas_lower_end, multiplier_set_constraints
from .sticking_margin import variable_values


class AffineSet:
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
        li[self.keep] = x[self.L.pe :]
        return x[: self.L.pe], li

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


def achieved_ratio(p: ContactProblem, L: Layout, lev: np.ndarray, liv: np.ndarray, det: set, zero: float) -> float:
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


def _ratio_steps(
    p: ContactProblem,
    L: Layout,
    aff: AffineSet,
    conic: MultiplierSetConic,
    signs: dict[int, int],
    theta: float,
    point: tuple[np.ndarray, np.ndarray],
    enough: float = MU_BRACKET_RTOL,
) -> tuple[float, tuple[np.ndarray, np.ndarray]]:
    """The upper end of μ_min by the Dinkelbach-type method of Crouzeix, Ferland & Schaible (1985) for the generalized
    fractional program ``min_λ max_i ‖λ_t,i‖ / λ_n,i`` over Λ(a) (sticking Prop. 11), from a point of Λ(a) achieving
    ``theta``: each step solves :meth:`~gaussqp.friction.multiplier_conic.MultiplierSetConic.ratio_step` at the
    current ratio with the current normal forces as weights, puts its point exactly on the affine hull and reads its
    achieved ratio :func:`achieved_ratio` (a friction coefficient that provably works, like every upper end of the
    bisection). It stops when a step gains less than ``enough`` (relative; :data:`MU_BRACKET_RTOL` unless the
    caller proves the lower end by :func:`_steps_and_proof`), ends other than solved, or after
    :data:`MU_RATIO_STEPS_MAX` steps. Returns the smallest ratio achieved (``theta`` when no step helped) and
    the point achieving it; the lower end is the caller's to prove."""
    lev, liv = point
    for _ in range(MU_RATIO_STEPS_MAX):
        if theta <= 0.0 or not np.isfinite(theta):
            break
        ans = conic.ratio_step(theta, _weights(L, aff, conic, (lev, liv)), signs)
        if ans.status != "solved" or ans.lev is None or ans.liv is None:
            break
        lev_n, liv_n = aff.project(ans.lev, ans.liv)
        got = achieved_ratio(p, L, lev_n, liv_n, aff.det, zero_force(aff))
        if not got < theta:
            break
        gain = theta - got
        theta, lev, liv = got, lev_n, liv_n
        if gain <= enough * max(theta, MU_FLOOR):
            break
    return theta, (lev, liv)


def _steps_and_proof(
    p: ContactProblem,
    L: Layout,
    aff: AffineSet,
    conic: MultiplierSetConic,
    signs: dict[int, int],
    theta: float,
    point: tuple[np.ndarray, np.ndarray],
) -> tuple[float, tuple[np.ndarray, np.ndarray], float | None]:
    """``(best, point, lower)``: the ratio steps :func:`_ratio_steps` from ``point`` (achieving ``theta``) until one
    gains less than :data:`MU_RATIO_STEPS_NEAR_RTOL`, then the lower end from one more program: the ratio step at
    ``best (1 − MU_DUAL_PROOF_RTOL)`` is strictly feasible (t is free), its optimum t > 0 when that θ is below μ_min,
    and the dual of its stationarity rows is then a conic Farkas vector, verified by
    :func:`~gaussqp.friction.multiplier_set.farkas_lower_end` (``lower``: the θ it proves too small). When it proves
    nothing, the same program was a ratio step: its point, put on the affine hull, replaces ``best`` when its achieved
    ratio is smaller, and the proof is asked again below the new ``best``; else it is asked farther below
    (:data:`MU_DUAL_PROOF_WIDENING`: t is met to the backend's absolute tolerance, at a small μ_min the first θ may be
    within it). ``lower`` None: no step proved it (the caller's feasibility programs then try). ``best`` is always the
    achieved ratio of ``point``, a point of Λ(a)."""
    best, point = _ratio_steps(p, L, aff, conic, signs, theta, point, MU_RATIO_STEPS_NEAR_RTOL)
    for _ in range(MU_RATIO_STEPS_MAX):
        if not (0.0 < best < float("inf")):
            return best, point, None
        w = _weights(L, aff, conic, point)
        moved = False
        for far in MU_DUAL_PROOF_WIDENING:
            cand = best * (1 - MU_DUAL_PROOF_RTOL * far)
            ans = conic.ratio_step(cand, w, signs)
            if ans.status != "solved" or ans.lev is None or ans.liv is None:
                continue
            lower = farkas_lower_end(p, conic.det, signs, conic.r, ans.y, cand, best)
            if lower is not None:
                return best, point, lower
            lev, liv = aff.project(ans.lev, ans.liv)
            got = achieved_ratio(p, L, lev, liv, aff.det, zero_force(aff))
            if got < best:  # cand was above μ_min: the program was one more ratio step
                best, point, moved = got, (lev, liv), True
                break
        if not moved:
            return best, point, None
    return best, point, None


def _weights(L: Layout, aff: AffineSet, conic: MultiplierSetConic, point: tuple) -> np.ndarray:
    """The ratio step's weights at ``point = (λ_eq, λ_in)``: the sticking normal forces in units of ρ (0 on the
    detaching contacts and below the zero force :func:`zero_force`)."""
    lev, liv = point
    w = np.array([0.0 if i in aff.det else max(abs(float(L.normal(i, lev, liv))), 0.0) for i in L.sticking])
    return np.where(w > zero_force(aff), w, 0.0) / conic.rho


def _direct_mu_min(
    p: ContactProblem,
    a,
    atol,
    run,
    lam_n,
    aff: AffineSet,
    normals: dict[int, float],
    conic: MultiplierSetConic | None = None,
):
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
        point = variable_values(L, le, li)
    lev, liv = aff.project(*point)
    return achieved_ratio(p, aff.L, lev, liv, aff.det, zero_force(aff))


def zero_force(aff: AffineSet) -> float:
    """Forces below 1e-9 of the load's terms ``max(‖M a‖∞, ‖F‖∞)`` count as zero (the rule of
    :func:`gaussqp.friction.sticking_analysis.singleton_verdict`): a ratio of two solver-noise forces says nothing."""
    return ZERO_FORCE_RTOL * aff.load_terms


def mu_min(
    p: ContactProblem, a: np.ndarray, atol: float, run, lam_n=None, conic: MultiplierSetConic | None = None
) -> float | None:
    """Smallest common μ making Λ(a) ∩ cones(μ) nonempty (sticking Prop. 11): the upper end of
    :func:`mu_min_bracket` (inf when no μ up to MU_MAX works, proven; None when undecided)."""
    return mu_min_bracket(p, a, atol, run, lam_n, conic)[1]


def start_point(aff: AffineSet, point: tuple | None) -> tuple[np.ndarray, np.ndarray] | None:
    """``point = (λ_eq, λ_in)`` of a solved program on Λ(a) (e.g. the margin's, :func:`~gaussqp.friction.sticking_margin.
    margin`) put exactly on the affine hull of Λ(a) (:meth:`AffineSet.project`), or None when it is not a point of
    Λ(a): an entry missing, or a unilateral multiplier below minus the zero force :func:`zero_force` (the sign rule of
    :func:`achieved_ratio`). Its achieved ratio is then an upper end of μ_min (sticking Prop. 11: μ_min is the least
    ``max_i ‖λ_t,i‖/λ_n,i`` over Λ(a)), whatever program found it."""
    if point is None or point[0] is None or point[1] is None:
        return None
    lev, liv = aff.project(np.asarray(point[0], dtype=float).ravel(), np.asarray(point[1], dtype=float).ravel())
    if not (np.all(np.isfinite(lev)) and np.all(np.isfinite(liv))) or float(liv.min(initial=0.0)) < -zero_force(aff):
        return None
    return lev, liv


def mu_min_bracket(
    p: ContactProblem,
    a: np.ndarray,
    atol: float,
    run,
    lam_n=None,
    conic: MultiplierSetConic | None = None,
    why: list | None = None,
    aff: AffineSet | None = None,
    start: tuple | None = None,
) -> tuple[float | None, float | None]:
    """``(lower, μ_min)``, both ends proven: ``μ_min`` a common friction coefficient that works (the achieved ratio
    of a point of Λ(a) ∩ cones(μ_min) put exactly on the affine hull of Λ(a)), ``lower`` the largest μ at which every
    sign pattern's program ended ``infeasible`` (0.0 when none did: μ >= 0 is no claim), so the smallest common μ
    of sticking Prop. 11 lies in ``[lower, μ_min]``. ``(lower, inf)`` when the program at the largest μ tried (up
    to :data:`MU_MAX`) ended ``infeasible`` (the set is monotone in μ: no μ up to it works). ``(lower, None)`` when
    it cannot be decided: a status that decides nothing is never read as "infeasible" (13 of 1,000 sticking
    problems of the verdict sweep reported inf where a common μ works). ``why``: a list that receives the reason of an
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
      proven bracket ``[lo, best]`` reaches :data:`MU_BRACKET_RTOL`. With Clarabel's form and one sign pattern, once
      a first point is feasible, the ratio steps :func:`_ratio_steps` (Crouzeix–Ferland–Schaible) bring the upper end
      to μ_min in a few programs, and one more ratio step :data:`MU_DUAL_PROOF_RTOL` below it proves the lower end
      by its dual (a conic Farkas vector verified in NumPy, :func:`~gaussqp.friction.multiplier_set.farkas_lower_end`): the bracket is then narrower
      than :data:`MU_BRACKET_RTOL` and nothing else runs (the humanoid: 4–5 programs with the margin's); farther below
      (:data:`MU_DUAL_PROOF_WIDENING`) while it proves nothing (:func:`_steps_and_proof`). When no step proves it, one feasibility program
      :data:`MU_LOWER_PROOF_RTOL` below (widened while undecided) tries to prove the lower end, and the bisection goes
      on from that bracket until it is within :data:`MU_ACCEPT_RTOL` of ``best``.

    ``conic``: the feasibility programs in Clarabel's form (:mod:`gaussqp.friction.multiplier_conic`), tried
    first; the cvxpy program of a sign pattern is built only when its Clarabel form ends undecided.

    ``start``: a point ``(λ_eq, λ_in)`` of Λ(a) a program of the caller already found (the sticking margin's optimum:
    with a common μ the margin program *is* the first ratio step, at θ = μ with unit weights). With Clarabel's form
    and one sign pattern, the ratio steps then start from it (:func:`start_point`): the feasibility programs at
    μ = 0 and at the first μ that works are not needed (the one at μ = 0 runs only when no lower end was proven
    below the steps' optimum). ``aff``: the affine hull of Λ(a) when the caller built it (:class:`AffineSet`).
    """
    why = [] if why is None else why
    L = Layout(p)
    if aff is None and p.n <= AFFINE_SET_DENSE_MAX and p.m <= AFFINE_SET_DENSE_MAX:
        aff = AffineSet(p, a, atol, lam_n)
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
        return st, (variable_values(L, le, li) if st == "solved" else None)

    last: dict = {}  # the last feasible point put on the affine hull (the start of the ratio steps)

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
                got = achieved_ratio(p, L, lev, liv, aff.det, zero_force(aff))
                last["point"] = (lev, liv)
                # the solver's point works with its own ratio; one far above ``value`` decides nothing
                return (
                    ("feasible", got) if got <= value * (1 + MU_ACCEPT_RTOL) + zero_force(aff) else ("undecided", got)
                )
        return ("infeasible" if all(s == "infeasible" for s in statuses) else "undecided"), float("nan")

    lo, hi, best = 0.0, None, None
    stepped = False  # the upper end came from the ratio steps (_ratio_steps)
    normals = aff.pinned_normals(p) if aff is not None else None
    begun = start_point(aff, start) if (aff is not None and conic is not None and len(patterns) == 1) else None
    if normals is None and begun is not None:
        got = achieved_ratio(p, L, *begun, aff.det, zero_force(aff))
        if np.isfinite(got):
            hi, _, proven = _steps_and_proof(p, L, aff, conic, patterns[0], got, begun)
            best = hi
            if best == 0.0:
                return 0.0, 0.0  # a point of Λ(a) with no tangential force: μ = 0 works
            stepped = True
            if proven is not None:
                lo = proven
            for far in MU_LOWER_PROOF_WIDENING if proven is None else ():  # the lower end, as after the steps below
                cand = best * (1 - MU_LOWER_PROOF_RTOL * far)
                st, val = attempt(cand)
                if st == "infeasible":
                    lo = max(lo, cand)
                    break
                if st == "feasible":
                    hi, best = cand, min(best, val)
            if lo == 0.0:  # no lower end proven: μ = 0 is the one program the start replaced that still decides
                st, val = attempt(0.0)
                if st == "feasible":
                    return 0.0, 0.0
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
                why.append(
                    f"the feasibility program at μ = {hi:.6g} decided nothing (status other than solved or "
                    "infeasible): μ_min is not proven finite nor infinite"
                )
                return lo, None
            hi = grown
        best = val  # the smallest ratio achieved by a point of Λ(a): a friction coefficient that works
        if conic is not None and aff is not None and len(patterns) == 1 and "point" in last:
            # the ratio steps bring the upper end to μ_min in a few programs; one program just below it
            # proves the lower end, and the bisection below goes on from the proven bracket as before
            ratio, _, proven = _steps_and_proof(p, L, aff, conic, patterns[0], best, last["point"])
            if ratio < best:
                hi = best = ratio
                stepped = True
                # the lower end: one ratio step just below, its dual verified (_steps_and_proof); else a program
                # MU_LOWER_PROOF_RTOL below, then 10×, 100×, 1000× farther while the backend decides nothing there (it
                # may claim a point whose exact ratio is above the μ asked: undecided)
                if proven is not None:
                    lo = max(lo, proven)
                for far in MU_LOWER_PROOF_WIDENING if proven is None else ():
                    cand = best * (1 - MU_LOWER_PROOF_RTOL * far)
                    st, val = attempt(cand)
                    if st == "infeasible":
                        lo = max(lo, cand)
                        break
                    if st == "feasible":
                        hi, best = cand, min(best, val)
    for _ in range(MU_BISECTION_MAX):
        if hi - lo <= MU_RTOL * max(hi, MU_FLOOR) or best - lo <= MU_BRACKET_RTOL * max(best, MU_FLOOR):
            break
        if stepped and hi - lo <= MU_ACCEPT_RTOL * max(best, MU_FLOOR):
            # after the ratio steps, best is μ_min to the backend's accuracy: within MU_ACCEPT_RTOL of it a
            # feasibility claim is accepted at a ratio up to value · (1 + MU_ACCEPT_RTOL), so the midpoints of a bracket
            # this narrow only confirm it (on the humanoid, ~15 programs that moved lo by 1e-7 and best not at all)
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

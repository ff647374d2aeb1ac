"""The sticking verdict: margin, contacts on the cone boundary, detaching contacts, μ_min.

All quantities are computed on the multiplier set Λ(a) of :mod:`gaussqp.sticking` (fixed
acceleration; its active set needs a tolerance, which is reported):

- ``margin`` = max over Λ(a) of min over the non-detaching sticking contacts of
  ``μ_i |λ_n,i| - ‖λ_t,i‖`` (force units). ``> 0``: some admissible forces lie strictly inside
  every cone, so sticking persists for continuous data (sticking Prop. 4(i)); ``= 0``: every
  admissible force has a contact on its cone boundary (Prop. 4(ii): stick→slip possible);
  ``< 0``: no admissible forces (sticking infeasible), by that much. ``inf`` when internal forces
  can grow without bound inside the cones.
- ``boundary_contacts``: contacts whose own ``max μ_i|λ_n,i| - ‖λ_t,i‖`` over Λ(a) ∩ cones is 0
  (they are on the boundary for *every* admissible force: exact, one SOCP each, up to
  :data:`gaussqp.sticking.BOUNDARY_EXACT_MAX` contacts; beyond, at the max-margin forces).
- ``detaching_contacts``: unilateral sticking contacts with ``n_i a + b_i > 0`` (they leave, Prop. 4
  and footnote 3 of the sticking paper).
- ``mu_min``: the smallest friction coefficient, common to all sticking contacts, for which the
  all-sticking problem is solvable (sticking Prop. 11), by bisection on the conic feasibility of
  Λ(a) (independent of μ, so this is exact up to the bisection tolerance); ``inf`` when no μ works.

When the multiplier rows are independent, Λ(a) is a single point (the solution's multipliers, or
F1's when sticking is infeasible) and :func:`singleton_verdict` reads all four off it without a program.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np

from . import sticking as stk
from .backends import get_backend, run_cvxpy
from .problem import ContactProblem
from .tolerances import Tolerance

MU_MAX = 1e6
MU_RTOL = 1e-8


@dataclass
class StickingVerdict:
    feasible: bool | None
    margin: float | None
    boundary_contacts: list[int] = field(default_factory=list)
    detaching_contacts: list[int] = field(default_factory=list)
    mu_min: float | None = None
    active_tolerance: float = 0.0
    boundary_test: str = "exact"
    signs: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        from .solution import _json_float

        return {"feasible": self.feasible, "margin": _json_float(self.margin) if self.margin is not None else None,
                "boundary_contacts": list(self.boundary_contacts), "detaching_contacts": list(self.detaching_contacts),
                "mu_min": _json_float(self.mu_min) if self.mu_min is not None else None,
                "active_tolerance": self.active_tolerance, "boundary_test": self.boundary_test}


class _Runner:
    def __init__(self, solver, tol, needs):
        self.backend = get_backend(solver, needs=needs)
        self.tol = tol

    def __call__(self, prob) -> str:
        status, _ = run_cvxpy(prob, self.backend, self.tol)
        return status


def _margin_program(p: ContactProblem, a, atol, signs, det, lam_n=None):
    L, le, li, cons, _ = stk.multiplier_set_constraints(p, a, atol, lam_n)
    t = cp.Variable(name="t")
    cons += stk.cone_constraints(L, le, li, p.friction, stk.DISK, signs, slack=t, no_slack=det)
    return cp.Problem(cp.Maximize(t), cons), t, L, le, li


def margin(p: ContactProblem, a: np.ndarray, atol: float, signs: dict, run,
           lam_n=None) -> tuple[float | None, tuple | None]:
    """max-min cone margin on Λ(a) for one sign pattern; (value, (L, le, li)) or (None, None)."""
    det = frozenset(int(i) for i in stk.detaching(p, a, atol, lam_n))
    prob, t, L, le, li = _margin_program(p, a, atol, signs, det, lam_n)
    status = run(prob)
    if status == "unbounded":
        return float("inf"), None
    if status == "infeasible":
        return None, None  # no admissible forces and no contact to measure a (negative) margin on
    if status != "solved" or t.value is None:
        return None, None
    return float(t.value), (L, le, li)


def contact_margins(p: ContactProblem, a: np.ndarray, atol: float, signs: dict, run, lam_n=None) -> dict[int, float]:
    """For each non-detaching sticking contact, max of ``μ_i s λ_n,i - ‖λ_t,i‖`` over Λ(a) ∩ cones."""
    det = set(int(i) for i in stk.detaching(p, a, atol, lam_n))
    out = {}
    for i in stk.Layout(p).sticking:
        if i in det:
            continue
        L, le, li, cons, _ = stk.multiplier_set_constraints(p, a, atol, lam_n)
        cons += stk.cone_constraints(L, le, li, p.friction, stk.DISK, signs)
        obj = p.friction[i] * signs.get(i, 1) * L.normal(i, le, li) - cp.norm(L.tangent(i, le), 2)
        prob = cp.Problem(cp.Maximize(obj), cons)
        status = run(prob)
        out[i] = float("inf") if status == "unbounded" else (float(prob.value) if status == "solved" else float("nan"))
    return out


def mu_min(p: ContactProblem, a: np.ndarray, atol: float, run, lam_n=None) -> float:
    """Smallest common μ making Λ(a) ∩ cones(μ) nonempty (bisection; inf if none up to MU_MAX)."""
    L = stk.Layout(p)
    mu = cp.Parameter(p.m, nonneg=True)
    progs = []
    for signs in L.sign_patterns():
        L2, le, li, cons, _ = stk.multiplier_set_constraints(p, a, atol, lam_n)
        cons += stk.cone_constraints(L2, le, li, mu, stk.DISK, signs)
        progs.append(cp.Problem(cp.Minimize(0), cons))

    def feasible(value: float) -> bool:
        mu.value = np.full(p.m, value)
        return any(run(pr) == "solved" for pr in progs)

    if feasible(0.0):
        return 0.0
    hi = max(1.0, float(p.friction[p.sticking].max(initial=0.0)))
    while not feasible(hi):
        hi *= 4.0
        if hi > MU_MAX:
            return float("inf")
    lo = 0.0
    while hi - lo > MU_RTOL * max(hi, 1e-12):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if feasible(mid) else (mid, hi)
    return hi


def singleton_verdict(p: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray,
                      feasible: bool) -> StickingVerdict:
    """The verdict when the multiplier rows ``J_all`` are independent (tutorial Prop. 3(i), 7(i)): then
    Λ(a) without the cones is {λ*} (the solution's multipliers; when sticking is infeasible, F1's at the
    same acceleration), and everything is read off λ* exactly, with no program: the margin is
    ``min_i μ_i |λ_n,i| - ‖λ_t,i‖`` over the non-detaching sticking contacts (None when a detaching
    contact carries a tangential force: no μ helps), the boundary contacts (feasible case) are those
    where it vanishes (sticking Prop. 4(ii)), and ``μ_min = max_i ‖λ_t,i‖ / |λ_n,i|`` (sticking
    Prop. 11 with a single admissible force). Forces below 1e-9 of the largest count as zero."""
    atol = stk.active_tolerance(p, a)
    det = [int(i) for i in stk.detaching(p, a, atol, lam_n) if p.modes[i] == "sticking"]
    L = stk.Layout(p)
    zero = 1e-9 * max(1.0, float(np.abs(lam_n).max(initial=0.0)), float(np.abs(lam_t).max(initial=0.0)))
    slack, ratio, pinned = {}, 0.0, False
    for i in L.sticking:
        t, nrm = float(np.linalg.norm(lam_t[i])), abs(float(lam_n[i]))
        if i not in det:
            slack[i] = p.friction[i] * nrm - t
        elif t > zero:
            pinned = True  # a detaching contact has λ_n = 0, so its disk is {0}
        if t > zero:
            ratio = max(ratio, t / nrm if nrm > zero else float("inf"))
    scale = max(1.0, float(np.abs(np.asarray(p.M @ a).ravel() + p.F).max(initial=0.0)))
    signs = {i: (1 if lam_n[i] >= 0 else -1) for i in L.bilateral_sticking}
    margin = None if pinned else (min(slack.values()) if slack else float("inf"))
    return StickingVerdict(feasible=feasible, margin=margin,
                           boundary_contacts=[i for i, x in slack.items() if x <= 1e-6 * scale] if feasible else [],
                           detaching_contacts=det, mu_min=ratio, active_tolerance=atol,
                           boundary_test="exact (unique multipliers)", signs=signs)


def analyze(p: ContactProblem, a: np.ndarray, feasible: bool | None, solver: str | None, tol: Tolerance,
            want_mu_min: bool = True, lam_n: np.ndarray | None = None) -> StickingVerdict:
    """The verdict at acceleration ``a`` (F4's when sticking is feasible, F1's otherwise); ``lam_n``, the
    normal multipliers of the same solution, keeps rows with a nonzero force active (see
    :func:`gaussqp.sticking.detaching`)."""
    needs = "socp" if p.dimension == 3 else "qp"
    run = _Runner(solver if needs == "qp" or solver != "osqp" else None, tol, needs)
    atol = stk.active_tolerance(p, a)
    det = [int(i) for i in stk.detaching(p, a, atol, lam_n) if p.modes[i] == "sticking"]
    L = stk.Layout(p)
    best, best_signs, best_vars = None, {}, None
    for signs in L.sign_patterns():
        m, vars_ = margin(p, a, atol, signs, run, lam_n)
        if m is not None and (best is None or m > best):
            best, best_signs, best_vars = m, signs, vars_
    v = StickingVerdict(feasible=feasible, margin=best, detaching_contacts=det, active_tolerance=atol,
                        signs=best_signs)
    scale = max(1.0, float(np.abs(np.asarray(p.M @ a).ravel() + p.F).max(initial=0.0)))
    if feasible and best is not None and np.isfinite(best):
        if len(L.sticking) <= stk.BOUNDARY_EXACT_MAX:
            cm = contact_margins(p, a, atol, best_signs, run, lam_n)
            v.boundary_contacts = [i for i, x in cm.items() if x <= 1e-6 * scale]
        elif best_vars is not None:
            v.boundary_test = "at the max-margin multipliers"
            L2, le, li = best_vars
            lev = np.asarray(le.value).ravel() if L2.pe else np.zeros(0)
            liv = np.asarray(li.value).ravel() if L2.pg else np.zeros(0)
            for i in L2.sticking:
                if i in det:
                    continue
                slack = p.friction[i] * best_signs.get(i, 1) * float(L2.normal(i, lev, liv)) - \
                    float(np.linalg.norm(L2.tangent(i, lev)))
                if slack <= 1e-6 * scale:
                    v.boundary_contacts.append(i)
    if want_mu_min:
        v.mu_min = mu_min(p, a, atol, run, lam_n)
    return v

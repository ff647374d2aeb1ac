"""``solve``: pick a formulation by system class, run it, cross-check it, certify it.

The choice is data, not an if-chain: :data:`PREFERENCES` maps the system class key
``(mass, constraints, friction)`` to formulations in preference order; the first that
accepts the problem is used. :data:`CROSSCHECK_ORDER` lists the routes tried for the
cross-check (the LCP route first, as it is independent of cvxpy and of the backends).
"""

from __future__ import annotations

import time

import numpy as np

from .certificates import STRUCTURAL_MAX_N, structural_certificates
from .errors import NotApplicableError, UnknownValueError
from .formulations import FORMULATIONS, get_formulation
from .friction_bounds import friction_bounds
from .problem import ContactProblem
from .solution import INF_OR_UNB, SOLUTION_PRESENT, Solution
from .tolerances import get_tolerance

PREFERENCES: dict[tuple[str, str, str], list[str]] = {
    ("definite", "none", "frictionless"): ["gauss_qp"],
    ("definite", "bilateral", "frictionless"): ["bilateral_kkt", "gauss_qp", "lcp_lemke"],
    ("definite", "unilateral", "frictionless"): ["gauss_qp", "delassus_qp", "lcp_lemke"],
    ("definite", "mixed", "frictionless"): ["gauss_qp", "projected_eliminated", "lcp_lemke"],
    ("singular", "none", "frictionless"): ["gauss_qp"],
    ("singular", "bilateral", "frictionless"): ["bilateral_kkt", "gauss_qp"],
    ("singular", "unilateral", "frictionless"): ["gauss_qp"],
    ("singular", "mixed", "frictionless"): ["gauss_qp"],
    **{(mass, cons, "sticking"): ["sticking_socp"]
       for mass in ("definite", "singular") for cons in ("bilateral", "unilateral", "mixed")},
    # F6: sliding friction (tutorial §3) and stick/slip (sticking §5, friction key "mixed")
    ("definite", "bilateral", "sliding"): ["sliding_lcp", "sliding_fixed_point", "sliding_enumeration"],
    ("definite", "unilateral", "sliding"): ["sliding_lcp", "sliding_enumeration"],
    ("definite", "mixed", "sliding"): ["sliding_lcp", "sliding_enumeration"],
    **{("singular", cons, "sliding"): ["sliding_enumeration"] for cons in ("bilateral", "unilateral", "mixed")},
    **{(mass, cons, "mixed"): ["sliding_enumeration"]
       for mass in ("definite", "singular") for cons in ("bilateral", "unilateral", "mixed")},
}

#: Routes compared with a sliding answer (F6), in order: the exact enumeration first.
SLIDING_CROSSCHECK = ["sliding_enumeration", "sliding_fixed_point", "sliding_lcp"]

#: The facetized pair run by the cross-check of sticking problems (the bracket of F4).
BRACKET = ("facetized_inner", "facetized_outer")

#: Routes tried, in order, for the cross-check (the first that accepts and differs from the primary).
CROSSCHECK_ORDER = ["lcp_lemke", "gauss_qp", "bilateral_kkt"]


def choose_formulation(problem: ContactProblem, cls=None) -> str:
    """The first formulation of the preference table that accepts ``problem``."""
    cls = cls or problem.classify()
    names = PREFERENCES.get(cls.key)
    if names is None:
        raise NotApplicableError(f"no formulation registered for system class {cls.key}")
    reasons = []
    for name in names:
        ok, why = FORMULATIONS[name].accepts(problem, cls)
        if ok:
            return name
        reasons.append(f"{name}: {why}")
    raise NotApplicableError(f"no formulation accepts this problem ({'; '.join(reasons)})")


def _rel_gap(x, y) -> float:
    return float(np.abs(x - y).max(initial=0.0)) / max(1.0, float(np.abs(x).max(initial=0.0)))


def crosscheck_report(primary: Solution, other: Solution, tol: float) -> dict:
    """Compare two solutions on the quantities that are unique (acceleration when unique; Jᵀλ always)."""
    rep = {"formulation": other.formulation, "solver": other.solver, "status": other.status,
           "acceleration_gap": None, "generalized_force_gap": None, "agree": None}
    if primary.status in SOLUTION_PRESENT and other.status in SOLUTION_PRESENT:
        rep["generalized_force_gap"] = _rel_gap(primary.generalized_force, other.generalized_force)
        agree = rep["generalized_force_gap"] <= tol
        if primary.unique.get("acceleration"):
            rep["acceleration_gap"] = _rel_gap(primary.acceleration, other.acceleration)
            agree = agree and rep["acceleration_gap"] <= tol
        rep["agree"] = bool(agree)
    else:
        rep["agree"] = primary.status == other.status and primary.status in INF_OR_UNB
    return rep


def sticking_crosscheck(sol: Solution, problem: ContactProblem, cls, solver, tol, facets: int = 8) -> dict:
    """F4 against the facetized bracket (inner feasible ⇒ feasible; outer infeasible ⇒ infeasible)
    and, on the unique acceleration, against the sticking MLCP without cones (LCP route when M ≻ 0,
    else F1): when F4 finds the sticking mode, its acceleration is a KKT point of that MLCP."""
    bracket = {}
    for b in BRACKET:
        out = _facetized(b, facets).solve(problem, solver=solver, tolerance=tol)
        bracket[b.split("_")[1]] = out.status
    feasible = sol.status == "solved"
    consistent = not ((bracket["inner"] == "solved" and sol.status == "infeasible") or
                      (bracket["outer"] == "infeasible" and feasible))
    other_name = "lcp_lemke" if FORMULATIONS["lcp_lemke"].accepts(problem, cls)[0] else "gauss_qp"
    other = FORMULATIONS[other_name].solve(problem, solver=solver if other_name == "gauss_qp" else None,
                                           tolerance=tol)
    rep = {"formulation": other_name, "solver": other.solver, "status": other.status, "acceleration_gap": None,
           "generalized_force_gap": None,
           "bracket": {"facets": facets, **bracket, "consistent": consistent}}
    agree = consistent
    if feasible and other.status in SOLUTION_PRESENT and sol.unique.get("acceleration"):
        rep["acceleration_gap"] = _rel_gap(sol.acceleration, other.acceleration)
        rep["generalized_force_gap"] = _rel_gap(sol.generalized_force, other.generalized_force)
        agree = agree and rep["acceleration_gap"] <= tol.crosscheck and rep["generalized_force_gap"] <= tol.crosscheck
    rep["agree"] = bool(agree)
    return rep


def sliding_crosscheck(sol: Solution, name: str, problem: ContactProblem, cls, tol) -> dict | None:
    """An F6 answer against another F6 route: against the enumeration, agreement means the answer is one
    of the enumerated solutions (sliding problems may have several); against another route, the unique
    quantities are compared when the verdict says the solution is unique."""
    for other_name in SLIDING_CROSSCHECK:
        if other_name == name or not FORMULATIONS[other_name].accepts(problem, cls)[0]:
            continue
        if other_name == "sliding_enumeration" and "enumeration" in sol.extras:
            enum = sol.extras["enumeration"]
            found = sol.extras.get("in_enumeration")
            rep = {"formulation": other_name, "solver": "enumeration",
                   "status": "solved" if enum.solutions else "infeasible", "solutions": len(enum.solutions),
                   "multiplicity": enum.multiplicity, "acceleration_gap": None, "generalized_force_gap": None}
            if sol.status in SOLUTION_PRESENT:
                rep["agree"] = bool(found)
            else:
                rep["agree"] = sol.status == rep["status"]
            return rep
        other = FORMULATIONS[other_name].solve(problem, tolerance=tol)
        rep = crosscheck_report(sol, other, tol.crosscheck)
        if sol.unique.get("acceleration") is not True and sol.status in SOLUTION_PRESENT:
            rep["agree"] = None  # several solutions may exist: a gap proves nothing
        return rep
    return None


def _facetized(name: str, facets: int):
    """The registered F5 formulation ``name`` with ``facets`` facets (the registry holds 8)."""
    f = FORMULATIONS[name]
    if facets < 3:
        raise UnknownValueError("facets", f"is {facets}", "give at least 3 facets (a polygon)")
    return f if f.model.facets == facets else f.with_facets(facets)


def solve(problem: ContactProblem, formulation: str = "auto", solver: str | None = None,
          crosscheck: bool = True, tolerance=None, certify: bool = True, facets: int = 8) -> Solution:
    """Solve the contact problem and return a :class:`Solution` with certificates.

    Parameters
    ----------
    formulation : "auto" (preference table by system class) or a registered name
    solver : backend for cvxpy formulations ("clarabel", "osqp", "scs"); None = first installed
    crosscheck : also run an independent route (the LCP route when M ≻ 0) and report the gap
    tolerance : preset name ("high", "mid", "low") or a :class:`~gaussqp.tolerances.Tolerance`
    certify : attach the structural certificates C1-C6, C8 and the friction bounds C7 (skipped above n = 1500)
    facets : facet count of the F5 polygons (the facetized formulations and the sticking bracket)
    """
    tol = get_tolerance(tolerance)
    t0 = time.perf_counter()
    cls = problem.classify()
    name = choose_formulation(problem, cls) if formulation == "auto" else formulation
    f = _facetized(name, facets) if name in BRACKET else get_formulation(name)
    ok, why = f.accepts(problem, cls)
    if not ok:
        raise NotApplicableError(f"formulation {name!r} does not accept this problem: {why}")
    sol = f.solve(problem, solver=solver if f.kind == "cvxpy" else None, tolerance=tol)
    if certify and problem.n <= STRUCTURAL_MAX_N:
        t1 = time.perf_counter()
        sol.certificates = structural_certificates(problem) + sol.certificates
        if cls.friction != "frictionless":
            sol.extras["friction_bounds"] = friction_bounds(problem)
        sol.times["structural"] = time.perf_counter() - t1
    if crosscheck and name == "sticking_socp":
        sol.crosscheck = sticking_crosscheck(sol, problem, cls, solver, tol, facets)
    elif crosscheck and f.id == "F6":
        sol.crosscheck = sliding_crosscheck(sol, name, problem, cls, tol)
    elif crosscheck:
        for other_name in CROSSCHECK_ORDER:
            if other_name == name:
                continue
            g = FORMULATIONS[other_name]
            if g.accepts(problem, cls)[0]:
                other = g.solve(problem, solver=solver if g.kind == "cvxpy" else None, tolerance=tol)
                sol.crosscheck = crosscheck_report(sol, other, tol.crosscheck)
                break
    sol.extras["system_class"] = cls.as_dict()
    sol.times["total"] = time.perf_counter() - t0
    return sol

"""``solve``: pick a formulation by system class, run it, cross-check it, certify it.

The choice is data, not an if-chain: :data:`PREFERENCES` maps the system class key
``(mass, constraints, modes)`` to formulations in preference order; the first that
accepts the problem is used. :data:`CROSSCHECK_ORDER` lists the routes tried for the
cross-check (the LCP route first, as it is independent of cvxpy and of the backends).
"""

from __future__ import annotations

import time

import numpy as np

from .certificates.structural import structural_certificates
from .settings import CROSSCHECK_DENSE_MAX_N, MAX_FACETS, ROUND_OFF, STRUCTURAL_MAX_N, Tolerance, get_tolerance
from .errors import NotApplicableError, UnknownValueError
from .formulations import FORMULATIONS, get_formulation
from .formulations.base import Formulation, undecided_modes
from .certificates.friction_bounds import friction_bounds
from .formulations.coulomb import solve_local_problem
from .model.arguments import check_solve_arguments
from .model.local_problem import LocalContactProblem
from .model.problem import ContactProblem
from .model.system_class import SystemClass
from .model.scales import data_scales
from .results import INACCURATE, INF_OR_UNB, SOLUTION_PRESENT, SOLVED, Solution

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
    # "mixed": told sticking with told sliding (F6), or coulomb contacts with told ones (F9)
    **{(mass, cons, "mixed"): ["coulomb_fixed_point", "coulomb_mixed", "sliding_enumeration"]
       for mass in ("definite", "singular") for cons in ("bilateral", "unilateral", "mixed")},
    # mode-free Coulomb contacts (issue #12): the condensed route (M ≻ 0, unilateral), else the one in (a, λ);
    # the exact 2D enumeration checks them (COULOMB_CROSSCHECK) and is the route of last resort
    **{(mass, cons, "coulomb"): ["coulomb_fixed_point", "coulomb_mixed", "coulomb_enumeration"]
       for mass in ("definite", "singular") for cons in ("bilateral", "unilateral", "mixed")},
}

#: The routes that decide stick/slip themselves; their answers are checked by :func:`coulomb_crosscheck`.
COULOMB_ROUTES = ("coulomb_fixed_point", "coulomb_mixed")

#: Routes compared with a sliding answer (F6), in order: the exact enumeration first.
SLIDING_CROSSCHECK = ["sliding_enumeration", "sliding_fixed_point", "sliding_lcp"]

#: The facetized pair run by the cross-check of sticking problems (the bracket of F4).
BRACKET = ("facetized_inner", "facetized_outer")

#: Routes tried, in order, for the cross-check (the first that accepts, differs from the primary and is within its
#: size limit in :data:`CROSSCHECK_MAX_N`). Lemke's dense tableau on the Delassus LCP is the most independent
#: route (pivoting, not an interior point) but costs O(m³) with a dense M⁻¹: above its limit the projected
#: acceleration (F2, the kinetic-metric projection of the free acceleration, sparse) checks F1 (issue #15).
CROSSCHECK_ORDER = ["lcp_lemke", "gauss_qp", "projected_acceleration", "bilateral_kkt"]
#: Largest coordinate count at which a cross-check route is run (routes not listed: no limit but their own).
CROSSCHECK_MAX_N = {"lcp_lemke": CROSSCHECK_DENSE_MAX_N}


def choose_formulation(problem: ContactProblem, cls=None) -> str:
    """The first formulation of the preference table that accepts ``problem``."""
    cls = cls or problem.classify()
    why = undecided_modes(problem)
    if why and not any(f.decides_modes for f in FORMULATIONS.values()):
        raise NotApplicableError(f"no formulation accepts this problem: {why}")
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


def _rel_gap(x, y, problem: ContactProblem, kind: str = "acceleration") -> float:
    """Gap between two answers at the data's scale (:mod:`gaussqp.model.scales`): accelerations in the
    Jacobi-equilibrated coordinates ``S⁻¹a`` relative to the data's acceleration magnitude, generalized
    forces as ``S f`` relative to the data's force magnitude (never ``max(1, |x|)``, which hid the gap of
    a small quantity and inflated that of a large one; the problem is required: every caller has one)."""
    sc = data_scales(problem)
    if kind == "acceleration":
        d, mag = (x - y) / sc.coordinate, max(sc.accel, float(np.abs(x / sc.coordinate).max(initial=0.0)))
    else:
        d, mag = (x - y) * sc.coordinate, max(sc.force, float(np.abs(x * sc.coordinate).max(initial=0.0)))
    return float(np.abs(d).max(initial=0.0)) / mag


AGREED, DISAGREED, NOT_COMPARED = "agreed", "disagreed", "not compared"


def route_outcome(route: str, status: str, outcome: str, reason: str = "") -> dict:
    """One route of a cross-check: ``outcome`` is ``agreed``, ``disagreed`` or ``not compared`` (with the
    reason); a route that failed, or whose answer proves nothing about the primary's, is *not compared*,
    never counted as agreement."""
    return {"route": route, "status": status, "outcome": outcome, "reason": reason}


def combined_agreement(routes: list[dict]) -> bool | None:
    """``False`` if any route disagreed, ``True`` if at least one was compared and all compared agreed,
    ``None`` when nothing was compared (not compared is not agreed)."""
    outs = [r["outcome"] for r in routes]
    if DISAGREED in outs:
        return False
    return True if AGREED in outs else None


def _compare(primary: Solution, other: Solution, tol: float, compare_acceleration: bool) -> tuple[dict, dict]:
    """(gaps, route entry) of ``other`` against ``primary``: solutions are compared on Jᵀλ (and on the
    acceleration when ``compare_acceleration``); infeasible/unbounded against the same status agree,
    against a solution or the other of the two disagree; a failed route is not compared."""
    gaps = {"acceleration_gap": None, "generalized_force_gap": None}
    name, ps, os_ = other.formulation, primary.status, other.status
    if ps in SOLUTION_PRESENT and os_ == INACCURATE:
        return gaps, route_outcome(name, os_, NOT_COMPARED, "the route's answer failed its own residual checks")
    if ps in SOLUTION_PRESENT and os_ in SOLUTION_PRESENT:
        gaps["generalized_force_gap"] = _rel_gap(primary.generalized_force, other.generalized_force,
                                                 primary.problem, "force")
        ok = gaps["generalized_force_gap"] <= tol
        what = "Jᵀλ"
        if compare_acceleration:
            gaps["acceleration_gap"] = _rel_gap(primary.acceleration, other.acceleration, primary.problem)
            ok = ok and gaps["acceleration_gap"] <= tol
            what = "acceleration and Jᵀλ"
        return gaps, route_outcome(name, os_, AGREED if ok else DISAGREED,
                                   f"{what} {'within' if ok else 'beyond'} the cross-check tolerance {tol:g}")
    decisive = SOLUTION_PRESENT | INF_OR_UNB
    if ps in decisive and os_ in decisive:
        same = ps == os_
        return gaps, route_outcome(name, os_, AGREED if same else DISAGREED,
                                   f"primary {ps!r}, {name} {os_!r}")
    why = f"{name} ended {os_!r}" if os_ not in decisive else f"the primary route ended {ps!r}"
    return gaps, route_outcome(name, os_, NOT_COMPARED, why + ": nothing to compare")


def crosscheck_report(primary: Solution, other: Solution, tol: float) -> dict:
    """Compare two solutions on the quantities that are unique (acceleration when unique; Jᵀλ always).

    ``routes`` holds the per-route outcome; ``agree`` is :func:`combined_agreement` of it (None when the
    other route failed: not compared is not agreed)."""
    gaps, route = _compare(primary, other, tol, bool(primary.unique.get("acceleration")))
    routes = [route]
    return {"formulation": other.formulation, "solver": other.solver, "status": other.status, **gaps,
            "routes": routes, "agree": combined_agreement(routes)}


def _bracket_routes(sol: Solution, problem: ContactProblem, bracket: dict) -> list[dict]:
    """The facetized pair against F4: an inscribed polygon that is feasible proves feasibility, a
    circumscribed one that is infeasible proves infeasibility (sticking (54)-(59)); in 2D both polygons
    are the exact interval, so each decides both ways. Anything else is not compared."""
    exact = problem.dimension == 2
    out = []
    ps = sol.status
    for kind, proves in (("inner", "solved"), ("outer", "infeasible")):
        name, st = f"facetized_{kind}", bracket[kind]
        if st == BRACKET_SKIPPED:
            out.append(route_outcome(name, st, NOT_COMPARED, "skipped: F4's answer is certified with unique "
                                                              "multipliers (bracket='always' runs it)"))
        elif st not in ("solved", "infeasible"):
            out.append(route_outcome(name, st, NOT_COMPARED, f"{name} ended {st!r}"))
        elif st != proves and not exact:
            out.append(route_outcome(name, st, NOT_COMPARED,
                                     f"{'inscribed' if kind == 'inner' else 'circumscribed'} polygon {st}: "
                                     "proves nothing about the disks"))
        elif ps not in ("solved", "infeasible"):
            out.append(route_outcome(name, st, NOT_COMPARED, f"the primary route ended {ps!r}"))
        else:
            ok = st == ps
            out.append(route_outcome(name, st, AGREED if ok else DISAGREED,
                                     f"polygon {st} {'proves' if not exact else 'is exact in 2D:'} "
                                     f"{'feasible' if st == 'solved' else 'infeasible'}; F4 {ps!r}"))
    return out


def sticking_crosscheck(sol: Solution, problem: ContactProblem, cls, solver, tol, facets: int = 8,
                        bracket_mode: str = "auto") -> dict:
    """F4 against the facetized bracket (inner feasible ⇒ feasible; outer infeasible ⇒ infeasible)
    and, on the unique acceleration, against the sticking MLCP without cones (LCP route when M ≻ 0 and
    n <= :data:`CROSSCHECK_MAX_N`, else F1): when F4 finds the sticking mode, its acceleration is a KKT point of that MLCP.
    Each route's outcome is in ``routes``; ``agree`` is None when no route could be compared.

    ``bracket_mode`` (:data:`BRACKET_MODES`): "auto" skips the two polygon programs when F4's answer is already
    certified (status solved: it passed the judge's residual and cone checks) with unique multipliers (then the
    disks' answer is one point, which the inscribed polygon could only confirm; issue #15: at 10⁴ contacts the
    bracket was 60 % of a solve); "always" runs them."""
    bracket = {}
    skip = bracket_mode == "auto" and sol.status == SOLVED and sol.unique.get("multipliers") is True
    for b in BRACKET:
        f = _facetized(b, facets)
        if not f.accepts(problem, cls)[0]:  # no polygons beyond d = 3: not run, and _bracket_routes says so
            bracket[b.split("_")[1]] = "not_run"
        elif skip:
            bracket[b.split("_")[1]] = BRACKET_SKIPPED
        else:
            bracket[b.split("_")[1]] = f.solve(problem, solver=solver, tolerance=tol).status
    feasible = sol.status == "solved"
    consistent = not ((bracket["inner"] == "solved" and sol.status == "infeasible") or
                      (bracket["outer"] == "infeasible" and feasible))
    other_name = ("lcp_lemke" if problem.n <= CROSSCHECK_MAX_N["lcp_lemke"]
                  and FORMULATIONS["lcp_lemke"].accepts(problem, cls)[0] else "gauss_qp")
    other = FORMULATIONS[other_name].solve(problem, solver=solver if other_name == "gauss_qp" else None,
                                           tolerance=tol)
    rep = {"formulation": other_name, "solver": other.solver, "status": other.status, "acceleration_gap": None,
           "generalized_force_gap": None,
           "bracket": {"facets": facets, **bracket, "consistent": consistent}}
    routes = _bracket_routes(sol, problem, bracket)
    if feasible and other.status in SOLUTION_PRESENT:
        if sol.unique.get("acceleration"):
            rep["acceleration_gap"] = _rel_gap(sol.acceleration, other.acceleration, problem)
            rep["generalized_force_gap"] = _rel_gap(sol.generalized_force, other.generalized_force, problem, "force")
            ok = rep["acceleration_gap"] <= tol.crosscheck and rep["generalized_force_gap"] <= tol.crosscheck
            routes.append(route_outcome(other_name, other.status, AGREED if ok else DISAGREED,
                                        f"acceleration and Jᵀλ {'within' if ok else 'beyond'} the cross-check "
                                        f"tolerance {tol.crosscheck:g}"))
        else:
            routes.append(route_outcome(other_name, other.status, NOT_COMPARED,
                                        "the acceleration is not known to be unique: a gap proves nothing"))
    elif feasible and other.status in INF_OR_UNB:
        routes.append(route_outcome(other_name, other.status, DISAGREED,
                                    "F4 found the sticking mode, whose acceleration solves the MLCP without cones, "
                                    f"but {other_name} says {other.status!r}"))
    elif sol.status in INF_OR_UNB and sol.nonexistence_verified and other.status in SOLUTION_PRESENT | INF_OR_UNB:
        ok = other.status == sol.status
        routes.append(route_outcome(other_name, other.status, AGREED if ok else DISAGREED,
                                    f"F4 {sol.status!r} because the MLCP without cones is; {other_name} {other.status!r}"))
    elif other.status not in SOLUTION_PRESENT | INF_OR_UNB:
        routes.append(route_outcome(other_name, other.status, NOT_COMPARED, f"{other_name} ended {other.status!r}"))
    else:
        routes.append(route_outcome(other_name, other.status, NOT_COMPARED,
                                    f"F4 {sol.status!r}: the MLCP without cones ({other.status!r}) does not decide it"))
    rep["routes"] = routes
    rep["agree"] = combined_agreement(routes)
    return rep


def sliding_crosscheck(sol: Solution, name: str, problem: ContactProblem, cls, tol) -> dict | None:
    """An F6 answer against another F6 route: against the enumeration, agreement means the answer is one
    of the enumerated solutions (sliding problems may have several); against another route, the unique
    quantities are compared when the verdict says the acceleration is unique."""
    for other_name in SLIDING_CROSSCHECK:
        if other_name == name or not FORMULATIONS[other_name].accepts(problem, cls)[0]:
            continue
        if other_name == "sliding_enumeration" and sol.enumeration is not None:
            enum = sol.enumeration
            found = sol.in_enumeration
            status = "solved" if enum.solutions else "infeasible"
            rep = {"formulation": other_name, "solver": "enumeration", "status": status,
                   "solutions": len(enum.solutions), "multiplicity": enum.multiplicity,
                   "multiplier_multiplicity": enum.multiplier_multiplicity,
                   "acceleration_gap": None, "generalized_force_gap": None}
            if sol.status in SOLUTION_PRESENT:
                route = route_outcome(other_name, status, AGREED if found else DISAGREED,
                                      "the answer is " + ("" if found else "not ") + "one of the enumerated solutions")
            elif sol.status in INF_OR_UNB:
                ok = sol.status == status
                route = route_outcome(other_name, status, AGREED if ok else DISAGREED,
                                      f"primary {sol.status!r}, enumeration {status!r} ({len(enum.solutions)} solutions)")
            else:
                route = route_outcome(other_name, status, NOT_COMPARED, f"the primary route ended {sol.status!r}")
            rep["routes"] = [route]
            rep["agree"] = combined_agreement(rep["routes"])
            return rep
        other = FORMULATIONS[other_name].solve(problem, tolerance=tol)
        rep = crosscheck_report(sol, other, tol.crosscheck)
        if sol.unique.get("acceleration") is not True and sol.status in SOLUTION_PRESENT \
                and other.status in SOLUTION_PRESENT:
            rep["routes"] = [route_outcome(other_name, other.status, NOT_COMPARED,
                                           "several solutions may exist: a gap proves nothing")]
            rep["agree"] = None
        return rep
    return None


def coulomb_crosscheck(sol: Solution, name: str, problem: ContactProblem, cls, solver, tol) -> tuple[dict | None,
                                                                                                   Solution | None]:
    """A mode-free Coulomb answer (F8/F9) against the exact 2D enumeration when it accepts the problem — the
    answer must be one of the enumerated solutions, and the enumeration's multiplicity is then the proof of
    uniqueness (``sol.unique``) — else against the other Coulomb route, compared only when both answers coincide
    (several solutions may exist: a gap between two certified answers proves nothing). Returns (report, the
    enumeration's own Solution or None)."""
    enum_f = FORMULATIONS["coulomb_enumeration"]
    if problem.dimension == 2 and enum_f.accepts(problem, cls)[0]:
        esol = enum_f.solve(problem, solver=solver, tolerance=tol)
        enum = esol.enumeration
        status = "solved" if enum.solutions else "infeasible"
        rep = {"formulation": enum_f.name, "solver": "enumeration", "status": status,
               "solutions": len(enum.solutions), "multiplicity": enum.multiplicity,
               "multiplier_multiplicity": enum.multiplier_multiplicity,
               "acceleration_gap": None, "generalized_force_gap": None}
        if sol.status == SOLVED:
            found = enum.find(sol.acceleration, sol.lambda_normal, sol.lambda_tangent) is not None
            route = route_outcome(enum_f.name, status, AGREED if found else DISAGREED,
                                  "the answer is " + ("" if found else "not ") + "one of the enumerated solutions")
            if found:
                acc = {"unique": True, "multiple": False, "continuum": False}.get(enum.multiplicity)
                lam = {"unique": True, "multiple": False, "continuum": False}.get(enum.multiplier_multiplicity)
                sol.unique = {"acceleration": acc, "generalized_force": acc, "multipliers": lam}
                sol.extras["uniqueness"] = (f"decided by the exact 2D enumeration: acceleration {enum.multiplicity}, "
                                            f"multipliers {enum.multiplier_multiplicity}")
        else:
            route = route_outcome(enum_f.name, status, NOT_COMPARED, f"the primary route ended {sol.status!r}")
        rep["routes"] = [route]
        rep["agree"] = combined_agreement(rep["routes"])
        return rep, esol
    for other_name in COULOMB_ROUTES:
        g = FORMULATIONS[other_name]
        if other_name == name or not g.accepts(problem, cls)[0]:
            continue
        other = g.solve(problem, solver=solver, tolerance=tol)
        rep = crosscheck_report(sol, other, tol.crosscheck)
        if rep["agree"] is False and sol.unique.get("acceleration") is not True:
            rep["routes"] = [route_outcome(other_name, other.status, NOT_COMPARED,
                                           "the two routes found different answers, each judged by its own "
                                           "residuals: several solutions may exist, so a gap proves nothing")]
            rep["agree"] = None
        return rep, None
    return None, None


#: the values of :func:`solve`'s ``bracket`` option: "auto" runs the sticking bracket (F5 inner/outer against F4)
#: unless F4's answer is certified with unique multipliers, "always" runs it (:func:`sticking_crosscheck`)
BRACKET_MODES = ("auto", "always")
#: the bracket entry of a cross-check report when the polygons were not run because F4's answer needed no bracket
BRACKET_SKIPPED = "skipped"


def check_bracket(bracket) -> None:
    """``bracket`` is one of :data:`BRACKET_MODES`."""
    if not isinstance(bracket, str) or bracket not in BRACKET_MODES:
        raise UnknownValueError("bracket", f"is {bracket!r}",
                                "give 'auto' (the facetized bracket unless F4's answer is certified with unique "
                                "multipliers) or 'always'")


def check_facets(facets) -> None:
    """``facets`` is an integer in [3, MAX_FACETS], checked whether or not a polygon is built for this problem."""
    integral = isinstance(facets, (int, np.integer)) and not isinstance(facets, (bool, np.bool_))
    if not integral or not 3 <= facets <= MAX_FACETS:
        raise UnknownValueError("facets", f"is {facets!r}",
                                f"give an integer from 3 (a triangle) to {MAX_FACETS} (polygons beyond add rows, "
                                "not accuracy worth their cost)")


def _facetized(name: str, facets: int):
    """The registered F5 formulation ``name`` with ``facets`` facets (the registry holds 8)."""
    f = FORMULATIONS[name]
    return f if f.model.facets == facets else f.with_facets(facets)


def formulation_object(name: str, facets: int) -> Formulation:
    """The formulation object that :func:`solve` runs for ``name``: the registered one
    (:func:`~gaussqp.formulations.get_formulation`, which raises for an unknown name), or for the facetized pair
    the one with ``facets`` facets."""
    return _facetized(name, facets) if name in BRACKET else get_formulation(name)


def solve(problem: ContactProblem | LocalContactProblem, formulation: str = "auto", solver: str | None = None,
          crosscheck: bool = True, tolerance=None, certify: bool = True, facets: int = 8,
          bracket: str = "auto") -> Solution:
    """Solve the contact problem and return a :class:`Solution` with certificates.

    A :class:`~gaussqp.LocalContactProblem` (``u = W r + q``) goes to the mode-free Coulomb route
    (:func:`gaussqp.formulations.coulomb.solve_local_problem`): ``lambda_normal``/``lambda_tangent`` are the
    reaction r, ``velocity`` is u, ``acceleration`` is None.

    Parameters
    ----------
    formulation : "auto" (preference table by system class) or a registered name
    solver : backend for cvxpy formulations ("clarabel", "osqp", "scs"); None = first installed
    crosscheck : also run an independent route (the LCP route when M ≻ 0) and report the gap
    tolerance : preset name ("high", "mid", "low") or a :class:`~gaussqp.settings.Tolerance`
    certify : attach the structural certificates C1-C6, C8 and the friction bounds C7 (skipped above n = 1500)
    facets : facet count of the F5 polygons (the facetized formulations and the sticking bracket)
    bracket : "auto" (the sticking cross-check runs the F5 bracket unless F4's answer is certified with unique
        multipliers) or "always"
    """
    check_solve_arguments(problem, formulation, solver, crosscheck, certify)
    tol = get_tolerance(tolerance)
    check_facets(facets)
    check_bracket(bracket)
    if isinstance(problem, LocalContactProblem):
        if formulation not in ("auto", "coulomb_fixed_point"):
            raise NotApplicableError(f"formulation {formulation!r} does not accept a local (Delassus) problem "
                                     "u = W r + q: use 'auto' or 'coulomb_fixed_point'")
        return solve_local_problem(problem, solver=solver, tolerance=tol)
    t0 = time.perf_counter()
    cls = problem.classify()
    name = choose_formulation(problem, cls) if formulation == "auto" else formulation
    return solve_classified(problem, cls, name, formulation_object(name, facets), solver=solver,
                            crosscheck=crosscheck, tol=tol, certify=certify, facets=facets, started=t0,
                            bracket=bracket)


def solve_classified(problem: ContactProblem, cls: SystemClass, name: str, f: Formulation, *, solver: str | None,
                     crosscheck: bool, tol: Tolerance, certify: bool, facets: int, started: float,
                     bracket: str = "auto", correct_drifts: bool = True) -> Solution:
    """The body of :func:`solve` once the system class ``cls`` of ``problem`` is known and the formulation chosen
    (``name``, its object ``f`` from :func:`formulation_object`): check that ``f`` accepts the problem, solve,
    attach the structural certificates, cross-check, withdraw a "solved" that an independent route contradicts.
    ``tol`` is a resolved :class:`~gaussqp.settings.Tolerance`, ``facets`` and ``bracket`` already checked, ``started`` the
    ``time.perf_counter()`` at which the caller began (``times["total"]``). :func:`solve` and
    :class:`gaussqp.batch.Solver` both end here, so their answers are the same. When the route does not certify an
    answer and the drifts are inconsistent within the tolerance, :func:`solve_nearest_consistent` answers for the
    nearest consistent drifts, judged against the data as given (``correct_drifts``)."""
    t0 = started
    ok, why = f.accepts(problem, cls)
    if not ok:
        raise NotApplicableError(f"formulation {name!r} does not accept this problem: {why}")
    sol = f.solve(problem, solver=solver if f.kind == "cvxpy" else None, tolerance=tol)
    _withdraw_outside_the_disks(sol)
    if certify and problem.n <= STRUCTURAL_MAX_N:
        t1 = time.perf_counter()
        sol.certificates = structural_certificates(problem) + sol.certificates
        if cls.modes != "frictionless":
            sol.friction_bounds = friction_bounds(problem)
        sol.times["structural"] = time.perf_counter() - t1
    if crosscheck and name == "sticking_socp":
        sol.crosscheck = sticking_crosscheck(sol, problem, cls, solver, tol, facets, bracket)
    elif crosscheck and f.id == "F6":
        sol.crosscheck = sliding_crosscheck(sol, name, problem, cls, tol)
    elif crosscheck and name in COULOMB_ROUTES:
        sol.crosscheck, esol = coulomb_crosscheck(sol, name, problem, cls, solver, tol)
        if esol is not None and sol.status != SOLVED and esol.status in (SOLVED, *INF_OR_UNB):
            # the exact enumeration decides what the iterative route could not: its answer (or its proof that
            # none exists) is returned, with the route's failure on record
            esol.message = ((esol.message + "; " if esol.message else "")
                            + f"{name} ended {sol.status!r} ({sol.message}); the exact 2D enumeration's answer")
            esol.extras["failed_route"] = {"formulation": name, "status": sol.status, "message": sol.message}
            esol.crosscheck = sol.crosscheck
            esol.certificates = [c for c in sol.certificates if c.id != "natural_map"] + esol.certificates
            esol.friction_bounds = sol.friction_bounds
            sol = esol
    elif crosscheck:
        for other_name in CROSSCHECK_ORDER:
            if other_name == name or problem.n > CROSSCHECK_MAX_N.get(other_name, problem.n):
                continue
            g = FORMULATIONS[other_name]
            if g.accepts(problem, cls)[0]:
                other = g.solve(problem, solver=solver if g.kind == "cvxpy" else None, tolerance=tol)
                sol.crosscheck = crosscheck_report(sol, other, tol.crosscheck)
                break
    if sol.status == SOLVED and sol.crosscheck is not None and sol.crosscheck.get("agree") is False:
        # status says "solved" only for a certified answer: a disagreeing independent route withdraws it
        sol.status = INACCURATE
        sol.message = (sol.message + "; " if sol.message else "") + "an independent route disagrees (see crosscheck)"
    sol.extras["system_class"] = cls.as_dict()
    if correct_drifts and not sol.certified:
        sol = solve_nearest_consistent(sol, problem, name, f, solver=solver, crosscheck=crosscheck, tol=tol,
                                       certify=certify, facets=facets, bracket=bracket)
    sol.times["total"] = time.perf_counter() - t0
    return sol


def _withdraw_outside_the_disks(sol: Solution) -> None:
    """The verdict contract (DESIGN.md §4.3) for a route that states sticking contacts as equalities without their
    disks (F1, F2, F3): its answer is one of the sticking problem only when the returned forces lie in the disks.
    Otherwise ``solved`` is withdrawn — it is not an answer of the problem as given, and a route that enforces the
    disks (F4) may prove that none exists. F4's own use of F1 (its two-stage route) is not affected."""
    cc = sol.certificate("coulomb_cones")
    if sol.status == SOLVED and sol.cones_enforced is None and cc is not None and not cc.holds:
        sol.status = INACCURATE
        sol.message = ((sol.message + "; " if sol.message else "") + "the returned forces leave the Coulomb disks "
                       f"(relative slack {cc.data.get('relative_slack', float('nan')):.1e}): this route states the "
                       "sticking contacts as equalities without the disks, so this is not an answer of the sticking "
                       "problem; 'sticking_socp' decides it")


_REJUDGED = ("kkt_residuals", "backward_error", "coulomb_cones", "forward_error", "unique_acceleration",
             "unique_multipliers", "farkas", "unbounded_ray")


def _approximate_acceleration(sol: Solution, problem: ContactProblem, solver, tol: Tolerance):
    """An acceleration to find the active rows at: the route's own, else F1's (the frictionless / sticking-as-
    equality QP), else None."""
    if sol.acceleration is not None:
        return sol.acceleration
    g = FORMULATIONS["gauss_qp"]
    if problem.sparse or not g.accepts(problem, problem.classify())[0]:
        return None
    f1 = g.solve(problem, solver=solver, tolerance=tol)
    return f1.acceleration


def solve_nearest_consistent(sol: Solution, problem: ContactProblem, name: str, f: Formulation, *, solver, crosscheck,
                             tol: Tolerance, certify: bool, facets: int, bracket: str) -> Solution:
    """The verdict contract's answer for data whose drifts are inconsistent within the tolerance (DESIGN.md §4.3).

    ``sol`` is the route's uncertified result on ``problem``. The rows active at an approximate answer are made
    consistent by the smallest drift change in their own scales
    (:func:`gaussqp.model.consistent_drifts.consistent_drifts`); when that change is within ``tol.residual``, the
    same route solves the corrected problem and its certified answer is judged again — residuals, backward error,
    cones, forward error, uniqueness — against the data **as given** (:func:`gaussqp.certificates.judge.finalize`),
    with the change in ``extras["drift_correction"]`` and the message. Otherwise ``sol`` is returned, with the size
    of the inconsistency in its message when there is one."""
    from .certificates.judge import finalize
    from .model.consistent_drifts import active_at, consistent_drifts

    if problem.sparse or len(problem.coulomb) or not len(problem.unilateral) + len(problem.bilateral):
        return sol
    a = _approximate_acceleration(sol, problem, solver, tol)
    # the rows active at the approximate answer, then every unilateral row (a resting state: every contact loaded)
    candidates = ([active_at(problem, a, tol.residual)] if a is not None else []) + [np.arange(len(problem.unilateral))]
    tried, fixed, corr = [], None, None
    for act in candidates:
        c = consistent_drifts(problem, act)
        if c is None or c.relative <= ROUND_OFF or any(np.array_equal(act, t) for t in tried):
            continue  # consistent to round-off: correcting changes nothing a route could see
        tried.append(act)
        if c.relative > tol.residual:
            sol.message = ((sol.message + "; " if sol.message else "") + f"the drifts of {len(act)} active unilateral "
                           f"rows and the equalities are inconsistent by {c.relative:.1e} of their scales "
                           f"(> {tol.residual:g})")
            continue
        r = solve_classified(c.problem, c.problem.classify(), name, f, solver=solver, crosscheck=crosscheck, tol=tol,
                             certify=False, facets=facets, started=time.perf_counter(), bracket=bracket,
                             correct_drifts=False)
        if r.status == SOLVED and r.certified:
            fixed, corr = r, c
            break
        sol.message = ((sol.message + "; " if sol.message else "") + f"with the drifts made consistent (a change of "
                       f"{c.relative:.1e} of their scales) {name} ended {r.status.value} too")
    if fixed is None:
        return sol
    out = Solution(problem=problem, status=SOLVED, formulation=fixed.formulation, solver=fixed.solver,
                   acceleration=fixed.acceleration, lambda_normal=fixed.lambda_normal,
                   lambda_tangent=fixed.lambda_tangent, polish_allowed=False, cones_enforced=fixed.cones_enforced,
                   route=fixed.route, sticking=fixed.sticking, enumeration=fixed.enumeration,
                   contact_modes=fixed.contact_modes, crosscheck=fixed.crosscheck, friction_bounds=sol.friction_bounds)
    finalize(out, tol)
    structural = [c for c in sol.certificates if c.id.startswith("C")]
    out.certificates = structural + [c for c in fixed.certificates if c.id not in _REJUDGED] + out.certificates
    if fixed.unique and out.unique.get("acceleration") is None:
        out.unique = dict(fixed.unique)
    out.extras.update({"drift_correction": corr.as_dict(), "system_class": sol.extras.get("system_class"),
                       "as_given": {"formulation": name, "status": sol.status.value, "message": sol.message}})
    out.times = dict(fixed.times)
    be = out.backward_error or {}
    out.message = ((out.message + "; " if out.message else "")
                   + f"solvable after changing the drifts by {corr.absolute:.1e} ({corr.relative:.1e} of their rows' "
                     f"scales): the answer of those drifts, judged against the data as given (backward error: forces "
                     f"{be.get('forces', float('nan')):.1e}, drifts {be.get('drifts', float('nan')):.1e}); for the "
                     f"data as given {name} ended {sol.status.value}" + (f" ({sol.message})" if sol.message else ""))
    return out

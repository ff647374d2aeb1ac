"""The cross-check stage of a solve: an answer compared with independent routes, reported as a
:class:`~gaussqp.results.CrossCheck`.

Which routes check which is data on the formulation: every formulation declares ``crosscheck``, a key of
:data:`CROSSCHECKS`, whose entry names the checking routes (in order) and the function that runs them
(:func:`cross_check` dispatches on it; no route name is tested). A formulation that declares none cannot be
registered unnoticed: ``tests/test_crosscheck_declared.py`` asks every registered formulation for its kind.

- ``generic`` (:func:`generic_crosscheck`): the first route of :data:`CROSSCHECK_ORDER` that accepts the problem,
  differs from the primary and is within its size limit (:data:`CROSSCHECK_MAX_N`), compared on the unique
  quantities (:func:`crosscheck_report`);
- ``sticking`` (:func:`sticking_crosscheck`): F4 against the facetized bracket (F5 inner/outer) and the sticking
  MLCP without cones; an F5 answer (asked for by name) the same way, against the other polygon, never its own;
- ``sliding`` (:func:`sliding_crosscheck`): an F6 answer against the exact enumeration or another F6 route;
- ``coulomb`` (:func:`coulomb_crosscheck`): a mode-free Coulomb answer (F8/F9) against the exact 2D enumeration
  (whose answer replaces a failed one) or the other Coulomb route;
- ``none``: not cross-checked (say why in the formulation's docstring).

A ``solved`` answer that an independent route contradicts is withdrawn (:func:`withdraw_if_contradicted`).
"""

from __future__ import annotations

import copy

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from .certificates.judge import CROSSCHECK
from .formulations import FORMULATIONS
from .formulations.base import Formulation
from .formulations.coulomb_mixed import WorkBudget
from .formulations.gauss_qp import fast_path_applies
from .formulations.sticking_conic import TWO_STAGE
from .model.problem import ContactProblem
from .model.scales import data_scales
from .results import (
    AGREED,
    DISAGREED,
    FAILED,
    INACCURATE,
    INF_OR_UNB,
    NOT_COMPARED,
    SOLUTION_PRESENT,
    SOLVED,
    Bracket,
    CrossCheck,
    EnumerationCount,
    RouteOutcome,
    Solution,
    combined_agreement,
)
import gaussqp.settings as settings  # the module: the cross-check's budget is read at each call

from .settings import CROSSCHECK_DENSE_N_MAX, DEFAULT_FACETS, Tolerance

#: The routes that decide stick/slip themselves; their answers are checked by :func:`coulomb_crosscheck`.
COULOMB_ROUTES = ("coulomb_fixed_point", "coulomb_mixed")

#: The work budget of a mode-free route run as the cross-check of another: the name of its setting (read at each
#: call; routes not listed: no budget but their own limits).
COULOMB_CROSSCHECK_WORK = {"coulomb_mixed": "COULOMB_MIXED_CROSSCHECK_WORK"}

#: Routes compared with a sliding answer (F6), in order: the exact enumeration first.
SLIDING_CROSSCHECK = ["sliding_enumeration", "sliding_fixed_point", "sliding_lcp"]

#: The facetized pair run by the cross-check of sticking problems (the bracket of F4).
BRACKET = ("facetized_inner", "facetized_outer")

#: Routes tried, in order, for the generic cross-check (the first that accepts, differs from the primary and is
#: within its size limit in :data:`CROSSCHECK_MAX_N`). Lemke's dense tableau on the Delassus LCP is the most
#: independent route (pivoting, not an interior point) but costs O(m³) with a dense M⁻¹: above its limit the
#: projected acceleration (F2, the kinetic-metric projection of the free acceleration, sparse) checks F1.
CROSSCHECK_ORDER = ["lcp_lemke", "gauss_qp", "projected_acceleration", "bilateral_kkt"]
#: Largest coordinate count at which a cross-check route is run (routes not listed: no limit but their own).
CROSSCHECK_MAX_N = {"lcp_lemke": CROSSCHECK_DENSE_N_MAX}

#: the values of :func:`gaussqp.solve`'s ``bracket`` option (:func:`sticking_crosscheck`): "off" (the default) does not
#: compute the sticking bracket (F5 inner/outer against F4) and the report says so; "auto" runs it unless F4's answer is
#: certified with unique multipliers; "always" runs it
BRACKET_MODES = ("off", "auto", "always")
#: the bracket entry of a cross-check report when the polygons were not run because F4's answer needed no bracket
BRACKET_SKIPPED = "skipped"
#: the bracket entry of a cross-check report when the polygons were not computed because nobody asked for them
BRACKET_NOT_ASKED = "not_asked"
#: the bracket entry of a cross-check report for the polygon that is the answer's own program (an F5 answer)
BRACKET_ITSELF = "itself"


def route_outcome(route: str, status: str, outcome: str, reason: str = "") -> RouteOutcome:
    """One route of a cross-check (:class:`~gaussqp.results.RouteOutcome`)."""
    return RouteOutcome(route, status, outcome, reason)


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


def _compare(
    primary: Solution, other: Solution, tol: float, compare_acceleration: bool
) -> tuple[float | None, float | None, RouteOutcome]:
    """(acceleration gap, generalized-force gap, route outcome) of ``other`` against ``primary``: solutions are
    compared on Jᵀλ (and on the acceleration when ``compare_acceleration``); infeasible/unbounded against the same
    status agree, against a solution or the other of the two disagree; a failed route, and a route whose answer failed
    its own checks (``inaccurate``: a point that proves nothing, neither a solution nor that one exists), are not
    compared, whatever the primary's status (an ``inaccurate`` route once counted as disagreeing with a verified
    infeasibility, which cost that answer its certification)."""
    name, ps, os_ = other.formulation, primary.status, other.status
    if os_ == INACCURATE:
        return None, None, route_outcome(name, os_, NOT_COMPARED, "the route's answer failed its own residual checks")
    if ps in SOLUTION_PRESENT and os_ in SOLUTION_PRESENT:
        gf = _rel_gap(primary.generalized_force, other.generalized_force, primary.problem, "force")
        ga = None
        ok = gf <= tol
        what = "Jᵀλ"
        if compare_acceleration:
            ga = _rel_gap(primary.acceleration, other.acceleration, primary.problem)
            ok = ok and ga <= tol
            what = "acceleration and Jᵀλ"
        return (
            ga,
            gf,
            route_outcome(
                name,
                os_,
                AGREED if ok else DISAGREED,
                f"{what} {'within' if ok else 'beyond'} the cross-check tolerance {tol:g}",
            ),
        )
    decisive = SOLUTION_PRESENT | INF_OR_UNB
    if ps in decisive and os_ in decisive:
        same = ps == os_
        return None, None, route_outcome(name, os_, AGREED if same else DISAGREED, f"primary {ps!r}, {name} {os_!r}")
    why = f"{name} ended {os_!r}" if os_ not in decisive else f"the primary route ended {ps!r}"
    return None, None, route_outcome(name, os_, NOT_COMPARED, why + ": nothing to compare")


def crosscheck_report(primary: Solution, other: Solution, tol: float) -> CrossCheck:
    """Compare two solutions on the quantities that are unique (acceleration when unique; Jᵀλ always).

    ``routes`` holds the one route's outcome; ``agree`` is :func:`~gaussqp.results.combined_agreement` of it (None
    when the other route failed: not compared is not agreed)."""
    ga, gf, route = _compare(primary, other, tol, bool(primary.unique.get("acceleration")))
    return CrossCheck(
        formulation=other.formulation,
        solver=other.solver,
        status=other.status,
        routes=(route,),
        agree=combined_agreement((route,)),
        acceleration_gap=ga,
        generalized_force_gap=gf,
    )


def _not_compared(rep: CrossCheck, route: str, status, reason: str) -> CrossCheck:
    """``rep`` with its routes replaced by one not compared (and ``agree`` None)."""
    return CrossCheck(
        formulation=rep.formulation,
        solver=rep.solver,
        status=rep.status,
        routes=(route_outcome(route, status, NOT_COMPARED, reason),),
        agree=None,
        acceleration_gap=rep.acceleration_gap,
        generalized_force_gap=rep.generalized_force_gap,
        bracket=rep.bracket,
        enumeration=rep.enumeration,
    )


# ---------------------------------------------------------------- generic
#: what an agreement of a cross-check route's answer judged in the role ``crosscheck`` rests on (its reason says it)
LIGHT_AGREEMENT = "its answer checked by residuals and backward error, not forward error"


def generic_crosscheck(
    sol: Solution, name: str, problem: ContactProblem, cls, solver, tol: Tolerance
) -> CrossCheck | None:
    """The first route of :data:`CROSSCHECK_ORDER` that is not the primary, is within its size limit and accepts
    the problem, compared on the unique quantities (:func:`crosscheck_report`); None when no route applies. The route's
    answer is first judged in the role :data:`~gaussqp.certificates.judge.CROSSCHECK` (its residuals, backward error
    and cones decide its status; no polish, uniqueness or forward error, which only a returned answer needs); when
    that answer does not agree, the route is solved again and its answer judged in full
    (:meth:`gaussqp.formulations.base.Formulation.solve_to_compare`), and that comparison is the report: a
    disagreement (which withdraws ``solved``) or an answer left uncompared rests on the full judgement, an
    agreement on an answer that passed its residual and backward-error checks and is within the cross-check tolerance
    of the answer."""
    for other_name in CROSSCHECK_ORDER:
        if other_name == name or problem.n > CROSSCHECK_MAX_N.get(other_name, problem.n):
            continue
        g = FORMULATIONS[other_name]
        if g.accepts(problem, cls)[0]:
            backend = solver if g.kind == "cvxpy" else None
            # first judged for its status only (role crosscheck): enough to agree; anything but an agreement rests on
            # the route's answer judged in full, as a returned answer is (polished, its uniqueness and forward
            # error): only that answer may contradict, or go uncompared
            light: list[CrossCheck] = []

            def agrees(o: Solution) -> bool:
                light.append(crosscheck_report(sol, o, tol.crosscheck))
                return light[-1].agree is True

            other, role = g.solve_to_compare(problem, backend, tol, agrees)
            if role != CROSSCHECK:
                return crosscheck_report(sol, other, tol.crosscheck)
            rep = light[-1]
            # the agreement says what it rests on: the route's answer passed its residual and backward-error checks;
            # its forward error (how far it may be from the exact solution) was not computed
            return replace(
                rep,
                routes=tuple(
                    replace(o, reason=(o.reason + "; " if o.reason else "") + LIGHT_AGREEMENT)
                    if o.outcome == AGREED
                    else o
                    for o in rep.routes
                ),
            )
    return None


# ---------------------------------------------------------------- sticking
def facetized(name: str, facets: int) -> Formulation:
    """The registered F5 formulation ``name`` with ``facets`` facets (the registry holds 8)."""
    f = FORMULATIONS[name]
    return f if f.model.facets == facets else f.with_facets(facets)


def _rests_on_f1(s: Solution) -> bool:
    """True when an F4/F5 answer is ``infeasible`` or ``unbounded`` by F1's own certificate (its two-stage route: the
    sticking MLCP without cones has no solution), not by a proof of its own."""
    return s.status in INF_OR_UNB and s.extras.get("cones_removed_status") in INF_OR_UNB


def _bracket_routes(
    sol: Solution, problem: ContactProblem, bracket: dict, polygons: dict | None = None
) -> list[RouteOutcome]:
    """The facetized pair against F4: an inscribed polygon that is feasible proves feasibility, a
    circumscribed one that is infeasible proves infeasibility (sticking (54)-(59)); in 2D both polygons
    are the exact interval, so each decides both ways. Anything else is not compared, and so is a polygon whose
    infeasibility, like F4's, is F1's certificate (both two-stage: one proof, not two; ``polygons`` holds the
    polygons' answers)."""
    exact = problem.dimension == 2
    out = []
    ps = sol.status
    for kind, proves in (("inner", "solved"), ("outer", "infeasible")):
        name, st = f"facetized_{kind}", bracket[kind]
        poly = (polygons or {}).get(kind)
        if poly is not None and _rests_on_f1(poly) and _rests_on_f1(sol):
            why = "its answer and F4's both rest on F1's certificate that the MLCP without cones has no solution"
            out.append(route_outcome(name, st, NOT_COMPARED, why + ": not an independent check"))
            continue
        if st == BRACKET_ITSELF:
            out.append(route_outcome(name, "not_run", NOT_COMPARED, "the answer's own program: not a check of itself"))
        elif st == BRACKET_NOT_ASKED:
            out.append(
                route_outcome(
                    name,
                    st,
                    NOT_COMPARED,
                    "not computed: the polygon bracket runs only when asked (bracket='auto' or 'always')",
                )
            )
        elif st == BRACKET_SKIPPED:
            out.append(
                route_outcome(
                    name,
                    st,
                    NOT_COMPARED,
                    "skipped: F4's answer is certified with unique multipliers (bracket='always' runs it)",
                )
            )
        elif st not in ("solved", "infeasible"):
            out.append(route_outcome(name, st, NOT_COMPARED, f"{name} ended {st!r}"))
        elif st != proves and not exact:
            out.append(
                route_outcome(
                    name,
                    st,
                    NOT_COMPARED,
                    f"{'inscribed' if kind == 'inner' else 'circumscribed'} polygon {st}: "
                    "proves nothing about the disks",
                )
            )
        elif ps not in ("solved", "infeasible"):
            out.append(route_outcome(name, st, NOT_COMPARED, f"the primary route ended {ps!r}"))
        else:
            ok = st == ps
            out.append(
                route_outcome(
                    name,
                    st,
                    AGREED if ok else DISAGREED,
                    f"polygon {st} {'proves' if not exact else 'is exact in 2D:'} "
                    f"{'feasible' if st == 'solved' else 'infeasible'}; {sol.formulation} {ps!r}",
                )
            )
    return out


def _mlcp_outcome(
    sol: Solution, other: Solution, other_name: str, problem: ContactProblem, tol: Tolerance
) -> tuple[float | None, float | None, RouteOutcome]:
    """(acceleration gap, ``Jᵀλ`` gap, outcome) of the sticking MLCP route's answer ``other`` against F4's ``sol``
    (:func:`sticking_crosscheck`): when F4 finds the sticking mode, its acceleration solves the MLCP without cones, so a
    certified MLCP answer is compared on the acceleration and ``Jᵀλ`` when the acceleration is unique; an MLCP answer
    that failed its own checks (``inaccurate``) is compared with nothing (neither F4's answer nor its verified
    nonexistence), as the generic cross-check does not compare one."""
    feasible = sol.status == SOLVED

    def uncompared_gaps(outcome: str, reason: str) -> tuple[None, None, RouteOutcome]:
        return None, None, route_outcome(other_name, other.status, outcome, reason)

    if other.status == INACCURATE:  # compared with neither an answer nor a verified nonexistence
        return uncompared_gaps(NOT_COMPARED, "the route's answer failed its own residual checks")
    if feasible and other.status in SOLUTION_PRESENT:
        if not sol.unique.get("acceleration"):
            return uncompared_gaps(NOT_COMPARED, "the acceleration is not known to be unique: a gap proves nothing")
        ga = _rel_gap(sol.acceleration, other.acceleration, problem)
        gf = _rel_gap(sol.generalized_force, other.generalized_force, problem, "force")
        ok = ga <= tol.crosscheck and gf <= tol.crosscheck
        within = f"acceleration and Jᵀλ {'within' if ok else 'beyond'} the cross-check tolerance {tol.crosscheck:g}"
        return ga, gf, route_outcome(other_name, other.status, AGREED if ok else DISAGREED, within)
    if feasible and other.status in INF_OR_UNB:
        return uncompared_gaps(
            DISAGREED,
            f"{sol.formulation} found the sticking mode, whose acceleration solves the MLCP without cones, "
            f"but {other_name} says {other.status!r}",
        )
    if sol.status in INF_OR_UNB and sol.hints.nonexistence_verified and other.status in SOLUTION_PRESENT | INF_OR_UNB:
        return uncompared_gaps(
            AGREED if other.status == sol.status else DISAGREED,
            f"{sol.formulation} {sol.status!r} because the MLCP without cones is; {other_name} {other.status!r}",
        )
    if other.status not in SOLUTION_PRESENT | INF_OR_UNB:
        return uncompared_gaps(NOT_COMPARED, f"{other_name} ended {other.status!r}")
    return uncompared_gaps(
        NOT_COMPARED, f"{sol.formulation} {sol.status!r}: the MLCP without cones ({other.status!r}) does not decide it"
    )


def sticking_crosscheck(
    sol: Solution, problem: ContactProblem, cls, solver, tol, facets: int = DEFAULT_FACETS, bracket_mode: str = "off"
) -> CrossCheck:
    """F4 against the facetized bracket (inner feasible ⇒ feasible; outer infeasible ⇒ infeasible)
    and, on the unique acceleration, against the sticking MLCP without cones (LCP route when M ≻ 0 and
    n <= :data:`CROSSCHECK_MAX_N`, else F1; F1 also when the LCP route's answer fails its own checks in the light
    judgement, which then sets that route aside, not compared): when F4 finds the sticking mode, its acceleration is a
    KKT point of that MLCP. A route whose lightly judged answer disagrees is solved again and judged in full (F1 then
    through Clarabel, its central multipliers, not DAQP's vertex): its disagreement stands only on that full answer;
    when the full answer fails its own checks (inaccurate or failed) and another route remains, the light
    disagreement is not confirmed, the route is set aside (its reason records both judgements) and the next route is
    compared. Where F1 takes the small dense path as a compared route
    (:func:`~gaussqp.formulations.gauss_qp.fast_path_applies` with ``any_multipliers``), F1 comes first and the LCP
    route only when F1's answer fails its own checks: on the all-sticking humanoid F1 through DAQP and its light
    judgement cost ~0.8 ms, Lemke's route ~1.6 ms, which failed its own checks on two states in three. F1 is used
    only when F4's one-stage program answered: F4's two-stage route takes F1's acceleration (or F1's proof of
    infeasibility), so F1 is then not run ("not_run", not compared) and the LCP route
    is judged in full as the only one. Each route's outcome is in ``routes``; ``agree`` is None when no route could be
    compared.

    ``bracket_mode`` (:data:`BRACKET_MODES`): "off" does not compute the two polygon programs (their entries say
    :data:`BRACKET_NOT_ASKED` and their routes are not compared: F4's own certificates and the MLCP route stand
    alone; on the all-sticking humanoid the bracket was a third of a certified solve); "auto" skips them when F4's
    answer is already certified (status solved: it passed the judge's residual and cone checks) with unique
    multipliers (then the disks' answer is one point, which the inscribed polygon could only confirm; at 10⁴
    contacts the bracket was 60 % of a solve); "always" runs them."""
    bracket, polygons = {}, {}
    skip = bracket_mode == "auto" and sol.status == SOLVED and sol.unique.get("multipliers") is True
    for b in BRACKET:
        f = facetized(b, facets)
        if sol.formulation == f.name:  # an F5 answer (with the same facets: the dispatcher passes its own)
            bracket[b.split("_")[1]] = BRACKET_ITSELF  # the answer's own program: no check of itself
        elif not f.accepts(problem, cls)[0]:  # no polygons beyond d = 3: not run, and _bracket_routes says so
            bracket[b.split("_")[1]] = "not_run"
        elif bracket_mode == "off":
            bracket[b.split("_")[1]] = BRACKET_NOT_ASKED
        elif skip:
            bracket[b.split("_")[1]] = BRACKET_SKIPPED
        else:
            polygons[b.split("_")[1]] = f.solve(problem, solver=solver, tolerance=tol)
            bracket[b.split("_")[1]] = polygons[b.split("_")[1]].status
    feasible = sol.status == "solved"
    consistent = not (
        (bracket["inner"] == "solved" and sol.status == "infeasible") or (bracket["outer"] == "infeasible" and feasible)
    )
    lemke = problem.n <= CROSSCHECK_MAX_N["lcp_lemke"] and FORMULATIONS["lcp_lemke"].accepts(problem, cls)[0]
    # F1 is independent of F4 only when F4's own program answered: its two-stage route takes F1's acceleration (and
    # its infeasibility from F1's certificate), so F1 would compare with itself
    f1_independent = sol.route != TWO_STAGE
    names = (["lcp_lemke"] if lemke else []) + (["gauss_qp"] if f1_independent else [])
    if f1_independent and fast_path_applies(problem, solver, any_multipliers=True):
        names.reverse()  # F1 on DAQP's small dense path first: cheaper than Lemke and its judgement (module docstring)
    # with no route to run (a two-stage answer without the LCP route): F1 not run, not compared
    other_name, solver_used, status_used, ga, gf = "gauss_qp", "", "not_run", None, None
    route = route_outcome(
        other_name,
        status_used,
        NOT_COMPARED,
        f"{sol.formulation} answered by its two-stage route, whose acceleration is F1's: F1 is not an independent "
        "check of it",
    )
    set_aside: list[RouteOutcome] = []
    for k, other_name in enumerate(names):
        g = FORMULATIONS[other_name]
        backend = solver if g.kind == "cvxpy" else None
        light: list = []

        def agrees(o: Solution, name: str = other_name) -> bool:
            light.append(_mlcp_outcome(sol, o, name, problem, tol))
            return light[-1][2].outcome == AGREED

        # first judged for its status only (role crosscheck), as the generic cross-check does: enough to agree.
        # Anything else rests on the route's answer judged in full, except an answer that failed its own checks while
        # another route remains (F1 with the cones removed, independent of a one-stage F4): that route is compared
        # instead (on the all-sticking humanoid Lemke's pivots end at a vertex of condition ~6e10 on 9 states of 40,
        # where F1 agrees), and so is an answer whose light disagreement the full judgement finds failing its checks
        last = k == len(names) - 1
        other, role = g.solve_to_compare(
            problem, backend, tol, agrees, escalate=None if last else (lambda o: o.status not in (INACCURATE, FAILED))
        )
        ga, gf, route = light[-1] if role == CROSSCHECK else _mlcp_outcome(sol, other, other_name, problem, tol)
        solver_used, status_used = other.solver, other.status
        if role == CROSSCHECK and route.outcome != AGREED:  # set aside: the next route is compared
            set_aside.append(
                replace(route, reason=f"{route.reason} (judged for its status only); compared through {names[k + 1]}")
            )
            continue
        if not last and other.status in (INACCURATE, FAILED):
            # its light disagreement is not confirmed: judged in full, the answer fails its own checks (Lemke's vertex
            # of condition ~6e10 on the all-sticking humanoid: a small residual, a forward error of 0.19), which
            # compares with nothing; the next route is compared instead of leaving the cross-check with none
            # the light answer's disagreement is recorded with it: a disagreement is reported only on a fully judged
            # answer, and this one (for F1: solved again by Clarabel, central multipliers) failed its checks
            seen = f"; judged for its status only: {light[0][2].outcome} ({light[0][2].reason})" if light else ""
            set_aside.append(
                replace(route, reason=f"{route.reason} (judged in full){seen}; compared through {names[k + 1]}")
            )
            continue
        if role == CROSSCHECK and other.status == SOLVED:
            route = replace(route, reason=route.reason + "; " + LIGHT_AGREEMENT)
        break
    routes = _bracket_routes(sol, problem, bracket, polygons) + set_aside + [route]
    return CrossCheck(
        formulation=other_name,
        solver=solver_used,
        status=status_used,
        routes=tuple(routes),
        agree=combined_agreement(routes),
        acceleration_gap=ga,
        generalized_force_gap=gf,
        bracket=Bracket(facets=facets, inner=bracket["inner"], outer=bracket["outer"], consistent=consistent),
    )


# ---------------------------------------------------------------- sliding and Coulomb
def _enumeration_status(enum) -> str:
    """The enumeration's verdict: ``solved`` (a solution within the tolerance), ``infeasible`` (certified: no solution
    for any data within :data:`~gaussqp.settings.NONEXISTENCE_CHANGE`), else ``failed`` (it decided nothing)."""
    return "solved" if enum.solutions else "infeasible" if enum.none_certified else "failed"


#: why an enumeration that found no solution but cannot certify "none" is not compared
UNDECIDED_ENUMERATION = (
    "the enumeration found no solution within the tolerance but cannot certify that none exists (the nearest "
    "solvable data is within what a certified 'infeasible' must survive, or a piece was undecided): not compared"
)


def _enumeration_report(name: str, enum, route: RouteOutcome) -> CrossCheck:
    """The report of an enumeration route (``enum`` None: the route ended before enumerating, ``failed``)."""
    return CrossCheck(
        formulation=name,
        solver="enumeration",
        status="failed" if enum is None else _enumeration_status(enum),
        routes=(route,),
        agree=combined_agreement((route,)),
        enumeration=None
        if enum is None
        else EnumerationCount(len(enum.solutions), enum.multiplicity, enum.multiplier_multiplicity),
    )


def sliding_crosscheck(sol: Solution, name: str, problem: ContactProblem, cls, tol) -> CrossCheck | None:
    """An F6 answer against another F6 route: against the enumeration, agreement means the answer is one
    of the enumerated solutions (sliding problems may have several); against another route, the unique
    quantities are compared when the verdict says the acceleration is unique."""
    for other_name in SLIDING_CROSSCHECK:
        if other_name == name or not FORMULATIONS[other_name].accepts(problem, cls)[0]:
            continue
        if other_name == "sliding_enumeration" and sol.enumeration is not None:
            enum = sol.enumeration
            found = sol.in_enumeration
            status = _enumeration_status(enum)
            if status == "failed":
                route = route_outcome(other_name, status, NOT_COMPARED, UNDECIDED_ENUMERATION)
            elif sol.status in SOLUTION_PRESENT:
                route = route_outcome(
                    other_name,
                    status,
                    AGREED if found else DISAGREED,
                    "the answer is " + ("" if found else "not ") + "one of the enumerated solutions",
                )
            elif sol.status in INF_OR_UNB:
                ok = sol.status == status
                route = route_outcome(
                    other_name,
                    status,
                    AGREED if ok else DISAGREED,
                    f"primary {sol.status!r}, enumeration {status!r} ({len(enum.solutions)} solutions)",
                )
            else:
                route = route_outcome(other_name, status, NOT_COMPARED, f"the primary route ended {sol.status!r}")
            return _enumeration_report(other_name, enum, route)
        other = FORMULATIONS[other_name].solve(problem, tolerance=tol)
        rep = crosscheck_report(sol, other, tol.crosscheck)
        if (
            sol.unique.get("acceleration") is not True
            and sol.status in SOLUTION_PRESENT
            and other.status in SOLUTION_PRESENT
        ):
            rep = _not_compared(rep, other_name, other.status, "several solutions may exist: a gap proves nothing")
        return rep
    return None


def coulomb_crosscheck(
    sol: Solution, name: str, problem: ContactProblem, cls, solver, tol
) -> tuple[CrossCheck | None, Solution | None]:
    """A mode-free Coulomb answer (F8/F9) against the exact 2D enumeration when it accepts the problem — the
    answer must be one of the enumerated solutions, and the enumeration's multiplicity is then the proof of
    uniqueness (``sol.unique``) — else against the other Coulomb route, compared only when both answers coincide
    (several solutions may exist: a gap between two certified answers proves nothing). Returns (report, the
    enumeration's own Solution or None)."""
    enum_f = FORMULATIONS["coulomb_enumeration"]
    if problem.dimension == 2 and enum_f.accepts(problem, cls)[0]:
        esol = enum_f.solve(problem, solver=solver, tolerance=tol)
        enum = esol.enumeration
        status = _enumeration_status(enum) if enum is not None else "failed"
        if status == "failed":
            why = UNDECIDED_ENUMERATION + (f" ({esol.message})" if esol.message else "")
            return _enumeration_report(enum_f.name, enum, route_outcome(enum_f.name, status, NOT_COMPARED, why)), None
        if sol.status == SOLVED:
            found = enum.find(sol.acceleration, sol.lambda_normal, sol.lambda_tangent) is not None
            route = route_outcome(
                enum_f.name,
                status,
                AGREED if found else DISAGREED,
                "the answer is " + ("" if found else "not ") + "one of the enumerated solutions",
            )
            if found:
                acc = {"unique": True, "multiple": False, "continuum": False}.get(enum.multiplicity)
                lam = {"unique": True, "multiple": False, "continuum": False}.get(enum.multiplier_multiplicity)
                sol.unique = {"acceleration": acc, "generalized_force": acc, "multipliers": lam}
                sol.extras["uniqueness"] = (
                    f"decided by the exact 2D enumeration: acceleration {enum.multiplicity}, "
                    f"multipliers {enum.multiplier_multiplicity}"
                )
        else:
            route = route_outcome(enum_f.name, status, NOT_COMPARED, f"the primary route ended {sol.status!r}")
        return _enumeration_report(enum_f.name, enum, route), esol
    for other_name in COULOMB_ROUTES:
        g = FORMULATIONS[other_name]
        if other_name == name or not g.accepts(problem, cls)[0]:
            continue
        budget = COULOMB_CROSSCHECK_WORK.get(other_name)
        if budget is not None:  # a copy of the route with a work budget: a cross-check must not cost seconds
            limit = float(getattr(settings, budget))
            size = problem.n + problem.m * problem.dimension
            if WorkBudget(limit, size).step > limit:  # not one step: not run at all
                why = (
                    f"not run: one step on its {size} unknowns (n + m·d) costs more than its work budget "
                    f"(gaussqp.settings.{budget}: {limit:.3g} operations); solve with formulation={other_name!r} "
                    "to compare"
                )
                outcome = route_outcome(other_name, "not_run", NOT_COMPARED, why)
                return CrossCheck(other_name, "", "not_run", (outcome,), combined_agreement((outcome,))), None
            g = copy.copy(g)
            g.work_budget = limit  # type: ignore[attr-defined]
        other = g.solve(problem, solver=solver, tolerance=tol)
        rep = crosscheck_report(sol, other, tol.crosscheck)
        spent = other.extras.get("work_budget") or {}
        if spent.get("exhausted") and rep.agree is None and other.status != SOLVED:
            rep = _not_compared(
                rep,
                other_name,
                other.status,
                f"stopped by its work budget (gaussqp.settings.{budget}: {spent['limit']:.3g} operations, "
                f"{spent['step']:.3g} a step) before certifying an answer; solve with formulation={other_name!r} to "
                "compare",
            )
        if rep.agree is False and sol.unique.get("acceleration") is not True:
            rep = _not_compared(
                rep,
                other_name,
                other.status,
                "the two routes found different answers, each judged by its own "
                "residuals: several solutions may exist, so a gap proves nothing",
            )
        return rep, None
    return None, None


def _enumeration_decides(sol: Solution, name: str, rep: CrossCheck | None, esol: Solution | None) -> Solution:
    """The exact enumeration decides what the iterative route could not: when ``sol`` is not ``solved`` and the
    enumeration's ``esol`` is solved, infeasible or unbounded, its answer (or its proof that none exists) is
    returned, with the route's failure on record; else ``sol``."""
    if esol is None or sol.status == SOLVED or esol.status not in (SOLVED, *INF_OR_UNB):
        return sol
    esol.message = (
        esol.message + "; " if esol.message else ""
    ) + f"{name} ended {sol.status!r} ({sol.message}); the exact 2D enumeration's answer"
    esol.extras["failed_route"] = {"formulation": name, "status": sol.status, "message": sol.message}
    esol.crosscheck = rep
    esol.certificates = [c for c in sol.certificates if c.id != "natural_map"] + esol.certificates
    esol.friction_bounds = sol.friction_bounds
    return esol


# ---------------------------------------------------------------- the table and the stage
@dataclass(frozen=True)
class CrossCheckKind:
    """One kind of cross-check: the routes that check an answer (in the order tried) and the function that runs
    them, ``run(sol, name, problem, cls, solver, tol, facets, bracket) -> (report or None, replacement or None)``
    (a replacement solution: the exact enumeration's answer when it decides what the primary could not)."""

    name: str
    routes: tuple[str, ...]
    run: Callable[..., tuple[CrossCheck | None, Solution | None]]
    what: str


def _run_generic(sol, name, problem, cls, solver, tol, facets, bracket):
    return generic_crosscheck(sol, name, problem, cls, solver, tol), None


def _run_sticking(sol, name, problem, cls, solver, tol, facets, bracket):
    return sticking_crosscheck(sol, problem, cls, solver, tol, facets, bracket), None


def _run_sliding(sol, name, problem, cls, solver, tol, facets, bracket):
    return sliding_crosscheck(sol, name, problem, cls, tol), None


def _run_coulomb(sol, name, problem, cls, solver, tol, facets, bracket):
    return coulomb_crosscheck(sol, name, problem, cls, solver, tol)


def _run_none(sol, name, problem, cls, solver, tol, facets, bracket):
    return None, None


#: Every kind of cross-check, by the name a formulation declares in its ``crosscheck`` attribute.
CROSSCHECKS: dict[str, CrossCheckKind] = {
    k.name: k
    for k in (
        CrossCheckKind(
            "generic",
            tuple(CROSSCHECK_ORDER),
            _run_generic,
            "the first other route of CROSSCHECK_ORDER that accepts the problem, on the unique quantities",
        ),
        CrossCheckKind(
            "sticking",
            (*BRACKET, "lcp_lemke", "gauss_qp"),
            _run_sticking,
            "the facetized bracket and the sticking MLCP without cones",
        ),
        CrossCheckKind(
            "sliding",
            tuple(SLIDING_CROSSCHECK),
            _run_sliding,
            "the exact enumeration of the sliding pieces, else another F6 route",
        ),
        CrossCheckKind(
            "coulomb",
            ("coulomb_enumeration", *COULOMB_ROUTES),
            _run_coulomb,
            "the exact 2D enumeration, else the other mode-free Coulomb route",
        ),
        CrossCheckKind("none", (), _run_none, "not cross-checked"),
    )
}


def crosscheck_kind(f: Formulation) -> CrossCheckKind:
    """The cross-check ``f`` declares (its ``crosscheck`` attribute, a key of :data:`CROSSCHECKS`)."""
    kind = getattr(f, "crosscheck", None)
    if kind not in CROSSCHECKS:
        raise TypeError(
            f"formulation {f.name!r} declares no cross-check (crosscheck = {kind!r}): set its "
            f"'crosscheck' attribute to one of {', '.join(CROSSCHECKS)}"
        )
    return CROSSCHECKS[kind]


def withdraw_if_contradicted(sol: Solution) -> None:
    """Status says "solved" only for a certified answer: a disagreeing independent route withdraws it."""
    if sol.status == SOLVED and sol.crosscheck is not None and sol.crosscheck.disagreed:
        sol.status = INACCURATE
        sol.message = (sol.message + "; " if sol.message else "") + "an independent route disagrees (see crosscheck)"


def cross_check(
    sol: Solution,
    name: str,
    f: Formulation,
    problem: ContactProblem,
    cls,
    *,
    solver,
    tol: Tolerance,
    facets: int = DEFAULT_FACETS,
    bracket: str = "off",
) -> Solution:
    """The cross-check stage of :func:`gaussqp.dispatch.solve_classified`: run the cross-check ``f`` declares
    (:func:`crosscheck_kind`) on ``sol``, the answer of route ``name``; set ``crosscheck``; return the answer (the
    exact enumeration's when it decided what the route could not), withdrawn if a route contradicts it."""
    rep, replacement = crosscheck_kind(f).run(sol, name, problem, cls, solver, tol, facets, bracket)
    sol.crosscheck = rep
    sol = _enumeration_decides(sol, name, rep, replacement)
    withdraw_if_contradicted(sol)
    return sol

"""``solve``: classify, choose a formulation, solve and judge it, cross-check it, certify it (docs/DESIGN.md,
"The life of a solve").

The choice is data, not an if-chain: :data:`PREFERENCES` maps the system class key
``(mass, constraints, modes)`` to formulations in preference order; the first that
accepts the problem is used. The cross-check is :mod:`gaussqp.crosscheck`'s, the one each formulation declares
(its ``crosscheck`` attribute); no route is named here.
"""

from __future__ import annotations

import time
from typing import cast
from dataclasses import replace

import numpy as np

from .certificates.judge import withdraw_outside_the_disks
from .certificates.structural import structural_certificates
from .settings import DEFAULT_FACETS, FACETS_MAX, ROUND_OFF, STRUCTURAL_N_MAX, Tolerance, get_tolerance
from .errors import NotApplicableError, UnknownValueError
from .formulations import FORMULATIONS, get_formulation
from .formulations.base import Formulation, undecided_modes
from .certificates.force_envelopes import ForceRanges, force_ranges as envelopes_of
from .certificates.friction_bounds import friction_bounds
from .formulations.coulomb import solve_local_problem
from .linalg.blas_threads import one_blas_thread
from .model.arguments import check_solve_arguments
from .model.local_problem import LocalContactProblem
from .model.problem import ContactProblem, unknowns
from .model.system_class import SystemClass
from .results import (
    AGREED,  # noqa: F401
    DISAGREED,  # noqa: F401
    NOT_COMPARED,  # noqa: F401
    SOLVED,
    JudgeHints,
    Solution,  # noqa: F401
    combined_agreement,  # noqa: F401
)

# the cross-check stage lives in gaussqp.crosscheck; its public names are kept here as aliases
from .crosscheck import (
    BRACKET,
    BRACKET_MODES,
    BRACKET_SKIPPED,  # noqa: F401
    COULOMB_ROUTES,  # noqa: F401
    CROSSCHECK_MAX_N,  # noqa: F401
    CROSSCHECK_ORDER,  # noqa: F401
    SLIDING_CROSSCHECK,  # noqa: F401
    coulomb_crosscheck,  # noqa: F401
    cross_check,
    crosscheck_report,  # noqa: F401
    facetized,
    route_outcome,  # noqa: F401
    sliding_crosscheck,  # noqa: F401
    sticking_crosscheck,  # noqa: F401
)

PREFERENCES: dict[tuple[str, str, str], list[str]] = {
    ("definite", "none", "frictionless"): ["gauss_qp"],
    ("definite", "bilateral", "frictionless"): ["bilateral_kkt", "gauss_qp", "lcp_lemke"],
    ("definite", "unilateral", "frictionless"): ["gauss_qp", "delassus_qp", "lcp_lemke"],
    ("definite", "mixed", "frictionless"): ["gauss_qp", "projected_eliminated", "lcp_lemke"],
    ("singular", "none", "frictionless"): ["gauss_qp"],
    ("singular", "bilateral", "frictionless"): ["bilateral_kkt", "gauss_qp"],
    ("singular", "unilateral", "frictionless"): ["gauss_qp"],
    ("singular", "mixed", "frictionless"): ["gauss_qp"],
    **{
        (mass, cons, "sticking"): ["sticking_socp"]
        for mass in ("definite", "singular")
        for cons in ("bilateral", "unilateral", "mixed")
    },
    # F6: sliding friction (tutorial §3) and stick/slip (sticking §5, friction key "mixed")
    ("definite", "bilateral", "sliding"): ["sliding_lcp", "sliding_fixed_point", "sliding_enumeration"],
    ("definite", "unilateral", "sliding"): ["sliding_lcp", "sliding_enumeration"],
    ("definite", "mixed", "sliding"): ["sliding_lcp", "sliding_enumeration"],
    **{("singular", cons, "sliding"): ["sliding_enumeration"] for cons in ("bilateral", "unilateral", "mixed")},
    # "mixed": told sticking with told sliding (F6), or coulomb contacts with told ones (F9)
    **{
        (mass, cons, "mixed"): ["coulomb_fixed_point", "coulomb_mixed", "sliding_enumeration"]
        for mass in ("definite", "singular")
        for cons in ("bilateral", "unilateral", "mixed")
    },
    # mode-free Coulomb contacts: the condensed route (M ≻ 0, unilateral), else the one in (a, λ);
    # the exact 2D enumeration checks them (COULOMB_CROSSCHECK) and is the route of last resort
    **{
        (mass, cons, "coulomb"): ["coulomb_fixed_point", "coulomb_mixed", "coulomb_enumeration"]
        for mass in ("definite", "singular")
        for cons in ("bilateral", "unilateral", "mixed")
    },
}


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
    raise NotApplicableError(f"no formulation accepts this problem ({'; '.join(reasons)}){_mode_free_fix(problem)}")


def _mode_free_fix(problem: ContactProblem) -> str:
    """The fix a refusal names when told modes stand in the way and no contact is mode-free (a simulator's state as
    :func:`gaussqp.io.mujoco.import_mujoco` poses it: resting contacts told sticking beside more told sliding contacts
    than the enumeration takes): the re-posings of :meth:`~gaussqp.ContactProblem.mode_free` that a route accepts —
    the told sticking contacts' stick or slip left to the solver (the told sliding ones keep their direction), and
    every told contact's (``sliding=True``: the sliding read from a simulator's velocities, docs/guide/robots.md). The
    contacts counted are those each re-posing frees. Empty when none is accepted."""
    if len(problem.coulomb) or not any(str(m) in ("sticking", "sliding") for m in problem.modes):
        return ""
    options, freed_before = [], 0
    for sliding in (False, True):
        posed = problem.mode_free(sliding=sliding)
        freed = sum(str(a) != str(b) for a, b in zip(problem.modes, posed.modes))
        more, freed_before = freed - freed_before, freed
        if not more:  # this re-posing frees nothing the one before did not
            continue
        try:
            choose_formulation(posed)  # posed has a mode-free contact: its own refusal names no fix
        except NotApplicableError:
            continue
        if sliding:
            options.append(
                f"problem.mode_free(sliding=True) leaves those of every told unilateral contact, the {more} sliding "
                "too to the solver"
            )
        else:
            options.append(
                f"problem.mode_free() leaves the stick or slip of the {more} contact(s) told 'sticking' to the solver"
            )
    return f"; fix: pose {', or '.join(options)}" if options else ""


def check_bracket(bracket) -> None:
    """``bracket`` is one of :data:`BRACKET_MODES`."""
    if not isinstance(bracket, str) or bracket not in BRACKET_MODES:
        raise UnknownValueError(
            "bracket",
            f"is {bracket!r}",
            "give 'off' (no facetized bracket, the default), 'auto' (the bracket unless F4's answer is certified with "
            "unique multipliers) or 'always'",
        )


def check_facets(facets) -> None:
    """``facets`` is an integer in [3, FACETS_MAX], checked whether or not a polygon is built for this problem."""
    integral = isinstance(facets, (int, np.integer)) and not isinstance(facets, (bool, np.bool_))
    if not integral or not 3 <= facets <= FACETS_MAX:
        raise UnknownValueError(
            "facets",
            f"is {facets!r}",
            f"give an integer from 3 (a triangle) to {FACETS_MAX} (polygons beyond add rows, "
            "not accuracy worth their cost)",
        )


def formulation_object(name: str, facets: int) -> Formulation:
    """The formulation object that :func:`solve` runs for ``name``: the registered one
    (:func:`~gaussqp.formulations.get_formulation`, which raises for an unknown name), or for the facetized pair
    the one with ``facets`` facets."""
    return facetized(name, facets) if name in BRACKET else get_formulation(name)


def solve(
    problem: ContactProblem | LocalContactProblem,
    formulation: str = "auto",
    solver: str | None = None,
    crosscheck: bool = True,
    tolerance=None,
    certify: bool = True,
    facets: int = DEFAULT_FACETS,
    bracket: str = "off",
) -> Solution:
    """Solve the contact problem and return a :class:`Solution` with certificates.

    Finds the acceleration ``a`` and the contact multipliers of ``M a + F = J_nᵀλ_n + J_tᵀλ_t`` with the
    bilateral rows, the unilateral complementarity and each contact's friction law, and says with proof whether
    they exist and whether they are unique. ``status == "solved"`` means certified: a backend's claim is
    downgraded to ``"inaccurate"`` when our recomputed residuals, the forward-error estimate or an independent
    route disagree, and a claimed infeasibility or unboundedness stands only with a verified Farkas vector or
    descent ray.

    A :class:`~gaussqp.LocalContactProblem` (``u = W r + q``) goes to the mode-free Coulomb route
    (:func:`gaussqp.formulations.coulomb.solve_local_problem`): ``lambda_normal``/``lambda_tangent`` are the
    reaction r, ``velocity`` is u, ``acceleration`` is None.

    Parameters
    ----------
    problem : ContactProblem or LocalContactProblem
        The problem: built in code, read by :func:`gaussqp.load`, an importer, or
        ``gaussqp.problems.load(name)``.
    formulation : str, default "auto"
        ``"auto"`` picks the first accepting formulation of the preference table by system class
        (:data:`gaussqp.PREFERENCES`); or a registered name (``gaussqp formulations`` lists them).
    solver : str or None, default None
        Backend of the cvxpy formulations (``"clarabel"``, ``"osqp"``, ``"scs"``); None takes the first
        installed.
    crosscheck : bool, default True
        Also run an independent route (the LCP route when M ≻ 0) and report the gaps; a disagreeing route
        withdraws ``"solved"``.
    tolerance : str or Tolerance, optional
        Preset name (``"high"``, the default, ``"mid"``, ``"low"``) or a :class:`~gaussqp.settings.Tolerance`.
    certify : bool, default True
        Attach the structural certificates C1–C6, C8 and the friction bounds C7 (skipped above n = 1500).
    facets : int, default 8
        Facet count of the F5 polygons (the facetized formulations and the sticking bracket).
    bracket : str, default "off"
        The F5 polygon bracket of the sticking cross-check (inscribed feasible ⇒ feasible, circumscribed infeasible
        ⇒ infeasible; sticking (54)–(59)), computed only when asked: ``"off"`` does not compute it (the cross-check's
        ``bracket`` entries say ``"not_asked"`` and its two routes are not compared); ``"auto"`` runs it unless F4's
        answer is certified with unique multipliers; ``"always"`` runs it.

    Returns
    -------
    Solution
        The status, the answer, the residuals we recomputed, the certificates, what is unique and the
        cross-check; :meth:`Solution.summary` explains it as text.

    Raises
    ------
    gaussqp.errors.InputError
        A bad argument (a wrong type, an unknown formulation or solver name), naming the field and the fix.
    gaussqp.errors.NotApplicableError
        The named formulation does not accept this problem (the message says why).

    See Also
    --------
    check : the structural certificates without a solve.
    Solver : the same answers for many states of one structure.

    Examples
    --------
    >>> import gaussqp
    >>> sol = gaussqp.solve(gaussqp.problems.load("hyperstatic_block"))
    >>> sol.status, sol.certified, sol.formulation
    ('solved', True, 'gauss_qp')
    >>> sol.unique    # a block on three aligned points: its motion is unique, its multipliers are not
    {'acceleration': True, 'generalized_force': True, 'multipliers': False}
    >>> print(sol.summary().splitlines()[1])
    status       solved  (certified)
    """
    check_solve_arguments(problem, formulation, solver, crosscheck, certify)
    tol = get_tolerance(tolerance)
    check_facets(facets)
    check_bracket(bracket)
    if problem.form == "local":  # no system class: the route that takes local problems (accepts_local)
        local = [n for n, g in FORMULATIONS.items() if g.accepts_local]
        if formulation != "auto" and formulation not in local:
            raise NotApplicableError(
                f"formulation {formulation!r} does not accept a local (Delassus) problem "
                f"u = W r + q: use 'auto' or {' or '.join(map(repr, local))}"
            )
        local_problem = cast(LocalContactProblem, problem)
        with one_blas_thread(unknowns(local_problem)):
            return solve_local_problem(local_problem, solver=solver, tolerance=tol)
    problem = cast(ContactProblem, problem)
    t0 = time.perf_counter()
    cls = problem.classify()
    name = choose_formulation(problem, cls) if formulation == "auto" else formulation
    return solve_classified(
        problem,
        cls,
        name,
        formulation_object(name, facets),
        solver=solver,
        crosscheck=crosscheck,
        tol=tol,
        certify=certify,
        facets=facets,
        started=t0,
        bracket=bracket,
    )


def solve_classified(
    problem: ContactProblem,
    cls: SystemClass,
    name: str,
    f: Formulation,
    *,
    solver: str | None,
    crosscheck: bool,
    tol: Tolerance,
    certify: bool,
    facets: int,
    started: float,
    bracket: str = "off",
    correct_drifts: bool = True,
) -> Solution:
    """The body of :func:`solve` once the system class ``cls`` of ``problem`` is known and the formulation chosen
    (``name``, its object ``f`` from :func:`formulation_object`): check that ``f`` accepts the problem, solve,
    attach the structural certificates, cross-check, withdraw a "solved" that an independent route contradicts.
    ``tol`` is a resolved :class:`~gaussqp.settings.Tolerance`, ``facets`` and ``bracket`` already checked, ``started`` the
    ``time.perf_counter()`` at which the caller began (``times["total"]``). :func:`solve` and
    :class:`gaussqp.batch.Solver` both end here, so their answers are the same. When the route does not certify an
    answer and the drifts are inconsistent within the tolerance, :func:`solve_nearest_consistent` answers for the
    nearest consistent drifts, judged against the data as given (``correct_drifts``)."""
    ok, why = f.accepts(problem, cls)
    if not ok:
        raise NotApplicableError(f"formulation {name!r} does not accept this problem: {why}")
    # the route, the judge and the cross-check of a small problem with every BLAS library on one thread
    with one_blas_thread(unknowns(problem)):
        t0 = started
        sol = f.solve(problem, solver=solver if f.kind == "cvxpy" else None, tolerance=tol)
        withdraw_outside_the_disks(sol)
        if certify and problem.n <= STRUCTURAL_N_MAX:
            # C1-C8 and the friction bounds C7 are facts about the data, which neither the status nor the
            # certification rests on: they are computed when first read (Solution.defer), on the problem's read-only
            # arrays
            candidate = None if sol.status != SOLVED or sol.acceleration is None else np.array(sol.acceleration)
            sol.defer(_structural(problem, candidate, cls.modes != "frictionless"))
        if crosscheck:
            sol = cross_check(sol, name, f, problem, cls, solver=solver, tol=tol, facets=facets, bracket=bracket)
        sol.extras["system_class"] = cls.record()
        if correct_drifts and not sol.certified:
            sol = solve_nearest_consistent(
                sol,
                problem,
                name,
                f,
                solver=solver,
                crosscheck=crosscheck,
                tol=tol,
                certify=certify,
                facets=facets,
                bracket=bracket,
            )
        sol.timing.total = time.perf_counter() - t0
        return sol


_REJUDGED = (
    "kkt_residuals",
    "backward_error",
    "coulomb_cones",
    "forward_error",
    "unique_acceleration",
    "unique_multipliers",
    "farkas",
    "unbounded_ray",
)


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


def _structural(problem: ContactProblem, candidate: np.ndarray | None, frictional: bool):
    """The computation :meth:`~gaussqp.results.Solution.defer` keeps: the structural certificates of ``problem``
    (``candidate``: C5's feasible point to try first, a copy of the judged answer's acceleration), its friction bounds
    when ``frictional``, and the seconds they took."""

    def compute() -> tuple:
        t1 = time.perf_counter()
        certs = structural_certificates(problem, candidate)
        bounds = friction_bounds(problem) if frictional else None
        return certs, bounds, time.perf_counter() - t1

    return compute


def solve_nearest_consistent(
    sol: Solution,
    problem: ContactProblem,
    name: str,
    f: Formulation,
    *,
    solver,
    crosscheck,
    tol: Tolerance,
    certify: bool,
    facets: int,
    bracket: str,
) -> Solution:
    """The verdict contract's answer for data whose drifts are inconsistent within the tolerance (DESIGN.md §4.3).

    ``sol`` is the route's uncertified result on ``problem``. The rows active at an approximate answer are made
    consistent by the smallest drift change in their own scales
    (:func:`gaussqp.model.consistent_drifts.consistent_drifts`); when that change is within ``tol.residual``, the
    same route solves the corrected problem and its certified answer is judged again — residuals, backward error,
    cones, forward error, uniqueness — against the data **as given** (:func:`gaussqp.certificates.judge.finalize`),
    with the change in ``extras["drift_correction"]`` and the message. Otherwise ``sol`` is returned, with the size
    of the inconsistency in its message when there is one."""
    from .certificates.judge import finalize
    from .model.consistent_drifts import DriftCorrection, active_at, consistent_drifts

    if problem.sparse or len(problem.coulomb) or not len(problem.unilateral) + len(problem.bilateral):
        return sol
    a = _approximate_acceleration(sol, problem, solver, tol)
    # the rows active at the approximate answer, then every unilateral row (a resting state: every contact loaded)
    candidates = ([active_at(problem, a, tol.residual)] if a is not None else []) + [np.arange(len(problem.unilateral))]
    tried: list[np.ndarray] = []
    fixed: Solution | None = None
    corr: DriftCorrection | None = None
    for act in candidates:
        c = consistent_drifts(problem, act)
        if c is None or c.relative <= ROUND_OFF or any(np.array_equal(act, t) for t in tried):
            continue  # consistent to round-off: correcting changes nothing a route could see
        tried.append(act)
        if c.relative > tol.residual:
            sol.message = (
                (sol.message + "; " if sol.message else "") + f"the drifts of {len(act)} active unilateral "
                f"rows and the equalities are inconsistent by {c.relative:.1e} of their scales "
                f"(> {tol.residual:g})"
            )
            continue
        r = solve_classified(
            c.problem,
            c.problem.classify(),
            name,
            f,
            solver=solver,
            crosscheck=crosscheck,
            tol=tol,
            certify=False,
            facets=facets,
            started=time.perf_counter(),
            bracket=bracket,
            correct_drifts=False,
        )
        if r.status == SOLVED and r.certified:
            fixed, corr = r, c
            break
        sol.message = (
            (sol.message + "; " if sol.message else "") + f"with the drifts made consistent (a change of "
            f"{c.relative:.1e} of their scales) {name} ended {r.status.value} too"
        )
    if fixed is None or corr is None:
        return sol
    out = Solution(
        problem=problem,
        status=SOLVED,
        formulation=fixed.formulation,
        solver=fixed.solver,
        acceleration=fixed.acceleration,
        lambda_normal=fixed.lambda_normal,
        lambda_tangent=fixed.lambda_tangent,
        hints=JudgeHints(polish_allowed=False, cones_enforced=fixed.hints.cones_enforced),
        route=fixed.route,
        sticking=fixed.sticking,
        enumeration=fixed.enumeration,
        contact_modes=fixed.contact_modes,
        crosscheck=fixed.crosscheck,
        friction_bounds=sol.friction_bounds,
    )
    finalize(out, tol)
    structural = [c for c in sol.certificates if c.id.startswith("C")]
    out.certificates = structural + [c for c in fixed.certificates if c.id not in _REJUDGED] + out.certificates
    if fixed.unique and out.unique.get("acceleration") is None:
        out.unique = dict(fixed.unique)
    out.extras.update(
        {
            "drift_correction": corr.as_dict(),
            "system_class": sol.extras.get("system_class"),
            "as_given": {"formulation": name, "status": sol.status.value, "message": sol.message},
        }
    )
    out.timing = replace(fixed.timing, detail=dict(fixed.timing.detail))
    be = out.backward_error or {}
    out.message = (
        (out.message + "; " if out.message else "")
        + f"solvable after changing the drifts by {corr.absolute:.1e} ({corr.relative:.1e} of their rows' "
        f"scales): the answer of those drifts, judged against the data as given (backward error: forces "
        f"{be.get('forces', float('nan')):.1e}, drifts {be.get('drifts', float('nan')):.1e}); for the "
        f"data as given {name} ended {sol.status.value}" + (f" ({sol.message})" if sol.message else "")
    )
    return out


def force_ranges(problem: ContactProblem, solution: Solution | None = None, **options) -> ForceRanges:
    """The certified force envelopes of ``problem`` at ``solution``.

    For every contact the exact range of its normal force and the largest friction force over every force
    distribution of the answer (:func:`gaussqp.certificates.force_envelopes.force_ranges`); each bound is a
    verified primal point with a verified dual certificate, or None with the reason.

    Parameters
    ----------
    problem : ContactProblem
        The problem.
    solution : Solution, optional
        The answer whose acceleration the envelopes are taken at; by default :func:`solve`'s answer (unless an
        ``acceleration`` option is given).
    **options
        Passed on to :func:`gaussqp.certificates.force_envelopes.force_ranges`.

    Returns
    -------
    ForceRanges
        One envelope per contact, ``certified`` when every bound is.
    """
    if solution is None and options.get("acceleration") is None:
        solution = solve(problem)
    return envelopes_of(problem, solution, **options)

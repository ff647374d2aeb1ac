"""The one place that judges a result: every formulation's raw answer passes through :func:`finalize`.

What is checked depends on what the formulation claims, and is written as data: :data:`JUDGEMENTS` maps
each kind of claim (an answer; an infeasibility already certified by the route; an infeasible or
unbounded claim to verify) to its handler, and :data:`ANSWER_CHECKS` lists the instance checks an
answer goes through, each with the condition under which it applies. A check that fails downgrades
``solved`` to ``inaccurate`` (an answer) or ``failed`` (an unverified infeasible/unbounded claim), so
``status == "solved"`` only for answers that passed every applicable check. The certificates
themselves are computed in :mod:`gaussqp.certificates.instance` and
:mod:`gaussqp.certificates.residuals`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .polish import polish
from ..errors import UnknownValueError
from ..results import (
    FAILED,
    INFEASIBLE,
    SOLUTION_PRESENT,
    SOLVED,
    INACCURATE,
    UNBOUNDED,
    INF_OR_UNB,
    Certificate,
    Solution,
)
from ..settings import FORWARD_ERROR_CONE_SLACK, NONEXISTENCE_CHANGE, Tolerance
from .instance import (
    coulomb_cone_check,
    forward_error,
    unique_acceleration,
    unique_multipliers,
    verify_farkas,
    verify_ray,
)
from .backward_error import backward_error, backward_error_certificate
from .natural_map import judge_natural_map
from .residuals import kkt_residuals

_UNDECIDED = {"acceleration": None, "generalized_force": None, "multipliers": None}


def _note(sol: Solution, text: str) -> None:
    sol.message = (sol.message + "; " if sol.message else "") + text


def _holds(sol: Solution, cid: str) -> bool:
    c = sol.certificate(cid)
    return c is not None and bool(c.holds)


# ---------------------------------------------------------------- the checks of an answer
def _polish(sol: Solution, tol: Tolerance) -> None:
    polish(sol)


def _residuals(sol: Solution, tol: Tolerance) -> None:
    p = sol.problem
    sol.residuals = kkt_residuals(p, sol.acceleration, sol.lambda_normal, sol.lambda_tangent)
    worst = max(sol.residuals.values())
    ok = worst <= tol.residual
    sol.certificates.append(
        Certificate(
            id="kkt_residuals",
            name="KKT residuals recomputed in the original variables",
            source="DESIGN.md §4.2 (instance)",
            holds=ok,
            margin=tol.residual - worst,
            implies=(
                f"(a, λ) satisfies dynamics, constraints, signs and complementarity to {tol.residual:g}"
                if ok
                else "the returned point fails the residual check"
            ),
            data=dict(sol.residuals),
        )
    )
    if sol.status == SOLVED and not ok:
        sol.status = INACCURATE
        _note(sol, f"solver claimed success but max residual {worst:.2e} > {tol.residual:g}")


def _backward_error(sol: Solution, tol: Tolerance) -> None:
    """The verdict contract's ``solved`` (DESIGN.md §4.3): the answer is exact for data changed by at most
    ``tol.residual`` row by row (:mod:`gaussqp.certificates.backward_error`); the change is reported per block."""
    be = backward_error(sol.problem, sol.acceleration, sol.lambda_normal, sol.lambda_tangent)
    sol.backward_error = be.as_dict()
    cert = backward_error_certificate(be, tol.residual)
    sol.certificates.append(cert)
    if sol.status == SOLVED and not cert.holds:
        sol.status = INACCURATE
        _note(sol, f"the answer is exact only for data changed by {be.worst:.2e} (relative) > {tol.residual:g}")


def _coulomb_cones(sol: Solution, tol: Tolerance) -> None:
    model = sol.hints.cones_enforced
    cc = coulomb_cone_check(sol.problem, sol.lambda_normal, sol.lambda_tangent, model)
    if cc is None:
        return
    sol.certificates.append(cc)
    if model is not None and not cc.holds and sol.status == SOLVED:
        sol.status = INACCURATE
        _note(sol, f"multipliers leave the {model.kind} cones by {-cc.margin:.2e}")


def _forward_error(sol: Solution, tol: Tolerance) -> None:
    """The forward error of the acceleration and of the forces, each against ``tol.residual``.

    With unique multipliers (or undecided) each contact's force must be within the tolerance of its exact force,
    relative to that force; with multipliers that are not unique no contact's force is defined by the problem, and
    the forces are certified as a member of the solution set: the normwise distance of λ to it at the data's force
    scale (``multipliers``), with the residual check. ``data`` says which (``forces_basis``) and what holds
    (``acceleration_certified``, ``forces_certified``); ``holds`` is both."""
    fe = forward_error(sol.problem, sol.acceleration, sol.lambda_normal, sol.lambda_tangent, weak_rtol=tol.residual)
    if fe is None:
        return
    member = sol.unique.get("multipliers") is False
    err_f = fe.data["multipliers"] if member else fe.data["forces"]
    ok_a, ok_f = bool(fe.data["acceleration"] <= tol.residual), bool(err_f <= tol.residual)
    ok = ok_a and ok_f
    err = max(fe.data["acceleration"], err_f)
    data = {
        **fe.data,
        "acceleration_certified": ok_a,
        "forces_certified": ok_f,
        "forces_basis": (
            "member of the solution set (multipliers not unique): distance to it at the data's force scale"
            if member
            else "each contact's force relative to that force"
        ),
    }
    sol.certificates.append(Certificate(**{**fe.__dict__, "holds": ok, "margin": tol.residual - err, "data": data}))
    if sol.status == SOLVED and not ok:
        sol.status = INACCURATE
        which = " and ".join(q for q, good in (("acceleration", ok_a), ("forces", ok_f)) if not good)
        worst = int(np.argmax(fe.data["contact_force_errors"])) if not ok_f and not member else None
        _note(
            sol,
            f"residuals are small but the problem is ill-conditioned (cond {fe.data['condition']:.1e}): the "
            f"{which} may be {max(err, 0.0):.1e} (relative) from the exact one"
            + (f" (worst: contact {worst})" if worst is not None else ""),
        )


def _uniqueness(sol: Solution, tol: Tolerance) -> None:
    p = sol.problem
    ua = unique_acceleration(p, sol.acceleration, sol.lambda_normal)
    um = unique_multipliers(p, sol.acceleration, sol.lambda_normal)
    sol.certificates += [ua, um]
    sol.unique = {
        "acceleration": None if ua.holds is None else bool(ua.holds),
        "generalized_force": True,
        "multipliers": None if um.holds is None else bool(um.holds),
    }


def _stands_on(sol: Solution, status: str, cert: Certificate, residuals: dict) -> None:
    """The result is ``status`` (infeasible or unbounded), backed by the verified ``cert``: no answer is returned."""
    sol.status = status
    sol.certificates.append(cert)
    sol.residuals = residuals
    sol.unique = dict(_UNDECIDED)
    sol.acceleration = sol.lambda_normal = sol.lambda_tangent = None


def _infeasible_after_failed_answer(sol: Solution, tol: Tolerance) -> None:
    """An answer that failed its residual check may come from a backend that did not detect infeasibility (a
    dual QP whose objective is unbounded, stopped at a large point): when the data carry a verified Farkas
    vector, the result is ``infeasible`` with that certificate instead of an ``inaccurate`` answer."""
    far = verify_farkas(sol.problem, NONEXISTENCE_CHANGE)
    if far is None or not far.holds:
        return
    _note(sol, "the constraint set is empty (verified Farkas vector): the returned point is discarded")
    _stands_on(sol, INFEASIBLE, far, {"farkas_stationarity": far.data["stationarity"]})


def _friction_decided(problem) -> bool:
    """True when F1's equality/complementarity system does not describe the problem: sliding contacts (their
    force is not along the rows) or coulomb contacts (their mode is decided by the route). Uniqueness and the
    forward error are then the route's own verdict (enumeration, P-matrix test), never F1's."""
    return bool(len(problem.sliding) or len(problem.coulomb))


def _strictly_inside_the_cones(sol: Solution) -> bool:
    """Every sticking force strictly inside its cone (relative slack above ``FORWARD_ERROR_CONE_SLACK``): no cone
    constraint is active, so the answer of a cone-enforcing route (F4, F5, the enumeration) is the point of F1's
    equality/complementarity system and its forward error describes it (F4's forces were certified by
    their residuals alone, and a contact's force ratio came out 2e-4 off on an ill-conditioned problem)."""
    cc = sol.certificate("coulomb_cones")
    return cc is not None and bool(cc.holds) and cc.data.get("relative_slack", -1.0) > FORWARD_ERROR_CONE_SLACK


#: The role of the answer judged (:func:`finalize`): the answer a solve returns, or the answer of a cross-check
#: route, which is compared with it (:func:`gaussqp.crosscheck.crosscheck_report`) and never returned.
ANSWER, CROSSCHECK = "answer", "crosscheck"
ROLES = (ANSWER, CROSSCHECK)


@dataclass(frozen=True)
class Check:
    """One instance check of an answer: its name, when it applies, and what it does. ``returned_only``: the check
    improves or describes an answer that is returned (the polish, its uniqueness, its forward error), or replaces an
    answer that failed by the data's own Farkas vector, and is not run on the answer of a cross-check route in the
    role :data:`CROSSCHECK`, of which the comparison reads only the status, the acceleration and ``Jᵀλ``: an answer
    judged in that role only ever confirms (one that does not agree is judged again in full before it is reported,
    or, failing its own checks, set aside as not compared when another route is compared instead)."""

    name: str
    applies: Callable[[Solution], bool]
    run: Callable[[Solution, Tolerance], None]
    returned_only: bool = False


#: The checks of a returned answer, in order. An answer that fails its residual check is replaced by a
#: verified infeasibility when the data carry one (then the checks of the answer stop). The forward error
#: describes the equality/complementarity system of F1: where a formulation enforces the friction cones (F4, F5) an active cone changes that
#: system, and with sliding contacts F1's optimality conditions do not describe the problem (the F6
#: routes attach their own verdict: enumeration, P-matrix test, see gaussqp.certificates.sliding_verdict and gaussqp.certificates.enumeration).
#: The answer of a cross-check route, judged in the role ``crosscheck``, goes through the checks that decide its status
#: (residuals, backward error, cones), not those marked ``returned_only``: it is not polished, its uniqueness stays
#: undecided.
ANSWER_CHECKS: tuple[Check, ...] = (
    Check("polish", lambda s: s.hints.polish_allowed, _polish, returned_only=True),
    Check("kkt_residuals", lambda s: True, _residuals),
    Check(
        "infeasible_after_failed_answer",
        lambda s: not s.certificate("kkt_residuals").holds and not len(s.problem.sliding),
        _infeasible_after_failed_answer,
        returned_only=True,
    ),
    Check("backward_error", lambda s: s.acceleration is not None and not len(s.problem.coulomb), _backward_error),
    Check("coulomb_cones", lambda s: s.acceleration is not None, _coulomb_cones),
    Check(
        "uniqueness",
        lambda s: s.acceleration is not None and not _friction_decided(s.problem),
        _uniqueness,
        returned_only=True,
    ),
    Check(
        "forward_error",
        lambda s: (
            s.acceleration is not None
            and not _friction_decided(s.problem)
            and (s.hints.cones_enforced is None or _strictly_inside_the_cones(s))
        ),
        _forward_error,
        returned_only=True,
    ),
)


# ---------------------------------------------------------------- the kinds of claim
def _judge_answer(sol: Solution, tol: Tolerance, role: str = ANSWER) -> None:
    for check in ANSWER_CHECKS:
        if (role == ANSWER or not check.returned_only) and check.applies(sol):
            check.run(sol, tol)


def _keep_coulomb_farkas(sol: Solution, tol: Tolerance) -> None:
    sol.unique = dict(_UNDECIDED)
    sol.residuals = {"coulomb_farkas_violation": -sol.certificate("coulomb_farkas").margin}


def _keep_enumeration(sol: Solution, tol: Tolerance) -> None:
    sol.unique = dict(_UNDECIDED)
    sol.residuals = {}


def _keep_verified(sol: Solution, tol: Tolerance) -> None:
    sol.unique = dict(_UNDECIDED)


def _verify_nonexistence(sol: Solution, tol: Tolerance) -> None:
    """An infeasible or unbounded claim stands only with a verified Farkas vector (infeasible) or descent ray
    (unbounded), whichever the backend said; with neither the result is ``failed``."""
    claimed = sol.status
    p = sol.problem
    far = verify_farkas(p, NONEXISTENCE_CHANGE)
    if far is not None and far.holds:
        _stands_on(sol, INFEASIBLE, far, {"farkas_stationarity": far.data["stationarity"]})
        return
    ray = verify_ray(p, NONEXISTENCE_CHANGE)
    if ray is not None and ray.holds:
        _stands_on(sol, UNBOUNDED, ray, {"ray_violation": ray.data["violation"]})
        return
    sol.status = FAILED
    near = far is not None and far.margin > 0
    _note(
        sol,
        f"backend reported {claimed} but neither a Farkas vector nor a descent ray could be verified"
        + (
            f" (a Farkas vector's margin, {far.margin:.1e} of the rows' scales, is within the data change "
            f"{NONEXISTENCE_CHANGE:g} a certified infeasible must survive)"
            if near
            else ""
        ),
    )
    sol.unique = dict(_UNDECIDED)


#: (kind of claim, when the result makes it, handler); the first that matches judges the result.
JUDGEMENTS: tuple[tuple[str, Callable[[Solution], bool], Callable[[Solution, Tolerance], None]], ...] = (
    (
        "answer of a route that decides stick/slip, by its recomputed natural map",
        lambda s: bool(s.hints.natural_map) and s.status in SOLUTION_PRESENT,
        judge_natural_map,
    ),
    ("answer", lambda s: s.status in SOLUTION_PRESENT and s.acceleration is not None, _judge_answer),
    (
        "infeasible, Coulomb-Farkas vector verified by the route",
        lambda s: s.status == INFEASIBLE and _holds(s, "coulomb_farkas"),
        _keep_coulomb_farkas,
    ),
    (
        "infeasible, every piece enumerated by the route",
        lambda s: s.status == INFEASIBLE and _holds(s, "sliding_enumeration"),
        _keep_enumeration,
    ),
    (
        "infeasible or unbounded, verified by the route",
        lambda s: s.status in INF_OR_UNB and s.hints.nonexistence_verified,
        _keep_verified,
    ),
    ("infeasible or unbounded, to verify", lambda s: s.status in INF_OR_UNB, _verify_nonexistence),
)


def finalize(sol: Solution, tol: Tolerance, role: str = ANSWER) -> Solution:
    """Recompute residuals, verify infeasible/unbounded claims, attach instance certificates, decide uniqueness.

    Parameters
    ----------
    sol : Solution
        the raw result of a formulation (DESIGN.md §0, stage 5).
    tol : Tolerance
        the tolerances its residuals and backward error must meet.
    role : str
        one of :data:`ROLES`: :data:`ANSWER` (default) runs every applicable check of :data:`ANSWER_CHECKS`;
        :data:`CROSSCHECK`, for the answer of a cross-check route, skips those marked ``returned_only`` (the
        polish, uniqueness and the forward error, which only a returned answer needs): its status still comes from
        its recomputed residuals and backward error (tutorial (3)-(5)), which is what the comparison reads. An
        answer judged so only ever confirms: the cross-check judges the route's answer again in full before it
        disagrees or is left uncompared (:func:`gaussqp.crosscheck.generic_crosscheck`).

    Returns
    -------
    Solution
        ``sol``, judged: the first entry of :data:`JUDGEMENTS` whose condition the result meets judges it; a result
        that meets none (``failed``, or ``inaccurate`` without an answer) is returned as it is.

    Raises
    ------
    gaussqp.errors.UnknownValueError
        ``role`` is not one of :data:`ROLES`.
    """
    if role not in ROLES:
        raise UnknownValueError("role", f"is {role!r}", f"use one of {', '.join(ROLES)}")
    for _, claims, handle in JUDGEMENTS:
        if claims(sol):
            if handle is _judge_answer:
                _judge_answer(sol, tol, role)
            else:
                handle(sol, tol)
            break
    return sol


def withdraw_outside_the_disks(sol: Solution) -> None:
    """The verdict contract (DESIGN.md §4.3) for a route that states sticking contacts as equalities without their
    disks (F1, F2, F3): its answer is one of the sticking problem only when the returned forces lie in the disks.
    Otherwise ``solved`` is withdrawn — it is not an answer of the problem as given, and a route that enforces the
    disks (F4) may prove that none exists. F4's own use of F1 (its two-stage route) is not affected: the callers are
    those that return a route's answer as the answer to the problem, :func:`gaussqp.dispatch.solve_classified` and a
    study's run (:func:`gaussqp.studies.runner.run_task`), so that a route's verdict is one everywhere."""
    cc = sol.certificate("coulomb_cones")
    if sol.status == SOLVED and sol.hints.cones_enforced is None and cc is not None and not cc.holds:
        sol.status = INACCURATE
        sol.message = (
            (sol.message + "; " if sol.message else "") + "the returned forces leave the Coulomb disks "
            f"(relative slack {cc.data.get('relative_slack', float('nan')):.1e}): this route states the "
            "sticking contacts as equalities without the disks, so this is not an answer of the sticking "
            "problem; 'sticking_socp' decides it"
        )

"""The cone margin of the sticking verdict on the multiplier set Λ(a) (sticking Prop. 4): the max-min margin
:func:`margin` and each contact's own margin :func:`contact_margins` (split from :mod:`gaussqp.friction.verdict`).

``margin`` = max over Λ(a) of min over the non-detaching sticking contacts of ``μ_i |λ_n,i| - ‖λ_t,i‖`` (force
units). ``> 0``: some admissible forces lie strictly inside every cone, so sticking persists for continuous data
(sticking Prop. 4(i)); ``= 0``: every admissible force has a contact on its cone boundary (Prop. 4(ii): stick→slip
possible); ``< 0``: no admissible forces (sticking infeasible), by that much. ``inf`` when internal forces can grow
without bound inside the cones. A contact whose own margin :func:`contact_margins` is 0 is on its cone boundary for
*every* admissible force.

Each program is tried first in Clarabel's form (:mod:`gaussqp.friction.multiplier_conic`); the cvxpy program is its
definition and fallback. Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy is imported inside the
functions that use it, not when this module is imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import numpy as np

from ..model.problem import ContactProblem
from .cones import DISK, Layout, cone_constraints
from .multiplier_conic import MultiplierSetConic
from .multiplier_set import detaching, multiplier_set_constraints

if TYPE_CHECKING:  # annotations only; cvxpy itself is imported inside the functions that build a program
    import cvxpy as cp


def _margin_program(p: ContactProblem, a, atol, signs, det, lam_n=None):
    import cvxpy as cp

    L, le, li, cons, _ = multiplier_set_constraints(p, a, atol, lam_n)
    t = cp.Variable(name="t")
    cons += cone_constraints(L, le, li, p.friction, DISK, signs, slack=t, no_slack=det)
    return cp.Problem(cp.Maximize(t), cons), t, L, le, li


def margin(
    p: ContactProblem,
    a: np.ndarray,
    atol: float,
    signs: dict,
    run,
    lam_n=None,
    conic: MultiplierSetConic | None = None,
    why: list | None = None,
) -> tuple[float | None, tuple | None]:
    """max-min cone margin on Λ(a) for one sign pattern; (value, (λ_eq, λ_in) at the optimum) or (None, None).

    ``conic``: the same program in Clarabel's form (:mod:`gaussqp.friction.multiplier_conic`), tried first; the
    cvxpy program runs when it ends anything but solved / infeasible / unbounded. ``why``: a list that gets the
    reason when the answer is (None, None)."""
    det = frozenset(int(i) for i in detaching(p, a, atol, lam_n))
    status, value, point = "failed", None, None
    first = ""
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
                return _none(why, f"Λ(a) ∩ cones is {feas} (Clarabel's form)")
        first = f"Clarabel's form ended {status!r}; "
    if status not in ("solved", "infeasible", "unbounded"):
        prob, t, L, le, li = _margin_program(p, a, atol, signs, det, lam_n)
        status = run(prob)
        if status == "unbounded" and not _feasible(prob, run):
            return _none(why, "the margin program is unbounded but Λ(a) ∩ cones was not found nonempty")
        if status == "solved" and t.value is not None:
            value, point = float(t.value), variable_values(L, le, li)
        first += f"the cvxpy program ended {status!r}"
    if status == "unbounded":
        return float("inf"), None
    if status == "infeasible":  # no admissible forces and no contact to measure a (negative) margin on
        return _none(why, "Λ(a) ∩ cones is empty: no admissible forces to measure a margin on")
    if status != "solved" or value is None:
        return _none(why, f"the margin program decided nothing ({first})")
    return float(value), point


def _none(why: list | None, reason: str) -> tuple[None, None]:
    if why is not None:
        why.append(reason)
    return None, None


def variable_values(L: Layout, le, li) -> tuple[np.ndarray, np.ndarray]:
    """The values of the cvxpy variables (λ_eq, λ_in) as arrays (empty blocks as empty arrays)."""
    lev = np.asarray(le.value).ravel() if L.pe else np.zeros(0)
    liv = np.asarray(li.value).ravel() if L.pg else np.zeros(0)
    return lev, liv


def contact_margins(
    p: ContactProblem,
    a: np.ndarray,
    atol: float,
    signs: dict,
    run,
    lam_n=None,
    conic: MultiplierSetConic | None = None,
    contacts: Iterable[int] | None = None,
) -> dict[int, float]:
    """For each non-detaching sticking contact (of ``contacts`` when given), max of ``μ_i s λ_n,i - ‖λ_t,i‖`` over
    Λ(a) ∩ cones (``conic``: the programs in Clarabel's form, tried first, as in :func:`margin`)."""
    det = set(int(i) for i in detaching(p, a, atol, lam_n))
    asked = None if contacts is None else set(int(i) for i in contacts)
    out = {}
    for i in Layout(p).sticking:
        if i in det or (asked is not None and i not in asked):
            continue
        status, value = "failed", None
        if conic is not None:
            ans = conic.contact_margin(i, signs)
            status, value = ans.status, ans.value
            if status == "unbounded":
                feas = conic.feasible(None, signs).status
                status = "failed" if feas == "failed" else ("unbounded" if feas == "solved" else "infeasible")
        if status not in ("solved", "infeasible", "unbounded"):  # undecided (failed or inaccurate): cvxpy decides
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

"""F4: the all-sticking contact problem with exact Coulomb disks (an SOCP), and its sticking verdict.

Sticking (14)(52)(60)(61)(65): find ``(a, λ)`` with the dynamics, the bilateral and sticking-tangent
equalities, unilateral complementarity and ``‖λ_t,i‖ <= μ_i λ_n,i``; the program and its two-stage
fallback are shared with F5 (:mod:`gaussqp.formulations.sticking_conic`). After the solve,
:func:`attach_verdict` computes the sticking verdict of :mod:`gaussqp.friction.verdict` (margin,
``μ_min``, contacts on the cone boundary, detaching contacts).
"""

from __future__ import annotations


import numpy as np

from ..friction.cones import DISK
from ..friction.verdict import StickingVerdict, analyze, singleton_verdict
from ..results import INACCURATE, INFEASIBLE, SOLVED, UNBOUNDED, Solution
from ..settings import BOUNDARY_RTOL, Tolerance
from .sticking_conic import StickingConic


class StickingSOCP(StickingConic):
    name = "sticking_socp"
    id = "F4"
    title = "all-sticking contacts with exact Coulomb disks (SOCP, zero duality gap)"
    source = "sticking (14)(52)(60)(61)(65); DESIGN.md §3.2"
    valid_when = "no sliding contacts; any M ⪰ 0, redundant rows allowed"
    model = DISK

    def attach_verdict(self, sol: Solution, solver: str | None, tol: Tolerance) -> bool:
        """The sticking verdict of :mod:`gaussqp.friction.verdict` (``solve(..., verdict=False)`` skips it)."""
        if not len(sol.problem.sticking):
            return False
        attach_verdict(sol, solver, tol)
        return True


def attach_verdict(sol: Solution, solver: str | None, tol: Tolerance) -> None:
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
            v.margin <= BOUNDARY_RTOL * max(1.0, float(np.abs(sol.generalized_force).max(initial=0.0))):
        sol.unique["multipliers"] = None
        sol.message = (sol.message + "; " if sol.message else "") + \
            "multiplier uniqueness inside the cones undecided (a contact is on its cone boundary)"

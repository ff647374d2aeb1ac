"""The sticking verdict attached to an answer (split from :mod:`gaussqp.friction.verdict`):
:func:`sticking_verdict` computes the verdict of :mod:`gaussqp.friction.sticking_analysis` at the answer's
acceleration (F4's when sticking is feasible, F1's otherwise), puts it in ``Solution.sticking`` and states what it
decides about the answer: multiplier uniqueness inside the cones.
"""

from __future__ import annotations

import numpy as np

from ..friction.sticking_analysis import StickingVerdict, analyze, singleton_verdict
from ..results import FAILED, INACCURATE, INFEASIBLE, SOLVED, UNBOUNDED, Solution
from ..settings import BOUNDARY_RTOL, Tolerance


def sticking_verdict(sol: Solution, solver: str | None, tol: Tolerance) -> None:
    """Put the :class:`~gaussqp.friction.sticking_analysis.StickingVerdict` in ``sol.sticking`` and
    settle multiplier uniqueness inside the cones: a polyhedral multiplier set that is not a
    singleton stays non-unique inside the cones when the margin is positive (a neighbourhood of
    the max-margin point lies in every cone); with margin 0 the question is left undecided. The verdict's
    ``margin_lower`` (achieved by the answer's own multipliers) decides "positive" when it is above the boundary
    threshold; only otherwise is the margin itself measured here (else when first read)."""
    p = sol.problem
    if sol.status in (SOLVED, INACCURATE) and sol.acceleration is not None:
        a, feasible = sol.acceleration, sol.status == SOLVED
    elif sol.status in (INFEASIBLE, FAILED) and "a_cones_removed" in sol.extras:
        # the conic Farkas vectors hold for the data as given (FAILED: not robust to the data change a certified
        # infeasible must survive); the verdict measures that data: how much friction sticking lacks
        a, feasible = sol.extras["a_cones_removed"], False
    elif sol.status in (INFEASIBLE, UNBOUNDED):
        sol.sticking = StickingVerdict(
            feasible=False,
            margin=None,
            mu_min=float("inf"),
            margin_reason=f"no acceleration solves the sticking MLCP without cones ({sol.status}): no margin to measure",
        )
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
    elif feasible:
        # margin_lower only where it decides something: multipliers not unique, to be kept so inside the cones
        ask = sol.unique.get("multipliers") is False
        v = analyze(p, a, feasible, solver, tol, lam_n=sol.lambda_normal, lam_t=sol.lambda_tangent, lower_end=ask)
    else:
        v = analyze(p, a, feasible, solver, tol)
    sol.sticking = v
    if not feasible or sol.unique.get("multipliers") is not False:
        return
    threshold = BOUNDARY_RTOL * float(np.abs(sol.generalized_force).max(initial=0.0))
    if v.margin_lower is not None and v.margin_lower > threshold:
        return  # a proven lower end above the threshold decides it: the margin's programs are not run for it
    if v.margin is not None and v.margin <= threshold:
        sol.unique["multipliers"] = None
        sol.message = (
            sol.message + "; " if sol.message else ""
        ) + "multiplier uniqueness inside the cones undecided (a contact is on its cone boundary)"

"""F4: the all-sticking contact problem with exact Coulomb disks (an SOCP), and its sticking verdict.

Sticking (14)(52)(60)(61)(65): find ``(a, λ)`` with the dynamics, the bilateral and sticking-tangent
equalities, unilateral complementarity and ``‖λ_t,i‖ <= μ_i λ_n,i``; the program and its two-stage
fallback are shared with F5 (:mod:`gaussqp.formulations.sticking_conic`). After the solve,
:func:`gaussqp.certificates.sticking_verdict.sticking_verdict` computes the sticking verdict (margin,
``μ_min``, contacts on the cone boundary, detaching contacts).
"""

from __future__ import annotations


from ..friction.cones import DISK
from ..certificates.sticking_verdict import sticking_verdict
from ..results import Solution
from ..settings import Tolerance
from .sticking_conic import StickingConic


class StickingSOCP(StickingConic):
    name = "sticking_socp"
    id = "F4"
    crosscheck = "sticking"
    title = "all-sticking contacts with exact Coulomb disks (SOCP, zero duality gap)"
    source = "sticking (14)(52)(60)(61)(65); DESIGN.md §3.2"
    valid_when = "no sliding contacts; any M ⪰ 0, redundant rows allowed"
    model = DISK
    active_set_first = True

    def attach_verdict(self, sol: Solution, solver: str | None, tol: Tolerance) -> bool:
        """The sticking verdict of :mod:`gaussqp.certificates.sticking_verdict` (``solve(..., verdict=False)`` skips it)."""
        if not len(sol.problem.sticking):
            return False
        sticking_verdict(sol, solver, tol)
        return True

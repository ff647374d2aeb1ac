"""The uniqueness verdict of a sliding answer (F6; split from :mod:`gaussqp.friction.verdict`):
the exact P-matrix test of the LCP matrix (58) as the certificate ``p_matrix`` (:func:`p_matrix_certificate`, on
:func:`gaussqp.friction.sliding.p_matrix_test`) and :func:`sliding_verdict`, which attaches it with the exhaustive
enumeration's certificate (:mod:`gaussqp.certificates.enumeration`) and settles ``Solution.unique``.
"""

from __future__ import annotations

from ..errors import NotApplicableError, SolverError
from ..friction.enumeration import Enumeration, enumerate_solutions, enumerated_contacts
from ..friction.sliding import ReducedSlidingLCP, p_matrix_test, reduce, sliding_lcp
from ..model.problem import ContactProblem
from ..results import Certificate, Solution
from ..settings import ENUMERATION_MAX, P_MATRIX_EXACT_MAX
from .enumeration import enumeration_certificate, settle_by_enumeration


def p_matrix_certificate(problem: ContactProblem, lcp: ReducedSlidingLCP | None = None) -> Certificate:
    """Exact P-matrix test of the LCP matrix (58) (tutorial Prop. 13; Cottle–Pang–Stone Thm 3.3.7).

    ``lcp`` is the problem's LCP when the caller already built it (``sliding_lcp`` does)."""
    size = sum(problem.modes[i] == "sliding" for i in problem.bilateral) + len(problem.unilateral)
    if size > P_MATRIX_EXACT_MAX:  # decided before the dense reduction, which the test would not use
        return Certificate(
            id="p_matrix",
            name="LCP matrix (58) is a P-matrix",
            source="tutorial (58), Prop. 13",
            holds=None,
            margin=float("nan"),
            implies=f"size {size} > {P_MATRIX_EXACT_MAX}: the exact test by principal minors is "
            "not run; see friction_bounds for sufficient conditions",
        )
    try:
        L = lcp if lcp is not None else sliding_lcp(reduce(problem))
    except NotApplicableError as exc:
        return Certificate(
            id="p_matrix",
            name="LCP matrix (58) is a P-matrix",
            source="tutorial (58), Prop. 13",
            holds=None,
            margin=float("nan"),
            implies=f"not applicable: {exc}",
        )
    t = p_matrix_test(L.M)
    return Certificate(
        id="p_matrix",
        name=f"{L.form} matrix is a P-matrix (exact, {t.minors_checked} principal minors)",
        source="tutorial (41), (50), (58), Prop. 13; Cottle–Pang–Stone Thm 3.3.7",
        holds=t.holds,
        margin=t.min_minor,
        implies=(
            "the sliding problem has exactly one solution for every load at this state"
            if t.holds
            else "not a P-matrix: some loads give no or several solutions at this state (principal minor "
            f"{t.witness} is <= 0)"
        ),
        data={
            "form": L.form,
            "matrix": L.M,
            "witness": t.witness,
            **(
                {}
                if t.witness is None
                else {
                    "evidence": {
                        "verify": "det(matrix[I][:, I]) <= 0 for the principal index set I = principal_indices: the "
                        "matrix is not a P-matrix",
                        "matrix": L.M,
                        "principal_indices": list(t.witness),
                    }
                }
            ),
        },
    )


def sliding_verdict(sol: Solution, enum: Enumeration | None = None) -> None:
    """Attach the uniqueness verdict of a sliding answer: the enumeration (exact for this instance) when
    at most :data:`ENUMERATION_MAX` contacts are enumerated, and the P-matrix test when M ≻ 0."""
    p = sol.problem
    if enum is None and len(enumerated_contacts(p)) <= ENUMERATION_MAX:
        try:
            enum = enumerate_solutions(p)
        except SolverError as err:  # a piece's program failed: the enumeration decides nothing, uniqueness stays open
            sol.message = (sol.message + "; " if sol.message else "") + f"uniqueness not enumerated: {err}"
    if enum is not None and sol.certificate("sliding_enumeration") is not None:
        sol.certificates = [c for c in sol.certificates if c.id != "sliding_enumeration"]
    certs = []
    pm = p_matrix_certificate(p, sol.extras.get("lcp")) if p.mass_factor.definite and not len(p.sticking) else None
    if pm is not None:
        certs.append(pm)
    if enum is not None:
        certs.append(enumeration_certificate(p, enum))
        settle_by_enumeration(sol, enum)
    elif pm is not None and pm.holds:
        sol.unique = {"acceleration": True, "generalized_force": True, "multipliers": True}
    else:
        sol.unique = {"acceleration": None, "generalized_force": None, "multipliers": None}
    sol.certificates += certs

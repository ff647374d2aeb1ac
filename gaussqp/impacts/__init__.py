"""The frictionless impact problem of inertial §6: the routes (80)–(84)
(:mod:`.percussion`) and the certificates Lemma 6, Props. 16–19 and the energy balance (:mod:`.certificates`).

The data type is :class:`gaussqp.model.impact.ImpactProblem`; :func:`gaussqp.solve_impact` solves one with any
formulation and :func:`gaussqp.step` advances a system by one Moreau–Jean step.
"""

from .certificates import (
    energy_certificate,
    equivalence_certificate,
    existence_certificate,
    impact_certificates,
    lemma6_certificate,
    moreau_premises_certificate,
    orthogonality_certificate,
    restitution_certificate,
    uniqueness_certificate,
)
from .percussion import (
    ROUTES,
    ImpactAnswer,
    ImpactMatrices,
    impact_matrices,
    moreau_rule,
    percussion_dual,
    percussion_lcp,
    percussion_qp,
    velocity_dual,
)

__all__ = [
    "ROUTES",
    "ImpactAnswer",
    "ImpactMatrices",
    "energy_certificate",
    "equivalence_certificate",
    "existence_certificate",
    "impact_certificates",
    "impact_matrices",
    "lemma6_certificate",
    "moreau_premises_certificate",
    "moreau_rule",
    "orthogonality_certificate",
    "percussion_dual",
    "percussion_lcp",
    "percussion_qp",
    "restitution_certificate",
    "uniqueness_certificate",
    "velocity_dual",
]

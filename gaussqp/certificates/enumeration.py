"""What the exact piece enumeration of a sliding (or stick/slip) instance proves (split from
:mod:`gaussqp.friction.verdict`; the enumeration itself is :func:`gaussqp.friction.enumeration.enumerate_solutions`).

- :func:`enumeration_certificate`: ``sliding_enumeration``, how many accelerations and multiplier vectors the
  instance has (none, one, several, a continuum), with the solutions as evidence;
- :func:`enumeration_uniqueness`: ``Solution.unique`` (acceleration, generalized force, multipliers) from it;
- :func:`enumeration_verdict`: both attached to an answer whose stick/slip modes the enumeration decided
  (``coulomb_enumeration``); the sliding verdict of F6 is :func:`gaussqp.certificates.sliding_verdict.sliding_verdict`.
"""

from __future__ import annotations

import numpy as np

from ..friction.enumeration import Enumeration
from ..linalg.dense import as_dense
from ..model.problem import ContactProblem
from ..model.scales import data_scales
from ..results import SOLVED, Certificate, Solution
from ..settings import IN_ENUMERATION_RTOL, SAME_RTOL


def enumeration_certificate(problem: ContactProblem, enum: Enumeration) -> Certificate:
    """The exhaustive enumeration as a certificate: how many accelerations and how many solution points
    the instance has. ``holds`` when the acceleration question is decided in the papers' sense: no
    solution, or exactly one acceleration (the multipliers may still form a set, a hyperstatic case)."""
    sols = enum.solutions
    k = enum.distinct_accelerations
    accel = {
        "none": "no acceleration and contact forces satisfy the sliding problem (inconsistent case, "
        "Painlevé paradox / jamming): every piece was checked and is empty",
        "unique": "exactly one acceleration",
        "multiple": f"{k} distinct accelerations (indeterminate case, Painlevé paradox)",
        "continuum": "a continuum of accelerations (a piece on which the acceleration varies; indeterminate case)",
        "undecided": "one acceleration found; whether its (conic) piece holds other accelerations is not decided",
    }[enum.multiplicity]
    mult = {
        "none": "",
        "unique": "; the multipliers are unique",
        "multiple": f"; {len(sols)} distinct multiplier vectors",
        "continuum": "; a continuum of multipliers (a piece is a polyhedron with more than one point)",
        "undecided": "; multiplier uniqueness on the (conic) piece is not decided",
    }[enum.multiplier_multiplicity]
    none_open = enum.multiplicity == "none" and not enum.solutions and not enum.none_certified
    if none_open:  # the verdict contract (DESIGN.md §4.3): "none" only beyond NONEXISTENCE_CHANGE
        accel = f"no piece has a solution for the data as given, but {enum.none_uncertified_reason()}: no claim"
    implies = (
        accel
        + mult
        + (
            ""
            if enum.multiplicity != "unique" or enum.multiplier_multiplicity == "unique"
            else " at that one acceleration (not a paradox)"
        )
    )
    return Certificate(
        id="sliding_enumeration",
        name="solutions by exhaustive piece enumeration",
        source="tutorial §3.2.1 (enumeration of (37)); (50), (58); sticking (71)",
        holds=enum.multiplicity in ("none", "unique") and not none_open,
        margin=float(len(sols)),
        implies=implies,
        data={
            "solutions": len(sols),
            "pieces": enum.pieces,
            "multiplicity": enum.multiplicity,
            "acceleration_multiplicity": enum.multiplicity,
            "multiplier_multiplicity": enum.multiplier_multiplicity,
            "nearest_change": enum.nearest_change,
            "undecided_pieces": enum.undecided_pieces,
            "distinct_accelerations": k,
            "acceleration_scale": enum.acceleration_scale,
            "enumerated_contacts": list(enum.enumerated),
            "lambda_normal": [s.lam_n for s in sols],
            "accelerations": [s.a for s in sols],
            "piece_labels": [s.piece for s in sols],
            "isolated": [s.isolated for s in sols],
            "found_on_pieces": [list(s.pieces) for s in sols],
            "modes": [list(s.modes) for s in sols],
            "coulomb_contacts": list(enum.coulomb),
            **(
                {
                    "evidence": {
                        "verify": "each solution (accelerations[k], lambda_normal[k], lambda_tangent[k]) satisfies the "
                        "contact problem: M a + F = J_nᵀλ_n + J_tᵀλ_t, every contact's row and law in its mode "
                        "(modes[k]); 'none' has no vector: every piece was solved and found empty",
                        "accelerations": [s.a for s in sols],
                        "lambda_normal": [s.lam_n for s in sols],
                        "lambda_tangent": [s.lam_t for s in sols],
                        "modes": [list(s.modes) for s in sols],
                    }
                }
                if sols
                else {}
            ),
        },
    )


def enumeration_verdict(sol: Solution, enum: Enumeration) -> None:
    """Attach the verdict of the exact enumeration alone (no P-matrix test): for a problem with "coulomb"
    contacts, whose stick/slip mode the enumeration decided (``coulomb_enumeration``). The instance
    certificates ``unique_acceleration`` / ``unique_multipliers`` of the judge describe F1's optimality
    conditions, in which a coulomb contact would be frictionless: they are replaced by the enumeration's
    decision, exact for this instance ("unique" only from an exact route)."""
    p = sol.problem
    drop = {"sliding_enumeration", "unique_acceleration", "unique_multipliers"}
    sol.certificates = [c for c in sol.certificates if c.id not in drop]
    sol.certificates.append(enumeration_certificate(p, enum))
    settle_by_enumeration(sol, enum)


def settle_by_enumeration(sol: Solution, enum: Enumeration) -> None:
    """``sol.enumeration``, ``sol.unique`` (:func:`enumeration_uniqueness`) and, for a solved answer,
    ``sol.in_enumeration``: is the answer one of the enumerated solution points (always, on a continuum)?"""
    p = sol.problem
    sol.enumeration = enum
    sol.unique = enumeration_uniqueness(p, enum)
    if sol.status == SOLVED and sol.acceleration is not None:
        found = any(same_multipliers(p, s.lam_n, sol.lambda_normal) for s in enum.solutions)
        sol.in_enumeration = bool(found) or enum.multiplier_multiplicity == "continuum"


def same_multipliers(problem: ContactProblem, x: np.ndarray, y: np.ndarray) -> bool:
    """Do two normal multiplier vectors agree to :data:`IN_ENUMERATION_RTOL`, row by row in the data's units
    ``λ̂_i = λ_i ‖(J S)_i‖∞ / force`` (:mod:`gaussqp.model.scales`)? Not against ``max(1, |λ|)``: in units of
    1e-6 every answer matched every enumerated point."""
    sc = data_scales(problem)
    diff = np.abs(np.asarray(x, dtype=float) - np.asarray(y, dtype=float)) * sc.normal_weight / sc.force
    return bool(diff.max(initial=0.0) <= IN_ENUMERATION_RTOL)


_DECIDED = {"unique": True, "multiple": False, "continuum": False}


def enumeration_uniqueness(problem: ContactProblem, enum: Enumeration) -> dict:
    """``Solution.unique`` from the enumeration: the acceleration and the multipliers separately
    (:class:`gaussqp.friction.enumeration.Enumeration`). ``Jᵀλ = M a + F`` is unique with the acceleration; when the
    accelerations are not unique it is not unique either as soon as two found ``M a`` differ (M ≻ 0: always; on the
    force unit of the data, ``max(‖F‖∞, ‖M‖∞ · acceleration unit)``), else undecided."""
    a = _DECIDED.get(enum.multiplicity)
    gf = a
    if a is False and not problem.mass_factor.definite:
        M = as_dense(problem.M)
        unit = max(
            float(np.abs(problem.F).max(initial=0.0)),
            float(np.abs(M).sum(axis=1).max(initial=0.0)) * enum.acceleration_scale,
        )
        Ma = [M @ s.a for s in enum.solutions]
        gf = False if any(np.abs(x - Ma[0]).max(initial=0.0) > SAME_RTOL * unit for x in Ma) else None
    return {"acceleration": a, "generalized_force": gf, "multipliers": _DECIDED.get(enum.multiplier_multiplicity)}

"""Certificates that a route's own computation proves (every certificate is created under
``certificates/``; the routes compute, these functions state what the computation proves).

- :func:`contraction_certificate`: the sliding fixed point (F6, tutorial Prop. 9/11) is a Banach contraction, so
  the bilateral sliding problem has exactly one solution;
- :func:`coulomb_farkas_certificate`: a conic Farkas vector per sign pattern on the multiplier set (F4/F5's
  two-stage route, sticking (60)(65)): no multipliers in the cones complete F1's acceleration.
"""

from __future__ import annotations

from ..results import Certificate


def contraction_certificate(contraction: float, iterations: int, error_bound: float) -> Certificate:
    """``‖A_nb⁻¹ A_tb [μ]‖₂ < 1`` (``contraction``) of the sliding fixed point, with its iterations and a posteriori
    error bound."""
    contracting = contraction < 1
    return Certificate(
        id="contraction",
        name="‖A_nb⁻¹ A_tb [μ]‖₂ < 1 (Banach contraction)",
        source="tutorial Prop. 9 proof (40); Prop. 11",
        holds=contracting,
        margin=1.0 - contraction,
        implies=(
            "the fixed-point map is a contraction: the bilateral sliding problem has exactly one "
            f"solution, reached to {error_bound:.2e} (a posteriori bound)"
            if contracting
            else "not a contraction: the iteration proves nothing about existence or uniqueness"
        ),
        data={"iterations": iterations, "error_bound": error_bound},
    )


def coulomb_farkas_certificate(
    kind: str | None,
    robust: bool,
    proofs: list,
    acceleration,
    active_tolerance: float,
    detaching,
    closable: float,
    verify: str,
) -> Certificate:
    """The conic Farkas vectors ``proofs`` (one per sign pattern, each with ``y``, ``signs``, ``violation``) that no
    multipliers in the ``kind`` cones ("inner", "outer" polygons or the disks) complete ``acceleration``; ``robust``
    when no force change within the tolerance closes their margin (``closable``, its fraction)."""
    return Certificate(
        id="coulomb_farkas",
        name="conic Farkas vector on the multiplier set",
        source="DESIGN.md §3.2; sticking (60)(65), Prop. 11",
        holds=robust,
        margin=-max(c.violation for c in proofs),
        implies=(
            f"no multipliers in the {kind} cones complete the acceleration of F1: the all-sticking "
            "mode does not exist"
            + (
                " (for the circumscribed polygons, hence not for the disks either)"
                if kind == "outer"
                else " for the inscribed polygons (the disks may still allow it)"
                if kind == "inner"
                else ""
            )
        ),
        data={
            "y": [c.y for c in proofs],
            "signs": [c.signs for c in proofs],
            "active_tolerance": active_tolerance,
            "detaching": detaching,
            "closable_by_force_change": closable,
            "evidence": {
                "verify": verify,
                "acceleration": acceleration,
                "detaching": detaching,
                "proofs": [{"signs": c.signs, "y": c.y} for c in proofs],
            },
        },
    )

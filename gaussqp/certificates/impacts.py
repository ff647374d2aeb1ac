"""What the computations of an impact prove (inertial §6; every certificate is created under
``certificates/``). One builder per certificate id, each named after it; the quantities (ranks, kinetic cosines, the
slack of an exact LP, eigenvalues, energies) are computed by :mod:`gaussqp.impacts.certificates`, which calls these
with plain numbers: this module imports nothing of the impact layer.

``holds`` is None when a criterion's premises fail (``implies`` says why); the existence questions are decided by
the LP's slack against :data:`~gaussqp.settings.IMPACT_RTOL`, the paper's sufficient conditions reported beside.
"""

from __future__ import annotations

import numpy as np

from ..results import Certificate
from ..settings import DEFINITE_RTOL, IMPACT_RTOL, RESTITUTION_MAX, ORTHOGONAL_COS_TOL, SCALE_FLOOR

SOURCE = "inertial §6"


def impact_restitution(diagonal: bool, e: np.ndarray, full_rank: bool, largest_off_diagonal: float) -> Certificate:
    """``impact_restitution``: ``E = diag(e)`` with ``e ∈ [0, 1]`` (``diagonal``, the entries ``e``) and ``I + E``
    invertible (``full_rank``). Margin: the distance of ``e`` to the ends of ``[0, 1]``, or minus the largest
    off-diagonal entry when E is full."""
    margin = (float(min(e.min(), RESTITUTION_MAX - e.max())) if e.size else 1.0) if diagonal else -largest_off_diagonal
    holds = diagonal and full_rank
    implies = (
        "E = diag(e), e in [0, 1]: (77)'s kinematic inequality follows from its equation, Lemma 6's range "
        "condition holds, and Newton's law (76) is Moreau's law with restitution"
        if holds
        else "E is not diagonal: (77) and (80) still apply, but Moreau's law is not recovered in general "
        "(inertial, after Lemma 6)"
    )
    return Certificate(
        "impact_restitution",
        "inertial (76)-(77), Lemma 6, Prop. 17(i)",
        holds,
        margin,
        implies,
        name="restitution matrix",
        data={
            "diagonal": diagonal,
            "e": e,
            "I_plus_E_full_rank": full_rank,
            "largest_off_diagonal": largest_off_diagonal,
        },
    )


def impact_section6(reason: str) -> Certificate:
    """``impact_section6`` (``holds`` None): why (80)–(83) do not apply."""
    return Certificate("impact_section6", SOURCE, None, 0.0, f"(80)-(83) do not apply: {reason}", name="§6 premises")


def impact_no_bilateral_percussion(max_abs_kinetic_cosine: float | None) -> Certificate:
    """``impact_no_bilateral_percussion`` (Prop. 16) from the largest |kinetic cosine| between a bilateral and a
    unilateral row (None: no bilateral or no unilateral rows). Margin: ``ORTHOGONAL_COS_TOL`` minus it."""
    if max_abs_kinetic_cosine is None:
        return Certificate(
            "impact_no_bilateral_percussion",
            "inertial Prop. 16",
            None,
            0.0,
            "no bilateral or no unilateral rows: nothing to decouple",
            name="Prop. 16",
        )
    cos = max_abs_kinetic_cosine
    holds = cos <= ORTHOGONAL_COS_TOL
    return Certificate(
        "impact_no_bilateral_percussion",
        "inertial Prop. 16",
        holds,
        ORTHOGONAL_COS_TOL - cos,
        "p_b = 0 at the impact (the bilateral rows take no percussion), A_c = A"
        if holds
        else "inertial couplings: the bilateral rows take the percussion (72)",
        name="Prop. 16",
        data={"max_abs_kinetic_cosine": cos},
    )


def impact_lemma6(
    lp_slack: float | None, premises: bool, range_condition: bool, max_abs_kinetic_cosine: float
) -> Certificate:
    """``impact_lemma6`` (Lemma 6 / Prop. 17(ii)): the feasibility LP of ``0 <= p ⟂ A_c p + (I + E)u⁻ >= 0`` ended
    with ``lp_slack`` (None: it decided nothing); the lemma's premises reported in ``data``."""
    if lp_slack is None:
        return Certificate(
            "impact_lemma6",
            "inertial Lemma 6, Prop. 17(ii)",
            None,
            0.0,
            "the feasibility LP decided nothing",
            name="Lemma 6",
            data={"premises": premises},
        )
    holds = lp_slack <= IMPACT_RTOL
    return Certificate(
        "impact_lemma6",
        "inertial Lemma 6, Prop. 17(ii)",
        holds,
        IMPACT_RTOL - lp_slack,
        "(I + E)u⁻ ∈ Q*_{A_c}: the LCP 0 <= p ⟂ A_c p + (I + E)u⁻ >= 0 has a solution"
        if holds
        else "the LCP of (77) is infeasible: (77) has no solution (Prop. 17(ii))",
        name="Lemma 6",
        data={
            "premises_hold": premises,
            "range_condition": range_condition,
            "max_abs_kinetic_cosine": max_abs_kinetic_cosine,
            "lp_slack": lp_slack,
        },
    )


def impact_existence(lp_slack: float | None, prop17_i_sufficient: bool | None, prop17_iii_range: bool) -> Certificate:
    """``impact_existence`` (Prop. 17): the LP of (77) ended with ``lp_slack`` (None: it decided nothing); (i)'s
    sufficient and (iii)'s necessary condition reported in ``data``."""
    data = {"lp_slack": lp_slack, "prop17_i_sufficient": prop17_i_sufficient, "prop17_iii_range": prop17_iii_range}
    if lp_slack is None:
        return Certificate(
            "impact_existence",
            "inertial (77), Prop. 17",
            None,
            0.0,
            "the LP decided nothing",
            name="Prop. 17",
            data=data,
        )
    holds = lp_slack <= IMPACT_RTOL
    return Certificate(
        "impact_existence",
        "inertial (77), Prop. 17",
        holds,
        IMPACT_RTOL - lp_slack,
        "(77) has a solution: every contact collides with u⁺ = −E u⁻, and (80)-(83) give it"
        if holds
        else "(77) has no solution: not every contact can end with u⁺ = −E u⁻ "
        "(some separate); (80) then gives a least-squares percussion, Moreau's rule the law",
        name="Prop. 17",
        data=data,
    )


def impact_unique_percussion(min_over_max_eigenvalue: float | None, ranges_trivial: bool) -> Certificate:
    """``impact_unique_percussion`` (Prop. 18) from λ_min/λ_max of ``A_c`` (None: no unilateral rows) and whether
    ``R(∇h) ∩ R(∇g) = {0}`` (``ranges_trivial``: then the generalized percussion ``∇h p`` is unique)."""
    if min_over_max_eigenvalue is None:
        return Certificate(
            "impact_unique_percussion", "inertial Prop. 18", None, 0.0, "no unilateral rows", name="Prop. 18"
        )
    ratio = min_over_max_eigenvalue
    holds = ratio > DEFINITE_RTOL
    return Certificate(
        "impact_unique_percussion",
        "inertial Prop. 18",
        holds,
        ratio - DEFINITE_RTOL,
        "A_c ≻ 0: the percussion p_u is unique"
        if holds
        else (
            "A_c singular: p_u is not unique, ∇h p_u is (R(∇h) ∩ R(∇g) = {0})"
            if ranges_trivial
            else "A_c singular: p_u is not unique; only ∇h p_u modulo N(M_c⁻¹) is"
        ),
        name="Prop. 18",
        data={"A_c_min_over_max_eigenvalue": ratio, "generalized_percussion_unique": ranges_trivial or holds},
    )


def impact_prop19(premises: dict, margin: float) -> Certificate:
    """``impact_prop19``: Prop. 19's premises (``premises``: ``A_c_definite``, ``plastic``, ``all_approaching``,
    ``orthogonal``, each a bool) all hold, or ``holds`` None naming those that fail."""
    if not all(premises.values()):
        failed = ", ".join(key for key, v in premises.items() if not v)
        return Certificate(
            "impact_prop19",
            "inertial Prop. 19",
            None,
            margin,
            f"premises fail ({failed}): Prop. 19 does not apply",
            name="Prop. 19",
            data=premises,
        )
    return Certificate(
        "impact_prop19",
        "inertial Prop. 19",
        True,
        margin,
        "v⁺ is the unique solution of Moreau's rule (84)(a), the kinetic-metric projection of v⁻",
        name="Prop. 19",
        data=premises,
    )


def impact_moreau_equivalence(existence: bool | None, relative_velocity_gap: float | None = None) -> Certificate:
    """``impact_moreau_equivalence``: ``existence`` is ``impact_existence``'s ``holds``; the relative gap between the
    v⁺ of (80) and Moreau's (None: a route returned no velocity)."""
    if not existence:
        return Certificate(
            "impact_moreau_equivalence",
            "inertial §6.2 after Lemma 6, (84)",
            None,
            0.0,
            "(77) has no solution: Newton's law (76) and Moreau's rule differ here",
            name="Moreau equivalence",
            data={"existence": existence},
        )
    if relative_velocity_gap is None:
        return Certificate(
            "impact_moreau_equivalence",
            "inertial §6.2 after Lemma 6, (84)",
            None,
            0.0,
            "a route returned no velocity",
            name="Moreau equivalence",
        )
    gap = relative_velocity_gap
    holds = gap <= IMPACT_RTOL
    return Certificate(
        "impact_moreau_equivalence",
        "inertial §6.2 after Lemma 6, (84)",
        holds,
        IMPACT_RTOL - gap,
        "the percussion of (80) is Moreau's: v⁺ agree"
        if holds
        else "(80) and Moreau's rule disagree although (77) is solvable: one route is wrong",
        name="Moreau equivalence",
        data={"relative_velocity_gap": gap},
    )


def impact_energy(
    T_minus: float | None, T_plus: float | None = None, half_P_dot_u_sum: float = 0.0, proven: bool = False
) -> Certificate:
    """``impact_energy``: the kinetic energies before and after (``T_minus`` None: a time step, where ``h f`` does
    work), ``½ Pᵀ(u⁺ + u⁻)`` recomputed, and whether dissipation is ``proven`` term by term. Margin:
    ``(T⁻ − T⁺) / T⁻``."""
    if T_minus is None:
        return Certificate(
            "impact_energy",
            "inertial (71), (76)",
            None,
            0.0,
            "a time step: the impulse h f does work, the kinetic energy alone is not balanced",
            name="energy",
        )
    ref = max(T_minus, SCALE_FLOOR)
    margin = (T_minus - T_plus) / ref
    holds = margin >= -IMPACT_RTOL
    return Certificate(
        "impact_energy",
        "inertial (71), (76)",
        holds,
        margin,
        (
            "the impact dissipates kinetic energy (T⁺ <= T⁻)"
            if holds
            else "the impact creates kinetic energy: a contact with u⁻ > 0 took a percussion, or E is full"
        )
        + ("; dissipation proven term by term" if proven else ""),
        name="energy",
        data={
            "T_minus": T_minus,
            "T_plus": T_plus,
            "half_P_dot_u_sum": half_P_dot_u_sum,
            "balance_error": abs((T_plus - T_minus) - half_P_dot_u_sum) / ref,
            "proven": proven,
        },
    )

"""The judgement of an answer whose route decides stick/slip itself (F8, F9, and a peer's reaction on a local
problem): Coulomb's law checked by the natural-map residual recomputed by us, never by the route's report.

The route measures (:func:`gaussqp.friction.coulomb_law.natural_map_residual`, or the residual of every contact law
in (a, λ) of :mod:`gaussqp.friction.mixed_law`) and says which law it measured (``JudgeHints.natural_map``:
``"coulomb"`` or ``"mixed"``); :func:`judge_natural_map`, one entry of :data:`gaussqp.certificates.judge.JUDGEMENTS`,
creates the ``natural_map`` certificate and decides the status (F8 and F9 had judged themselves,
bypassing :func:`~gaussqp.certificates.judge.finalize`).
"""

from __future__ import annotations

from ..results import INACCURATE, SOLVED, Certificate, Solution
from ..settings import COULOMB_DYNAMICS_RTOL, COULOMB_RESIDUAL_RTOL, Tolerance


def law_measure(res) -> float:
    """The measure a mode-free answer is judged by: the larger of its natural-map residual and of the velocity change
    that makes ``r − φ`` exact (:func:`gaussqp.friction.coulomb_law.velocity_change`), each relative to ‖q‖ (F9: each
    contact's at its own scales). The second carries μ: a residual of 1e-10 with μ = 1e10 is a change of ~1 in the
    normal velocity."""
    return max(float(res.relative), float(res.velocity_change_relative))


def natural_map_certificate(res, holds: bool) -> Certificate:
    """The ``natural_map`` certificate of a local (Delassus) answer: ``res`` is its
    :class:`~gaussqp.friction.coulomb_law.NaturalMapResidual` (relative to ‖q‖); its margin is the bound less
    :func:`law_measure`."""
    measure = law_measure(res)
    return Certificate(
        id="natural_map",
        name="natural-map residual of Coulomb's law, recomputed",
        source="Acary, Brémond, Huber 2018, eqs. (7), (12)",
        holds=holds,
        margin=COULOMB_RESIDUAL_RTOL - measure,
        implies=(
            f"the answer satisfies Coulomb's law (De Saxcé's form) to {res.relative:.2e} of ‖q‖, and exactly for a "
            f"velocity changed by {res.velocity_change_relative:.2e} of it"
            + ("" if holds else f": above the bound {COULOMB_RESIDUAL_RTOL:g}")
        ),
        data=res.as_dict(),
    )


def mixed_law_certificate(nmr, contact: float, dynamics: float, holds: bool) -> Certificate:
    """The ``natural_map`` certificate of an answer in (a, λ) with every contact kind (F9): ``contact`` is the
    residual of every contact's law and ``dynamics`` that of every dynamics row, each at its data scale; ``nmr`` the
    :class:`~gaussqp.friction.coulomb_law.NaturalMapResidual` of the coulomb contacts."""
    return Certificate(
        id="natural_map",
        name="Coulomb's law and every told contact law, recomputed in (a, λ)",
        source="Acary, Brémond, Huber 2018, eq. (12); gaussqp.friction.mixed_law",
        holds=holds,
        margin=COULOMB_RESIDUAL_RTOL - contact,
        implies=(
            f"every contact's law holds to {contact:.2e} and every dynamics row to {dynamics:.2e} "
            "of its data scale"
            + ("" if holds else f" (bounds {COULOMB_RESIDUAL_RTOL:g}, {COULOMB_DYNAMICS_RTOL:g}): not certified")
        ),
        data={
            **nmr.as_dict(),
            "relative": nmr.relative,
            "normalized_by": "relative: each contact's λ by its force scale and u by its row scale "
            "(gaussqp.model.scales), stacked; siconos: max(‖row scales‖, ‖r‖, ‖u‖)",
            "dynamics": dynamics,
        },
    )


def _judge_coulomb(sol: Solution) -> None:
    res = sol.natural_map_residual
    law_ok = law_measure(res) <= COULOMB_RESIDUAL_RTOL
    dyn = sol.residuals.get("dynamics")  # an acceleration-level answer's dynamics rows (F8); none for a local one
    extra_ok = dyn is None or dyn <= COULOMB_DYNAMICS_RTOL
    ok = law_ok and extra_ok
    sol.status = SOLVED if ok else INACCURATE
    if not ok:
        sol.message = (
            f"natural-map residual reached {res.relative:.2e} of ‖q‖, the velocity change that makes it exact "
            f"{res.velocity_change_relative:.2e} (bound {COULOMB_RESIDUAL_RTOL:g})"
            + ("" if extra_ok else "; dynamics residual too large")
        )
    sol.certificates.append(natural_map_certificate(res, law_ok))


def _judge_mixed(sol: Solution) -> None:
    law, change = sol.residuals["contact_law"], float(sol.natural_map_residual.velocity_change_relative)
    contact, dynamics = max(law, change), sol.residuals["dynamics"]
    ok = dynamics <= COULOMB_DYNAMICS_RTOL and contact <= COULOMB_RESIDUAL_RTOL
    sol.certificates.append(mixed_law_certificate(sol.natural_map_residual, contact, dynamics, ok))
    sol.status = SOLVED if ok else INACCURATE
    if not ok:
        sol.message = (
            f"residual reached: contact law {law:.2e}, the velocity change that makes it exact {change:.2e} (bound "
            f"{COULOMB_RESIDUAL_RTOL:g}), dynamics {dynamics:.2e} (bound {COULOMB_DYNAMICS_RTOL:g})"
        )


#: the laws a route may have measured (``JudgeHints.natural_map``) and how each is judged
LAWS = {"coulomb": _judge_coulomb, "mixed": _judge_mixed}


def judge_natural_map(sol: Solution, tol: Tolerance) -> None:
    """``solved`` when the recomputed residual of the law the route measured (``sol.hints.natural_map``, a key of
    :data:`LAWS`) and the velocity change that makes the answer exact (:func:`law_measure`) are within
    :data:`~gaussqp.settings.COULOMB_RESIDUAL_RTOL` (and the dynamics rows within
    :data:`~gaussqp.settings.COULOMB_DYNAMICS_RTOL`), else ``inaccurate``; the ``natural_map`` certificate says
    which. The bounds are the route's own (the convex iteration and the polish aim at them), not ``tol``'s."""
    LAWS[sol.hints.natural_map](sol)

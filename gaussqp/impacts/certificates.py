"""Certificates of the impact problem (inertial §6): Prop. 16, Prop. 17 with Lemma 6, Prop. 18, Prop. 19 and the
equivalence with Moreau's rule, the conditions on the restitution matrix, and the energy balance of an answer.

Each is a :class:`~gaussqp.results.Certificate` evaluated on the data (``holds`` None when its premises fail,
``implies`` saying why); the existence questions are decided exactly by an LP (HiGHS), not by the paper's
sufficient conditions alone, which are reported in ``data`` beside the decision. This module computes (ranks,
kinetic cosines, the LPs, eigenvalues, energies); what each computation proves is stated by the builders of
:mod:`gaussqp.certificates.impacts`, where the certificates are created.

Lazy imports (the idiom of :mod:`gaussqp.backends`): ``scipy.optimize`` is imported inside the functions
that use it, not when this module is imported.
"""

from __future__ import annotations

import numpy as np

from ..certificates.impacts import (
    SOURCE,  # noqa: F401
    impact_energy,
    impact_existence,
    impact_lemma6,  # noqa: F401 (SOURCE)
    impact_moreau_equivalence,
    impact_no_bilateral_percussion,
    impact_prop19,
    impact_restitution,
    impact_section6,
    impact_unique_percussion,
)
from ..errors import NotApplicableError
from ..linalg.dense import matrix_rank
from ..model.impact import ImpactProblem
from ..results import Certificate
from ..settings import DEFINITE_RTOL, IMPACT_RTOL, ORTHOGONAL_COS_TOL, SCALE_FLOOR
from .percussion import ImpactAnswer, ImpactMatrices, check_section6, impact_matrices, moreau_rule, percussion_qp


def restitution_certificate(problem: ImpactProblem) -> Certificate:
    """``impact_restitution``: the conditions on ``E`` that §6 uses — ``E = diag(e)`` with ``0 <= e <= 1`` (then
    (77)'s third inequality holds whenever the first does, Lemma 6's second condition holds, and Moreau's law is
    recovered: the discussion after Lemma 6) and ``I + E`` invertible (Prop. 17(i)). The margin is the distance
    of the diagonal to the ends of ``[0, 1]`` (negative by the largest off-diagonal entry when E is full)."""
    E = problem.restitution
    m = E.shape[0]
    diag = problem.is_diagonal_restitution
    e = np.diag(E)
    full_rank = bool(m == 0 or matrix_rank(np.eye(m) + E) == m)
    off = float(np.abs(E - np.diag(e)).max()) if m else 0.0
    return impact_restitution(diag, e, full_rank, off)


def _kinetic_cosines(mats: ImpactMatrices) -> np.ndarray:
    """Cosines of the kinetic angles between bilateral and unilateral rows (``J_b M⁻¹ J_uᵀ`` normalized)."""
    Jb, Ju, Minv = mats.J_b, mats.J_u, mats.Minv
    if Jb.shape[0] == 0 or Ju.shape[0] == 0:
        return np.zeros((Jb.shape[0], Ju.shape[0]))
    num = Jb @ Minv @ Ju.T
    nb = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", Jb, Minv, Jb), SCALE_FLOOR))
    nu = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", Ju, Minv, Ju), SCALE_FLOOR))
    return num / np.outer(nb, nu)


def orthogonality_certificate(problem: ImpactProblem, mats: ImpactMatrices | None = None) -> Certificate:
    """``impact_no_bilateral_percussion`` (Prop. 16): every bilateral row kinetic-orthogonal to every unilateral
    row (``∇gᵀM⁻¹∇h = 0``, cosines below ``ORTHOGONAL_COS_TOL``) ⇒ the bilateral percussion ``p_b`` is 0 (with
    ``J_b v⁻ = 0``); then ``A_c = A`` (Prop. 5). Margin: tolerance minus the largest |cosine|."""
    mats = impact_matrices(problem) if mats is None else mats
    if mats.bilateral.size == 0 or mats.unilateral.size == 0:
        return impact_no_bilateral_percussion(None)
    return impact_no_bilateral_percussion(float(np.abs(_kinetic_cosines(mats)).max()))


def _scale(mats: ImpactMatrices) -> float:
    return max(
        float(np.abs(mats.w).max()) if mats.w.size else 0.0,
        float(np.abs(mats.A_c).max()) if mats.A_c.size else 0.0,
        SCALE_FLOOR,
    )


def _lp_slack(A_eq, b_eq, A_ge, b_ge, k: int, scale: float) -> float | None:
    """Smallest ``s >= 0`` with ``p >= 0``, ``|A_eq p − b_eq| <= s·scale``, ``A_ge p − b_ge >= −s·scale`` (HiGHS),
    divided out: 0 when the system is solvable; None when HiGHS decides nothing."""
    from scipy.optimize import linprog

    rows, rhs = [], []
    one = np.ones((A_eq.shape[0], 1)) * scale
    if A_eq.shape[0]:
        rows += [np.hstack([A_eq, -one]), np.hstack([-A_eq, -one])]
        rhs += [b_eq, -b_eq]
    if A_ge.shape[0]:
        rows.append(np.hstack([-A_ge, -np.ones((A_ge.shape[0], 1)) * scale]))
        rhs.append(-b_ge)
    if not rows:
        return 0.0
    c = np.zeros(k + 1)
    c[-1] = 1.0
    res = linprog(c, A_ub=np.vstack(rows), b_ub=np.concatenate(rhs), bounds=[(0, None)] * (k + 1), method="highs")
    return float(res.x[-1]) if res.status == 0 else None


def lemma6_certificate(problem: ImpactProblem, mats: ImpactMatrices | None = None) -> Certificate:
    """``impact_lemma6``: Lemma 6 / Prop. 17(ii). Its premises (kinetic orthogonality of Prop. 16 and
    ``R((I + E)∇hᵀ) ⊆ R(∇hᵀ)``) and its conclusion ``(I + E) u⁻ ∈ Q*_{A_c}``, i.e. the LCP
    ``0 <= p ⟂ A_c p + w >= 0`` is feasible (hence solvable: A_c ⪰ 0 is copositive plus), decided by an LP.
    ``holds`` is the LP's decision; the premises are in ``data``. Margin: tolerance minus the LP's slack."""
    mats = impact_matrices(problem) if mats is None else mats
    k = mats.unilateral.size
    Ju = mats.J_u
    range_ok = bool(k == 0 or matrix_rank(np.hstack([Ju, (np.eye(k) + mats.E_u) @ Ju])) == matrix_rank(Ju))
    cos = float(np.abs(_kinetic_cosines(mats)).max()) if mats.bilateral.size and k else 0.0
    premises = range_ok and cos <= ORTHOGONAL_COS_TOL
    s = _lp_slack(np.zeros((0, k)), np.zeros(0), mats.A_c, -mats.w, k, _scale(mats))
    return impact_lemma6(s, premises, range_ok, cos)


def existence_certificate(problem: ImpactProblem, mats: ImpactMatrices | None = None) -> Certificate:
    """``impact_existence``: Prop. 17 — (77) ``A_c p = −w``, ``p >= 0``, ``E(I + E)⁻¹A_c p >= 0`` has a solution,
    decided exactly by an LP; ``data`` has Prop. 17(i)'s sufficient condition (``A_c`` invertible with
    ``(I + E)⁻¹A_c`` and ``E(I + E)⁻¹A_c`` monotone: inverses entrywise >= 0, and ``u⁻ <= 0``) and (iii)'s
    necessary range condition ``w ∈ R(∇hᵀ)``."""
    mats = impact_matrices(problem) if mats is None else mats
    k = mats.unilateral.size
    A, E = mats.A_c, mats.E_u
    scale = _scale(mats)
    s = _lp_slack(A, -mats.w, mats.K, np.zeros(k), k, scale)
    suff = None
    if k and matrix_rank(A) == k:
        IE = np.eye(k) + E
        B1 = np.linalg.solve(A, IE)  # ((I+E)⁻¹A_c)⁻¹
        monotone1 = bool(np.all(B1 >= -IMPACT_RTOL * np.abs(B1).max()))
        monotone2 = None
        if matrix_rank(E) == k:
            B2 = np.linalg.solve(A, IE @ np.linalg.inv(E))
            monotone2 = bool(np.all(B2 >= -IMPACT_RTOL * np.abs(B2).max()))
        suff = bool(monotone1 and bool(monotone2) and np.all(mats.u_minus <= 0))
    Ju = mats.J_u
    range_ok = bool(k == 0 or matrix_rank(np.hstack([Ju, mats.w[:, None]])) == matrix_rank(Ju))
    return impact_existence(s, suff, range_ok)


def uniqueness_certificate(problem: ImpactProblem, mats: ImpactMatrices | None = None) -> Certificate:
    """``impact_unique_percussion``: Prop. 18 — ``A_c p`` is always unique, so ``A_c ≻ 0`` makes the percussion
    unique (margin: λ_min/λ_max of A_c); otherwise with ``R(∇h) ∩ R(∇g) = {0}`` the difference of two
    percussions lies in ``N(∇h)`` (the generalized percussion ``∇h p`` is unique), in ``data``."""
    mats = impact_matrices(problem) if mats is None else mats
    k = mats.unilateral.size
    if k == 0:
        return impact_unique_percussion(None, False)
    ev = np.linalg.eigvalsh(mats.A_c)
    ratio = float(ev.min() / max(ev.max(), SCALE_FLOOR))
    Ju, Jb = mats.J_u, mats.J_b
    trivial = bool(Jb.shape[0] == 0 or matrix_rank(np.vstack([Ju, Jb])) == matrix_rank(Ju) + matrix_rank(Jb))
    return impact_unique_percussion(ratio, trivial)


def moreau_premises_certificate(problem: ImpactProblem, mats: ImpactMatrices | None = None) -> Certificate:
    """``impact_prop19``: the premises of Prop. 19 — ``A_c ≻ 0``, ``E = 0``, every ``u⁻_i < 0``, bilateral rows
    kinetic-orthogonal to the unilateral ones — under which ``v⁺`` is the unique solution of Moreau's rule
    (84)(a). ``holds`` None when a premise fails (the rule may still hold: see ``impact_moreau_equivalence``)."""
    mats = impact_matrices(problem) if mats is None else mats
    k = mats.unilateral.size
    ev = np.linalg.eigvalsh(mats.A_c) if k else np.ones(1)
    definite = bool(ev.min() > DEFINITE_RTOL * max(ev.max(), SCALE_FLOOR))
    plastic = bool(not np.any(mats.E_u))
    approaching = bool(k and np.all(mats.u_minus < 0))
    cos = float(np.abs(_kinetic_cosines(mats)).max()) if mats.bilateral.size and k else 0.0
    orth = cos <= ORTHOGONAL_COS_TOL
    data = {"A_c_definite": definite, "plastic": plastic, "all_approaching": approaching, "orthogonal": orth}
    margin = float(min(-mats.u_minus.max(), ORTHOGONAL_COS_TOL - cos)) if k else 0.0
    return impact_prop19(data, margin)


def equivalence_certificate(
    problem: ImpactProblem,
    qp: ImpactAnswer | None = None,
    moreau: ImpactAnswer | None = None,
    *,
    solver: str | None = None,
    tolerance=None,
) -> Certificate:
    """``impact_moreau_equivalence``: when (77) is solvable (``impact_existence``), its solutions satisfy
    ``u⁺ + E u⁻ = 0``, so they solve Moreau's complementarity (84)(b) and ``v⁺`` of (80) equals Moreau's (the
    discussion after Lemma 6, for any E with (77) solvable; the paper states it for ``E = diag(e)``). Checked
    on the answers: ``holds`` when the two v⁺ agree to ``IMPACT_RTOL``; None when (77) has no solution."""
    mats = impact_matrices(problem)
    ex = existence_certificate(problem, mats)
    if not ex.holds:
        return impact_moreau_equivalence(ex.holds)
    qp = percussion_qp(problem, solver=solver, tolerance=tolerance) if qp is None else qp
    moreau = moreau_rule(problem, solver=solver, tolerance=tolerance) if moreau is None else moreau
    if qp.velocity is None or moreau.velocity is None:
        return impact_moreau_equivalence(ex.holds, None)
    v0 = problem.v_minus
    scale = max(float(np.abs(v0).max()), float(np.abs(moreau.velocity).max()), SCALE_FLOOR)
    return impact_moreau_equivalence(ex.holds, float(np.abs(qp.velocity - moreau.velocity).max()) / scale)


def energy_certificate(problem: ImpactProblem, v_plus, percussion) -> Certificate:
    """``impact_energy``: ``T⁺ − T⁻ = ½ Pᵀ(u⁺ + u⁻)`` at an impact (``M(v⁺ − v⁻) = JᵀP``), recomputed. With
    ``E = diag(e)``, ``e ∈ [0, 1]`` and ``u⁻_i <= 0`` on every contact with ``P_i > 0``, each term is
    ``½ P_i (1 − e_i) u⁻_i <= 0``: the impact dissipates (conserves when e = 1). ``holds``: ``T⁺ <= T⁻`` to
    ``IMPACT_RTOL``; None over a time step (``h f`` does work). Margin: ``(T⁻ − T⁺) / T⁻``."""
    if problem.h != 0:
        return impact_energy(None)
    v_plus = np.asarray(v_plus, dtype=float)
    T0, T1 = problem.kinetic_energy(problem.v_minus), problem.kinetic_energy(v_plus)
    P = np.asarray(percussion, dtype=float)
    Jn = problem.rows.J_n
    um, up = problem.normal_velocity_before, np.asarray(Jn @ v_plus, dtype=float).ravel()
    balance = 0.5 * float(P @ (up + um)) if P.size else 0.0
    loaded = P > IMPACT_RTOL * max(float(np.abs(P).max()) if P.size else 0.0, SCALE_FLOOR)
    proven = bool(problem.is_diagonal_restitution and np.all(um[loaded & (problem.rows.types == "unilateral")] <= 0))
    return impact_energy(T0, T1, balance, proven)


def impact_certificates(problem: ImpactProblem) -> list[Certificate]:
    """The data certificates of §6 that apply to ``problem``: ``impact_restitution`` always; with (80)–(83)'s
    premises (an impact, frictionless, M ≻ 0) also Prop. 16, Lemma 6, Prop. 17, Prop. 18, Prop. 19."""
    out = [restitution_certificate(problem)]
    try:
        check_section6(problem)
    except NotApplicableError as exc:  # the reason is reported, not raised
        out.append(impact_section6(str(exc)))
        return out
    mats = impact_matrices(problem)
    out += [
        orthogonality_certificate(problem, mats),
        lemma6_certificate(problem, mats),
        existence_certificate(problem, mats),
        uniqueness_certificate(problem, mats),
        moreau_premises_certificate(problem, mats),
    ]
    return out

"""Structural certificates C1-C6 (docs/DESIGN.md §4.1), evaluated on the data without solving.

Each criterion is returned as a :class:`~gaussqp.results.Certificate` with its source,
whether it holds (None when its premises do not apply), a signed numeric margin and
what it implies. The papers' criteria are *sufficient* conditions; the exact decisions
for an instance are in :mod:`gaussqp.certificates.instance` (and they win when the two disagree).
"""

from __future__ import annotations

import numpy as np

from ..linalg.polyhedral_cones import cone_is_trivial, farkas_vector, min_linear_on_cone
from ..errors import UndecidedError
from ..model.scales import data_scales
from ..mechanics.delassus import constrained_delassus, kinetic_angles
from ..linalg.dense import as_dense, equilibrated_min_eigenvalue, matrix_rank, normalize_rows, singular_value_rank
from ..settings import (
    DEFINITE_RTOL,
    FORCE_DIRECTION_TOL,
    KERNEL_COMPONENT_TOL,
    ORTHOGONAL_COS_TOL,
    RANGE_RCOND,
    RANGE_RTOL,
    SCALE_FLOOR,
    VERIFY_RTOL,
)
from ..model.memo import per_problem
from ..model.problem import ContactProblem
from ..results import Certificate
from .sticking_criteria import sticking_certificates


def _stack(*blocks, n):
    rows = [normalize_rows(as_dense(B).reshape(-1, n)) for B in blocks if B is not None and B.shape[0]]
    return np.vstack(rows) if rows else np.zeros((0, n))


@per_problem
def _mass_and_equalities(problem: ContactProblem) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """``(S, σ, rank, Z)``: the rows of R (M = RᵀR) and of the equality rows E stacked, each normalized to unit
    length, its singular values, its rank (the rule of :func:`gaussqp.linalg.dense.matrix_rank`) and an orthonormal
    basis Z of ``ker S`` (that of :func:`gaussqp.linalg.dense.null_space`): one SVD per problem for C1
    (``ker M ∩ ker E = {0}`` iff rank n, margin σ_min) and C3, whose cone lives in ``ker S``."""
    E, _ = problem.equalities
    n = problem.n
    S = _stack(problem.mass_factor.R, E, n=n)
    if S.shape[0] == 0:
        sv, rank, Z = np.zeros(0), 0, np.eye(n)
    else:
        # the singular values decide the rank; the vectors are needed only for a kernel (rank < n)
        sv = np.linalg.svd(S, compute_uv=False)
        rank = singular_value_rank(sv, S.shape)
        if rank < n:
            _, sv, vt = np.linalg.svd(S, full_matrices=True)
            rank = singular_value_rank(sv, S.shape)
            Z = vt[rank:].T.copy()
        else:
            Z = np.zeros((n, 0))
    for arr in (S, sv, Z):  # shared by C1 and C3
        arr.flags.writeable = False
    return S, sv, rank, Z


def c1_kernel(problem: ContactProblem) -> Certificate:
    """C1: ``ker M ∩ ker J_b = {0}`` and the rank of J_b (tutorial Prop. 1; sticking Prop. 1)."""
    n = problem.n
    E, _ = problem.equalities
    S, sv, rank, Z = _mass_and_equalities(problem)
    margin = float(sv[-1]) if S.shape[0] >= n and sv.size else 0.0
    holds = S.shape[0] >= n and rank == n
    rank_b = matrix_rank(as_dense(E)) if E.shape[0] else 0
    full = rank_b == E.shape[0]
    if holds and full:
        implies = (
            "the KKT matrix (4) is nonsingular: for bilateral constraints a and λ_b are unique "
            "for any right-hand side (Prop. 1(i))"
        )
    elif holds:
        implies = (
            "redundant equality rows: when they are compatible, a and the generalized force J_bᵀλ_b "
            "are unique, λ_b is not (Prop. 1(ii))"
        )
    else:
        implies = "ker M ∩ ker J_b ≠ {0}: the bilateral KKT system (4) does not determine a uniquely (Prop. 1)"
    return Certificate(
        id="C1",
        name="ker M ∩ ker J_b = {0}",
        source="tutorial Prop. 1; sticking Prop. 1",
        holds=holds,
        margin=margin if holds else -1.0 + margin,
        implies=implies,
        data={
            "rank_J_b": rank_b,
            "rows_J_b": int(E.shape[0]),
            **(
                {}
                if holds or not Z.shape[1]
                else {
                    "evidence": {
                        "verify": "v ≠ 0 with M v = 0 and normal_i · v = 0 on bilateral contacts, "
                        "tangent_i,k · v = 0 on sticking ones (E v = 0): v ∈ ker M ∩ ker J_b",
                        "kernel_vector": Z[:, 0],
                    }
                }
            ),
        },
    )


def c2_independence(problem: ContactProblem) -> Certificate:
    """C2: rows ``[J_b; J_u]`` independent ⇔ ``A_c ≻ 0`` (M ≻ 0) ⇔ unique λ (tutorial Prop. 3(i), 7(i))."""
    from .instance import multiplier_row_rank, multiplier_rows

    J, _ = multiplier_rows(problem)
    k, n = J.shape
    if k == 0:
        return Certificate(
            id="C2",
            name="independent constraint rows",
            source="tutorial Prop. 3(i), 7(i)",
            holds=None,
            margin=0.0,
            implies="no constraints",
        )
    rank, s = multiplier_row_rank(problem)
    holds = rank == k
    evidence = {}
    if not holds:  # a dependency of the rows: d ≠ 0 with J_allᵀ d = 0 (the last right singular vector of J_allᵀ)
        Jd = as_dense(J)
        d = np.linalg.svd(normalize_rows(Jd).T)[2][-1] / np.maximum(np.linalg.norm(Jd, axis=1), np.finfo(float).tiny)
        d = d / np.abs(d).max()
        _, rt = multiplier_rows(problem)
        d_t = np.zeros(problem.m * (problem.dimension - 1))
        d_t[rt] = d[problem.m :]
        evidence = {
            "evidence": {
                "verify": "d ≠ 0 with Σ_i d_normal[i] normal_i + Σ_i Σ_k d_tangent[i][k] tangent_i,k = 0 (tangent entries on "
                "sticking contacts only): the constraint rows are dependent",
                "d_normal": d[: problem.m],
                "d_tangent": d_t.reshape(problem.m, problem.dimension - 1),
            }
        }
    return Certificate(
        id="C2",
        name="independent constraint rows",
        source="tutorial Prop. 3(i), 7(i); inertial Prop. 4(ii)",
        holds=holds,
        margin=s if holds else -float(k - rank),
        implies=(
            "the multipliers are unique whenever a solution exists; with M ≻ 0, A_c ≻ 0 and the "
            "contact LCP has a unique solution for every right-hand side"
            if holds
            else f"rows dependent (rank {rank} < {k}): multipliers may be non-unique; "
            "the exact test decides per instance"
        ),
        data=evidence,
    )


def _relative_force_on(F: np.ndarray, v: np.ndarray) -> float:
    """``Fᵀv / (|F|ᵀ|v|)``: the sign of ``Fᵀv`` on a cone or kernel direction, measured against the magnitude of
    its own terms (0 when F vanishes on v's support). Dimensionless and unchanged by any scaling of F, of the
    units or of each coordinate (``F → S F``, ``v → S⁻¹ v``), so that a problem stated in other units gets the
    same verdict; a value below :data:`FORCE_DIRECTION_TOL` is round-off of the sum."""
    terms = float(np.abs(F) @ np.abs(v))
    return float(F @ v) / terms if terms > 0 else 0.0


def c3_tangent_cone(problem: ContactProblem) -> list[Certificate]:
    """C3: ``P(J_u, 0) ∩ ker J_b ∩ ker M = {0}`` and its variant (ii) with ``Fᵀv > 0``.

    tutorial Prop. 3(vi), 7(vii); singular Props. 3, 4, 6. ``P(J_u, 0) = {v : J_u v >= 0}``
    is the recession cone of the unilateral set (equal to T_S under MFCQ).
    """
    n = problem.n
    G, _ = problem.inequalities
    Eq, _, _, Z = _mass_and_equalities(problem)
    src = "tutorial Prop. 3(vi), 7(vii); singular Props. 3(i), 4(i), 6(i)"
    try:
        t = cone_is_trivial(Eq, as_dense(G).reshape(-1, n), n, kernel=Z)  # ker Eq from C1's SVD
    except UndecidedError as exc:
        return [
            Certificate(
                id="C3",
                name="T_S ∩ ker J_b ∩ ker M = {0}",
                source=src,
                holds=None,
                margin=float("nan"),
                implies=f"undecided: {exc}",
            )
        ]
    c_i = Certificate(
        id="C3",
        name="T_S ∩ ker J_b ∩ ker M = {0}",
        source=src,
        holds=t.trivial,
        margin=t.margin,
        implies=(
            "F1 has a minimizer (the MLCP (16) is solvable) whenever the constraint set is nonempty"
            if t.trivial
            else "the cone is not {0}: solvability depends on F (see C3(ii))"
        ),
        data={
            "witness": t.witness,
            **(
                {}
                if t.trivial or t.witness is None
                else {
                    "evidence": {
                        "verify": "v ≠ 0 with M v = 0, E v = 0 (bilateral normals, sticking tangents) and normal_i · v >= 0 on "
                        "the unilateral contacts: a direction of the recession cone",
                        "direction": t.witness,
                    }
                }
            ),
        },
    )
    if t.trivial:
        c_ii = Certificate(
            id="C3(ii)",
            name="Fᵀv > 0 on T_S ∩ ker J_b ∩ ker M \\ {0}",
            source="singular Props. 3(ii), 4(ii), 6(ii)",
            holds=None,
            margin=float("inf"),
            implies="not needed: C3(i) holds",
        )
    else:
        try:
            val, v = min_linear_on_cone(Eq, as_dense(G).reshape(-1, n), problem.F, n)
        except UndecidedError as exc:
            return [
                c_i,
                Certificate(
                    id="C3(ii)",
                    name="Fᵀv > 0 on T_S ∩ ker J_b ∩ ker M \\ {0}",
                    source="singular Props. 3(ii), 4(ii), 6(ii)",
                    holds=None,
                    margin=float("nan"),
                    implies=f"undecided: {exc}",
                ),
            ]
        rel = _relative_force_on(problem.F, v) if v is not None else (1.0 if val > 0 else 0.0)
        holds = rel > FORCE_DIRECTION_TOL
        c_ii = Certificate(
            id="C3(ii)",
            name="Fᵀv > 0 on T_S ∩ ker J_b ∩ ker M \\ {0}",
            source="singular Props. 3(ii), 4(ii), 6(ii)",
            holds=holds,
            margin=rel,
            implies=(
                "F1 has a minimizer whenever the constraint set is nonempty"
                if holds
                else (
                    "a direction v in the cone with Fᵀv < 0: F1 is unbounded below if feasible"
                    if rel < -FORCE_DIRECTION_TOL
                    else "Fᵀv = 0 on a cone direction: a minimizer may exist but is then not unique"
                )
            ),
            data={
                "direction": v,
                "value": val,
                **(
                    {}
                    if holds or v is None
                    else {
                        "evidence": {
                            "verify": "v ≠ 0 with M v = 0, E v = 0, normal_i · v >= 0 on the unilateral contacts and force · v <= 0",
                            "direction": v,
                        }
                    }
                ),
            },
        )
    return [c_i, c_ii]


def c4_singular_uniqueness(problem: ContactProblem) -> Certificate:
    """C4 (singular Prop. 5(b)): ``ker M ⊆ ker J`` and ``Fᵀe ≠ 0`` on ker M \\ {0} ⇒ at most one a."""
    K = problem.mass_factor.kernel
    src = "singular Prop. 5(b)"
    if K.shape[1] == 0:
        return Certificate(
            id="C4",
            name="uniqueness with singular M",
            source=src,
            holds=True,
            margin=float("inf"),
            implies="M ≻ 0: at most one acceleration (vacuous form of Prop. 5(b))",
        )
    J = normalize_rows(as_dense(problem.J_n))
    viol = float(np.abs(J @ K).max(initial=0.0))
    if K.shape[1] >= 2:
        cond2 = 0.0
    else:
        cond2 = abs(_relative_force_on(problem.F, K[:, 0]))
    holds = viol <= KERNEL_COMPONENT_TOL and cond2 > FORCE_DIRECTION_TOL
    return Certificate(
        id="C4",
        name="uniqueness with singular M",
        source=src,
        holds=holds,
        margin=min(cond2, -viol) if viol > KERNEL_COMPONENT_TOL else cond2,
        implies=(
            "at most one acceleration. Note: with ker M ⊆ ker J and Fᵀe ≠ 0 the objective of F1 decreases "
            "without bound along ±e, so these conditions in fact exclude any solution (see C3(ii))"
            if holds
            else "not satisfied (dim ker M >= 2 or ker M ⊄ ker J or F ⟂ ker M): no conclusion"
        ),
        data={
            "kernel_dimension": int(K.shape[1]),
            "J_on_kerM": viol,
            "evidence": {
                "verify": "the columns e_k span ker M (M e_k = 0, orthonormal); holds needs normal_i · e_k = 0 for every "
                "contact and, with one column, force · e ≠ 0",
                "kernel_basis": K,
            },
        },
    )


def _verified_feasible_point(problem: ContactProblem) -> np.ndarray | None:
    """A point with ``E a + e = 0``, ``G a + g >= 0`` found by an LP and verified row by row at each row's own
    scale (its terms at the point plus the data's, :mod:`gaussqp.model.scales`), or None."""
    from scipy.optimize import linprog

    E, e = problem.equalities
    G, g = problem.inequalities
    n = problem.n
    Ed, Gd = as_dense(E).reshape(-1, n), as_dense(G).reshape(-1, n)
    res = linprog(
        np.zeros(n),
        A_ub=-Gd if Gd.shape[0] else None,
        b_ub=g if Gd.shape[0] else None,
        A_eq=Ed if Ed.shape[0] else None,
        b_eq=-e if Ed.shape[0] else None,
        bounds=[(None, None)] * n,
        method="highs",
    )
    if res.status != 0 or res.x is None:
        return None
    return _verify_point(problem, Ed, e, Gd, g, res.x)


def _rows_independent(problem: ContactProblem) -> bool:
    """C2's decision: the rows ``[J_b; J_u]`` (the multiplier rows) are independent at the library's rank rule."""
    from .instance import multiplier_rows_independent

    return problem.m > 0 and multiplier_rows_independent(problem)


def _point_on_independent_rows(problem: ContactProblem) -> np.ndarray | None:
    """When the rows ``[E; G]`` are independent (C2's rank test, on the rows normalized to unit length) they reach
    any right-hand side: the least-squares point of ``E a = −e``, ``G a = −g`` is feasible in exact arithmetic.
    It is returned verified as :func:`_verified_feasible_point` verifies its LP's point, or None (dependent rows,
    or a point that fails the check: the LPs then decide). Issue #15: C5 without its two LPs when C2 implies it."""
    E, e = problem.equalities
    G, g = problem.inequalities
    n = problem.n
    Ed, Gd = as_dense(E).reshape(-1, n), as_dense(G).reshape(-1, n)
    J = np.vstack([Ed, Gd])
    if not _rows_independent(problem):  # [E; G]: the multiplier rows reordered (none, or more than n: dependent)
        return None
    a, *_ = np.linalg.lstsq(J, -np.concatenate([e, g]), rcond=None)
    return _verify_point(problem, Ed, e, Gd, g, a)


def _point_on_equalities(problem: ContactProblem) -> np.ndarray | None:
    """The least-norm point of the equality rows ``E a = −e`` (``a = 0`` without them), returned when it also meets
    ``G a + g >= 0``, verified as :func:`_verified_feasible_point` verifies its LP's point; else None (the LP
    decides). With zero drifts (a robot at rest: ``e = 0``, ``g >= 0``) this is ``a = 0``, and C5 needs no LP."""
    E, e = problem.equalities
    G, g = problem.inequalities
    n = problem.n
    Ed, Gd = as_dense(E).reshape(-1, n), as_dense(G).reshape(-1, n)
    a = np.linalg.lstsq(Ed, -np.asarray(e, dtype=float), rcond=None)[0] if Ed.shape[0] else np.zeros(n)
    return _verify_point(problem, Ed, e, Gd, g, a) if np.all(np.isfinite(a)) else None


def _verify_point(
    problem: ContactProblem,
    Ed: np.ndarray,
    e: np.ndarray,
    Gd: np.ndarray,
    g: np.ndarray,
    a: np.ndarray,
    data_only: bool = False,
) -> np.ndarray | None:
    """``a`` when every row of ``E a + e = 0``, ``G a + g >= 0`` holds at its own scale, else None. The scale of a row
    is the data's (:mod:`gaussqp.model.scales`) plus the row's terms ``|E_i||a| + |e_i|``; with ``data_only`` the
    data's alone, so that a point of any size whose terms cancel is held to the data's round-off (a point that the
    library did not compute itself: an answer offered as a candidate)."""
    sc = data_scales(problem)
    eq_scale = sc.equality_row + (0.0 if data_only else np.abs(Ed) @ np.abs(a) + np.abs(e))
    in_scale = sc.inequality_row + (0.0 if data_only else np.abs(Gd) @ np.abs(a) + np.abs(g))
    tol = VERIFY_RTOL
    if np.any(np.abs(Ed @ a + e) > tol * eq_scale) or np.any(-(Gd @ a + g) > tol * in_scale):
        return None
    return a


def c5_lcp_solvability(problem: ContactProblem, candidate: np.ndarray | None = None) -> list[Certificate]:
    """C5: solvability conditions of the contact LCP on the drift terms (M ≻ 0).

    (iv)/(v): ``λ_u >= 0, J_uᵀλ_u + J_bᵀλ_b = 0 ⇒ bᵀλ >= 0`` — necessary and sufficient
    (tutorial Prop. 3(iv), 7(v); inertial Lemma 4); we state it with the bilateral rows,
    which is exactly Farkas' condition for ``K ∩ K_b ≠ ∅`` (tutorial Assumption 4).
    Range condition: drift part of ``w_c`` in ``im A_c`` (tutorial Prop. 3(v), 7(vi); Remark 2). With M ≻ 0 and
    the rows ``[J_b; J_u]`` independent (C2's rank test) ``A_c`` is positive definite (the Schur complement of
    ``[J_b; J_u] M⁻¹ [J_b; J_u]ᵀ ≻ 0``, tutorial Prop. 3(i)): its range is everything, and the condition holds
    without a least-squares solve.

    ``candidate``: an acceleration to try first as the feasible point (a ``solved`` answer of the route), verified here
    row by row at the data's scale alone (:func:`_verify_point` with ``data_only``: stricter than for the points C5
    computes itself, so that no large point whose terms cancel passes).
    """
    E, e = problem.equalities
    G, g = problem.inequalities
    definite = problem.mass_factor.definite
    # a verified feasible point proves C5 (no Farkas vector can exist then): the candidate, the least-squares point of
    # independent rows, or of the equality rows alone, without an LP, else one LP; only without one is a Farkas vector
    # sought, and no verified Farkas vector is not yet a proof either way (undecided)
    point = None
    if candidate is not None and np.all(np.isfinite(candidate)):
        n = problem.n
        point = _verify_point(
            problem, as_dense(E).reshape(-1, n), e, as_dense(G).reshape(-1, n), g, candidate, data_only=True
        )
    if point is None:
        point = _point_on_independent_rows(problem)
    if point is None:
        point = _point_on_equalities(problem)
    if point is None:
        point = _verified_feasible_point(problem)
    if point is not None:
        y, holds = None, True
        evidence = {
            "verify": "normal_i · a + normal_drift_i = 0 on bilateral contacts, tangent_i,k · a + "
            "tangent_drift_i,k = 0 on sticking ones, normal_i · a + normal_drift_i >= 0 on "
            "unilateral ones (E a + e = 0, G a + g >= 0): the constraint set is nonempty",
            "feasible_point": point,
        }
    else:
        y = farkas_vector(E, e, G, g)
        holds = False if y is not None else None
        if y is not None:
            from .instance import farkas_evidence

            evidence = farkas_evidence(problem, y[: E.shape[0]], y[E.shape[0] :])
        else:
            evidence = None
    res = [
        Certificate(
            id="C5",
            name="λ_u >= 0, Jᵀλ = 0 ⇒ bᵀλ >= 0",
            source="tutorial Prop. 3(iv), 7(v); inertial Lemma 4",
            holds=holds,
            margin=(
                -1.0 / max(SCALE_FLOOR, float(np.abs(y).max())) if y is not None else (0.0 if holds else float("nan"))
            ),
            implies=(
                ("the contact LCP is solvable" if definite else "the constraint set K ∩ K_b is nonempty (Assumption 4)")
                if holds
                else (
                    "the constraint set of the data as given is empty: no solution of these exact data (a Farkas "
                    "vector exists); whether data within the tolerance have one is the verdict's question (a "
                    "certified infeasible must survive gaussqp.settings.NONEXISTENCE_CHANGE)"
                    if y is not None
                    else "undecided: neither a Farkas vector nor a feasible point could be verified"
                )
            ),
            data={"farkas_vector": y, "evidence": evidence},
        )
    ]
    if definite and G.shape[0] and _rows_independent(problem):
        from .instance import multiplier_row_rank

        res.append(
            Certificate(
                id="C5(range)",
                name="drift part of w_c in im A_c",
                source="tutorial Prop. 3(i), 3(v), 7(vi), Remark 2",
                holds=True,
                margin=float(multiplier_row_rank(problem)[1]),  # C2's: the rows' smallest singular value
                implies="the contact LCP is solvable (C2: independent rows, with M ≻ 0: im A_c is the whole space)",
            )
        )
    elif definite and G.shape[0]:
        cd = constrained_delassus(problem)
        drift = cd.J_u @ (-cd.Minv @ cd.J_b.T @ cd.A_nb_pinv @ e) + g if cd.J_b.shape[0] else g.copy()
        Ac = cd.A_c
        coef, *_ = np.linalg.lstsq(Ac, drift, rcond=RANGE_RCOND)
        # the residual relative to the drift itself (0 when the drift is 0), not max(1, ‖drift‖∞): in units of
        # 1e-6 every drift was "in the range"
        dmax = float(np.abs(drift).max(initial=0))
        res_max = float(np.abs(Ac @ coef - drift).max(initial=0))
        r = res_max / dmax if dmax > 0 else res_max
        res.append(
            Certificate(
                id="C5(range)",
                name="drift part of w_c in im A_c",
                source="tutorial Prop. 3(v), 7(vi), Remark 2",
                holds=r <= RANGE_RTOL,
                margin=RANGE_RTOL - r,  # positive: holds, with that slack (the Certificate's convention)
                implies=(
                    "the contact LCP is solvable"
                    if r <= RANGE_RTOL
                    else "not satisfied: no conclusion (sufficient condition)"
                ),
            )
        )
    return res


def c6_delassus(problem: ContactProblem) -> list[Certificate]:
    """C6: ``A_c ≻ 0`` and the kinetic-angle tests (inertial (9), Prop. 7, Thm. 1, Cor. 5, Prop. 10)."""
    if not problem.mass_factor.definite:
        return []
    E, _ = problem.equalities
    G, _ = problem.inequalities
    if not (E.shape[0] and G.shape[0]):
        return []
    cd = constrained_delassus(problem)
    # definiteness on the data's scale: A_c divided by the unconstrained Delassus diagonal of its rows,
    # so an A_c that is zero up to round-off (a unilateral row colinear with a bilateral one) has a margin
    # of round-off size instead of being judged against its own (round-off) largest eigenvalue
    margin = equilibrated_min_eigenvalue(cd.A_c, np.einsum("ij,jk,ik->i", cd.J_u, cd.Minv, cd.J_u))
    pd = margin > DEFINITE_RTOL
    out = [
        Certificate(
            id="C6",
            name="A_c ≻ 0",
            source="tutorial Prop. 7(i); inertial Prop. 10",
            holds=pd,
            margin=margin,
            implies=(
                "the constrained contact LCP (31) has a unique solution for every w_c"
                if pd
                else f"A_c is not certified positive definite (its equilibrated smallest eigenvalue is at most "
                f"{DEFINITE_RTOL:g}): existence needs C5, the uniqueness of λ_u is not implied"
            ),
        )
    ]
    Gd, Ed = as_dense(G), as_dense(E)
    theta = kinetic_angles(problem, Gd, Ed, minv=cd.Minv)
    p, m, n = E.shape[0], G.shape[0], problem.n
    Wu = kinetic_angles(problem, Gd, Gd, minv=cd.Minv)
    Wb = kinetic_angles(problem, Ed, Ed, minv=cd.Minv)

    def off(A):
        return A[~np.eye(A.shape[0], dtype=bool)]

    orth = np.allclose(np.cos(off(Wu)), 0, atol=ORTHOGONAL_COS_TOL) and np.allclose(
        np.cos(off(Wb)), 0, atol=ORTHOGONAL_COS_TOL
    )
    C = np.cos(theta)
    if np.isnan(C).any() or np.isnan(Wu).any() or np.isnan(Wb).any():
        out.append(
            Certificate(
                id="C6(angles)",
                name="I - [Σ cos θ_ji cos θ_ki] ≻ 0",
                source="inertial Thm. 1",
                holds=None,
                margin=0.0,
                implies="premises fail (a zero constraint row has no kinetic angle); see C6",
                data={"kinetic_angles": theta},
            )
        )
    elif orth:
        lam = float(np.linalg.eigvalsh(np.eye(m) - C @ C.T).min())
        out.append(
            Certificate(
                id="C6(angles)",
                name="I - [Σ cos θ_ji cos θ_ki] ≻ 0",
                source="inertial Thm. 1, Prop. 7, Cor. 2-3",
                holds=lam > DEFINITE_RTOL,
                margin=lam,
                implies="A_c ≻ 0 (kinetic-angle form)" if lam > DEFINITE_RTOL else "A_c is not positive definite",
                data={"kinetic_angles": theta},
            )
        )
    else:
        out.append(
            Certificate(
                id="C6(angles)",
                name="I - [Σ cos θ_ji cos θ_ki] ≻ 0",
                source="inertial Thm. 1",
                holds=None,
                margin=0.0,
                implies="premises fail (constraints not mutually orthogonal in the kinetic metric); see C6",
                data={"kinetic_angles": theta},
            )
        )
    out.append(
        Certificate(
            id="C6(count)",
            name="m + p <= n",
            source="inertial Cor. 5",
            holds=m + p <= n,
            margin=float(n - m - p),
            implies="necessary for A_c ≻ 0 holds" if m + p <= n else "A_c cannot be positive definite (m + p > n)",
        )
    )
    return out


def structural_certificates(problem: ContactProblem, candidate: np.ndarray | None = None) -> list[Certificate]:
    """C1-C6 in order (those that apply to the problem's class), then C8 for sticking contacts.

    ``candidate``: an acceleration C5 tries first as its feasible point (the judged answer's; verified there).

    C1-C6 are criteria of the frictionless (and sticking-as-equality) problem: with sliding contacts they
    do not describe the problem and are not reported; the F6 verdict (enumeration, P-matrix test) and the
    C7 friction bounds take their place. Nor do they describe contacts whose stick/slip mode is left to the
    solver (mode "coulomb"): none is reported then."""
    if len(problem.sliding) or len(problem.coulomb):
        return []
    out = [c1_kernel(problem), c2_independence(problem)]
    out += c3_tangent_cone(problem)
    out.append(c4_singular_uniqueness(problem))
    out += c5_lcp_solvability(problem, candidate)
    out += c6_delassus(problem)
    out += sticking_certificates(problem)
    return out

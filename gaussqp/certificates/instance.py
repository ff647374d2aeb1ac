"""Certificates of the solution of *this* instance (docs/DESIGN.md §4.2, beyond the papers).

- ``farkas``: a verified Farkas vector when the constraint set is empty;
- ``unbounded_ray``: a verified ray ``v ∈ ker M``, feasible, ``Fᵀv < 0`` (singular M);
- ``unique_acceleration`` / ``unique_multipliers``: exact decisions by LP plus rank tests
  (the optimal face of F1 and the multiplier polyhedron are singletons or not); non-unique multipliers first by a
  count (more rows free in sign than coordinates), which needs neither.

(The residuals of the returned point, ``kkt_residuals``, are computed in
:mod:`gaussqp.certificates.residuals`.) :func:`gaussqp.certificates.judge.finalize` applies them to any formulation's raw answer, so every
route is judged by the same rules, and downgrades a claimed success that fails our residual check.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..linalg.polyhedral_cones import ConeTest, cone_is_trivial, farkas_vector, unbounded_ray
from ..errors import UndecidedError
from ..model.scales import data_scales, relative
from . import compiled
from ..linalg.dense import as_dense, matrix_rank, normalize_rows, plain, row_rank, surplus_null_vector
from ..model.memo import per_problem
from ..model.problem import ContactProblem
from ..model.rows import assemble_multipliers
from ..mechanics.active_set import equilibrated_kkt_svd, factored_any, guess_active
from ..results import Certificate
from ..settings import (
    ACTIVE_RTOL,
    CONE_CHECK_RTOL,
    FARKAS_MARGIN_MIN,
    FARKAS_SIGN_RTOL,
    FORWARD_ERROR_MAX,
    FORWARD_ERROR_WEAK_ROWS_MAX,
    KERNEL_ANGLE_MULTIPLE,
    KKT_RANK_MULTIPLE,
    ROUND_OFF,
    ROUNDOFF_MULTIPLE,
    SCALE_FLOOR,
    VERIFY_RTOL,
)


def verify_farkas(problem: ContactProblem, bound: float = 0.0) -> Certificate | None:
    """Search and verify a Farkas vector for ``K ∩ K_b = ∅`` (tutorial Assumption 4 fails).

    The margin is ``-bᵀy / Σ_i |y_i| row_i`` less the stationarity and sign defects, with ``row_i`` each row's
    scale from the data: a change of the drifts by at most ``bound · row_i`` row by row moves ``bᵀy`` by at most
    ``bound Σ_i |y_i| row_i``, so a margin above ``bound`` proves that no problem within ``bound`` of the data is
    feasible — the verdict contract's ``infeasible`` (DESIGN.md §4.3) when ``bound`` is
    :data:`~gaussqp.settings.NONEXISTENCE_CHANGE`."""
    E, e = problem.equalities
    G, g = problem.inequalities
    y = farkas_vector(E, e, G, g)
    if y is None:
        return None
    Ed, Gd = as_dense(E), as_dense(G)
    pe = Ed.shape[0]
    JTy = Ed.T @ y[:pe] + Gd.T @ y[pe:]
    by = float(e @ y[:pe] + g @ y[pe:])
    ynorm = float(np.abs(y).max())
    # every magnitude from the data: Jᵀy = 0 coordinate by coordinate against its own terms
    # (|J|ᵀ|y|)_j; bᵀy against the combination's terms at the data's size, Σ_i |y_i| (|J_i| S accel + |b_i|)
    ds = data_scales(problem)
    terms = np.abs(Ed).T @ np.abs(y[:pe]) + np.abs(Gd).T @ np.abs(y[pe:])
    stationarity = float(relative(JTy, terms).max(initial=0.0))
    sign = float(np.maximum(0, -y[pe:]).max(initial=0)) / ynorm
    row_terms = float(np.abs(y) @ np.concatenate([ds.equality_row, ds.inequality_row]))
    # certificate value: bᵀy < 0 must dominate what the residuals could hide
    margin = -by / max(row_terms, SCALE_FLOOR) - stationarity - sign
    holds = (
        stationarity <= VERIFY_RTOL and sign <= FARKAS_SIGN_RTOL and by < 0 and margin > max(FARKAS_MARGIN_MIN, bound)
    )
    implies = (
        "no acceleration satisfies the bilateral and unilateral constraints: the contact problem is infeasible"
        + (
            f", and so is every problem whose drifts differ by at most {bound:g} of their rows' scales"
            if bound > 0
            else ""
        )
    )
    if not holds and by < 0 and stationarity <= VERIFY_RTOL and sign <= FARKAS_SIGN_RTOL:
        implies = (
            f"infeasible for the data as given (margin {margin:.1e}), but a change of the drifts by {margin:.1e} "
            f"of their rows' scales, within the tolerance {bound:g}, may make it feasible: not certified"
        )
    return Certificate(
        id="farkas",
        name="Farkas vector for an empty constraint set",
        source="DESIGN.md §4.2 (instance); tutorial Assumption 4; Farkas' lemma",
        holds=holds,
        margin=margin,
        implies=implies,
        data={
            "y_equalities": y[:pe],
            "y_unilateral": y[pe:],
            "b_dot_y": by,
            "stationarity": stationarity,
            "robust_to": bound,
            "evidence": farkas_evidence(problem, y[:pe], y[pe:]),
        },
    )


#: What a reader checks on a Farkas vector of the constraint rows, written per contact as the problem file has them.
FARKAS_VERIFY = (
    "Σ_i y_normal[i] normal_i + Σ_i Σ_k y_tangent[i][k] tangent_i,k = 0 (tangent entries nonzero on "
    "sticking contacts only); y_normal[i] >= 0 on unilateral contacts; Σ_i y_normal[i] normal_drift_i + "
    "Σ_i Σ_k y_tangent[i][k] tangent_drift_i < 0 (stacked: Eᵀy_E + Gᵀy_G = 0, y_G >= 0, "
    "eᵀy_E + gᵀy_G < 0): then no acceleration satisfies the constraints"
)


def farkas_evidence(problem: ContactProblem, y_eq: np.ndarray, y_in: np.ndarray) -> dict:
    """The evidence of a Farkas vector of ``E a + e = 0, G a + g >= 0`` in the problem file's terms.

    Parameters
    ----------
    problem : ContactProblem
    y_eq, y_in : numpy.ndarray
        The vector ordered as ``problem.equalities`` and ``problem.inequalities``.

    Returns
    -------
    dict
        ``verify`` (:data:`FARKAS_VERIFY`), ``y_normal`` (one entry per contact, input order) and ``y_tangent``
        (m × (d−1), zero rows but on sticking contacts).
    """
    y_n, y_t = assemble_multipliers(problem, np.asarray(y_eq, dtype=float), np.asarray(y_in, dtype=float))
    return {"verify": FARKAS_VERIFY, "y_normal": y_n, "y_tangent": y_t}


def _roundoff_rows(A, v: np.ndarray) -> np.ndarray:
    """Row-wise round-off bound of ``A v``: ``ROUNDOFF_MULTIPLE · n ε · |A| |v|``."""
    Ad = as_dense(A).reshape(-1, v.size)
    return ROUNDOFF_MULTIPLE * max(v.size, 1) * np.finfo(float).eps * (np.abs(Ad) @ np.abs(v))


def verify_ray(problem: ContactProblem, bound: float = 0.0) -> Certificate | None:
    """Search and verify an unbounded ray of F1 (v ∈ ker M, feasible direction, Fᵀv < 0).

    Verified row by row at round-off: every ``|(M v)_j|``, ``|E_i v|`` and ``max(0, -G_i v)`` must be
    below the round-off of that row's own terms (:func:`_roundoff_rows`), and ``-Fᵀv`` must exceed
    the round-off of ``|F|ᵀ|v|`` (the margin says by how much, relative to ``|F|ᵀ|v|``). A vector
    of a definite M fails the first test however ill-conditioned M is, down to cond ~ 1/(100 n ε).
    With ``bound > 0`` (the verdict contract, DESIGN.md §4.3) ``-Fᵀv`` must also exceed what a change of the forces
    by ``bound`` of each dynamics row's data scale can close, ``bound · dynamics_rowᵀ|v|``: then no problem within
    ``bound`` of the data has a minimizer.
    """
    fac = problem.mass_factor
    if fac.definite:
        return None
    E, _ = problem.equalities
    G, _ = problem.inequalities
    v = unbounded_ray(as_dense(fac.R), problem.F, E, G)
    if v is None:
        return None
    v = v / np.abs(v).max()
    Mv = np.asarray(problem.M @ v).ravel()
    Ev = as_dense(E).reshape(-1, v.size) @ v
    Gv = as_dense(G).reshape(-1, v.size) @ v
    Fv = float(problem.F @ v)
    excess = np.concatenate(
        [np.abs(Mv) - _roundoff_rows(problem.M, v), np.abs(Ev) - _roundoff_rows(E, v), -Gv - _roundoff_rows(G, v)]
    )
    viol = float(np.maximum(excess, 0.0).max(initial=0.0))
    f_mag = float(np.abs(problem.F) @ np.abs(v))
    f_round = float(_roundoff_rows(problem.F[None, :], v)[0])
    margin = (-Fv - f_round) / f_mag if f_mag > 0 else -1.0
    closable = bound * float(data_scales(problem).dynamics_row @ np.abs(v))
    holds = viol == 0.0 and margin > 0 and -Fv - f_round > closable
    return Certificate(
        id="unbounded_ray",
        name="descent ray in ker M",
        source="DESIGN.md §4.2 (instance); failure of singular Prop. 3(ii)/4(ii)/6(ii)",
        holds=holds,
        margin=margin,
        implies="½aᵀMa + Fᵀa is unbounded below on the constraint set: no acceleration solves the contact problem",
        data={
            "ray": v,
            "F_dot_v": Fv,
            "violation": viol,
            "robust_to": bound,
            "closable_by_force_change": closable,
            "evidence": {
                "verify": "M v = 0; normal_i · v = 0 on bilateral contacts and tangent_i,k · v = 0 on "
                "sticking ones (E v = 0); normal_i · v >= 0 on unilateral contacts (G v >= 0); "
                "force · v < 0: ½aᵀMa + Fᵀa decreases without bound along v",
                "ray": v,
            },
        },
    )


def _active_sets(problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray):
    """(active, zero multiplier, thresholds) of the unilateral rows, each decided at its own row's scale
    from the data (:mod:`gaussqp.model.scales`): slack against ``|G_i| S accel + |g_i|``, multiplier as its
    contribution ``λ_i ‖(G S)_i‖∞`` to the equilibrated dynamics against the data's force."""
    G, g = problem.inequalities
    U = problem.unilateral
    sc = data_scales(problem)
    slack = (as_dense(G) @ a + g) if G.shape[0] else np.zeros(0)
    thr = ACTIVE_RTOL * sc.normal_row[U]
    lthr = ACTIVE_RTOL * np.divide(
        sc.force, sc.normal_weight[U], out=np.full(len(U), np.inf), where=sc.normal_weight[U] > 0
    )
    lam_u = lam_n[U]
    return slack <= thr, lam_u <= lthr, thr, lthr


def _zero_on_kernel(rows: np.ndarray, K: np.ndarray, angle: float) -> np.ndarray:
    """Row by row: is ``r`` zero on ``span K`` (orthonormal columns, known to the angle ``angle``)? ``‖r K‖₂`` against
    ``angle · ‖r‖₂``, each row at its own scale: the computed kernel leans by up to ``angle`` into the kept
    eigenvectors, so a row that vanishes on the exact kernel measures up to that much on the computed one."""
    return np.linalg.norm(rows @ K, axis=1) <= angle * np.linalg.norm(rows, axis=1)


def _witness_refuted(
    problem: ContactProblem, a: np.ndarray, fac, s: np.ndarray, v: np.ndarray, w_kept: float, eps_n: float
) -> str | None:
    """Why the direction ``v`` of a "not unique" verdict is not an optimal direction, or None when it is one to its
    own accuracy. Along an optimal direction the objective's first-order change ``(M a + F)ᵀv`` vanishes; ``v`` is
    off ker M by at most ``θ = ‖M̃ v'‖ / λ_min,kept(M̃)`` (``v' = S⁻¹v``: its residual over the gap of the kept
    spectrum, usually far sharper than the a-priori kernel angle), so a change beyond ``θ ‖S(M a + F)‖ ‖v'‖`` and the
    round-off of its terms means a row dropped as zero on the kernel (or a multiplier decided negligible) decided
    the verdict below what the data resolve (a hypothesis case: ``(M a + F)ᵀv = 1`` against terms of 4.6e4, the
    row of F dropped at the angle 2.4e-5, the witness in ker M to 1e-17)."""
    Ma = np.asarray(problem.M @ a).ravel()
    g = Ma + problem.F
    vp = v / s
    Mt_vp = s * np.asarray(problem.M @ v).ravel()  # M̃ v' = S M S S⁻¹ v
    theta = float(np.linalg.norm(Mt_vp)) / (w_kept * float(np.linalg.norm(vp))) + eps_n
    terms = float((np.asarray(abs(problem.M) @ np.abs(a)).ravel() + np.abs(problem.F)) @ np.abs(v))
    slope = abs(float(g @ v))
    bound = KERNEL_ANGLE_MULTIPLE * theta * float(np.linalg.norm(s * g)) * float(np.linalg.norm(vp)) + eps_n * terms
    if slope <= bound:
        return None
    return (
        f"the direction found changes the objective at first order by {slope:.1e} ({slope / max(terms, 1e-300):.1e} "
        f"of its terms, beyond its own accuracy {bound:.1e}): a row below the kernel's resolution decided it; the "
        "data do not decide uniqueness at this precision"
    )


def _undecided_acceleration(why: str, data: dict) -> Certificate:
    """The ``unique_acceleration`` certificate of a decision the data do not settle (``holds=None``), saying why."""
    return Certificate(
        id="unique_acceleration",
        name="uniqueness of the acceleration (exact)",
        source="DESIGN.md §4.2 (LP + rank); singular Prop. 5(a)",
        holds=None,
        margin=float("nan"),
        implies=f"undecided: {why}",
        data=data,
    )


def unique_acceleration(problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray) -> Certificate:
    """Exact: the optimal face of F1 is {a*} iff its directions at a* are {0} (singular Prop. 5(a)).

    F1 is ``min ½aᵀMa + Fᵀa`` over the polyhedron ``E a + e = 0``, ``G a + g >= 0``. Two optima differ by
    ``v ∈ ker M`` with ``Fᵀv = 0`` (singular Prop. 5(a)), and along such a feasible v the objective is constant, so
    the optimal face is ``a* + {v : M v = 0, Fᵀv = 0, E v = 0, G_A v >= 0}`` near a* (A the rows active at a*;
    inactive rows do not restrict a direction locally), and a polyhedron is a point iff its cone of directions at
    a point is {0}. Every optimum pairs with every multiplier vector (KKT pairs of a convex QP are primal × dual
    optima): on that cone ``Σ λ_i G_i v = vᵀ(M a* + F) = 0``, so the rows with ``λ_i > 0`` hold with equality.
    They are stated as equalities (the multipliers decided at the data's scale, :func:`_active_sets`): a row of F
    small on the kernel, below what the computed kernel resolves, then still restricts the directions through
    them. ``(a, λ)`` must be a KKT pair of F1 (the judged answer; a point that is not one proves nothing).

    Decided in ``v = S K̃ y``: ``K̃`` the kernel of the equilibrated ``M̃ = S M S`` (the rank decision of
    :func:`gaussqp.linalg.mass.factor_mass`), known to the angle ``KERNEL_ANGLE_MULTIPLE · n ε λ_max(M̃) /
    λ_min,kept(M̃)`` (Davis–Kahan: the residual of the eigenvectors over the gap). Each row ``r S`` of ``F``,
    ``E`` and the active ``G`` is first decided zero or not on that kernel at its own scale
    (:func:`_zero_on_kernel`): a row that vanishes there restricts nothing. The rest go to
    :func:`gaussqp.linalg.polyhedral_cones.cone_is_trivial` in the ``k`` kernel coordinates (rank test + LP).
    Stacking ``R`` (``M = RᵀR``) with the rows and cutting the stack's singular values instead read the kernel's
    own lean (1e-10 on an integer M with ``M v = 0`` exactly) as a constraint: "ker E = {0}".
    """
    fac = problem.mass_factor
    if fac.definite:
        return Certificate(
            id="unique_acceleration",
            name="uniqueness of the acceleration (exact)",
            source="tutorial Prop. 4 (M ≻ 0: strictly convex F1)",
            holds=True,
            margin=float(fac.eigenvalues.min()),
            implies="the acceleration is unique",
        )
    G, g = problem.inequalities
    active, zero_lam, thr, _ = _active_sets(problem, a, lam_n)
    # a row active at the data's scale but whose slack exceeds the round-off of its own terms at the answer may be
    # inactive (a slack of 1 against an acceleration scale of 1e8): stated active it restricts the directions, which
    # can only wrongly prove uniqueness, and stated inactive it can only wrongly disprove it. Such rows (with a zero
    # multiplier: a positive one makes the row active by complementarity) decide a verdict only when both agree.
    if G.shape[0]:
        Gd = as_dense(G).reshape(-1, problem.n)
        slack = Gd @ a + g
        sure = ~zero_lam | (slack <= ACTIVE_RTOL * (np.abs(Gd) @ np.abs(a) + np.abs(g)))
        uncertain = active & ~sure
    else:
        uncertain = np.zeros(0, dtype=bool)
    if not uncertain.any():
        return _unique_acceleration_on(problem, a, active, zero_lam, thr)
    loose = _unique_acceleration_on(problem, a, active & sure, zero_lam, thr)
    if loose.holds is True:
        return loose
    tight = _unique_acceleration_on(problem, a, active, zero_lam, thr)
    if tight.holds is False:
        return tight
    return _undecided_acceleration(
        f"{int(uncertain.sum())} unilateral rows are active at the data's scale but not to the round-off of their own "
        "terms, and the verdict depends on them: the data do not decide uniqueness at this precision",
        {"active_tolerance": thr, "uncertain_rows": np.flatnonzero(uncertain).tolist()},
    )


def _unique_acceleration_on(
    problem: ContactProblem, a: np.ndarray, active: np.ndarray, zero_lam: np.ndarray, thr: np.ndarray
) -> Certificate:
    """:func:`unique_acceleration` with the unilateral rows ``active`` stated active (its body)."""
    fac = problem.mass_factor
    n = problem.n
    E, _ = problem.equalities
    G, _ = problem.inequalities
    s = np.ones(n) if fac.scaling is None else np.asarray(fac.scaling, dtype=float)
    Kt, _ = np.linalg.qr(np.asarray(fac.kernel, dtype=float) / s[:, None])  # ker M̃ = S⁻¹ ker M, orthonormal
    w = np.sort(np.abs(np.asarray(fac.eigenvalues, dtype=float)))
    eps_n = max(n, 1) * np.finfo(float).eps
    angle = KERNEL_ANGLE_MULTIPLE * eps_n * (w[-1] / w[-fac.rank] if fac.rank else 1.0)
    Gd = as_dense(G).reshape(-1, n)
    eq = np.vstack([problem.F[None, :], as_dense(E).reshape(-1, n), Gd[active & ~zero_lam]]) * s[None, :]
    ineq = Gd[active & zero_lam] * s[None, :]
    eq_keep, in_keep = ~_zero_on_kernel(eq, Kt, angle), ~_zero_on_kernel(ineq, Kt, angle)
    data = {
        "active_tolerance": thr,
        "kernel_dimension": int(Kt.shape[1]),
        "kernel_angle": angle,
        "rows_zero_on_kernel": int((~eq_keep).sum() + (~in_keep).sum()),
    }
    # the equality rows' common kernel on ker M̃: each restricted row in units of its own full norm, so that every
    # entry carries the same uncertainty ``angle``, and singular values below that uncertainty are zero
    k = Kt.shape[1]
    R_eq = (eq[eq_keep] @ Kt) / np.linalg.norm(eq[eq_keep], axis=1)[:, None]
    if R_eq.shape[0]:
        _, sv, vt = np.linalg.svd(R_eq, full_matrices=True)
        r = int(np.sum(sv > angle * np.sqrt(R_eq.shape[0])))
        Z = vt[r:].T.copy()
    else:
        Z = np.eye(k)
    data["equality_kernel_dimension"] = int(Z.shape[1])
    G_in = ineq[in_keep]
    if G_in.shape[0] and R_eq.shape[0]:
        # an inequality row in the span of the equality rows on ker M̃ vanishes on their common kernel Z and
        # restricts nothing there; kept, it would reach the LP normalized, its round-off read as a constraint. Its
        # part on Z, in units of its full norm, is known to ``angle`` plus the error of Z itself, which Wedin's
        # theorem bounds by ``angle`` over the smallest singular value kept of the equality rows
        sv_kept = float(sv[r - 1]) if r else float("inf")
        Gk = (G_in @ Kt) / np.linalg.norm(G_in, axis=1)[:, None]
        on_z = np.linalg.norm(Gk @ Z, axis=1) if Z.shape[1] else np.zeros(Gk.shape[0])
        resolved = angle * (1.0 + np.linalg.norm(Gk, axis=1) / sv_kept) * np.sqrt(max(Z.shape[1], 1))
        G_in = G_in[on_z > resolved]
        data["rows_zero_on_equality_kernel"] = int(in_keep.sum() - G_in.shape[0])
    # a line of directions: a v ≠ 0 on ker M̃ on which every kept row, equality or inequality, vanishes. Decided on
    # the stack of all of them in units of their full norms, with the same uncertainty ``angle`` on every entry as the
    # equality kernel above: a rank deficit there is a line, decided before any row is normalized on its own
    stack = np.vstack([eq[eq_keep], G_in])
    line = None
    if stack.shape[0]:
        R_all = (stack @ Kt) / np.linalg.norm(stack, axis=1)[:, None]
        _, sva, vta = np.linalg.svd(R_all, full_matrices=True)
        ra = int(np.sum(sva > angle * np.sqrt(R_all.shape[0])))
        line = vta[ra:][::-1].T if ra < k else None  # the most null direction first
    elif k:
        line = np.eye(k)
    try:
        if line is not None:  # the directions' cone contains the line Kt·line[:, 0] (at the kernel's accuracy)
            y = line[:, 0]
            t = ConeTest(False, 0.0, y / np.linalg.norm(y), "the cone contains a line (rank test on the kernel)")
        else:
            t = cone_is_trivial(eq[eq_keep] @ Kt, G_in @ Kt, k, kernel=Z)
    except UndecidedError as exc:
        return _undecided_acceleration(str(exc), data)
    witness = None
    if t.witness is not None:
        # the direction must keep every row it was decided on, each in units of its full norm at the kernel's
        # accuracy: E v = 0 and the rows with λ > 0 (equalities), G_0 v >= 0 (the other active rows)
        y = np.asarray(t.witness, dtype=float) / np.linalg.norm(t.witness)
        # (the rows it was decided on: those in the equalities' span were resolved above)
        rows_eq, rows_in = eq[eq_keep], G_in
        slack_eq = np.abs(rows_eq @ Kt @ y) / np.linalg.norm(rows_eq, axis=1) if rows_eq.shape[0] else np.zeros(0)
        slack_in = (rows_in @ Kt @ y) / np.linalg.norm(rows_in, axis=1) if rows_in.shape[0] else np.zeros(0)
        allowed = angle * np.sqrt(max(rows_eq.shape[0] + rows_in.shape[0], 1))
        worst = max(float(slack_eq.max(initial=0.0)), float(-slack_in.min(initial=0.0)))
        if worst > allowed:
            return _undecided_acceleration(
                f"the direction found breaks an active row by {worst:.1e} of its norm, beyond its own accuracy (the "
                f"kernel's, {allowed:.1e}): the data do not decide uniqueness at this precision",
                data,
            )
        witness = s * (Kt @ t.witness)
        witness = witness / np.abs(witness).max()
        refuted = _witness_refuted(problem, a, fac, s, witness, w[-fac.rank] if fac.rank else 1.0, eps_n)
        if refuted is not None:
            return _undecided_acceleration(refuted, {**data, "witness": witness})
    return Certificate(
        id="unique_acceleration",
        name="uniqueness of the acceleration (exact)",
        source="DESIGN.md §4.2 (LP + rank); singular Prop. 5(a)",
        holds=t.trivial,
        margin=t.margin,
        implies=(
            "the acceleration is unique"
            if t.trivial
            else "the acceleration is not unique: a* + t v is optimal for small t > 0 along the witness v"
        ),
        data={
            **data,
            "witness": witness,
            "detail": t.detail.replace("ker E", "the kernel directions"),
            **(
                {}
                if t.trivial or witness is None
                else {
                    "evidence": {
                        "verify": "v ≠ 0 with M v = 0, force · v = 0, E v = 0 (bilateral normals, sticking tangents), "
                        "normal_i · v = 0 on unilateral contacts with λ_i > 0 and normal_i · v >= 0 on the other "
                        "active ones: a + t v is also a solution for small t > 0",
                        "acceleration": a,
                        "witness": witness,
                    }
                }
            ),
        },
    )


def multiplier_rows(problem: ContactProblem):
    """(J_all, rt): the rows that carry multipliers: all normals, then the sticking tangents ``rt``
    (sparse when the problem is)."""
    rt = problem.tangent_rows(problem.sticking)
    if problem.sparse:
        return sp.vstack(
            [sp.csr_matrix(problem.J_n), sp.csr_matrix(problem.J_t[rt], shape=(rt.size, problem.n))], format="csr"
        ), rt
    if not rt.size:  # the normals alone (a copy, as the stack below is)
        return as_dense(problem.J_n).copy(), rt
    return np.vstack([as_dense(problem.J_n), as_dense(problem.J_t[rt])]), rt


@per_problem
def multiplier_row_rank(problem: ContactProblem) -> tuple[int, float]:
    """``(rank, σ_k)`` of the multiplier rows (:func:`multiplier_rows`) normalized to unit length, by
    :func:`gaussqp.linalg.dense.row_rank`: each row on its own scale, never relative to the largest row. Computed once
    per problem: C2, C5's independent-rows point (the rows of ``[E; G]`` are the same rows in another order) and the
    uniqueness of the answer's and of the cross-check's multipliers all ask it."""
    J, _ = multiplier_rows(problem)
    return row_rank(normalize_rows(J)) if J.shape[0] else (0, 0.0)


def multiplier_rows_independent(problem: ContactProblem) -> bool:
    """C2's condition: the multiplier rows (:func:`multiplier_rows`) are linearly independent. More rows than
    coordinates are dependent whatever their values, decided by the count (no rank computed); otherwise their rank
    (:func:`multiplier_row_rank`, each row on its own scale) equals their number. No rows: True (vacuously). The one
    test of C2, C5's independent-rows point, F1's small dense path and the uniqueness of the multipliers."""
    k = problem.m + problem.tangent_rows(problem.sticking).size
    return k <= problem.n and multiplier_row_rank(problem)[0] == k


def unique_multipliers(problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray) -> Certificate:
    """Exact: the multiplier set at a* is a singleton iff no feasible direction d ≠ 0 exists.

    Directions: ``J_allᵀ d = 0``, ``d_i = 0`` on inactive unilateral rows, ``d_i >= 0`` on
    active unilateral rows whose λ_i is zero (degenerate). Full row rank of ``J_all`` is the
    sufficient condition C2 (tutorial Prop. 3(i), 7(i)); more rows free in sign than coordinates decides the other
    way by a count (:func:`_surplus_witness`); otherwise the rank test and the LP of :func:`cone_is_trivial` are the
    exact test. The rows are F1's (normals along ``J_n``): the judge does not ask this of sliding or mode-free
    contacts, whose forces are not along their rows (:func:`gaussqp.certificates.judge._friction_decided`).
    """
    J, rt = multiplier_rows(problem)
    k = J.shape[0]
    if k == 0:
        return Certificate(
            id="unique_multipliers",
            name="uniqueness of the multipliers (exact)",
            source="DESIGN.md §4.2",
            holds=True,
            margin=float("inf"),
            implies="no multipliers",
        )
    if multiplier_rows_independent(problem):
        return Certificate(
            id="unique_multipliers",
            name="uniqueness of the multipliers (exact)",
            source="tutorial Prop. 3(i), 7(i) (rows independent)",
            holds=True,
            margin=multiplier_row_rank(problem)[1],
            data={"rows_independent": True},
            implies="the multipliers are unique (independent constraint rows)",
        )
    J = as_dense(J)
    active, zero_lam, thr, lthr = _active_sets(problem, a, lam_n)
    U = problem.unilateral
    counted = _surplus_witness(problem, J, active, zero_lam)
    if counted is not None:
        return Certificate(
            id="unique_multipliers",
            name="uniqueness of the multipliers (exact)",
            source="DESIGN.md §4.2 (a count: more free rows than coordinates)",
            holds=False,
            margin=0.0,
            implies="the multipliers are not unique: λ* + t d solves the problem for small t > 0 along the witness d",
            data={
                "active_tolerance": thr,
                "zero_multiplier_tolerance": lthr,
                "witness": counted,
                "detail": "more rows free in sign than coordinates: their combinations have a kernel (a count)",
                "evidence": _multiplier_witness(problem, rt, counted),
            },
        )
    eq_rows = [J.T]
    ineq = []
    for j, i in enumerate(U):
        e_i = np.zeros(k)
        e_i[i] = 1.0
        if not active[j]:
            eq_rows.append(e_i[None, :])
        elif zero_lam[j]:
            ineq.append(e_i)
    try:
        t = cone_is_trivial(np.vstack(eq_rows), np.array(ineq).reshape(-1, k), k)
    except UndecidedError as exc:
        return Certificate(
            id="unique_multipliers",
            name="uniqueness of the multipliers (exact)",
            source="DESIGN.md §4.2 (LP + rank on the multiplier polyhedron)",
            holds=None,
            margin=float("nan"),
            implies=f"undecided: {exc}",
            data={"active_tolerance": thr, "zero_multiplier_tolerance": lthr},
        )
    return Certificate(
        id="unique_multipliers",
        name="uniqueness of the multipliers (exact)",
        source="DESIGN.md §4.2 (LP + rank on the multiplier polyhedron)",
        holds=t.trivial,
        margin=t.margin,
        implies=(
            "the multipliers are unique although the constraint rows are dependent"
            if t.trivial
            else "the multipliers are not unique: λ* + t d solves the problem for small t > 0 along the witness d"
        ),
        data={
            "active_tolerance": thr,
            "zero_multiplier_tolerance": lthr,
            "witness": t.witness,
            "detail": t.detail,
            **({} if t.trivial or t.witness is None else {"evidence": _multiplier_witness(problem, rt, t.witness)}),
        },
    )


def _surplus_witness(
    problem: ContactProblem, J: np.ndarray, active: np.ndarray, zero_lam: np.ndarray
) -> np.ndarray | None:
    """A direction ``d ≠ 0`` of the multiplier set found by counting (DESIGN.md §4.2), or None. The rows free in sign
    at the answer are the bilateral normals, the sticking tangents and the active unilateral normals whose multiplier
    is not zero; when they outnumber the coordinates, ``Σ_i d_i row_i = 0`` has a solution supported on them (the
    kernel of ``J_freeᵀ`` has dimension at least ``k_free − n``, :func:`gaussqp.linalg.dense.surplus_null_vector`),
    which is 0 on the inactive rows and on the active rows of zero multiplier: a direction of the polyhedron, without
    the SVDs of the rank test (C2's of all the rows, the kernel of the equalities, its image by the inequalities),
    which reached the same verdict at their rank step in that case. Kept only when ``J_freeᵀ d = 0`` holds coordinate
    by coordinate to the round-off of that coordinate's column, ``ROUND_OFF ‖J_free[:, j]‖ ‖d‖``
    (:data:`~gaussqp.settings.ROUND_OFF`, the allowance the cone test gives its rows: the QR's error is normwise);
    otherwise None, and the LP and rank test of :func:`cone_is_trivial` decide."""
    k = J.shape[0]
    free = np.ones(k, dtype=bool)
    free[problem.unilateral] = active & ~zero_lam
    if int(free.sum()) <= problem.n:
        return None
    rows = J[free]
    q = surplus_null_vector(rows)
    if not np.all(np.abs(rows.T @ q) <= ROUND_OFF * np.linalg.norm(rows, axis=0) * np.linalg.norm(q)):  # NaN fails
        return None
    d = np.zeros(k)
    d[free] = q
    return d


def _multiplier_witness(problem: ContactProblem, rt: np.ndarray, d: np.ndarray) -> dict:
    """The evidence of non-unique multipliers: the witness ``d`` (ordered as :func:`multiplier_rows`) per contact."""
    d_n = np.asarray(d[: problem.m], dtype=float)
    d_t = np.zeros(problem.m * (problem.dimension - 1))
    d_t[rt] = d[problem.m :]
    return {
        "verify": "d ≠ 0 with Σ_i d_normal[i] normal_i + Σ_i Σ_k d_tangent[i][k] tangent_i,k = 0; d_normal[i] "
        "= 0 on unilateral contacts inactive at the answer, >= 0 on active ones whose multiplier is 0: "
        "the multipliers + t d are also a solution for small t > 0",
        "d_normal": d_n,
        "d_tangent": d_t.reshape(problem.m, problem.dimension - 1),
    }


def coulomb_cone_check(problem: ContactProblem, lam_n, lam_t, model=None) -> Certificate | None:
    """Do the returned multipliers lie in the Coulomb cones (sticking (14b)), or in the polygons of
    ``model`` (a :class:`gaussqp.friction.cones.ConeModel`) when the formulation used polygons?

    Each contact's slack ``μ_i |λ_n,i| - ‖λ_t,i‖`` is measured against the multipliers of the data's size at
    that contact, ``μ_i λ_data,n,i + max_k λ_data,t,k`` with ``λ_data = force / ‖(J S)_row‖∞``
    (:mod:`gaussqp.model.scales`, as the residuals and C8(22)), never against the multipliers being judged
    (``max(1, |λ|)`` let a garbage answer pass and judged a problem in small units absolutely). ``margin`` is
    the smallest slack in force units; ``data["relative_slack"]`` the smallest slack on that scale, the one
    decided. For a formulation that did not enforce
    the cones (sticking contacts as plain equalities) a violation does not refute sticking when the
    multipliers are not unique: the exact test is F4."""
    S = problem.sticking
    if not S.size:
        return None
    sc = data_scales(problem)
    d1 = problem.dimension - 1
    lam_dn = np.divide(sc.force, sc.normal_weight, out=np.zeros(problem.m), where=sc.normal_weight > 0)
    lam_dt = np.divide(
        sc.force, sc.tangent_weight, out=np.zeros_like(sc.tangent_weight), where=sc.tangent_weight > 0
    ).reshape(problem.m, d1)
    mu = np.asarray(problem.friction, dtype=float)[S]
    scale = mu * lam_dn[S] + lam_dt[S].max(axis=1, initial=0.0)
    lt = np.asarray(lam_t, dtype=float).reshape(problem.m, d1)[S]
    ln = np.abs(np.asarray(lam_n, dtype=float)[S])
    if model is None or model.kind == "disk" or problem.dimension == 2:
        gaps = mu * ln - np.sqrt(np.add.reduce(lt * lt, axis=1))
        what = "Coulomb disks"
    else:
        C, r = model.polygon(problem.dimension)
        gaps = r * mu * ln - (lt @ np.asarray(C, dtype=float).T).max(axis=1)
        what = f"{model.kind} polygons ({model.facets} facets)"
    rel = np.where(scale > 0, gaps / np.where(scale > 0, scale, 1.0), gaps)
    margin = float(gaps.min())
    ok = bool(rel.min() >= -CONE_CHECK_RTOL)
    enforced = model is not None
    return Certificate(
        id="coulomb_cones",
        name=f"returned multipliers in the {what}",
        source="sticking (14b)(60d)(65c,d); DESIGN.md §3.2",
        holds=ok,
        margin=margin,
        implies=(
            "every sticking contact force lies in its cone at the returned multipliers"
            if ok
            else (
                "the returned multipliers leave a cone"
                if enforced
                else "the returned multipliers leave a Coulomb disk; this route ignores the cones and the "
                "multipliers may not be unique, so this does not refute sticking: the exact test is F4"
            )
        ),
        data={"relative_slack": float(rel.min())},
    )


_EPS = float(np.finfo(float).eps)
_TINY = float(np.finfo(float).tiny)


@dataclass(frozen=True)
class _Step:
    """One Newton step on the equilibrated KKT system of one active set (see :func:`forward_error`)."""

    active: np.ndarray  # the unilateral rows taken as active (mask over the unilateral contacts)
    cond: float  # condition number of K̃ (inf: the step says nothing)
    row_rank: int | None  # rank of the active rows, computed when K̃ is numerically singular
    err_a: float  # the acceleration's error, relative to ‖ã‖∞ (floored by the free acceleration)
    err_l: float  # the multipliers' error, normwise at the data's force scale (a distance to the solution set)
    contact: np.ndarray  # (m,) each contact's force error relative to that contact's force (0 off the active set)
    admissible: bool  # the corrected point keeps the signs of this active set (it may be the exact solution's)
    da: float = 0.0  # bound on ‖ã − ã*‖∞ (the step plus its round-off), equilibrated units
    zero_kkt: bool = False  # K̃ = 0: the errors are 0 (the residual vanishes) or inf


def _newton_step(
    problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray, active: np.ndarray, weak_rtol: float
) -> _Step:
    """The Newton step of :func:`forward_error` on the active set ``active`` and the errors it bounds (after the step,
    :func:`_step_errors`, compiled where the judge's checks are: :mod:`gaussqp.certificates.compiled`)."""
    sc = data_scales(problem)
    rt = problem.tangent_rows(problem.sticking)
    fac = equilibrated_kkt_svd(problem, active)  # the polish's SVD when it guessed the same active set
    kkt, sv = fac.kkt, fac.sv
    lam = np.concatenate([lam_n[problem.bilateral], np.asarray(lam_t).ravel()[rt], lam_n[problem.unilateral][active]])
    d1 = max(problem.dimension - 1, 1)
    owner = np.concatenate([problem.bilateral, rt // d1, problem.unilateral[active]]).astype(np.int64)
    n, k, d = problem.n, kkt.J.shape[0], kkt.d
    z = np.concatenate([a, lam])
    a_t, lam_t_ = a / d[:n], lam / d[n:]
    rhs = np.concatenate([-problem.F, -kkt.c])
    res = d * (kkt.K @ z - rhs)
    rank = fac.rank(max(n + k, 1) * _EPS * KKT_RANK_MULTIPLE)
    dz = fac.solve(res, rank)
    cond = float(sv[0] / sv[rank - 1]) if rank else float("inf")
    row_rank_ = None
    if rank < n + k and k:
        # numerically singular K̃: legitimate only where the (normalized, equilibrated) active rows are
        # themselves dependent at the library's rank rule (redundant contacts: the dropped directions move
        # multipliers only). Rows independent at that rule (σ_min/σ_max ~ 1e-7, say) whose KKT matrix is
        # singular to round-off make the exact answer ill-determined: the truncated step says nothing then
        row_rank_ = matrix_rank(d[n:, None] * kkt.J * d[None, :n])  # the equilibrated active rows
        if problem.mass_factor.definite and n + k - rank > k - row_rank_:
            cond = float("inf")
    if rank == 0:
        # K̃ = 0 (M = 0 and no active row): the KKT equations read 0 = res. With res = 0 every z solves them and the
        # returned one is exact (whether it is unique is the uniqueness certificate's question), else none does
        err = 0.0 if not np.any(res) else float("inf")
        contact = np.zeros(problem.m)
        contact[owner] = err
        return _Step(active, cond, row_rank_, err, err, contact, True, zero_kkt=True, da=err)
    Kp = fac.inverse_rows(n, rank)
    # the kernel takes float64 (an answer given in long double keeps the NumPy code, in its precision)
    eligible = compiled.applies(problem) and a_t.dtype == np.float64 and lam_t_.dtype == np.float64
    fast = compiled.kernels_when_worth() if eligible else None
    if fast is not None:
        arrays = compiled.dense_arrays(problem)
        err_a, err_l, contact, admissible, amag = fast.newton_step_errors(
            plain(a), plain(lam_n), plain(dz), *_row_layout(Kp), bool(np.isfinite(cond)), plain(a_t), plain(lam_t_),
            plain(d), plain(kkt.K), d * rhs, cond, owner, arrays.unilateral, np.array(active, dtype=np.bool_),
            arrays.normal_weight, arrays.force, arrays.accel, arrays.free_accel, arrays.G, arrays.g,
            arrays.inequality_row, float(weak_rtol), max(ACTIVE_RTOL * sc.force, _TINY), _TINY, _EPS,
        )  # fmt: skip
        return _Step(active, cond, row_rank_, err_a, err_l, contact, bool(admissible), da=err_a * amag)
    t0 = time.perf_counter()
    try:
        return _step_errors(problem, a, lam_n, active, weak_rtol, fac, owner, dz, Kp, a_t, lam_t_, rhs, cond, row_rank_)
    finally:
        if eligible:
            compiled.spent_in_numpy(time.perf_counter() - t0)


def _row_layout(Kp: np.ndarray) -> tuple[np.ndarray, bool]:
    """``(rows, False)``, or ``(their transpose, True)`` when ``np.abs(Kp)`` is column-ordered (a row slice of LAPACK's
    inverse): the layout NumPy's product ``|K̃⁺| r`` runs on, which the compiled kernel follows to give its bits."""
    if (
        Kp.ndim == 2
        and Kp.shape[0] > 1
        and Kp.shape[1] > 1
        and not Kp.flags.c_contiguous
        and Kp.strides[0] < Kp.strides[1]
    ):
        return np.ascontiguousarray(Kp.T), True
    return plain(Kp), False


def _step_errors(
    problem: ContactProblem,
    a: np.ndarray,
    lam_n: np.ndarray,
    active: np.ndarray,
    weak_rtol: float,
    fac,
    owner: np.ndarray,
    dz: np.ndarray,
    Kp: np.ndarray,
    a_t: np.ndarray,
    lam_t_: np.ndarray,
    rhs: np.ndarray,
    cond: float,
    row_rank_: int | None,
) -> _Step:
    """The errors that the step ``δz`` of :func:`_newton_step` bounds, in NumPy (the reference of
    :func:`gaussqp.model.compiled_kernels.newton_step_errors`); ``Kp`` are the rows of ``K̃⁺`` of the
    multipliers, ``rhs`` the right-hand side ``(−F, −c)``."""
    sc = data_scales(problem)
    kkt = fac.kkt
    n, k, d = problem.n, kkt.J.shape[0], kkt.d
    zmag = max(float(np.abs(a_t).max(initial=0.0)), float(np.abs(lam_t_).max(initial=0.0)) / sc.force * sc.accel)
    roundoff = (n + k) * _EPS * cond * zmag
    # relative to the answer's own size (an error bound, not a residual: a garbage answer has failed the
    # residual check already), floored by the free acceleration so that an answer at rest is judged too;
    # not by the drifts' largest acceleration, which would hide the error of every smaller component
    amag = max(float(np.abs(a_t).max(initial=0.0)), sc.free_accel)
    if amag == 0.0:
        # at rest with no free acceleration (M⁺F = 0: the forces act on massless coordinates, a user's trial): the
        # data's acceleration unit, else the error of an exact zero was relative to the smallest float (3e292)
        amag = sc.accel
    amag = max(amag, _TINY)
    err_a = (float(np.abs(dz[:n]).max(initial=0.0)) + roundoff) / amag
    err_l = (float(np.abs(dz[n:]).max(initial=0.0)) * sc.accel / sc.force + roundoff) / max(sc.accel, zmag)
    # each contact's force error relative to that contact's force, in K̃'s own units where ã and
    # λ̃ = λ ‖(J S)_i‖∞ are one vector (rows of one contact comparable): the step plus the step's own round-off
    # (n + k) ε cond(K̃) ‖z̃‖∞, against the larger of the force before and after the step and of ACTIVE_RTOL times
    # the data's force (λ̂ = λ̃ / force below ACTIVE_RTOL is a zero multiplier to the library, DESIGN.md §6: an
    # exactly unloaded contact is judged at that size, not against a zero)
    roundoff_z = (
        (n + k) * _EPS * cond * max(float(np.abs(a_t).max(initial=0.0)), float(np.abs(lam_t_).max(initial=0.0)))
    )
    floor = max(ACTIVE_RTOL * sc.force, _TINY)
    # and component by component (Skeel): the residual's own round-off (n + k) ε (|K̃||z̃| + |r̃|) through |K̃⁺|, the
    # smaller of the two bounds for each multiplier (a zero force beside large ones is resolved to its own terms)
    z_t = np.concatenate([a_t, lam_t_])
    r_t = d * rhs
    res_round = (n + k) * _EPS * (np.abs(d[:, None] * kkt.K * d[None, :]) @ np.abs(z_t) + np.abs(r_t))
    skeel = np.abs(Kp) @ res_round if np.isfinite(cond) else np.full(k, np.inf)
    err_row = np.abs(dz[n:]) + np.minimum(roundoff_z, skeel)
    size_row = np.maximum(np.abs(lam_t_), np.abs(lam_t_ - dz[n:]))
    num, den = np.zeros(problem.m), np.full(problem.m, floor)
    np.maximum.at(num, owner, err_row)
    np.maximum.at(den, owner, size_row)
    contact = np.zeros(problem.m)
    contact[owner] = np.where(np.isfinite(num[owner]), num[owner] / den[owner], np.inf)
    # a unilateral row off this active set has the exact multiplier 0 on it: its error is its whole λ̃
    U = problem.unilateral
    off = U[~active]
    lam_off = np.abs(lam_n[off]) * sc.normal_weight[off]
    contact[off] = np.maximum(contact[off], lam_off / np.maximum(lam_off, floor))
    lam_hat, dlam_hat = lam_t_ / sc.force, dz[n:] / sc.force
    # the corrected point z - δz on this active set: its multipliers of active unilateral rows and its slacks of the
    # other unilateral rows keep their signs within ``weak_rtol`` of the data's scale (else the exact solution is
    # not on this active set)
    G, g = problem.inequalities
    a_new = a - dz[:n] * d[:n]
    ghat = (np.asarray(G @ a_new).ravel() + g) / np.where(sc.inequality_row > 0, sc.inequality_row, 1.0)
    lam_u = (lam_hat - dlam_hat)[k - int(active.sum()) :]
    admissible = bool(np.all(lam_u >= -weak_rtol) and np.all(ghat[~active] >= -weak_rtol)) if len(U) else True
    # Python floats, as the compiled kernel returns them (the certificate's numbers of one type either way)
    return _Step(active, cond, row_rank_, float(err_a), float(err_l), contact, admissible, da=float(err_a * amag))


def _weakly_active(
    problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray, weak_rtol: float, da: float
) -> np.ndarray:
    """The unilateral rows whose activity the answer does not decide: multiplier within ``weak_rtol`` of zero and
    slack within ``weak_rtol`` plus what the acceleration's error bound ``da`` (‖ã − ã*‖∞, equilibrated) can move it,
    each on its row's data scale (:mod:`gaussqp.model.scales`)."""
    sc = data_scales(problem)
    G, g = problem.inequalities
    U = problem.unilateral
    if not len(U):
        return np.zeros(0, dtype=bool)
    row = np.where(sc.inequality_row > 0, sc.inequality_row, 1.0)
    ghat = (np.asarray(G @ a).ravel() + g) / row
    reach = np.abs(as_dense(G)) @ sc.coordinate * da / row if np.isfinite(da) else np.full(len(U), np.inf)
    lam_hat = lam_n[U] * sc.normal_weight[U] / sc.force
    return (ghat <= weak_rtol + reach) & (lam_hat <= weak_rtol)


class _Steps(NamedTuple):
    """What the Newton steps of :func:`forward_error` found: the guessed active set, the weakly active rows, and the
    worst errors over the steps counted (the guess's, and every other set's whose corrected point keeps its signs)."""

    guess: np.ndarray
    weak: np.ndarray
    cond: float
    err_a: float
    err_l: float
    contact: np.ndarray
    err_f: float
    counted: int
    tried: int
    enumerated: bool
    row_rank: int | None
    zero_kkt: bool  # one step counted, on a zero KKT matrix (its errors are 0 or inf)


def _numpy_steps(problem: ContactProblem, a, lam_n, lam_t, weak_rtol: float) -> _Steps:
    """The steps of :func:`forward_error` in NumPy (each by :func:`_newton_step`): the reference of
    :func:`gaussqp.model.compiled_kernels.forward_error`, and the only code where a KKT matrix is singular at the rank
    rule (its truncated pseudo-inverse, the rank of its rows)."""
    guess = guess_active(problem, a, lam_n)
    first = _newton_step(problem, a, lam_n, lam_t, guess, weak_rtol)
    weak = _weakly_active(problem, a, lam_n, weak_rtol, first.da)
    sets, steps = [guess], [first]
    idx = np.flatnonzero(weak)
    enumerated = len(idx) <= FORWARD_ERROR_WEAK_ROWS_MAX
    combos = (
        itertools.product((False, True), repeat=len(idx)) if enumerated else [(True,) * len(idx), (False,) * len(idx)]
    )
    for on in combos:
        alt = guess.copy()
        alt[idx] = on
        if not any(np.array_equal(alt, s) for s in sets):
            sets.append(alt)
            steps.append(_newton_step(problem, a, lam_n, lam_t, alt, weak_rtol))
    counted = [steps[0]] + [s for s in steps[1:] if s.admissible]
    contact = np.max([s.contact for s in counted], axis=0) if problem.m else np.zeros(0)
    return _Steps(
        guess=guess,
        weak=weak,
        cond=max(s.cond for s in counted),
        err_a=max(s.err_a for s in counted),
        err_l=max(s.err_l for s in counted),
        contact=contact,
        err_f=float(contact.max(initial=0.0)) if enumerated else float("inf"),
        counted=len(counted),
        tried=len(steps),
        enumerated=enumerated,
        row_rank=steps[0].row_rank,
        zero_kkt=len(counted) == 1 and counted[0].zero_kkt,
    )


def _compiled_steps(problem: ContactProblem, a, lam_n, lam_t, weak_rtol: float) -> _Steps | None:
    """:func:`_numpy_steps` by one compiled call (:func:`gaussqp.model.compiled_kernels.forward_error`: the same
    operations in the same order, so the same numbers bit for bit) where the compiled checks apply and are loaded, the
    answer is given as they take it, no active set of the problem is factored already (the polish's factors, which the
    NumPy steps read: a set is factored once per solve) and every step's equilibrated KKT matrix has full rank; else
    None."""
    if not compiled.applies(problem) or factored_any(problem):
        return None
    fast = compiled.kernels_when_worth()
    arrays = compiled.dense_arrays(problem) if fast is not None else None
    answer = compiled.answer_arrays(arrays, a, lam_n, lam_t) if arrays is not None else None
    if answer is None:
        return None
    a_, lam_n_, lam_t_ = answer
    ok, guess, weak, cond, err_a, err_l, contact, err_f, counted, tried, enumerated = fast.forward_error(
        arrays.M, arrays.F, arrays.E, arrays.e, arrays.G, arrays.g, arrays.unilateral, arrays.bilateral,
        arrays.sticking_rows, max(problem.dimension - 1, 1), arrays.coordinate, arrays.equality_weight,
        arrays.inequality_weight, arrays.normal_weight, arrays.inequality_row, arrays.force, arrays.accel,
        arrays.free_accel, a_, lam_n_, lam_t_, float(weak_rtol), max(ACTIVE_RTOL * arrays.force, _TINY), _TINY, _EPS,
        float(KKT_RANK_MULTIPLE), problem.mass_factor.rank == problem.n, FORWARD_ERROR_WEAK_ROWS_MAX,
    )  # fmt: skip
    if not ok:
        return None
    return _Steps(guess, weak, cond, err_a, err_l, contact, err_f, counted, tried, enumerated, None, False)


def forward_error(
    problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray, weak_rtol: float = ACTIVE_RTOL
) -> Certificate | None:
    """A posteriori bound on the distance from (a, λ) to the exact solution (one Newton step on the KKT system).

    Small residuals prove only that (a, λ) solves a *nearby* problem; on an ill-conditioned one
    (rows nearly dependent in the metric of M, cond(M) ~ 1e12) the exact answer can be far. With
    the active rows A (bilateral, sticking tangents, unilateral rows with ``λ̂_i >= ĝ_i``), the KKT
    matrix is equilibrated (coordinates by ``S = diag(M)^(-1/2)``, rows by ``‖(J S)_i‖∞``, see
    :mod:`gaussqp.model.scales`) and the correction ``δz = K̃⁺ res`` is computed with its singular values:
    the estimate is ``‖δz‖∞ + n ε cond(K̃) ‖z̃‖∞`` (the step plus the round-off of the step itself).

    Reported separately: the acceleration's error relative to ‖ã‖∞ (``acceleration``);
    each contact's force error relative to that contact's own force (``contact_force_errors``, in
    ``λ̂ = λ‖(J S)_i‖∞/force`` units; a force below ``ACTIVE_RTOL`` in λ̂ counts at that size; the largest is
    ``forces``); and the multipliers' normwise error at the data's force scale (``multipliers``, the distance to the
    multiplier set, which is what is defined when the multipliers are not unique).

    The step is exact only on the exact solution's active set. Unilateral rows whose slack and multiplier are both
    within ``weak_rtol`` of zero (``weakly_active``) may be active or not there, so the step is also taken with all
    of them active and with none of them, and every one of these active sets whose corrected point keeps its signs
    (the exact solution's active set among them when the step converges) counts: the errors reported are the
    worst. A wrong active set cannot then certify λ (a loaded contact read as unloaded). For dense problems up to
    :data:`FORWARD_ERROR_MAX`; None above (or without rows), where the residuals alone judge.
    """
    if problem.sparse or problem.n + problem.m * problem.dimension > FORWARD_ERROR_MAX:
        return None
    out = _compiled_steps(problem, a, lam_n, lam_t, weak_rtol)
    if out is None:
        out = _numpy_steps(problem, a, lam_n, lam_t, weak_rtol)
    guess, weak, cond, err_a, err_l, contact = out.guess, out.weak, out.cond, out.err_a, out.err_l, out.contact
    err_f = out.err_f
    err = max(err_a, err_f)
    k = len(problem.bilateral) + len(problem.tangent_rows(problem.sticking)) + int(guess.sum())
    implies = (
        f"the returned a is within about {err_a:.1e} (relative) of the exact acceleration and each contact's "
        f"force within {err_f:.1e} of its exact force (relative to that force)"
    )
    if out.zero_kkt:
        implies = (
            "the KKT matrix is zero and the residual vanishes: the returned (a, λ) solves the equations exactly"
            if err == 0.0
            else "the KKT matrix is zero and the residual is not: no (a, λ) solves it"
        )
    return Certificate(
        id="forward_error",
        name="forward-error estimate (equilibrated KKT of the active rows)",
        source="Newton/refinement estimate with the condition number of the equilibrated KKT matrix",
        holds=None,
        margin=err,
        implies=implies,
        data={
            "condition": cond,
            "acceleration": err_a,
            "forces": err_f,
            "multipliers": err_l,
            "contact_force_errors": contact,
            "active_rows": int(k),
            "row_rank": out.row_rank,
            "weakly_active": problem.unilateral[weak].tolist() if len(weak) else [],
            "active_sets_counted": out.counted,
            "active_sets_tried": out.tried,
            "weak_rows_enumerated": out.enumerated,
        },
    )

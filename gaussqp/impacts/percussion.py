"""The frictionless impact problem of inertial §6: the percussion ``p_u`` by the QP (80), the LCP (81), the Dorn
duals (82)–(83), and the post-impact velocity by Moreau's rule (84)(a).

With the bilateral rows eliminated (inertial (72)–(73)) the impact law (76) ``u⁺ = −E u⁻`` reads (77):
``A_c p_u = −w``, ``p_u >= 0``, ``E (I + E)⁻¹ A_c p_u >= 0``, where ``A_c`` is the constrained Delassus matrix
and ``w = (I + E) u⁻`` (the code takes ``w = w_c`` of :func:`gaussqp.mechanics.delassus.constrained_delassus` on
the mapped problem, which is ``(I + E) u⁻`` whenever the bilateral rows hold before the impact,
``J_b v⁻ = 0``, as the paper assumes; otherwise it also carries the bilateral correction of ``v⁻``).

- (80) ``min ½‖A_c p + w‖²`` s.t. ``p >= 0``, ``K p >= 0`` with ``K = E (I + E)⁻¹ A_c``
  (:func:`percussion_qp`);
- (81) its KKT system, the LCP ``0 <= (p, y) ⟂ [[A_c², −Kᵀ], [K, 0]] (p, y) + (A_c w, 0) >= 0``, solved by our
  Lemke (:func:`percussion_lcp`);
- (82) Dorn's dual of (80): ``min ½ pᵀA_c²p`` s.t. ``A_c (A_c p + w) = μ + Kᵀν``, ``μ, ν >= 0``
  (:func:`percussion_dual`). The printed (82) has one multiplier ``w >= 0`` for both constraint sets
  (``(I + A_c(I + E)⁻ᵀEᵀ) w``); Dorn's theorem gives one per set, which is what is solved here (the two agree
  when ``E = 0``);
- (83) the same in ``u⁺`` with ``u⁺ − u⁻ = A_c p``: ``min ½‖u⁺ − u⁻‖²`` s.t. ``A_c (u⁺ + E u⁻) = μ + Kᵀν``
  (:func:`velocity_dual`), ``u⁺ − u⁻`` kept in the range of ``A_c`` when ``A_c`` is singular;
- (84)(a) Moreau's rule ``min ½ (v⁺ − v⁻)ᵀM(v⁺ − v⁻)`` s.t. ``n_i v⁺ + (E u⁻)_i >= 0``, bilateral ``n v⁺ = 0``:
  F1 (:mod:`gaussqp.formulations.gauss_qp`) on :meth:`~gaussqp.model.impact.ImpactProblem.to_contact_problem`
  (:func:`moreau_rule`); with ``E = 0`` it is the paper's (84)(a), the kinetic-metric projection of ``v⁻``
  onto the tangent cone.

(80)–(83) are stated at an impact (``h = 0``), for frictionless contacts and M ≻ 0 (``A_c`` needs ``M⁻¹``);
:func:`moreau_rule` takes any frictionless ImpactProblem (a time step too, singular M too). The four
programs agree with Moreau's rule exactly when (77) is solvable (its solutions satisfy ``u⁺ + E u⁻ = 0``, so
they solve the complementarity (84)(b)); :mod:`gaussqp.impacts.certificates` decides that on the data.

Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy and ``scipy.optimize`` are imported inside the
functions that use them, not when this module is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..backends import solve_program
from ..errors import NotApplicableError
from ..mechanics.delassus import constrained_delassus
from ..linalg.dense import as_dense, null_space
from ..linalg.lemke import lemke_or_failed
from ..model.impact import ImpactProblem
from ..settings import ACTIVE_RTOL, IMPACT_RTOL, ROUND_OFF, SCALE_FLOOR, get_tolerance
from ..formulations.gauss_qp import GaussQP


@dataclass
class ImpactAnswer:
    """The answer of one route to the impact problem.

    Attributes
    ----------
    method
        "qp80", "lcp81", "dual82", "dual83" or "moreau84"
    status
        "solved" (the route's own check passed), "infeasible", "failed" or "inaccurate"
    percussion
        (m,) normal percussions in contact order (bilateral ones from (72)), or None
    velocity
        (n,) post-impact velocity ``v⁺``, or None
    objective
        the program's optimal value (NaN for the LCP)
    message
        what went wrong, if anything
    extras
        the route's raw output (Lemke's report, the backend's, F1's :class:`~gaussqp.results.Solution`)
    """

    method: str
    status: str
    percussion: np.ndarray | None
    velocity: np.ndarray | None
    objective: float = float("nan")
    message: str = ""
    extras: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ImpactMatrices:
    """The §6 data of an impact: the constrained Delassus matrix ``A_c``, ``w``, ``K = E(I + E)⁻¹A_c``, the
    unilateral restitution block ``E_u``, ``u⁻`` and ``u_f = w − E_u u⁻`` on the unilateral rows, and what is
    needed to map ``p_u`` back to ``v⁺`` (:func:`velocity_from_percussion`)."""

    A_c: np.ndarray
    w: np.ndarray
    K: np.ndarray
    E_u: np.ndarray
    u_minus: np.ndarray
    u_free: np.ndarray
    unilateral: np.ndarray
    bilateral: np.ndarray
    a_free: np.ndarray
    Mc_inv: np.ndarray
    Minv: np.ndarray
    J_u: np.ndarray
    J_b: np.ndarray


def check_section6(problem: ImpactProblem) -> None:
    """Raise :class:`~gaussqp.errors.NotApplicableError` unless (80)–(83) apply: an impact (``h = 0``), frictionless
    contacts, ``M ≻ 0``, ``I + E`` invertible."""
    if not isinstance(problem, ImpactProblem):
        raise NotApplicableError(f"expected a gaussqp.model.impact.ImpactProblem, got {type(problem).__name__}")
    if problem.h != 0:
        raise NotApplicableError(
            f"(80)-(83) are posed at an impact (h = 0), not over a step (h = {problem.h:g}): "
            "use moreau_rule or gaussqp.solve_impact"
        )
    if np.any(problem.rows.modes != "frictionless"):
        raise NotApplicableError(
            "(80)-(83) are frictionless (inertial §6): give frictionless contacts, or use "
            "gaussqp.solve_impact for given-mode friction"
        )
    if not problem.rows.mass_factor.definite:
        raise NotApplicableError("(80)-(83) need M ≻ 0 (A_c uses M⁻¹): use moreau_rule (F1) for a singular M")
    u = problem.rows.unilateral
    Eu = problem.restitution[np.ix_(u, u)]
    if u.size and np.linalg.matrix_rank(np.eye(u.size) + Eu) < u.size:
        raise NotApplicableError("I + E is singular: (77)'s third condition E(I + E)⁻¹A_c p >= 0 is undefined")


def impact_matrices(problem: ImpactProblem) -> ImpactMatrices:
    """:class:`ImpactMatrices` of ``problem`` (after :func:`check_section6`)."""
    check_section6(problem)
    cpb = problem.to_contact_problem()
    cd = constrained_delassus(cpb)
    u, b = cpb.unilateral, cpb.bilateral
    Eu = problem.restitution[np.ix_(u, u)]
    um = problem.normal_velocity_before[u]
    K = Eu @ np.linalg.solve(np.eye(u.size) + Eu, cd.A_c) if u.size else np.zeros((0, 0))
    return ImpactMatrices(
        A_c=cd.A_c,
        w=cd.w_c,
        K=K,
        E_u=Eu,
        u_minus=um,
        u_free=cd.w_c - Eu @ um,
        unilateral=u,
        bilateral=b,
        a_free=cd.a_b,
        Mc_inv=cd.Mc_inv,
        Minv=cd.Minv,
        J_u=as_dense(cd.J_u),
        J_b=as_dense(cd.J_b),
    )


def velocity_from_percussion(
    problem: ImpactProblem, mats: ImpactMatrices, p_u: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(v⁺, P)``: ``v⁺ = v_b + M_c⁻¹ J_uᵀ p_u`` (inertial (73)) and the percussions of every contact, the
    bilateral ones from the dynamics (inertial (72), by least squares on ``J_bᵀ p_b = M v⁺ + F' − J_uᵀ p_u``)."""
    v = mats.a_free + mats.Mc_inv @ (mats.J_u.T @ p_u)
    P = np.zeros(problem.m)
    P[mats.unilateral] = p_u
    if mats.bilateral.size:
        cpb = problem.to_contact_problem()
        r = np.asarray(cpb.M @ v, dtype=float).ravel() + cpb.F - mats.J_u.T @ p_u
        P[mats.bilateral] = np.linalg.lstsq(mats.J_b.T, r, rcond=None)[0]
    return v, P


def _nonnegative_preimage(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A ``p >= 0`` with ``A p`` closest to ``y`` (NNLS): the percussion behind a dual route's ``A_c p``."""
    from scipy.optimize import nnls

    if A.shape[0] == 0:
        return np.zeros(0)
    return nnls(A, y)[0]


def polish(mats: ImpactMatrices, p_hat: np.ndarray) -> tuple[np.ndarray, bool]:
    """Active-set polish of an approximate percussion: on the support ``S`` of ``p_hat`` (entries above
    ``ACTIVE_RTOL`` of the largest), the stationarity of (80) without the ``K p >= 0`` rows,
    ``A_Sᵀ(A_S p_S + w) = 0``, solved by least squares. Kept only when ``p_S >= 0``, ``K p >= 0`` (to
    ``IMPACT_RTOL``) and the objective of (80) does not grow; a conic solver reaches the zero of a squared
    objective only to about the square root of its tolerance, which this restores to round-off."""
    k = p_hat.size
    if k == 0:
        return p_hat, False
    big = float(np.abs(p_hat).max())
    S = np.flatnonzero(p_hat > ACTIVE_RTOL * max(big, SCALE_FLOOR))
    p = np.zeros(k)
    if S.size:
        p[S] = np.linalg.lstsq(mats.A_c[:, S], -mats.w, rcond=None)[0]
    scale = max(big, float(np.abs(p).max()), SCALE_FLOOR)
    kp = mats.K @ p
    kscale = max(float(np.abs(mats.K).max()) * scale, SCALE_FLOOR)

    def value(x):
        return 0.5 * float(np.sum((mats.A_c @ x + mats.w) ** 2))

    ok = (
        np.all(p >= -IMPACT_RTOL * scale)
        and np.all(kp >= -IMPACT_RTOL * kscale)
        and value(p) <= value(p_hat) + ROUND_OFF * max(float(mats.w @ mats.w), SCALE_FLOOR)
    )
    return (np.maximum(p, 0.0), True) if ok else (p_hat, False)


def _answer(problem, mats, method, status, p_u, objective, extras, message=""):
    if p_u is None:
        return ImpactAnswer(method, status, None, None, objective, message, extras)
    if method != "lcp81":
        p_u, extras["polished"] = polish(mats, np.asarray(p_u, dtype=float))
    v, P = velocity_from_percussion(problem, mats, np.asarray(p_u, dtype=float))
    return ImpactAnswer(method, status, P, v, objective, message, extras)


def percussion_qp(problem: ImpactProblem, *, solver: str | None = None, tolerance=None) -> ImpactAnswer:
    """Inertial (80): ``min ½‖A_c p + w‖²`` s.t. ``p >= 0``, ``E(I + E)⁻¹A_c p >= 0`` (cvxpy, through
    :func:`gaussqp.backends.solve_program`). Returns :class:`ImpactAnswer` (``objective`` is the minimum: 0
    exactly when (77) is solvable)."""
    import cvxpy as cp

    mats = impact_matrices(problem)
    k = mats.unilateral.size
    if k == 0:
        return _answer(problem, mats, "qp80", "solved", np.zeros(0), 0.0, {})
    p = cp.Variable(k)
    cons = [p >= 0]
    if np.any(mats.K != 0):
        cons.append(mats.K @ p >= 0)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(mats.A_c @ p + mats.w)), cons)
    backend, status, info = solve_program(prob, solver, get_tolerance(tolerance), needs="qp")
    if p.value is None:
        return _answer(
            problem,
            mats,
            "qp80",
            "failed" if status == "solved" else status,
            None,
            float("nan"),
            {"backend": backend.name, **info},
            "the backend returned no point",
        )
    pv = np.maximum(np.asarray(p.value, dtype=float), 0.0)
    return _answer(problem, mats, "qp80", status, pv, float(prob.value), {"backend": backend.name, **info})


def percussion_lcp(problem: ImpactProblem) -> ImpactAnswer:
    """Inertial (81): the KKT system of (80) as the LCP
    ``0 <= (p, y) ⟂ [[A_c², −Kᵀ], [K, 0]] (p, y) + (A_c w, 0) >= 0``, solved by
    :func:`gaussqp.linalg.lemke.lemke` (the matrix is positive semidefinite plus skew: copositive plus)."""
    mats = impact_matrices(problem)
    k = mats.unilateral.size
    if k == 0:
        return _answer(problem, mats, "lcp81", "solved", np.zeros(0), float("nan"), {})
    A, K = mats.A_c, mats.K
    Mlcp = np.block([[A @ A, -K.T], [K, np.zeros((k, k))]])
    q = np.concatenate([A @ mats.w, np.zeros(k)])
    res = lemke_or_failed(Mlcp, q)
    extras = {"lemke_status": res.status, "iterations": res.iterations, "lemke_message": res.message}
    if not res.success:
        status = "infeasible" if res.status == "ray" else "failed"
        return _answer(problem, mats, "lcp81", status, None, float("nan"), extras, res.message)
    return _answer(problem, mats, "lcp81", "solved", res.z[:k], float("nan"), extras)


def percussion_dual(problem: ImpactProblem, *, solver: str | None = None, tolerance=None) -> ImpactAnswer:
    """Inertial (82), Dorn's dual of (80): ``min ½ pᵀA_c²p`` s.t. ``A_c(A_c p + w) = μ + Kᵀν``, ``μ, ν >= 0``
    (one multiplier per constraint set; see the module docstring). ``A_c p`` is unique; the percussion
    returned is a ``p >= 0`` with that ``A_c p`` (NNLS)."""
    import cvxpy as cp

    mats = impact_matrices(problem)
    k = mats.unilateral.size
    if k == 0:
        return _answer(problem, mats, "dual82", "solved", np.zeros(0), 0.0, {})
    A, K = mats.A_c, mats.K
    p, mu, nu = cp.Variable(k), cp.Variable(k), cp.Variable(k)
    prob = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(A @ p)), [A @ (A @ p) + A @ mats.w == mu + K.T @ nu, mu >= 0, nu >= 0]
    )
    backend, status, info = solve_program(prob, solver, get_tolerance(tolerance), needs="qp")
    if p.value is None:
        return _answer(
            problem,
            mats,
            "dual82",
            "failed" if status == "solved" else status,
            None,
            float("nan"),
            {"backend": backend.name, **info},
            "the backend returned no point",
        )
    Ap = A @ np.asarray(p.value, dtype=float)
    return _answer(
        problem,
        mats,
        "dual82",
        status,
        _nonnegative_preimage(A, Ap),
        float(prob.value),
        {"backend": backend.name, "A_c_p": Ap, **info},
    )


def velocity_dual(problem: ImpactProblem, *, solver: str | None = None, tolerance=None) -> ImpactAnswer:
    """Inertial (83): (82) in the post-impact normal velocity, ``u⁺ − u_f = A_c p``:
    ``min ½‖u⁺ − u_f‖²`` s.t. ``A_c(u⁺ − u_f + w) = μ + Kᵀν``, ``μ, ν >= 0`` and ``u⁺ − u_f`` in the range of
    ``A_c`` (``u_f = u⁻`` at an impact with ``J_b v⁻ = 0``; ``u_f + w − u_f = u⁺ + E u⁻`` as printed). Strictly
    convex in ``u⁺``; the percussion is a ``p >= 0`` with ``A_c p = u⁺ − u_f`` (NNLS)."""
    import cvxpy as cp

    mats = impact_matrices(problem)
    k = mats.unilateral.size
    if k == 0:
        return _answer(problem, mats, "dual83", "solved", np.zeros(0), 0.0, {})
    A, K = mats.A_c, mats.K
    up, mu, nu = cp.Variable(k), cp.Variable(k), cp.Variable(k)
    cons = [A @ (up - mats.u_free + mats.w) == mu + K.T @ nu, mu >= 0, nu >= 0]
    N = null_space(A)
    if N.shape[1]:
        cons.append(N.T @ (up - mats.u_free) == 0)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(up - mats.u_free)), cons)
    backend, status, info = solve_program(prob, solver, get_tolerance(tolerance), needs="qp")
    if up.value is None:
        return _answer(
            problem,
            mats,
            "dual83",
            "failed" if status == "solved" else status,
            None,
            float("nan"),
            {"backend": backend.name, **info},
            "the backend returned no point",
        )
    uv = np.asarray(up.value, dtype=float)
    return _answer(
        problem,
        mats,
        "dual83",
        status,
        _nonnegative_preimage(A, uv - mats.u_free),
        float(prob.value),
        {"backend": backend.name, "u_plus": uv, **info},
    )


def moreau_rule(problem: ImpactProblem, *, solver: str | None = None, tolerance=None) -> ImpactAnswer:
    """Inertial (84)(a), Moreau's impact rule with Newton's restitution: ``v⁺`` is the kinetic-metric projection
    of ``v⁻ + h M⁻¹ f`` onto ``{v : n_i v + (E u⁻)_i >= 0 (unilateral), n_i v = 0 (bilateral)}``, i.e. F1
    (``gauss_qp``) on :meth:`~gaussqp.model.impact.ImpactProblem.to_contact_problem`; the percussions are F1's
    multipliers ((84)(b)). Any frictionless problem (singular M, a time step); the F1 :class:`Solution` with its
    certificates is in ``extras["solution"]``."""
    if not isinstance(problem, ImpactProblem):
        raise NotApplicableError(f"expected a gaussqp.model.impact.ImpactProblem, got {type(problem).__name__}")
    if np.any(problem.rows.modes != "frictionless"):
        raise NotApplicableError("Moreau's rule (84) is frictionless: use gaussqp.solve_impact for friction")
    sol = GaussQP().solve(problem.to_contact_problem(), solver=solver, tolerance=tolerance)
    status = str(sol.status)
    if not sol.status.has_solution:
        return ImpactAnswer("moreau84", status, None, None, float("nan"), sol.message, {"solution": sol})
    v = np.asarray(sol.acceleration, dtype=float)
    dv = v - problem.v_minus
    obj = 0.5 * float(dv @ (problem.M @ dv))
    return ImpactAnswer(
        "moreau84", status, np.asarray(sol.lambda_normal, dtype=float), v, obj, sol.message, {"solution": sol}
    )


#: the routes of the frictionless impact problem, by method name
ROUTES = {
    "qp80": percussion_qp,
    "lcp81": percussion_lcp,
    "dual82": percussion_dual,
    "dual83": velocity_dual,
    "moreau84": moreau_rule,
}

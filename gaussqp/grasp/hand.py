"""Grasp checks with the hand (with the hand): equilibrium and closure under joint-torque limits,
and the papers' dynamic check.

**Statics under torque limits** (Han, Trinkle, Li, "Grasp analysis as linear matrix inequality problems", IEEE T-RA
16(6), 2000: the *force feasibility problem*, there with the friction cones as LMIs; here the cones are second-order
cones and the problem is an SOCP). With ``x`` the stacked contact coordinates of :class:`~gaussqp.grasp.Grasp`
(``x_i = (f_n, ν)``, ``‖ν‖ <= f_n``), ``D`` the diagonal taking ``x`` to the physical components ``f = (f_n, f_t[, τ])``
(``1``, ``μ_i``, ``μ_t,i``) and ``J`` the hand Jacobian (:class:`~gaussqp.grasp.Hand`), the joint torques that hold
the forces are ``Jᵀ f = A x`` with ``A = Jᵀ D``. The hand resists the external wrench ``w`` iff

    ``∃ x ∈ K :  G x + w = 0,  |A x|_j <= τ_max,j``                                               (H)

(``G`` the scaled grasp map, ``w`` the scaled wrench). By conic duality (Farkas), (H) has no solution iff there are
``z`` (a direction in scaled-wrench space) and ``r`` (joint weights) with

    ``Gᵀ z + Aᵀ r ∈ K``  and  ``zᵀ w − τ_maxᵀ |r| > 0``                                            (H*)

(for any ``x`` of (H): ``0 <= xᵀ(Gᵀz + Aᵀr) = −zᵀw + rᵀAx <= −zᵀw + τᵀ|r|``). :func:`hand_equilibrium` returns the
forces of (H) or the pair ``(z, r)`` of (H*), each recomputed in NumPy.

**Closure under torque limits.** The wrenches the hand can resist form the convex set
``W = {−G x : x ∈ K, |A x| <= τ_max}``; the grasp is in closure iff ``0`` is interior to ``W``. ``W`` is bounded
when ``A`` is injective on the cones, so the quantitative answer is the radius ``ρ`` of the largest wrench ball
inside ``W`` (scaled L2 norm). :func:`hand_closure` computes, for each of the ``2w`` signed axis directions ``±e_k``,
the largest ``t`` with ``t e_k ∈ W`` (one SOCP each); with ``r`` their minimum, the cross-polytope of radius ``r`` lies
in ``W`` (convexity), so ``r/√w <= ρ <= r``, and closure holds iff ``r > 0``: the certificate is the ``2w`` force
vectors realizing ``±r e_k``, verified in NumPy. When an axis cannot be resisted at all (``r = 0``), the certificate is
a direction ``z`` with ``zᵀd = −1`` and ``Aᵀr − Gᵀz ∈ K`` with ``τᵀ|r| = 0`` (then ``zᵀ(G x) <= 0`` for every
admissible ``x``: no admissible force pushes along ``z``, so the external wrench ``d`` is not resisted). With every ``τ_max,j > 0`` the verdict equals plain force closure (a
small multiple of a strictly interior internal force meets any positive limit); zero limits (passive joints) and
the radius are what the hand adds.

**Dynamic check** (sticking paper, Remark 6 and Examples 6–7: the all-sticking algorithm of §4.2 through F4): the
contact problem of object + hand, ``q = (object, joints)``, normal row of contact ``i`` ``(G_i,n ; −J_i,n)`` (the
object's contact point moves away from the finger tip), tangent rows likewise (physical columns of ``G``), all
contacts unilateral and sticking, at rest (zero drifts); solved by :func:`gaussqp.solve`, whose sticking verdict
gives the margin and ``μ_min``.

Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy is imported inside the functions that use it,
not when this module is imported.
"""

from __future__ import annotations

import time

import numpy as np

from ..backends import get_backend, solve_program
from ..certificates.grasp import (
    HTL,  # noqa: F401
    dynamic_check_certificate,
    hand_closure_certificate,  # noqa: F401 (HTL)
    hand_closure_separation_certificate,
    hand_forces_certificate,
    hand_separation_certificate,
)
from ..errors import InputError, NotApplicableError, ShapeError, UnknownValueError
from ..model.problem import Contact, ContactProblem
from ..model.validation import real_array
from ..results import Certificate
from ..settings import (
    HAND_EXTENT_CAP,
    HAND_EXTENT_ZERO_RTOL,
    HAND_FEASIBILITY_RTOL,
    HAND_SEPARATION_RTOL,
    get_tolerance,
)
from .model import Grasp, GraspCheck


# ---------------------------------------------------------------------------------------------------- data
def physical_scaling(grasp: Grasp) -> np.ndarray:
    """The diagonal ``D`` (as a vector) taking the stacked ``x`` to the physical components ``(f_n, f_t[, τ])``."""
    out = []
    for c, s in zip(grasp.contacts, grasp.sizes()):
        d = [1.0] + [c.friction] * (s - 1)
        if c.kind == "soft":
            d[-1] = c.torsional_friction
        out += d
    return np.array(out)


def _hand(grasp: Grasp, need_limits: bool):
    if not isinstance(grasp, Grasp):
        raise UnknownValueError("grasp", f"is a {type(grasp).__name__}", "give a gaussqp.grasp.Grasp")
    h = grasp.hand
    if h is None:
        raise InputError("grasp.hand", "is missing", "give the grasp a gaussqp.grasp.Hand (jacobian, torque_limits)")
    k = int(sum(grasp.sizes()))
    J = real_array("hand.jacobian", h.jacobian, 2)
    if J.ndim != 2 or J.shape[0] != k:
        raise ShapeError(
            "hand.jacobian",
            f"has shape {J.shape}",
            f"give {k} rows (per contact f_n, f_t..., τ in grasp order) × the hand's joints",
        )
    tau = None
    if h.torque_limits is not None:
        tau = real_array("hand.torque_limits", h.torque_limits, 1)
        if tau.shape != (J.shape[1],):
            raise ShapeError(
                "hand.torque_limits", f"has shape {tau.shape}", f"give {J.shape[1]} limits (one per joint)"
            )
        if np.any(tau < 0):
            raise UnknownValueError(
                "hand.torque_limits",
                "has a negative entry",
                "give finite limits τ_max,j >= 0 (|τ_j| <= τ_max,j; 0 for a passive joint)",
            )
    elif need_limits:
        raise InputError(
            "hand.torque_limits",
            "is missing",
            "give the joint-torque limits (without them use the closure checks of gaussqp.grasp)",
        )
    A = J.T * physical_scaling(grasp)[None, :]
    return J, A, tau


def _cones(x, grasp: Grasp, t=None) -> list:
    """``x_i ∈ K_i`` (with ``t``: ``f_n − ‖ν‖ >= t``)."""
    import cvxpy as cp

    out = []
    for s in grasp.offsets():
        lo = x[s.start] if t is None else x[s.start] - t
        out.append(lo >= 0 if s.stop - s.start == 1 else cp.SOC(lo, x[s.start + 1 : s.stop]))
    return out


def _dual_cones(c, grasp: Grasp) -> list:
    return _cones(c, grasp)


def _cone_violation(v: np.ndarray, grasp: Grasp) -> float:
    return float(np.max(grasp.cone_violation(v))) if v.size else 0.0


def _force_scale(G: np.ndarray, A: np.ndarray, tau, w: np.ndarray | None) -> float:
    """A force of the data's size: the largest torque limit over its Jacobian row norm, the wrench's norm, G's."""
    cands = [float(np.linalg.norm(w))] if w is not None else []
    if tau is not None:
        rn = np.linalg.norm(A, axis=1)
        cands += [float(tau[j] / rn[j]) for j in range(len(tau)) if rn[j] > 0]
    s = max(cands) if cands else 0.0
    return s if s > 0 else 1.0


def _run(prob, tol, backend):
    _, status, _ = solve_program(prob, backend, tol, needs="socp")
    return status


def _forces_value(grasp: Grasp, x: np.ndarray, A: np.ndarray) -> dict:
    return {"x": x, "forces": grasp.physical_forces(x), "joint_torques": A @ x}


# ---------------------------------------------------------------------------------------------------- equilibrium
def hand_equilibrium(grasp: Grasp, wrench=None, *, backend=None, tolerance=None) -> GraspCheck:
    """Can the hand hold the object against ``wrench`` within its joint-torque limits? (module docstring, (H)/(H*))

    Parameters
    ----------
    grasp : a :class:`~gaussqp.grasp.Grasp` with a :class:`~gaussqp.grasp.Hand` (jacobian; torque_limits optional:
        without them this is plain equilibrium with exact cones)
    wrench : the external wrench on the object in physical units (default ``grasp.wrench``)
    backend, tolerance : the SOCP backend and tolerance preset (:func:`gaussqp.backends.solve_program`)

    Returns
    -------
    GraspCheck ``"hand_equilibrium"``: ``holds`` True with the forces ``x``, physical forces and joint torques
    (certificate ``hand_forces``: equilibrium, cone and torque residuals recomputed), False with the separating
    direction (certificate ``hand_separation``: ``(z, r)`` of (H*) recomputed), None when the wrench lies on the
    boundary of what the hand can resist to within the tolerance. ``margin`` is the largest common slack (cone
    ``f_n − ‖ν‖`` and torque ``(τ_max,j − |A x|_j)/‖A_j‖``, force units) when it holds, the negative separation
    value ``−(zᵀw − τᵀ|r|)`` (``‖z‖ <= 1``) when it fails.
    """
    import cvxpy as cp

    t0 = time.perf_counter()
    J, A, tau = _hand(grasp, need_limits=False)
    wr = grasp.wrench if wrench is None else real_array("wrench", wrench, 1)
    if wr is not None and wr.shape != (grasp.wrench_dimension,):
        raise ShapeError("wrench", f"has shape {wr.shape}", f"give {grasp.wrench_dimension} entries (force, torque)")
    if wr is None:
        raise InputError("wrench", "is not given (and the grasp has none)", "give the external wrench on the object")
    G = grasp.grasp_map(True)
    w = grasp.scaled_wrench(wr)
    tol = get_tolerance(tolerance)
    be = get_backend(backend, needs="socp")
    N = G.shape[1]
    rn = np.linalg.norm(A, axis=1)
    lim = [] if tau is None else [j for j in range(len(tau)) if rn[j] > 0]
    scale = _force_scale(G, A, tau, w)

    # primal: the forces with the largest common slack
    x, t = cp.Variable(N), cp.Variable()
    cons = [G @ x + w == 0, t <= HAND_EXTENT_CAP * scale] + _cones(x, grasp, t)
    if lim:
        cons.append(cp.abs(A[lim] @ x) + t * rn[lim] <= tau[lim])
    status = _run(cp.Problem(cp.Maximize(t), cons), tol, be)
    if status == "solved" and x.value is not None:
        xv = np.asarray(x.value, dtype=float)
        cert = _verify_forces(grasp, G, A, tau, w, xv)
        if cert.holds:
            return GraspCheck(
                "hand_equilibrium",
                True,
                cert,
                margin=float(min(t.value, cert.margin)),
                value=_forces_value(grasp, xv, A),
                times={"total": time.perf_counter() - t0},
            )

    # dual: a separating direction
    z = cp.Variable(G.shape[0])
    nq = A.shape[0]
    r = cp.Variable(nq)
    c = G.T @ z + A.T @ r
    cons = [cp.norm(z, 2) <= 1] + _dual_cones(c, grasp)
    if tau is None:  # no limits: no joint weights (plain equilibrium)
        cons.append(r == 0)
        obj = z @ w
    else:
        obj = z @ w - tau @ cp.abs(r)
    status = _run(cp.Problem(cp.Maximize(obj), cons), tol, be)
    if status == "solved" and z.value is not None:
        cert = _verify_separation(grasp, G, A, tau, w, np.asarray(z.value, float), np.asarray(r.value, float))
        if cert.holds:
            zv = cert.data["z"]
            return GraspCheck(
                "hand_equilibrium",
                False,
                cert,
                margin=-cert.margin,
                value={
                    "separating_wrench": zv,
                    "separating_wrench_physical": _physical_direction(grasp, zv),
                    "joint_weights": cert.data["r"],
                },
                times={"total": time.perf_counter() - t0},
            )
    return GraspCheck(
        "hand_equilibrium",
        None,
        None,
        reason="the wrench lies on the boundary of what the hand can "
        "resist to within the tolerance (neither forces nor a separating direction verified)",
        times={"total": time.perf_counter() - t0},
    )


def _physical_direction(grasp: Grasp, z: np.ndarray) -> np.ndarray:
    """``z`` acting on physical wrenches: ``zᵀ(f, τ/L) = (z_f, z_τ/L)ᵀ(f, τ)``."""
    out = np.array(z, dtype=float)
    out[grasp.dimension :] /= grasp.torque_scale
    return out


def _check_forces(grasp: Grasp, G, A, tau, w, x) -> tuple[bool, float, dict]:
    """``G x + w = 0``, ``x ∈ K``, ``|A x| <= τ`` recomputed in NumPy: (verified?, the least cone or torque slack,
    the residuals ``equilibrium_residual``, ``cone_violation``, ``torque_violation`` and the ``joint_torques``)."""
    nx = float(np.linalg.norm(x))
    eq = float(np.linalg.norm(G @ x + w))
    eq_scale = float(np.linalg.norm(G, 2)) * nx + float(np.linalg.norm(w))
    cone = _cone_violation(x, grasp)
    tq = A @ x
    torque = 0.0 if tau is None else float(np.max(np.abs(tq) - tau, initial=0.0))
    tq_scale = 0.0 if tau is None else max(float(np.max(tau, initial=0.0)), float(np.max(np.abs(tq), initial=0.0)))
    ok = (
        eq <= HAND_FEASIBILITY_RTOL * max(eq_scale, np.finfo(float).tiny)
        and cone <= HAND_FEASIBILITY_RTOL * max(nx, np.finfo(float).tiny)
        and torque <= HAND_FEASIBILITY_RTOL * max(tq_scale, np.finfo(float).tiny)
    )
    slacks = [float(x[s.start] - np.linalg.norm(x[s.start + 1 : s.stop])) for s in grasp.offsets()]
    if tau is not None:
        rn = np.linalg.norm(A, axis=1)
        slacks += [float((tau[j] - abs(tq[j])) / rn[j]) for j in range(len(tau)) if rn[j] > 0]
    return (
        bool(ok),
        float(min(slacks)),
        {"equilibrium_residual": eq, "cone_violation": cone, "torque_violation": torque, "joint_torques": tq},
    )


def _verify_forces(grasp: Grasp, G, A, tau, w, x) -> Certificate:
    """Certificate ``hand_forces`` on :func:`_check_forces`."""
    ok, margin, res = _check_forces(grasp, G, A, tau, w, x)
    return hand_forces_certificate(
        ok,
        margin,
        x,
        res["equilibrium_residual"],
        res["cone_violation"],
        res["torque_violation"],
        res["joint_torques"],
        w,
        G,
        A,
    )


def _verify_separation(grasp: Grasp, G, A, tau, w, z, r) -> Certificate:
    """Certificate ``hand_separation``: ``Gᵀz + Aᵀr ∈ K`` and ``zᵀw − τᵀ|r| > 0`` recomputed in NumPy."""
    if tau is None:
        r = np.zeros_like(r)
    c = G.T @ z + A.T @ r
    viol = _cone_violation(c, grasp)
    c_scale = float(np.linalg.norm(G, 2)) * float(np.linalg.norm(z)) + float(np.linalg.norm(A, 2)) * float(
        np.linalg.norm(r)
    )
    value = float(z @ w) - (0.0 if tau is None else float(tau @ np.abs(r)))
    nz = float(np.linalg.norm(z))
    ok = (
        nz > 0
        and viol <= HAND_FEASIBILITY_RTOL * c_scale
        and value > HAND_SEPARATION_RTOL * nz * float(np.linalg.norm(w))
    )
    return hand_separation_certificate(ok, value, z, r, viol, w, G, A)


# ---------------------------------------------------------------------------------------------------- closure
def hand_closure(grasp: Grasp, *, backend=None, tolerance=None) -> GraspCheck:
    """Force closure of the grasp under the hand's joint-torque limits, with the radius of the wrench ball the hand
    can resist bracketed (module docstring).

    Returns
    -------
    GraspCheck ``"hand_closure"``: ``holds`` True when every signed axis wrench ``±r e_k`` (scaled units) is resisted
    with ``r > 0`` (certificate ``hand_closure_wrenches``: the ``2w`` force vectors, each recomputed), False with a
    direction ``z`` that no admissible contact force pushes along (certificate ``hand_closure_separation``).
    ``value``: ``extents`` (the largest ``t`` per signed axis, ``+e_0, −e_0, +e_1, ...``), ``radius_lower`` ``r/√w``
    and ``radius_upper`` ``r`` bracketing the largest resisted wrench ball (scaled L2 norm; ``r`` is "at least" when
    it reaches the cap :data:`~gaussqp.settings.HAND_EXTENT_CAP` times the force scale). ``margin`` is ``r``.
    """
    import cvxpy as cp

    t0 = time.perf_counter()
    J, A, tau = _hand(grasp, need_limits=True)
    G = grasp.grasp_map(True)
    nw, N = G.shape
    tol = get_tolerance(tolerance)
    be = get_backend(backend, needs="socp")
    rn = np.linalg.norm(A, axis=1)
    lim = [j for j in range(len(tau)) if rn[j] > 0]
    scale = _force_scale(G, A, tau, None)
    cap = HAND_EXTENT_CAP * scale
    extents, xs, capped = [], [], []
    for k in range(nw):
        for sgn in (1, -1):
            d = np.zeros(nw)
            d[k] = sgn
            x, t = cp.Variable(N), cp.Variable()
            cons = [G @ x + t * d == 0, t <= cap, t >= 0] + _cones(x, grasp)
            if lim:
                cons.append(cp.abs(A[lim] @ x) <= tau[lim])
            status = _run(cp.Problem(cp.Maximize(t), cons), tol, be)
            if status != "solved" or x.value is None:
                return GraspCheck(
                    "hand_closure",
                    None,
                    None,
                    reason=f"the extent program along {sgn:+d}e_{k} ended {status!r}",
                    times={"total": time.perf_counter() - t0},
                )
            tv = float(t.value)
            extents.append(tv)
            xs.append(np.asarray(x.value, float))
            capped.append(tv >= cap * (1 - HAND_FEASIBILITY_RTOL))
    r = float(min(extents))
    kmin = int(np.argmin(extents))
    if r > HAND_EXTENT_ZERO_RTOL * scale:
        # closure: the axis wrenches realized at the common radius r (scale each x_k by r / t_k)
        cert = _verify_closure(grasp, G, A, tau, [x * (r / te) for x, te in zip(xs, extents)], r)
        if cert.holds:
            return GraspCheck(
                "hand_closure",
                True,
                cert,
                margin=r,
                value={
                    "extents": np.array(extents),
                    "radius_lower": r / np.sqrt(nw),
                    "radius_upper": r,
                    "at_cap": bool(all(capped)),
                    "force_scale": scale,
                },
                times={"total": time.perf_counter() - t0},
            )
        return GraspCheck(
            "hand_closure",
            None,
            cert,
            reason="the axis forces did not verify",
            margin=r,
            value={"extents": np.array(extents)},
            times={"total": time.perf_counter() - t0},
        )
    d = np.zeros(nw)
    d[kmin // 2] = 1 if kmin % 2 == 0 else -1
    z = cp.Variable(nw)
    rv = cp.Variable(len(tau))
    c = A.T @ rv - G.T @ z
    cons = [z @ d == -1] + _dual_cones(c, grasp)
    unlimited = [j for j in range(len(tau)) if rn[j] == 0]
    if unlimited:
        cons.append(rv[unlimited] == 0)
    status = _run(
        cp.Problem(cp.Minimize(tau @ cp.abs(rv) + cp.sum_squares(z) * scale * HAND_EXTENT_ZERO_RTOL), cons), tol, be
    )
    if status == "solved" and z.value is not None:
        zv, rvv = np.asarray(z.value, float), np.asarray(rv.value, float)
        # the weights on limited joints must vanish (τᵀ|r| = 0): drop their round-off when the cone still holds
        clean = np.where(tau > 0, 0.0, rvv)
        cert = _verify_no_closure(grasp, G, A, tau, zv, clean, d)
        if not cert.holds:
            cert = _verify_no_closure(grasp, G, A, tau, zv, rvv, d)
        if cert.holds:
            zv = cert.data["z"]
            return GraspCheck(
                "hand_closure",
                False,
                cert,
                margin=0.0,
                value={
                    "extents": np.array(extents),
                    "radius_lower": 0.0,
                    "radius_upper": 0.0,
                    "unresisted_direction": d,
                    "separating_wrench": zv,
                    "separating_wrench_physical": _physical_direction(grasp, zv),
                },
                times={"total": time.perf_counter() - t0},
            )
    return GraspCheck(
        "hand_closure",
        None,
        None,
        margin=r,
        value={"extents": np.array(extents)},
        reason="an axis extent is 0 to within the tolerance but no separating direction verified",
        times={"total": time.perf_counter() - t0},
    )


def _verify_closure(grasp: Grasp, G, A, tau, xs, r) -> Certificate:
    """Certificate ``hand_closure_wrenches``: each ``x_k`` in the cones and torque limits with ``G x_k = −r d_k``
    (the hand resists the external wrench ``r d_k``), recomputed; the convex hull of the ``±r e_k`` holds the ball of
    radius ``r/√w``."""
    nw = G.shape[0]
    worst, details = 0.0, []
    ok = True
    for k, x in enumerate(xs):
        d = np.zeros(nw)
        d[k // 2] = 1 if k % 2 == 0 else -1
        verified, _, res = _check_forces(grasp, G, A, tau, r * d, x)
        ok = ok and verified
        details.append(
            {
                "direction": d,
                "x": x,
                "equilibrium_residual": res["equilibrium_residual"],
                "cone_violation": res["cone_violation"],
                "torque_violation": res["torque_violation"],
            }
        )
        worst = max(worst, res["equilibrium_residual"], res["cone_violation"], res["torque_violation"])
    return hand_closure_certificate(ok, r, details, worst, G, A)


def _verify_no_closure(grasp: Grasp, G, A, tau, z, r, d) -> Certificate:
    """Certificate ``hand_closure_separation``: ``zᵀd = −1``, ``Aᵀr − Gᵀz ∈ K``, ``τᵀ|r| = 0`` (to the tolerance)."""
    c = A.T @ r - G.T @ z
    viol = _cone_violation(c, grasp)
    c_scale = float(np.linalg.norm(G, 2)) * float(np.linalg.norm(z)) + float(np.linalg.norm(A, 2)) * float(
        np.linalg.norm(r)
    )
    nz = float(np.linalg.norm(z))
    used = float(tau @ np.abs(r))
    # the torque budget τᵀ|r| bounds zᵀ(G x) for admissible x; it must be negligible against the force scale
    rn = np.linalg.norm(A, axis=1)
    budget_scale = (
        float(np.max([tau[j] for j in range(len(tau)) if rn[j] > 0], initial=0.0)) * float(np.linalg.norm(r)) + nz
    )
    ok = (
        nz > 0
        and abs(float(z @ d) + 1) <= HAND_FEASIBILITY_RTOL
        and viol <= HAND_FEASIBILITY_RTOL * c_scale
        and used <= HAND_FEASIBILITY_RTOL * budget_scale
    )
    return hand_closure_separation_certificate(ok, used, z, r, d, viol, G, A)


# ---------------------------------------------------------------------------------------------------- dynamics
def hand_contact_problem(grasp: Grasp, object_mass_matrix, *, name: str | None = None) -> ContactProblem:
    """The contact problem of object + hand (module docstring, "Dynamic check"; sticking Ex. 7, (67)–(68)).

    ``q = (object (3 planar / 6 spatial), joints)``, ``M = blockdiag(object_mass_matrix, hand.mass_matrix)``,
    ``F = (−wrench, hand.force)`` (``F`` is minus the applied generalized force, as in
    :class:`~gaussqp.ContactProblem`: the hand's ``force`` includes minus its motor torques). Contact ``i``: normal
    row ``(G_i,n ; −J_i,n)`` (unscaled, physical columns of ``G``), tangent rows ``(G_i,t ; −J_i,t)``, plus for a soft
    contact the torsion row scaled by ``μ_t/μ`` (so the isotropic cone ``‖λ_t‖ <= μ λ_n`` of dimension 4 is the
    elliptic one); all unilateral and sticking, at rest (zero drifts). Hard and soft contacts cannot be mixed
    (one ``dimension`` per problem)."""
    J, _, _ = _hand(grasp, need_limits=False)
    h = grasp.hand
    if h.mass_matrix is None or h.force is None:
        raise InputError("grasp.hand", "has no mass_matrix or force", "give the hand's M and F for the dynamic check")
    nq = J.shape[1]
    Mh = real_array("hand.mass_matrix", h.mass_matrix, 2)
    Fh = real_array("hand.force", h.force, 1)
    if Mh.shape != (nq, nq) or Fh.shape != (nq,):
        raise ShapeError(
            "hand.mass_matrix / hand.force", f"have shapes {Mh.shape} / {Fh.shape}", f"give ({nq}, {nq}) and ({nq},)"
        )
    nw = grasp.wrench_dimension
    Mo = real_array("object_mass_matrix", object_mass_matrix, 2)
    if Mo.shape != (nw, nw):
        raise ShapeError("object_mass_matrix", f"has shape {Mo.shape}", f"give the object's ({nw}, {nw}) mass matrix")
    if grasp.wrench is None:
        raise InputError("grasp.wrench", "is missing", "give the external wrench on the object (gravity, loads)")
    kinds = {c.kind for c in grasp.contacts if c.kind != "frictionless"}
    if kinds == {"hard", "soft"}:
        raise NotApplicableError("the dynamic check needs one contact dimension: hard and soft contacts mixed")
    soft = kinds == {"soft"}
    d = grasp.dimension + (1 if soft else 0)
    Gp = grasp.grasp_map(False) / physical_scaling(grasp)[None, :]  # physical columns
    contacts = []
    for i, (c, s) in enumerate(zip(grasp.contacts, grasp.offsets())):
        rows = np.hstack([Gp[:, s].T, -J[s]])
        normal = rows[0]
        if c.nu_dim == 0:
            contacts.append(Contact("unilateral", normal=normal, mode="frictionless"))
            continue
        T = rows[1:].copy()
        if c.kind == "soft":
            T[-1] *= c.torsional_friction / c.friction
        contacts.append(Contact("unilateral", normal=normal, mode="sticking", friction=c.friction, tangent=T))
    M = np.zeros((nw + nq, nw + nq))
    M[:nw, :nw], M[nw:, nw:] = Mo, Mh
    F = np.concatenate([-grasp.wrench, Fh])
    return ContactProblem(
        M,
        F,
        contacts,
        dimension=d,
        name=name or (grasp.name or "grasp") + "_dynamic",
        description=f"object + hand of grasp {grasp.name!r}, all contacts sticking, at rest",
    )


def dynamic_check(
    grasp_or_problem, *, object_mass_matrix=None, solver: str | None = None, tolerance=None
) -> GraspCheck:
    """The papers' dynamic check (sticking Remark 6, Ex. 6 and 7): do the hand's dynamics keep every contact
    sticking? Builds :func:`hand_contact_problem` (or takes a :class:`~gaussqp.ContactProblem` whose frictional
    contacts are all told sticking, e.g. ``problems/sticking_examples.py::hard_finger_grasp``) and solves it with
    :func:`gaussqp.solve` (F4 ``sticking_socp``).

    Returns
    -------
    GraspCheck ``"dynamic"``: ``holds`` True when the all-sticking problem is solvable (F4's forces inside every cone,
    certificate ``coulomb_cones``), False when it is not (F4's ``coulomb_farkas``/``farkas``), with ``margin`` the
    sticking verdict's margin (``max min_i μ_i λ_n,i − ‖λ_t,i‖`` over the admissible forces) and ``value`` holding
    ``mu_min`` (the least common μ that sticks), the acceleration, the multipliers, and the contact problem's name.
    The certificate is F4's, with ``holds`` False unless the whole solution is certified.
    """
    from ..dispatch import solve

    t0 = time.perf_counter()
    if isinstance(grasp_or_problem, ContactProblem):
        problem = grasp_or_problem
    elif isinstance(grasp_or_problem, Grasp):
        if object_mass_matrix is None:
            raise InputError(
                "object_mass_matrix",
                "is missing",
                "give the object's mass matrix (3×3 planar: diag(m, m, I); 6×6 spatial)",
            )
        problem = hand_contact_problem(grasp_or_problem, object_mass_matrix)
    else:
        raise UnknownValueError(
            "grasp_or_problem",
            f"is a {type(grasp_or_problem).__name__}",
            "give a gaussqp.grasp.Grasp with a Hand, or a gaussqp.ContactProblem",
        )
    sol = solve(problem, solver=solver, tolerance=tolerance)
    v = sol.sticking
    value = {
        "problem": problem.name,
        "status": sol.status,
        "formulation": sol.formulation,
        "mu_min": None if v is None else v.mu_min,
        "boundary_contacts": [] if v is None else list(v.boundary_contacts),
        "detaching_contacts": [] if v is None else list(v.detaching_contacts),
        "acceleration": sol.acceleration,
        "lambda_normal": sol.lambda_normal,
        "lambda_tangent": sol.lambda_tangent,
    }
    if sol.status == "solved":
        holds, ids = True, ("coulomb_cones", "kkt_residuals")
    elif sol.status == "infeasible":
        holds, ids = False, ("coulomb_farkas", "farkas")
    else:
        return GraspCheck(
            "dynamic",
            None,
            None,
            value=value,
            reason=f"F4 ended {sol.status!r}: {sol.message}",
            times={"total": time.perf_counter() - t0},
        )
    cert = next((c for c in (sol.certificate(i) for i in ids) if c is not None), None)
    if cert is not None:
        cert = dynamic_check_certificate(cert, sol.certified)
    return GraspCheck(
        "dynamic",
        holds,
        cert,
        margin=None if v is None else v.margin,
        value=value,
        times={"total": time.perf_counter() - t0},
    )


__all__ = ["dynamic_check", "hand_closure", "hand_contact_problem", "hand_equilibrium", "physical_scaling"]

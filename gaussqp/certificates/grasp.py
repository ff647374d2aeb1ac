"""What the grasp checks prove (every certificate is created under ``certificates/``).

The checks of :mod:`gaussqp.grasp.closure` (equilibrium, force/form closure, min-weight, internal forces, largest
disturbance), :mod:`gaussqp.grasp.quality` (the Ferrari–Canny ε bracket) and :mod:`gaussqp.grasp.hand` (statics
under joint-torque limits, the dynamic check) run their programs and recompute the residuals and cone slacks in
NumPy; they hand the numbers and vectors to the builders here, one per certificate id, which state what they prove
and what a reader checks on the ``evidence`` (the grasp map and the cones in the grasp file's terms,
:data:`GRASP_MAP_TEXT`). This module imports nothing of :mod:`gaussqp.grasp` (a higher layer): a builder takes plain
numbers, arrays and dicts.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np

from ..results import Certificate

#: the source of the equilibrium certificates
EQUILIBRIUM_SOURCE = "conic Farkas lemma (Ben-Tal–Nemirovski Prop. 2.4.2)"
#: the source of the internal-force certificates
INTERNAL_FORCES_SOURCE = "DESIGN.md §4.2 (multiplier uniqueness)"
#: the source of the hand's certificates
HTL = "Han, Trinkle, Li 2000 (force feasibility / force closure as conic programs); docs/DESIGN.md §grasps"

#: The scaled grasp map and the cones in the grasp file's terms, the preamble of every grasp ``verify`` text.
GRASP_MAP_TEXT = (
    "Scaled wrench coordinates (force, torque / L), L = torque_scale. A force f at contact i (position p_i, inward "
    "normal n_i) gives the scaled wrench (f, (p_i × f) / L) (planar: p × f = p_x f_y − p_y f_x), a soft contact's "
    "torsion τ about n_i gives (0, τ n_i / L). Cones: hard ‖f − (f·n_i) n_i‖ <= μ_i f·n_i; frictionless f = f_n n_i, "
    "f_n >= 0; soft (‖f_t‖/μ_i)² + (τ/μ_t,i)² <= (f·n_i)². "
)
#: The dual-cone test of a scaled wrench y, per contact, in the same terms.
DUAL_CONE_TEXT = (
    "With g_i = y_force + (y_torque × p_i) / L (planar: y_force + y_torque (−p_y, p_x) / L) every force f in contact "
    "i's cone has yᵀ(its wrench) >= 0 iff g_i·n_i >= μ_i ‖g_i − (g_i·n_i) n_i‖ (frictionless: g_i·n_i >= 0; soft: "
    ">= sqrt(μ_i² ‖g_i − (g_i·n_i) n_i‖² + μ_t,i² (y_torque·n_i / L)²)). "
)


@lru_cache(maxsize=8)
def _closure_texts(check: str) -> tuple[str, str, str]:
    """(interior, dual, rank) ``verify`` texts of a closure check on the exact cones, the normals or the polygons."""
    if check == "min_weight":
        return (
            "weights α_j >= margin > 0 with Σ_j α_j = 1 and Σ_j α_j w_j = 0 over the primitive wrenches w_j (the "
            "scaled wrenches of the inscribed polygons' generators, normal force 1; or the exact-cone SOCP), "
            "and the w_j span the wrench space",
            "y ≠ 0 with yᵀw_j >= 0 for every primitive wrench w_j: 0 is not interior to their convex hull",
            "y ≠ 0 with yᵀw_j = 0 for every primitive wrench w_j: they do not span the wrench space",
        )
    normals = check == "form_closure"
    what = "normal forces f_i = f_n,i n_i only (form closure)" if normals else "forces f_i in the exact cones"
    return (
        GRASP_MAP_TEXT
        + f"Internal {what}: Σ_i wrench_i = 0 with every f_i strictly inside its cone (f_n,i > 0"
        + ("" if normals else ", ‖f_t,i‖ < μ_i f_n,i")
        + ") and the contact wrenches spanning the wrench space "
        "(rank = wrench dimension): every external wrench is resisted",
        GRASP_MAP_TEXT
        + ("With g_i as below only g_i·n_i >= 0 is needed (normals only). " if normals else "")
        + DUAL_CONE_TEXT
        + "For y = wrench_scaled this holds at every contact, so the external wrench y cannot be "
        "resisted (the contacts would have to supply −y, with yᵀ(−y) < 0)",
        GRASP_MAP_TEXT + "y = wrench_scaled ≠ 0 has yᵀ(wrench of every direction a contact can push) = 0: "
        "for every contact i and every force direction e its cone allows, e·y_force + (p_i × e)·y_torque / L = 0 "
        "(and n_i·y_torque = 0 for a soft contact): the grasp map is rank deficient, neither y nor −y is resisted",
    )


# ---------------------------------------------------------------------------------------------- equilibrium
def equilibrium_zero_wrench_certificate(x: np.ndarray, forces_evidence: dict) -> Certificate:
    """``grasp_equilibrium_forces`` for the zero wrench: zero forces ``x`` (``forces_evidence``: per contact the
    physical forces and torsions of ``x``)."""
    return Certificate(
        id="grasp_equilibrium_forces",
        name="equilibrium forces (verified)",
        source=EQUILIBRIUM_SOURCE,
        holds=True,
        margin=0.0,
        implies="the zero wrench is resisted by zero forces",
        data={"forces": x, "evidence": {"verify": "zero wrench, zero forces", **forces_evidence}},
    )


def equilibrium_forces_certificate(
    margin: float, x: np.ndarray, check: dict, backend_status: str, wrench: np.ndarray, forces_evidence: dict
) -> Certificate:
    """``grasp_equilibrium_forces``: the forces ``x`` verified in NumPy (``check``: residual and cone slacks) resist
    ``wrench`` (physical units) inside the exact cones, with the cone margin ``margin``."""
    return Certificate(
        id="grasp_equilibrium_forces",
        name="equilibrium forces (verified)",
        source=EQUILIBRIUM_SOURCE,
        holds=True,
        margin=margin,
        implies="the contacts resist the wrench with these forces inside the exact cones",
        data={
            **check,
            "forces": x,
            "backend_status": backend_status,
            "evidence": {
                "verify": GRASP_MAP_TEXT + "Σ_i (f_i, p_i × f_i + τ_i n_i) + wrench = 0 in physical "
                "units, every f_i (and τ_i) in its cone: the contacts resist the wrench",
                "wrench": wrench,
                **forces_evidence,
            },
        },
    )


def equilibrium_separation_certificate(
    separation: float,
    force_bound: float,
    check: dict,
    wrench: np.ndarray,
    y: np.ndarray,
    backend_status: str,
    wrench_scaled: np.ndarray,
) -> Certificate:
    """``grasp_equilibrium_separation``: ``y`` (scaled; ``wrench`` the same in physical units) with ``Gᵀy`` in the
    cones (``check``: its dual-cone violation) and ``yᵀw > 0`` (``separation``, relative) for the external wrench
    ``wrench_scaled``; forces of norm below ``force_bound`` are excluded when the violation is not exactly 0."""
    viol = check["dual_cone_violation"]
    return Certificate(
        id="grasp_equilibrium_separation",
        name="separating wrench (conic Farkas, verified)",
        source=EQUILIBRIUM_SOURCE,
        holds=True,
        margin=separation,
        implies="no contact forces in the exact cones resist the wrench: yᵀw > 0 while (Gᵀy)ᵀx >= 0 for "
        "every x in the cones"
        + ("" if viol == 0 else f" (up to round-off: forces of norm below {force_bound:.3g} are excluded)"),
        data={
            **check,
            "separating_wrench": wrench,
            "separating_wrench_scaled": y,
            "separation": separation,
            "force_bound": force_bound,
            "backend_status": backend_status,
            "evidence": {
                "verify": GRASP_MAP_TEXT + DUAL_CONE_TEXT + "For y = separating_wrench_scaled this holds at "
                "every contact and yᵀ(the external wrench, scaled) > 0: no forces in the cones "
                "resist it",
                "separating_wrench_scaled": y,
                "wrench_scaled": wrench_scaled,
            },
        },
    )


def equilibrium_undecided_certificate(margin: float | None, backend_status: str) -> Certificate:
    """``grasp_equilibrium_forces`` with ``holds`` False: neither side verified (``margin`` the primal cone margin,
    None when the program returned none)."""
    return Certificate(
        id="grasp_equilibrium_forces",
        name="equilibrium forces (verified)",
        source=EQUILIBRIUM_SOURCE,
        holds=False,
        margin=float("nan") if margin is None else margin,
        implies="undecided: neither the forces nor a separating wrench verified (a wrench on the "
        "boundary of the resistible set at the solver's accuracy)",
        data={"backend_status": backend_status},
    )


# ---------------------------------------------------------------------------------------------- closure
def closure_rank_certificate(
    check: str,
    cid: str,
    source: str,
    holds: bool,
    rank: int,
    dimension: int,
    residual: float,
    data: dict,
    wrench: np.ndarray,
    y: np.ndarray,
) -> Certificate:
    """``{cid}_rank``: the grasp map of the closure check ``check`` has rank ``rank`` < ``dimension``; ``y`` (scaled;
    ``wrench`` physical) spans part of ``ker Gᵀ`` with ``‖Gᵀy‖ = residual`` (``data``: its dual-cone check)."""
    t_rank = _closure_texts(check)[2]
    return Certificate(
        id=f"{cid}_rank",
        name=f"no {check.replace('_', ' ')}: G is rank deficient (verified)",
        source=source,
        holds=bool(holds),
        margin=-residual,
        implies=f"{'G_n (the normal columns)' if check == 'form_closure' else 'G'} has rank {rank} < {dimension}: y ∈ ker Gᵀ, so neither the external wrench y nor −y can be resisted "
        "(yᵀ(G x) = 0 ≠ ∓‖y‖²); the contact wrenches lie in the hyperplane yᵀw = 0",
        data={
            **data,
            "rank": rank,
            "wrench": wrench,
            "wrench_scaled": y,
            "GTy_norm": residual,
            "evidence": {"verify": t_rank, "wrench_scaled": y, "GTy": data["GTy"]},
        },
    )


def closure_interior_certificate(
    check: str,
    cid: str,
    source: str,
    margin: float,
    data: dict,
    x: np.ndarray,
    sigma_min: float,
    rank: int,
    backend_status: str,
    forces_evidence: dict | None = None,
) -> Certificate:
    """``{cid}_interior``: an internal force ``x`` strictly inside every cone (``margin`` its least cone slack;
    ``data``: its exact verification), the grasp map of full row rank ``rank`` (``sigma_min``). ``forces_evidence``:
    the physical forces of ``x`` for force closure (form closure shows normal forces, min-weight the weights)."""
    t_interior = _closure_texts(check)[0]
    return Certificate(
        id=f"{cid}_interior",
        name=f"{check.replace('_', ' ')}: strictly interior internal force (verified)",
        source=source,
        holds=True,
        margin=margin,
        implies="G has full row rank and G x = 0 with x strictly inside every cone: every external wrench "
        "is resisted (by x + a particular solution, scaled)",
        data={
            **data,
            "internal_force": x,
            "sigma_min": sigma_min,
            "rank": rank,
            "backend_status": backend_status,
            "evidence": {
                "verify": t_interior,
                "rank": rank,
                **(
                    forces_evidence
                    if check == "force_closure"
                    else {"normal_forces": x}
                    if check == "form_closure"
                    else {"weights": x}
                ),
            },
        },
    )


def closure_dual_certificate(
    check: str,
    cid: str,
    source: str,
    holds: bool,
    margin: float,
    force_bound: float,
    data: dict,
    wrench: np.ndarray,
    y: np.ndarray,
    backend_status: str,
) -> Certificate:
    """``{cid}_dual``: a wrench ``y`` (unit, scaled; ``wrench`` physical) with ``Gᵀy`` in the dual cones (``data``:
    its check): the external wrench ``y`` is not resisted (``margin`` minus the primal margin, at most 0)."""
    t_dual = _closure_texts(check)[1]
    viol = data["dual_cone_violation"]
    return Certificate(
        id=f"{cid}_dual",
        name=f"no {check.replace('_', ' ')}: an unresisted wrench (verified)",
        source=source,
        holds=bool(holds),
        margin=margin,
        implies="Gᵀy lies in the dual cones: every contact wrench G x (x in the cones) has yᵀ(G x) >= 0, so the "
        "external wrench y (value['unresisted_wrench'], physical units) cannot be resisted: G x + y = 0 "
        "would need yᵀ(G x) = −‖y‖² < 0"
        + ("" if viol == 0 else f" (up to round-off: forces of norm below {force_bound:.3g})"),
        data={
            **data,
            "wrench": wrench,
            "wrench_scaled": y,
            "force_bound": force_bound,
            "backend_status": backend_status,
            "evidence": {"verify": t_dual, "wrench_scaled": y, "GTy": data["GTy"]},
        },
    )


def closure_undecided_certificate(
    check: str, cid: str, source: str, margin: float | None, backend_status: str
) -> Certificate:
    """``{cid}_interior`` with ``holds`` False: neither an interior internal force nor an unresisted wrench
    verified."""
    return Certificate(
        id=f"{cid}_interior",
        name=f"{check.replace('_', ' ')} (undecided)",
        source=source,
        holds=False,
        margin=float("nan") if margin is None else margin,
        implies="undecided: neither an interior internal force nor an unresisted wrench verified "
        "(a grasp on the boundary of closure at the solver's accuracy)",
        data={"backend_status": backend_status},
    )


# ---------------------------------------------------------------------------------------------- internal forces
def internal_forces_certificate(dimension: int, rank: int, GN_norm: float) -> Certificate:
    """``grasp_internal_forces``: ``ker G`` has ``dimension`` (rank ``rank`` at the scale ``‖G‖₂``); ``‖G N‖``
    reported for its basis ``N``."""
    return Certificate(
        id="grasp_internal_forces",
        name="internal forces ker G",
        source=INTERNAL_FORCES_SOURCE,
        holds=True,
        margin=GN_norm,
        implies=f"ker G has dimension {dimension} (rank {rank} at the scale ‖G‖₂)",
        data={"dimension": dimension, "GN_norm": GN_norm},
    )


def unique_forces_full_rank_certificate(sigma_min: float) -> Certificate:
    """``grasp_unique_forces``: ``G`` has full column rank (least singular value ``sigma_min``)."""
    return Certificate(
        id="grasp_unique_forces",
        name="uniqueness of the contact forces",
        source=INTERNAL_FORCES_SOURCE,
        holds=True,
        margin=sigma_min,
        implies="G has full column rank: the forces are the only ones producing G x",
    )


def unique_forces_trivial_cone_certificate(margin: float, detail) -> Certificate:
    """``grasp_unique_forces``: the cone of first-order feasible directions meets ``ker G`` only in 0 (the
    Stiemke-verified test's ``margin`` and ``detail``)."""
    return Certificate(
        id="grasp_unique_forces",
        name="uniqueness of the contact forces",
        source=INTERNAL_FORCES_SOURCE,
        holds=True,
        margin=margin,
        implies="no internal force is feasible even to first order: the forces are unique",
        data={"detail": detail},
    )


def unique_forces_witness_certificate(
    x: np.ndarray, witness: np.ndarray, G_witness: float, cone_violation: float
) -> Certificate:
    """``grasp_unique_forces`` (not unique): an internal force ``witness`` (``‖G d‖ = G_witness``) with ``x + d`` in
    the cones (to ``cone_violation``)."""
    return Certificate(
        id="grasp_unique_forces",
        name="uniqueness of the contact forces",
        source=INTERNAL_FORCES_SOURCE,
        holds=True,
        margin=-float(np.linalg.norm(witness)),
        implies="not unique: x + d (d an internal force, G d = 0) is also in the cones and produces the same wrench",
        data={
            "witness": witness,
            "G_witness": G_witness,
            "cone_violation": cone_violation,
            "evidence": {
                "verify": GRASP_MAP_TEXT + "d = witness (stacked cone coordinates x_i = (f_n, "
                "f_t/μ[, τ/μ_t]), the grasp's x) is an internal force, G d = 0, and "
                "x + d is in the cones: both produce the same wrench",
                "x": x,
                "witness": witness,
            },
        },
    )


def unique_forces_undecided_certificate() -> Certificate:
    """``grasp_unique_forces`` with ``holds`` False: first-order feasible internal forces exist, none verified."""
    return Certificate(
        id="grasp_unique_forces",
        name="uniqueness of the contact forces",
        source=INTERNAL_FORCES_SOURCE,
        holds=False,
        margin=float("nan"),
        implies="undecided: directions feasible to first order exist, but none keeps x in the "
        "cones at the solver's accuracy (the cones' curvature may make x unique)",
    )


def largest_disturbance_certificate(holds: bool, lower: float, upper: float, data: dict) -> Certificate:
    """``grasp_largest_disturbance``: ``s*`` bracketed by verified forces (``lower``) and a verified dual bound
    (``upper``); ``holds`` when the bracket closed."""
    return Certificate(
        id="grasp_largest_disturbance",
        name="largest disturbance along a direction (bracketed)",
        source="SOCP duality: s = yᵀG x <= λ Σ f_n for yᵀd = −1, λE − Gᵀy in the cones",
        holds=bool(holds),
        margin=lower,
        implies=f"s* lies in [{lower:.6g}, {upper:.6g}] (verified forces, verified dual bound)",
        data={**data, "lower": lower, "upper": upper},
    )


# ---------------------------------------------------------------------------------------------- quality ε
def no_closure_certificate(
    holds: bool, direction: np.ndarray, max_support: float, tolerance: float, flat_wrench_set: bool
) -> Certificate:
    """``grasp_no_closure``: a unit ``direction`` y with ``max_i g_iᵀy + ‖N_iᵀy‖ = max_support <= tolerance``: no
    contact force resists ``−y``, ε = 0."""
    worst = max_support
    return Certificate(
        id="grasp_no_closure",
        name="a wrench direction no contact force can produce",
        source="Ferrari–Canny ε = 0; the support function h_i(y) = max(0, g_iᵀy + ‖N_iᵀy‖) of each exact cone",
        holds=bool(holds),
        margin=-worst,
        implies=(
            "every contact wrench w of the exact cones has wᵀy <= 0 (max_i g_iᵀy + ‖N_iᵀy‖ = "
            f"{worst:.3g}): the external wrench −y (scaled) cannot be resisted; no force closure, ε = 0"
        ),
        data={
            "direction": direction,
            "max_support": worst,
            "tolerance": tolerance,
            "flat_wrench_set": flat_wrench_set,
            "evidence": {
                "verify": "y = direction (unit, scaled wrench coordinates (force, torque / L)): for "
                "every contact i, g_iᵀy + ‖N_iᵀy‖ <= tolerance (g_i the scaled wrench of the "
                "unit normal force, N_i those of the friction directions, μ-scaled): no contact "
                "force resists −y, ε = 0",
                "direction": direction,
                "tolerance": tolerance,
            },
        },
    )


def epsilon_bracket_certificate(
    holds: bool,
    lower: float,
    upper: float,
    norm: str,
    torque_scale: float,
    upper_direction: np.ndarray,
    exact_support_at_upper_direction: float,
    inner_facets: int,
    tolerance: float,
    checks: list,
) -> Certificate:
    """``grasp_epsilon_bracket``: the exact-cone ε lies in ``[lower, upper]`` (the inscribed polytope's hull
    rechecked, and the exact support function at the upper bound's direction; ``checks`` says how)."""
    return Certificate(
        id="grasp_epsilon_bracket",
        name="the exact-cone ε between the inscribed polytope's ε and the exact support at a direction",
        source="Ferrari–Canny ε; inscribed polygons ⊂ exact cones; qhull facets rechecked; ε <= h(y) for unit y",
        holds=bool(holds),
        margin=lower,
        implies=(
            f"the exact ε ({norm}, scaled wrench space, L = {torque_scale:g}) lies in "
            f"[{lower:.6g}, {upper:.6g}]" + ("; ε > 0: force closure" if lower > 0 else "")
        ),
        data={
            "lower": lower,
            "upper": upper,
            "upper_direction": upper_direction,
            "exact_support_at_upper_direction": exact_support_at_upper_direction,
            "inner_facets": inner_facets,
            "tolerance": tolerance,
            "checks": checks,
        },
    )


# ---------------------------------------------------------------------------------------------- the hand
def hand_forces_certificate(
    holds: bool,
    margin: float,
    x: np.ndarray,
    equilibrium_residual: float,
    cone_violation: float,
    torque_violation: float,
    joint_torques: np.ndarray,
    wrench: np.ndarray,
    grasp_map: np.ndarray,
    joint_map: np.ndarray,
) -> Certificate:
    """``hand_forces``: ``G x + w = 0``, ``x ∈ K``, ``|A x| <= τ`` recomputed (the residuals given); ``margin`` the
    least cone or torque slack."""
    return Certificate(
        id="hand_forces",
        source=HTL,
        holds=bool(holds),
        margin=margin,
        implies="these contact forces hold the object in equilibrium inside the exact cones, within "
        "the joint-torque limits",
        name="hand forces",
        data={
            "x": x,
            "equilibrium_residual": equilibrium_residual,
            "cone_violation": cone_violation,
            "torque_violation": torque_violation,
            "joint_torques": joint_torques,
            "evidence": {
                "verify": "grasp_map x + wrench = 0, every x_i = (f_n, ν) with ‖ν‖ <= f_n (the "
                "grasp's cone coordinates), |joint_map x| <= torque_limits",
                "x": x,
                "wrench": wrench,
                "grasp_map": grasp_map,
                "joint_map": joint_map,
            },
        },
    )


def hand_separation_certificate(
    holds: bool,
    value: float,
    z: np.ndarray,
    r: np.ndarray,
    dual_cone_violation: float,
    wrench: np.ndarray,
    grasp_map: np.ndarray,
    joint_map: np.ndarray,
) -> Certificate:
    """``hand_separation``: ``Gᵀz + Aᵀr ∈ K`` (to ``dual_cone_violation``) and ``zᵀw − τᵀ|r| = value > 0``."""
    return Certificate(
        id="hand_separation",
        source=HTL,
        holds=bool(holds),
        margin=value,
        implies="no contact forces inside the cones and the torque limits balance the wrench: for any, "
        "0 <= xᵀ(Gᵀz + Aᵀr) = −zᵀw + rᵀAx <= −(zᵀw − τᵀ|r|) < 0",
        name="hand separating direction",
        data={
            "z": z,
            "r": r,
            "dual_cone_violation": dual_cone_violation,
            "value": value,
            "evidence": {
                "verify": "c = grasp_mapᵀz + joint_mapᵀr has every block c_i = (c_n, c_ν) with ‖c_ν‖ <= c_n, "
                "and zᵀwrench − torque_limitsᵀ|r| > 0",
                "z": z,
                "r": r,
                "wrench": wrench,
                "grasp_map": grasp_map,
                "joint_map": joint_map,
            },
        },
    )


def hand_closure_certificate(
    holds: bool, radius: float, wrenches: list, worst_residual: float, grasp_map: np.ndarray, joint_map: np.ndarray
) -> Certificate:
    """``hand_closure_wrenches``: for each signed axis ``d_k`` the forces ``x_k`` resisting ``radius d_k``, each
    recomputed (``wrenches``: direction, x and residuals per axis): the ball of radius ``radius/√w`` is resisted."""
    r, nw = radius, grasp_map.shape[0]
    return Certificate(
        id="hand_closure_wrenches",
        source=HTL,
        holds=holds,
        margin=r,
        implies=f"the hand resists every wrench of scaled L2 norm <= {r / np.sqrt(nw):.6g} (the "
        f"cross-polytope of radius {r:.6g} is resisted): force closure under the torque limits",
        name="hand closure wrenches",
        data={
            "radius": r,
            "wrenches": wrenches,
            "worst_residual": worst_residual,
            "evidence": {
                "verify": "for each signed axis d_k of the scaled wrench space, x_k satisfies grasp_map x_k "
                "+ radius d_k = 0, every block of x_k in its cone (‖ν‖ <= f_n), |joint_map x_k| "
                "<= torque_limits: every wrench of scaled norm <= radius/√w is resisted",
                "radius": r,
                "directions": [w_["direction"] for w_ in wrenches],
                "x": [w_["x"] for w_ in wrenches],
                "grasp_map": grasp_map,
                "joint_map": joint_map,
            },
        },
    )


def hand_closure_separation_certificate(
    holds: bool,
    torque_budget: float,
    z: np.ndarray,
    r: np.ndarray,
    direction: np.ndarray,
    dual_cone_violation: float,
    grasp_map: np.ndarray,
    joint_map: np.ndarray,
) -> Certificate:
    """``hand_closure_separation``: ``zᵀd = −1``, ``Aᵀr − Gᵀz ∈ K`` (to ``dual_cone_violation``) and
    ``τᵀ|r| = torque_budget ≈ 0``: no admissible force pushes along ``−z``."""
    return Certificate(
        id="hand_closure_separation",
        source=HTL,
        holds=bool(holds),
        margin=-torque_budget,
        implies="zᵀ(G x) <= τᵀ|r| ≈ 0 for every admissible contact force x: the external wrench "
        "along −z (here along d, zᵀd = −1) is resisted by no force within the limits (no closure)",
        name="hand closure separating direction",
        data={
            "z": z,
            "r": r,
            "direction": direction,
            "dual_cone_violation": dual_cone_violation,
            "torque_budget": torque_budget,
            "evidence": {
                "verify": "zᵀdirection = −1; c = joint_mapᵀr − grasp_mapᵀz has every block c_i = (c_n, "
                "c_ν) with ‖c_ν‖ <= c_n; torque_limitsᵀ|r| ≈ 0",
                "z": z,
                "r": r,
                "direction": direction,
                "grasp_map": grasp_map,
                "joint_map": joint_map,
            },
        },
    )


def dynamic_check_certificate(certificate: Certificate, certified: bool) -> Certificate:
    """The dynamic check's certificate: F4's (``coulomb_cones`` or ``coulomb_farkas``/``farkas``), holding only when
    the whole solution is ``certified``."""
    return dataclasses.replace(certificate, holds=bool(certificate.holds) and bool(certified))

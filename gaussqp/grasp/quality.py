"""The Ferrari–Canny grasp quality ε with the exact friction cones bracketed.

The wrench space is the *scaled* one of :mod:`gaussqp.grasp.model` (force, torque / L), with the L2 norm. Contact
``i`` with columns ``G_i = [g_i, N_i]`` (``g_i`` the normal column, ``N_i`` the friction columns; the exact cone
``‖ν‖ <= f_n``) exerts, for ``f_n <= 1``, the wrench set

    ``W_i = { g_i f_n + N_i ν : ‖ν‖ <= f_n <= 1 } = conv({0} ∪ {g_i + N_i u : ‖u‖ <= 1})``.

Its support function is, in closed form (the maximum of a linear function over the ellipsoidal section
``g_i + N_i u`` is at ``u = N_iᵀy / ‖N_iᵀy‖``; the ``0`` of the hull gives the positive part)

    ``h_i(y) = max(0, φ_i(y)),   φ_i(y) = g_iᵀ y + ‖N_iᵀ y‖``.

The two grasp wrench sets of Ferrari and Canny (1992) are

- **L1** (``Σ f_n <= 1``): ``W = conv(∪ W_i)``, support ``h(y) = max_i h_i(y)``;
- **L∞** (each ``f_n <= 1``): ``W = Σ W_i`` (Minkowski sum), support ``h(y) = Σ_i h_i(y)``;

and ``ε = min_{‖y‖ = 1} h(y)``, the radius of the largest origin-centred ball in ``W`` (0 when the origin is not
interior: no force closure). With a polyhedral cone (generators of :meth:`Grasp.cone_generators`) ``W`` becomes a
polytope whose ε is the smallest distance from the origin to a facet of its convex hull (qhull). The inscribed
polygons give a polytope inside ``W`` (a **lower** bound), the circumscribed ones a polytope containing ``W`` (an
**upper** bound); the bracket closes as the facets grow. The exact ε itself minimizes the convex ``h`` over the
sphere (not a convex problem): :func:`epsilon` reports a local minimum started from the polytopes' lowest facets,
a value ``h(y*)`` that is an upper bound of the exact ε and is checked to lie in the bracket.

Certificates (recomputed in NumPy from the data, never taken from qhull's word; created by
:mod:`gaussqp.certificates.grasp`):

- ``grasp_epsilon_bracket``: the lower bound's polytope — every primitive wrench inside every reported facet, each
  facet spanned by ``w`` affinely independent primitive wrenches, the facets closed under adjacency (a closed
  boundary), the inscribed generators inside the exact cones — and the upper bound's direction ``y`` with the
  exact ``h(y) <=`` upper (so the exact ε is at most upper).
- ``grasp_no_closure``: a unit direction ``y`` with ``h(y) <= 0`` for the exact cones (every primitive wrench,
  inscribed or exact, has ``wᵀy <= 0``): no contact forces resist the external wrench ``−y``; ε = 0 in both norms.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..certificates.grasp import epsilon_bracket_certificate, no_closure_certificate
from ..errors import InputTooLargeError, ShapeError, UnknownValueError, WrongTypeError
from ..model.validation import real_array
from ..settings import (
    DEFAULT_FACETS,
    GRASP_FACETS_MAX,
    GRASP_EPSILON_RTOL,
    GRASP_EPSILON_SEARCH_ITER,
    GRASP_EPSILON_SEARCH_TOL,
    GRASP_EPSILON_STARTS,
    GRASP_MINKOWSKI_POINTS_MAX,
    GRASP_RANK_RTOL,
)
from .model import Grasp, GraspCheck

NORMS = ("L1", "Linf")


# ---------------------------------------------------------------------------------------------- exact support
def _blocks(grasp: Grasp) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per contact ``(g_i, N_i)``: the normal column and the friction columns of the scaled grasp map."""
    G = grasp.grasp_map(scaled=True)
    return [(G[:, s][:, 0], G[:, s][:, 1:]) for s in grasp.offsets()]


def _phi(blocks, y: np.ndarray) -> np.ndarray:
    """``φ_i(y) = g_iᵀy + ‖N_iᵀy‖`` per contact."""
    return np.array([g @ y + (float(np.linalg.norm(N.T @ y)) if N.shape[1] else 0.0) for g, N in blocks])


def support_function(grasp: Grasp, y, *, norm: str = "L1") -> float:
    """The support function ``h(y) = max_{w ∈ W} yᵀw`` of the grasp's exact wrench set (scaled wrench space).

    L1: ``h(y) = max_i max(0, g_iᵀy + ‖N_iᵀy‖)``; L∞: ``Σ_i max(0, g_iᵀy + ‖N_iᵀy‖)`` (module docstring; Ferrari &
    Canny 1992 for the two sets, the closed form from the maximum of a linear function over an ellipse).
    """
    _check_grasp(grasp)
    _check_norm(norm)
    y = real_array("y", y, 1)
    if y.size != grasp.wrench_dimension:
        raise ShapeError(
            "y", f"has {y.size} entries", f"give a direction in the {grasp.wrench_dimension}-entry scaled wrench space"
        )
    h = np.maximum(_phi(_blocks(grasp), y), 0.0)
    return float(h.max() if norm == "L1" else h.sum())


# ---------------------------------------------------------------------------------------------- polytopes
def _rank_direction(P: np.ndarray, scale: float) -> np.ndarray | None:
    """A unit ``y`` orthogonal to every column of ``P`` when they span less than the whole space, else None."""
    w = P.shape[0]
    U, s, _ = np.linalg.svd(P, full_matrices=True)
    s = np.concatenate([s, np.zeros(max(0, w - s.size))])
    if s[w - 1] <= GRASP_RANK_RTOL * max(scale, s[0]):
        return U[:, w - 1]
    return None


def _hull_vertices(P: np.ndarray, scale: float) -> np.ndarray:
    """The columns of ``P`` that are vertices of its convex hull (in the span of ``P`` when it is flat)."""
    from scipy.spatial import ConvexHull, QhullError

    if P.shape[1] <= P.shape[0] + 1:
        return P
    U, s, _ = np.linalg.svd(P, full_matrices=False)
    r = int(np.sum(s > GRASP_RANK_RTOL * max(scale, s[0] if s.size else 0.0)))
    if r == 0:
        return P[:, :1]
    Q = U[:, :r].T @ P
    if r == 1:
        return P[:, [int(np.argmin(Q[0])), int(np.argmax(Q[0]))]]
    try:
        return P[:, ConvexHull(Q.T).vertices]
    except QhullError:  # nearly coplanar points qhull cannot merge: keep them all (the final hull decides)
        return P


def polytope_points(grasp: Grasp, facets: int, kind: str, norm: str) -> np.ndarray:
    """The points whose convex hull is the polyhedral wrench set (columns, scaled wrench space).

    L1: the origin and every primitive wrench (:meth:`Grasp.primitive_wrenches`); L∞: the Minkowski sum of the
    contacts' ``{0} ∪ generators``, accumulated contact by contact and pruned to the hull's vertices at each step.
    """
    _check_norm(norm)
    W, owner = grasp.primitive_wrenches(facets, kind)
    w = grasp.wrench_dimension
    if norm == "L1":
        return np.column_stack([np.zeros(w), W])
    scale = float(np.max(np.linalg.norm(W, axis=0)))
    S = np.zeros((w, 1))
    for i in range(grasp.m):
        Pi = np.column_stack([np.zeros(w), W[:, owner == i]])
        if S.shape[1] * Pi.shape[1] > GRASP_MINKOWSKI_POINTS_MAX:
            raise InputTooLargeError(
                "facets",
                f"makes {S.shape[1] * Pi.shape[1]} candidate points of the L∞ wrench "
                f"set (more than {GRASP_MINKOWSKI_POINTS_MAX})",
                "use fewer facets or norm='L1' (gaussqp.settings.GRASP_MINKOWSKI_POINTS_MAX)",
            )
        S = (S[:, :, None] + Pi[:, None, :]).reshape(w, -1)
        S = _hull_vertices(S, scale * (i + 1))
    return S


def _qhull(P: np.ndarray):
    """qhull's hull of the columns of ``P``; on a precision error (nearly coplanar points merged into a wide facet)
    once more with joggled input (option QJ): the facets are then rechecked against the exact points by
    :func:`_verify_hull`, which fails (an uncertified bound) if the joggle moved them by more than the tolerance."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        return ConvexHull(P.T)
    except QhullError:
        return ConvexHull(P.T, qhull_options="QJ")


def _polytope_epsilon(P: np.ndarray) -> dict:
    """ε of ``conv(P)`` (which contains the origin): ``min`` over the hull's facets of their distance to the origin;
    0 with the facet (or the orthogonal direction of a flat set) that does not separate."""
    scale = float(np.max(np.linalg.norm(P, axis=0)))
    tol = GRASP_EPSILON_RTOL * scale
    y = _rank_direction(P, scale)
    if y is None:
        hull = _qhull(P)
        normals, offsets = hull.equations[:, :-1], hull.equations[:, -1]
        k = int(np.argmin(-offsets))
        eps = float(-offsets[k])
        if eps > tol:
            return {
                "epsilon": eps,
                "direction": normals[k],
                "hull": hull,
                "scale": scale,
                "flat": False,
                "volume": float(hull.volume),
            }
        y = normals[k]
        volume = float(hull.volume)
    else:
        volume = 0.0  # a flat set
    # no interior ball: orient y so that every point has yᵀp <= 0 (a flat set: either sign; pick the lower one)
    if float(np.max(y @ P)) > float(np.max(-y @ P)):
        y = -y
    return {
        "epsilon": 0.0,
        "direction": y / np.linalg.norm(y),
        "hull": None,
        "scale": scale,
        "flat": True,
        "volume": volume,
    }


def _verify_hull(P: np.ndarray, hull, scale: float) -> tuple[bool, str]:
    """Recompute that qhull's facets are the facets of ``conv(P)``: every point inside every facet, each facet
    spanned by ``w`` affinely independent points on it, and the facets' adjacency symmetric with ``w`` neighbours
    each (a closed boundary with no facet missing)."""
    w = P.shape[0]
    tol = GRASP_EPSILON_RTOL * scale
    E = hull.equations
    if not np.allclose(np.linalg.norm(E[:, :-1], axis=1), 1.0, rtol=GRASP_EPSILON_RTOL, atol=0.0):
        return False, "a facet normal is not a unit vector"
    slack = E[:, :-1] @ P + E[:, -1:]
    if float(np.max(slack)) > tol:
        return False, f"a point lies {float(np.max(slack)):.3g} outside a facet"
    # qhull's facets are simplicial (option Qt): the w points of each simplex lie on it and are affinely independent
    V = P.T[hull.simplices]  # (F, w, w)
    on = np.take_along_axis(slack, hull.simplices, axis=1)
    if float(np.max(np.abs(on))) > tol:
        return False, "a facet's own vertices are off its hyperplane"
    D = V[:, 1:, :] - V[:, :1, :]  # (F, w-1, w)
    sv = np.linalg.svd(D, compute_uv=False)
    # a triangulated piece of a non-simplicial facet may be flat (qhull's Qt): then the points on its hyperplane
    # must span it
    flat = np.flatnonzero(sv[:, -1] <= GRASP_RANK_RTOL * scale)
    if flat.size:
        # the pieces of one facet share its points: each distinct set of points on a hyperplane is checked once
        on_sets, first = np.unique(np.abs(slack[flat]) <= tol, axis=0, return_index=True)
        for mask, k in zip(on_sets, flat[first]):
            on = P[:, mask]
            if on.shape[1] < w or np.linalg.matrix_rank(on[:, 1:] - on[:, :1], tol=GRASP_RANK_RTOL * scale) < w - 1:
                return False, f"facet {k} is not spanned by {w} affinely independent points"
    nb = hull.neighbors
    if nb.shape[1] != w or np.any(nb < 0):
        return False, "a facet lacks a neighbour (the boundary is not closed)"
    back = (hull.neighbors[nb] == np.arange(nb.shape[0])[:, None, None]).any(axis=2)
    if not bool(np.all(back)):
        return False, "the facet adjacency is not symmetric"
    return True, "verified"


# ---------------------------------------------------------------------------------------------- exact ε (local)
def _exact_search(blocks, starts: list[np.ndarray], norm: str, scale: float) -> tuple[float, np.ndarray]:
    """A local minimum of ``h`` over the unit sphere from each start (SLSQP on the epigraph); the best ``h(y)``."""
    from scipy.optimize import minimize

    def h(y):
        y = y / np.linalg.norm(y)
        p = np.maximum(_phi(blocks, y), 0.0)
        return float(p.max() if norm == "L1" else p.sum())

    def grad_phi(y):
        out = []
        for g, N in blocks:
            gr = g.copy()
            if N.shape[1]:
                v = N.T @ y
                nv = float(np.linalg.norm(v))
                if nv > 0:
                    gr = gr + N @ v / nv
            out.append(gr)
        return np.array(out)

    m, w = len(blocks), blocks[0][0].size
    best_val, best_y = np.inf, starts[0]
    for y0 in starts:
        y0 = y0 / np.linalg.norm(y0)
        v0 = h(y0)
        if v0 < best_val:
            best_val, best_y = v0, y0
        # unknowns z = (y, t) (L1: one t >= φ_i) or (y, s_1..s_m) (L∞: s_i >= φ_i, s_i >= 0)
        nt = 1 if norm == "L1" else m
        p0 = np.maximum(_phi(blocks, y0), 0.0)
        z0 = np.concatenate([y0, [p0.max()] if norm == "L1" else p0])
        if norm == "L1":

            def cons_f(z):
                return z[w] - _phi(blocks, z[:w])

            def cons_j(z):
                return np.column_stack([-grad_phi(z[:w]), np.ones(m)])
        else:

            def cons_f(z):
                return z[w:] - _phi(blocks, z[:w])

            def cons_j(z):
                return np.column_stack([-grad_phi(z[:w]), np.eye(m)])

        cons = [
            {"type": "ineq", "fun": cons_f, "jac": cons_j},
            {
                "type": "eq",
                "fun": lambda z: np.array([z[:w] @ z[:w] - 1.0]),
                "jac": lambda z: np.concatenate([2 * z[:w], np.zeros(nt)])[None, :],
            },
        ]
        bounds = [(None, None)] * w + [(0.0, None)] * nt
        res = minimize(
            lambda z: float(np.sum(z[w:])),
            z0,
            jac=lambda z: np.concatenate([np.zeros(w), np.ones(nt)]),
            method="SLSQP",
            constraints=cons,
            bounds=bounds,
            options={"ftol": GRASP_EPSILON_SEARCH_TOL * scale, "maxiter": GRASP_EPSILON_SEARCH_ITER},
        )
        y = res.x[:w]
        if np.all(np.isfinite(y)) and np.linalg.norm(y) > 0:
            v = h(y)
            if v < best_val:
                best_val, best_y = v, y / np.linalg.norm(y)
    return best_val, best_y


def _lowest_facets(hull, k: int) -> list[np.ndarray]:
    if hull is None:
        return []
    order = np.argsort(-hull.equations[:, -1])[:k]
    return [hull.equations[j, :-1] for j in order]


# ---------------------------------------------------------------------------------------------- the check
def _check_grasp(grasp) -> None:
    if not isinstance(grasp, Grasp):
        raise WrongTypeError("grasp", f"is a {type(grasp).__name__}", "give a gaussqp.grasp.Grasp")


def _check_norm(norm) -> None:
    if norm not in NORMS:
        raise UnknownValueError("norm", f"is {norm!r}", "use 'L1' (Σ f_n <= 1) or 'Linf' (each f_n <= 1)")


def epsilon(grasp: Grasp, *, facets: int = DEFAULT_FACETS, norm: str = "L1", exact: bool = True) -> GraspCheck:
    """The Ferrari–Canny quality ε of a grasp, the exact friction cones bracketed (module docstring).

    Parameters
    ----------
    grasp : :class:`~gaussqp.grasp.Grasp`
    facets : polygon sides of the spatial hard fingers' cones (sphere points of the soft fingers'); planar hard
        fingers are exact with their two edges
    norm : ``"L1"`` (the convex hull of the contacts' unit wrench sets, ``Σ f_n <= 1``) or ``"Linf"`` (their
        Minkowski sum, each ``f_n <= 1``)
    exact : also search the exact-cone ε (a local minimum of the closed-form support function over the sphere)

    Returns
    -------
    GraspCheck
        ``check = "epsilon"``, ``value = {"lower", "upper", "facets", "norm", "torque_scale", "exact",
        "exact_direction", "direction"}`` in the scaled wrench space (force, torque / L), L2 norm. ``holds`` True
        when ``lower > 0`` (force closure, the ball of radius ``lower`` certified inside the wrench set), False when
        ``upper = 0`` (no closure: ``certificate`` ``grasp_no_closure`` with the direction), None in between (refine
        the facets). ``margin`` is ``lower``.

    Source: Ferrari & Canny, *Planning optimal grasps* (ICRA 1992) for ε and its two forms; the bracket by inscribed
    and circumscribed polyhedral cones; qhull (``scipy.spatial.ConvexHull``) for the polytopes.
    """
    _check_grasp(grasp)
    _check_norm(norm)
    if not isinstance(exact, bool):
        raise WrongTypeError("exact", f"is a {type(exact).__name__}", "give True or False")
    if not isinstance(facets, (int, np.integer)) or isinstance(facets, bool) or facets < 1 or facets > GRASP_FACETS_MAX:
        raise UnknownValueError(
            "facets",
            f"is {facets!r}",
            "give a positive integer number of polygon sides "
            f"(at least 3 for spatial hard fingers, 6 for soft ones; at most {GRASP_FACETS_MAX}, "
            "gaussqp.settings.GRASP_FACETS_MAX)",
        )
    times = {}
    blocks = _blocks(grasp)
    t0 = time.perf_counter()
    P_out = polytope_points(grasp, facets, "outer", norm)
    outer = _polytope_epsilon(P_out)
    times["outer"] = time.perf_counter() - t0
    upper = outer["epsilon"]
    t0 = time.perf_counter()
    P_in = polytope_points(grasp, facets, "inner", norm)
    inner: dict[str, Any]
    if upper == 0.0:  # no closure even with the circumscribed cones: the inscribed polytope's hull is not needed
        inner = {"epsilon": 0.0, "hull": None, "scale": float(np.max(np.linalg.norm(P_in, axis=0))), "volume": None}
    else:
        inner = _polytope_epsilon(P_in)
    times["inner"] = time.perf_counter() - t0
    lower = inner["epsilon"]
    scale = max(inner["scale"], outer["scale"])
    tol = GRASP_EPSILON_RTOL * scale

    def h_exact(y):
        gap = np.maximum(_phi(blocks, y), 0.0)
        return float(gap.max() if norm == "L1" else gap.sum())

    value = {
        "lower": lower,
        "upper": upper,
        "facets": int(facets),
        "norm": norm,
        "torque_scale": grasp.torque_scale,
        "volume_lower": inner["volume"],
        "volume_upper": outer["volume"],
    }

    if upper == 0.0:
        # no closure even with the circumscribed cones: the direction separates the exact wrench set too
        y = outer["direction"]
        phi = _phi(blocks, y)
        worst = float(np.max(phi))
        ok = worst <= tol and abs(float(np.linalg.norm(y)) - 1.0) <= GRASP_EPSILON_RTOL
        cert = no_closure_certificate(ok, y, worst, tol, outer["flat"])
        value.update(
            {"lower": 0.0, "exact": 0.0 if exact else None, "exact_direction": y if exact else None, "direction": y}
        )
        return GraspCheck(
            "epsilon",
            False,
            cert,
            margin=0.0,
            value=value,
            times=times,
            reason="no force closure: ε = 0 (the certificate's direction cannot be resisted)",
        )

    # the bracket: lower from the inscribed polytope (its hull verified), upper from the circumscribed one's
    # minimizing facet normal, at which the exact support is at most upper
    notes = []
    ok_lower = True
    if lower > 0.0:
        ok_lower, why = _verify_hull(P_in, inner["hull"], inner["scale"])
        notes.append(f"inner hull: {why}")
        cones_in = max(
            float(np.max(np.linalg.norm(grasp.cone_generators(i, facets, "inner")[:, 1:], axis=1))) if c.nu_dim else 0.0
            for i, c in enumerate(grasp.contacts)
        )
        if cones_in > 1.0 + GRASP_EPSILON_RTOL:
            ok_lower = False
            notes.append("an inscribed generator lies outside its exact cone")
    y_up = outer["direction"]
    h_up = h_exact(y_up)
    ok_upper = h_up <= upper + tol
    notes.append(f"exact h at the outer facet normal {h_up:.6g} <= upper {upper:.6g}: {ok_upper}")
    times["exact"] = 0.0
    if exact:
        t0 = time.perf_counter()
        starts = (
            _lowest_facets(outer["hull"], GRASP_EPSILON_STARTS) + _lowest_facets(inner["hull"], GRASP_EPSILON_STARTS)
        ) or [y_up]
        ex, ey = _exact_search(blocks, starts, norm, scale)
        times["exact"] = time.perf_counter() - t0
        in_bracket = lower - tol <= ex <= upper + tol
        notes.append(f"exact-cone ε (local search) {ex:.6g} in the bracket: {in_bracket}")
        value.update({"exact": ex, "exact_direction": ey})
        ok_upper = ok_upper and in_bracket
    else:
        value.update({"exact": None, "exact_direction": None})
    value["direction"] = y_up
    cert = epsilon_bracket_certificate(
        ok_lower and ok_upper,
        lower,
        upper,
        norm,
        grasp.torque_scale,
        y_up,
        h_up,
        0 if inner["hull"] is None else int(inner["hull"].equations.shape[0]),
        tol,
        notes,
    )
    if lower > 0.0:
        return GraspCheck(
            "epsilon",
            True,
            cert,
            margin=lower,
            value=value,
            times=times,
            reason=f"force closure: ε in [{lower:.6g}, {upper:.6g}]",
        )
    return GraspCheck(
        "epsilon",
        None,
        cert,
        margin=0.0,
        value=value,
        times=times,
        reason=(
            f"undecided at {facets} facets: the inscribed cones give no closure, the circumscribed "
            f"ε = {upper:.6g}; give more facets (or run the exact force-closure check)"
        ),
    )


# ---------------------------------------------------------------------------------------------- planner metrics
def grasp_metrics(
    grasp: Grasp, *, facets: int = DEFAULT_FACETS, norm: str = "L1", epsilon_check: GraspCheck | None = None
) -> GraspCheck:
    """The grasp metrics planners rank by, besides ε and min-weight.

    - ``sigma_min``, ``sigma_max``: the extreme singular values of the scaled grasp map ``G`` (cone coordinates
      ``x_i = (f_n, ν)``, torque rows divided by ``L``): the least wrench per unit contact force in the worst
      direction (Li & Sastry, "Task-oriented optimal grasping by multifingered robot hands", IEEE J. Robot. Autom.
      4 (1988); Roa & Suárez, "Grasp quality measures: review and performance", Auton. Robots 38 (2015) §3.1).
      Exact up to LAPACK's backward-stable round-off.
    - ``isotropy``: ``σ_min / σ_max`` (Kim, Chung, Park 2001; Roa & Suárez §3.1.3), 0 for a rank-deficient map.
    - ``volume_lower``, ``volume_upper``: the volume of the grasp wrench set (Miller & Allen, "Examples of 3D grasp
      quality computations", ICRA 1999) bracketed by the inscribed and circumscribed polytopes of
      :func:`epsilon` (``inscribed ⊂ exact ⊂ circumscribed`` gives the bracket; qhull's volumes, not recomputed).

    ``epsilon_check``: an :func:`epsilon` result of the same grasp, facets and norm, whose hull volumes are reused.
    ``holds`` is None (metrics, not a verdict) and there is no certificate.
    """
    _check_grasp(grasp)
    _check_norm(norm)
    G = grasp.grasp_map(scaled=True)
    s = np.linalg.svd(G, compute_uv=False)
    w = G.shape[0]
    smax = float(s[0]) if s.size else 0.0
    smin = float(s[w - 1]) if s.size >= w else 0.0
    value: dict = {"sigma_min": smin, "sigma_max": smax, "isotropy": smin / smax if smax > 0 else 0.0}
    ev = {} if epsilon_check is None else epsilon_check.value
    for key, kind in (("volume_lower", "inner"), ("volume_upper", "outer")):
        v = ev.get(key)  # reused from ε when it computed that hull (it skips the inner one without closure)
        value[key] = v if v is not None else _polytope_epsilon(polytope_points(grasp, facets, kind, norm))["volume"]
    value.update({"facets": int(facets), "norm": norm, "torque_scale": grasp.torque_scale})
    return GraspCheck(
        "metrics", None, None, smin, value, "metrics: σ_min and isotropy exact (SVD), volume bracketed by the polytopes"
    )


__all__ = ["NORMS", "epsilon", "grasp_metrics", "polytope_points", "support_function"]

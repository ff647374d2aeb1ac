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
polygons give a polytope inside ``W``: a **lower** bound. Any unit ``y`` gives an **upper** bound ``ε <= h(y)``
(the ball of radius ε lies in the half-space ``yᵀw <= h(y)``); :func:`epsilon` takes the least ``h`` over the
normals of the inscribed hull's lowest facets and one step down ``h`` from there (``argmin h`` over the tangent
plane ``y₀ᵀy = 1``, a small SOCP). The bracket closes as the facets grow. The exact ε itself minimizes the convex
``h`` over the sphere (not a convex problem): :func:`epsilon` can also report a local minimum (SLSQP) started from
those directions, an upper bound of the exact ε checked to lie in the bracket.

Speed (issue #30): the inscribed polytope's ε is computed on a subset of its points grown on demand
(:func:`_lazy_polytope_epsilon`: the hull of a few generators per contact, extended by the points beyond its facets
nearer the origin than its nearest facet that supports all of them; the same ε as the hull of all of them, with a
fifth of the facets), and the circumscribed polytope is only built when the inscribed one shows no closure and the
margin SOCP of :func:`~gaussqp.grasp.closure.force_closure` (Clarabel, called directly) neither found an unresisted
wrench nor an internal force.

Certificates (recomputed in NumPy from the data, never taken from qhull's word; created by
:mod:`gaussqp.certificates.grasp`):

- ``grasp_epsilon_bracket``: the lower bound's polytope — every primitive wrench inside every reported facet, each
  facet spanned by ``w`` affinely independent primitive wrenches, the facets closed under adjacency (a closed
  boundary), the inscribed generators inside the exact cones — and the upper bound's direction ``y`` with the
  exact ``h(y) <=`` upper (so the exact ε is at most upper).
- ``grasp_no_closure``: a unit direction ``y`` with ``h(y) <= 0`` for the exact cones (every primitive wrench,
  inscribed or exact, has ``wᵀy <= 0``): no contact forces resist the external wrench ``−y``; ε = 0 in both norms.
  The direction comes from the margin SOCP's multiplier, the inscribed polytope's separating facet or the
  circumscribed one's, whichever is found first and passes.
"""

from __future__ import annotations

import time

import numpy as np

from ..certificates.grasp import epsilon_bracket_certificate, no_closure_certificate
from ..errors import InputTooLargeError, ShapeError, UnknownValueError, WrongTypeError
from ..model.validation import real_array
from ..settings import (
    DEFAULT_FACETS,
    GRASP_FACETS_MAX,
    GRASP_EPSILON_LAZY_START,
    GRASP_EPSILON_RTOL,
    GRASP_EPSILON_SEARCH_ITER,
    GRASP_EPSILON_SEARCH_TOL,
    GRASP_EPSILON_STARTS,
    GRASP_EPSILON_UPPER_STEPS,
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


def _points_and_owner(grasp: Grasp, facets: int, kind: str, norm: str) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`polytope_points` and, for L1, the contact of each point after the origin (None for L∞)."""
    if norm == "L1":
        W, owner = grasp.primitive_wrenches(facets, kind)
        return np.column_stack([np.zeros(grasp.wrench_dimension), W]), owner
    return polytope_points(grasp, facets, kind, norm), None


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


def _start_subset(owner: np.ndarray | None, count: int) -> np.ndarray:
    """Column indices of the first hull's points: the origin (column 0) and ``count`` evenly spaced generators of
    each contact (all columns when ``owner`` is None, the L∞ Minkowski sum)."""
    if owner is None:
        return np.arange(0)
    start = [0]
    for i in np.unique(owner):
        ids = np.flatnonzero(owner == i) + 1
        start += ids[np.unique(np.linspace(0, ids.size, count, endpoint=False).astype(int))].tolist()
    return np.array(start)


def _subset_hull(P: np.ndarray):
    """qhull's hull of the columns of ``P``, first without merging facets (option Q0: about three times faster, and a
    precision problem is an error instead of a merge), else with qhull's default merging."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        return ConvexHull(P.T, qhull_options="Qt Q0")
    except QhullError:
        return ConvexHull(P.T)


def _closure_probe(grasp: Grasp, blocks, tol: float) -> tuple[np.ndarray | None, bool | None]:
    """The exact-cone closure question put to the margin SOCP of :func:`~gaussqp.grasp.closure.force_closure`, sent
    to Clarabel directly: ``(y, False)`` with a unit ``y`` whose exact support ``max_i g_iᵀy + ‖N_iᵀy‖`` is at most
    ``tol`` (checked here: no closure, ε = 0 in both norms), ``(None, True)`` when the program found an internal
    force with a positive margin (closure; only used to skip the circumscribed hull), else ``(None, None)``."""
    from .closure import margin_program

    G = grasp.grasp_map(scaled=True)
    x, z, _ = margin_program(tuple(grasp.sizes()), G.shape[0]).candidates(G, grasp.m)
    if x is not None:
        return None, True
    if z is None or not np.all(np.isfinite(z)) or float(np.linalg.norm(z)) == 0.0:
        return None, None
    for y in (z, -z):
        y = y / np.linalg.norm(y)
        if float(np.max(_phi(blocks, y))) <= tol:
            return y, False
    return None, None


def _lazy_polytope_epsilon(P: np.ndarray, owner: np.ndarray | None) -> dict:
    """ε of ``conv(P)`` (as :func:`_polytope_epsilon`) from the hull of a subset ``S`` of the columns grown on demand.

    ``conv(S) ⊂ conv(P)`` gives ``ε(S) <= ε(P)``. When the facet of ``conv(S)`` nearest the origin has no point of
    ``P`` beyond it (to ``GRASP_EPSILON_RTOL`` × the scale), that facet supports ``conv(P)`` too and
    ``ε(P) = ε(S)``; otherwise each facet nearer than the nearest such facet gets its furthest point beyond, and
    the hull is rebuilt. Each round adds a point, so it
    ends, at the latest with ``S = P``. The returned ``hull`` and ``points`` are those of ``conv(S)``: the lower
    bound's certificate verifies that hull (:func:`_verify_hull`), which is all the bound needs (``S ⊂ P``).
    ``P``'s column 0 is the origin (:func:`polytope_points`); ``owner`` the contact of each other column.
    """
    from scipy.spatial import QhullError

    scale = float(np.max(np.linalg.norm(P, axis=0)))
    tol = GRASP_EPSILON_RTOL * scale
    n = P.shape[1]
    start = _start_subset(owner, GRASP_EPSILON_LAZY_START)
    if start.size == 0 or start.size >= n or _rank_direction(P, scale) is not None:
        out = _polytope_epsilon(P)
        out["points"] = P
        return out
    chosen = np.zeros(n, dtype=bool)
    chosen[start] = True
    if _rank_direction(P[:, chosen], scale) is not None:  # a flat start (coplanar generators): every point
        chosen[:] = True
    while True:
        cols = np.flatnonzero(chosen)
        hull = None
        if cols.size < n:
            try:
                hull = _subset_hull(P[:, cols])  # rebuilt each round: qhull's incremental mode can exit the process
            except QhullError:
                pass
        if hull is None:  # every point chosen, or qhull failed on a subset: the full path (joggled if need be)
            out = _polytope_epsilon(P)
            out["points"] = P
            return out
        E = hull.equations
        dist = -E[:, -1]
        beyond = E[:, :-1] @ P + E[:, -1:]
        supporting = np.max(beyond, axis=1) <= tol
        k = int(np.argmin(dist))
        nearest_supporting = float(np.min(dist[supporting])) if supporting.any() else np.inf
        if nearest_supporting <= dist[k]:
            k = int(np.flatnonzero(supporting)[np.argmin(dist[supporting])])  # a tie: the supporting one
            break
        bad = np.flatnonzero(~supporting & (dist < nearest_supporting))
        far = np.where(chosen[None, :], -np.inf, beyond[bad])
        added = np.unique(np.argmax(far, axis=1))
        added = added[~chosen[added]]
        added = added[np.max(beyond[np.ix_(bad, added)], axis=0) > tol]
        if not added.size:  # qhull's round-off left a chosen point outside: start over from every point
            chosen[:] = True
            hull = None
            continue
        chosen[added] = True
    eps = float(dist[k])
    y = E[k, :-1]
    S = P[:, chosen]
    if eps > tol:
        return {
            "epsilon": eps,
            "direction": y,
            "hull": hull,
            "scale": scale,
            "flat": False,
            "volume": None,
            "points": S,
        }
    # the facet through (or beyond) the origin supports conv(P): no interior ball, y separates every point
    return {
        "epsilon": 0.0,
        "direction": y / np.linalg.norm(y),
        "hull": None,
        "scale": scale,
        "flat": True,
        "volume": None,
        "points": S,
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
    # the least singular value of each D, screened by a determinant: with the unit normal n appended,
    # |det [D; nᵀ]| <= Π σ_i(D), so σ_min(D) >= |det| / ‖D‖_F^(w-2); the SVD only where that bound is not enough
    # (the determinant's round-off, 64 ε Π‖rows‖, taken off first)
    M = np.concatenate([D, E[:, None, :-1]], axis=1)
    det = np.abs(np.linalg.det(M)) - 64 * np.finfo(float).eps * np.prod(np.linalg.norm(M, axis=2), axis=1)
    smin = np.full(D.shape[0], np.inf)
    unsure = np.flatnonzero(det <= GRASP_RANK_RTOL * scale * np.linalg.norm(D, axis=(1, 2)) ** (w - 2))
    if unsure.size:
        smin[unsure] = np.linalg.svd(D[unsure], compute_uv=False)[:, -1]
    # a triangulated piece of a non-simplicial facet may be flat (qhull's Qt): then the points on its hyperplane
    # must span it
    flat = np.flatnonzero(smin <= GRASP_RANK_RTOL * scale)
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


def _tangent_step(blocks, y0: np.ndarray, norm: str) -> np.ndarray | None:
    """One step down the exact support function: ``argmin h(y)`` over the tangent plane ``y0ᵀy = 1`` (convex: an
    SOCP, Clarabel called directly), returned as a unit vector, or None when Clarabel does not report it solved.
    As ``h`` is positively homogeneous and ``‖y‖ >= 1`` on that plane, ``h(y/‖y‖) <= h(y) <= h(y0)``: the step never
    climbs. Variables ``(y, t)`` (L1: ``g_iᵀy + ‖N_iᵀy‖ <= t`` for every contact) or ``(y, s_1..s_m)`` (L∞:
    ``g_iᵀy + ‖N_iᵀy‖ <= s_i``, ``s_i >= 0``, minimize ``Σ s_i``)."""
    import clarabel
    import scipy.sparse as sp

    w, m = y0.size, len(blocks)
    nt = 1 if norm == "L1" else m
    rows: list[np.ndarray] = [np.concatenate([y0, np.zeros(nt)])[None, :]]
    cones: list = [clarabel.ZeroConeT(1)]
    b = [1.0]
    if norm == "Linf":
        rows.append(np.hstack([np.zeros((m, w)), -np.eye(m)]))
        cones.append(clarabel.NonnegativeConeT(m))
        b += [0.0] * m
    for i, (g, N) in enumerate(blocks):
        k = N.shape[1]
        blk = np.zeros((k + 1, w + nt))
        blk[0, :w], blk[0, w + (0 if norm == "L1" else i)] = g, -1.0  # s_0 = t − gᵀy
        blk[1:, :w] = -N.T  # s_j = N_jᵀy
        rows.append(blk)
        cones.append(clarabel.NonnegativeConeT(1) if k == 0 else clarabel.SecondOrderConeT(k + 1))
        b += [0.0] * (k + 1)
    A = sp.csc_matrix(np.vstack(rows))
    q = np.concatenate([np.zeros(w), np.ones(nt)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    try:
        sol = clarabel.DefaultSolver(sp.csc_matrix((w + nt, w + nt)), q, A, np.array(b), cones, settings).solve()
    except Exception:  # a solver failure only ends the descent
        return None
    if str(sol.status) != "Solved":
        return None
    y = np.asarray(sol.x, dtype=float)[:w]
    ny = float(np.linalg.norm(y))
    return y / ny if np.all(np.isfinite(y)) and ny > 0 else None


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


def _no_closure(blocks, y: np.ndarray, tol: float, value: dict, exact: bool, times: dict) -> GraspCheck:
    """ε = 0 with the certificate ``grasp_no_closure``: the exact support at the unit ``y`` is at most ``tol``
    (a flat wrench set when at ``−y`` too)."""
    worst = float(np.max(_phi(blocks, y)))
    ok = worst <= tol and abs(float(np.linalg.norm(y)) - 1.0) <= GRASP_EPSILON_RTOL
    flat = float(np.max(_phi(blocks, -y))) <= tol
    cert = no_closure_certificate(ok, y, worst, tol, flat)
    value.update({"lower": 0.0, "upper": 0.0, "exact": 0.0 if exact else None, "exact_direction": y if exact else None})
    value["direction"] = y
    return GraspCheck(
        "epsilon",
        False,
        cert,
        margin=0.0,
        value=value,
        times=times,
        reason="no force closure: ε = 0 (the certificate's direction cannot be resisted)",
    )


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
        the facets). ``margin`` is ``lower``. ``upper`` is the exact support at ``direction`` (module docstring);
        the bracket does not depend on ``exact``.

    Source: Ferrari & Canny, *Planning optimal grasps* (ICRA 1992) for ε and its two forms; the lower bound by
    inscribed polyhedral cones, qhull (``scipy.spatial.ConvexHull``) for the polytope; the upper bound by the exact
    support function (``ε = min_{‖y‖=1} h(y)``).
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

    def h_exact(y):
        gap = np.maximum(_phi(blocks, y), 0.0)
        return float(gap.max() if norm == "L1" else gap.sum())

    t0 = time.perf_counter()
    P_in, owner = _points_and_owner(grasp, facets, "inner", norm)
    scale0 = float(np.max(np.linalg.norm(P_in, axis=0)))
    y_sep, closed = _closure_probe(grasp, blocks, GRASP_EPSILON_RTOL * scale0)
    times["probe"] = time.perf_counter() - t0
    value = {"lower": 0.0, "facets": int(facets), "norm": norm, "torque_scale": grasp.torque_scale}
    if y_sep is not None:
        return _no_closure(blocks, y_sep, GRASP_EPSILON_RTOL * scale0, value, exact, times)
    t0 = time.perf_counter()
    inner = _lazy_polytope_epsilon(P_in, owner)
    notes = []
    ok_lower = True
    if inner["epsilon"] > 0.0:
        ok_lower, why = _verify_hull(inner["points"], inner["hull"], inner["scale"])
        notes.append(f"inner hull ({inner['points'].shape[1]} of the inscribed points): {why}")
        cones_in = max(
            float(np.max(np.linalg.norm(grasp.cone_generators(i, facets, "inner")[:, 1:], axis=1))) if c.nu_dim else 0.0
            for i, c in enumerate(grasp.contacts)
        )
        if cones_in > 1.0 + GRASP_EPSILON_RTOL:
            ok_lower = False
            notes.append("an inscribed generator lies outside its exact cone")
    times["inner"] = time.perf_counter() - t0
    lower = inner["epsilon"]
    value["lower"] = lower
    scale = inner["scale"]
    if lower > 0.0:
        candidates = _lowest_facets(inner["hull"], GRASP_EPSILON_STARTS)
    elif float(np.max(_phi(blocks, inner["direction"]))) <= GRASP_EPSILON_RTOL * scale:
        # the inscribed polytope's separating direction separates the exact cones too
        return _no_closure(blocks, inner["direction"], GRASP_EPSILON_RTOL * scale, value, exact, times)
    elif closed:
        # the exact cones close (the probe's internal force), the inscribed ones do not: an open bracket whose upper
        # end is the exact support at the inscribed polytope's separating direction
        candidates = [inner["direction"]]
    else:
        # the inscribed cones give no closure: the circumscribed ones decide "no closure", else the bracket is open
        t0 = time.perf_counter()
        outer = _lazy_polytope_epsilon(*_points_and_owner(grasp, facets, "outer", norm))
        times["outer"] = time.perf_counter() - t0
        scale = max(scale, outer["scale"])
        tol = GRASP_EPSILON_RTOL * scale
        if outer["epsilon"] == 0.0:  # the direction separates the circumscribed polytope, hence the exact set too
            return _no_closure(blocks, outer["direction"], tol, value, exact, times)
        candidates = _lowest_facets(outer["hull"], GRASP_EPSILON_STARTS) or [outer["direction"]]
    tol = GRASP_EPSILON_RTOL * scale
    # the upper bound: the exact support function at the candidate directions (unit), the least of them
    units = [y / np.linalg.norm(y) for y in candidates]
    hs = [h_exact(y) for y in units]
    j = int(np.argmin(hs))
    y_up, upper = units[j], hs[j]
    for _ in range(GRASP_EPSILON_UPPER_STEPS):  # down the exact support from the best direction
        y_next = _tangent_step(blocks, y_up, norm)
        if y_next is None or not h_exact(y_next) < upper:
            break
        y_up, upper = y_next, h_exact(y_next)
    h_up = h_exact(y_up)
    ok_upper = bool(np.isfinite(upper)) and h_up <= upper + tol and upper >= lower - tol
    notes.append(f"exact h at the direction {h_up:.6g} = upper {upper:.6g} >= lower {lower:.6g}: {ok_upper}")
    value["upper"] = upper
    times["exact"] = 0.0
    if exact:
        t0 = time.perf_counter()
        ex, ey = _exact_search(blocks, [y_up] + units, norm, scale)
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
            f"undecided at {facets} facets: the inscribed cones give no closure, the circumscribed ones do "
            f"(exact ε <= {upper:.6g}); give more facets (or run the exact force-closure check)"
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

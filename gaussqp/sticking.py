"""The all-sticking contact problem, exactly (Coulomb disks) and facetized (polygons).

FORMULATIONS §4; sticking paper §2-§4, (14)(43)(60)(65). Notation: ``E a + e = 0`` collects
the bilateral normal rows and the tangent rows of the sticking contacts, ``G a + g >= 0`` the
unilateral normal rows (``ContactProblem.equalities / inequalities``); ``λ_eq``, ``λ_in`` their
multipliers; ``J = [E; G]``, ``b = [e; g]``.

Two exact reformulations are used:

*One stage (the solver decides which contacts are active).* For any ``(a, λ)`` with
stationarity ``M a + F = Jᵀλ``, primal feasibility and ``λ_in >= 0``,

.. math:: a^T M a + F^T a + b^T\\lambda = \\lambda^T (J a + b) \\ge 0

(the duality gap of the Gauss QP F1: tutorial (5)(15), sticking (9)(43)). It vanishes exactly
at the KKT points of F1. So the all-sticking problem (65) has a solution iff

.. math:: \\min\\; a^T M a + F^T a + b^T\\lambda \\quad\\text{s.t. stationarity, feasibility, }
          \\lambda_{in} \\ge 0,\\; (\\lambda_{n,i}, \\lambda_{t,i}) \\in \\mathcal{C}_i

is 0: a convex SOCP (disks, F4) or QP (polygons, F5) valid for singular ``M`` and redundant rows.

*Fixed acceleration (the multiplier set).* F1's KKT pairs are (primal optimal set) × (dual
optimal set), so for any optimal ``a*`` the multipliers of the sticking mode are
``Λ(a*) = {λ : Jᵀλ = M a* + F, λ_in >= 0, λ_in,i = 0 where G_i a* + g_i > 0} ∩ cones``.
It depends on ``a*`` only through the active set, which needs a tolerance (reported). On Λ
we compute the robustness margin, the contacts forced onto their cone boundary, the smallest
friction coefficient ``μ_min`` (sticking Prop. 11) and, when Λ ∩ cones is empty, a conic
Farkas vector ``y`` (``(J y)_i ∈ C_i*``, ``(M a* + F)ᵀ y = -1``) that proves it.

Bilateral sticking contacts have the cone ``‖λ_t‖ <= μ |λ_n|`` (sticking (14b)), a union of two
convex cones; the sign of ``λ_n`` is enumerated (:data:`MAX_BILATERAL_STICKING` contacts at most).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from .errors import TooLargeError
from .linalg import as_dense
from .problem import ContactProblem

#: sign enumeration for frictional bilateral contacts is exact but exponential
MAX_BILATERAL_STICKING = 8
#: exact per-contact boundary tests (one SOCP each) up to this many sticking contacts
BOUNDARY_EXACT_MAX = 40


@dataclass(frozen=True)
class ConeModel:
    """How each Coulomb disk ``D(λ_n, μ) = {‖λ_t‖ <= μ λ_n}`` is represented.

    ``disk``: exact (second-order cone; for d = 2 an interval, i.e. two linear inequalities).
    ``inner``: inscribed regular polygon with ``facets`` sides (vertices on the circle), so
    feasible ⇒ exactly feasible; ``outer``: circumscribed polygon (sides tangent to the circle),
    so infeasible ⇒ exactly infeasible (sticking (54)-(59), Fig. 4; the bracket is ours).
    In 2D both polygons are the exact interval.
    """

    kind: str = "disk"
    facets: int = 8

    def __post_init__(self):
        if self.kind not in ("disk", "inner", "outer"):
            raise ValueError(f"cone model kind {self.kind!r}: use 'disk', 'inner' or 'outer'")
        if self.facets < 3:
            raise ValueError("a polygon needs at least 3 facets")

    def polygon(self, d: int) -> tuple[np.ndarray, float]:
        """(C, r): the polygon ``{z : C z <= r μ}`` of unit outward normals C (k × (d-1))."""
        if d == 2:
            return np.array([[1.0], [-1.0]]), 1.0
        k = self.facets
        ang = 2 * np.pi * (np.arange(k) + 0.5) / k
        C = np.column_stack([np.cos(ang), np.sin(ang)])
        return C, (np.cos(np.pi / k) if self.kind == "inner" else 1.0)


DISK = ConeModel("disk")


class Layout:
    """Where each contact's λ_n and λ_t sit in (λ_eq, λ_in)."""

    def __init__(self, problem: ContactProblem):
        p = problem
        self.p = p
        self.mb = len(p.bilateral)
        self.pe = p.equalities[0].shape[0]
        self.pg = p.inequalities[0].shape[0]
        self.d1 = p.dimension - 1
        self.pos_b = {int(i): k for k, i in enumerate(p.bilateral)}
        self.pos_u = {int(i): k for k, i in enumerate(p.unilateral)}
        self.pos_s = {int(i): k for k, i in enumerate(p.sticking)}
        self.sticking = [int(i) for i in p.sticking]
        self.bilateral_sticking = [i for i in self.sticking if i in self.pos_b]

    def normal(self, i: int, le, li):
        return le[self.pos_b[i]] if i in self.pos_b else li[self.pos_u[i]]

    def tangent(self, i: int, le):
        s = self.mb + self.pos_s[i] * self.d1
        return le[s:s + self.d1]

    def sticking_normals(self, le, li, signs: dict[int, int]):
        """The vector ``(s_i λ_n,i)`` over the sticking contacts, in :attr:`sticking` order."""
        ns = len(self.sticking)
        pe, pi = sp.lil_matrix((ns, max(self.pe, 1))), sp.lil_matrix((ns, max(self.pg, 1)))
        for k, i in enumerate(self.sticking):
            if i in self.pos_b:
                pe[k, self.pos_b[i]] = signs.get(i, 1)
            else:
                pi[k, self.pos_u[i]] = signs.get(i, 1)
        expr = 0
        if pe.nnz:
            expr = expr + sp.csr_matrix(pe[:, :self.pe]) @ le
        if pi.nnz:
            expr = expr + sp.csr_matrix(pi[:, :self.pg]) @ li
        return expr

    def sticking_tangents(self, le):
        """The ``(d-1) × n_s`` matrix whose column k is ``λ_t`` of the k-th sticking contact."""
        ns = len(self.sticking)
        block = le[self.mb:self.mb + ns * self.d1]
        return cp.reshape(block, (self.d1, ns), order="F")

    def sign_patterns(self, hint: dict[int, int] | None = None):
        """Sign patterns s_i = ±1 of λ_n for the bilateral sticking contacts, the hint first."""
        B = self.bilateral_sticking
        if len(B) > MAX_BILATERAL_STICKING:
            raise TooLargeError(f"{len(B)} frictional bilateral contacts: the sign enumeration of |λ_n| is limited "
                                f"to {MAX_BILATERAL_STICKING}; make some of them frictionless or unilateral")
        first = tuple((hint or {}).get(i, 1) for i in B)
        yield dict(zip(B, first))
        for s in itertools.product((1, -1), repeat=len(B)):
            if s != first:
                yield dict(zip(B, s))


def cone_constraints(L: Layout, le, li, mu, model: ConeModel, signs: dict[int, int], slack=None,
                     no_slack=frozenset()) -> list:
    """``(s_i λ_n,i, λ_t,i) ∈ C_i`` for every sticking contact; with ``slack`` the contacts not in
    ``no_slack`` get ``‖λ_t‖ + slack <= μ s λ_n`` (a robustness margin).

    Vectorized: one second-order-cone constraint with a column per contact (3D disks) or one
    matrix inequality ``C Λ_t <= r 1 (μ ∘ s λ_n)ᵀ`` (2D intervals, 3D polygons), so that cvxpy
    compiles thousands of contacts in one pass. ``mu`` may be a cvxpy Parameter (DPP)."""
    S = L.sticking
    if not S:
        return []
    ns, d = len(S), L.p.dimension
    mu_s = mu[S] if isinstance(mu, cp.Expression) else np.asarray(mu, dtype=float)[S]
    rhs = cp.multiply(mu_s, L.sticking_normals(le, li, signs))
    if slack is not None:
        weight = np.array([0.0 if i in no_slack else 1.0 for i in S])
        rhs = rhs - slack * weight
    lt = L.sticking_tangents(le)
    if model.kind == "disk" and d == 3:
        return [cp.SOC(rhs, lt, axis=0)]
    C, r = model.polygon(d)  # an interval in 2D (r = 1 for the disk), a polygon in 3D
    return [C @ lt <= r * (np.ones((C.shape[0], 1)) @ cp.reshape(rhs, (1, ns), order="F"))]


def detaching(problem: ContactProblem, a: np.ndarray, active_tol: float, lam_n: np.ndarray | None = None) -> np.ndarray:
    """Unilateral contacts (input indices) with ``n_i a + b_i > active_tol``: they detach (a_n > 0).

    With the multipliers ``lam_n`` of the same solution, a row whose multiplier is not negligible
    (> 1e-6 relative) counts as active whatever its slack: a slack that small next to a nonzero
    force is solver round-off, not a detachment."""
    G, g = problem.inequalities
    if not len(problem.unilateral):
        return np.zeros(0, dtype=int)
    slack = np.asarray(G @ a).ravel() + g
    off = slack > active_tol
    if lam_n is not None:
        lu = np.asarray(lam_n)[problem.unilateral]
        off &= lu <= 1e-6 * max(1.0, float(np.abs(lam_n).max(initial=0.0)))
    return problem.unilateral[off]


def active_tolerance(problem: ContactProblem, a: np.ndarray, tol: float = 1e-7) -> float:
    scale = max(1.0, float(np.abs(a).max(initial=0.0)), float(np.abs(problem.normal_drift).max(initial=0.0)))
    return tol * scale


def multiplier_set_constraints(problem: ContactProblem, a: np.ndarray, active_tol: float, lam_n=None):
    """Variables (λ_eq, λ_in) and the constraints of Λ(a) without the cones."""
    p = problem
    E, _ = p.equalities
    G, _ = p.inequalities
    L = Layout(p)
    le = cp.Variable(L.pe, name="lambda_eq")
    li = cp.Variable(L.pg, name="lambda_in")
    r = np.asarray(p.M @ a).ravel() + p.F
    expr = 0
    if L.pe:
        expr = expr + as_dense(E).T @ le
    if L.pg:
        expr = expr + as_dense(G).T @ li
    cons = [expr == r] if (L.pe or L.pg) else []
    if L.pg:
        cons.append(li >= 0)
        off = [L.pos_u[int(i)] for i in detaching(p, a, active_tol, lam_n)]
        if off:
            cons.append(li[off] == 0)
    return L, le, li, cons, r


@dataclass
class ConicFarkas:
    y: np.ndarray
    signs: dict
    violation: float
    value: float


def conic_farkas(problem: ContactProblem, a: np.ndarray, active_tol: float, model: ConeModel,
                 signs: dict[int, int], solve) -> ConicFarkas | None:
    """A vector y proving Λ(a) ∩ cones = ∅: ``(J y)_i ∈ C_i*`` for every multiplier block, ``rᵀy = -1``.

    For λ in the set, ``rᵀy = λᵀ J y = Σ_i ⟨λ_i, (J y)_i⟩ >= 0``, a contradiction. Dual cones: free
    rows (bilateral, frictionless) need ``(J y)_j = 0``; active frictionless unilateral rows
    ``(J y)_j >= 0``; inactive rows nothing; a sticking contact with disk ``‖λ_t‖ <= μ s λ_n`` needs
    ``μ ‖T_i y‖ <= s n_i y``, with polygon ``{C λ_t <= r μ s λ_n}`` needs
    ``(s n_i y, T_i y) = (r μ Σν, -Cᵀν)``, ``ν >= 0``. ``solve(prob)`` runs the backend.
    Returns the verified vector or None.
    """
    p = problem
    E, _ = p.equalities
    G, _ = p.inequalities
    Ed, Gd = as_dense(E), as_dense(G)
    L = Layout(p)
    r = np.asarray(p.M @ a).ravel() + p.F
    n = p.n
    y = cp.Variable(n, name="y")
    Ey = Ed @ y if L.pe else None
    Gy = Gd @ y if L.pg else None
    cons = [r @ y == -1]
    det = set(int(i) for i in detaching(p, a, active_tol))
    C, rr = model.polygon(p.dimension)
    nus = {}
    for kind, i, u, v, mu in _dual_cone_blocks(p, L, Ey, Gy, det, signs):
        if kind == "zero":
            cons.append(u == 0)
        elif kind == "nonneg":
            cons.append(u >= 0)
        elif model.kind == "disk" and p.dimension == 3:
            cons.append(mu * cp.norm(v, 2) <= u)
        else:
            nus[i] = nu = cp.Variable(C.shape[0], nonneg=True)
            cons += [u == rr * mu * cp.sum(nu), v == -C.T @ nu]
    prob = cp.Problem(cp.Minimize(cp.norm(y, 1)), cons)
    status = solve(prob)
    if status != "solved" or y.value is None:
        return None
    yv = np.asarray(y.value).ravel()
    viol = _dual_cone_violation(p, L, Ed @ yv if L.pe else np.zeros(0), Gd @ yv if L.pg else np.zeros(0),
                                det, signs, model, {i: np.asarray(nu.value).ravel() for i, nu in nus.items()})
    value = float(r @ yv)
    scale = max(1.0, float(np.abs(yv).max()) * max(1.0, float(np.abs(Ed).max(initial=0)), float(np.abs(Gd).max(initial=0))))
    if value < -0.5 and viol <= 1e-8 * scale:
        return ConicFarkas(y=yv, signs=dict(signs), violation=viol, value=value)
    return None


def _dual_cone_blocks(p, L, Ey, Gy, det, signs):
    """The blocks of ``J y`` with their dual-cone conditions (:func:`conic_farkas`), for cvxpy
    expressions or NumPy arrays alike: ("zero", i, u) for free multipliers (frictionless bilateral),
    ("nonneg", i, u) for active frictionless unilateral rows, ("cone", i, u, v, μ_i) for sticking
    contacts, with u = s_i n_i y and v = T_i y. Inactive rows carry no condition."""
    stick = set(L.sticking)
    for i in p.bilateral:
        i = int(i)
        if i not in stick:
            yield "zero", i, Ey[L.pos_b[i]], None, None
    for i in p.unilateral:
        i = int(i)
        if i not in det and i not in stick:
            yield "nonneg", i, Gy[L.pos_u[i]], None, None
    for i in L.sticking:
        if i in det:
            continue
        u = signs.get(i, 1) * (Ey[L.pos_b[i]] if i in L.pos_b else Gy[L.pos_u[i]])
        ts = L.mb + L.pos_s[i] * L.d1
        yield "cone", i, u, Ey[ts:ts + L.d1], float(p.friction[i])


def _dual_cone_violation(p, L, Ey, Gy, det, signs, model, nus) -> float:
    """Largest violation of the dual-cone conditions of :func:`conic_farkas`, recomputed in NumPy."""
    worst = 0.0
    C, rr = model.polygon(p.dimension)
    for kind, i, u, v, mu in _dual_cone_blocks(p, L, Ey, Gy, det, signs):
        if kind == "zero":
            worst = max(worst, abs(u))
        elif kind == "nonneg":
            worst = max(worst, -u)
        elif model.kind == "disk" and p.dimension == 3:
            worst = max(worst, mu * np.linalg.norm(v) - u)
        else:
            nu = np.maximum(nus[i], 0.0)
            worst = max(worst, abs(u - rr * mu * nu.sum()), float(np.abs(v + C.T @ nu).max()))
    return float(worst)

"""Coulomb cones and their facetized polygons, and the layout of the all-sticking programs' variables.

The cone of a sticking contact is ``‖λ_t‖ <= μ |λ_n|`` (sticking (14b)): the disk (exact, SOCP, F4)
or an inscribed/circumscribed polygon with k facets (sticking (54)–(59), F5). :class:`Layout`
stacks the variables of the programs built on them (``λ_eq``, ``λ_in`` as in
``ContactProblem.equalities / inequalities``) and enumerates the sign of ``λ_n`` of bilateral
sticking contacts, whose cone is a union of two convex cones (:data:`BILATERAL_STICKING_MAX`
contacts at most).

Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy is imported inside the functions that use it,
not when this module is imported.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import TooLargeError
from ..model.problem import ContactProblem
from ..settings import DEFAULT_FACETS, BILATERAL_STICKING_MAX


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
    facets: int = DEFAULT_FACETS

    def __post_init__(self):
        if self.kind not in ("disk", "inner", "outer"):
            raise ValueError(f"cone model kind {self.kind!r}: use 'disk', 'inner' or 'outer'")
        if self.facets < 3:
            raise ValueError("a polygon needs at least 3 facets")

    def second_order(self, d: int) -> bool:
        """Whether the cones of dimension ``d`` are second-order cones in the programs (exact disks, d >= 3);
        otherwise they are linear: the interval of d = 2, or a polygon in d = 3."""
        return self.kind == "disk" and d >= 3

    def polygon(self, d: int) -> tuple[np.ndarray, float]:
        """(C, r): the polygon ``{z : C z <= r μ}`` of unit outward normals C (k × (d-1)); d = 2 or 3 (the
        facetized formulations refuse d > 3: a polytope of the (d-1)-ball is not the papers' (54)-(59))."""
        if d == 2:
            return np.array([[1.0], [-1.0]]), 1.0
        if d != 3:
            raise ValueError(f"no polygon of the Coulomb cone in dimension {d}: polygons are for d = 2 or 3")
        k = self.facets
        ang = 2 * np.pi * (np.arange(k) + 0.5) / k
        C = np.column_stack([np.cos(ang), np.sin(ang)])
        return C, (np.cos(np.pi / k) if self.kind == "inner" else 1.0)


DISK = ConeModel("disk")


@dataclass(frozen=True)
class NormalSelection:
    """``x_e, x_g -> S_e x_e + S_g x_g`` (sparse, signed): picks one normal entry per contact from the
    bilateral (equality) or unilateral (inequality) block; for cvxpy expressions or NumPy arrays."""

    S_e: sp.csr_matrix
    S_g: sp.csr_matrix

    def __call__(self, x_e, x_g):
        out = 0
        if self.S_e.nnz:
            out = out + self.S_e @ x_e
        if self.S_g.nnz:
            out = out + self.S_g @ x_g
        return out


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
        return le[s : s + self.d1]

    def normal_selection(self, contacts, signs: dict[int, int]) -> "NormalSelection":
        """The map from ``(λ_eq, λ_in)`` (or from ``(E y, G y)``) to ``(s_i λ_n,i)`` over ``contacts``."""
        S_e, S_g = sp.lil_matrix((len(contacts), self.pe)), sp.lil_matrix((len(contacts), self.pg))
        for k, i in enumerate(contacts):
            if i in self.pos_b:
                S_e[k, self.pos_b[i]] = signs.get(i, 1)
            else:
                S_g[k, self.pos_u[i]] = signs.get(i, 1)
        return NormalSelection(S_e.tocsr(), S_g.tocsr())

    def sticking_normals(self, le, li, signs: dict[int, int]):
        """The vector ``(s_i λ_n,i)`` over the sticking contacts, in :attr:`sticking` order."""
        return self.normal_selection(self.sticking, signs)(le, li)

    def sticking_tangents(self, le):
        """The ``(d-1) × n_s`` matrix whose column k is ``λ_t`` of the k-th sticking contact."""
        import cvxpy as cp

        ns = len(self.sticking)
        block = le[self.mb : self.mb + ns * self.d1]
        return cp.reshape(block, (self.d1, ns), order="F")

    def sign_patterns(self, hint: dict[int, int] | None = None):
        """Sign patterns s_i = ±1 of λ_n for the bilateral sticking contacts, the hint first."""
        B = self.bilateral_sticking
        if len(B) > BILATERAL_STICKING_MAX:
            raise TooLargeError(
                f"{len(B)} frictional bilateral contacts: the sign enumeration of |λ_n| is limited "
                f"to {BILATERAL_STICKING_MAX}; make some of them frictionless or unilateral"
            )
        first = tuple((hint or {}).get(i, 1) for i in B)
        yield dict(zip(B, first))
        for s in itertools.product((1, -1), repeat=len(B)):
            if s != first:
                yield dict(zip(B, s))


def cone_constraints(
    L: Layout, le, li, mu, model: ConeModel, signs: dict[int, int], slack=None, no_slack=frozenset()
) -> list:
    """``(s_i λ_n,i, λ_t,i) ∈ C_i`` for every sticking contact; with ``slack`` the contacts not in
    ``no_slack`` get ``‖λ_t‖ + slack <= μ s λ_n`` (a robustness margin).

    Vectorized: one second-order-cone constraint with a column per contact (3D disks) or one
    matrix inequality ``C Λ_t <= r 1 (μ ∘ s λ_n)ᵀ`` (2D intervals, 3D polygons), so that cvxpy
    compiles thousands of contacts in one pass. ``mu`` may be a cvxpy Parameter (DPP)."""
    import cvxpy as cp

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
    if model.second_order(d):
        return [cp.SOC(rhs, lt, axis=0)]
    C, r = model.polygon(d)  # an interval in 2D (r = 1 for the disk), a polygon in 3D
    return [C @ lt <= r * (np.ones((C.shape[0], 1)) @ cp.reshape(rhs, (1, ns), order="F"))]

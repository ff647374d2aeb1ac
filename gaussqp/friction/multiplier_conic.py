"""The sticking verdict's programs on the multiplier set Λ(a), written in Clarabel's standard form.

The readable definition of each program is the cvxpy program of :mod:`gaussqp.friction.sticking_margin` and
:mod:`gaussqp.friction.mu_min` (:func:`~gaussqp.friction.sticking_margin.margin`,
:func:`~gaussqp.friction.sticking_margin.contact_margins`, the feasibility tests of
:func:`~gaussqp.friction.mu_min.mu_min` and the pinned-normal program of :func:`~gaussqp.friction.mu_min.mu_min_bracket`); it
stays the fallback. This module hands the same programs to Clarabel without cvxpy: a verdict runs 10–50 small
programs on one Λ(a) (the bisection of sticking Prop. 11 alone ~35), and cvxpy's compilation cost ~3 ms each
against ~0.3 ms for Clarabel's solve.

Variables ``x = (λ_eq, λ_in, z)``, with ``z`` the program's extra scalar (the margin t, the epigraph u of
``‖λ_t,i‖``, or μ), and the rows of ``A x + s = b``, ``s ∈ K`` (docs/DESIGN.md §3.2; sticking (14), (43), (60)):

- zero cone: ``Eᵀλ_eq + Gᵀλ_in = M a + F`` (stationarity at the fixed ``a``) and ``λ_in,i = 0`` on the
  detaching rows;
- nonnegative cone: ``λ_in >= 0``; in 2D the interval ``|λ_t| <= c λ_n`` as two rows ``C λ_t <= c λ_n``;
- second-order cones (d >= 3): ``(c_i s_i λ_n,i − w_i t, λ_t,i)`` per sticking contact (sticking (14b), the
  disk), and the program's own cone (the epigraph of ``‖λ_t,i‖``, or ``‖λ_t,i‖ <= μ |λ*_n,i|``).

The programs are solved for ``λ / ρ`` with ρ the load's terms ``max(‖M a‖∞, ‖F‖∞)`` and answered in the data's
units. Statuses are read as the cvxpy path reads them (:func:`gaussqp.backends.direct.solve_conic`: a looser preset
once, then cvxpy's map of Clarabel's statuses); ``failed`` makes the caller run the cvxpy program. Nothing here is believed: every
verdict quantity read off a solution is recomputed from the multipliers (put on the affine hull of Λ(a) where the
verdict does so).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backends.base import Backend
from ..backends.direct import RowBlock, conic_presets, solve_conic, triplets
from ..model.problem import ContactProblem
from ..settings import Tolerance
from .cones import DISK, ConeModel, Layout
from .multiplier_set import detaching


@dataclass
class ConicAnswer:
    """A program's gaussqp status, and when solved its multipliers ``(λ_eq, λ_in)``, extra scalar and objective.
    ``y``: Clarabel's dual vector of the stationarity rows ``Jᵀλ = M a + F`` (an ``n``-vector, a direction: the
    candidate of a conic Farkas vector, :func:`gaussqp.friction.multiplier_set.farkas_lower_end`), when the program came back
    solved or infeasible; unverified."""

    status: str
    lev: np.ndarray | None = None
    liv: np.ndarray | None = None
    extra: float | None = None
    value: float | None = None
    y: np.ndarray | None = None


def cone_rows(
    L: Layout,
    model: ConeModel,
    contacts: list[int],
    coef,
    *,
    offset: int = 0,
    extra_coef=None,
    extra_col: int | None = None,
    normal_cols=None,
) -> RowBlock:
    """Rows of ``(coef_i x[n_i] − w_i z, λ_t,i) ∈ C_i`` for ``contacts`` in a program whose columns hold
    ``(λ_eq, λ_in)`` from column ``offset`` (``n_i`` the contact's normal column, or ``normal_cols``; ``z`` the
    column ``extra_col`` with weights ``extra_coef``). ``C_i`` is the disk (d >= 3: one second-order cone of d rows
    per contact, ``s = (coef x_n − w z, λ_t)``, i.e. ``A = −(coef e_n − w e_z; e_t)``) or the polygon of ``model``
    (the interval in 2D; F5's polygons: ``s = r coef x_n − r w z − C λ_t >= 0``, sticking (54)–(59)). ``b = 0``."""
    k, d1 = len(contacts), L.d1
    ncol = (
        np.array([offset + (L.pos_b[i] if i in L.pos_b else L.pe + L.pos_u[i]) for i in contacts], dtype=np.int64)
        if normal_cols is None
        else np.asarray(normal_cols, dtype=np.int64)
    )
    tcol = (
        offset
        + L.mb
        + (np.array([L.pos_s[i] for i in contacts], dtype=np.int64)[:, None] * d1 + np.arange(d1)[None, :])
    )
    coef = np.asarray(coef, dtype=float)
    w = np.zeros(k) if extra_coef is None else np.asarray(extra_coef, dtype=float)
    zc = np.full(k, -1 if extra_col is None else extra_col, dtype=np.int64)
    if model.second_order(L.p.dimension):
        h = d1 + 1
        base = h * np.arange(k)
        rows = [base, (base[:, None] + 1 + np.arange(d1)).ravel(), base]
        cols = [ncol, tcol.ravel(), zc]
        vals = [-coef, -np.ones(k * d1), w]
        out = RowBlock(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), h * k, "soc", (h,) * k)
    else:
        C, r = model.polygon(L.p.dimension)
        h = C.shape[0]
        base = ((h * np.arange(k))[:, None] + np.arange(h)[None, :]).ravel()  # contact-major, facet-minor rows
        rows = [base, np.repeat(base, d1), base]
        cols = [np.repeat(ncol, h), np.repeat(tcol, h, axis=0).ravel(), np.repeat(zc, h)]
        vals = [np.repeat(-r * coef, h), np.tile(C.ravel(), k), np.repeat(r * w, h)]
        out = RowBlock(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), h * k, "nonneg")
    if extra_col is None:  # no z column: drop its (zero) entries
        keep = out.cols >= 0
        out.rows, out.cols, out.vals = out.rows[keep], out.cols[keep], out.vals[keep]
    return out


class MultiplierSetConic:
    """Λ(a) without the cones, in Clarabel's form, and the verdict's programs built on it.

    Parameters
    ----------
    problem : ContactProblem
    a : the fixed acceleration
    active_tol : per-unilateral-row activity tolerance (:func:`gaussqp.friction.multiplier_set.active_tolerance`)
    lam_n : the normal multipliers of the same solution (keeps rows with a force active), or None
    backend : the Clarabel :class:`~gaussqp.backends.base.Backend` (its settings for a tolerance)
    tol : the tolerance preset; the looser one (:data:`gaussqp.settings.LOOSER`) is the retry
    """

    def __init__(self, problem: ContactProblem, a: np.ndarray, active_tol, lam_n, backend: Backend, tol: Tolerance):
        p = problem
        self.p = p
        self.L = L = Layout(p)
        self.presets = conic_presets(backend, tol)
        self.nx = L.pe + L.pg
        E, _ = p.equalities
        G, _ = p.inequalities
        Ma = np.asarray(p.M @ a).ravel()
        self.r = Ma + p.F
        # the programs are solved for λ / ρ with ρ the load's terms max(‖M a‖∞, ‖F‖∞) (Λ(a) scales with M a + F and the
        # cones are homogeneous): the backend's absolute tolerances then mean the same in every unit (at
        # loads of 1e-6 an absolute gap of 1e-9 was 1e-3 of the answer)
        load = max(float(np.abs(Ma).max(initial=0.0)), float(np.abs(p.F).max(initial=0.0)))
        self.rho = load if load > 0.0 else 1.0
        self.det = frozenset(int(i) for i in detaching(p, a, active_tol, lam_n))
        self.blocks: list[RowBlock] = []
        if self.nx:  # zero cone: stationarity [Eᵀ Gᵀ] λ = r (row j of it is column j of J), λ_in,i = 0 when detaching
            # [E; G]'s entries, G's rows after E's: the triplets of ``vstack([coo(E), coo(G)])`` without building it
            (er, ec, ev, eshape), (gr, gc, gv, _) = triplets(E), triplets(G)
            off = np.array([L.pe + L.pos_u[i] for i in sorted(self.det)], dtype=np.int64)
            self.blocks.append(
                RowBlock(
                    np.concatenate([ec, gc, p.n + np.arange(off.size)]).astype(np.int64),
                    np.concatenate([er, eshape[0] + gr, off]).astype(np.int64),
                    np.concatenate([ev, gv, np.ones(off.size)]),
                    p.n + off.size,
                    "zero",
                    b=np.concatenate([self.r / self.rho, np.zeros(off.size)]),
                )
            )
        # nonnegative cone: s = λ_in >= 0, i.e. A = −I on the λ_in columns
        self.blocks.append(RowBlock(np.arange(L.pg), L.pe + np.arange(L.pg), -np.ones(L.pg), L.pg, "nonneg"))

    def normal_col(self, i: int) -> int:
        L = self.L
        return L.pos_b[i] if i in L.pos_b else L.pe + L.pos_u[i]

    def _solve(
        self, q: np.ndarray, cones: list[RowBlock], extra: int, extra_nonneg: bool = False, extra_is_force: bool = True
    ) -> ConicAnswer:
        """Solve with this set's rows and ``cones`` (:func:`gaussqp.backends.direct.solve_conic`). The answer is
        returned in the data's units: multipliers times ρ, the extra scalar and the objective too when they are
        forces (``extra_is_force``; μ is not)."""
        blocks = self.blocks + cones
        if extra_nonneg:
            blocks = blocks + [RowBlock(np.zeros(1, dtype=np.int64), np.array([self.nx]), -np.ones(1), 1, "nonneg")]
        res = solve_conic(None, q, blocks, self.nx + extra, self.presets)
        # the stationarity rows are the first zero-cone rows (solve_conic's sort is stable), the first p.n of z
        y = res.z[: self.p.n].copy() if (res.z is not None and self.nx) else None
        if res.status != "solved":
            return ConicAnswer(res.status, y=y)
        x, L, rho = res.x, self.L, self.rho
        unit = rho if extra_is_force else 1.0
        return ConicAnswer(
            "solved",
            rho * x[: L.pe],
            rho * x[L.pe : self.nx],
            unit * float(x[self.nx]) if extra else None,
            unit * float(np.asarray(q) @ x),
            y,
        )

    # ------------------------------------------------------------------ the verdict's programs
    def _disks(self, mu, signs: dict[int, int], slack: np.ndarray | None = None) -> list[RowBlock]:
        S = self.L.sticking
        if not S:
            return []
        coef = np.array([float(mu[i]) * signs.get(i, 1) for i in S])
        return [cone_rows(self.L, DISK, S, coef, extra_coef=slack, extra_col=self.nx if slack is not None else None)]

    def feasible(self, mu: np.ndarray | None, signs: dict[int, int]) -> ConicAnswer:
        """Λ(a) ∩ cones(μ) (objective 0); ``mu`` per contact (None: the problem's friction coefficients)."""
        mu = self.p.friction if mu is None else mu
        return self._solve(np.zeros(self.nx), self._disks(mu, signs), 0)

    def margin(self, signs: dict[int, int], no_slack: frozenset, feasibility: bool = False) -> ConicAnswer:
        """max t s.t. λ ∈ Λ(a), ``‖λ_t,i‖ + t <= μ_i s_i λ_n,i`` (no t on the contacts of ``no_slack``); with
        ``feasibility`` the same constraints with objective 0 (is the set nonempty?)."""
        w = np.array([0.0 if i in no_slack else 1.0 for i in self.L.sticking])
        q = np.zeros(self.nx + 1)
        q[self.nx] = 0.0 if feasibility else -1.0
        ans = self._solve(q, self._disks(self.p.friction, signs, w), 1)
        if ans.status == "solved":
            ans.value = -ans.value
        return ans

    def contact_margin(self, i: int, signs: dict[int, int]) -> ConicAnswer:
        """max ``μ_i s_i λ_n,i − ‖λ_t,i‖`` over Λ(a) ∩ cones (u >= ‖λ_t,i‖ the extra variable)."""
        # u >= ‖λ_t,i‖: the contact's cone with its normal column replaced by u
        epigraph = cone_rows(self.L, DISK, [i], np.ones(1), normal_cols=np.array([self.nx]))
        q = np.zeros(self.nx + 1)
        q[self.normal_col(i)] = -float(self.p.friction[i]) * signs.get(i, 1)
        q[self.nx] = 1.0
        ans = self._solve(q, self._disks(self.p.friction, signs) + [epigraph], 1)
        if ans.status == "solved":
            ans.value = -ans.value
        return ans

    def ratio_step(self, theta: float, weights: np.ndarray, signs: dict[int, int]) -> ConicAnswer:
        """One step of the generalized fractional program ``min_λ max_i ‖λ_t,i‖ / λ_n,i`` over Λ(a) (sticking
        Prop. 11; Crouzeix, Ferland & Schaible 1985): ``min t`` s.t. λ ∈ Λ(a), ``‖λ_t,i‖ <= θ s_i λ_n,i + w_i t`` for
        the sticking contacts, with ``w_i >= 0`` (the normal forces of the last point, in units of ρ; 0: no slack).
        ``t`` is a ratio (not a force); its optimum is < 0 exactly when some point of Λ(a) achieves a smaller ratio
        than θ on every contact with ``w_i > 0``."""
        w = np.asarray(weights, dtype=float)
        q = np.zeros(self.nx + 1)
        q[self.nx] = 1.0
        return self._solve(q, self._disks(np.full(self.p.m, float(theta)), signs, -w), 1, extra_is_force=False)

    def min_common_mu(self, normals: dict[int, float], no_force: tuple[int, ...] = ()) -> ConicAnswer:
        """min μ >= 0 s.t. λ ∈ Λ(a), ``‖λ_t,i‖ <= μ |λ*_n,i|`` for the pinned normals ``normals`` and ``λ_t,i = 0`` on
        the sticking contacts ``no_force`` (detaching: ``λ_n,i = 0``, so their disk of sticking (14b) is {0} for
        every μ; leaving them out let their tangential force carry the load for free, sticking Prop. 11)."""
        contacts = list(normals)
        # ‖λ_t,i‖ <= |λ*_n,i| μ: the cones with the normal column replaced by μ's and coefficient |λ*| (in units of ρ)
        blocks = (
            [
                cone_rows(
                    self.L,
                    DISK,
                    contacts,
                    np.abs([float(normals[i]) for i in contacts]) / self.rho,
                    normal_cols=np.full(len(contacts), self.nx),
                )
            ]
            if contacts
            else []
        )
        if no_force:
            L = self.L
            cols = (
                L.mb
                + np.array([L.pos_s[i] for i in no_force], dtype=np.int64)[:, None] * L.d1
                + np.arange(L.d1)[None, :]
            ).ravel()
            blocks.append(
                RowBlock(
                    np.arange(cols.size, dtype=np.int64),
                    cols,
                    np.ones(cols.size),
                    cols.size,
                    "zero",
                    b=np.zeros(cols.size),
                )
            )
        q = np.zeros(self.nx + 1)
        q[self.nx] = 1.0
        return self._solve(q, blocks, 1, extra_nonneg=True, extra_is_force=False)


__all__ = ["ConicAnswer", "MultiplierSetConic", "cone_rows"]

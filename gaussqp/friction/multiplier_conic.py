"""The sticking verdict's programs on the multiplier set Λ(a), written in Clarabel's standard form (issue #15).

The readable definition of each program is the cvxpy program of :mod:`gaussqp.friction.verdict`
(:func:`~gaussqp.friction.verdict.margin`, :func:`~gaussqp.friction.verdict.contact_margins`, the feasibility
tests of :func:`~gaussqp.friction.verdict.mu_min` and :func:`~gaussqp.friction.verdict._direct_mu_min`); it
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

Statuses are read as the cvxpy path reads them (:func:`gaussqp.backends.base.run_cvxpy`, cvxpy's map of Clarabel's
statuses): ``Solved``, ``PrimalInfeasible``, ``DualInfeasible`` end the program; any other status is tried once
more at the next looser preset (:data:`gaussqp.settings.LOOSER`), whose ``AlmostSolved`` is ``inaccurate``,
``AlmostPrimalInfeasible`` ``infeasible``, ``AlmostDualInfeasible`` ``unbounded``, and anything else ``failed``.
A Clarabel exception is ``failed`` too, and the caller then runs the cvxpy program. Nothing here is believed: every
verdict quantity read off a solution is recomputed from the multipliers (put on the affine hull of Λ(a) where the
verdict does so).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..backends.base import Backend, silence_c_stdout
from ..model.problem import ContactProblem
from ..settings import LOOSER, PRESETS, Tolerance
from .cones import DISK, Layout
from .multiplier_set import detaching

#: Clarabel's statuses that end a program, and (after the looser preset) the inaccurate ones as cvxpy reads them
_FINAL = {"Solved": "solved", "PrimalInfeasible": "infeasible", "DualInfeasible": "unbounded"}
_INACCURATE = {"AlmostSolved": "inaccurate", "AlmostPrimalInfeasible": "infeasible",
               "AlmostDualInfeasible": "unbounded"}


@dataclass
class ConicAnswer:
    """A program's gaussqp status, and when solved its multipliers ``(λ_eq, λ_in)``, extra scalar and objective."""

    status: str
    lev: np.ndarray | None = None
    liv: np.ndarray | None = None
    extra: float | None = None
    value: float | None = None


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
        self.presets = [backend.settings(t) for t in (tol, PRESETS.get(LOOSER.get(tol.name, ""))) if t is not None]
        self.nx = L.pe + L.pg
        E, _ = p.equalities
        G, _ = p.inequalities
        Ma = np.asarray(p.M @ a).ravel()
        self.r = Ma + p.F
        # the programs are solved for λ / ρ with ρ the load's terms max(‖M a‖∞, ‖F‖∞) (Λ(a) scales with M a + F and the
        # cones are homogeneous): the backend's absolute tolerances then mean the same in every unit (issue #9; at
        # loads of 1e-6 an absolute gap of 1e-9 was 1e-3 of the answer)
        load = max(float(np.abs(Ma).max(initial=0.0)), float(np.abs(p.F).max(initial=0.0)))
        self.rho = load if load > 0.0 else 1.0
        self.det = frozenset(int(i) for i in detaching(p, a, active_tol, lam_n))
        # zero cone: stationarity [Eᵀ Gᵀ] λ = r (row j of it is column j of J), then λ_in,i = 0 on detaching rows
        J = sp.vstack([sp.coo_matrix(E), sp.coo_matrix(G)], format="coo") if self.nx else sp.coo_matrix((0, p.n))
        off = np.array([L.pe + L.pos_u[i] for i in sorted(self.det)], dtype=np.int64)
        self.zero = _Block(np.concatenate([J.col, p.n + np.arange(off.size)]).astype(np.int64) if self.nx else
                           np.zeros(0, dtype=np.int64),
                           np.concatenate([J.row, off]).astype(np.int64) if self.nx else np.zeros(0, dtype=np.int64),
                           np.concatenate([J.data, np.ones(off.size)]) if self.nx else np.zeros(0),
                           (p.n + off.size) if self.nx else 0)
        self.zero_b = np.concatenate([self.r / self.rho, np.zeros(off.size)]) if self.nx else np.zeros(0)
        # nonnegative cone: s = λ_in >= 0, i.e. A = −I on the λ_in columns
        self.nonneg = _Block(np.arange(L.pg), L.pe + np.arange(L.pg), -np.ones(L.pg), L.pg)
        self.second_order = DISK.second_order(p.dimension)
        self.C, self.rr = DISK.polygon(p.dimension) if not self.second_order else (None, 1.0)

    # ------------------------------------------------------------------ columns
    def normal_col(self, i: int) -> int:
        L = self.L
        return L.pos_b[i] if i in L.pos_b else L.pe + L.pos_u[i]

    def tangent_cols(self, i: int) -> np.ndarray:
        L = self.L
        s = L.mb + L.pos_s[i] * L.d1
        return np.arange(s, s + L.d1)

    # ------------------------------------------------------------------ cones
    def _cone_rows(self, contacts: list[int], coef: np.ndarray, extra_coef: np.ndarray | None,
                   normal_cols: np.ndarray | None = None) -> _Block:
        """Rows of ``‖λ_t,i‖ <= coef_i · x[n_i] − extra_coef_i · z`` for ``contacts`` (``n_i`` the contact's normal
        column, or ``normal_cols``): one second-order cone of d rows per contact (d >= 3: ``s = (coef x_n − w z,
        λ_t)``, i.e. ``A = −(coef e_n − w e_z; e_t)``), or in 2D the interval's ``k`` linear rows
        ``s = rr coef x_n − rr w z − C λ_t >= 0``. ``b = 0`` for all of them."""
        k, d1 = len(contacts), self.L.d1
        ncol = (np.array([self.normal_col(i) for i in contacts], dtype=np.int64) if normal_cols is None
                else np.asarray(normal_cols, dtype=np.int64))
        tcol = np.array([self.tangent_cols(i) for i in contacts], dtype=np.int64).reshape(k, d1)
        coef = np.asarray(coef, dtype=float)
        w = np.zeros(k) if extra_coef is None else np.asarray(extra_coef, dtype=float)
        if self.second_order:
            h = d1 + 1
            base = h * np.arange(k)
            rows = [base, (base[:, None] + 1 + np.arange(d1)).ravel(), base]
            cols = [ncol, tcol.ravel(), np.full(k, self.nx)]
            vals = [-coef, -np.ones(k * d1), w]
            return _Block(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), h * k, [h] * k)
        C, rr = self.C, self.rr
        h = C.shape[0]
        base = (h * np.arange(k))[:, None] + np.arange(h)[None, :]  # k × h row indices
        rows = [base.ravel(), np.repeat(base.ravel(), d1), base.ravel()]
        cols = [np.repeat(ncol, h), np.repeat(tcol, h, axis=0).ravel(), np.full(k * h, self.nx)]
        vals = [np.repeat(-rr * coef, h), np.tile(C.ravel(), k), np.repeat(rr * w, h)]
        return _Block(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), h * k)

    def _solve(self, q: np.ndarray, cones: list[_Block], extra: int, extra_nonneg: bool = False,
               extra_is_force: bool = True) -> ConicAnswer:
        """Assemble ``A x + s = b`` (zero rows, nonnegative rows and 2D cone rows, then the second-order cones) and
        solve with the presets of :attr:`presets` (see the module docstring for how statuses are read). The answer
        is returned in the data's units: multipliers times ρ, the extra scalar and the objective too when they are
        forces (``extra_is_force``; μ is not)."""
        import clarabel

        ncols = self.nx + extra
        nonneg = [self.nonneg]
        if extra_nonneg:
            nonneg.append(_Block(np.zeros(1, dtype=np.int64), np.array([self.nx]), -np.ones(1), 1))
        nonneg += [B for B in cones if B.soc is None]
        soc = [B for B in cones if B.soc is not None]
        blocks = [self.zero] + nonneg + soc
        offsets = np.cumsum([0] + [B.nrows for B in blocks])
        rows = np.concatenate([B.rows + o for B, o in zip(blocks, offsets)])
        cols = np.concatenate([B.cols for B in blocks])
        vals = np.concatenate([B.vals for B in blocks])
        keep = vals != 0.0
        A = sp.csc_matrix((vals[keep], (rows[keep], cols[keep])), shape=(int(offsets[-1]), ncols))
        nz, nn = self.zero.nrows, sum(B.nrows for B in nonneg)
        b = np.concatenate([self.zero_b, np.zeros(A.shape[0] - nz)])
        cones_ = ([clarabel.ZeroConeT(nz)] if nz else []) + ([clarabel.NonnegativeConeT(nn)] if nn else []) + \
            [clarabel.SecondOrderConeT(h) for B in soc for h in B.soc]
        P = sp.csc_matrix((ncols, ncols))
        for settings in self.presets:
            s = clarabel.DefaultSettings()
            for name, v in settings.items():
                setattr(s, name, v)
            try:
                with silence_c_stdout():
                    sol = clarabel.DefaultSolver(P, np.asarray(q, dtype=float), A, b, cones_, s).solve()
            except (ValueError, ArithmeticError, RuntimeError, TypeError):
                return ConicAnswer("failed")  # the cvxpy program decides
            raw = str(sol.status)
            if raw in _FINAL:
                break
        status = _FINAL.get(raw) or _INACCURATE.get(raw, "failed")
        if status != "solved":
            return ConicAnswer(status)
        x = np.asarray(sol.x, dtype=float)
        L, rho = self.L, self.rho
        unit = rho if extra_is_force else 1.0
        return ConicAnswer(status, rho * x[:L.pe], rho * x[L.pe:self.nx], unit * float(x[self.nx]) if extra else None,
                           unit * float(np.asarray(q) @ x))

    # ------------------------------------------------------------------ the verdict's programs
    def _disks(self, mu: np.ndarray, signs: dict[int, int], slack: np.ndarray | None = None) -> _Block:
        S = self.L.sticking
        return self._cone_rows(S, np.array([float(mu[i]) * signs.get(i, 1) for i in S]), slack)

    def feasible(self, mu: np.ndarray | None, signs: dict[int, int]) -> ConicAnswer:
        """Λ(a) ∩ cones(μ) (objective 0); ``mu`` per contact (None: the problem's friction coefficients)."""
        mu = self.p.friction if mu is None else mu
        return self._solve(np.zeros(self.nx), [self._disks(mu, signs)] if self.L.sticking else [], 0)

    def margin(self, signs: dict[int, int], no_slack: frozenset, feasibility: bool = False) -> ConicAnswer:
        """max t s.t. λ ∈ Λ(a), ``‖λ_t,i‖ + t <= μ_i s_i λ_n,i`` (no t on the contacts of ``no_slack``); with
        ``feasibility`` the same constraints with objective 0 (is the set nonempty?)."""
        w = np.array([0.0 if i in no_slack else 1.0 for i in self.L.sticking])
        q = np.zeros(self.nx + 1)
        q[self.nx] = 0.0 if feasibility else -1.0
        ans = self._solve(q, [self._disks(self.p.friction, signs, w)] if self.L.sticking else [], 1)
        if ans.status == "solved":
            ans.value = -ans.value
        return ans

    def contact_margin(self, i: int, signs: dict[int, int]) -> ConicAnswer:
        """max ``μ_i s_i λ_n,i − ‖λ_t,i‖`` over Λ(a) ∩ cones (u >= ‖λ_t,i‖ the extra variable)."""
        # u >= ‖λ_t,i‖: the contact's cone with its normal column replaced by u
        epigraph = self._cone_rows([i], np.ones(1), None, normal_cols=np.array([self.nx]))
        q = np.zeros(self.nx + 1)
        q[self.normal_col(i)] = -float(self.p.friction[i]) * signs.get(i, 1)
        q[self.nx] = 1.0
        ans = self._solve(q, [self._disks(self.p.friction, signs), epigraph], 1)
        if ans.status == "solved":
            ans.value = -ans.value
        return ans

    def min_common_mu(self, normals: dict[int, float]) -> ConicAnswer:
        """min μ >= 0 s.t. λ ∈ Λ(a) and ``‖λ_t,i‖ <= μ |λ*_n,i|`` for the pinned normals ``normals``."""
        contacts = list(normals)
        # ‖λ_t,i‖ <= |λ*_n,i| μ: the cones with the normal column replaced by μ's and coefficient |λ*|
        rows = self._cone_rows(contacts, np.abs([float(normals[i]) for i in contacts]) / self.rho, None,
                               normal_cols=np.full(len(contacts), self.nx))
        q = np.zeros(self.nx + 1)
        q[self.nx] = 1.0
        return self._solve(q, [rows], 1, extra_nonneg=True, extra_is_force=False)


@dataclass
class _Block:
    """Rows of ``A`` as triplets (local row numbers), their count, and the sizes of their second-order cones
    (None: nonnegative rows)."""

    rows: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    nrows: int
    soc: list[int] | None = None


__all__ = ["ConicAnswer", "MultiplierSetConic"]

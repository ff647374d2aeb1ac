"""Coulomb contacts mixed with every other contact kind: the law as one nonsmooth equation in ``(a, λ)``.

The condensed (Delassus) form of :mod:`gaussqp.friction.coulomb_law` needs ``M ≻ 0`` and contacts that all obey
one cone complementarity. A problem that mixes ``"coulomb"`` contacts with bilateral constraints, told sticking or
told sliding contacts, or has a singular ``M``, is written here in the original variables (docs/DESIGN.md §1): with ``u_i = J_i a + drift_i`` (normal, tangents) and the sliding friction
``g(λ) = Σ_sliding μ_i |λ_n,i| T_iᵀ s_i``,

    M a + F + g(λ) = J_nᵀ λ_n + Σ_{coulomb, sticking} T_iᵀ λ_t,i

and, contact by contact, a map that vanishes exactly when the contact's law holds (natural maps, ρ = 1, in the
data's units: ``λ̃_i = λ_i / ℓ_i`` with the contact's force scale ``ℓ_i`` and ``ũ_i = u_i / υ_i`` with its row
scale ``υ_i``, :mod:`gaussqp.model.scales`; the projection commutes with positive scaling, so the zeros are those
of the unscaled law):

=====================  ===========================================================  =========================
kind                   map                                                          law
=====================  ===========================================================  =========================
bilateral (+sliding)   ``ũ_n``                                                      ``n a + b = 0``
unilateral (+sliding)  ``λ̃_n − max(0, λ̃_n − ũ_n)``                                ``0 <= λ_n ⟂ u_n >= 0``
coulomb                ``λ̃ − P_K(λ̃ − (ũ + μ‖ũ_t‖ e_n))``                          De Saxcé (ABH 2018 eq. 12)
unilateral sticking    ``λ̃ − P_K(λ̃ − (ũ_n, 0))`` and ``ũ_t``                       ``u_t = 0``, ``λ ∈ K_μ``, ⟂
bilateral sticking     ``ũ_n``, ``ũ_t`` and ``max(0, ‖λ̃_t‖ − μ|λ̃_n|)``             ``u = 0``, ``‖λ_t‖ <= μ|λ_n|``
=====================  ===========================================================  =========================

(the sticking row: ``λ = P_K(λ − (u_n, 0))`` is the variational inequality ``(u_n, 0) ∈ K_μ*``,
``λ_n u_n = 0``, i.e. ``u_n >= 0`` and the complementarity, with ``λ ∈ K_μ``). The dynamics rows are divided by
their data scales. :class:`MixedSystem` evaluates the stacked map ``E(x)`` and one element of its generalized
Jacobian in the scaled unknowns ``x = (ã, λ̃_n, λ̃_t of the cone contacts)``; :mod:`gaussqp.formulations.coulomb_mixed`
drives it to zero.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..linalg.dense import as_dense
from ..model.problem import ContactProblem
from ..model.scales import data_scales
from .compiled import kernels_when_worth, plain, spent_in_numpy
from .coulomb_law import project_cone, project_cone_jacobian
from .nonsmooth_newton import cone_projection_jacobian as _cone_projection_jacobian

BILATERAL, BILATERAL_STICKING, BILATERAL_SLIDING = "bilateral", "bilateral_sticking", "bilateral_sliding"
UNILATERAL, UNILATERAL_STICKING, UNILATERAL_SLIDING = "unilateral", "unilateral_sticking", "unilateral_sliding"
COULOMB = "coulomb"
#: kinds whose tangential multipliers are unknowns (the others have none, or a told sliding force)
CONE_KINDS = (COULOMB, UNILATERAL_STICKING, BILATERAL_STICKING)


#: the Jacobian argument of the compiled kernels when no Jacobian is wanted
_NO_JACOBIAN = np.zeros((0, 0))

#: rows of ``E`` per contact of each kind, as a function of the dimension d (the table of the module docstring)
_ROWS = {
    BILATERAL: lambda d: 1,
    BILATERAL_SLIDING: lambda d: 1,
    UNILATERAL: lambda d: 1,
    UNILATERAL_SLIDING: lambda d: 1,
    COULOMB: lambda d: d,
    BILATERAL_STICKING: lambda d: d + 1,
    UNILATERAL_STICKING: lambda d: 2 * d - 1,
}


def _kind(t: str, mode: str, mu: float, has_tangent: bool) -> str:
    """The kind of a contact of type ``t``, mode ``mode``, friction ``mu`` (μ = 0 friction is frictionless)."""
    if not (mode != "frictionless" and has_tangent and (mu > 0 or mode == "sticking")):
        return BILATERAL if t == "bilateral" else UNILATERAL
    if mode == "coulomb":
        return COULOMB
    return f"{t}_{mode}"


def contact_kind(problem: ContactProblem, i: int) -> str:
    """The kind of contact ``i`` in the table of the module docstring (μ = 0 friction is frictionless)."""
    return _kind(str(problem.types[i]), str(problem.modes[i]), float(problem.friction[i]), bool(problem.has_tangent[i]))


def contact_kinds(problem: ContactProblem) -> list[str]:
    """:func:`contact_kind` of every contact, in order."""
    columns = (problem.types, problem.modes, problem.friction, problem.has_tangent)
    return [
        _kind(str(t), str(mode), float(mu), bool(h))
        for t, mode, mu, h in zip(*(np.asarray(c).tolist() for c in columns))
    ]


@dataclass
class Split:
    """The scaled unknowns ``x`` mapped back to ``(a, λ_n, λ_t)`` in the problem's units."""

    a: np.ndarray
    lam_n: np.ndarray
    lam_t: np.ndarray  # (m, d-1), zero rows for contacts without tangential unknowns


@lru_cache(maxsize=32)
def _layout(n: int, m: int, d: int, kinds: tuple[str, ...]) -> dict:
    """The index arrays of a :class:`MixedSystem` of ``n`` coordinates and ``m`` contacts of dimension ``d`` of these
    ``kinds``, by attribute name: which contacts have tangential unknowns (``cone``, their columns ``t_index``), are
    told sliding, coulomb or one-row kinds, and where each contact's rows of ``E`` lie. They depend on the kinds and
    the sizes alone, not on the data's values: a trajectory's states share them (held here for the last few
    layouts), and no one writes to them (those NumPy alone reads are read-only; the kernels' int64 copies are the
    one argument type the kernels are compiled for)."""
    d1 = d - 1
    cone = [i for i in range(m) if kinds[i] in CONE_KINDS]
    t_index = {i: n + m + k * d1 for k, i in enumerate(cone)}
    # each contact's rows of E after the dynamics rows (their count by kind), and the coulomb contacts, which
    # :meth:`MixedSystem.evaluate` computes together
    offset = n + np.concatenate([[0], np.cumsum([_ROWS[k](d) for k in kinds])]).astype(int)
    coulomb = np.array([i for i in range(m) if kinds[i] == COULOMB], dtype=int)
    coulomb_t = np.array([t_index[i] for i in coulomb], dtype=int)
    # index arrays of the cone contacts' tangential unknowns and of the coulomb contacts' rows and columns (data
    # only: :meth:`MixedSystem.split` and :meth:`MixedSystem._coulomb_rows` gather and scatter with them)
    cone_t = (np.array([t_index[i] for i in cone], dtype=int)[:, None] + np.arange(d1)).ravel()
    c_rows = (offset[coulomb][:, None] + np.arange(d)[None, :]).ravel()
    # the contacts of the other kinds, (index, kind), each computed by :meth:`MixedSystem._contact`; for the compiled
    # kernels, the one-row kinds (frictionless or told sliding) apart from the sticking ones
    others = [(i, k) for i, k in enumerate(kinds) if k != COULOMB]
    one_row = (BILATERAL, BILATERAL_SLIDING, UNILATERAL, UNILATERAL_SLIDING)
    simple = np.array([i for i, k in others if k in one_row], dtype=np.int64)
    sliding = [i for i in range(m) if kinds[i].endswith("sliding")]
    for frozen in (offset, coulomb, coulomb_t, cone_t, c_rows):  # NumPy's index arrays (the kernels get copies)
        frozen.flags.writeable = False
    return {
        "_has_tangent": np.array([k in CONE_KINDS or k.endswith("sliding") for k in kinds], dtype=bool),
        "cone": cone,
        "t_index": t_index,
        "size": n + m + len(cone) * d1,
        "sliding": sliding,
        "_offset": offset,
        "_blocks": [slice(int(offset[i]), int(offset[i + 1])) for i in range(m)],
        "block_offsets": offset.astype(np.int64),
        "coulomb_contacts": coulomb,
        "_coulomb_t": coulomb_t,
        "_cone_idx": np.array(cone, dtype=int),
        "_cone_t": cone_t,
        "_c_rows": c_rows,
        "_others": others,
        "_simple": simple,
        "_simple_bilateral": np.array([kinds[i].startswith("bilateral") for i in simple], dtype=bool),
        "_simple_rows": offset[simple].astype(np.int64),
        "_sticking_others": [(i, k) for i, k in others if k not in one_row],
        "_c_idx": coulomb.astype(np.int64),
        "_c_rows64": c_rows.astype(np.int64),
        "_c_ncols": (n + coulomb).astype(np.int64),
        "_c_tcols": np.ascontiguousarray((coulomb_t[:, None] + np.arange(d1)[None, :]).astype(np.int64)),
        "_cone_idx64": np.array(cone, dtype=np.int64),
        "_cone_t64": cone_t.astype(np.int64),
        "_sliding64": np.array(sliding, dtype=np.int64),
    }


class MixedSystem:
    """The stacked map ``E(x)`` of the module docstring for one problem, its Jacobian and its scales.

    Scales (all from the data, :func:`gaussqp.model.scales.data_scales`): coordinate j of ``a`` in units
    ``S_j · accel``; contact i's multipliers in ``ℓ_i = force / w_i`` with ``w_i`` the largest of its rows'
    ``‖(J S)_k‖∞`` (one unit for the normal and the tangents, so that the cone keeps its shape); its velocities in
    ``υ_i``, the largest of its rows' scales; dynamics row j in its scale.

    Besides the data, the system holds its layout (:func:`_layout`, shared by the systems of the same sizes and
    kinds, read-only): ``cone`` (the contacts with tangential unknowns, whose columns ``t_index`` gives), ``sliding``
    (the told sliding ones), ``coulomb_contacts`` (the mode-free ones, an index array), ``size`` (the unknowns) and
    ``block_offsets`` (where each contact's rows of ``E`` start, and where the last one's end: (m + 1,) int64).
    """

    def __init__(self, problem: ContactProblem):
        p = problem
        self.problem = p
        self.n, self.m, self.d = p.n, p.m, p.dimension
        n, m, d = self.n, self.m, self.d
        d1 = d - 1
        self.kinds = contact_kinds(p)
        self.M = as_dense(p.M)
        self.F = np.asarray(p.F, dtype=float)
        self.N = as_dense(p.J_n).reshape(m, n)
        self.T = as_dense(p.J_t).reshape(m * d1, n)
        self.b = np.asarray(p.normal_drift, dtype=float)
        self.c = np.asarray(p.tangent_drift, dtype=float)
        self.mu = np.asarray(p.friction, dtype=float)
        self.slip = np.asarray(p.slip, dtype=float).reshape(m, d1)
        sc = data_scales(p)
        self.a_scale = sc.coordinate * sc.accel
        wt = sc.tangent_weight.reshape(m, d1) if m else np.zeros((0, d1))
        rt = sc.tangent_row.reshape(m, d1) if m else np.zeros((0, d1))
        # the index arrays of this shape and these kinds (cone, sliding, each contact's rows of E, ...): data only,
        # the same for every state of a trajectory, so computed once (:func:`_layout`); shared, never written to
        self.__dict__.update(_layout(n, m, d, tuple(self.kinds)))
        has_t = self._has_tangent
        w = np.where(has_t, np.maximum(sc.normal_weight, wt.max(axis=1, initial=0.0)), sc.normal_weight)
        w = np.where(w > 0, w, 1.0)
        self.lam_scale = sc.force / w
        ups = np.where(has_t, np.maximum(sc.normal_row, rt.max(axis=1, initial=0.0)), sc.normal_row)
        self.u_scale = np.where(ups > 0, ups, 1.0)
        self.dyn_scale = np.where(sc.dynamics_row > 0, sc.dynamics_row, 1.0)
        # the friction force of told sliding contacts: g = Σ μ |λ_n| T_iᵀ s_i (its column per unit |λ_n|)
        self.slide_dir = {i: self.mu[i] * (self.T[i * d1 : (i + 1) * d1].T @ self.slip[i]) for i in self.sliding}
        # ∂ũ_i/∂ã of every contact, (m, d, n): rows (normal, tangents) over the coordinates' columns (data only)
        rows_all = np.concatenate([self.N[:, None, :], self.T.reshape(m, d1, n)], axis=1)
        self._DU = rows_all * self.a_scale[None, None, :] / self.u_scale[:, None, None]
        C, simple = self.coulomb_contacts, self._simple
        self._c_scales = (self.lam_scale[C], self.u_scale[C], plain(self.mu[C]))
        self._c_numpy: tuple | None = None  # :meth:`_coulomb_columns`, built at the NumPy kernels' first use
        self._simple_scales = (plain(self.lam_scale[simple]), plain(self.u_scale[simple]))
        self._DUc = plain(self._DU)
        # the data of :meth:`_evaluate`'s compiled kernels, or None where NumPy's products take another BLAS path than
        # the kernels' dgemv (M, J_n or J_t not C-ordered; one contact or one coordinate: NumPy's product with a
        # one-row matrix, J_n or J_nᵀ, is a ddot)
        slide = np.array([self.slide_dir[i] for i in self.sliding], dtype=float).reshape(len(self.sliding), n)
        c_ordered = (
            m > 1 and n > 1 and all(A.flags.c_contiguous and A.dtype == np.float64 for A in (self.M, self.N, self.T))
        )
        self._kernel_data = (
            (
                plain(self.a_scale),
                plain(self.lam_scale),
                self._cone_idx64,
                self._cone_t64,
                plain(self.N),
                plain(self.b),
                plain(self.T),
                plain(self.c),
                plain(self.M),
                plain(self.F),
                self._sliding64,
                slide,
                plain(self.dyn_scale),
            )  # fmt: skip
            if c_ordered
            else None
        )
        # the dynamics rows of the Jacobian, data only: M's, −J_nᵀ's and the cone contacts' −T_cᵀ columns (a told
        # sliding contact's normal column is set per evaluation: it depends on the sign of λ_n)
        dj = np.zeros((n, self.size))
        dj[:, :n] = self.M * self.a_scale[None, :] / self.dyn_scale[:, None]
        dj[:, n : n + m] = -self.N.T * self.lam_scale[None, :] / self.dyn_scale[:, None]
        if self.cone:  # the cone contacts' tangential columns, contiguous after λ_n (t_index)
            Tc = self.T.reshape(m, d1, n)[self.cone] * self.lam_scale[self.cone][:, None, None]
            dj[:, n + m :] = -Tc.reshape(-1, n).T / self.dyn_scale[:, None]
        #: the dynamics rows of the Jacobian (n × size), data only
        self.dynamics_jacobian = dj

    def loop_data(self) -> tuple | None:
        """The data of the compiled Newton stage (``compiled_kernels.mixed_evaluate``, ``mixed_newton_loop``): the
        arrays of :meth:`_evaluate`'s compiled kernels, or None where those do not evaluate the whole map (a told
        sticking contact, whose rows :meth:`_contact` computes, or data NumPy multiplies by another BLAS path)."""
        if self._kernel_data is None or self._sticking_others:
            return None
        simple = (self._simple, self._simple_bilateral, *self._simple_scales, self._simple_rows)
        coulomb = (self._c_idx, *self._c_scales, self._c_rows64, self._c_ncols, self._c_tcols)
        return (
            self._kernel_data,
            simple,
            coulomb,
            self._DUc,
            plain(self.dynamics_jacobian),
            int(self._offset[-1]),
            int(self.size),
        )

    # ------------------------------------------------------------------ variables
    def split(self, x: np.ndarray) -> Split:
        n, m, d1 = self.n, self.m, self.d - 1
        a = self.a_scale * x[:n]
        lam_n = self.lam_scale * x[n : n + m]
        lam_t = np.zeros((m, d1))
        cone = self._cone_idx
        lam_t[cone] = self.lam_scale[cone][:, None] * x[self._cone_t].reshape(-1, d1)
        return Split(a, lam_n, lam_t)

    def pack(self, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray) -> np.ndarray:
        """The scaled unknowns of ``(a, λ_n, λ_t)`` (inverse of :meth:`split`; λ_t of other contacts dropped)."""
        n, m, d1 = self.n, self.m, self.d - 1
        x = np.zeros(self.size)
        x[:n] = a / self.a_scale
        x[n : n + m] = lam_n / self.lam_scale
        lam_t = np.asarray(lam_t, dtype=float).reshape(m, d1)
        for i, k in self.t_index.items():
            x[k : k + d1] = lam_t[i] / self.lam_scale[i]
        return x

    def velocities(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(u_n, u_t)``: ``n a + b`` (m,) and ``T a + c`` (m, d-1)."""
        return self.N @ a + self.b, (self.T @ a + self.c).reshape(self.m, self.d - 1)

    def friction_force(self, lam_n: np.ndarray) -> np.ndarray:
        """``g = Σ_sliding μ_i |λ_n,i| T_iᵀ s_i`` (the generalized force of the told sliding friction, moved to
        the left-hand side: ``λ_t,i = −μ_i |λ_n,i| s_i``)."""
        g = np.zeros(self.n)
        for i in self.sliding:
            g += abs(lam_n[i]) * self.slide_dir[i]
        return g

    def dynamics(self, s: Split) -> np.ndarray:
        """``M a + F + g − J_nᵀλ_n − J_tᵀλ_t`` (raw units)."""
        return self.M @ s.a + self.F + self.friction_force(s.lam_n) - self.N.T @ s.lam_n - self.T.T @ s.lam_t.ravel()

    # ------------------------------------------------------------------ the map and its Jacobian
    def evaluate(self, x: np.ndarray, jacobian: bool = True) -> tuple[np.ndarray, np.ndarray | None, list]:
        """``(E(x), ∂E/∂x or None, blocks)``: the stacked scaled map, one element of its generalized Jacobian,
        and for every contact the slice of ``E`` that is its own (for the per-contact residuals). The coulomb
        contacts are computed together (one projection, one batched product), the other kinds one by one."""
        return self._evaluate(x, jacobian, True)

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        """``∂E/∂x`` at ``x`` as :meth:`evaluate` gives it, without the map's values (a line search evaluates its
        trial points without the Jacobian and asks for it at the point it accepts)."""
        Jac = self._evaluate(x, True, False)[1]
        assert Jac is not None
        return Jac

    def _evaluate(self, x: np.ndarray, jacobian: bool, values: bool) -> tuple[np.ndarray, np.ndarray | None, list]:
        """:meth:`evaluate`; ``values=False`` leaves the coulomb contacts' rows of ``E`` and its dynamics rows unset
        (only the Jacobian is wanted)."""
        n = self.n
        fast = kernels_when_worth()
        t_numpy = time.perf_counter() if fast is None else 0.0
        data = self._kernel_data if fast is not None else None
        if data is not None:  # the unknowns, velocities and dynamics rows by compiled kernels, the same bits
            a_sc, l_sc, cone, cone_t, N, b, T, c, M, F, sliding, slide, dyn = data
            a, lam_n, lam_t, un, ut = fast.mixed_state(plain(x), a_sc, l_sc, cone, cone_t, N, b, T, c)
            s = Split(a, lam_n, lam_t)
        else:
            s = self.split(x)
            un, ut = self.velocities(s.a)
        total = int(self._offset[-1])
        E = np.empty(total)
        if values:
            if data is not None:
                E[:n] = fast.mixed_dynamics(M, F, N, T, a, lam_n, lam_t, sliding, slide, dyn)
            else:
                E[:n] = self.dynamics(s) / self.dyn_scale
        Jac = None
        if jacobian:
            Jac = np.zeros((total, self.size))
            Jac[:n] = self.dynamics_jacobian  # data only (built once)
            for i in self.sliding:  # the told sliding friction's column per unit |λ_n|
                col = -self.N[i] + np.sign(s.lam_n[i]) * self.slide_dir[i]
                Jac[:n, n + i] = col * self.lam_scale[i] / self.dyn_scale
        others = self._others if fast is None else self._sticking_others
        for i, kind in others:
            e, G = self._contact(i, kind, s, un[i], ut[i], jacobian)
            E[self._blocks[i]] = e
            if Jac is not None:
                Jac[self._blocks[i]] = G
        if fast is not None:  # the one-row and the coulomb contacts by compiled kernels (gaussqp.friction.compiled)
            J_ = Jac if Jac is not None else _NO_JACOBIAN
            un, ut = plain(un), plain(ut)
            if self._simple.size:
                ls, us = self._simple_scales
                fast.mixed_simple_rows(
                    s.lam_n, un, self._simple, self._simple_bilateral, ls, us, self._DUc, self._simple_rows, E, J_,
                    True, Jac is not None,
                )  # fmt: skip
            if self.coulomb_contacts.size:
                ls, us, mu = self._c_scales
                fast.mixed_coulomb_rows(
                    s.lam_n, s.lam_t, un, ut, self._c_idx, ls, us, mu, self._DUc, self._c_rows64, self._c_ncols,
                    self._c_tcols, E, J_, values, Jac is not None,
                )  # fmt: skip
        elif self.coulomb_contacts.size:
            self._coulomb_rows(s, un, ut, E if values else None, Jac)
        if fast is None:  # the NumPy kernels' time counts towards loading the compiled ones (worth_loading)
            spent_in_numpy(time.perf_counter() - t_numpy)
        return E, Jac, list(self._blocks)

    def _coulomb_rows(
        self, s: Split, un: np.ndarray, ut: np.ndarray, E: np.ndarray | None, Jac: np.ndarray | None
    ) -> None:
        """The coulomb contacts' rows of ``E`` (unless None) and of its Jacobian (unless None):
        ``λ̃ − P_K(λ̃ − (ũ + μ‖ũ_t‖ e_n))``."""
        n, d, C = self.n, self.d, self.coulomb_contacts
        ls, us, mu = self._c_scales
        lam = np.empty((C.size, d))
        lam[:, 0] = s.lam_n[C] / ls
        lam[:, 1:] = s.lam_t[C] / ls[:, None]
        ut_ = ut[C] / us[:, None]
        v = np.concatenate([(un[C] / us)[:, None], ut_], axis=1)
        nut = np.sqrt(np.add.reduce(ut_ * ut_, axis=1))
        z = lam - v
        z[:, 0] -= mu * nut
        rows = self._c_rows
        proj = project_cone(z.ravel(), mu, d) if E is not None else None
        P = _cone_projection_jacobian(z.ravel(), mu, d) if Jac is not None else None
        if E is not None:
            E[rows] = (lam - proj.reshape(-1, d)).ravel()
        if Jac is None:
            return
        eye, normal_cols, tangent_cols = self._coulomb_columns()
        D = eye.copy()
        moving = nut > 0
        D[moving, 0, 1:] = (mu[moving] / nut[moving])[:, None] * ut_[moving]
        Jac[rows, :n] = np.matmul(np.matmul(P, D), self._DU[C]).reshape(-1, n)
        rest = eye - P
        Jac[rows, normal_cols] = rest[:, :, 0].ravel()
        Jac[rows[:, None], tangent_cols] = rest[:, :, 1:].reshape(-1, d - 1)

    def _coulomb_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The identity of each coulomb contact's block and the Jacobian's columns of its normal and tangential
        unknowns, row by row of its block (data only): :meth:`_coulomb_rows`'s, built at its first call (the compiled
        kernels, when loaded, fill those rows without them)."""
        if self._c_numpy is None:
            d, C = self.d, self.coulomb_contacts
            self._c_numpy = (
                np.broadcast_to(np.eye(d), (C.size, d, d)).copy(),
                np.repeat(self.n + C, d),
                np.repeat(self._coulomb_t[:, None] + np.arange(d - 1)[None, :], d, axis=0),
            )
        return self._c_numpy

    def _du(self, i: int) -> np.ndarray:
        """∂ũ_i/∂x over the coordinates' columns: (d, n), rows (normal, tangents)."""
        return self._DU[i]

    def _contact(self, i: int, kind: str, s: Split, un: float, ut: np.ndarray, jacobian: bool):
        n, d = self.n, self.d
        d1 = d - 1
        ls, us = self.lam_scale[i], self.u_scale[i]
        ln = s.lam_n[i] / ls
        lt = s.lam_t[i] / ls
        un_, ut_ = un / us, ut / us
        col_n = n + i
        G = None
        if kind in (BILATERAL, BILATERAL_SLIDING):
            e = np.array([un_])
            if jacobian:
                G = np.zeros((1, self.size))
                G[0, :n] = self._du(i)[0]
            return e, G
        if kind in (UNILATERAL, UNILATERAL_SLIDING):
            z = ln - un_
            e = np.array([ln - max(0.0, z)])
            if jacobian:
                G = np.zeros((1, self.size))
                if z > 0:
                    G[0, :n] = self._du(i)[0]
                else:
                    G[0, col_n] = 1.0
            return e, G
        k = self.t_index[i]
        lam = np.concatenate([[ln], lt])
        mu = self.mu[i : i + 1]
        if kind == BILATERAL_STICKING:
            excess = float(np.linalg.norm(lt)) - self.mu[i] * abs(ln)
            e = np.concatenate([[un_], ut_, [max(0.0, excess)]])
            if jacobian:
                G = np.zeros((d + 1, self.size))
                G[:d, :n] = self._du(i)
                if excess > 0:
                    G[d, col_n] = -self.mu[i] * np.sign(ln)
                    nt = float(np.linalg.norm(lt))
                    G[d, k : k + d1] = lt / nt if nt > 0 else 0.0
            return e, G
        if kind == COULOMB:
            v = np.concatenate([[un_], ut_])
            nut = float(np.linalg.norm(ut_))
            z = lam - v - np.concatenate([[self.mu[i] * nut], np.zeros(d1)])
            e = lam - project_cone(z, mu, d)
            if jacobian:
                P = project_cone_jacobian(z, mu, d)[0]
                D = np.eye(d)
                if nut > 0:
                    D[0, 1:] = self.mu[i] * ut_ / nut
                G = np.zeros((d, self.size))
                G[:, :n] = P @ D @ self._du(i)
                G[:, col_n] = (np.eye(d) - P)[:, 0]
                G[:, k : k + d1] = (np.eye(d) - P)[:, 1:]
            return e, G
        # unilateral sticking: λ = P_K(λ − (u_n, 0)) and u_t = 0
        z = lam - np.concatenate([[un_], np.zeros(d1)])
        e = np.concatenate([lam - project_cone(z, mu, d), ut_])
        if jacobian:
            P = project_cone_jacobian(z, mu, d)[0]
            du = self._du(i)
            G = np.zeros((d + d1, self.size))
            G[:d, :n] = np.outer(P[:, 0], du[0])
            G[:d, col_n] = (np.eye(d) - P)[:, 0]
            G[:d, k : k + d1] = (np.eye(d) - P)[:, 1:]
            G[d:, :n] = du[1:]
        return e, G


__all__ = [
    "BILATERAL",
    "BILATERAL_SLIDING",
    "BILATERAL_STICKING",
    "CONE_KINDS",
    "COULOMB",
    "MixedSystem",
    "Split",
    "UNILATERAL",
    "UNILATERAL_SLIDING",
    "UNILATERAL_STICKING",
    "contact_kind",
    "contact_kinds",
]

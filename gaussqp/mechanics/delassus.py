"""Delassus matrices and the bilateral distortion (M ≻ 0 only): the mechanics layer's matrices of a
:class:`~gaussqp.model.problem.ContactProblem`, built on the pure linear algebra of :mod:`gaussqp.linalg`
(moved here from ``gaussqp.linalg.delassus``, which still answers for these names).

With equality rows ``J_b`` (bilateral normals and sticking tangents, drift ``b_b``) and
unilateral rows ``J_u`` (drift ``b_u``):

- ``W = J M⁻¹ Jᵀ``, ``w = -J M⁻¹ F + b`` over all rows (tutorial (9)-(10); inertial (2)),
- ``A_nb = J_b M⁻¹ J_bᵀ``, ``w_b = -J_b M⁻¹ F + b_b`` (tutorial (7)),
- ``P = I - J_bᵀ A_nb⁺ J_b M⁻¹`` and ``M_c⁻¹ = M⁻¹ P`` (tutorial (19), (32); inertial (17)),
- ``A_c = J_u M_c⁻¹ J_uᵀ`` (tutorial (32); inertial (16)),
- ``w_c = -J_u M_c⁻¹ F - J_u M⁻¹ J_bᵀ A_nb⁺ b_b + b_u``.

Notes
-----
``w_c`` is derived here from (16)(a),(c) by eliminating ``λ_b``; it equals inertial (21)
(``H_4``). Tutorial (33) prints the bilateral drift term without ``A_nb⁻¹`` and with
``F_M = -M F``; the elimination above is the one that satisfies the dynamics, and the
tests check it against F1. The Moore–Penrose inverse ``A_nb⁺`` replaces ``A_nb⁻¹`` so that
redundant bilateral rows are handled (``M⁻¹ J_bᵀ A_nb⁺ J_b`` is still the M-orthogonal
projector onto ``im M⁻¹J_bᵀ``); with ``J_b`` of full row rank it is the papers' formula.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..linalg.dense import as_dense, equilibrated_pinv
from ..linalg.mass import cholesky_solve, solve_mass
from ..model.memo import per_problem
from ..model.problem import ContactProblem
from ..model.scales import data_scales
from ..settings import BILATERAL_COMPAT_RTOL


@dataclass(frozen=True)
class ConstrainedDelassus:
    """Matrices of the bilateral-eliminated (constrained) Delassus route."""

    Minv: np.ndarray
    A_nb: np.ndarray
    A_nb_pinv: np.ndarray
    A_bu: np.ndarray
    w_b: np.ndarray
    P: np.ndarray
    Mc_inv: np.ndarray
    A_c: np.ndarray
    w_c: np.ndarray
    a_b: np.ndarray  # bilateral-constrained free acceleration: -M_c⁻¹ F - M⁻¹J_bᵀ A_nb⁺ b_b
    J_b: np.ndarray
    J_u: np.ndarray


def delassus(problem: ContactProblem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W, w, J) over rows J = [J_b; J_u] (equalities first, then unilateral normals).

    ``W = J M⁻¹ Jᵀ``, ``w = -J M⁻¹ F + b`` (tutorial (9)-(10), inertial (2)). Requires M ≻ 0.
    """
    E, e = problem.equalities
    G, g = problem.inequalities
    J = np.vstack([as_dense(E), as_dense(G)])
    b = np.concatenate([e, g])
    MinvJT = solve_mass(problem.M, J.T) if J.shape[0] else np.zeros((problem.n, 0))
    MinvF = solve_mass(problem.M, problem.F)
    W = J @ MinvJT
    return 0.5 * (W + W.T), -J @ MinvF + b, J


@dataclass(frozen=True)
class RowsDelassus:
    """The Delassus form of chosen rows ``J`` (k × n) with drift ``b``: ``W = J M⁻¹ Jᵀ`` (symmetrized), ``q = J a_free
    + b``, and what recovers the acceleration from the rows' forces ``r``: ``a = M⁻¹Jᵀ r + a_free`` (``MinvJt``,
    ``a_free = −M⁻¹F``)."""

    W: np.ndarray
    q: np.ndarray
    MinvJt: np.ndarray
    a_free: np.ndarray


def delassus_of_rows(problem: ContactProblem, J, drift: np.ndarray, factor=None) -> RowsDelassus:
    """:class:`RowsDelassus` of the rows ``J`` (sparse or dense, k × n) and ``drift`` (k,) of ``problem`` with one
    solve of M against ``[Jᵀ, −F]`` (:func:`~gaussqp.linalg.mass.solve_mass`). Requires M ≻ 0.

    ``factor``: the Cholesky factor of a dense M already made (``scipy.linalg.cho_factor(M)``, e.g. kept by
    :class:`gaussqp.formulations.coulomb.CoulombPlan` while M does not change); the solve is then ``cho_solve``
    with it (:func:`~gaussqp.linalg.mass.cholesky_solve`), the same operation :func:`~gaussqp.linalg.mass.solve_mass`
    does after factoring (same bits).

    The builder of the local (Delassus) form over the contact blocks of an acceleration-level problem with M ≻ 0:
    ``condense`` in ``gaussqp/formulations/coulomb.py`` calls it."""
    F = np.asarray(problem.F, dtype=float)
    JT = J.T.toarray() if hasattr(J, "toarray") else np.asarray(J, dtype=float).T
    if factor is not None:
        X = cholesky_solve(factor, np.column_stack([JT, -F]))
    else:
        X = np.asarray(solve_mass(problem.M, np.column_stack([JT, -F])))
    MinvJt, a_free = X[:, :-1], X[:, -1]
    W = np.asarray(J @ MinvJt)
    return RowsDelassus(W=(W + W.T) / 2, q=np.asarray(J @ a_free).ravel() + drift, MinvJt=MinvJt, a_free=a_free)


@dataclass(frozen=True)
class BilateralElimination:
    """The bilateral rows ``J a + e = 0`` eliminated from the dynamics (M ≻ 0): tutorial (17)–(19),
    inertial (13)–(21).

    ``A = J M⁻¹ Jᵀ`` (the bilateral Delassus block, ``A_nb``), ``A⁺`` its generalized inverse taken on
    the Jacobi-equilibrated form (:func:`~gaussqp.linalg.dense.equilibrated_pinv`: redundant rows
    allowed, rank decided whatever the rows' units), ``P = I - Jᵀ A⁺ J M⁻¹``, the constrained inverse
    ``M_c⁻¹ = M⁻¹ P`` (symmetric), and ``a_free = -M_c⁻¹ F - M⁻¹ Jᵀ A⁺ e``, the acceleration under these
    rows alone."""

    Minv: np.ndarray
    J: np.ndarray
    A: np.ndarray
    A_pinv: np.ndarray
    P: np.ndarray
    Mc_inv: np.ndarray
    a_free: np.ndarray


def eliminate_bilateral(problem: ContactProblem, J: np.ndarray, e: np.ndarray) -> BilateralElimination:
    """The one bilateral elimination of gaussqp (:class:`BilateralElimination`), used by the constrained
    Delassus route (:func:`constrained_delassus`) and the sliding reduction
    (:func:`gaussqp.friction.sliding.reduce`). ``J`` (k × n, dense) and ``e`` (k,) are the eliminated rows."""
    n = problem.n
    Minv = solve_mass(problem.M, np.eye(n))
    Minv = 0.5 * (Minv + Minv.T)
    if J.shape[0] == 0:  # nothing eliminated: P = I, M_c⁻¹ = M⁻¹, a_free = -M⁻¹F (what the products below give)
        return BilateralElimination(
            Minv=Minv,
            J=J,
            A=np.zeros((0, 0)),
            A_pinv=np.zeros((0, 0)),
            P=np.eye(n),
            Mc_inv=Minv,
            a_free=-Minv @ problem.F,
        )
    A = J @ Minv @ J.T
    A_pinv = equilibrated_pinv(A) if J.shape[0] else np.zeros((0, 0))
    P = np.eye(n) - J.T @ A_pinv @ J @ Minv
    Mc_inv = Minv @ P
    Mc_inv = 0.5 * (Mc_inv + Mc_inv.T)
    a_free = -Mc_inv @ problem.F - Minv @ J.T @ A_pinv @ e
    return BilateralElimination(Minv=Minv, J=J, A=A, A_pinv=A_pinv, P=P, Mc_inv=Mc_inv, a_free=a_free)


@per_problem
def constrained_delassus(problem: ContactProblem) -> ConstrainedDelassus:
    """The bilateral-eliminated matrices (tutorial (17)-(19), (31)-(33); inertial (13)-(21)). M ≻ 0.

    Computed once per problem (its arrays read-only): C5's range test, C6, C8 and the LCP route of one solve all
    read them."""
    E, e = problem.equalities
    G, g = problem.inequalities
    Jb, Ju = as_dense(E), as_dense(G)
    el = eliminate_bilateral(problem, Jb, e)
    A_bu = Jb @ el.Minv @ Ju.T
    w_b = -Jb @ el.Minv @ problem.F + e
    A_c = Ju @ el.Mc_inv @ Ju.T
    w_c = Ju @ el.a_free + g
    out = ConstrainedDelassus(
        Minv=el.Minv,
        A_nb=el.A,
        A_nb_pinv=el.A_pinv,
        A_bu=A_bu,
        w_b=w_b,
        P=el.P,
        Mc_inv=el.Mc_inv,
        A_c=0.5 * (A_c + A_c.T),
        w_c=w_c,
        a_b=el.a_free,
        J_b=Jb,
        J_u=Ju,
    )
    for field in ("Minv", "A_nb", "A_nb_pinv", "A_bu", "w_b", "P", "Mc_inv", "A_c", "w_c", "a_b"):  # computed here
        getattr(out, field).flags.writeable = False  # (J_b, J_u are the problem's own rows: left as they are)
    return out


def bilateral_compatible(problem: ContactProblem, a: np.ndarray) -> bool:
    """Do the equality rows (bilateral normals, sticking tangents: ``problem.equalities``) hold at ``a``, an
    acceleration computed by eliminating them (F2's ``a_b``, F3's ``M⁻¹(Jᵀλ - F)``)? When the drift is not in
    the image of the rows (tutorial (17) has no solution) the eliminated system leaves a residual of the drift's
    size. Each row ``|E_i a + e_i|`` is judged against that row's own data scale (:mod:`gaussqp.model.scales`,
    ``equality_row``) with :data:`BILATERAL_COMPAT_RTOL`: the one test of F2 and F3, in any units."""
    E, e = problem.equalities
    if E.shape[0] == 0:
        return True
    r = np.abs(as_dense(E) @ np.asarray(a, dtype=float) + e)
    scale = data_scales(problem).equality_row
    return bool(np.all(r <= BILATERAL_COMPAT_RTOL * scale))


def kinetic_angles(
    problem: ContactProblem, rows_a: np.ndarray, rows_b: np.ndarray, minv: np.ndarray | None = None
) -> np.ndarray:
    """Kinetic angles θ_ij = π - arccos(n_iᵀM⁻¹n_j / (‖n_i‖_{M⁻¹}‖n_j‖_{M⁻¹})) (inertial (9)); NaN where a
    row is zero (no angle). ``minv``: M⁻¹ when the caller has it (C6 reads it off :func:`constrained_delassus`),
    else M is solved against the rows."""
    A, B = as_dense(rows_a), as_dense(rows_b)
    MinvBT = minv @ B.T if minv is not None else solve_mass(problem.M, B.T)
    MinvAT = minv @ A.T if minv is not None else solve_mass(problem.M, A.T)
    num = A @ MinvBT
    na = np.sqrt(np.einsum("ij,ji->i", A, MinvAT))
    nb = np.sqrt(np.einsum("ij,ji->i", B, MinvBT))
    den = np.outer(na, nb)
    cos = np.full(den.shape, np.nan)
    ok = den > 0
    cos[ok] = np.clip(num[ok] / den[ok], -1.0, 1.0)  # a zero row has no angle: NaN, said by the caller
    return np.pi - np.arccos(cos)

"""The equality KKT system ``[M -Jᵀ; J 0] (a, λ) = (-F, -c)`` of an active set of a
:class:`~gaussqp.model.problem.ContactProblem`: the guess of the active unilateral rows, its equilibrated dense
assembly and SVD, and its sparse LU solution (the solve itself, :func:`gaussqp.linalg.kkt.sparse_kkt_solve`, is pure
linear algebra and stays in :mod:`gaussqp.linalg`). Moved here from ``gaussqp.linalg.kkt``, which still answers for
these names.

Shared by the active-set polish (:mod:`gaussqp.certificates.polish`), the forward-error certificate
(:func:`gaussqp.certificates.instance.forward_error`) and F7 (:mod:`gaussqp.formulations.bilateral_kkt`). The polish
and the forward error use one factorization of the equilibrated matrix per active set (:func:`equilibrated_kkt_svd`:
its singular values decide rank and condition; an LU solves when it is nonsingular at the rank asked, the singular
vectors when it is not), kept with the problem: one solve asks it four times of the same set (the answer and the
cross-check's, each polished and then estimated). On a sparse problem the polish's sparse LU solution is kept the
same way (:func:`sparse_active_set_solution`).
Tutorial (4) and App. E; inertial (48) (the KKT conditions of the Gauss QP on the active rows).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..linalg.dense import as_dense, singular_values
from ..linalg.kkt import sparse_kkt_solve
from ..model.problem import ContactProblem
from ..model.scales import data_scales
from ..settings import KKT_SVD_MEMO_MAX, KKT_SVD_MEMO_SIZE


class ActiveSetMemo:
    """Values kept by problem (held weakly, so a problem and its values go together) and active set: the last
    :data:`~gaussqp.settings.KKT_SVD_MEMO_SIZE` sets stored per problem. The store of :func:`equilibrated_kkt_svd`,
    of :func:`sparse_active_set_solution` and of :func:`gaussqp.certificates.polish.active_set_point`."""

    MISSING = object()

    def __init__(self):
        self._sets: "weakref.WeakKeyDictionary[ContactProblem, OrderedDict]" = weakref.WeakKeyDictionary()

    def __contains__(self, problem) -> bool:
        return problem in self._sets

    def get(self, problem: ContactProblem, active: np.ndarray):
        """The value kept for ``(problem, active)``, else :attr:`MISSING` (None may be a value)."""
        sets = self._sets.get(problem)
        return self.MISSING if sets is None else sets.get(active.tobytes(), self.MISSING)

    def put(self, problem: ContactProblem, active: np.ndarray, value) -> None:
        sets = self._sets.setdefault(problem, OrderedDict())
        sets[active.tobytes()] = value
        while len(sets) > KKT_SVD_MEMO_SIZE:
            sets.popitem(last=False)


#: :func:`sparse_active_set_solution`'s answers
_SPARSE_MEMO = ActiveSetMemo()


def sparse_active_set_solution(problem: ContactProblem, active: np.ndarray) -> np.ndarray | None:
    """``z = (a, λ_E, λ_A)`` solving the equality KKT system of a sparse ``problem`` with the unilateral rows
    ``active`` (a boolean mask) by :func:`sparse_kkt_solve`, or None. A function of the problem and the set only,
    kept with the problem (read-only): the answer's and the cross-check's polish ask it of the same set, one sparse
    LU between them."""
    active = np.asarray(active, dtype=bool)
    z = _SPARSE_MEMO.get(problem, active)
    if z is _SPARSE_MEMO.MISSING:
        E, e = problem.equalities
        G, g = problem.inequalities
        J = sp.vstack([sp.csr_matrix(E), sp.csr_matrix(G)[active]], format="csr")
        z = sparse_kkt_solve(problem.M, J, np.concatenate([-problem.F, -e, -g[active]]))
        if z is not None:
            z.flags.writeable = False
        _SPARSE_MEMO.put(problem, active, z)
    return z


def guess_active(problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray) -> np.ndarray:
    """The unilateral rows taken as active at (a, λ): ``λ̂_i >= ĝ_i``, the multiplier's contribution to the
    equilibrated dynamics against the row's slack, both on the data's scale, row by row (:mod:`gaussqp.model.scales`)."""
    sc = data_scales(problem)
    G, g = problem.inequalities
    U = problem.unilateral
    slack = np.asarray(G @ a).ravel() + g if G.shape[0] else np.zeros(0)
    lam_hat = lam_n[U] * sc.normal_weight[U] / sc.force
    return lam_hat >= slack / np.where(sc.inequality_row > 0, sc.inequality_row, 1.0)


@dataclass(frozen=True)
class EquilibratedKKT:
    """``K = [M -Jᵀ; J 0]`` over the equality rows and the active unilateral rows, with ``J a + c = 0``;
    ``d = (S, 1/w)`` equilibrates it (``diag(d) K diag(d)``: coordinates by the Jacobi scaling of M, rows by
    their weight ``‖(J S)_i‖∞``; ``z = d ⊙ z̃``); ``data_rows`` is each row's scale from the data."""

    J: np.ndarray
    c: np.ndarray
    K: np.ndarray
    d: np.ndarray
    data_rows: np.ndarray


def equilibrated_kkt(problem: ContactProblem, active: np.ndarray) -> EquilibratedKKT:
    """The dense :class:`EquilibratedKKT` of ``problem`` with the unilateral rows ``active`` (a boolean mask)."""
    sc = data_scales(problem)
    E, e = problem.equalities
    G, g = problem.inequalities
    n = problem.n
    J = np.vstack([as_dense(E).reshape(-1, n), as_dense(G).reshape(-1, n)[active]])
    k = J.shape[0]
    K = np.zeros((n + k, n + k))
    K[:n, :n] = as_dense(problem.M)
    K[:n, n:] = -J.T
    K[n:, :n] = J
    w = np.concatenate([sc.equality_weight, sc.inequality_weight[active]])
    return EquilibratedKKT(
        J=J,
        c=np.concatenate([e, g[active]]),
        K=K,
        d=np.concatenate([sc.coordinate, 1.0 / w]),
        data_rows=np.concatenate([sc.dynamics_row, sc.equality_row, sc.inequality_row[active]]),
    )


class KKTFactor:
    """An :class:`EquilibratedKKT` and the factors of its equilibrated matrix ``K̃ = diag(d) K diag(d)``.

    The singular values ``sv`` decide the rank and the condition (one rank rule); the rest is computed when first
    asked and kept: for a rank equal to the order of ``K̃``, one LU factorization with partial pivoting (``K̃⁺ = K̃⁻¹``:
    the solves and the rows of the inverse), else the singular vectors ``U``, ``Vt`` (the truncated pseudo-inverse).
    The same numbers in exact arithmetic; an LU and its inverse cost ~60 µs against ~250 µs for the vectors of a
    41 × 41 SVD (the humanoid's active set). ``vectors_first``: compute the SVD's vectors with its values (``K̃`` is
    likely singular, so the truncated pseudo-inverse will likely be asked)."""

    def __init__(self, kkt: EquilibratedKKT, Kt: np.ndarray, vectors_first: bool = False):
        self.kkt = kkt
        self._Kt = Kt
        self._svd: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._lu: tuple[np.ndarray, np.ndarray] | None = None
        self._inverse: np.ndarray | None = None
        if vectors_first:
            sv = self._vectors()[1]
        else:
            sv = _read_only(singular_values(Kt))
        #: the singular values of K̃, largest first
        self.sv = sv

    @property
    def order(self) -> int:
        return int(self._Kt.shape[0])

    def rank(self, rtol: float) -> int:
        """How many singular values exceed ``rtol · σ_max`` (0 for a zero matrix)."""
        return int(np.count_nonzero(self.sv > rtol * self.sv[0])) if self.sv.size and self.sv[0] > 0 else 0

    def solve(self, rhs: np.ndarray, rank: int) -> np.ndarray:
        """``K̃⁺ rhs`` over the ``rank`` largest singular values (the truncated pseudo-inverse; ``K̃⁻¹ rhs`` by the LU
        at full rank)."""
        if rank == self.order and rank:
            from scipy.linalg import lapack

            lu, piv = self._factor()
            x, info = lapack.dgetrs(lu, piv, rhs)
            if info == 0 and np.all(np.isfinite(x)):
                return x
        U, sv, Vt = self._vectors()
        return Vt[:rank].T @ ((U[:, :rank].T @ rhs) / sv[:rank])

    def inverse_rows(self, start: int, rank: int) -> np.ndarray:
        """The rows ``start:`` of ``K̃⁺`` over the ``rank`` largest singular values (of ``K̃⁻¹`` at full rank)."""
        if rank == self.order and rank:
            if self._inverse is None:
                from scipy.linalg import lapack

                lu, piv = self._factor()
                inv, info = lapack.dgetri(lu, piv)
                if info == 0 and np.all(np.isfinite(inv)):
                    self._inverse = _read_only(inv)
            if self._inverse is not None:
                return self._inverse[start:]
        U, sv, Vt = self._vectors()
        return Vt[:rank].T[start:] @ (U[:, :rank].T / sv[:rank, None])

    def _factor(self) -> tuple:
        if self._lu is None:
            from scipy.linalg import lapack

            lu, piv, _ = lapack.dgetrf(self._Kt)
            self._lu = (_read_only(lu), _read_only(piv))
        return self._lu

    def _vectors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(U, sv, Vt)``: the whole SVD (its values from the same call as its vectors)."""
        if self._svd is None:
            U, sv, Vt = np.linalg.svd(self._Kt)
            self._svd = (_read_only(U), _read_only(sv), _read_only(Vt))
        return self._svd


def _read_only(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False  # shared by the readers of one solve
    return arr


#: :func:`equilibrated_kkt_svd`'s factors
_SVD_MEMO = ActiveSetMemo()


def factored_any(problem: ContactProblem) -> bool:
    """Whether :func:`equilibrated_kkt_svd` keeps a factorization of some active set of ``problem`` (the polish's): the
    forward error then takes its steps in NumPy, which reads it, instead of factoring the set again in its compiled
    kernel (:func:`gaussqp.certificates.instance.forward_error`)."""
    return problem in _SVD_MEMO


def equilibrated_kkt_svd(problem: ContactProblem, active: np.ndarray) -> KKTFactor:
    """The :class:`KKTFactor` of ``problem`` with the unilateral rows ``active``: :func:`equilibrated_kkt` and the
    singular values of its equilibrated matrix (its vectors too where it is likely singular: more rows than
    coordinates, which makes it singular, or a singular M, whose kernel the rows may not cover), kept with the problem
    up to :data:`~gaussqp.settings.KKT_SVD_MEMO_MAX` (n + active rows) for the polish and the forward error of every
    answer of one solve."""
    active = np.asarray(active, dtype=bool)
    hit = _SVD_MEMO.get(problem, active)
    if hit is not _SVD_MEMO.MISSING:
        return hit
    kkt = equilibrated_kkt(problem, active)
    d = kkt.d
    for arr in (kkt.J, kkt.c, kkt.K, kkt.d, kkt.data_rows):
        _read_only(arr)
    singular = kkt.J.shape[0] > problem.n or problem.mass_factor.rank < problem.n
    out = KKTFactor(kkt, d[:, None] * kkt.K * d[None, :], vectors_first=singular)
    if kkt.K.shape[0] <= KKT_SVD_MEMO_MAX:
        _SVD_MEMO.put(problem, active, out)
    return out

"""The backward error of an answer: the data change under which it is an exact solution.

The verdict contract of every route (docs/DESIGN.md §4.3): with ``δ = Tolerance.residual``,

- ``solved`` ⇒ the answer solves *exactly* a problem whose forces and drifts differ from the data by at most
  ``δ`` row by row, each row at its own scale from the data (:mod:`gaussqp.model.scales`); the rows ``J`` and
  ``M`` are kept exact;
- ``infeasible`` / ``unbounded`` ⇒ no problem within ``Δ`` of the data has a solution, ``Δ`` the loosest preset's
  ``δ`` (:data:`gaussqp.settings.NONEXISTENCE_CHANGE`) whatever preset was asked (the Farkas vector's or the ray's
  margin exceeds what ``Δ`` can close: :func:`gaussqp.certificates.instance.verify_farkas`,
  :func:`gaussqp.certificates.instance.verify_ray`).

Both statements use the same scales and ``δ <= Δ``, so two routes that each certify cannot contradict each other,
at one preset or at two. This module computes the first: :func:`backward_error` constructs the changed data explicitly, so that the
statement can be checked by anyone with the problem file (``ΔF``, ``Δb``, ``Δc`` and the multipliers ``λ̃`` are in
the certificate's data).

Construction, in the notation of tutorial (3)–(5) and (35): the multipliers are first put on their signs,
complementarity and sliding law (``λ̃``): a unilateral row is kept *active* (``λ̃_i = max(λ_i, 0)``, drift changed
so that ``n_i a + b_i + Δb_i = 0``) or made *inactive* (``λ̃_i = 0``, drift changed only where the row is
violated), whichever costs less at the row's scale; a sliding contact's tangential force is set to
``-μ_i |λ̃_n,i| s_i``. Then ``Δb`` (bilateral rows), ``Δc`` (sticking tangent rows) and
``ΔF = Jᵀλ̃ - M a - F`` make every equation hold exactly. The relative sizes are
``|ΔF_j| / dynamics_row_j`` and ``|Δb_i| / row_i`` — scales of the data alone, never of the answer judged.
The cones of sticking contacts are judged separately (``coulomb_cones``), as F1 states the sticking contacts as
equalities; mode-free Coulomb answers are judged by the natural map (``natural_map``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import compiled
from ..model.problem import ContactProblem
from ..model.memo import per_answer
from ..model.scales import data_scales, relative
from ..results import EVIDENCE, Certificate
from ..settings import ANSWER_MEMO_SIZE


@dataclass(frozen=True)
class BackwardError:
    """The data change under which ``(a, λ̃)`` solves the problem exactly, and its relative size per block.

    ``forces``: ``max_j |ΔF_j| / dynamics_row_j``; ``drifts``: ``max_i |Δb_i| / row_i`` over the normal and
    sticking tangent rows; ``rows``: 0 (the rows and the mass matrix are kept as given). ``lambda_normal`` and
    ``lambda_tangent`` are the multipliers ``λ̃`` of the exact solution; ``multipliers`` is their largest change
    ``|λ̃_i - λ_i| ‖(J S)_i‖∞ / force`` (in the residuals' units λ̂)."""

    forces: float
    drifts: float
    multipliers: float
    delta_force: np.ndarray
    delta_normal_drift: np.ndarray
    delta_tangent_drift: np.ndarray
    lambda_normal: np.ndarray
    lambda_tangent: np.ndarray

    @property
    def rows(self) -> float:
        return 0.0

    @property
    def worst(self) -> float:
        return max(self.forces, self.drifts)

    def as_dict(self) -> dict[str, float]:
        return {
            "forces": float(self.forces),
            "drifts": float(self.drifts),
            "rows": self.rows,
            "multipliers": float(self.multipliers),
        }


def _mul(A, x: np.ndarray) -> np.ndarray:
    return np.asarray(A @ x).ravel()


@per_answer(ANSWER_MEMO_SIZE)
def backward_error(problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray) -> BackwardError:
    """The :class:`BackwardError` of ``(a, λ)`` for ``problem`` (see the module docstring for the construction).

    Contacts in mode ``coulomb`` keep their tangential force as given (their law is judged by the natural map). A
    function of the problem and the values of ``(a, λ)``, kept for the last :data:`~gaussqp.settings.ANSWER_MEMO_SIZE`
    answers per problem (:func:`gaussqp.model.memo.per_answer`; its arrays read-only): the cross-check route's answer,
    polished onto the answer's active set, is often the same point. Computed by the compiled kernel on a dense problem
    without sliding contacts when it is loaded (:mod:`gaussqp.certificates.compiled`: the same numbers bit for bit),
    else by :func:`_backward_error_numpy`."""
    return compiled.run_check(problem, a, lam_n, lam_t, _backward_error_numpy, _backward_error_compiled)


def _backward_error_compiled(fast, A, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray) -> BackwardError:
    """:func:`backward_error` by the compiled kernel, on the arrays ``A``
    (:func:`gaussqp.certificates.compiled.dense_arrays`)."""
    forces, drifts, multipliers, dF, db, dc, lam_n_new, lt_new = fast.backward_error(
        A.M, A.F, A.J_n, A.b, A.J_t, A.c, a, lam_n, lam_t.reshape(A.tangent_weight.shape), A.normal_row,
        A.dynamics_row, A.normal_weight, A.tangent_row, A.tangent_weight, A.force, A.bilateral, A.unilateral,
        A.sticking_rows, A.frictionless,
    )  # fmt: skip
    return _kept(float(forces), float(drifts), float(multipliers), dF, db, dc, lam_n_new, lt_new)


def _kept(forces, drifts, multipliers, dF, db, dc, lam_n, lt) -> BackwardError:
    """The :class:`BackwardError`, its arrays read-only: kept and shared by :func:`backward_error`'s memo."""
    for arr in (dF, db, dc, lam_n, lt):
        arr.flags.writeable = False
    return BackwardError(
        forces=forces,
        drifts=drifts,
        multipliers=multipliers,
        delta_force=dF,
        delta_normal_drift=db,
        delta_tangent_drift=dc,
        lambda_normal=lam_n,
        lambda_tangent=lt,
    )


def _backward_error_numpy(
    problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray
) -> BackwardError:
    """:func:`backward_error` in NumPy (the reference of the compiled kernel)."""
    p = problem
    sc = data_scales(p)
    a = np.asarray(a, dtype=float)
    lam_n = np.asarray(lam_n, dtype=float).copy()
    d1 = p.dimension - 1
    lt = np.asarray(lam_t, dtype=float).reshape(p.m, d1).copy() if p.m else np.zeros((0, d1))
    lam_n0, lt0 = lam_n.copy(), lt.copy()
    g = _mul(p.J_n, a) + p.normal_drift if p.m else np.zeros(0)
    db = np.zeros(p.m)
    B, U = p.bilateral, p.unilateral
    db[B] = -g[B]
    row = sc.normal_row
    cost_active = relative(g, row)  # change the drift so that the row is active
    lam_hat = np.abs(lam_n) * sc.normal_weight / sc.force
    # each unilateral row, all at once: kept active when its multiplier is positive and making it active costs no
    # more than the larger of its multiplier and its violation (both at the row's scale), else made inactive
    violation = np.maximum(0.0, -g[U])
    keep = (lam_n[U] > 0) & (cost_active[U] <= np.maximum(lam_hat[U], relative(violation, row[U])))
    db[U] = np.where(keep, -g[U], violation)
    lam_n[U] = np.where(keep, lam_n[U], 0.0)
    for i in p.sliding:
        lt[i] = -p.friction[i] * abs(lam_n[i]) * p.slip[i]
    lt[p.frictionless] = 0.0
    dc = np.zeros(p.J_t.shape[0])
    rt = p.tangent_rows(p.sticking)
    if rt.size:
        dc[rt] = -(_mul(p.J_t[rt], a) + p.tangent_drift[rt])
    gen = _mul(p.J_n.T, lam_n) if p.m else np.zeros(p.n)
    if p.J_t.shape[0]:
        gen = gen + _mul(p.J_t.T, lt.ravel())
    dF = gen - _mul(p.M, a) - p.F
    forces = float(relative(dF, sc.dynamics_row).max(initial=0.0))
    drifts = max(
        float(relative(db, row).max(initial=0.0)),
        float(relative(dc[rt], sc.tangent_row[rt]).max(initial=0.0)) if rt.size else 0.0,
    )
    wt = sc.tangent_weight.reshape(p.m, d1) if p.m else np.zeros((0, d1))
    change = np.concatenate([np.abs(lam_n - lam_n0) * sc.normal_weight, (np.abs(lt - lt0) * wt).ravel()])
    return _kept(forces, drifts, float(change.max(initial=0.0)) / sc.force, dF, db, dc, lam_n, lt)


def backward_error_certificate(be: BackwardError, bound: float) -> Certificate:
    """The ``backward_error`` certificate: holds when the forces and the drifts change by at most ``bound``
    (relative, row by row) — the contract's ``solved``. Its data carry the changed data, so that a reader can
    check ``M a + (F + ΔF) = Jᵀλ̃`` and the rows with ``b + Δb``, ``c + Δc`` exactly."""
    ok = be.worst <= bound
    return Certificate(
        id="backward_error",
        name="backward error: the data change under which the answer is exact",
        source="DESIGN.md §4.3 (verdict contract); tutorial (3)-(5), (35)",
        holds=ok,
        margin=bound - be.worst,
        implies=(
            f"(a, λ̃) solves exactly the problem with forces changed by ≤ {be.forces:.1e} and drifts by "
            f"≤ {be.drifts:.1e} (relative to each row's scale from the data); rows and M as given"
            if ok
            else f"the answer is exact only for data changed by {be.worst:.1e} > {bound:g} (relative)"
        ),
        data={
            **be.as_dict(),
            EVIDENCE: {
                "verify": "with the returned acceleration a: M a + (force + delta_force) = Σ_i lambda_normal[i] normal_i + "
                "Σ_i Σ_k lambda_tangent[i][k] tangent_i,k; bilateral contacts and unilateral ones with "
                "lambda_normal > 0: normal_i · a + (normal_drift_i + delta_normal_drift[i]) = 0, other unilateral "
                "ones >= 0 with lambda_normal[i] = 0; sticking contacts: tangent_i,k · a + (tangent_drift_i,k + "
                "delta_tangent_drift[i][k]) = 0; sliding ones: lambda_tangent[i] = -μ_i lambda_normal[i] slip_i",
                "delta_force": be.delta_force,
                "delta_normal_drift": be.delta_normal_drift,
                "delta_tangent_drift": be.delta_tangent_drift.reshape(be.lambda_tangent.shape),
                "lambda_normal": be.lambda_normal,
                "lambda_tangent": be.lambda_tangent,
            },
        },
    )

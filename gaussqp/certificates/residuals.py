"""The residuals of an answer (a, λ) in the original variables, each row at its own scale from the data.

Tutorial (3)–(5) (dynamics, constraint rows, complementarity) and (35) (the sliding law); the scales
are those of :func:`gaussqp.model.scales.data_scales`. :func:`data_row_residuals` judges a point of the
sticking MLCP without cones (the two-stage route of F4/F5) the same way.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from . import compiled
from ..model.problem import ContactProblem
from ..model.scales import acceleration_scale, data_scales, relative
from ..model.memo import per_answer
from ..settings import ANSWER_MEMO_SIZE


def _mul(A, x):
    return np.asarray(A @ x).ravel()


def kkt_residuals(problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray) -> dict:
    """Residuals of (a, λ) in the original variables, each row judged at its own scale from the data.

    The scales are those of :func:`gaussqp.model.scales.data_scales` (never the magnitude of the answer
    being judged, never the largest row alone). With ``g = J_n a + b``, ``r = M a + F - J_nᵀλ_n - J_tᵀλ_t``
    and the dimensionless multipliers ``λ̂_i = λ_i ‖(J S)_i‖∞ / force``:

    - dynamics: ``max_j |r_j| / (|M_j| S accel + |F_j| + (|J|ᵀ|λ|)_j)``
    - primal: ``max_i`` of ``|g_i|`` (bilateral), ``max(0, -g_i)`` (unilateral), ``|T_k a + c_k|``
      (sticking tangent rows), each divided by its row's scale ``|J_i| S accel + |b_i|``
    - dual: ``max_i max(0, -λ̂_i)`` over unilateral rows
    - complementarity: ``max_i min(|λ̂_i|, |g_i| / scale_i)`` over unilateral rows (the natural map)
    - sliding law (when there are sliding contacts): ``max_i ‖λ_t,i + μ_i |λ_n,i| s_i‖∞ ‖(J_n S)_i‖∞ / force``
      (tutorial (35)).

    Friction-cone checks of sticking contacts are separate certificates (``coulomb_cones``).

    A function of the problem and the values of ``(a, λ_n, λ_t)`` only, kept for the last
    :data:`~gaussqp.settings.ANSWER_MEMO_SIZE` answers per problem (:func:`gaussqp.model.memo.per_answer`: the
    polish measures an answer that the judge's residual check then measures again); a copy is returned.
    """
    return dict(_kkt_residuals(problem, a, lam_n, lam_t))


@per_answer(ANSWER_MEMO_SIZE)
def _kkt_residuals(problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray) -> dict:
    """:func:`kkt_residuals`, computed: by the compiled kernel on a dense problem without sliding contacts when it is
    loaded (:mod:`gaussqp.certificates.compiled`: the same numbers bit for bit), else by
    :func:`_kkt_residuals_numpy`."""
    return compiled.run_check(problem, a, lam_n, lam_t, _kkt_residuals_numpy, _kkt_residuals_compiled)


def _kkt_residuals_compiled(fast, A, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray) -> dict:
    """:func:`kkt_residuals` by the compiled kernel, on the arrays ``A``
    (:func:`gaussqp.certificates.compiled.dense_arrays`)."""
    dyn, primal, dual, comp = fast.kkt_residuals(
        A.M, A.F, A.J_n, A.b, A.J_t, A.c, a, lam_n, lam_t, A.normal_row, A.dynamics_row, A.normal_weight,
        A.tangent_row, A.force, A.bilateral, A.unilateral, A.sticking_rows,
    )  # fmt: skip
    return {"dynamics": float(dyn), "primal": float(primal), "dual": float(dual), "complementarity": float(comp)}


def _kkt_residuals_numpy(problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray) -> dict:
    """:func:`kkt_residuals` in NumPy (the reference of the compiled kernel)."""
    sc = data_scales(problem)
    a = np.asarray(a, dtype=float)
    lam_n = np.asarray(lam_n, dtype=float)
    lam_t_flat = np.asarray(lam_t, dtype=float).ravel()
    Jn, Jt = problem.J_n, problem.J_t
    gen = _mul(Jn.T, lam_n) if problem.m else np.zeros(problem.n)
    gen_abs = np.asarray(abs(Jn.T) @ np.abs(lam_n)).ravel() if problem.m else np.zeros(problem.n)
    if Jt.shape[0]:
        gen = gen + _mul(Jt.T, lam_t_flat)
        gen_abs = gen_abs + np.asarray(abs(Jt.T) @ np.abs(lam_t_flat)).ravel()
    r = _mul(problem.M, a) + problem.F - gen
    g = (_mul(Jn, a) + problem.normal_drift) if problem.m else np.zeros(0)
    B, U = problem.bilateral, problem.unilateral
    gh = relative(g, sc.normal_row) * np.sign(g)
    viol = [np.abs(gh[B]).max(initial=0.0), np.maximum(0.0, -gh[U]).max(initial=0.0)]
    rt = problem.tangent_rows(problem.sticking)
    if rt.size:
        ut = _mul(Jt[rt], a) + problem.tangent_drift[rt]
        viol.append(relative(ut, sc.tangent_row[rt]).max(initial=0.0))
    lam_hat = lam_n * sc.normal_weight / sc.force
    out = {
        "dynamics": float(relative(r, sc.dynamics_row + gen_abs).max(initial=0.0)),
        "primal": float(max(viol)),
        "dual": float(np.maximum(0.0, -lam_hat[U]).max(initial=0.0)),
        "complementarity": float(np.minimum(np.abs(lam_hat[U]), np.abs(gh[U])).max(initial=0.0)),
    }
    Sl = problem.sliding
    if len(Sl):
        lt = lam_t_flat.reshape(problem.m, -1)
        law = [
            np.abs(lt[i] + problem.friction[i] * abs(lam_n[i]) * problem.slip[i]).max() * sc.normal_weight[i]
            for i in Sl
        ]
        out["sliding_law"] = float(max(law)) / sc.force
    return out


def _row_abs_sums(A) -> np.ndarray:
    if sp.issparse(A):
        return np.asarray(abs(A).sum(axis=1)).ravel()
    return np.abs(np.asarray(A, dtype=float)).sum(axis=1) if A.shape[0] else np.zeros(0)


def data_row_residuals(
    problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray | None = None, lam_t: np.ndarray | None = None
) -> dict[str, float]:
    """Residuals of a point of the sticking MLCP without cones (F1 with the sticking tangents as
    equalities), row by row, each at its own row's scale *from the data* (never from the point judged):

    - ``equalities``: ``|E_i a + e_i| / (|e_i| + ‖E_i‖₁ U)`` over the bilateral normal rows and the
      sticking tangent rows ``T a + c = 0``;
    - ``inequalities``: ``max(0, -(G_i a + g_i)) / (|g_i| + ‖G_i‖₁ U)`` over the unilateral rows;
    - ``dynamics`` (with multipliers): ``|M a + F - Jᵀλ|_i / (|F_i| + ‖M_i‖₁ U)``,

    with U = :func:`acceleration_scale`. A row whose data scale is 0 (a zero row with zero drift, or
    a dynamics row with ``F_i = 0`` and ``M_i = 0``) is measured against the largest row scale of its
    block. A garbage point (``|a| ≈ 1e8`` violating ``T a + c = 0`` by 10) therefore fails, whereas a
    test relative to ``‖J a‖`` lets it pass."""
    p = problem
    U = acceleration_scale(p)
    a = np.asarray(a, dtype=float)
    out = {}

    def rel(res: np.ndarray, scale: np.ndarray) -> float:
        if res.size == 0:
            return 0.0
        floor = float(scale.max(initial=0.0))
        sc = np.where(scale > 0, scale, floor)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(sc > 0, res / np.where(sc > 0, sc, 1.0), np.where(res > 0, np.inf, 0.0))
        return float(r.max(initial=0.0))

    E, e = p.equalities
    G, g = p.inequalities
    out["equalities"] = rel(
        np.abs(np.asarray(E @ a).ravel() + e) if E.shape[0] else np.zeros(0), np.abs(e) + _row_abs_sums(E) * U
    )
    out["inequalities"] = rel(
        np.maximum(0.0, -(np.asarray(G @ a).ravel() + g)) if G.shape[0] else np.zeros(0),
        np.abs(g) + _row_abs_sums(G) * U,
    )
    if lam_n is not None:
        gen = np.asarray(p.J_n.T @ lam_n).ravel() if p.m else np.zeros(p.n)
        if lam_t is not None and p.J_t.shape[0]:
            gen = gen + np.asarray(p.J_t.T @ np.asarray(lam_t).ravel()).ravel()
        r = np.abs(np.asarray(p.M @ a).ravel() + p.F - gen)
        out["dynamics"] = rel(r, np.abs(p.F) + _row_abs_sums(p.M) * U)
    return out

"""Active-set polish of an interior-point answer (as OSQP's polishing does): the answer of a
formulation is replaced by the solution of the equality KKT system of its guessed active set when
that is feasible and lowers the largest recomputed residual.

Lazy imports (the idiom of :mod:`gaussqp.backends`): ``scipy.optimize`` is imported inside the functions
that use it, not when this module is imported.
"""

from __future__ import annotations

import numpy as np

from .residuals import kkt_residuals
from ..mechanics.active_set import ActiveSetMemo, equilibrated_kkt_svd, guess_active, sparse_active_set_solution
from ..model.rows import assemble_multipliers
from ..model.scales import data_scales
from ..model.problem import ContactProblem
from ..results import Solution
from ..settings import (
    KKT_SOLVE_RTOL,
    POLISH_BVLS_TOL,
    POLISH_MAX,
    POLISH_RCOND,
    POLISH_SKIP_RESIDUAL,
    ROUND_OFF,
)


def polish(sol: Solution) -> None:
    """Active-set refinement of an interior-point answer (as OSQP's polishing does).

    Guess the active unilateral rows (:func:`guess_active`; an active-set route's own working set,
    ``sol.hints.active_set``, when it gives one), solve the equality KKT system
    ``[M -J_Aᵀ; J_A 0] (a, λ_A) = (-F, -b_A)`` by least squares (min-norm for redundant
    rows) and keep the candidate only if it is feasible, has nonnegative unilateral
    multipliers, and lowers the largest recomputed residual. Degenerate problems (a
    constraint active with zero multiplier) otherwise leave the acceleration off by about
    the square root of the solver tolerance. Sparse problems use a sparse LU of the KKT
    matrix at any size; the dense min-norm path runs up to :data:`POLISH_MAX`.

    An active-set method's answer (``sol.hints.active_set`` given) solves the KKT system of that working set already:
    when every recomputed residual is within :data:`~gaussqp.settings.POLISH_SKIP_RESIDUAL` the polish, which would
    solve the same system again, can only move it by round-off and is skipped (its multipliers are then the method's,
    not read as zero within round-off); the residuals measured here are those the judge reads next.
    """
    p = sol.problem
    if sol.acceleration is None or (p.n + p.m > POLISH_MAX and not p.sparse):
        return
    if sol.hints.active_set is not None:
        at = kkt_residuals(p, sol.acceleration, sol.lambda_normal, sol.lambda_tangent).values()
        if all(r <= POLISH_SKIP_RESIDUAL for r in at):  # a NaN residual is not within it
            return
    # the working set of an active-set method when the route hands it over, else a guess
    A = (
        sol.hints.active_set
        if sol.hints.active_set is not None
        else guess_active(p, sol.acceleration, sol.lambda_normal)
    )
    point = active_set_point(p, A)
    if point is None:
        return
    a, lam_n, lam_t = point
    old = max(kkt_residuals(p, sol.acceleration, sol.lambda_normal, sol.lambda_tangent).values())
    new = max(kkt_residuals(p, a, lam_n, lam_t).values())
    if new < old:
        sol.extras["polished"] = {"active_rows": int(A.sum()), "max_residual_before": old, "max_residual_after": new}
        sol.acceleration, sol.lambda_normal, sol.lambda_tangent = a, lam_n, lam_t


#: :func:`active_set_point`'s points (None where no point passed its checks)
POINTS = ActiveSetMemo()


def active_set_point(p: ContactProblem, A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_active_set_point`, computed once per problem and active set (kept in :data:`POINTS`, beside the
    factors of the same sets): F4's all-sticking answer asks it with every row active
    (:meth:`~gaussqp.formulations.sticking_conic.StickingConic._active_set_answer`), and where it refuses that point the
    polish of the conic program's answer asks it again whenever that answer has every contact active. The arrays
    returned are the caller's own copies."""
    A = np.asarray(A, dtype=bool)
    point = POINTS.get(p, A)
    if point is POINTS.MISSING:
        point = _active_set_point(p, A)
        POINTS.put(p, A, point)
    return None if point is None else (point[0].copy(), point[1].copy(), point[2].copy())


def _active_set_point(p: ContactProblem, A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(a, λ_n, λ_t)`` solving the equality KKT system of ``p`` with the unilateral rows ``A`` (a boolean mask over
    ``G``) active, ``[M -J_Aᵀ; J_A 0] (a, λ_A) = (-F, -b_A)``, or None when no such point passes the checks below.

    Sparse problems: one sparse LU of the KKT matrix (:func:`sparse_active_set_solution`); when it is singular, the
    dense path below up to :data:`POLISH_MAX` (n + m), else None. Dense ones up to :data:`POLISH_MAX`: least squares on the equilibrated matrix by its SVD with numpy's
    ``lstsq`` rule (min-norm for redundant rows), kept only when it solves the system to
    :data:`KKT_SOLVE_RTOL` of each row's scale; an active row's multiplier within round-off of zero is zero, and when
    the min-norm unilateral multipliers are negative, nonnegative ones are sought by bounded least squares (BVLS) on
    ``J_Aᵀλ = M a + F``. None when a unilateral multiplier stays negative. Feasibility of the inactive rows, the
    residuals and the cones are the caller's to check."""
    E, e = p.equalities
    G, g = p.inequalities
    b = np.concatenate([e, g[A]])
    ne, n = E.shape[0], p.n
    rhs = np.concatenate([-p.F, -b])
    z = sparse_active_set_solution(p, A) if p.sparse else None
    if z is not None:  # K nonsingular: the multipliers of this active set are unique
        a, lam_A = z[:n].copy(), z[n:].copy()  # the memo's array is read-only and shared
        if np.any(lam_A[ne:] < 0):
            return None
    else:
        if p.n + p.m > POLISH_MAX:
            return None
        # equilibrated, so that the cut and the acceptance test below mean the same on every row, whatever its units
        fac = equilibrated_kkt_svd(p, A)  # the SVD the forward error then uses (the same active set, mostly)
        kkt = fac.kkt
        J, K, d = kkt.J, kkt.K, kkt.d
        k = J.shape[0]
        # least squares with numpy's lstsq rule: singular values at most rcond σ_max are zero (min-norm)
        zt = fac.solve(d * rhs, fac.rank(POLISH_RCOND))  # equilibrated: multipliers λ̃ = λ w on one scale with ã
        # an active row's multiplier within round-off of zero (its exact value may be 0: a degenerate vertex) is 0, not
        # a negative multiplier: its sign is the solve's round-off (an LU's and an SVD's differ there)
        noise = zt[n + ne :]
        size = max(float(np.abs(zt).max(initial=0.0)), data_scales(p).force)  # λ̃'s own unit is the data's force
        noise[(noise < 0) & (noise >= -ROUND_OFF * size)] = 0.0
        z = d * zt
        row_scale = np.abs(K) @ np.abs(z) + np.abs(rhs) + kkt.data_rows  # the data's terms too: never 0 / 0
        if np.any(np.abs(K @ z - rhs) > KKT_SOLVE_RTOL * row_scale):
            return None
        a = z[:n]
        lam_A = z[n:]
        if np.any(lam_A[ne:] < 0):
            # redundant active rows: the min-norm multipliers may be negative although
            # nonnegative ones exist; find them by bounded least squares on J_Aᵀλ = M a + F
            from scipy.optimize import lsq_linear  # ~0.25 s to import: only where it runs

            lb = np.concatenate([np.full(ne, -np.inf), np.zeros(k - ne)])
            # BVLS: an exact active-set method for this small dense problem (polish runs below POLISH_MAX)
            res = lsq_linear(
                J.T,
                np.asarray(p.M @ a).ravel() + p.F,
                bounds=(lb, np.full(k, np.inf)),
                method="bvls",
                tol=POLISH_BVLS_TOL,
            )
            lam_A = res.x
    lam_eq = lam_A[:ne]
    lam_in = np.zeros(G.shape[0])
    lam_in[A] = lam_A[ne:]
    lam_n, lam_t = assemble_multipliers(p, lam_eq, lam_in)
    return a, lam_n, lam_t

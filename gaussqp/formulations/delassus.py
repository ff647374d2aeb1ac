"""F3 — the Delassus route (M ≻ 0): Dorn's dual QP and the LCP solved by our Lemke.

``delassus_qp`` (Dorn dual of F1; tutorial (11), inertial (42), (49)):

.. math:: \\min_\\lambda \\tfrac12 \\lambda^T W \\lambda + w^T\\lambda
          \\quad\\text{s.t. } \\lambda_u \\ge 0,\\qquad W = J M^{-1} J^T,\\; w = -J M^{-1} F + b,

written as ``½‖Cλ‖² + wᵀλ`` with ``C = R⁻ᵀJᵀ`` (``M = RᵀR``), then ``a = M⁻¹(Jᵀλ - F)``.

``lcp_lemke`` (tutorial (9), (31)-(33); inertial (20)): the bilateral multipliers are
eliminated (tutorial (17)), leaving ``0 <= λ_u ⟂ A_c λ_u + w_c >= 0`` with the constrained
Delassus matrix; solved by :func:`gaussqp.linalg.lemke.lemke`. Ray termination on this PSD
(copositive-plus) matrix means the LCP is infeasible, which :func:`gaussqp.certificates.judge.finalize` turns into a
verified Farkas certificate.

Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy and ``scipy.linalg`` are imported inside the
functions that use them, not when this module is imported.
"""

from __future__ import annotations

import time

import numpy as np

from ..mechanics.delassus import bilateral_compatible, constrained_delassus, delassus
from ..linalg.lemke import lemke_or_failed
from ..linalg.dense import as_dense
from ..linalg.mass import solve_mass
from ..model.problem import ContactProblem
from ..model.scales import data_scales, relative
from ..model.system_class import SystemClass
from ..results import INFEASIBLE, SOLUTION_PRESENT, SOLVED, FAILED, Solution
from ..settings import ELIMINATION_DENSE_MAX, LCP_RECOVERY_REFINEMENT_STEPS, Tolerance
from ..model.rows import assemble_multipliers
from ..backends import solve_program
from .base import Formulation, common_reject


class DelassusQP(Formulation):
    name = "delassus_qp"
    id = "F3"
    crosscheck = "generic"
    title = "Dorn dual QP over the Delassus matrix"
    source = "tutorial (9)(11); inertial (2)(42)(49)"
    valid_when = "M ≻ 0"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        ok, why = common_reject(problem, cls, need_definite=True)
        if ok and problem.m == 0:
            return False, "no contacts: nothing to dualize"
        return ok, why

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        import cvxpy as cp
        import scipy.linalg as sla

        t0 = time.perf_counter()
        W, w, J = delassus(problem)
        me = problem.equalities[0].shape[0]
        R = as_dense(problem.mass_factor.R)
        C = sla.solve_triangular(R, J.T, trans="T") if _upper(R) else np.linalg.solve(R.T, J.T)
        lam = cp.Variable(J.shape[0], name="lambda")
        cons = [lam[me:] >= 0] if J.shape[0] > me else []
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(C @ lam) + w @ lam), cons)
        t1 = time.perf_counter()
        backend, status, info = solve_program(prob, solver, tol)
        sol = Solution(
            problem=problem,
            status=status,
            formulation=self.name,
            solver=backend.name,
            extras={"backend": info, "W": W, "w": w},
        )
        sol.timing.detail = {"delassus": t1 - t0, "backend_total": info.get("time_total")}
        if status == "unbounded":  # dual unbounded below ⇔ primal infeasible (Dorn duality)
            sol.status = INFEASIBLE
        if status in SOLUTION_PRESENT and lam.value is not None:
            lv = np.asarray(lam.value).ravel()
            sol.acceleration = solve_mass(problem.M, J.T @ lv - problem.F)
            sol.lambda_normal, sol.lambda_tangent = assemble_multipliers(problem, lv[:me], lv[me:])
        elif status in SOLUTION_PRESENT:
            sol.status = FAILED
        return sol


def _upper(R: np.ndarray) -> bool:
    return R.shape[0] == R.shape[1] and np.allclose(R, np.triu(R))


class LCPLemke(Formulation):
    name = "lcp_lemke"
    id = "F3"
    crosscheck = "generic"
    title = "contact LCP with the constrained Delassus matrix, by Lemke pivoting"
    source = "tutorial (9)(31)-(33); inertial (20)(21)"
    valid_when = "M ≻ 0 (redundant bilateral rows via A_nb⁺)"
    kind = "direct"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        ok, why = common_reject(problem, cls, need_definite=True)
        if ok and problem.n > ELIMINATION_DENSE_MAX:
            return False, f"dense Delassus elimination limited to n <= {ELIMINATION_DENSE_MAX}"
        return ok, why

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        t0 = time.perf_counter()
        cd = constrained_delassus(problem)
        t1 = time.perf_counter()
        res = lemke_or_failed(cd.A_c, cd.w_c)
        t2 = time.perf_counter()
        sol = Solution(
            problem=problem,
            status=SOLVED,
            formulation=self.name,
            solver="lemke",
            extras={
                "A_c": cd.A_c,
                "w_c": cd.w_c,
                "Mc_inv": cd.Mc_inv,
                "P": cd.P,
                "lemke_status": res.status,
                "lemke_iterations": res.iterations,
                "lemke_message": res.message,
            },
        )
        sol.timing.detail = {"delassus": t1 - t0, "lemke": t2 - t1}
        if res.status == "ray":
            sol.status = INFEASIBLE
            sol.message = "Lemke ray termination on a PSD (copositive-plus) matrix: the LCP is infeasible"
            return sol
        if res.status != "solved":
            sol.status = FAILED
            sol.message = res.message
            return sol
        return recover_lcp(problem, cd, res.z, sol)


def recover_lcp(problem: ContactProblem, cd, lam_u: np.ndarray, sol: Solution) -> Solution:
    """(a, λ) from a solution ``λ_u`` of the constrained contact LCP ``cd`` (:func:`constrained_delassus`), found
    by our Lemke or, in a study, by a peer: ``λ_b = −A_nb⁺(A_bu λ_u + w_b)`` (tutorial (17)),
    ``a = M⁻¹(Jᵀλ − F)``; ``sol`` becomes ``infeasible`` when the bilateral rows are incompatible.

    ``λ_b`` is refined by up to :data:`~gaussqp.settings.LCP_RECOVERY_REFINEMENT_STEPS` steps of iterative
    refinement on the residual of (17), ``r = J_b a + e`` (``λ_b ← λ_b − A_nb⁺ r``, ``a ← a − M⁻¹J_bᵀA_nb⁺ r``), each
    kept only when it lowers the largest residual at the rows' own scale: ``A_nb = J_b M⁻¹ J_bᵀ`` squares the rows'
    condition, and the one product leaves about ``cond(A_nb)·ε`` of it, which the compatibility test would read as
    incompatible rows (on the all-sticking humanoid: 16 rows with σ_min/σ_max = 3e-6, residuals up to 7e-9 of the
    rows' scale before, below 3e-13 after one step)."""
    lam_b = -cd.A_nb_pinv @ (cd.A_bu @ lam_u + cd.w_b) if cd.J_b.shape[0] else np.zeros(0)
    J = np.vstack([cd.J_b, cd.J_u])
    a = cd.Minv @ (J.T @ np.concatenate([lam_b, lam_u]) - problem.F)
    if cd.J_b.shape[0]:
        e = problem.equalities[1]
        scale = data_scales(problem).equality_row
        r = cd.J_b @ a + e
        worst = float(relative(r, scale).max())
        for _ in range(LCP_RECOVERY_REFINEMENT_STEPS):
            step = cd.A_nb_pinv @ r
            a_next = a - cd.Minv @ (cd.J_b.T @ step)
            r_next = cd.J_b @ a_next + e
            worst_next = float(relative(r_next, scale).max())
            if not worst_next < worst:
                break
            lam_b, a, r, worst = lam_b - step, a_next, r_next, worst_next
    # J_b a + b_b = A_nb λ_b + A_bu λ_u + w_b: the residual of (17), tested as F2 tests it
    if cd.J_b.shape[0] and not bilateral_compatible(problem, a):
        sol.status = INFEASIBLE
        sol.message = "bilateral rows incompatible (tutorial (17) has no solution)"
        return sol
    sol.acceleration = a
    sol.lambda_normal, sol.lambda_tangent = assemble_multipliers(problem, lam_b, lam_u)
    return sol


class AugmentedStickingLCP(LCPLemke):
    """The augmented contact LCP of sticking (35)-(38): ``0 <= λ_n,u ⟂ A_c^st λ_n,u + H_c^st >= 0`` with
    ``A_c^st = ∇h_n,uᵀ M_c^st⁻¹ ∇h_n,u`` (36) — the sticking tangents (and bilateral rows) eliminated as
    equalities (Assumption 1: M ≻ 0, H_tᵀM⁻¹H_t ≻ 0) — by Lemke. The Coulomb disks are *not* part of
    (35)-(38): the ``coulomb_cones`` certificate of the result says whether this LCP's forces lie in
    them (with non-unique multipliers a violation does not refute sticking; F4 decides)."""

    name = "sticking_lcp"
    title = "augmented sticking contact LCP (35)-(38) by Lemke (Coulomb disks checked, not enforced)"
    source = "sticking (35)-(38), Prop. 6"
    valid_when = "sticking contacts, M ≻ 0 (Assumption 1 for uniqueness)"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        if not len(problem.sticking):
            return False, "no sticking contact (the augmented LCP eliminates sticking tangent rows)"
        return super().accepts(problem, cls)

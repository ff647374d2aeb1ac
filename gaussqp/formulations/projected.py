"""F2 — projected acceleration (M ≻ 0).

``projected_acceleration``: the kinetic-metric projection of the free acceleration
``a_free = -M⁻¹F`` onto ``K ∩ K_b`` (tutorial (15), (28); inertial (16)-(18)):

.. math:: a = \\operatorname{proj}_M[K\\cap K_b;\\, -M^{-1}F] = a_{free} + d^*,\\quad
          d^* = \\arg\\min \\{\\tfrac12\\|R d\\|^2 : a_{free} + d \\in K\\cap K_b\\}

(solved in the displacement d from the free acceleration, so the objective carries no
large constant).

``projected_eliminated``: the bilateral-eliminated form. With the oblique projector
``P = I - J_bᵀA_nb⁻¹J_bM⁻¹`` and ``M_c⁻¹ = M⁻¹P`` (tutorial (19), (32)), the bilateral
constraints are solved in closed form: ``a_b = -M_c⁻¹F - M⁻¹J_bᵀA_nb⁻¹b_b`` is the
M-projection of ``a_free`` onto ``K_b``, and for ``a = a_b + Z y`` (Z a basis of ker J_b)
``‖a - a_free‖²_M = ‖Z y‖²_M + const``. The remaining program is over the unilateral rows
only; ``λ_b`` follows from tutorial (17): ``λ_b = -A_nb⁻¹(A_nbnu λ_u + w_b)``.

Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy is imported inside the functions that use it,
not when this module is imported.
"""

from __future__ import annotations

import time

import numpy as np

from ..mechanics.delassus import bilateral_compatible, constrained_delassus
from ..linalg.dense import as_dense, null_space
from ..linalg.mass import solve_mass
from ..model.problem import ContactProblem
from ..model.scales import data_scales, relative
from ..model.system_class import SystemClass
from ..results import INFEASIBLE, SOLUTION_PRESENT, SOLVED, Solution
from ..settings import PROJECTED_SPARSE_MAX, Tolerance
from ..model.rows import assemble_multipliers
from ..backends import solve_program
from .base import Formulation, common_reject
from .gauss_qp import solve_acceleration_program


class ProjectedAcceleration(Formulation):
    name = "projected_acceleration"
    id = "F2"
    crosscheck = "generic"
    title = "kinetic-metric projection of the free acceleration"
    source = "tutorial (15)(28); inertial (16)-(18)"
    valid_when = "M ≻ 0"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        return common_reject(problem, cls, need_definite=True)

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        a_free = -solve_mass(problem.M, np.array(problem.F))
        sol = solve_acceleration_program(problem, "projection", a_free, np.zeros(problem.n), solver, tol, self.name)
        if sol.status == "failed" and not sol.message:
            # the backend stalled on the pure projection (no linear term; seen with Clarabel on well-conditioned
            # planted problems): the same minimizer, in the variable a itself (½aᵀMa + Fᵀa differs from
            # ½‖a - a_free‖²_M by a constant). Said in extras; the answer is judged like any other
            sol = solve_acceleration_program(
                problem, "acceleration", np.zeros(problem.n), np.array(problem.F), solver, tol, self.name
            )
            sol.extras["fallback"] = "solved in the variable a after the projection form stalled"
        return sol


class ProjectedEliminated(Formulation):
    name = "projected_eliminated"
    id = "F2"
    crosscheck = "generic"
    title = "bilateral-eliminated projection with P, M_c⁻¹, A_c"
    source = "tutorial (17)-(26), (31)-(33); inertial (13)-(21)"
    valid_when = "M ≻ 0 (redundant bilateral rows handled with A_nb⁺)"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        ok, why = common_reject(problem, cls, need_definite=True)
        if ok and problem.sparse and problem.n > PROJECTED_SPARSE_MAX:
            return False, f"dense elimination limited to n <= {PROJECTED_SPARSE_MAX}"
        return ok, why

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        import cvxpy as cp

        t0 = time.perf_counter()
        cd = constrained_delassus(problem)
        n = problem.n
        Jb, Ju = cd.J_b, cd.J_u
        E, e = problem.equalities
        extras = {"P": cd.P, "Mc_inv": cd.Mc_inv, "A_c": cd.A_c, "w_c": cd.w_c}
        # bilateral compatibility: a_b must satisfy J_b a_b + b_b = 0 (fails when b_b ∉ im J_b)
        if Jb.shape[0] and not bilateral_compatible(problem, cd.a_b):
            return Solution(
                problem=problem,
                status=INFEASIBLE,
                formulation=self.name,
                solver="numpy",
                message="bilateral rows incompatible: J_b a_b + b_b != 0",
                extras=extras,
            )
        Z = null_space(Jb) if Jb.shape[0] else np.eye(n)
        if Z.shape[1] == 0:
            return self._determined(problem, cd, extras, t0, tol)
        R = as_dense(problem.mass_factor.R)
        y = cp.Variable(Z.shape[1], name="y")
        cons = []
        # rows divided by their weight (a backend's absolute tolerance means the same on every row)
        w_u = np.maximum(np.abs(Ju @ Z).max(axis=1, initial=0.0), np.finfo(float).tiny) if Ju.shape[0] else np.ones(0)
        if Ju.shape[0]:
            cons.append(((Ju @ cd.a_b + problem.inequalities[1]) / w_u) + ((Ju @ Z) / w_u[:, None]) @ y >= 0)
        RZ = R @ Z
        # ½‖R Z y‖² as a sum of squares (an explicit Hessian ZᵀMZ made Clarabel stall at its
        # iteration limit on small planted problems with cond(M) = 1e3; seeds 339 and 1162 of the sweep)
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(RZ @ y)), cons)
        t1 = time.perf_counter()
        backend, status, info = solve_program(prob, solver, tol)
        if status == "failed":  # the other form of the same objective (each stalls Clarabel on some cases)
            H = RZ.T @ RZ
            prob = cp.Problem(cp.Minimize(0.5 * cp.quad_form(y, cp.psd_wrap(0.5 * (H + H.T)))), cons)
            backend, status, info = solve_program(prob, solver, tol)
            info["fallback"] = "explicit Hessian ZᵀMZ after the sum-of-squares program stalled"
        extras["backend"] = info
        sol = Solution(problem=problem, status=status, formulation=self.name, solver=backend.name, extras=extras)
        sol.timing.detail = {"elimination": t1 - t0, "backend_total": info.get("time_total")}
        if status in SOLUTION_PRESENT and y.value is not None:
            lam_u = np.asarray(cons[0].dual_value).ravel() / w_u if cons else np.zeros(0)
            lam_b = -cd.A_nb_pinv @ (cd.A_bu @ lam_u + cd.w_b) if Jb.shape[0] else np.zeros(0)
            a = cd.a_b + Z @ np.asarray(y.value).ravel()
            sol.acceleration = a
            sol.lambda_normal, sol.lambda_tangent = assemble_multipliers(problem, lam_b, lam_u)
            # tutorial (18): a = M_c⁻¹(J_uᵀλ_u - F) - M⁻¹J_bᵀA_nb⁻¹b_b = M_c⁻¹J_uᵀλ_u + a_b
            a_closed = cd.Mc_inv @ (Ju.T @ lam_u) + cd.a_b
            sol.extras["closed_form_gap"] = float(np.abs(a_closed - a).max())
        elif status in SOLUTION_PRESENT:
            sol.status = "failed"
        return sol

    @staticmethod
    def _determined(problem: ContactProblem, cd, extras: dict, t0: float, tol: Tolerance) -> Solution:
        """The equality rows (bilateral normals, sticking tangents) have full column rank: they fix ``a = a_b`` and
        nothing is left to project (the program in ``y`` would have no unknown; cvxpy raised on it). Then ``λ_u = 0``
        and ``λ_b`` from (18) when the unilateral rows hold at ``a_b``; otherwise no acceleration satisfies the rows
        (``infeasible``, which the judge verifies with a Farkas vector or refuses)."""
        Ju = cd.J_u
        gap = Ju @ cd.a_b + problem.inequalities[1] if Ju.shape[0] else np.zeros(0)
        feasible = not np.any(relative(np.minimum(gap, 0.0), data_scales(problem).inequality_row) > tol.residual)
        sol = Solution(
            problem=problem,
            status=SOLVED if feasible else INFEASIBLE,
            formulation=ProjectedEliminated.name,
            solver="numpy",
            extras={**extras, "determined": "the equality rows fix a = a_b"},
        )
        sol.timing.detail = {"elimination": time.perf_counter() - t0}
        if feasible:
            lam_u = np.zeros(Ju.shape[0])
            lam_b = -cd.A_nb_pinv @ cd.w_b if cd.J_b.shape[0] else np.zeros(0)
            sol.acceleration = np.array(cd.a_b, dtype=float)
            sol.lambda_normal, sol.lambda_tangent = assemble_multipliers(problem, lam_b, lam_u)
        return sol

"""F7 — bilateral KKT system with min-norm multipliers (M ⪰ 0, redundant rows).

.. math::
    \\begin{pmatrix} M & -E^T \\\\ E & 0 \\end{pmatrix}
    \\begin{pmatrix} a \\\\ \\lambda \\end{pmatrix} =
    \\begin{pmatrix} -F \\\\ -e \\end{pmatrix}

(tutorial (4); E stacks bilateral normals and sticking tangents). Solved with the
Moore–Penrose inverse: ``z = K⁺r`` is the min-norm solution and all solutions are
``z = K⁺r + (I - K⁺K)y`` (tutorial App. E; sticking (26)-(33), Prop. 14). An inconsistent
system (``K K⁺ r ≠ r``) is reported infeasible or unbounded, which :func:`finalize`
certifies with a Farkas vector or a ray in ker M ∩ ker E.
"""

from __future__ import annotations

import time

import numpy as np

from ..linalg import as_dense
from ..problem import ContactProblem, SystemClass
from ..solution import INFEASIBLE, SOLVED, Solution
from ..tolerances import Tolerance
from .base import Formulation, assemble_multipliers, common_reject


#: relative cut of the pseudo-inverse K⁺ and of the reported kernel (round-off of a singular K is ~1e-16)
PINV_RTOL = 1e-12


class BilateralKKT(Formulation):
    name = "bilateral_kkt"
    id = "F7"
    title = "bilateral KKT system, min-norm solution by the pseudo-inverse"
    source = "tutorial (4), Prop. 1, App. E; sticking (26)-(33), Prop. 14"
    valid_when = "no unilateral contacts; M ⪰ 0 of any rank; redundant rows allowed"
    kind = "direct"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        ok, why = common_reject(problem, cls, need_definite=False)
        if ok and len(problem.unilateral):
            return False, "unilateral contacts need complementarity, not a linear system"
        if ok and problem.n + problem.m > 3000:
            return False, "dense KKT pseudo-inverse limited to n + m <= 3000"
        return ok, why

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        t0 = time.perf_counter()
        E, e = problem.equalities
        E = as_dense(E)
        n, k = problem.n, E.shape[0]
        K = np.block([[as_dense(problem.M), -E.T], [E, np.zeros((k, k))]])
        r = np.concatenate([-problem.F, -e])
        # One SVD for the pseudo-inverse and the kernel, cut at the same rank: with two cuts a singular
        # value counted as zero by one and not by the other put K⁺r off the complement of the reported
        # kernel. The cut is PINV_RTOL, below the library's rank rule: K mixes the units of M and J, and an
        # ill-conditioned but nonsingular K (σ_min/σ_max ≈ 5e-11 seen) must keep its last direction or
        # the acceleration loses digits.
        U, sv, Vt = np.linalg.svd(K)
        rank = int(np.sum(sv > max(PINV_RTOL, max(K.shape) * np.finfo(float).eps) * sv[0])) if sv.size else 0
        z = Vt[:rank].T @ ((U[:, :rank].T @ r) / sv[:rank])
        consistency = float(np.abs(K @ z - r).max(initial=0)) / max(1.0, float(np.abs(r).max(initial=0)))
        sol = Solution(problem=problem, status=SOLVED, formulation=self.name, solver="numpy-svd",
                       extras={"consistency": consistency, "solution_directions": Vt[rank:].T.copy(), "rank": rank})
        sol.times = {"lstsq": time.perf_counter() - t0}
        if consistency > 1e-9:
            sol.status = INFEASIBLE  # claimed; finalize decides between Farkas (infeasible) and ray (unbounded)
            sol.message = f"KKT system inconsistent (residual {consistency:.2e})"
            return sol
        sol.acceleration = z[:n]
        sol.lambda_normal, sol.lambda_tangent = assemble_multipliers(problem, z[n:], np.zeros(0))
        return sol

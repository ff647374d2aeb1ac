"""F7 — bilateral KKT system with min-norm multipliers (M ⪰ 0, redundant rows).

.. math::
    \\begin{pmatrix} M & -E^T \\\\ E & 0 \\end{pmatrix}
    \\begin{pmatrix} a \\\\ \\lambda \\end{pmatrix} =
    \\begin{pmatrix} -F \\\\ -e \\end{pmatrix}

(tutorial (4); E stacks bilateral normals and sticking tangents). Solved with the
Moore–Penrose inverse: ``z = K⁺r`` is the min-norm solution and all solutions are
``z = K⁺r + (I - K⁺K)y`` (tutorial App. E; sticking (26)-(33), Prop. 14). ``ker K`` is built from
ker M and ker Eᵀ (:func:`kkt_kernel`) and returned as ``extras["solution_directions"]``. An inconsistent
system (``K K⁺ r ≠ r``) is reported infeasible or unbounded, which :func:`gaussqp.certificates.judge.finalize`
certifies with a Farkas vector or a ray in ker M ∩ ker E.
"""

from __future__ import annotations

import time

import numpy as np

from ..linalg.dense import as_dense, null_space
from ..mechanics.active_set import equilibrated_kkt
from ..model.problem import ContactProblem
from ..model.system_class import SystemClass
from ..results import INFEASIBLE, SOLVED, JudgeHints, Solution
from ..settings import KKT_DENSE_MAX, KKT_SOLVE_RTOL, Tolerance
from ..model.rows import assemble_multipliers
from .base import Formulation, common_reject


def kkt_kernel(problem: ContactProblem, E: np.ndarray) -> np.ndarray:
    """Orthonormal basis of ker K, ``K = [M -Eᵀ; E 0]``: ``(ker M ∩ ker E) × ker Eᵀ``.

    (``K(v, μ) = 0`` gives ``vᵀMv = vᵀEᵀμ = (Ev)ᵀμ = 0``, so ``Mv = 0`` and ``Eᵀμ = 0``.) The two
    rank decisions are made where the library makes them, in their own units: ker M from the mass
    factorization, ``E`` with normalized rows (as C2 and the uniqueness certificates do). K itself
    mixes the units of M and E, and a cut on its singular values misjudged nonsingular but
    ill-conditioned cases (σ_min/σ_max ≈ 1e-13 with rows 4e-5 from dependent)."""
    n, k = problem.n, E.shape[0]
    norms = np.linalg.norm(E, axis=1)
    norms[norms == 0] = 1.0
    W = null_space((E / norms[:, None]).T, scale=1.0)  # Ēᵀ w = 0  ⇔  Eᵀ (w / norms) = 0
    mu_basis = np.linalg.qr(W / norms[:, None])[0] if W.shape[1] else np.zeros((k, 0))
    KM = problem.mass_factor.kernel
    v_basis = KM @ null_space(E @ KM / norms[:, None], scale=1.0) if KM.shape[1] and k else KM
    return np.block([[v_basis, np.zeros((n, mu_basis.shape[1]))], [np.zeros((k, v_basis.shape[1])), mu_basis]])


class BilateralKKT(Formulation):
    name = "bilateral_kkt"
    id = "F7"
    crosscheck = "generic"
    title = "bilateral KKT system, min-norm solution by the pseudo-inverse"
    source = "tutorial (4), Prop. 1, App. E; sticking (26)-(33), Prop. 14"
    valid_when = "no unilateral contacts; M ⪰ 0 of any rank; redundant rows allowed"
    kind = "direct"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        ok, why = common_reject(problem, cls, need_definite=False)
        if ok and len(problem.unilateral):
            return False, "unilateral contacts need complementarity, not a linear system"
        if ok and problem.n + problem.m > KKT_DENSE_MAX:
            return False, f"dense KKT pseudo-inverse limited to n + m <= {KKT_DENSE_MAX}"
        return ok, why

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        t0 = time.perf_counter()
        E, e = problem.equalities
        E = as_dense(E)
        n, k = problem.n, E.shape[0]
        K = np.block([[as_dense(problem.M), -E.T], [E, np.zeros((k, k))]])
        r = np.concatenate([-problem.F, -e])
        N = kkt_kernel(problem, E)
        # solved equilibrated: z = D z̃ with D = diag(S, 1/w) (Jacobi scaling S of M, row weights
        # w = ‖(E S)_i‖∞), rows of K scaled alike, so a row of norm 1e-6 is not round-off next to one of 1.
        # (K̃; Ñᵀ), Ñ a basis of ker K̃ = D⁻¹ ker K, has full column rank: its least-squares solution solves
        # K̃ z̃ = r̃ when that is consistent; then z is made orthogonal to ker K, the min-norm solution K⁺r
        kkt = equilibrated_kkt(problem, np.zeros(0, dtype=bool))
        d = kkt.d
        Kt = d[:, None] * K * d[None, :]
        Nt = np.linalg.qr(N / d[:, None])[0] if N.shape[1] else N
        zt, *_ = np.linalg.lstsq(np.vstack([Kt, Nt.T]), np.concatenate([d * r, np.zeros(N.shape[1])]), rcond=None)
        z = d * zt
        if N.shape[1]:
            z = z - N @ (N.T @ z)
        # consistency row by row: each equation's residual against the magnitude of its own terms
        row_scale = np.abs(K) @ np.abs(z) + np.abs(r) + kkt.data_rows
        res = np.abs(K @ z - r)
        consistency = float(
            np.max(np.where(row_scale > 0, res / np.where(row_scale > 0, row_scale, 1.0), res), initial=0.0)
        )
        sol = Solution(
            problem=problem,
            status=SOLVED,
            formulation=self.name,
            solver="numpy-lstsq",
            hints=JudgeHints(polish_allowed=False),  # a direct solve: polishing could trade min-norm for round-off
            extras={"consistency": consistency, "solution_directions": N},
        )
        sol.timing.detail = {"lstsq": time.perf_counter() - t0}
        if consistency > KKT_SOLVE_RTOL:
            sol.status = INFEASIBLE  # claimed; finalize decides between Farkas (infeasible) and ray (unbounded)
            sol.message = f"KKT system inconsistent (residual {consistency:.2e})"
            return sol
        sol.acceleration = z[:n]
        sol.lambda_normal, sol.lambda_tangent = assemble_multipliers(problem, z[n:], np.zeros(0))
        return sol

"""The multiplier layout: how the stacked rows of ``problem.equalities`` / ``problem.inequalities`` map
back to one normal multiplier per contact and ``d - 1`` tangent multipliers per contact."""

from __future__ import annotations

import numpy as np

from .problem import ContactProblem


def lambda_tangent_matrix(problem: ContactProblem, lam_t_flat: np.ndarray | None) -> np.ndarray:
    """Reshape a flat tangent multiplier vector (m (d-1),) to (m, d-1)."""
    d1 = problem.dimension - 1
    if lam_t_flat is None:
        return np.zeros((problem.m, d1))
    return np.asarray(lam_t_flat, dtype=float).reshape(problem.m, d1)


def assemble_multipliers(problem: ContactProblem, lam_eq: np.ndarray, lam_in: np.ndarray):
    """Map multipliers ordered as ``problem.equalities`` / ``problem.inequalities`` to (λ_n, λ_t)."""
    mb = len(problem.bilateral)
    lam_n = np.zeros(problem.m)
    lam_n[problem.bilateral] = lam_eq[:mb]
    lam_n[problem.unilateral] = lam_in
    lam_t = np.zeros(problem.m * (problem.dimension - 1))
    lam_t[problem.tangent_rows(problem.sticking)] = lam_eq[mb:]
    return lam_n, lambda_tangent_matrix(problem, lam_t)

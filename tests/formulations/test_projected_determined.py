"""F2 (projected_eliminated) when the equality rows fix the acceleration: found by the cross-validation study of
issue #14 (23 runs of the sticking family raised cvxpy's "Invalid dimensions for arguments to quad_form")."""

from __future__ import annotations

import numpy as np

import gaussqp
from gaussqp import Contact, ContactProblem


def pinned_mass(push: float) -> ContactProblem:
    """A unit point mass in the plane held by a sticking contact below (normal y, tangent x: both rows are
    equalities, so they fix a = 0) and a unilateral stop beside it (normal x)."""
    below = Contact("bilateral", normal=[0.0, 1.0], friction=1.0, mode="sticking", tangent=[[1.0, 0.0]])
    side = Contact("unilateral", normal=[1.0, 0.0], normal_drift=push)
    return ContactProblem(np.eye(2), [0.0, 9.81], [below, side], dimension=2)


def test_equality_rows_of_full_rank_fix_the_acceleration():
    p = pinned_mass(0.5)  # the stop's row n a + b = 0.5 >= 0 at a = 0: inactive
    f2 = gaussqp.solve(p, formulation="projected_eliminated", crosscheck=False)
    f1 = gaussqp.solve(p, formulation="gauss_qp", crosscheck=False)
    assert f2.status == "solved" and f2.certified and f2.extras["determined"]
    np.testing.assert_allclose(f2.acceleration, 0.0, atol=1e-12)
    np.testing.assert_allclose(f2.generalized_force, f1.generalized_force, atol=1e-9)
    # the stop violated at the fixed acceleration: no acceleration satisfies every row
    q = gaussqp.solve(pinned_mass(-0.5), formulation="projected_eliminated", crosscheck=False)
    assert q.status in ("infeasible", "failed") and q.acceleration is None

"""Issue 9, valid input that raised: dependent sliding rows (the friction bounds that do not apply are
reported with holds None and the reason), and zero normal/tangent rows (planar MuJoCo models, self
contacts) without RuntimeWarnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import gaussqp
from gaussqp.certificates.report import check
from gaussqp.cli import main
from gaussqp.certificates.friction_bounds import friction_bounds
from gaussqp.model.problem import Contact, ContactProblem


def shared_normal_rows() -> ContactProblem:
    """Two bilateral sliding contacts on one normal row (redundant) and a unilateral sliding contact:
    A_nb is singular, so the LCP (58), M⁰_ub and the Prop. 13 bound do not exist."""
    n = [0, 1.0, 0.2]
    c = [
        Contact("bilateral", normal=n, mode="sliding", friction=0.3, tangent=[[1.0, 0, 0.1]], slip=[1.0]),
        Contact("bilateral", normal=n, mode="sliding", friction=0.2, tangent=[[1.0, 0, -0.1]], slip=[1.0]),
        Contact("unilateral", normal=[1.0, 0, 0], mode="sliding", friction=0.2, tangent=[[0, 1.0, 0]], slip=[1.0]),
    ]
    return ContactProblem(np.diag([1.0, 1.0, 0.1]), [0, 9.81, 0], c)


def test_dependent_sliding_rows_bounds_not_applicable_not_raised(tmp_path):
    p = shared_normal_rows()
    b = {x.id: x for x in friction_bounds(p)}
    assert b["Prop. 13"].holds is None and "not applicable" in b["Prop. 13"].guarantees
    assert "singular" in b["Prop. 13"].guarantees
    sol = gaussqp.solve(p)
    assert sol.status in ("solved", "infeasible")
    assert "enumeration" in sol.route
    # the answer is checked independently: dynamics with the sliding law, both bilateral rows satisfied
    if sol.status == "solved":
        a, ln = sol.acceleration, sol.lambda_normal
        Jn, Jt = np.asarray(p.J_n), np.asarray(p.J_t)
        lt = np.array([-p.friction[i] * abs(ln[i]) * p.slip[i][0] for i in range(3)])
        np.testing.assert_allclose(p.M @ a + p.F, Jn.T @ ln + Jt.T @ lt, atol=1e-8)
        assert abs(Jn[0] @ a) < 1e-9 and Jn[2] @ a >= -1e-9 and ln[2] >= -1e-9
    rep = check(p)
    assert any(x.id == "Prop. 13" and x.holds is None for x in rep.friction_bounds)
    path = tmp_path / "shared.json"
    gaussqp.dump(p, path)
    assert main(["check", str(path)]) == 0
    assert main(["solve", str(path)]) in (0, 1)  # an answer, not "bad input" (2)


def zero_rows(mode: str, dimension: int, drift: float = 0.3) -> ContactProblem:
    """A floor contact whose first tangent row is zero (a planar model in 3D) and a self contact whose
    normal row is zero with drift ``drift`` (the constraint 0·a + b >= 0), plus a regular contact."""
    n = 3
    d1 = dimension - 1
    slip = np.ones(d1) if mode == "sliding" else None
    t_floor = np.zeros((d1, n))
    if d1 == 2:
        t_floor[1] = [0, 0, 1.0]
    t_self = np.zeros((d1, n))
    t_self[0] = [1.0, 0, 0]
    fr = mode != "frictionless"
    c = [
        Contact("unilateral", normal=[0, 1.0, 0], mode=mode, friction=0.5, tangent=t_floor if fr else None, slip=slip),
        Contact(
            "unilateral",
            normal=[0, 0, 0],
            normal_drift=drift,
            mode=mode,
            friction=0.5,
            tangent=t_self if fr else None,
            slip=slip,
        ),
        Contact("unilateral", normal=[0, 1.0, 0.5], mode="frictionless"),
    ]
    return ContactProblem(np.diag([1.0, 1.0, 0.1]), [0.0, 9.81, 0.0], c, dimension=dimension)


CASES = [(m, d) for m in ("frictionless", "sticking", "sliding") for d in (2, 3)]


@pytest.mark.parametrize("mode,dimension", CASES)
def test_zero_rows_solve_without_warnings_in_the_friction_routes(mode, dimension):
    p = zero_rows(mode, dimension)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        sol = gaussqp.solve(p, certify=False)
    # the self contact: 0·a + 0.3 >= 0 holds, so it detaches (λ_n = 0); gravity rests on the floor
    assert sol.status == "solved" and sol.certified
    assert abs(sol.lambda_normal[1]) <= 1e-7
    np.testing.assert_allclose(sol.acceleration[:2], [0.0, 0.0], atol=1e-7)


@pytest.mark.parametrize("mode", ["frictionless", "sticking", "sliding"])
def test_zero_normal_row_with_negative_drift_is_infeasible(mode):
    """0·a + b >= 0 with b < 0 can hold for no acceleration: certified infeasible, no warning."""
    p = zero_rows(mode, 2, drift=-0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        sol = gaussqp.solve(p, certify=False)
    assert sol.status == "infeasible" and sol.certified


@pytest.mark.parametrize("mode,dimension", [("sticking", 2)])
def test_zero_rows_check_and_cli_without_warnings(mode, dimension, tmp_path):
    p = zero_rows(mode, dimension)
    path = tmp_path / "zero.json"
    gaussqp.dump(p, path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        check(p)
        gaussqp.solve(p)
        assert main(["solve", str(path)]) == 0
        assert main(["check", str(path)]) == 0

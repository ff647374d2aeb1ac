"""Issue 9, sliding enumeration: merged solutions keep the weaker isolation, and the verdict tells the
multiplicity of the acceleration from that of the multipliers (a paradox only when accelerations differ)."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.friction.enumeration import enumerate_solutions
from gaussqp.problems import families


def opposite_normals(mu: float = 0.5, g: float = 9.81) -> ContactProblem:
    """A particle (x, y) pinched between a floor (sliding in +x, friction μ) and a frictionless ceiling.

    Both active: a_y = 0, λ_floor - λ_ceiling = g, and any λ_floor >= g is admissible, so
    a_x = -μ λ_floor ranges over ]-inf, -μ g]: a continuum of accelerations. The piece "floor active,
    ceiling detached" is the isolated point λ = (g, 0), which is the end of that ray."""
    c = [
        Contact("unilateral", normal=[0, 1.0], mode="sliding", friction=mu, tangent=[[1.0, 0]], slip=[1.0]),
        Contact("unilateral", normal=[0, -1.0]),
    ]
    return ContactProblem(np.eye(2), [0.0, g], c)


def box_on_four_corners(mu: float = 0.3, a: float = 0.5, b: float = 0.4, h: float = 0.3, m: float = 2.0):
    """A 3D box (coordinates x, y, z, rx, ry, rz about its centre of mass) on four coplanar corners
    (±a, ±b, -h), all sliding in +x: the normal rows span 3 dimensions only, so the multipliers form a
    segment while the acceleration is unique (a_x = -μ g, the rest 0)."""
    inertia = np.diag([m, m, m, 0.5, 0.6, 0.7])
    cs = families.box_corner_contacts("sliding", mu, a, b, h, slip=[1.0, 0.0])
    return ContactProblem(inertia, [0, 0, m * 9.81, 0, 0, 0], cs, dimension=3)


def test_isolated_point_on_a_ray_piece_is_a_continuum_of_accelerations():
    p = opposite_normals()
    e = enumerate_solutions(p)
    # independent check of the continuum: λ_floor = g + t, λ_ceiling = t solves every equation for t >= 0
    for t in (0.0, 1.0, 7.5):
        lam = np.array([9.81 + t, t])
        a = np.array([-0.5 * lam[0], 0.0])
        Jn = np.array([[0, 1.0], [0, -1.0]])
        force = Jn.T @ lam + np.array([1.0, 0.0]) * (-0.5 * lam[0])
        np.testing.assert_allclose(np.eye(2) @ a + p.F, force, atol=1e-12)
        assert min(Jn @ a) >= 0 and np.all(lam >= 0)
    assert e.multiplicity == "continuum" and e.multiplier_multiplicity == "continuum"
    assert any(s.isolated is False for s in e.solutions)
    sol = gaussqp.solve(p)
    assert sol.status == "solved"
    assert sol.unique["acceleration"] is False and sol.unique["multipliers"] is False
    assert sol.unique["generalized_force"] is False  # M = I: distinct accelerations give distinct M a + F
    cert = sol.certificate("sliding_enumeration")
    assert cert.holds is False and "continuum of accelerations" in cert.implies


def test_box_on_four_corners_is_one_acceleration_not_a_paradox():
    p = box_on_four_corners()
    e = enumerate_solutions(p)
    assert e.multiplicity == "unique" and e.distinct_accelerations == 1
    assert e.multiplier_multiplicity == "continuum"
    # every enumerated solution has the closed-form acceleration a = (-μ g, 0, ...)
    for s in e.solutions:
        np.testing.assert_allclose(s.a, [-0.3 * 9.81, 0, 0, 0, 0, 0], atol=1e-9)
    # the midpoint of two enumerated multiplier vectors also solves the problem (the continuum)
    lam = 0.5 * (e.solutions[0].lam_n + e.solutions[-1].lam_n)
    assert not np.allclose(e.solutions[0].lam_n, e.solutions[-1].lam_n)
    Jn, Jt = np.asarray(p.J_n), np.asarray(p.J_t)
    lam_t = np.zeros((4, 2))
    lam_t[:, 0] = -0.3 * lam
    np.testing.assert_allclose(p.M @ e.solutions[0].a + p.F, Jn.T @ lam + Jt.T @ lam_t.ravel(), atol=1e-9)
    sol = gaussqp.solve(p)
    assert sol.status == "solved"
    assert sol.unique == {"acceleration": True, "generalized_force": True, "multipliers": False}
    cert = sol.certificate("sliding_enumeration")
    assert cert.holds is True and "Painlevé" not in cert.implies and "exactly one acceleration" in cert.implies


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_same_acceleration_is_decided_on_the_data_scale(scale):
    """The box scaled in force units: the decision does not depend on the magnitude of the answer."""
    p = box_on_four_corners(m=2.0 * scale)
    p = ContactProblem(
        np.diag([2.0 * scale] * 3 + [0.5 * scale, 0.6 * scale, 0.7 * scale]),
        p.F,
        [p.contact(i) for i in range(p.m)],
        dimension=3,
    )
    e = enumerate_solutions(p)
    assert e.multiplicity == "unique" and e.multiplier_multiplicity == "continuum"
    assert e.acceleration_scale == pytest.approx(9.81, rel=1e-9)


def test_redundant_frictionless_bilateral_rows_with_a_sliding_contact_are_solved_at_any_row_scale():
    """The sliding reduction eliminates frictionless bilateral rows with the one elimination of
    mechanics.delassus (equilibrated generalized inverse): two copies of a row at scales 1 and 1e4 give the
    same acceleration and generalized force as one row, and multipliers that satisfy the dynamics."""
    import gaussqp
    from gaussqp import Contact, ContactProblem

    M = np.diag([2.0, 1.0, 3.0])
    F = np.array([0.5, 9.81, -0.2])
    guide = np.array([1.0, 0.0, 0.3])
    floor = Contact(
        "unilateral", normal=[0.0, 1.0, 0.0], friction=0.4, mode="sliding", tangent=[[1.0, 0.0, 0.0]], slip=[1.0]
    )
    one = ContactProblem(M, F, [Contact("bilateral", normal=guide), floor], dimension=2)
    two = ContactProblem(
        M, F, [Contact("bilateral", normal=guide), Contact("bilateral", normal=1e4 * guide), floor], dimension=2
    )
    a1 = gaussqp.solve(one, formulation="sliding_lcp", crosscheck=False)
    a2 = gaussqp.solve(two, formulation="sliding_lcp", crosscheck=False)
    assert a1.status == a2.status == "solved" and a2.certified
    np.testing.assert_allclose(a2.acceleration, a1.acceleration, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a2.generalized_force, a1.generalized_force, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(M @ a2.acceleration + F, a2.generalized_force, rtol=1e-9, atol=1e-9)

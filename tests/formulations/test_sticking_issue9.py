"""Issue 9, sticking: the intermediate of the two-stage route (the program with the cones removed) must pass
its own residual check or the chain stops at ``inaccurate``; the verdict's margin is never +inf on an
infeasible problem; μ_min is exact where it can be."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp.formulations import FORMULATIONS
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.results import SOLVED, Solution
from gaussqp.problems import families


def pushed_particle(push: float = 5.0, mu: float = 0.1, g: float = 9.81) -> ContactProblem:
    """A particle (x, y) on a sticking floor, pushed sideways by ``push`` > μ g: sticking is infeasible,
    the one-stage program has a positive gap and the two-stage route answers."""
    c = [Contact("unilateral", normal=[0, 1.0], mode="sticking", friction=mu, tangent=[[1.0, 0]])]
    return ContactProblem(np.eye(2), [push, g], c)


def test_two_stage_infeasible_names_the_cones_removed_acceleration():
    sol = gaussqp.solve(pushed_particle(), crosscheck=False)
    assert sol.status == "infeasible" and sol.certified
    assert "a_frictionless" not in sol.extras
    np.testing.assert_allclose(sol.extras["a_cones_removed"], [0.0, 0.0], atol=1e-8)
    assert max(sol.extras["cones_removed_residuals"].values()) <= 1e-6


def test_garbage_intermediate_stops_the_chain_at_inaccurate(monkeypatch):
    p = pushed_particle()
    real = FORMULATIONS["gauss_qp"].solve

    def garbage(problem, solver=None, tolerance=None, **kw):
        """What the issue saw: the backend says 'solved' at |a| ≈ 2.5e8 violating T a + c = 0 by 10."""
        good = real(problem, solver=solver, tolerance=tolerance, **kw)
        out = Solution(
            problem=problem,
            status=SOLVED,
            formulation="gauss_qp",
            solver="patched",
            acceleration=np.array([10.0, 2.5e8]),
            lambda_normal=np.zeros(1),
            lambda_tangent=np.zeros((1, 1)),
            certificates=good.certificates,
        )
        return out

    monkeypatch.setattr(FORMULATIONS["gauss_qp"], "solve", garbage)
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.status == "inaccurate" and not sol.certified
    assert sol.certificate("coulomb_farkas") is None
    assert sol.acceleration is None
    assert sol.sticking is None or not sol.sticking.detaching_contacts
    res = sol.extras["cones_removed_residuals"]
    assert res["equalities"] > 1 and res["dynamics"] > 1
    assert "cones removed" in sol.message


def lifted(dimension: int, copies: int = 2) -> ContactProblem:
    """``copies`` identical sticking floor contacts (dependent rows) under a particle pulled up (every contact
    detaches, λ_n = 0) and sideways (the tangent rows pin a nonzero tangential force): infeasible."""
    if dimension == 2:
        c = [
            Contact("unilateral", normal=[0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0]])
            for _ in range(copies)
        ]
        return ContactProblem(np.eye(2), [5.0, -9.81], c)
    c = [
        Contact("unilateral", normal=[0, 0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0, 0], [0, 1.0, 0]])
        for _ in range(copies)
    ]
    return ContactProblem(np.eye(3), [5.0, 1.0, -9.81], c, dimension=3)


@pytest.mark.parametrize("dimension", [2, 3])
@pytest.mark.parametrize("copies", [1, 2])
def test_margin_is_not_inf_when_every_contact_detaches_under_a_pinned_tangential_force(dimension, copies):
    sol = gaussqp.solve(lifted(dimension, copies), crosscheck=False)
    assert sol.status == "infeasible" and sol.certified
    v = sol.sticking
    assert v.feasible is False and v.detaching_contacts == list(range(copies))
    assert v.margin is None  # no admissible force, no contact under load to measure a margin on
    assert v.mu_min == float("inf")


def block_2d(T: float, tilt: float, W: float = 9.81, w: float = 0.5, h: float = 0.3) -> ContactProblem:
    """A planar block (x, y, θ) on two sticking corners (±w, -h): the two tangent rows are the same row, so
    Λ(a) is a segment along which the tangential split varies while the normal forces stay fixed. Any
    split proportional to the normal forces is admissible, so μ_min = T / W exactly (and no μ below works:
    Σ|λ_t,i| >= T = μ_min Σ λ_n,i)."""
    cs = []
    for sx in (1, -1):
        r = np.array([sx * w, -h])

        def row(e, r=r):
            return np.array([e[0], e[1], r[0] * e[1] - r[1] * e[0]])

        cs.append(Contact("unilateral", normal=row([0, 1.0]), mode="sticking", friction=0.5, tangent=[row([1.0, 0])]))
    return ContactProblem(np.diag([1.0, 1.0, 0.1]), [-T, W, tilt], cs)


def box_3d(T, W: float = 9.81, a: float = 0.5, b: float = 0.4, h: float = 0.3) -> ContactProblem:
    """A box on four coplanar sticking corners pushed by T: the normal forces vary along Λ(a) too (bisection
    route); μ_min = ‖T‖/W (the lower bound Σ‖λ_t,i‖ >= ‖T‖, reached by the proportional split)."""
    cs = families.box_corner_contacts("sticking", 0.5, a, b, h)
    return ContactProblem(np.diag([1.0, 1.0, 1.0, 0.5, 0.6, 0.7]), [-T[0], -T[1], W, 0, 0, 0], cs, dimension=3)


@pytest.mark.parametrize("seed", range(4))
def test_mu_min_pinned_normals_is_one_program_and_exact(seed):
    rng = np.random.default_rng(seed)
    T, tilt = rng.uniform(0.5, 4), rng.uniform(-0.5, 0.5)
    sol = gaussqp.solve(block_2d(T, tilt), crosscheck=False)
    assert sol.status == "solved"
    ref = T / 9.81  # independent closed form
    mu = sol.sticking.mu_min
    assert ref * (1 - 1e-12) <= mu <= ref * (1 + 1e-8)


@pytest.mark.parametrize("seed", range(3))
def test_mu_min_by_bisection_is_achieved_never_below(seed):
    rng = np.random.default_rng(10 + seed)
    T = rng.uniform(0.5, 3, 2)
    sol = gaussqp.solve(box_3d(T), crosscheck=False)
    assert sol.status == "solved"
    ref = float(np.linalg.norm(T)) / 9.81
    mu = sol.sticking.mu_min
    assert ref * (1 - 1e-12) <= mu <= ref * (1 + 1e-7)


@pytest.mark.parametrize("unit", [1e-10, 1.0, 1e8])
def test_singleton_mu_min_is_exact_at_any_force_unit(unit):
    """One sticking contact (Λ(a) a point): μ_min = |F_x| / F_y whatever the unit of force; a zero
    threshold with an absolute floor (1e-9 N) called every force of 1e-10 N zero (μ_min 0). The verdict is
    called on the exact multipliers (the solve itself at 1e-10 N is the scale work of solution.py)."""
    from gaussqp.friction.sticking_analysis import singleton_verdict

    c = [Contact("unilateral", normal=[0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0]])]
    p = ContactProblem(np.eye(2) * unit, [0.3 * unit, 1.0 * unit], c)
    v = singleton_verdict(p, np.zeros(2), np.array([1.0 * unit]), np.array([[-0.3 * unit]]), True)
    assert v.mu_min == pytest.approx(0.3, rel=1e-12)
    assert v.margin == pytest.approx(0.2 * unit, rel=1e-9)
    assert v.detaching_contacts == [] and v.boundary_contacts == []
    # a point off the affine hull (solver noise) is put back on it: the verdict reads λ* itself
    v2 = singleton_verdict(p, np.zeros(2), np.array([1.0 * unit * (1 + 1e-5)]), np.array([[-0.3 * unit]]), True)
    assert v2.mu_min == pytest.approx(0.3, rel=1e-12)

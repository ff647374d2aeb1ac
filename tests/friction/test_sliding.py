"""Sliding friction (F6), friction bounds (C7), the sticking criteria (C8) and the three-finger grasp.

Closed forms: the Painlevé rod's scalar LCP, the Painlevé–Klein bound of tutorial §3.2.1, β₂ of a
symmetric positive definite matrix, the 4-dof grasp with one sliding finger, the three-finger statics.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gaussqp
from gaussqp.certificates.friction_bounds import beta2, friction_bounds, common_mu_bound, sigma_ratio
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.friction.sliding import fixed_point, sliding_lcp, p_matrix_test, reduce
from gaussqp.friction.enumeration import enumerate_solutions
from gaussqp.problems.sliding_examples import (
    falling_ladder,
    painleve_klein,
    painleve_klein_mu_max,
    painleve_rod,
    painleve_rod_lcp,
)
from gaussqp.problems.sticking_examples import hard_finger_grasp, three_finger, three_finger_closed_form


def _bound(p, bid):
    return next(b for b in friction_bounds(p) if b.id == bid)


# ------------------------------------------------------------------ Painlevé rod (unilateral, LCP (50))
@pytest.mark.parametrize("theta", [0.3, math.atan(2.0), 1.2])
@pytest.mark.parametrize("mu", [0.2, 1.0, 2.5])
@pytest.mark.parametrize("slip", [-1.0, 1.0])
@pytest.mark.parametrize("theta_dot", [0.0, 4.0])
def test_painleve_rod_matches_its_scalar_lcp_and_counts_solutions(theta, mu, slip, theta_dot):
    p = painleve_rod(theta, mu, slip, theta_dot=theta_dot)
    A, w = painleve_rod_lcp(theta, mu, slip, theta_dot=theta_dot)
    L = sliding_lcp(reduce(p))
    assert L.form == "LCP (50)"
    assert L.M[0, 0] == pytest.approx(A, rel=1e-12) and L.q[0] == pytest.approx(w, rel=1e-12)
    sol = gaussqp.solve(p)
    assert sol.formulation == "sliding_lcp" and sol.certified
    e = sol.enumeration
    if A > 0:  # exactly one solution: λ = max(0, -w/A)
        assert e.multiplicity == "unique" and sol.status == "solved"
        assert sol.lambda_normal[0] == pytest.approx(max(0.0, -w / A), rel=1e-9, abs=1e-12)
        assert sol.unique == {"acceleration": True, "generalized_force": True, "multipliers": True}
    elif w < 0:  # Painlevé inconsistent case: no solution, proved by the exhaustive enumeration
        assert e.multiplicity == "none" and sol.status == "infeasible"
        assert sol.certificate("sliding_enumeration").holds
    else:  # indeterminate case: λ = 0 and λ = -w/A
        assert e.multiplicity == "multiple" and sol.status == "solved"
        lams = sorted(s.lam_n[0] for s in e.solutions)
        assert lams == pytest.approx([0.0, -w / A], rel=1e-9, abs=1e-12)
        assert sol.unique["multipliers"] is False
    # the friction law of every enumerated solution, recomputed: λ_t = -μ|λ_n| s
    for s in e.solutions:
        assert s.lam_t[0, 0] == pytest.approx(-mu * abs(s.lam_n[0]) * slip, abs=1e-12)
    # (51) is necessary and sufficient for one contact: it equals the Painlevé critical coefficient
    c, s_ = math.cos(theta), math.sin(theta)
    b51 = _bound(p, "(51)")
    assert b51.value == pytest.approx((1 + 3 * c * c) / (3 * s_ * c), rel=1e-10)
    assert b51.holds == (mu < b51.value)
    if b51.holds:
        assert sol.certificate("p_matrix").holds


# ------------------------------------------------------------------ Painlevé–Klein (bilateral, (37)/(41))
@pytest.mark.parametrize("theta", np.linspace(0.1, 1.45, 10))
def test_painleve_klein_bound_is_the_papers_closed_form(theta):
    red = reduce(painleve_klein(theta))
    assert sigma_ratio(red.A_nb, red.A_tb) == pytest.approx(painleve_klein_mu_max(theta), rel=1e-10)
    # and μ_max^b(θ) < 2/tan θ on ]0, π/2[ as the tutorial states
    assert painleve_klein_mu_max(theta) < 2 / math.tan(theta)


@pytest.mark.parametrize("theta", [0.4, 0.8, 1.2])
def test_painleve_klein_exact_uniqueness_region_contains_the_bounds(theta):
    """Exact region (hLCP (41) matrix P ⇔ one solution for every load) over a (μ1, μ2) grid.

    For this model (both ends slide the same way) the exact region is μ1 + μ2 < 2/tan θ: the four pieces
    of (37) have determinants 12cos²θ ± 6 sin θ cos θ (μ1 ± μ2) (L = 1, m = 1). The paper's dashed region
    |μ1 - μ2| < 2/tan θ is the condition on the two mixed-sign pieces only. Both contain the (38) square."""
    b38 = _bound(painleve_klein(theta), "(38)").value
    crit = 2 / math.tan(theta)
    for mu1 in np.linspace(0.0, 2.5 * crit, 13):
        for mu2 in np.linspace(0.0, 2.5 * crit, 13):
            if abs(mu1 + mu2 - crit) < 1e-6 * crit:
                continue
            red = reduce(painleve_klein(theta, mu1, mu2))
            try:
                P = p_matrix_test(sliding_lcp(red).M).holds
            except gaussqp.errors.NotApplicableError:  # A_nb - A_tb[μξ] singular: not a P case
                P = False
            assert P == (mu1 + mu2 < crit), (mu1, mu2)
            if max(mu1, mu2) < b38:
                assert P and fixed_point(red).contraction < 1
    # (38) lies inside the exact region along the diagonal μ1 = μ2 (critical value 1/tan θ), Prop. 10 too
    assert _bound(painleve_klein(theta), "Prop. 10").value < b38 <= crit / 2 + 1e-12


@pytest.mark.parametrize("mu1,mu2", [(0.1, 0.6), (0.3, 0.3), (0.5, 0.05)])
def test_bilateral_routes_agree_fixed_point_hlcp_enumeration(mu1, mu2):
    p = painleve_klein(0.7, mu1, mu2, push=12.0)
    sols = {
        f: gaussqp.solve(p, formulation=f, crosscheck=False)
        for f in ("sliding_fixed_point", "sliding_lcp", "sliding_enumeration")
    }
    ref = sols["sliding_enumeration"]
    assert ref.enumeration.multiplicity == "unique"
    for f, s in sols.items():
        assert s.status == "solved" and s.certified, f
        assert np.allclose(s.lambda_normal, ref.lambda_normal, rtol=1e-9, atol=1e-9), f
        assert np.allclose(s.acceleration, ref.acceleration, rtol=1e-9, atol=1e-9), f
    assert sols["sliding_lcp"].route == "hLCP (41)"
    fp = sols["sliding_fixed_point"].certificate("contraction")
    assert fp.holds == (fixed_point(reduce(p)).contraction < 1)


def test_fixed_point_refuses_a_non_contraction_honestly():
    p = painleve_klein(1.0, 1.4, 1.4)  # beyond (38) (≈ 0.73) and beyond the exact region (2/tan 1 ≈ 1.28)
    sol = gaussqp.solve(p, formulation="sliding_fixed_point", crosscheck=False)
    c = sol.certificate("contraction")
    assert c.holds is False and "proves nothing" in c.implies
    e = enumerate_solutions(p)  # the exact answer, whatever the iteration did
    assert sol.unique["multipliers"] == (e.multiplicity == "unique")


# ------------------------------------------------------------------ ladder (mixed, (58), Prop. 13)
def test_beta2_of_a_symmetric_positive_definite_matrix_is_the_norm_of_its_inverse():
    rng = np.random.default_rng(3)
    for k in (2, 3, 5):
        A = rng.normal(size=(k, k))
        S = A @ A.T + 0.5 * np.eye(k)
        assert beta2(S)[0] == pytest.approx(np.linalg.norm(np.linalg.inv(S), 2), rel=1e-8)


def test_ladder_common_mu_bound_at_quarter_pi():
    """Tutorial Fig. 2: the bound is ≈ 0.65 at θ = π/4 in the paper; we get 0.7519 for the rod as modelled
    (I = m L²/12 about the centre, top slipping down, foot slipping away). The paper does not print its
    model; e.g. I = m L²/3 with both slips negative gives 0.643. Ours is validated by the exact test."""
    b = _bound(falling_ladder(math.pi / 4), "Prop. 13")
    assert b.value == pytest.approx(0.7519, abs=5e-4)
    assert b.data["validated_by_p_matrix_test"]
    assert b.data["beta2"] == pytest.approx(1.09902, abs=1e-4)


@pytest.mark.parametrize("theta", np.linspace(0.15, 1.4, 6))
def test_ladder_bound_is_inside_the_exact_p_region(theta):
    red = reduce(falling_ladder(theta))
    pb = common_mu_bound(red)
    grid = np.linspace(0.0, 3.0, 301)
    crit = next((mu for mu in grid if not p_matrix_test(sliding_lcp(red, [mu], [mu]).M).holds), np.inf)
    assert 0 < pb["value"] <= crit
    for mu in np.linspace(0, pb["value"], 6)[1:-1]:
        assert p_matrix_test(sliding_lcp(red, [mu], [mu]).M).holds
        sol = gaussqp.solve(falling_ladder(theta, mu, mu, theta_dot=1.0))
        assert sol.status == "solved" and sol.certified and sol.unique["acceleration"] is True
        assert sol.route == "LCP (58)" and sol.crosscheck.agree is True


# ------------------------------------------------------------------ random sliding problems
@st.composite
def sliding_problems(draw):
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    mb = int(rng.integers(0, 3))
    mu_ = int(rng.integers(1 if mb == 0 else 0, 4))
    A = rng.normal(size=(n, n))
    M = A @ A.T + 0.5 * np.eye(n)
    cts = []
    for k in range(mb + mu_):
        kind = "bilateral" if k < mb else "unilateral"
        mode = "frictionless" if rng.random() < 0.25 else "sliding"
        cts.append(
            Contact(
                kind,
                normal=rng.normal(size=n),
                normal_drift=float(rng.normal()),
                friction=float(rng.uniform(0, draw(st.sampled_from([0.1, 0.5, 1.5])))),
                mode=mode,
                tangent=[rng.normal(size=n)],
                slip=[float(rng.choice([-1.0, 1.0]))],
            )
        )
    if not any(c.mode == "sliding" for c in cts):
        c0 = cts[0]
        cts[0] = Contact(c0.type, c0.normal, c0.normal_drift, max(c0.friction, 0.1), "sliding", c0.tangent, slip=[1.0])
    return ContactProblem(M, rng.normal(size=n) * 3, cts, dimension=2, name=f"sliding_{seed}")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(sliding_problems())
def test_property_lcp_answer_is_one_of_the_enumerated_solutions(p):
    e = enumerate_solutions(p)
    for s in e.solutions:  # every enumerated point solves the problem (recomputed residuals)
        r = gaussqp.certificates.residuals.kkt_residuals(p, s.a, s.lam_n, s.lam_t)
        assert max(r.values()) < 1e-7, r
    sol = gaussqp.solve(p)
    assert sol.formulation in ("sliding_lcp", "sliding_enumeration")
    if sol.status == "solved":
        assert sol.certified and max(sol.residuals.values()) < 1e-6
        assert sol.in_enumeration and sol.crosscheck.agree
    else:
        assert sol.status == "infeasible" and e.multiplicity == "none" and sol.certified
    pm = sol.certificate("p_matrix")
    if pm is not None and pm.holds:  # P-matrix ⇒ exactly one solution for this load
        assert e.multiplicity == "unique"
    for b in sol.friction_bounds:
        if b.holds and b.id != "sticking Prop. 12 (64)":
            assert e.multiplicity == "unique", b.id


# ------------------------------------------------------------------ stick/slip (sticking §5)
@pytest.mark.parametrize("F1", [-5.0, -15.0, -30.0])
@pytest.mark.parametrize("mu1", [0.2, 0.6])
def test_grasp_with_one_sliding_finger(F1, mu1):
    """4-dof grasp (sticking Ex. 6) with finger 1 sliding (object slipping down along it, s = -1) and finger 2
    sticking: ÿ = 0 and λ_t,2 = g - μ1|F1| (m = 1); the stick/slip problem is solvable iff
    |g - μ1|F1|| <= μ2 F2."""
    base = hard_finger_grasp(F1=F1, F2=12.0, mu1=mu1, mu2=0.5)
    cts = list(base.contacts)
    c1 = cts[1]
    cts[1] = Contact(c1.type, c1.normal, c1.normal_drift, c1.friction, "sliding", c1.tangent, slip=[-1.0])
    p = ContactProblem(base.M, base.F, cts, dimension=2, name="grasp_stick_slip")
    assert p.classify().friction == "mixed"
    sol = gaussqp.solve(p)
    assert sol.formulation == "sliding_enumeration" and sol.certified
    g = 9.81
    lam_t2 = g - mu1 * abs(F1)
    if abs(lam_t2) <= 0.5 * 12.0:
        assert sol.status == "solved"
        assert sol.lambda_tangent[2, 0] == pytest.approx(lam_t2, rel=1e-9)
        assert sol.lambda_tangent[1, 0] == pytest.approx(mu1 * abs(F1), rel=1e-9)
        assert sol.acceleration[1] == pytest.approx(0.0, abs=1e-9)
        assert sol.certificate("coulomb_cones").holds
    else:
        assert sol.status == "infeasible" and sol.certificate("sliding_enumeration").holds


def test_stick_slip_in_3d_solves_piecewise_socps():
    from gaussqp.problems.families import sticking

    rng = np.random.default_rng(11)
    p, _, _ = sticking(rng, n=6, m_u=2, m_b=0, dimension=3, mu=0.8)
    cts = list(p.contacts)
    c = cts[0]
    cts[0] = Contact(c.type, c.normal, c.normal_drift, 0.3, "sliding", c.tangent, c.tangent_drift, slip=[0.6, 0.8])
    q = ContactProblem(p.M, p.F, cts, dimension=3, name="stick_slip_3d")
    sol = gaussqp.solve(q)
    assert sol.formulation == "sliding_enumeration" and sol.certified
    if sol.status == "solved":
        assert max(sol.residuals.values()) < 1e-6 and sol.certificate("coulomb_cones").holds
        lt = sol.lambda_tangent[0]
        assert np.allclose(lt, -0.3 * abs(sol.lambda_normal[0]) * np.array([0.6, 0.8]), atol=1e-9)


# ------------------------------------------------------------------ three-finger grasp and C8
@pytest.mark.parametrize("push", [(20.0, 5.0, 20.0), (20.0, 5.0, 25.0), (8.0, 2.0, 6.0), (30.0, 0.0, 30.0)])
@pytest.mark.parametrize("mu", [0.2, 0.5, 1.2])
def test_three_finger_grasp_against_statics(push, mu):
    p = three_finger(push=push, mu=mu)
    cf = three_finger_closed_form(push)
    pos = cf["lambda_n"] > 0  # a finger that does not push carries no force (λ_t = 0 there by statics)
    assert np.all(cf["lambda_t"][~pos] == 0)
    ratio = float(np.max(np.abs(cf["lambda_t"][pos]) / cf["lambda_n"][pos]))
    sol = gaussqp.solve(p)
    assert sol.certified
    if ratio <= mu - 1e-9:
        assert sol.status == "solved"
        assert np.allclose(sol.lambda_normal, cf["lambda_n"], atol=1e-7)
        assert np.allclose(sol.lambda_tangent[:, 0], cf["lambda_t"], atol=1e-7)
        assert np.abs(sol.acceleration).max() < 1e-7
        assert sol.sticking.mu_min == pytest.approx(ratio, rel=1e-6)
    elif ratio > mu + 1e-9:
        assert sol.status == "infeasible"
    ids = {c.id: c.holds for c in sol.certificates}
    assert ids["C8(Prop. 6)"] and ids["C8(Prop. 8)"] and ids["C8(Cor. 2)"]


def test_c8_prop2_and_cor1_on_a_bilateral_sticking_system():
    """A point mass in a plane held by one bilateral sticking contact (normal y, tangent x): (21) gives
    λ_n = F_y, λ_t = F_x, and (22) holds iff |F_x| <= μ |F_y|; with zero drifts it is Cor. 1 (statics)."""
    for Fx, mu, expect in [(1.0, 0.5, True), (3.0, 0.5, False)]:
        p = ContactProblem(
            np.eye(2),
            [Fx, 4.0],
            [Contact("bilateral", normal=[0.0, 1.0], friction=mu, mode="sticking", tangent=[[1.0, 0.0]])],
        )
        rep = gaussqp.check(p)
        c22, c1 = rep.certificate("C8(22)"), rep.certificate("C8(Cor. 1)")
        assert c22.holds is expect and c1.holds is expect
        assert c22.data["lambda_normal"][0] == pytest.approx(4.0) and c22.data["lambda_tangent"][0, 0] == pytest.approx(
            Fx
        )
        sol = gaussqp.solve(p)
        assert (sol.status == "solved") is expect


def test_check_json_has_friction_bounds_and_p_matrix():
    import json

    d = json.loads(json.dumps(gaussqp.check(falling_ladder()).as_dict()))
    assert [b["id"] for b in d["friction_bounds"]] == ["Prop. 13"]
    assert set(d["friction_bounds"][0]) >= {"id", "source", "value", "guarantees"}
    assert any(c["id"] == "p_matrix" and c["holds"] for c in d["certificates"])
    s = gaussqp.solve(painleve_rod(math.atan(2.0), 2.0, -1.0, theta_dot=4.0)).as_dict()
    assert s["route"] == "LCP (50)" and s["unique"]["multipliers"] is False
    assert s["friction_bounds"][0]["id"] == "(51)" and s["friction_bounds"][0]["holds"] is False


def test_figure_script_writes_the_four_pngs(tmp_path):
    """examples/friction_figures.py (tutorial Fig. 1(b)(c), Fig. 2(b)(c)) on coarse grids."""
    import importlib.util
    from pathlib import Path

    pytest.importorskip("matplotlib")  # in the [test] extra, so CI runs it
    script = Path(__file__).resolve().parents[2] / "examples" / "friction_figures.py"
    spec = importlib.util.spec_from_file_location("friction_figures", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--out", str(tmp_path), "--quick"]) == 0
    for name in ("fig1b", "fig1c", "fig2b", "fig2c"):
        png = tmp_path / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


@pytest.mark.parametrize("theta", np.linspace(-0.5, 0.5, 5))
def test_augmented_sticking_lcp_route_is_40_and_agrees_with_f4(theta):
    from gaussqp.problems.sticking_examples import rocking_block_A2, rocking_block_ex2_Ac

    p = rocking_block_A2(theta)
    s = gaussqp.solve(p, formulation="sticking_lcp", crosscheck=False)
    assert s.extras["A_c"][0, 0] == pytest.approx(rocking_block_ex2_Ac(theta), rel=1e-10)
    f4 = gaussqp.solve(p, crosscheck=False)
    if f4.status == "solved":  # when sticking holds, its unique acceleration solves the LCP (35)-(38)
        assert s.status == "solved" and np.allclose(s.acceleration, f4.acceleration, atol=1e-7)
    assert s.certificate("coulomb_cones").holds == (f4.status == "solved")


def test_sliding_reduction_is_computed_once_and_read_only():
    """The route, the P-matrix certificate and the friction bounds share one reduction per problem;
    its arrays cannot be changed through the shared object, and a new problem gets its own."""
    p = falling_ladder()
    red = reduce(p)
    assert reduce(p) is red
    with pytest.raises(ValueError):
        red.A_nb[0, 0] = 0.0
    q = p.with_force(2.0 * p.F)
    assert reduce(q) is not red and np.allclose(reduce(q).A_nb, red.A_nb)
    assert not np.allclose(reduce(q).w1, red.w1) or not np.allclose(reduce(q).w2, red.w2)


@pytest.mark.parametrize("kappa", [0.1, 1.0 / 3.0, 0.5])
def test_ladder_common_mu_singularity_is_independent_of_theta(kappa):
    """With a common μ the Schur complement D - C A⁻¹B of (58) (det N M⁻¹(N - μT_s)ᵀ / A) vanishes at
    μ* = √((1+κ)/(1-κ)), κ = I/(m l²), for every θ: the friction-tilted force lines through the two ends
    meet on the circle of diameter the rod at central angle 2φ (tan φ = μ) from the instantaneous centre,
    and a force system that only drives the two-contact motion needs cos 2φ = -κ. A uniform rod
    (κ = 1/3) gives √2. Only this zero is θ-free: the P property is lost at the smallest of it and two
    θ-dependent zeros (1.339 at θ = 0.5; tests/formulations/test_paper_examples.py), at √2 only for θ <= 0.340 or >= 0.955."""
    mu_star = math.sqrt((1 + kappa) / (1 - kappa))
    for theta in np.linspace(0.15, 1.4, 7):
        red = reduce(falling_ladder(theta, inertia=kappa))  # m = 1, l = 1: I = κ
        schur = [sliding_lcp(red, [m], [m]).M[1, 1] for m in (mu_star * (1 - 1e-3), mu_star, mu_star * (1 + 1e-3))]
        assert schur[0] > 0 > schur[2] and abs(schur[1]) <= 1e-9 * abs(schur[0])
    red = reduce(falling_ladder(1.2))
    assert p_matrix_test(sliding_lcp(red, [1.4142], [1.4142]).M).holds
    assert not p_matrix_test(sliding_lcp(red, [1.4143], [1.4143]).M).holds

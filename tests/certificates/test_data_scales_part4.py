"""Issue #9 part 4: the last decisions made against ``max(1, ·)`` or the answer's own size, moved to scales taken
from the data (:mod:`gaussqp.model.scales`). Every test here failed on the code before its fix (the report of the
branch ``issue9-floors`` gives the failures seen); expected values come from closed forms.
"""

from __future__ import annotations

from gaussqp.settings import RANGE_RTOL

import numpy as np
import pytest

from gaussqp.certificates import instance as inst
from gaussqp.model.problem import Contact, ContactProblem


def prob(M, F, contacts, d=2):
    return ContactProblem(np.asarray(M, dtype=float), np.asarray(F, dtype=float), contacts, dimension=d)


def uni(n, b=0.0):
    return Contact("unilateral", normal=n, normal_drift=b)


# ------------------------------------------------------------------- 1. coulomb_cone_check on the data's multipliers


def _sticking_point(s, mu=0.5):
    # M = s I, F = s (0, 1), one unilateral sticking contact (normal y, tangent x): a = 0, λ_n = s, λ_t = 0;
    # the contact's data scale μ λ_data,n + λ_data,t (λ_data = force / ‖(J S)_row‖∞) is 1.5 s^(1/2) s^(1/2) = 1.5 s
    return ContactProblem(
        s * np.eye(2),
        s * np.array([0.0, 1.0]),
        [Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=mu, tangent=[[1.0, 0.0]])],
        dimension=2,
    )


@pytest.mark.parametrize("s", [1.0, 1e-6, 1e6])
@pytest.mark.parametrize("excess, holds", [(0.0, True), (1e-8, True), (1e-5, False), (-1e-3, True)])
def test_cone_check_verdict_does_not_depend_on_units(s, excess, holds):
    # λ_n = s, |λ_t| = (μ + excess) s: the slack is -excess · s, the same fraction of the contact's force in every
    # unit. Before: at s = 1e-6 a violation of 1e-5 relative (1e-11 absolute) passed against 1e-7 · max(1, |λ|) = 1e-7
    p = _sticking_point(s)
    lam_n, lam_t = np.array([s]), np.array([[(0.5 + excess) * s]])
    c = inst.coulomb_cone_check(p, lam_n, lam_t)
    assert c.holds is holds
    assert c.margin == pytest.approx(-excess * s, rel=1e-6, abs=1e-30)


def test_cone_check_not_scaled_by_the_answer():
    # a garbage answer of size 1e9 leaving its disk by 10 (1e-8 of itself but 10 data units) fails; before, the
    # bound was 1e-7 · 1e9 = 100 and it passed
    p = _sticking_point(1.0)
    c = inst.coulomb_cone_check(p, np.array([1e9]), np.array([[0.5e9 + 10.0]]))
    assert c.holds is False and c.data["relative_slack"] < -1.0


# ------------------------------------------------------ 2. the enumeration's LP path on the data's scale, row by row


@pytest.mark.parametrize("s", [1.0, 1e6, 1e-6])
def test_enumeration_lp_pieces_do_not_depend_on_units(s):
    # M = diag(1, 0), F = s (-1, 0): a1 = s, a2 free in the gap 0 <= a2 <= 1e-4 s of two opposite unilateral rows
    # (a continuum of accelerations). Before: at s = 1e6 the slack 1e2 of the second row was "active" (1e-9 ·
    # max(1, |F|) · max(1, |y|) = 1e3): both end points isolated, "multiple"; at s = 1e-6 the piece with both rows
    # active (a2 = 0 and a2 = 1e-10, infeasible) was a solution, and again "multiple"
    from gaussqp.friction.enumeration import enumerate_solutions

    p = ContactProblem(
        np.diag([1.0, 0.0]),
        s * np.array([-1.0, 0.0]),
        [Contact("unilateral", normal=[0.0, 1.0]), Contact("unilateral", normal=[0.0, -1.0], normal_drift=1e-4 * s)],
        dimension=2,
    )
    e = enumerate_solutions(p)
    assert e.multiplicity == "continuum"
    assert sorted(tuple(x.pieces) for x in e.solutions) == [("0+",), ("00", "+0")]
    ends = sorted(float(x.a[1]) / s for x in e.solutions)
    assert ends == pytest.approx([0.0, 1e-4], abs=1e-15)
    assert [x.acceleration_fixed for x in sorted(e.solutions, key=lambda x: x.a[1])] == [False, True]


# ------------------------------------------------------------------------------- 3. the other max(1, ·) floors


@pytest.mark.parametrize("s", [1.0, 1e-8, 1e6])
def test_sigma_ratio_singularity_on_its_own_scale(s):
    # A_n = s diag(1, 1e-5), A_t = s I: σ_min/σ_max = 1e-5 in any unit; before, at s = 1e-8, σ_min = 1e-13 was
    # below 1e-12 · max(1, σ_max) and bound (38) was 0
    from gaussqp.certificates.friction_bounds import sigma_ratio

    assert sigma_ratio(s * np.diag([1.0, 1e-5]), s * np.eye(2)) == pytest.approx(1e-5, rel=1e-9)
    assert sigma_ratio(s * np.diag([1.0, 1e-14]), s * np.eye(2)) == 0.0


@pytest.mark.parametrize("s", [1.0, 1e7, 1e-7])
def test_prop12_premise_does_not_depend_on_units(s):
    # a point mass of mass s on one unilateral sticking contact: A^st_nu = H₁ = 1/s, N_u M⁻¹ H = 0, so (64) holds
    # (ratio inf); before, at s = 1e7, rhs = 1e-14 was below 1e-12 · max(1, lhs) and "the premise fails"
    from gaussqp.certificates.friction_bounds import sticking_mu_bound

    p = ContactProblem(
        s * np.eye(2),
        s * np.array([0.3, 1.0]),
        [Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])],
        dimension=2,
    )
    b = sticking_mu_bound(p)
    assert b.holds is True and b.value == float("inf")


@pytest.mark.parametrize("s", [1.0, 1e-10, 1e6])
def test_c5_range_does_not_depend_on_units(s):
    # two copies of the row a >= 0 (n = 1, M = 1) with drifts s (1, 0): A_c = [[1, 1], [1, 1]], the drift (1, 0)
    # is not in im A_c (residual 0.5 s); before, at s = 1e-10, 0.5e-10 / max(1, 1e-10) <= 1e-9 said it was
    from gaussqp.certificates.structural import c5_lcp_solvability

    p = prob([[1.0]], [-s], [uni([1.0], s), uni([1.0], 0.0)], d=2)
    rng = [c for c in c5_lcp_solvability(p) if c.id == "C5(range)"][0]
    assert rng.holds is False and rng.margin == pytest.approx(RANGE_RTOL - 0.5, rel=1e-12)
    q = prob([[1.0]], [-s], [uni([1.0], s), uni([1.0], s)], d=2)
    assert [c for c in c5_lcp_solvability(q) if c.id == "C5(range)"][0].holds is True


@pytest.mark.parametrize("s", [1.0, 1e-6, 1e6])
def test_detaching_keeps_a_row_with_a_force_active_in_any_unit(s):
    # M = s I, F = s (0, 1): a slack of 1 (far above any tolerance) next to a multiplier of 0.5 s (half the load):
    # the row is active (round-off of a solver), whatever s. Before, at s = 1e-6, λ = 5e-7 <= 1e-6 · max(1, |λ|)
    # was a negligible force and the contact "detached"
    from gaussqp.friction.multiplier_set import detaching

    p = ContactProblem(
        s * np.eye(2),
        s * np.array([0.0, 1.0]),
        [Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])],
        dimension=2,
    )
    a = np.array([0.0, 1.0])
    assert list(detaching(p, a, 1e-3, np.array([0.5 * s]))) == []
    assert list(detaching(p, a, 1e-3, np.array([1e-9 * s]))) == [0]
    assert list(detaching(p, a, 1e-3)) == [0]


@pytest.mark.parametrize("s", [1.0, 1e-6, 1e6])
def test_sticking_boundary_contacts_do_not_depend_on_units(s):
    # a point mass on a bilateral sticking guide (μ = 0.5), F = s (Fx, 4): the margin is s (2 - Fx); Fx = 1.999 is
    # 2.5e-4 of the load off the boundary, Fx = 2 on it. Before, at s = 1e-6, margin 1e-9 <= 1e-6 · max(1, |M a + F|)
    # put the contact on the boundary (the verdict's program route, analyze)
    from gaussqp.friction.sticking_analysis import analyze
    from gaussqp.settings import get_tolerance

    for fx, boundary in ((1.999, []), (2.0, [0])):
        p = ContactProblem(
            s * np.eye(2),
            s * np.array([fx, 4.0]),
            [Contact("bilateral", normal=[0.0, 1.0], friction=0.5, mode="sticking", tangent=[[1.0, 0.0]])],
            dimension=2,
        )
        v = analyze(p, np.zeros(2), True, None, get_tolerance(None), lam_n=np.array([4.0 * s]))
        assert v.boundary_contacts == boundary, (fx, v.margin)


@pytest.mark.parametrize("s", [1.0, 1e-6, 1e6])
def test_in_enumeration_compares_in_the_data_units(s):
    # one bilateral sliding contact under a point mass (M = s I, F = s (0, 1)): λ_n = s exactly. A solution whose
    # λ_n is off by 10 % is not one of the enumeration's; before, at s = 1e-6, |Δλ| = 1e-7 <= 1e-6 · max(1, |λ|)
    import gaussqp
    from gaussqp.certificates.sliding_verdict import sliding_verdict

    p = ContactProblem(
        s * np.eye(2),
        s * np.array([0.0, 1.0]),
        [Contact("bilateral", normal=[0.0, 1.0], friction=0.3, mode="sliding", tangent=[[1.0, 0.0]], slip=[1.0])],
        dimension=2,
    )
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.status == "solved" and sol.in_enumeration is True
    sol.lambda_normal = sol.lambda_normal * 1.1
    sliding_verdict(sol)
    assert sol.in_enumeration is False


# ------------------------------------------------- 4. the fixed point's contraction in equilibrated units; its stop


def _two_sliding(alpha=1.0, f=1.0, mu=(0.6, 0.6)):
    # two bilateral sliding contacts coupled through M and the tangent rows; contact 0 (normal and tangent rows)
    # multiplied by alpha: the same physical problem, λ_0 divided by alpha
    M = np.array([[1.0, 0.2, 0.1], [0.2, 1.0, 0.3], [0.1, 0.3, 1.0]])
    cs = [
        Contact(
            "bilateral",
            normal=alpha * np.array([0.0, 1.0, 1.0]),
            friction=mu[0],
            mode="sliding",
            tangent=[alpha * np.array([1.0, 0.0, -1.0])],
            slip=[1.0],
        ),
        Contact(
            "bilateral",
            normal=[0.0, 1.0, -1.0],
            friction=mu[1],
            mode="sliding",
            tangent=[[1.0, 0.0, -1.0]],
            slip=[-1.0],
        ),
    ]
    return ContactProblem(M, f * np.array([0.5, 2.0, 0.3]), cs, dimension=2)


@pytest.mark.parametrize("alpha", [1.0, 1e-2, 1e2])
def test_contraction_does_not_depend_on_a_row_scaling(alpha):
    # before: ‖A_nb⁻¹A_tb μ‖₂ in raw multiplier units was 0.67 at alpha = 1 and 39 at alpha = 1e-2 ("not a
    # contraction" although the iteration converges to the same solution); now the smaller of raw and equilibrated
    import gaussqp
    from gaussqp.friction.sliding import fixed_point, reduce

    L1 = fixed_point(reduce(_two_sliding(1.0))).contraction
    fp = fixed_point(reduce(_two_sliding(alpha)))
    assert fp.converged and fp.contraction == pytest.approx(L1, rel=1e-9) and fp.contraction < 1
    s = gaussqp.solve(_two_sliding(alpha), formulation="sliding_fixed_point", crosscheck=False)
    assert s.status == "solved" and s.certified and s.certificate("contraction").holds is True
    ref = gaussqp.solve(_two_sliding(1.0), formulation="sliding_fixed_point", crosscheck=False)
    assert s.lambda_normal * np.array([alpha, 1.0]) == pytest.approx(ref.lambda_normal, rel=1e-12)


@pytest.mark.parametrize("f", [1e-6, 1e-9, 1e6])
def test_fixed_point_stops_on_the_first_iterate_scale(f):
    # the iteration stopped when a step fell below 1e-13 · max(1, ‖c‖∞): in units where the multipliers are 1e-9
    # it stopped after 35 steps instead of 123 with λ 4e-5 off (1e-6: 3e-8 off); now the same steps in every unit
    from gaussqp.friction.sliding import fixed_point, reduce

    ref = fixed_point(reduce(_two_sliding(mu=(0.8, 0.6))))
    fp = fixed_point(reduce(_two_sliding(f=f, mu=(0.8, 0.6))))
    assert fp.converged and fp.iterations == ref.iterations
    assert np.abs(fp.lam_b / f - ref.lam_b).max() <= 1e-12 * np.abs(ref.lam_b).max()


@pytest.mark.parametrize("s", [1.0, 1e6, 1e-6])
def test_conic_farkas_violation_on_its_own_terms(s):
    # a point mass (M = s I) pushed sideways twice as hard as it is pressed (F = s (2, 1)) on a sticking contact with
    # μ = 0.5: the cone is empty, y = (-2, 1) / (3 s) proves it. The same vector with its cone condition broken by
    # 1e-5 of its size is refused in every unit; before, at s = 1e6 (y ~ 1e-6), the violation 7e-12 passed against
    # 1e-8 · max(1, ‖y‖∞ ...) = 1e-8
    import cvxpy as cp

    from gaussqp.friction.cones import DISK
    from gaussqp.friction.multiplier_set import active_tolerance, conic_farkas

    p = ContactProblem(
        s * np.eye(2),
        s * np.array([2.0, 1.0]),
        [Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])],
        dimension=2,
    )
    a = np.zeros(2)

    def run(perturb):
        def solve(prob):
            prob.solve(solver=cp.CLARABEL)  # named: an installed MOSEK without a licence would be the default
            if prob.status != cp.OPTIMAL:
                return "failed"
            y = next(v for v in prob.variables() if v.name() == "y")
            mag = float(np.abs(y.value).max())
            y.value = y.value + perturb * mag * np.array([0.0, -1.0])  # n y smaller: μ|T y| > n y
            return "solved"

        return solve

    cf = conic_farkas(p, a, active_tolerance(p, a), DISK, {}, run(0.0))
    assert cf is not None and cf.value == pytest.approx(-1.0, rel=1e-6)
    assert cf.y * s == pytest.approx([-2.0 / 3.0, 1.0 / 3.0], rel=1e-5, abs=1e-7)
    assert conic_farkas(p, a, active_tolerance(p, a), DISK, {}, run(1e-5)) is None
    # and the whole route: F4 proves infeasibility in every unit (the program is normalized by ‖M a + F‖∞, y ~ 1)
    import gaussqp

    sol = gaussqp.solve(p)
    assert sol.status == "infeasible" and sol.certified

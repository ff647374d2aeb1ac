"""Issue #9 part 3: decisions that were still made on raw or absolute scales, each moved to a scale taken
from the data (:mod:`gaussqp.model.scales`). Every test here failed on the code before its fix (the
report of the branch ``issue9-scales`` gives the failures seen); expected values come from closed forms.
"""

from __future__ import annotations

import numpy as np
import pytest

from gaussqp.certificates import structural as cert
from gaussqp.model.problem import Contact, ContactProblem


def prob(M, F, contacts, d=2):
    return ContactProblem(np.asarray(M, dtype=float), np.asarray(F, dtype=float), contacts, dimension=d)


def bil(n, b=0.0):
    return Contact("bilateral", normal=n, normal_drift=b)


def uni(n, b=0.0):
    return Contact("unilateral", normal=n, normal_drift=b)


# ------------------------------------------------------------------------- 1. C3(ii) and C4: Fᵀv on the data's scale


@pytest.mark.parametrize("f_scale, m_scale", [(1.0, 1.0), (1e-15, 1.0), (1e-13, 1e-6), (1e6, 1e6), (1e-6, 1e-6)])
def test_c3_ii_verdict_does_not_depend_on_units(f_scale, m_scale):
    # M = diag(1, 0), a2 >= 0: the cone is {v1 = 0, v2 >= 0}; Fᵀv = F2 v2 > 0 (F2 = 2 > 0): F1 has a minimizer
    # (a2 = -b, a1 = -F1) whatever the unit of F; before, F2 = 2e-15 was "Fᵀv = 0 on a cone direction"
    out = cert.c3_tangent_cone(prob(m_scale * np.diag([1.0, 0.0]), f_scale * np.array([3.0, 2.0]), [uni([0.0, 1.0])]))
    assert out[0].holds is False
    assert out[1].holds is True and out[1].implies.startswith("F1 has a minimizer")
    bad = cert.c3_tangent_cone(prob(m_scale * np.diag([1.0, 0.0]), f_scale * np.array([3.0, -2.0]), [uni([0.0, 1.0])]))
    assert bad[1].holds is False and bad[1].implies.startswith("a direction v in the cone with Fᵀv < 0")


@pytest.mark.parametrize("f_scale, m_scale", [(1.0, 1.0), (1e-15, 1.0), (1e-13, 1e-6), (1e6, 1e6), (1e-6, 1e-6)])
def test_c4_verdict_does_not_depend_on_units(f_scale, m_scale):
    # ker M = span e2 ⊆ ker J (J = e1ᵀ), Fᵀe2 = 0.5 ≠ 0 at any unit of F; before, F = (3, 0.5)·1e-15 failed C4
    c = cert.c4_singular_uniqueness(
        prob(m_scale * np.diag([1.0, 0.0]), f_scale * np.array([3.0, 0.5]), [uni([1.0, 0.0])])
    )
    assert c.holds is True


def test_fv_zero_at_round_off_of_its_own_terms():
    # a kernel direction e = (1, -1)/√2 of M = [[1, 1], [1, 1]], J = (1, 1) ⟂ e; F = (1, 1 - δ): Fᵀe = δ/√2 against
    # terms (|F|ᵀ|e| = (2 - δ)/√2): relative δ/(2 - δ), zero below FORCE_DIRECTION_TOL = 1e-12
    M = np.array([[1.0, 1.0], [1.0, 1.0]])
    assert cert.c4_singular_uniqueness(prob(M, [1.0, 1.0 - 1e-13], [uni([1.0, 1.0])])).holds is False
    assert cert.c4_singular_uniqueness(prob(M, [1.0, 1.0 - 1e-11], [uni([1.0, 1.0])])).holds is True
    # C3(ii) on the same kernel with a unilateral row along it: v ∝ e, Fᵀv relative to |F|ᵀ|v| the same δ/(2 - δ)
    for delta, holds in ((1e-13, False), (1e-11, True), (-1e-11, False)):
        out = cert.c3_tangent_cone(prob(M, [1.0, 1.0 - delta], [uni([1.0, -1.0])]))
        assert out[0].holds is False and out[1].holds is holds
    out = cert.c3_tangent_cone(prob(M, [1.0, 1.0 + 1e-11], [uni([1.0, -1.0])]))
    assert out[1].implies.startswith("a direction v in the cone with Fᵀv < 0")


# ------------------------------------------------------------------ 2. sticking Prop. 2: definiteness and disks


def _sticking_point(s, fx, fy=4.0, mu=0.5, m2=1e5):
    # a point mass held by one bilateral sticking contact (normal y, tangent x), masses (1, m2), everything scaled
    # by s (the unit of mass): a = 0, and (21) gives λ_n = F_y, λ_t = F_x; (22) holds iff |F_x| <= μ |F_y|
    return ContactProblem(
        s * np.diag([1.0, m2]),
        s * np.array([fx, fy]),
        [Contact("bilateral", normal=[0.0, 1.0], friction=mu, mode="sticking", tangent=[[1.0, 0.0]])],
        dimension=2,
    )


@pytest.mark.parametrize("s", [1.0, 1e-6, 1e6])
@pytest.mark.parametrize("fx, expect", [(1.0, True), (2.0 * (1 - 1e-5), True), (2.0 * (1 + 1e-5), False), (3.0, False)])
def test_prop2_verdict_does_not_depend_on_units(s, fx, expect):
    # before: at s = 1e6, G = diag(1e-11, 1e-6) was "not positive definite" (λ_min <= 1e-10 max(1, λ_max)); at
    # s = 1e-6, a contact 1e-5 outside its disk passed (gap -2e-11 against 1e-9 · max(1, |λ|) = 1e-9)
    from gaussqp.certificates.sticking_criteria import bilateral_sticking_criterion

    out = bilateral_sticking_criterion(_sticking_point(s, fx))
    c22 = out[0]
    assert c22.id == "C8(22)" and c22.holds is expect
    np.testing.assert_allclose(c22.data["lambda_normal"], [4.0 * s], rtol=1e-9)
    np.testing.assert_allclose(c22.data["lambda_tangent"][:, 0], [fx * s], rtol=1e-9)
    assert [c.id for c in out] == ["C8(22)", "C8(Cor. 1)"] and out[1].holds is expect


def test_prop2_dependent_rows_still_refused_at_any_unit():
    # the tangent row equals the normal row: G is singular (its equilibrated form has λ_min = 0) at every unit
    from gaussqp.certificates.sticking_criteria import bilateral_sticking_criterion

    for s in (1.0, 1e-6, 1e6):
        p = ContactProblem(
            s * np.eye(2),
            s * np.array([1.0, 4.0]),
            [Contact("bilateral", normal=[0.0, 1.0], friction=0.5, mode="sticking", tangent=[[0.0, 2.0]])],
            dimension=2,
        )
        c = bilateral_sticking_criterion(p)[0]
        assert c.holds is None and c.implies.startswith("premise fails: G of (17) is not positive definite")


# ------------------------------------------------------------------ 3. classify: rank of the equilibrated rows


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("row_scale", [1.0, 1e-6, 1e6])
def test_classify_rank_does_not_depend_on_a_row_scale(sparse, row_scale):
    # rows (1, 0) and (1, 1e-4): independent (σ_min ≈ 7e-5 of normalized rows). Before, the second row scaled by
    # 1e-6 (the same constraint) had σ_min ≈ 1e-10 of the raw matrix: "redundant, rank 1" (dense SVD and QR)
    import scipy.sparse as sp

    Jn = np.array([[1.0, 0.0], [row_scale * 1.0, row_scale * 1e-4]])
    p = ContactProblem.from_blocks(
        np.eye(2),
        np.zeros(2),
        sp.csr_matrix(Jn) if sparse else Jn,
        np.zeros(2),
        ["unilateral", "unilateral"],
        dimension=2,
    )
    c = p.classify()
    assert c.normal_rank == 2 and c.redundant is False


@pytest.mark.parametrize("sparse", [False, True])
def test_classify_rank_in_the_mass_units_of_the_coordinates(sparse):
    # the same system with coordinate 2 measured in a unit 1e11 times smaller (a2' = 1e11 a2): its column of J is
    # divided by 1e11, its mass by 1e22. In the Jacobi units of M (S = diag(M)^(-1/2)) J S is unchanged: rank 2
    import scipy.sparse as sp

    for k in (1.0, 1e11):
        Jn = np.array([[1.0, 0.0], [1.0, 1.0 / k]])
        p = ContactProblem.from_blocks(
            np.diag([1.0, 1.0 / k**2]),
            np.zeros(2),
            sp.csr_matrix(Jn) if sparse else Jn,
            np.zeros(2),
            ["bilateral", "unilateral"],
            dimension=2,
        )
        assert p.classify().normal_rank == 2, k
    # truly dependent rows stay dependent in any unit
    Jn = np.array([[1.0, 1.0], [3e-7, 3e-7]])
    p = ContactProblem.from_blocks(
        np.diag([1.0, 1e-10]),
        np.zeros(2),
        sp.csr_matrix(Jn) if sparse else Jn,
        np.zeros(2),
        ["unilateral", "unilateral"],
        dimension=2,
    )
    assert p.classify().normal_rank == 1 and p.classify().redundant is True


# ------------------------------------------------- 4. LP answers re-checked in NumPy before a cone decision stands


def _forced_linprog(monkeypatch, fun=None, x=None):
    """Replace ``scipy.optimize.linprog`` by the real one whose answer is then falsified: the optimal value set to
    ``fun`` and/or the point to ``x(res.x)``, the rest (status, duals) left as HiGHS returned them. (The modules
    import ``linprog`` inside the functions that solve an LP, issue #15, so they see the replacement.)"""
    import scipy.optimize

    real = scipy.optimize.linprog

    def fake(*args, **kwargs):
        res = real(*args, **kwargs)
        if fun is not None:
            res.fun = fun
        if x is not None:
            res.x = x(np.asarray(res.x, dtype=float))
        return res

    monkeypatch.setattr(scipy.optimize, "linprog", fake)


def _lp_only(monkeypatch):
    """image_meets_normal_cone without its decisions that need no LP."""
    from gaussqp.certificates import sticking_criteria as sc

    monkeypatch.setattr(sc, "_separating_direction", lambda Tn, Jn: None)
    monkeypatch.setattr(sc, "_normal_row_in_image", lambda Tn, Jn: None)


def test_image_meets_normal_cone_answers_are_checked(monkeypatch):
    from gaussqp.certificates import sticking_criteria as sc

    T_triv, J = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])  # im Tᵀ = span e1, N_S = -cone(e2): {0}
    T_meet = np.array([[0.0, 3.0]])  # im Tᵀ = span e2 meets N_S
    assert sc.image_meets_normal_cone(T_triv, J)[0] is True
    meet, z = sc.image_meets_normal_cone(T_meet, J)
    assert meet is False and z[0] == 0.0 and z[1] < 0  # -J_uᵀλ, λ > 0
    # a positive optimum claimed with a point that is not in the intersection: refused (before: "meets", False); the
    # decisions without an LP (a separating direction, a normal row in im Tᵀ) are turned off so that the LP decides
    _forced_linprog(monkeypatch, fun=-0.5, x=lambda x: x + 1.0)
    _lp_only(monkeypatch)
    assert sc.image_meets_normal_cone(T_triv, J) == (None, None)
    monkeypatch.undo()
    # a zero optimum claimed where the intersection is not {0}: its duals do not prove it (before: True, "{0}")
    _forced_linprog(monkeypatch, fun=0.0)
    _lp_only(monkeypatch)
    assert sc.image_meets_normal_cone(T_meet, J) == (None, None)
    # through the certificates: Cor. 2 undecided, never "holds"
    p = ContactProblem(
        np.eye(2),
        np.array([0.0, 1.0]),
        [Contact("unilateral", normal=[0.0, 1.0], friction=0.5, mode="sticking", tangent=[[0.0, 3.0]])],
        dimension=2,
    )
    out = {c.id: c for c in sc.unilateral_sticking_solvability(p)}
    assert out["C8(Cor. 2)"].holds is None and out["C8(Cor. 2)"].implies.startswith("undecided")
    monkeypatch.undo()
    out = {c.id: c for c in sc.unilateral_sticking_solvability(p)}
    assert out["C8(Cor. 2)"].holds is False and out["C8(Prop. 8)"].holds is False


def test_image_meets_normal_cone_in_any_units():
    # the same geometry with the second coordinate in a unit 1e8 smaller (its column divided by 1e8, S = 1e8 on it):
    # the LP box and threshold act on J S, so the answer does not change
    from gaussqp.certificates import sticking_criteria as sc

    T, J = np.array([[1.0, 1e-8]]), np.array([[1.0, -1e-8]])  # in units: (1, 1) and (1, -1): independent, {0}
    assert sc.image_meets_normal_cone(T, J, scaling=np.array([1.0, 1e8]))[0] is True
    T2 = np.array([[-2.0, 2e-8]])  # in units (-2, 2) ∥ -(1, -1): meets
    meet, z = sc.image_meets_normal_cone(T2, J, scaling=np.array([1.0, 1e8]))
    assert meet is False and z[0] < 0 < z[1] and z[1] / -z[0] == pytest.approx(1e-8, rel=1e-9)  # ∝ -J_uᵀ = (-1, 1e-8)


def test_projection_is_zero_answers_are_checked(monkeypatch):
    from gaussqp.friction import enumeration as en
    from gaussqp.errors import UndecidedError

    # unknowns (a, λ1, λ2): a = λ1; λ1 >= 0 and λ1 <= 0 pin λ1 = 0, so the directions of the piece are (0, 0, t): the
    # acceleration's projection is {0}; without the second row, (1, 1, 0) is a direction: it is not
    E = np.array([[1.0, -1.0, 0.0]])
    G_zero, G_open = np.array([[0.0, 1.0, 0.0], [0.0, -1.0, 0.0]]), np.array([[0.0, 1.0, 0.0]])
    assert en._projection_is_zero(E, G_zero, 1) is True
    assert en._projection_is_zero(E, G_open, 1) is False
    # a positive optimum claimed with a point outside the cone: refused (before: False, "acceleration not unique")
    _forced_linprog(monkeypatch, fun=-0.5, x=lambda x: x + np.arange(1.0, x.size + 1.0))
    with pytest.raises(UndecidedError):
        en._projection_is_zero(E, G_zero, 1)
    monkeypatch.undo()
    # a zero optimum claimed where the acceleration moves: not proven by its duals (before: True, "unique")
    _forced_linprog(monkeypatch, fun=0.0)
    with pytest.raises(UndecidedError):
        en._projection_is_zero(E, G_open, 1)


def test_lp_dual_bound():
    from scipy.optimize import linprog

    from gaussqp.linalg.polyhedral_cones import lp_dual_bound

    # min x1 + 2 x2 s.t. x1 + x2 >= 1 (as -x1 - x2 <= -1), x >= 0: optimum 1 at (1, 0); the dual proves >= 1
    c, A, b = np.array([1.0, 2.0]), np.array([[-1.0, -1.0]]), np.array([-1.0])
    res = linprog(c, A_ub=A, b_ub=b, bounds=(0, None), method="highs")
    assert lp_dual_bound(res, c, A, b, nonnegative=np.array([True, True])) == pytest.approx(1.0, rel=1e-12)
    # the same duals do not prove it when the variables are free (x2 = 1 - x1 can go anywhere: unbounded)
    assert lp_dual_bound(res, c, A, b) is None
    res.ineqlin.marginals = np.array([-0.5])  # a wrong dual: reduced cost of x1 is 0.5, of x2 1.5 (valid, weaker)
    assert lp_dual_bound(res, c, A, b, nonnegative=np.array([True, True])) == pytest.approx(0.5)
    res.ineqlin.marginals = np.array([-1.5])  # infeasible dual (reduced cost of x1 negative): proves nothing
    assert lp_dual_bound(res, c, A, b, nonnegative=np.array([True, True])) is None
    res.status = 2
    assert lp_dual_bound(res, c, A, b, nonnegative=np.array([True, True])) is None


# ----------------------------------------------- 5. SOLVE_COND_MAX on equilibrated matrices, not on the raw ones


@pytest.mark.parametrize("m2", [1.0, 1e10, 1e13])
def test_sliding_enumeration_with_a_mass_ratio(m2):
    # a block sliding (slip +x) on a floor (a2 >= 0) pressed by F2 = m2: a2 = 0, λ_n = F2 = m2, and
    # a1 = -(F1 + μ λ_n) (the friction force -μ λ_n along the slip). Before, at m2 = 1e10 the active piece had a
    # raw condition number 1e20 (> SOLVE_COND_MAX) and the separated piece (a2 = -1) passed its test at
    # 1e-9 max(1, |F|): "inaccurate"
    import gaussqp

    p = ContactProblem(
        np.diag([1.0, m2]),
        np.array([0.3, m2]),
        [Contact("unilateral", normal=[0.0, 1.0], friction=0.5, mode="sliding", tangent=[[1.0, 0.0]], slip=[1.0])],
        dimension=2,
    )
    for f in ("sliding_enumeration", "sliding_lcp"):
        sol = gaussqp.solve(p, formulation=f)
        assert sol.status == "solved" and sol.certified, (f, sol.status)
        np.testing.assert_allclose(sol.lambda_normal, [m2], rtol=1e-9)
        assert sol.acceleration[0] == pytest.approx(-(0.3 + 0.5 * m2), rel=1e-9)
        assert abs(sol.acceleration[1]) <= 1e-9


@pytest.mark.parametrize("row", [1.0, 1e-2])
def test_sliding_lcp_and_fixed_point_with_a_small_row_and_a_mass_ratio(row):
    # two bilateral sliding contacts pin a = 0 (zero drifts): M a + F = J_nᵀλ_n + J_tᵀλ_t with λ_t = -μ|λ_n| s.
    # contact 1: normal e1, tangent e2; contact 2: normal row·e2, tangent e1, both slipping +. With M = diag(1, 1e10)
    # and row = 1e-2 the raw A_nb = diag(1, 1e-14) has cond 1e14 > SOLVE_COND_MAX: before, "singular, not
    # applicable"; equilibrated it is the identity. The answer: F1 = λ1 - μ|λ2|, F2 = row λ2 - μ|λ1| (a = 0)
    import gaussqp
    from gaussqp.friction.sliding import fixed_point, reduce

    mu = 0.05  # μ²/row < 1: a solution exists (at μ = 0.1, row = 1e-2 the two equations are inconsistent)
    p = ContactProblem(
        np.diag([1.0, 1e10]),
        np.array([1.0, 2.0]),
        [
            Contact("bilateral", normal=[1.0, 0.0], friction=mu, mode="sliding", tangent=[[0.0, 1.0]], slip=[1.0]),
            Contact("bilateral", normal=[0.0, row], friction=mu, mode="sliding", tangent=[[1.0, 0.0]], slip=[1.0]),
        ],
        dimension=2,
    )
    sol = gaussqp.solve(p, formulation="sliding_lcp")
    assert sol.status == "solved" and sol.certified
    l1, l2 = sol.lambda_normal
    assert np.abs(sol.acceleration).max() <= 1e-12
    assert l1 - mu * abs(l2) == pytest.approx(1.0, rel=1e-9) and row * l2 - mu * abs(l1) == pytest.approx(2.0, rel=1e-9)
    fp = fixed_point(reduce(p))  # before: NotApplicableError "A_nb is singular"
    assert fp.converged
    np.testing.assert_allclose(fp.lam_b, [l1, l2], rtol=1e-9)
    fps = gaussqp.solve(p, formulation="sliding_fixed_point")
    assert fps.status == "solved" and fps.certified


# ------------------------------------------------------ 6. one bilateral compatibility test for F2 and F3


def _two_drifts(unit, delta):
    return ContactProblem(
        np.eye(2),
        unit * np.array([1.0, 1.0]),
        [bil([1.0, 0.0], 0.0), bil([1.0, 0.0], unit * delta), uni([0.0, 1.0], 0.0)],
    )


@pytest.mark.parametrize("unit", [1.0, 1e-6, 1e6])
@pytest.mark.parametrize("delta, compatible", [(0.0, True), (1e-12, True), (5e-9, False), (1e-3, False)])
def test_bilateral_compatible(unit, delta, compatible):
    from gaussqp.mechanics.delassus import bilateral_compatible

    assert bilateral_compatible(_two_drifts(unit, delta), np.array([-unit * delta / 2, 0.0])) is compatible


@pytest.mark.parametrize("unit", [1.0, 1e-6, 1e6])
@pytest.mark.parametrize("delta, compatible", [(0.0, True), (1e-12, True), (5e-9, False), (1e-3, False)])
def test_f2_and_f3_agree_on_bilateral_compatibility(unit, delta, compatible):
    # two bilateral rows along e1 with drifts 0 and δ (relative to the data's acceleration 1): a1 = 0 and a1 = -δ
    # at once. The least-squares elimination leaves δ/2 on each row. Before, F2 called δ = 5e-9 incompatible
    # (2.5e-9 > 1e-9 max(1, |b|)) and F3 compatible (< 1e-8 max(1, |w_b|)); at unit 1e-6 (F, b scaled) both
    # floors of 1 hid even δ = 1e-3. Now both ask mechanics.delassus.bilateral_compatible, at the rows' data scale.
    # The formulations' own decision (their _solve, before the judge, which wants a Farkas vector for "infeasible")
    from gaussqp.formulations import get_formulation
    from gaussqp.settings import get_tolerance

    p = _two_drifts(unit, delta)
    for f in ("projected_eliminated", "lcp_lemke"):
        sol = get_formulation(f)._solve(p, None, get_tolerance("high"))
        assert (sol.status != "infeasible") is compatible, (f, sol.status)
        if not compatible:
            assert "bilateral rows incompatible" in sol.message


# --------------------------------------- 7. the former unit_floor_scale users: data scales, not the answer's size


def test_active_tolerance_ignores_a_garbage_answer():
    # a block on a floor (a2 >= 0) pushed down by F2 = 1: data acceleration 1, row scale 1. A garbage "answer"
    # a = (1e15, 1e3) leaves the floor by 1e3: it detaches. Before, the tolerance tol·max(1, |a|, |b|) = 1e8 called a
    # slack of 1e3 "active"
    from gaussqp.friction.multiplier_set import active_tolerance, detaching

    p = prob(np.eye(2), [0.0, 1.0], [uni([0.0, 1.0])])
    garbage = np.array([1e15, 1e3])
    tol = active_tolerance(p, garbage)
    np.testing.assert_allclose(tol, active_tolerance(p, np.zeros(2)))  # the answer does not enter
    np.testing.assert_allclose(tol, [1e-7])
    assert list(detaching(p, garbage, tol)) == [0]
    assert list(detaching(p, np.array([1e15, 1e-8]), tol)) == [] and list(detaching(p, np.array([0.0, 1e-6]), tol)) == [
        0
    ]


def test_sticking_gap_tolerance_ignores_a_garbage_answer():
    # the F4/F5 one-stage gap test: tol · max(1, |F| max(1, |a|), |λ_n| max(1, |b|)) was 1e9 for |a| = 1e15, so a
    # program value of 1e3 passed as "zero gap". Now tol · the gap's terms at the data's size
    from gaussqp.formulations.sticking_conic import StickingConic
    from gaussqp.model.scales import data_scales
    from gaussqp.settings import get_tolerance

    p = ContactProblem(
        np.eye(2),
        np.array([0.3, 1.0]),
        [Contact("unilateral", normal=[0.0, 1.0], friction=0.5, mode="sticking", tangent=[[1.0, 0.0]])],
        dimension=2,
    )
    tol = get_tolerance("high")
    small = StickingConic._gap_tol(p, np.zeros(2), np.array([1.0]), np.zeros((1, 1)), tol)
    big = StickingConic._gap_tol(p, np.array([1e15, 1e15]), np.array([1e15]), np.zeros((1, 1)), tol)
    assert small == big == pytest.approx(tol.residual * data_scales(p).work)
    # work at the data acceleration 1 (M = I, S = I): (S accel)ᵀ|M|(S accel) = 2, |F|ᵀ S accel = 1.3, λ_data |b| = 0
    assert data_scales(p).work == pytest.approx(2.0 + 1.3, rel=1e-12)
    assert 1e3 > big


@pytest.mark.parametrize("unit", [1.0, 1e-6, 1e6])
def test_farkas_verdict_does_not_depend_on_units(unit):
    # the two drifts 0 and δ on one row (see item 6): infeasible for δ = 1e-3 at any unit, and at round-off
    # (no verified vector) for δ = 1e-12. Before, bᵀy was divided by max(1, |b|): at unit 1e6, δ = 1e-12 was a
    # certified Farkas vector (margin 1e-6), at unit 1e-6, δ = 1e-3 was not (margin 1e-9)
    from gaussqp.certificates.instance import verify_farkas

    big = verify_farkas(_two_drifts(unit, 1e-3))
    assert (
        big is not None and big.holds is True and big.margin == pytest.approx(1e-3 / (2 + 1e-3), rel=1e-9)
    )  # δ against rows (1, 1 + δ)
    small = verify_farkas(_two_drifts(unit, 1e-12))
    assert small is None or small.holds is False


# ------------------------------------------------------------------ forward_error with a zero KKT matrix


def test_forward_error_is_zero_when_every_acceleration_solves():
    # M = 0, F = 0, no rows: every a solves M a + F = 0 (the KKT matrix is zero, the residual too). Before: NaN
    # (0 · inf in the round-off term), and the judge called the exact answer "inaccurate"
    import gaussqp
    from gaussqp.certificates.instance import forward_error

    p = ContactProblem(np.zeros((2, 2)), np.zeros(2), [], dimension=2)
    for a in (np.zeros(2), np.array([3.0, -1e6])):
        c = forward_error(p, a, np.zeros(0), np.zeros((0, 1)))
        assert c.margin == 0.0 and c.data["acceleration"] == 0.0
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.certified and not np.isnan(sol.residuals["dynamics"])
    # M = 0 with a load and no rows has no solution: the same zero KKT matrix with a nonzero residual
    q = ContactProblem(np.zeros((2, 2)), np.array([1.0, 0.0]), [], dimension=2)
    assert forward_error(q, np.zeros(2), np.zeros(0), np.zeros((0, 1))).margin == float("inf")


def _meets_by_coordinates(T: np.ndarray, J: np.ndarray) -> bool:
    """Oracle: does im Tᵀ meet N_S = -cone(J_uᵀ) outside 0? max ±(J_uᵀλ)_k over Tᵀy + J_uᵀλ = 0, λ >= 0,
    |J_uᵀλ| <= 1, for every coordinate k (2n LPs, the definition)."""
    import scipy.optimize

    kt, ku, n = T.shape[0], J.shape[0], T.shape[1]
    Aeq = np.hstack([T.T, J.T])
    Aub = np.vstack([np.hstack([np.zeros((n, kt)), J.T]), np.hstack([np.zeros((n, kt)), -J.T])])
    best = 0.0
    for k in range(n):
        for sgn in (1.0, -1.0):
            c = np.concatenate([np.zeros(kt), -sgn * J[:, k]])
            res = scipy.optimize.linprog(
                c,
                A_ub=Aub,
                b_ub=np.ones(2 * n),
                A_eq=Aeq,
                b_eq=np.zeros(n),
                bounds=[(None, None)] * kt + [(0, None)] * ku,
                method="highs",
            )
            assert res.status == 0
            best = max(best, -res.fun)
    return best > 1e-7


@pytest.mark.parametrize("seed", range(40))
def test_image_meets_normal_cone_equals_the_coordinate_lps(seed):
    # r + 1 LPs over a positive spanning set of im J_uᵀ (issue #15) decide what the 2n coordinate LPs decide, on random
    # geometries built to meet (a row of T is a nonnegative combination of J_u's rows, possibly inside a subspace of
    # lower rank) or generic
    from gaussqp.certificates import sticking_criteria as sc

    rng = np.random.default_rng(seed)
    n, ku, kt = int(rng.integers(3, 8)), int(rng.integers(1, 5)), int(rng.integers(1, 4))
    J = rng.standard_normal((ku, n))
    if seed % 3 == 0 and ku > 1:  # redundant normal rows: rank J_u < ku
        J[-1] = 0.5 * J[0] + 2.0 * J[-2] if ku > 2 else 3.0 * J[0]
    T = rng.standard_normal((kt, n))
    if seed % 2 == 0:
        T[0] = rng.uniform(0.0, 1.0, ku) @ J * (1 if seed % 4 == 0 else -1)
    meets = _meets_by_coordinates(T, J)
    trivial, z = sc.image_meets_normal_cone(T, J)
    assert trivial is (not meets), (seed, meets)
    if meets:  # the witness is -J_uᵀλ with λ >= 0 and lies in im Tᵀ
        y = np.linalg.lstsq(T.T, z, rcond=None)[0]
        assert np.allclose(T.T @ y, z, atol=1e-9 * np.abs(z).max()) and np.abs(z).max() > 0


@pytest.mark.parametrize("redundant", [False, True])
def test_image_meets_normal_cone_one_lp_with_independent_rows(monkeypatch, redundant):
    # independent normal rows: one LP on the multipliers decides (issue #15); dependent rows (a λ >= 0 in ker J_uᵀ makes
    # the multiplier cone nonzero while the intersection may be {0}) go on to the r + 1 LPs over im J_uᵀ
    import scipy.optimize
    from gaussqp.certificates import sticking_criteria as sc

    J = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    if redundant:  # the third row is minus the sum of the first two: J_uᵀ(1, 1, 1) = 0 with (1, 1, 1) >= 0
        J = np.vstack([J, -J.sum(axis=0)])
    T = np.array([[1.0, 0.0, 0.0]])  # im Tᵀ = span e1 meets no normal direction: {0}
    calls = []
    real = scipy.optimize.linprog
    monkeypatch.setattr(scipy.optimize, "linprog", lambda *a, **k: calls.append(1) or real(*a, **k))
    _lp_only(monkeypatch)  # (independent rows: a separating direction (0, 1, 1) decides with no LP at all)
    trivial, z = sc.image_meets_normal_cone(T, J)
    assert trivial is True and z is None
    assert len(calls) == (3 if redundant else 1)  # redundant: rank 2 < 3 rows, no one-LP test; r + 1 = 3 LPs


def test_one_lp_with_a_multiplier_in_the_kernel_proves_nothing():
    # the one-LP test on dependent rows: λ = (1, 1, 1)/3 is in the multiplier cone with J_uᵀλ = 0, the intersection is
    # {0}; the test must not call it "meets" (nor "{0}": its optimum is 1), it returns undecided for the r + 1 LPs
    from gaussqp.certificates import sticking_criteria as sc

    J = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, -1.0]])
    T = np.array([[1.0, 0.0, 0.0]])
    assert sc._one_lp(T, sc.normalize_rows(J)) == (None, None)
    assert sc.image_meets_normal_cone(T, J) == (True, None)

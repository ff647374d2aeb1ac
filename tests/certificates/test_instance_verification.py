"""Fast unit tests of the instance certificates (gaussqp.instance), issue #9 mutation testing.

Every function is called directly on small hand-built problems; the expected values are derived by hand
(closed forms in the comments) or from the definitions with plain numpy, never pasted from the code's output.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gaussqp.certificates import instance as inst
from gaussqp.certificates import judge
from gaussqp.certificates import polish as polmod
from gaussqp.mechanics import active_set as kkt
from gaussqp.errors import UndecidedError
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.model.scales import data_scales
from gaussqp.results import FAILED, INACCURATE, INFEASIBLE, SOLVED, UNBOUNDED, Certificate, JudgeHints, Solution
from gaussqp.friction.cones import ConeModel
from gaussqp.settings import PRESETS

EPS = np.finfo(float).eps
HIGH = PRESETS["high"]


def uni(normals, drifts, M=None, F=None, types="unilateral", sparse=False):
    J = np.array(normals, dtype=float)
    n = J.shape[1]
    M = np.eye(n) if M is None else np.asarray(M, dtype=float)
    F = np.zeros(n) if F is None else F
    if sparse:
        M, J = sp.csr_matrix(M), sp.csr_matrix(J)
    return ContactProblem.from_blocks(M, F, J, drifts, types)


def sol_of(p, a, lam_n, status=SOLVED, lam_t=None, polish=True, cones_enforced=None, verified_by_f1=False):
    """A raw claim as a formulation hands it to the judge (its typed fields: polish_allowed, cones_enforced,
    nonexistence_verified)."""
    lt = np.zeros((p.m, p.dimension - 1)) if lam_t is None else np.asarray(lam_t, dtype=float)
    return Solution(
        p,
        status,
        "test",
        "test",
        acceleration=None if a is None else np.asarray(a, dtype=float),
        lambda_normal=None if lam_n is None else np.asarray(lam_n, dtype=float),
        lambda_tangent=lt if a is not None else None,
        hints=JudgeHints(polish_allowed=polish, cones_enforced=cones_enforced, nonexistence_verified=verified_by_f1),
    )


# ----------------------------------------------------------------------------------------------- verify_farkas


def test_farkas_two_opposite_unilateral_rows():
    # a >= 3 and a <= -1: y_G = (t, t) (Gᵀy = 0), gᵀy = -3t - t = -1 -> t = 1/4. Data scales (issue #9 part 3): the
    # acceleration the drifts ask for is 3, rows |J_i| 3 + |b_i| = (6, 4): margin = 1 / (6/4 + 4/4) = 0.4
    p = uni([[1.0], [-1.0]], [-3.0, -1.0])
    c = inst.verify_farkas(p)
    assert c.id == "farkas" and c.holds is True
    np.testing.assert_allclose(c.data["y_unilateral"], [0.25, 0.25], rtol=1e-9)
    assert c.data["y_equalities"].shape == (0,)
    assert c.data["b_dot_y"] == pytest.approx(-1.0, rel=1e-12)
    assert c.data["stationarity"] <= 1e-15
    assert c.margin == pytest.approx(0.4, rel=1e-9)


def test_farkas_bilateral_and_unilateral_split():
    # 2a - 3 = 0 and -a - 1 >= 0: 2 y_E - y_G = 0, -3 y_E - y_G = -1 -> y_E = 0.2, y_G = 0.4; data acceleration
    # max(3/2, 1) = 1.5, rows (2·1.5 + 3, 1.5 + 1) = (6, 2.5): margin 1 / (0.2·6 + 0.4·2.5) = 1/2.2
    p = ContactProblem(
        np.eye(1),
        [0.0],
        [
            Contact("bilateral", normal=[2.0], normal_drift=-3.0),
            Contact("unilateral", normal=[-1.0], normal_drift=-1.0),
        ],
        dimension=2,
    )
    c = inst.verify_farkas(p)
    assert c.holds is True
    np.testing.assert_allclose(c.data["y_equalities"], [0.2], rtol=1e-9)
    np.testing.assert_allclose(c.data["y_unilateral"], [0.4], rtol=1e-9)
    assert c.margin == pytest.approx(1.0 / 2.2, rel=1e-9)


def test_farkas_none_when_feasible():
    assert inst.verify_farkas(uni([[1.0], [-1.0]], [1.0, 1.0])) is None


def _farkas_with(monkeypatch, y):
    monkeypatch.setattr(inst, "farkas_vector", lambda E, e, G, g: np.asarray(y, dtype=float))


def test_farkas_rejects_nonstationary_vector(monkeypatch):
    # rows (2), (-1) with drifts (-3, -1); y = (1, 1): Jᵀy = 2 - 1 = 1 against its terms |J|ᵀ|y| = 3: stationarity 1/3
    p = uni([[2.0], [-1.0]], [-3.0, -1.0])
    _farkas_with(monkeypatch, [1.0, 1.0])
    c = inst.verify_farkas(p)
    assert c.holds is False
    assert c.data["stationarity"] == pytest.approx(1.0 / 3.0, rel=1e-12)
    assert c.data["b_dot_y"] == pytest.approx(-4.0, rel=1e-12)
    # margin = -bᵀy / Σ|y_i| row_i - stationarity - sign; data acceleration max(3/2, 1) = 1.5, rows (6, 2.5)
    assert c.margin == pytest.approx(4.0 / 8.5 - 1.0 / 3.0, rel=1e-12)


def test_farkas_rejects_small_stationarity_violation(monkeypatch):
    # stationarity 2e-9 > 1e-9 with a comfortable margin otherwise: rows (1), (-1), y = (1, 1 - 4e-9): Jᵀy = 4e-9
    # against its terms 2 - 4e-9
    p = uni([[1.0], [-1.0]], [-3.0, -1.0])
    _farkas_with(monkeypatch, [1.0, 1.0 - 4e-9])
    c = inst.verify_farkas(p)
    assert c.data["stationarity"] == pytest.approx(2e-9, rel=1e-6)
    assert c.margin > 0.3 and c.holds is False
    _farkas_with(monkeypatch, [1.0, 1.0 - 1e-9])
    assert inst.verify_farkas(p).holds is True  # 5e-10 <= 1e-9


def test_farkas_rejects_negative_unilateral_entry(monkeypatch):
    # three rows (1), (-1), (1), drifts (-3, -1, 0); y = (1, 1 + 1e-11, 1e-11 ... ) with a negative entry
    p = uni([[1.0], [-1.0], [1.0]], [-3.0, -1.0, 0.0])
    _farkas_with(monkeypatch, [1.0, 1.0 - 2e-12, -2e-12])  # Jᵀy = 0 exactly up to round-off; sign = 2e-12
    c = inst.verify_farkas(p)
    assert c.holds is False
    assert c.margin == pytest.approx(4.0 / 10.0, rel=1e-6)  # rows (6, 4, 3) at the data acceleration 3
    _farkas_with(monkeypatch, [1.0, 1.0 - 0.5e-12, -0.5e-12])  # sign 5e-13 <= 1e-12
    assert inst.verify_farkas(p).holds is True


def test_farkas_rejects_nonnegative_bty(monkeypatch):
    # y = 0 except... rows (1), (-1) with drifts (1, 1) (feasible): y = (1, 1) gives bᵀy = 2 > 0
    p = uni([[1.0], [-1.0]], [1.0, 1.0])
    _farkas_with(monkeypatch, [1.0, 1.0])
    c = inst.verify_farkas(p)
    assert c.holds is False and c.margin == pytest.approx(-0.5, rel=1e-12)  # rows (2, 2) at the data acceleration 1
    p0 = uni([[1.0], [-1.0]], [0.0, 0.0])
    _farkas_with(monkeypatch, [1.0, 1.0])
    c0 = inst.verify_farkas(p0)
    assert c0.data["b_dot_y"] == 0.0 and c0.holds is False


def test_farkas_margin_threshold(monkeypatch):
    # drifts (-t, 0) with y = (1, 1), F = 1 (free acceleration 1): bᵀy = -t against rows (1 + t, 1): margin t/(2 + t),
    # holds iff above 1e-9. Without F the drift t is the only scale: margin 1/3 at any t (a >= t, a <= 0 is
    # infeasible in any unit)
    for t, ok in ((4e-9, True), (1e-9, False)):
        p = uni([[1.0], [-1.0]], [-t, 0.0], F=np.array([1.0]))
        _farkas_with(monkeypatch, [1.0, 1.0])
        c = inst.verify_farkas(p)
        assert c.margin == pytest.approx(t / (2 + t), rel=1e-9) and c.holds is ok
        c0 = inst.verify_farkas(uni([[1.0], [-1.0]], [-t, 0.0]))
        assert c0.margin == pytest.approx(1.0 / 3.0, rel=1e-9) and c0.holds is True


# ------------------------------------------------------------------------------------------------ verify_ray


def test_roundoff_rows_formula():
    A = np.array([[1.0, -2.0, 0.0], [0.0, 3.0, -4.0]])
    v = np.array([0.5, -1.0, 2.0])
    # 1000 * n eps * |A| |v| with n = 3: |A||v| = (0.5 + 2, 3 + 8) = (2.5, 11)
    np.testing.assert_allclose(inst._roundoff_rows(A, v), 1000.0 * 3 * EPS * np.array([2.5, 11.0]), rtol=1e-14)
    np.testing.assert_allclose(
        inst._roundoff_rows(sp.csr_matrix(A), v), 1000.0 * 3 * EPS * np.array([2.5, 11.0]), rtol=1e-14
    )
    assert inst._roundoff_rows(np.zeros((0, 3)), v).shape == (0,)


def test_ray_none_for_definite_mass():
    assert inst.verify_ray(ContactProblem(np.eye(2), [0.0, 1.0], [], dimension=2)) is None


def test_ray_found_and_verified():
    # M = diag(1, 0), F = (0.5, 2): v = (0, -1) (normalized to |v|max = 1); Fᵀv = -2; |F|ᵀ|v| = 2
    p = ContactProblem(np.diag([1.0, 0.0]), [0.5, 2.0], [], dimension=2)
    c = inst.verify_ray(p)
    assert c.id == "unbounded_ray" and c.holds is True
    np.testing.assert_allclose(c.data["ray"], [0.0, -1.0], atol=1e-14)
    assert c.data["F_dot_v"] == pytest.approx(-2.0, rel=1e-12)
    assert c.data["violation"] == 0.0
    # margin = (2 - 1000 * 2 eps * 2) / 2
    assert c.margin == pytest.approx(1.0 - 2000.0 * EPS, abs=1e-15)


def test_ray_none_when_blocked_by_contact():
    # the only kernel direction (0, ±1) with Fᵀv < 0 is v = (0, -1), blocked by a2 >= 0
    p = uni([[0.0, 1.0]], [0.0], M=np.diag([1.0, 0.0]), F=[0.0, 1.0])
    assert inst.verify_ray(p) is None


def _ray_with(monkeypatch, v):
    monkeypatch.setattr(inst, "unbounded_ray", lambda R, F, E, G: np.asarray(v, dtype=float))


def test_ray_normalized_by_max_entry(monkeypatch):
    p = ContactProblem(np.diag([1.0, 0.0, 0.0]), [0.0, 1.0, 1.0], [], dimension=2)
    _ray_with(monkeypatch, [0.0, -4.0, 2.0])
    c = inst.verify_ray(p)
    np.testing.assert_allclose(c.data["ray"], [0.0, -1.0, 0.5], rtol=1e-15)
    # Fᵀv = -0.5, |F|ᵀ|v| = 1.5, round-off 1000 * 3 eps * 1.5
    assert c.data["F_dot_v"] == pytest.approx(-0.5, rel=1e-15)
    assert c.margin == pytest.approx((0.5 - 4500 * EPS) / 1.5, rel=1e-13)
    assert c.holds is True


def test_ray_rejects_mass_row_violation(monkeypatch):
    p = ContactProblem(np.diag([1.0, 0.0]), [0.0, 1.0], [], dimension=2)
    _ray_with(monkeypatch, [1e-3, -1.0])  # M v = (1e-3, 0)
    c = inst.verify_ray(p)
    assert c.holds is False
    assert c.data["violation"] == pytest.approx(1e-3 - 1000 * 2 * EPS * 1e-3, rel=1e-12)


def test_ray_rejects_equality_violation(monkeypatch):
    p = ContactProblem(
        np.diag([1.0, 0.0, 0.0]), [0.0, 1.0, 0.0], [Contact("bilateral", normal=[0.0, 0.0, 1.0])], dimension=2
    )
    _ray_with(monkeypatch, [0.0, -1.0, 0.25])  # E v = 0.25, |E||v| = 0.25
    c = inst.verify_ray(p)
    assert c.holds is False
    assert c.data["violation"] == pytest.approx(0.25 - 3000 * EPS * 0.25, rel=1e-12)
    _ray_with(monkeypatch, [0.0, -1.0, -0.25])  # |E v| counts whatever its sign
    assert inst.verify_ray(p).holds is False


def test_ray_rejects_inequality_violation_only_when_negative(monkeypatch):
    p = uni([[0.0, 0.0, 1.0]], [0.0], M=np.diag([1.0, 0.0, 0.0]), F=[0.0, 1.0, 0.0])
    _ray_with(monkeypatch, [0.0, -1.0, -0.25])  # G v = -0.25 < 0
    c = inst.verify_ray(p)
    assert c.holds is False
    assert c.data["violation"] == pytest.approx(0.25 - 3000 * EPS * 0.25, rel=1e-12)
    _ray_with(monkeypatch, [0.0, -1.0, 0.25])  # G v > 0: fine
    c = inst.verify_ray(p)
    assert c.holds is True and c.data["violation"] == 0.0


def test_ray_accepts_roundoff_level_violation(monkeypatch):
    # M v with a relative error 100 n eps of |M||v|: below the 1000 n eps bound
    M = np.array([[1.0, 1.0], [1.0, 1.0]])
    p = ContactProblem(M, [1.0, 0.0], [], dimension=2)
    _ray_with(monkeypatch, [-1.0, 1.0 + 400 * EPS])  # (M v)_j = 400 eps (2 ulps of 1), bound 1000*2*eps*2
    c = inst.verify_ray(p)
    assert c.data["violation"] == 0.0 and c.holds is True
    _ray_with(monkeypatch, [-1.0, 1.0 + 8000 * EPS])  # 8000 eps > 4000 eps
    assert inst.verify_ray(p).holds is False


def test_ray_rejects_nonnegative_or_roundoff_descent(monkeypatch):
    p = ContactProblem(np.diag([1.0, 0.0]), [0.0, 1.0], [], dimension=2)
    _ray_with(monkeypatch, [0.0, 1.0])  # ascent
    c = inst.verify_ray(p)
    assert c.holds is False and c.margin == pytest.approx(-1.0 - 2000 * EPS, rel=1e-12)
    # F = (1, 1e-13): along v = (0, -1) the descent -1e-13 is below its round-off 2000 eps * 1e-13? no: |F|ᵀ|v| = 1e-13
    p2 = ContactProblem(np.diag([1.0, 0.0]), [1.0, 1e-13], [], dimension=2)
    _ray_with(monkeypatch, [0.0, -1.0])
    c2 = inst.verify_ray(p2)
    assert c2.margin == pytest.approx(1.0 - 2000 * EPS, rel=1e-12) and c2.holds is True
    # Fᵀv = 0 with |F|ᵀ|v| = 0: margin -1
    p3 = ContactProblem(np.diag([1.0, 0.0]), [1.0, 0.0], [], dimension=2)
    c3 = inst.verify_ray(p3)
    assert c3.margin == -1.0 and c3.holds is False


def test_ray_none_when_search_fails(monkeypatch):
    p = ContactProblem(np.diag([1.0, 0.0]), [0.0, 1.0], [], dimension=2)
    monkeypatch.setattr(inst, "unbounded_ray", lambda R, F, E, G: None)
    assert inst.verify_ray(p) is None


# ----------------------------------------------------------------------------------------------- _active_sets


def _three_rows():
    """bilateral (1, 0) b = 0.3; unilateral (0, 1) b = 0; unilateral (2, 1) b = -1; M = I, F = (0, 2).

    S = 1; weights (1, 1, 2); accel = max(free 2, drifts max(0.3, 0, 0.5)) = 2; force = max(2, 1 * 2) = 2;
    row scales |J_i| accel + |b_i| = (2.3, 2, 7)."""
    return ContactProblem(
        np.eye(2),
        [0.0, 2.0],
        [
            Contact("bilateral", normal=[1.0, 0.0], normal_drift=0.3),
            Contact("unilateral", normal=[0.0, 1.0]),
            Contact("unilateral", normal=[2.0, 1.0], normal_drift=-1.0),
        ],
    )


def test_active_sets_thresholds_and_boundaries():
    p = _three_rows()
    # slack row 1 = a2 = 2e-7 = thr (active, <=); row 2 = 2 a1 + a2 - 1 = 8e-7 > 7e-7 (inactive)
    a = np.array([(1.0 + 8e-7 - 2e-7) / 2, 2e-7])
    lam = np.array([5.0, 2e-7, 1.5e-7])  # lthr = 1e-7 * force / weight = (2e-7, 1e-7)
    active, zero, thr, lthr = inst._active_sets(p, a, lam)
    np.testing.assert_allclose(thr, [2e-7, 7e-7], rtol=1e-15)
    np.testing.assert_allclose(lthr, [2e-7, 1e-7], rtol=1e-15)
    assert active.tolist() == [True, False]
    assert zero.tolist() == [True, False]
    # just beyond each threshold
    active, zero, _, _ = inst._active_sets(p, np.array([a[0], 2.0000001e-7]), np.array([0.0, 2.0000001e-7, 1e-7]))
    assert active.tolist() == [False, False] and zero.tolist() == [False, True]
    active, _, _, _ = inst._active_sets(p, np.array([0.5 + 3e-7, 0.0]), lam)
    assert active.tolist() == [True, True]  # row 2 slack 6e-7 <= 7e-7


def test_active_sets_zero_row_multiplier_threshold_infinite():
    p = ContactProblem(
        np.eye(2),
        [0.0, 1.0],
        [Contact("unilateral", normal=[0.0, 1.0]), Contact("unilateral", normal=[0.0, 0.0], normal_drift=1.0)],
    )
    active, zero, thr, lthr = inst._active_sets(p, np.zeros(2), np.array([1.0, 1e6]))
    assert np.isinf(lthr[1]) and zero.tolist() == [False, True]
    assert active.tolist() == [True, False]


def test_active_sets_without_unilateral_rows():
    p = ContactProblem(np.eye(2), [0.0, 1.0], [Contact("bilateral", normal=[0.0, 1.0])])
    active, zero, thr, lthr = inst._active_sets(p, np.zeros(2), np.array([1.0]))
    assert active.shape == zero.shape == thr.shape == lthr.shape == (0,)


# ---------------------------------------------------------------------------------------- unique_acceleration


def test_unique_acceleration_definite_margin_is_min_eigenvalue_of_equilibrated_mass():
    # M = [[2, 1], [1, 2]]: S M S = [[1, 1/2], [1/2, 1]], eigenvalues 1/2 and 3/2
    p = ContactProblem(np.array([[2.0, 1.0], [1.0, 2.0]]), [0.0, 1.0], [], dimension=2)
    c = inst.unique_acceleration(p, np.zeros(2), np.zeros(0))
    assert c.holds is True and c.margin == pytest.approx(0.5, rel=1e-12)


def _singular_two_rows():
    # M = diag(1, 0, 0), F = (0, 1, 1), a2 >= 0, a3 >= 0: a* = 0, λ = (1, 1); directions v1 = 0, v2 + v3 = 0
    return uni([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [0.0, 0.0], M=np.diag([1.0, 0.0, 0.0]), F=[0.0, 1.0, 1.0])


def test_unique_acceleration_singular_both_active_unique():
    p = _singular_two_rows()
    c = inst.unique_acceleration(p, np.zeros(3), np.array([1.0, 1.0]))
    assert c.holds is True and c.margin > 0
    assert c.implies == "the acceleration is unique"
    np.testing.assert_allclose(c.data["active_tolerance"], 1e-7 * data_scales(p).normal_row)


def test_unique_acceleration_singular_one_inactive_not_unique():
    # F = (0, 1, 0): a* = (0, 0, 1) with λ = (1, 0) is a KKT pair (row 2 inactive); (the former point of
    # _singular_two_rows with a3 = 1 was not one: M a + F = (0, 1, 1) ≠ Jᵀλ)
    p = uni([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [0.0, 0.0], M=np.diag([1.0, 0.0, 0.0]), F=[0.0, 1.0, 0.0])
    c = inst.unique_acceleration(p, np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0]))
    assert c.holds is False and c.margin <= 0
    v = c.data["witness"]
    # a witness: M v = 0, Fᵀv = 0, v2 = 0 (active row with λ > 0), v3 free (inactive row), v ≠ 0
    assert abs(v[0]) < 1e-12 and abs(v[1]) < 1e-12 and abs(v[2]) > 0.1
    assert "not unique" in c.implies


def test_unique_acceleration_undecided(monkeypatch):
    def boom(*a, **k):
        raise UndecidedError("test double")

    monkeypatch.setattr(inst, "cone_is_trivial", boom)
    c = inst.unique_acceleration(_singular_two_rows(), np.zeros(3), np.array([1.0, 1.0]))
    assert c.holds is None and np.isnan(c.margin) and "undecided" in c.implies and "test double" in c.implies
    assert "active_tolerance" in c.data


# ----------------------------------------------------------------------------------------- unique_multipliers


def test_unique_multipliers_no_rows():
    p = ContactProblem(np.eye(2), [0.0, 1.0], [], dimension=2)
    c = inst.unique_multipliers(p, np.zeros(2), np.zeros(0))
    assert c.holds is True and c.margin == float("inf")


def test_unique_multipliers_independent_rows_margin_smallest_singular_value():
    # the margin is σ_min of the rows normalized to unit length (C2's rule, each row on its own scale): J = [[3, 0],
    # [0.5, 0.5]] has normalized rows (1, 0), (1, 1)/√2, singular values √(1 ± 1/√2); a row in units 1e6 apart
    # changes nothing (unnormalized, σ_min/σ_max would be ~1e-7)
    for big in (1.0, 1e6):
        p = uni([[3.0 * big, 0.0], [0.5, 0.5]], [0.0, 0.0], F=[-3.0 * big, -1.0])
        c = inst.unique_multipliers(p, np.zeros(2), np.array([1.0, 1.0]))
        assert c.holds is True and c.margin == pytest.approx(np.sqrt(1 - 1 / np.sqrt(2)), rel=1e-12)
        assert c.data["rows_independent"] is True


def test_unique_multipliers_dependent_inactive_row_unique():
    # rows (0,1) b = 0 (active, λ = 1) and (0,1) b = 1 (slack 1, inactive): d2 = 0, d1 + d2 = 0 -> unique
    p = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 1.0], F=[0.0, 1.0])
    c = inst.unique_multipliers(p, np.zeros(2), np.array([1.0, 0.0]))
    assert c.holds is True and "dependent" in c.implies
    np.testing.assert_allclose(c.data["zero_multiplier_tolerance"], 1e-7 * np.ones(2))


def test_unique_multipliers_dependent_active_positive_not_unique():
    p = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 0.0], F=[0.0, 1.0])
    c = inst.unique_multipliers(p, np.zeros(2), np.array([0.5, 0.5]))
    assert c.holds is False
    d = c.data["witness"]
    assert abs(d[0] + d[1]) < 1e-12 and abs(d[0]) > 0.1
    assert "not unique" in c.implies


def test_unique_multipliers_zero_multipliers_are_one_sided():
    # F = 0, two active rows (0,1) with λ = 0: d1 + d2 = 0, d1, d2 >= 0 -> d = 0, unique
    p = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 0.0], F=[0.0, 0.0])
    assert inst.unique_multipliers(p, np.zeros(2), np.zeros(2)).holds is True
    # one zero (d2 >= 0), one positive (free): d = (-1, 1) -> not unique
    c = inst.unique_multipliers(p, np.zeros(2), np.array([1.0, 0.0]))
    assert c.holds is False and c.data["witness"][1] > 0


def test_unique_multipliers_bilateral_row_has_no_sign():
    # bilateral (0,1) and unilateral (0,1), λ_u = 0: d1 free, d2 >= 0, d1 + d2 = 0 -> not unique
    p = ContactProblem(
        np.eye(2), [0.0, 1.0], [Contact("bilateral", normal=[0.0, 1.0]), Contact("unilateral", normal=[0.0, 1.0])]
    )
    c = inst.unique_multipliers(p, np.zeros(2), np.array([1.0, 0.0]))
    assert c.holds is False


def test_unique_multipliers_undecided(monkeypatch):
    def boom(*a, **k):
        raise UndecidedError("test double")

    monkeypatch.setattr(inst, "cone_is_trivial", boom)
    p = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 0.0], F=[0.0, 1.0])
    c = inst.unique_multipliers(p, np.zeros(2), np.array([0.5, 0.5]))
    assert c.holds is None and np.isnan(c.margin) and "undecided" in c.implies
    assert set(c.data) == {"active_tolerance", "zero_multiplier_tolerance"}


def _old_cone_test(p, a, lam_n):
    """The decision of the LP and rank test alone (``cone_is_trivial`` on the multiplier polyhedron's directions):
    the oracle the count must agree with."""
    from gaussqp.linalg.polyhedral_cones import cone_is_trivial

    J = inst.as_dense(inst.multiplier_rows(p)[0])
    k = J.shape[0]
    active, zero_lam, _, _ = inst._active_sets(p, a, lam_n)
    eq, ineq = [J.T], []
    for j, i in enumerate(p.unilateral):
        e = np.zeros(k)
        e[i] = 1.0
        if not active[j]:
            eq.append(e[None, :])
        elif zero_lam[j]:
            ineq.append(e)
    return cone_is_trivial(np.vstack(eq), np.array(ineq).reshape(-1, k), k).trivial


@pytest.mark.parametrize("seed", range(40))
def test_more_free_rows_than_coordinates_are_not_unique_by_a_count(seed):
    """More rows free in sign (bilateral, sticking tangents, active unilateral rows with λ > 0) than coordinates:
    non-unique by counting, with no rank and no LP; the same verdict as the LP and rank test, and a witness that
    passes the checks its evidence states (Σ d_i row_i = 0, d_i = 0 on inactive rows, d_i >= 0 on active rows of
    zero multiplier), rows of very different sizes included. Where the free rows do not outnumber the coordinates
    (many inactive or zero-multiplier rows) the LP decides as before."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    m = n + int(rng.integers(1, 6))
    J = rng.normal(size=(m, n)) * 10.0 ** rng.integers(-4, 5, size=(m, 1))
    if seed % 4 == 0:
        J[0] = J[1] * 3.0  # an exactly repeated direction
    slack = np.where(rng.random(m) < 0.3, rng.uniform(0.5, 2.0, m), 0.0)
    lam = np.where(rng.random(m) < 0.3, 0.0, rng.uniform(0.1, 2.0, m))
    lam[slack > 0] = 0.0
    p = uni(J, slack)
    a = np.zeros(n)
    c = inst.unique_multipliers(p, a, lam)
    # active and zero multipliers as the certificate decides them, each row at its own scale (a multiplier of a tiny
    # row next to rows 1e8 larger counts as zero)
    active, zero_lam, _, _ = inst._active_sets(p, a, lam)
    free = active & ~zero_lam
    assert c.holds is _old_cone_test(p, a, lam)
    if free.sum() > n:
        assert c.holds is False and "a count" in c.data["detail"]
        d = c.data["witness"]
        assert np.linalg.norm(d) == pytest.approx(1.0)
        assert np.all(np.abs(J.T @ d) <= 1e-12 * np.linalg.norm(J, axis=0))
        assert np.all(d[~active] == 0.0) and np.all(d[active & zero_lam] >= 0.0)
        assert np.abs(d[free]).max() > 0.0
    else:
        assert "a count" not in str(c.data.get("detail", ""))


def test_a_counted_witness_that_fails_its_check_leaves_the_decision_to_the_lp(monkeypatch):
    """The count's kernel vector is checked coordinate by coordinate before it is a witness: one that fails (here a
    vector off the kernel, or NaN) is dropped, and the LP and rank test decide, with their own witness."""
    p = uni([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]], [0.0, 0.0, 0.0], F=[1.0, 1.0])
    for bad in (np.array([1.0, 0.0, 0.0]), np.full(3, np.nan)):
        monkeypatch.setattr(inst, "surplus_null_vector", lambda rows, bad=bad: bad)
        c = inst.unique_multipliers(p, np.zeros(2), np.array([0.5, 0.5, 0.5]))
        assert c.holds is False and "a count" not in c.data["detail"]
        assert np.abs(np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]]).T @ c.data["witness"]).max() < 1e-12


def test_bilateral_and_sticking_tangent_rows_are_counted():
    """A bilateral sticking contact's normal and tangent rows are free in sign: with an active unilateral row of
    nonzero multiplier, 3 free rows on 2 coordinates, decided by the count, the witness using the tangent row."""
    p = ContactProblem.from_blocks(
        np.eye(2), np.zeros(2), np.array([[0.0, 1.0], [1.0, 1.0]]), [0.0, 0.0], ["bilateral", "unilateral"],
        J_t=np.array([[1.0, 0.0], [1.0, -1.0]]), friction=[0.5, 0.0], modes=["sticking", "frictionless"], dimension=2,
    )  # fmt: skip
    c = inst.unique_multipliers(p, np.zeros(2), np.array([0.3, 0.7]))
    assert c.holds is False and "a count" in c.source
    assert np.abs(c.data["evidence"]["d_tangent"]).max() > 0.1


def test_an_inactive_row_is_not_free_whatever_its_multiplier():
    """Free means active with a nonzero multiplier: an inactive row keeps d_i = 0 even when the answer gives it a
    multiplier (here 2 free rows on 1 coordinate, the third row inactive with λ = 1)."""
    p = ContactProblem.from_blocks(
        np.eye(1), np.zeros(1), np.array([[1.0], [2.0], [1.0]]), [0.0, 0.0, 1.0], "unilateral"
    )
    c = inst.unique_multipliers(p, np.zeros(1), np.array([1.0, 1.0, 1.0]))
    assert c.holds is False and "a count" in c.source
    assert c.data["witness"][2] == 0.0 and abs(c.data["witness"][0] + 2.0 * c.data["witness"][1]) < 1e-15


@pytest.mark.parametrize("factor, counted", [(0.5, True), (2.0, False)])
def test_the_counted_witness_is_kept_within_the_round_off_allowance_only(monkeypatch, factor, counted):
    """The kernel vector is kept when ``|J_freeᵀ q|`` is within ``ROUND_OFF ‖column‖ ‖q‖`` in every coordinate: one
    moved off the kernel by half that allowance is the witness, one moved by twice that is not (the LP and rank test
    decide, with their own)."""
    from gaussqp.linalg.dense import surplus_null_vector
    from gaussqp.settings import ROUND_OFF

    J = np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
    p = uni(J, [0.0, 0.0, 0.0], F=[1.0, 1.0])
    q = surplus_null_vector(J)
    # a step along the first row's direction (unit, in the rows' span) moves coordinate 1 of Jᵀq by its own size
    col = np.linalg.norm(J, axis=0)
    off = q + factor * ROUND_OFF * col[1] * J[:, 1] / np.linalg.norm(J[:, 1]) ** 2
    monkeypatch.setattr(inst, "surplus_null_vector", lambda rows: off)
    c = inst.unique_multipliers(p, np.zeros(2), np.array([0.5, 0.5, 0.5]))
    assert c.holds is False and ("a count" in c.source) is counted


def test_the_count_does_not_ask_the_rows_rank(monkeypatch):
    """More multiplier rows than coordinates are dependent whatever their values: C2's rank (an SVD of all the rows)
    is not computed for the uniqueness decision."""

    def no_rank(problem):
        raise AssertionError("the rank was asked")

    monkeypatch.setattr(inst, "multiplier_row_rank", no_rank)
    p = uni([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]], [0.0, 0.0, 0.0], F=[1.0, 1.0])
    c = inst.unique_multipliers(p, np.zeros(2), np.array([0.5, 0.5, 0.5]))
    assert c.holds is False and c.data["evidence"]["d_normal"].shape == (3,)


def test_multiplier_rows_dense_and_sparse_with_sticking_tangent():
    Jn = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    Jt = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
    for sparse in (False, True):
        M = sp.identity(3, format="csr") if sparse else np.eye(3)
        p = ContactProblem.from_blocks(
            M,
            [0.0, 1.0, 1.0],
            sp.csr_matrix(Jn) if sparse else Jn,
            [0.0, 0.0],
            "unilateral",
            J_t=Jt,
            friction=[0.5, 0.5],
            modes=["frictionless", "sticking"],
        )
        J, rt = inst.multiplier_rows(p)
        assert rt.tolist() == [1] and sp.issparse(J) == sparse
        np.testing.assert_array_equal(np.asarray(J.todense() if sparse else J), [[0, 1, 0], [0, 0, 1], [1, 1, 0]])
    p = ContactProblem.from_blocks(np.eye(3), [0.0, 1.0, 1.0], Jn, [0.0, 0.0], "unilateral")
    J, rt = inst.multiplier_rows(p)
    assert J.shape == (2, 3) and rt.size == 0


# ----------------------------------------------------------------------------------------- coulomb_cone_check


def _sticking2d(mus, lam_types=None):
    cs = [
        Contact(t, normal=[0.0, 1.0], mode="sticking", friction=mu, tangent=[[1.0, 0.0]])
        for mu, t in zip(mus, lam_types or ["unilateral"] * len(mus))
    ]
    return ContactProblem(np.eye(2), [0.0, 1.0], cs, dimension=2)


def test_coulomb_none_without_sticking():
    p = uni([[0.0, 1.0]], [0.0])
    assert inst.coulomb_cone_check(p, np.array([1.0]), np.zeros((1, 1))) is None


def test_coulomb_disk_margin_is_smallest_gap():
    p = _sticking2d([0.5, 0.25])
    # gaps: 0.5 * 2 - 0.8 = 0.2 and 0.25 * 4 - |-0.9| = 0.1
    c = inst.coulomb_cone_check(p, np.array([2.0, 4.0]), np.array([[0.8], [-0.9]]))
    assert c.holds is True and c.margin == pytest.approx(0.1, rel=1e-12)
    assert "Coulomb disks" in c.name and "every sticking" in c.implies


def test_coulomb_negative_normal_uses_abs():
    p = _sticking2d([0.5], ["bilateral"])
    c = inst.coulomb_cone_check(p, np.array([-2.0]), np.array([[0.8]]))
    assert c.margin == pytest.approx(0.2, rel=1e-12) and c.holds is True


def test_coulomb_tolerance_is_on_the_data_multipliers():
    # M = I, F = (0, 1): force = 1, ‖(J S)_row‖∞ = 1, so λ_data = 1 for every row; contact scale μ·1 + 1
    p = _sticking2d([0.5])
    # scale 1.5: margin -1.4e-7 >= -1.5e-7 holds; -1.6e-7 fails, whatever the size of the answer
    assert inst.coulomb_cone_check(p, np.array([2.0]), np.array([[1.0 + 1.4e-7]])).holds is True
    c = inst.coulomb_cone_check(p, np.array([2.0]), np.array([[1.0 + 1.6e-7]]))
    assert c.holds is False and "does not refute sticking" in c.implies
    assert c.data["relative_slack"] == pytest.approx(-1.6e-7 / 1.5, rel=1e-6)
    # μ = 10: scale 11, margin -1e-6 >= -1.1e-6 holds
    p10 = _sticking2d([10.0])
    assert inst.coulomb_cone_check(p10, np.array([1.0]), np.array([[10.0 + 1e-6]])).holds is True
    # small multipliers are judged on the same data scale: λ = 0.1, margin -1.4e-7 holds, -1.6e-7 fails
    assert inst.coulomb_cone_check(p, np.array([0.1]), np.array([[0.05 + 1.4e-7]])).holds is True
    assert inst.coulomb_cone_check(p, np.array([0.1]), np.array([[0.05 + 1.6e-7]])).holds is False


def test_coulomb_enforced_model_message_and_2d_uses_disk():
    p = _sticking2d([0.5])
    c = inst.coulomb_cone_check(p, np.array([2.0]), np.array([[1.5]]), ConeModel("inner", 4))
    assert c.holds is False and c.implies == "the returned multipliers leave a cone"
    assert c.margin == pytest.approx(-0.5, rel=1e-12) and "Coulomb disks" in c.name


def _sticking3d(mu=0.5):
    c = Contact(
        "unilateral", normal=[0.0, 0.0, 1.0], mode="sticking", friction=mu, tangent=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    )
    return ContactProblem(np.eye(3), [0.0, 0.0, 1.0], [c], dimension=3)


def test_coulomb_3d_polygon_models():
    p = _sticking3d()
    lt = np.array([[0.6, 0.0]])
    # disk: 0.5 * 2 - 0.6 = 0.4
    assert inst.coulomb_cone_check(p, np.array([2.0]), lt).margin == pytest.approx(0.4, rel=1e-12)
    assert inst.coulomb_cone_check(p, np.array([2.0]), lt, ConeModel("disk")).margin == pytest.approx(0.4, rel=1e-12)
    # inner square (facets 4): normals at 45°, 135°, ...: max C z = 0.6 cos 45°; r = cos(π/4)
    c = inst.coulomb_cone_check(p, np.array([2.0]), lt, ConeModel("inner", 4))
    assert c.margin == pytest.approx(np.cos(np.pi / 4) * 1.0 - 0.6 * np.cos(np.pi / 4), rel=1e-12)
    assert "inner polygons (4 facets)" in c.name
    c = inst.coulomb_cone_check(p, np.array([2.0]), lt, ConeModel("outer", 4))
    assert c.margin == pytest.approx(1.0 - 0.6 * np.cos(np.pi / 4), rel=1e-12)
    c = inst.coulomb_cone_check(p, np.array([-2.0]), lt, ConeModel("outer", 4))
    assert c.margin == pytest.approx(1.0 - 0.6 * np.cos(np.pi / 4), rel=1e-12)


# ------------------------------------------------------------------------------------------------ guess_active


def test_guess_active_compares_dimensionless_multiplier_and_slack():
    p = _three_rows()  # unilateral weights (1, 2), force 2, row scales (2, 7)
    # λ̂ = λ w / force; ĝ = slack / row: row 1 slack 0.2 -> 0.1, λ 0.2 -> λ̂ 0.1 (equal: active)
    # row 2 slack 2 a1 + a2 - 1 = 0.7 -> 0.1, λ 0.1 -> λ̂ 0.1 (equal: active)
    a = np.array([0.75, 0.2])
    assert kkt.guess_active(p, a, np.array([9.0, 0.2, 0.1])).tolist() == [True, True]
    assert kkt.guess_active(p, a, np.array([9.0, 0.19, 0.09])).tolist() == [False, False]
    assert kkt.guess_active(p, a, np.array([9.0, 0.21, 0.0])).tolist() == [True, False]


def test_guess_active_zero_row():
    p = ContactProblem(
        np.eye(2),
        [0.0, 1.0],
        [Contact("unilateral", normal=[0.0, 0.0], normal_drift=0.0), Contact("unilateral", normal=[0.0, 1.0])],
    )
    assert kkt.guess_active(p, np.array([0.0, 0.5]), np.array([0.0, 0.0])).tolist() == [True, False]


def test_guess_active_no_unilateral_rows():
    p = ContactProblem(np.eye(2), [0.0, 1.0], [Contact("bilateral", normal=[0.0, 1.0])])
    assert kkt.guess_active(p, np.zeros(2), np.array([1.0])).shape == (0,)


# -------------------------------------------------------------------------------------------- equilibrated_kkt


def test_equilibrated_kkt_blocks():
    # M = diag(4, 1, 0.25): S = (1/2, 1, 2); bilateral (1, 0, 0) b = 1, sticking tangent (0, 0, 1),
    # unilateral rows (0, 3, 0) b = -2 and (0, 0, 1) b = 0.5, only the second active
    M = np.diag([4.0, 1.0, 0.25])
    cs = [
        Contact(
            "bilateral",
            normal=[1.0, 0.0, 0.0],
            normal_drift=1.0,
            mode="sticking",
            friction=0.5,
            tangent=[[0.0, 0.0, 1.0]],
            tangent_drift=[0.3],
        ),
        Contact("unilateral", normal=[0.0, 3.0, 0.0], normal_drift=-2.0),
        Contact("unilateral", normal=[0.0, 0.0, 1.0], normal_drift=0.5),
    ]
    p = ContactProblem(M, [0.0, 0.0, 0.0], cs, dimension=2)
    k = kkt.equilibrated_kkt(p, np.array([False, True]))
    J = np.array([[1.0, 0, 0], [0, 0, 1.0], [0, 0, 1.0]])
    np.testing.assert_array_equal(k.J, J)
    np.testing.assert_array_equal(k.c, [1.0, 0.3, 0.5])
    K = np.zeros((6, 6))
    K[:3, :3] = M
    K[:3, 3:] = -J.T
    K[3:, :3] = J
    np.testing.assert_array_equal(k.K, K)
    # weights ‖(J S)_i‖∞ = (1/2, 2, 2)
    np.testing.assert_allclose(k.d, [0.5, 1.0, 2.0, 2.0, 0.5, 0.5], rtol=1e-15)
    sc = data_scales(p)
    np.testing.assert_allclose(
        k.data_rows,
        np.concatenate([sc.dynamics_row, sc.normal_row[[0]], sc.tangent_row[[0]], sc.normal_row[[2]]]),
        rtol=1e-15,
    )


# --------------------------------------------------------------------------------------------------- polish


def test_polish_dense_moves_to_exact_solution():
    # M = I, F = (0, 1), a2 >= 0: a* = 0, λ* = 1
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    s = sol_of(p, [1e-4, 1e-6], [0.99])
    polmod.polish(s)
    np.testing.assert_allclose(s.acceleration, [0.0, 0.0], atol=1e-14)
    np.testing.assert_allclose(s.lambda_normal, [1.0], rtol=1e-13)
    pol = s.extras["polished"]
    assert pol["active_rows"] == 1 and pol["max_residual_after"] < pol["max_residual_before"]
    assert pol["max_residual_after"] < 1e-13


def test_polish_with_bilateral_row_and_sticking_tangent():
    # a1 + 1 = 0 (bilateral), sticking tangent a3 = 0, a2 >= 0 with F = (0, 2, 3): a* = (-1, 0, 0),
    # λ = (M a + F) by row: λ_b = -1, λ_u = 2, λ_t = 3
    cs = [
        Contact(
            "bilateral",
            normal=[1.0, 0.0, 0.0],
            normal_drift=1.0,
            mode="sticking",
            friction=5.0,
            tangent=[[0.0, 0.0, 1.0]],
        ),
        Contact("unilateral", normal=[0.0, 1.0, 0.0]),
    ]
    p = ContactProblem(np.eye(3), [0.0, 2.0, 3.0], cs, dimension=2)
    s = sol_of(p, [-1.0 + 1e-5, 1e-6, 1e-5], [-0.9, 2.1], lam_t=[[2.9], [0.0]])
    polmod.polish(s)
    np.testing.assert_allclose(s.acceleration, [-1.0, 0.0, 0.0], atol=1e-13)
    np.testing.assert_allclose(s.lambda_normal, [-1.0, 2.0], rtol=1e-12)
    np.testing.assert_allclose(s.lambda_tangent, [[3.0], [0.0]], rtol=1e-12)


def test_polish_redundant_rows_uses_nonnegative_multipliers():
    # rows (1,0), (0,1), (1,1), all active at a = 0, F = (1, 0): the min-norm λ is (2/3, -1/3, 1/3);
    # the nonnegative one is (1, 0, 0) (λ1 + λ3 = 1, λ2 + λ3 = 0)
    p = uni([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [0.0, 0.0, 0.0], F=[1.0, 0.0])
    s = sol_of(p, [0.0, 0.0], [0.9, 0.0, 0.0])
    polmod.polish(s)
    np.testing.assert_allclose(s.lambda_normal, [1.0, 0.0, 0.0], atol=1e-12)
    assert s.extras["polished"]["active_rows"] == 3


def test_polish_keeps_answer_when_not_better():
    # F = (0, -1): a* = (0, 1), λ = 0; at a = 0 with λ = 0 the row is guessed active and its λ would be -1
    for sparse in (False, True):
        p = uni([[0.0, 1.0]], [0.0], F=[0.0, -1.0], sparse=sparse)
        s = sol_of(p, [0.0, 0.0], [0.0])
        polmod.polish(s)
        assert "polished" not in s.extras
        np.testing.assert_array_equal(s.acceleration, [0.0, 0.0])


def test_polish_sparse_kkt():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0], sparse=True)
    s = sol_of(p, [1e-4, 1e-6], [0.99])
    polmod.polish(s)
    np.testing.assert_allclose(s.acceleration, [0.0, 0.0], atol=1e-14)
    np.testing.assert_allclose(s.lambda_normal, [1.0], rtol=1e-13)
    assert s.extras["polished"]["active_rows"] == 1


def test_polish_without_acceleration_does_nothing():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    s = sol_of(p, None, None, status=INFEASIBLE)
    polmod.polish(s)
    assert s.acceleration is None and not s.extras


def test_sparse_kkt_solve_singular_and_regular():
    M = sp.identity(2, format="csr")
    J = sp.csr_matrix(np.array([[0.0, 1.0]]))
    z = kkt.sparse_kkt_solve(M, J, np.array([0.0, -1.0, 0.0]))
    np.testing.assert_allclose(z, [0.0, 0.0, 1.0], atol=1e-15)  # a = 0, λ = 1: M a - Jᵀλ = -F
    J2 = sp.csr_matrix(np.array([[0.0, 1.0], [0.0, 1.0]]))
    assert kkt.sparse_kkt_solve(M, J2, np.array([0.0, -1.0, 0.0, 0.0])) is None


# ---------------------------------------------------------------------------------------------- forward_error


def test_forward_error_exact_answer_is_small():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    c = inst.forward_error(p, np.zeros(2), np.array([1.0]), np.zeros((1, 1)))
    assert c.id == "forward_error" and c.holds is None
    assert c.margin < 1e-14 and c.data["active_rows"] == 1
    assert c.data["condition"] == pytest.approx((1 + 5**0.5) / 2 / ((5**0.5 - 1) / 2), rel=1e-12)


def test_forward_error_measures_acceleration_offset():
    # M = I, F = (0, 1), a2 >= 0; answer a = (1e-3, 0), λ = 1: the Newton step is exactly -1e-3 in a1;
    # relative to max(|ã| = 1e-3, free acceleration 1) = 1
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    c = inst.forward_error(p, np.array([1e-3, 0.0]), np.array([1.0]), np.zeros((1, 1)))
    assert c.data["acceleration"] == pytest.approx(1e-3, rel=1e-9)
    assert c.margin == pytest.approx(1e-3, rel=1e-9)


def test_forward_error_measures_multiplier_offset():
    # λ = 1.002: step 0.002 in λ; err_l = 0.002 (accel / force = 1) / max(accel 1, zmag 1.002)
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    c = inst.forward_error(p, np.zeros(2), np.array([1.002]), np.zeros((1, 1)))
    assert c.data["multipliers"] == pytest.approx(0.002 / 1.002, rel=1e-9)
    assert c.data["acceleration"] < 1e-14
    assert c.margin == pytest.approx(0.002 / 1.002, rel=1e-9)


def test_forward_error_scaled_units():
    # M = diag(4, 1/4): S = (1/2, 2); F = (0, 0.5): S F = (0, 1); free ã = M̃⁻¹ S F = (0, 1): accel 1; force 1;
    # a2 >= 0 has weight ‖(J S)‖∞ = 2. Answer a = (2e-3, 0) (ã1 = 4e-3), λ = 2 (λ̂ = 4? no: exact λ = 0.5)
    p = uni([[0.0, 1.0]], [0.0], M=np.diag([4.0, 0.25]), F=[0.0, 0.5])
    c = inst.forward_error(p, np.array([2e-3, 0.0]), np.array([0.5]), np.zeros((1, 1)))
    assert c.data["acceleration"] == pytest.approx(4e-3, rel=1e-9)
    c = inst.forward_error(p, np.zeros(2), np.array([0.5 + 1e-3]), np.zeros((1, 1)))
    # step 1e-3 in λ, λ̃ = λ w = 2 λ: 2e-3 / force 1 * accel 1, over max(accel 1, zmag 1.002)
    assert c.data["multipliers"] == pytest.approx(2e-3 / 1.002, rel=1e-9)


def test_forward_error_at_rest_uses_free_acceleration_and_tiny():
    # no load, no drift: accel = force = 1 by convention, free acceleration 0; a = 0 exact
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 0.0])
    c = inst.forward_error(p, np.array([1e-3, 0.0]), np.array([0.0]), np.zeros((1, 1)))
    # amag = max(1e-3, 0, tiny) = 1e-3: relative error 1
    assert c.data["acceleration"] == pytest.approx(1.0, rel=1e-9)


def test_forward_error_redundant_rows_keep_finite_condition():
    # two identical active rows: K̃ singular, rows dependent: the deficit (1) equals k - rank(J) (1)
    p = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 0.0], F=[0.0, 1.0])
    c = inst.forward_error(p, np.zeros(2), np.array([0.5, 0.5]), np.zeros((2, 1)))
    assert np.isfinite(c.data["condition"]) and c.data["row_rank"] == 1 and c.data["active_rows"] == 2
    assert c.margin < 1e-13


def test_forward_error_singular_kkt_with_independent_rows_is_infinite():
    # M definite, K̃ numerically singular (σ_min ~ 1e-14) with rows (1, 0), (1, 1e-7) independent at the
    # library's rank rule (1e-10): the step says nothing, condition infinite
    p = uni([[1.0, 0.0], [1.0, 1e-7]], [0.0, 0.0], F=[1.0, 0.0])
    c = inst.forward_error(p, np.zeros(2), np.array([0.5, 0.5]), np.zeros((2, 1)))
    assert c.data["row_rank"] == 2 and c.data["condition"] == float("inf") and c.margin == float("inf")
    # rows (1, 0), (1, 1e-13): dependent at the rank rule, a legitimate redundancy
    p = uni([[1.0, 0.0], [1.0, 1e-13]], [0.0, 0.0], F=[1.0, 0.0])
    c = inst.forward_error(p, np.zeros(2), np.array([0.5, 0.5]), np.zeros((2, 1)))
    K = np.array([[1.0, 0, -1, -1], [0, 1, 0, -1e-13], [1, 0, 0, 0], [1, 1e-13, 0, 0]])
    sv = np.linalg.svd(K, compute_uv=False)
    assert c.data["row_rank"] == 1 and c.data["condition"] == pytest.approx(sv[0] / sv[2], rel=1e-9)
    assert c.margin < 1e-12


def test_forward_error_none_for_sparse_or_large(monkeypatch):
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0], sparse=True)
    assert inst.forward_error(p, np.zeros(2), np.array([1.0]), np.zeros((1, 1))) is None
    # n + m d <= FORWARD_ERROR_MAX: at the limit computed, beyond it None (limit lowered to keep this fast)
    monkeypatch.setattr(inst, "FORWARD_ERROR_MAX", 4)
    for n, ok in ((2, True), (3, False)):
        J = np.zeros((1, n))
        J[0, 1] = 1.0
        F = np.zeros(n)
        F[1] = 1.0
        p = ContactProblem.from_blocks(np.eye(n), F, J, [0.0], "unilateral")
        c = inst.forward_error(p, np.zeros(n), np.array([1.0]), np.zeros((1, 1)))
        assert (c is not None) is ok


def test_forward_error_default_limit_is_1000():
    n = 1001  # n + m d = 1001 > 1000
    p = ContactProblem.from_blocks(np.eye(n), np.ones(n), np.zeros((0, n)), None, [])
    assert inst.forward_error(p, -np.ones(n), np.zeros(0), np.zeros((0, 1))) is None


# ---------------------------------------------------------------------------------------------------- finalize


def test_finalize_exact_answer_stays_solved():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    s = judge.finalize(sol_of(p, [0.0, 0.0], [1.0]), HIGH)
    assert s.status == SOLVED and s.message == ""
    ids = [c.id for c in s.certificates]
    assert ids == ["kkt_residuals", "backward_error", "unique_acceleration", "unique_multipliers", "forward_error"]
    assert all(c.holds for c in s.certificates)
    kk = s.certificate("kkt_residuals")
    assert kk.margin == pytest.approx(1e-6 - max(s.residuals.values()), abs=1e-20)
    assert set(kk.data) == {"dynamics", "primal", "dual", "complementarity"}
    assert s.unique == {"acceleration": True, "generalized_force": True, "multipliers": True}
    fe = s.certificate("forward_error")
    assert fe.margin > 1e-6 - 1e-14


def test_finalize_downgrades_bad_answer():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    s = sol_of(p, [0.0, 0.0], [0.5], polish=False)  # dynamics residual 0.5
    s.message = "backend ok"
    judge.finalize(s, HIGH)
    assert s.status == INACCURATE and "polished" not in s.extras
    assert s.message.startswith("backend ok; solver claimed success but max residual")
    assert s.certificate("kkt_residuals").holds is False


def test_finalize_polishes_by_default():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    s = judge.finalize(sol_of(p, [1e-4, 1e-6], [0.99]), HIGH)
    assert "polished" in s.extras and s.status == SOLVED


def test_finalize_inaccurate_answer_keeps_status():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    s = judge.finalize(sol_of(p, [0.0, 0.0], [0.5], status=INACCURATE, polish=False), HIGH)
    assert s.status == INACCURATE and s.message == ""


def test_finalize_enforced_cone_violation_downgrades():
    p = _sticking2d([0.5])  # a2 >= 0 with F = (0, 1) and sticking a1 = 0: a* = 0, λ_n = 1, λ_t = 0
    s = sol_of(p, [0.0, 0.0], [1.0], lam_t=[[0.0]], cones_enforced=ConeModel("disk"))
    # a λ_t leaving the disk that still satisfies the dynamics needs F1 = λ_t: use F = (1, 1)
    p = ContactProblem(
        np.eye(2),
        [1.0, 1.0],
        [Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])],
        dimension=2,
    )
    s = sol_of(p, [0.0, 0.0], [1.0], lam_t=[[1.0]], cones_enforced=ConeModel("disk"), polish=False)
    judge.finalize(s, HIGH)
    assert s.status == INACCURATE and s.message == "multipliers leave the disk cones by 5.00e-01"
    assert s.certificate("coulomb_cones").holds is False
    assert s.certificate("forward_error") is None  # cones enforced: no Newton step
    # not enforced: the same violation is reported but does not downgrade
    s = judge.finalize(sol_of(p, [0.0, 0.0], [1.0], lam_t=[[1.0]], polish=False), HIGH)
    assert s.status == SOLVED and s.certificate("coulomb_cones").holds is False
    assert s.certificate("forward_error") is not None


def test_finalize_ill_conditioned_downgrades(monkeypatch):
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    fake = Certificate(
        id="forward_error",
        source="x",
        holds=None,
        margin=2e-6,
        implies="x",
        data={
            "condition": 3e12,
            "acceleration": 2e-6,
            "forces": 0.0,
            "multipliers": 0.0,
            "contact_force_errors": np.zeros(1),
        },
    )
    monkeypatch.setattr(judge, "forward_error", lambda *a, **k: fake)
    s = judge.finalize(sol_of(p, [0.0, 0.0], [1.0]), HIGH)
    assert s.status == INACCURATE
    assert s.message == (
        "residuals are small but the problem is ill-conditioned (cond 3.0e+12): "
        "the acceleration may be 2.0e-06 (relative) from the exact one"
    )
    fe = s.certificate("forward_error")
    assert fe.holds is False and fe.margin == pytest.approx(1e-6 - 2e-6)
    assert s.certified_quantities == {"acceleration": False, "forces": True}
    fake2 = Certificate(
        id="forward_error",
        source="x",
        holds=None,
        margin=1e-6,
        implies="x",
        data={
            "condition": 1.0,
            "acceleration": 1e-6,
            "forces": 1e-6,
            "multipliers": 0.0,
            "contact_force_errors": np.full(1, 1e-6),
        },
    )
    monkeypatch.setattr(judge, "forward_error", lambda *a, **k: fake2)
    s = judge.finalize(sol_of(p, [0.0, 0.0], [1.0]), HIGH)
    assert s.status == SOLVED and s.certificate("forward_error").holds is True


def test_finalize_sliding_returns_before_uniqueness():
    c = Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.5, tangent=[[1.0, 0.0]], slip=[1.0])
    p = ContactProblem(np.eye(2), [0.0, 1.0], [c], dimension=2)
    # a* = (-0.5, 0), λ_n = 1, λ_t = -0.5
    s = judge.finalize(sol_of(p, [-0.5, 0.0], [1.0], lam_t=[[-0.5]]), HIGH)
    assert s.status == SOLVED
    assert [c.id for c in s.certificates] == ["kkt_residuals", "backward_error"]
    assert s.backward_error["forces"] == 0.0 and s.backward_error["drifts"] == 0.0
    assert s.unique == {"acceleration": None, "generalized_force": None, "multipliers": None}


def test_finalize_undecided_uniqueness_is_none(monkeypatch):
    def boom(*a, **k):
        raise UndecidedError("x")

    monkeypatch.setattr(inst, "cone_is_trivial", boom)
    p = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 0.0], M=np.diag([1.0, 0.0]) + np.diag([0.0, 0.0]), F=[0.0, 1.0])
    s = judge.finalize(sol_of(p, [0.0, 0.0], [0.5, 0.5], polish=False), HIGH)
    assert s.unique == {"acceleration": None, "generalized_force": True, "multipliers": None}


def test_finalize_uniqueness_false():
    p = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 0.0], M=np.diag([1.0, 0.0]), F=[0.0, 1.0])
    # a* = (0, a2 = 0) since F2 = 1 pushes into the rows; a1 = 0; multipliers λ1 + λ2 = 1 (not unique)
    s = judge.finalize(sol_of(p, [0.0, 0.0], [0.5, 0.5], polish=False), HIGH)
    assert s.unique == {"acceleration": True, "generalized_force": True, "multipliers": False}
    q = uni([[0.0, 1.0]], [0.0], M=np.diag([1.0, 0.0]), F=[0.0, 0.0])  # a2 >= 0 free at zero cost
    s = judge.finalize(sol_of(q, [0.0, 0.0], [0.0], polish=False), HIGH)
    assert s.unique["acceleration"] is False


def test_finalize_coulomb_farkas_and_sliding_enumeration_and_f1():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    s = sol_of(p, None, None, status=INFEASIBLE)
    s.certificates.append(Certificate(id="coulomb_farkas", source="x", holds=True, margin=0.25, implies="x"))
    judge.finalize(s, HIGH)
    assert s.status == INFEASIBLE and s.residuals == {"coulomb_farkas_violation": -0.25}
    assert s.unique == {"acceleration": None, "generalized_force": None, "multipliers": None}
    s = sol_of(p, None, None, status=INFEASIBLE)
    s.certificates.append(Certificate(id="sliding_enumeration", source="x", holds=True, margin=1.0, implies="x"))
    s.residuals = {"x": 1.0}
    judge.finalize(s, HIGH)
    assert s.status == INFEASIBLE and s.residuals == {}
    s = sol_of(p, None, None, status=UNBOUNDED, verified_by_f1=True)
    s.unique = {"acceleration": True}
    judge.finalize(s, HIGH)
    assert s.status == UNBOUNDED and s.unique == {"acceleration": None, "generalized_force": None, "multipliers": None}
    assert s.certificates == []


def test_finalize_unverified_coulomb_farkas_falls_through_to_failed():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])  # feasible and bounded
    s = sol_of(p, None, None, status=INFEASIBLE)
    s.certificates.append(Certificate(id="coulomb_farkas", source="x", holds=False, margin=-1.0, implies="x"))
    s.message = "m"
    judge.finalize(s, HIGH)
    assert s.status == FAILED
    assert s.message == "m; backend reported infeasible but neither a Farkas vector nor a descent ray could be verified"
    assert s.unique == {"acceleration": None, "generalized_force": None, "multipliers": None}


def test_finalize_verifies_infeasible_claim():
    p = uni([[1.0], [-1.0]], [-3.0, -1.0])
    s = sol_of(p, [0.0], [1.0, 1.0], status=UNBOUNDED)
    judge.finalize(s, HIGH)
    assert s.status == INFEASIBLE and s.certificate("farkas").holds is True
    assert s.residuals == {"farkas_stationarity": s.certificate("farkas").data["stationarity"]}
    assert s.acceleration is None and s.lambda_normal is None and s.lambda_tangent is None
    s = sol_of(p, None, None, status=FAILED)  # a failure is not a claim: nothing is verified
    judge.finalize(s, HIGH)
    assert s.status == FAILED and s.certificates == []


def test_finalize_verifies_unbounded_claim():
    p = ContactProblem(np.diag([1.0, 0.0]), [0.0, 1.0], [], dimension=2)
    s = sol_of(p, [0.0, 0.0], np.zeros(0), status=INFEASIBLE)
    judge.finalize(s, HIGH)
    assert s.status == UNBOUNDED and s.certificate("unbounded_ray").holds is True
    assert s.residuals == {"ray_violation": 0.0}
    assert s.acceleration is None and s.lambda_normal is None


def test_finalize_rejected_certificates_fail(monkeypatch):
    p = uni([[1.0], [-1.0]], [-3.0, -1.0])
    monkeypatch.setattr(inst, "farkas_vector", lambda E, e, G, g: np.array([1.0, 0.5]))  # not stationary
    s = sol_of(p, None, None, status=INFEASIBLE)
    judge.finalize(s, HIGH)
    assert s.status == FAILED and s.message.startswith("backend reported infeasible but")
    q = ContactProblem(np.diag([1.0, 0.0]), [0.0, 1.0], [], dimension=2)
    monkeypatch.setattr(inst, "farkas_vector", lambda E, e, G, g: None)
    monkeypatch.setattr(inst, "unbounded_ray", lambda R, F, E, G: np.array([0.0, 1.0]))  # ascent
    s = sol_of(q, None, None, status=UNBOUNDED)
    judge.finalize(s, HIGH)
    assert s.status == FAILED and s.certificates == []


# ================================================================ second round: survivors of the first mutation run


def test_roundoff_rows_single_coordinate():
    # n = 1: the factor is max(n, 1) = 1
    np.testing.assert_allclose(
        inst._roundoff_rows(np.array([[3.0]]), np.array([-2.0])), [1000.0 * EPS * 6.0], rtol=1e-14
    )


def test_ray_with_bilateral_row_exactly_satisfied():
    # M = diag(1, 0, 0), F = (0, 1, 0), a2 + a3 = 0 (bilateral): v = (0, -1, 1) with E v = 0 but |E||v| = 2 > 0
    p = ContactProblem(
        np.diag([1.0, 0.0, 0.0]), [0.0, 1.0, 0.0], [Contact("bilateral", normal=[0.0, 1.0, 1.0])], dimension=2
    )
    c = inst.verify_ray(p)
    assert c.holds is True and c.data["violation"] == 0.0
    np.testing.assert_allclose(c.data["ray"], [0.0, -1.0, 1.0], atol=1e-12)


def test_ray_with_unilateral_row_exactly_tight():
    # a2 + a3 >= 0: the ray (0, -1, 1) has G v = 0 (tight) with |G||v| = 2
    p = uni([[0.0, 1.0, 1.0]], [0.0], M=np.diag([1.0, 0.0, 0.0]), F=[0.0, 1.0, 0.0])
    c = inst.verify_ray(p)
    assert c.holds is True and c.data["violation"] == 0.0


def test_coulomb_boundary_is_inclusive():
    # μ = 0, λ_n = 0 (bilateral), |λ_t| = 1e-7: the contact's data scale is 0·1 + 1 = 1, relative slack -1e-7
    # equals the bound exactly
    p = _sticking2d([0.0], ["bilateral"])
    c = inst.coulomb_cone_check(p, np.array([0.0]), np.array([[1e-7]]))
    assert c.margin == -1e-7 and c.holds is True


from gaussqp.linalg import dense as _dense  # noqa: E402
from gaussqp.linalg import kkt as linalg_kkt  # noqa: E402  (the sparse KKT solve, pure linear algebra)

_REAL_SPLU = _dense.symmetric_splu


def _fake_splu(monkeypatch, perturb):
    real = _REAL_SPLU

    class Fake:
        def __init__(self, K):
            self.lu = real(K)

        def solve(self, rhs):
            return perturb(self.lu.solve(rhs))

    monkeypatch.setattr(linalg_kkt, "symmetric_splu", Fake)


def test_sparse_kkt_solve_verifies_the_lu_answer(monkeypatch):
    """The normwise backward error ‖Kz − rhs‖∞ <= 1e-9 ‖|K||z| + |rhs|‖∞ (the solve's own terms, no floor of 1)."""
    M = sp.identity(2, format="csr")
    J = sp.csr_matrix(np.array([[0.0, 1.0]]))
    rhs = np.array([0.0, -1.0, 0.0])  # z = (0, 0, 1): terms (0, 2, 0), bound 2e-9
    _fake_splu(monkeypatch, lambda z: z + np.array([2.5e-9, 0.0, 0.0]))
    assert kkt.sparse_kkt_solve(M, J, rhs) is None
    _fake_splu(monkeypatch, lambda z: z + np.array([1.5e-9, 0.0, 0.0]))
    assert kkt.sparse_kkt_solve(M, J, rhs) is not None
    _fake_splu(monkeypatch, lambda z: z + np.array([np.nan, 0.0, 0.0]))
    assert kkt.sparse_kkt_solve(M, J, rhs) is None
    rhs4 = np.array([0.0, -4.0, 0.0])  # terms (0, 8, 0): bound 8e-9
    _fake_splu(monkeypatch, lambda z: z + np.array([7e-9, 0.0, 0.0]))
    assert kkt.sparse_kkt_solve(M, J, rhs4) is not None
    _fake_splu(monkeypatch, lambda z: z + np.array([9e-9, 0.0, 0.0]))
    assert kkt.sparse_kkt_solve(M, J, rhs4) is None
    # in small units the bound follows: a 50 % error at rhs 1e-9 is refused (the old floor max(1, |rhs|) took it)
    tiny = np.array([0.0, -1e-9, 0.0])
    _fake_splu(monkeypatch, lambda z: z + np.array([0.5e-9, 0.0, 0.0]))
    assert kkt.sparse_kkt_solve(M, J, tiny) is None


def test_polish_exact_answer_is_not_marked():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    s = sol_of(p, [0.0, 0.0], [1.0])
    polmod.polish(s)
    assert "polished" not in s.extras  # not lower: nothing to report


def test_polish_sparse_negative_multiplier_is_refused_dense_recovers():
    # F = (0, -1): a* = (0, 1), λ* = 0. From a = 0, λ = 0.5 the row is guessed active; its KKT multiplier is -1.
    # Sparse LU: refused (nonsingular K, unique multipliers). Dense: bounded least squares gives λ = 0,
    # which lowers the residual (the dynamics of (0, 0.5) are off by 1.5, of λ = 0 by 1)
    q = uni([[0.0, 1.0]], [0.0], F=[0.0, -1.0], sparse=True)
    s = sol_of(q, [0.0, 0.0], [0.5])
    polmod.polish(s)
    assert "polished" not in s.extras and s.lambda_normal[0] == 0.5
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, -1.0])
    s = sol_of(p, [0.0, 0.0], [0.5])
    polmod.polish(s)
    assert "polished" in s.extras and s.lambda_normal[0] == pytest.approx(0.0, abs=1e-14)


def test_polish_sparse_small_positive_multiplier():
    # λ* = 0.5 (< 1): accepted by the sparse path
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 0.5], sparse=True)
    s = sol_of(p, [1e-4, 1e-6], [0.49])
    polmod.polish(s)
    assert "polished" in s.extras and s.lambda_normal[0] == pytest.approx(0.5, rel=1e-13)


def test_polish_size_limits(monkeypatch):
    monkeypatch.setattr(polmod, "POLISH_MAX", 4)
    # dense n + m = 4: polished; n + m = 5: not
    p = uni([[0.0, 1.0], [1.0, 1.0]], [0.0, 1.0], F=[0.0, 1.0])
    s = sol_of(p, [1e-4, 1e-6], [0.99, 0.0])
    polmod.polish(s)
    assert "polished" in s.extras
    p = uni([[0.0, 1.0], [1.0, 1.0], [1.0, 2.0]], [0.0, 1.0, 1.0], F=[0.0, 1.0])
    s = sol_of(p, [1e-4, 1e-6], [0.99, 0.0, 0.0])
    polmod.polish(s)
    assert "polished" not in s.extras
    # sparse: the LU path runs at any size
    p = uni([[0.0, 1.0], [1.0, 1.0], [1.0, 2.0]], [0.0, 1.0, 1.0], F=[0.0, 1.0], sparse=True)
    s = sol_of(p, [1e-4, 1e-6], [0.99, 0.0, 0.0])
    polmod.polish(s)
    assert "polished" in s.extras
    # sparse with dependent active rows (K singular): the dense fallback is limited too
    p = uni([[0.0, 1.0], [0.0, 1.0], [1.0, 2.0]], [0.0, 0.0, 1.0], F=[0.0, 1.0], sparse=True)
    s = sol_of(p, [0.0, 0.0], [0.4, 0.4, 0.0])
    polmod.polish(s)
    assert "polished" not in s.extras
    monkeypatch.setattr(polmod, "POLISH_MAX", 5)
    # its point is kept per problem and active set: a fresh store computes it again under this limit
    monkeypatch.setattr(polmod, "POINTS", kkt.ActiveSetMemo())
    s = sol_of(p, [0.0, 0.0], [0.4, 0.4, 0.0])
    polmod.polish(s)
    assert "polished" in s.extras and sum(s.lambda_normal[:2]) == pytest.approx(1.0, rel=1e-12)


def test_polish_dense_scaled_coordinates():
    # M = diag(4, 1/4), F = (0, 0.5), a2 >= 0: a* = 0, λ* = 0.5; the equilibration d = (S, 1/w) is not 1
    p = uni([[0.0, 1.0]], [0.0], M=np.diag([4.0, 0.25]), F=[0.0, 0.5])
    s = sol_of(p, [1e-4, 1e-5], [0.49])
    polmod.polish(s)
    np.testing.assert_allclose(s.acceleration, [0.0, 0.0], atol=1e-14)
    assert s.lambda_normal[0] == pytest.approx(0.5, rel=1e-13)


def test_polish_refuses_inconsistent_active_rows():
    # rows a2 >= 0 and a2 >= 1, both guessed active (large multipliers): the equality system a2 = 0, a2 = 1 has
    # no solution; its least-squares point must not be taken
    p = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, -1.0], F=[0.0, 1.0])
    s = sol_of(p, [0.0, 1.0], [1.0, 1.0], polish=False)
    polmod.polish(s)
    assert "polished" not in s.extras and s.acceleration.tolist() == [0.0, 1.0]


def test_polish_redundant_rows_with_bilateral_row():
    # bilateral a1 = 0 with multiplier -2 (F1 = -2); unilateral (0,1,0), (0,0,1), (0,1,1) active at a = 0 with
    # F = (-2, 1, 0): min-norm unilateral λ = (2/3, -1/3, 1/3) (negative), the nonnegative one (1, 0, 0)
    cs = [Contact("bilateral", normal=[1.0, 0, 0])] + [
        Contact("unilateral", normal=n) for n in ([0, 1.0, 0], [0, 0, 1.0], [0, 1.0, 1.0])
    ]
    p = ContactProblem(np.eye(3), [-2.0, 1.0, 0.0], cs, dimension=2)
    s = sol_of(p, [0.0, 0.0, 0.0], [-1.9, 0.9, 0.0, 0.0])
    polmod.polish(s)
    assert "polished" in s.extras
    np.testing.assert_allclose(s.lambda_normal, [-2.0, 1.0, 0.0, 0.0], atol=1e-12)


def test_forward_error_scaled_coordinates_relative_to_answer():
    # M = diag(4, 1/4): S = (1/2, 2); bilateral a1 = 10 (row (1, 0), b = -10), F = 0: ã = a / S;
    # accel = drift 10 / ‖(J S)‖ = 20; exact a = (10, 0), λ = 40. Offset a2 by 1e-3: ã2 = 5e-4, relative to
    # amag = max(|ã| = 20, free 0) = 20
    p = ContactProblem(np.diag([4.0, 0.25]), [0.0, 0.0], [Contact("bilateral", normal=[1.0, 0.0], normal_drift=-10.0)])
    c = inst.forward_error(p, np.array([10.0, 1e-3]), np.array([40.0]), np.zeros((1, 1)))
    assert c.data["acceleration"] == pytest.approx(5e-4 / 20.0, rel=1e-9)


def test_forward_error_force_and_accel_differ():
    # M = [[1, .5], [.5, 1]] (S = 1, λ_max(M̃) = 1.5), bilateral a1 = 2 (b = -2), F = 0: accel = 2, force = 3;
    # exact a = (2, -1) (0.5 a1 + a2 = 0), λ = 2 - 0.5 = 1.5. Answer λ = 6: step 4.5;
    # zmag = max(|ã| = 2, 6 / force * accel = 4) = 4; err_l = 4.5 * accel / force / max(accel, zmag) = 0.75
    p = ContactProblem(
        np.array([[1.0, 0.5], [0.5, 1.0]]), [0.0, 0.0], [Contact("bilateral", normal=[1.0, 0.0], normal_drift=-2.0)]
    )
    c = inst.forward_error(p, np.array([2.0, -1.0]), np.array([6.0]), np.zeros((1, 1)))
    assert c.data["multipliers"] == pytest.approx(0.75, rel=1e-9)
    assert c.data["acceleration"] < 1e-13
    c = inst.forward_error(p, np.array([2.0, -1.0]), np.array([1.5 + 0.3]), np.zeros((1, 1)))
    # zmag = max(2, 1.8 / 3 * 2) = 2: err_l = 0.3 * 2 / 3 / 2
    assert c.data["multipliers"] == pytest.approx(0.1, rel=1e-9)


def test_forward_error_small_scale_problem():
    # F = (0, 0.01): accel = force = 0.01; λ* = 0.01; answer λ = 0.01 + 1e-5: err_l = 1e-5 / max(0.01, 0.01001)
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 0.01])
    c = inst.forward_error(p, np.zeros(2), np.array([0.01 + 1e-5]), np.zeros((1, 1)))
    assert c.data["multipliers"] == pytest.approx(1e-5 / 0.01001, rel=1e-7)


def test_forward_error_exact_answer_is_the_roundoff_term():
    # exact answer: the step is 0; the estimate is the round-off (n + k) eps cond zmag with cond = φ², zmag = 1
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    c = inst.forward_error(p, np.zeros(2), np.array([1.0]), np.zeros((1, 1)))
    phi2 = ((1 + 5**0.5) / 2) ** 2
    assert c.data["acceleration"] == pytest.approx(3 * EPS * phi2, rel=1e-9, abs=0)
    assert c.data["multipliers"] == pytest.approx(3 * EPS * phi2, rel=1e-9, abs=0)
    assert c.data["row_rank"] is None and c.data["active_rows"] == 1


def test_forward_error_without_rows():
    # M = I, F = (0, 1), no rows: K̃ = I, cond 1; exact a = (0, -1)
    p = ContactProblem(np.eye(2), [0.0, 1.0], [], dimension=2)
    c = inst.forward_error(p, np.array([0.0, -1.0]), np.zeros(0), np.zeros((0, 1)))
    assert c.data["condition"] == 1.0 and c.data["active_rows"] == 0 and c.data["row_rank"] is None
    assert c.data["multipliers"] == pytest.approx(2 * EPS, rel=1e-9, abs=0)


def test_forward_error_at_rest_exact():
    # no load, no drift, a = 0 exact: 0 / max(0, 0, tiny) = 0, not 0 / 0
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 0.0])
    c = inst.forward_error(p, np.zeros(2), np.array([0.0]), np.zeros((1, 1)))
    assert c.data["acceleration"] == 0.0 and c.margin == 0.0


def test_unique_multipliers_margins_and_data():
    p = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 1.0], F=[0.0, 1.0])
    c = inst.unique_multipliers(p, np.zeros(2), np.array([1.0, 0.0]))
    assert c.holds is True and isinstance(c.margin, float) and c.margin > 0
    assert set(c.data) == {"active_tolerance", "zero_multiplier_tolerance", "witness", "detail"}
    q = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 0.0], F=[0.0, 1.0])
    c = inst.unique_multipliers(q, np.zeros(2), np.array([0.5, 0.5]))
    assert c.holds is False and c.margin <= 0 and isinstance(c.data["detail"], str)


def test_unique_acceleration_data_keys():
    c = inst.unique_acceleration(_singular_two_rows(), np.zeros(3), np.array([1.0, 1.0]))
    assert set(c.data) == {
        "active_tolerance",
        "witness",
        "detail",
        "kernel_dimension",
        "kernel_angle",
        "rows_zero_on_kernel",
        "equality_kernel_dimension",
    } and isinstance(c.data["detail"], str)


def _texts(c):
    return (c.id, c.name, c.source, c.implies)


def test_certificate_texts():
    """The user-facing text of every instance certificate (it goes to the JSON output)."""
    far = inst.verify_farkas(uni([[1.0], [-1.0]], [-3.0, -1.0]))
    assert _texts(far) == (
        "farkas",
        "Farkas vector for an empty constraint set",
        "DESIGN.md §4.2 (instance); tutorial Assumption 4; Farkas' lemma",
        "no acceleration satisfies the bilateral and unilateral constraints: the contact problem is infeasible",
    )
    ray = inst.verify_ray(ContactProblem(np.diag([1.0, 0.0]), [0.5, 2.0], [], dimension=2))
    assert _texts(ray) == (
        "unbounded_ray",
        "descent ray in ker M",
        "DESIGN.md §4.2 (instance); failure of singular Prop. 3(ii)/4(ii)/6(ii)",
        "½aᵀMa + Fᵀa is unbounded below on the constraint set: no acceleration solves the contact problem",
    )
    ua = inst.unique_acceleration(ContactProblem(np.eye(2), [0.0, 1.0], [], dimension=2), np.zeros(2), np.zeros(0))
    assert _texts(ua) == (
        "unique_acceleration",
        "uniqueness of the acceleration (exact)",
        "tutorial Prop. 4 (M ≻ 0: strictly convex F1)",
        "the acceleration is unique",
    )
    ua = inst.unique_acceleration(_singular_two_rows(), np.zeros(3), np.array([1.0, 1.0]))
    assert _texts(ua) == (
        "unique_acceleration",
        "uniqueness of the acceleration (exact)",
        "DESIGN.md §4.2 (LP + rank); singular Prop. 5(a)",
        "the acceleration is unique",
    )
    ua = inst.unique_acceleration(
        uni([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [0.0, 0.0], M=np.diag([1.0, 0.0, 0.0]), F=[0.0, 1.0, 0.0]),
        np.array([0.0, 0.0, 1.0]),
        np.array([1.0, 0.0]),
    )
    assert ua.implies == "the acceleration is not unique: a* + t v is optimal for small t > 0 along the witness v"
    um = inst.unique_multipliers(ContactProblem(np.eye(2), [0.0, 1.0], [], dimension=2), np.zeros(2), np.zeros(0))
    assert _texts(um) == (
        "unique_multipliers",
        "uniqueness of the multipliers (exact)",
        "DESIGN.md §4.2",
        "no multipliers",
    )
    um = inst.unique_multipliers(
        uni([[3.0, 0.0], [0.0, 0.5]], [0.0, 0.0], F=[-3.0, -0.5]), np.zeros(2), np.array([1.0, 1.0])
    )
    assert _texts(um) == (
        "unique_multipliers",
        "uniqueness of the multipliers (exact)",
        "tutorial Prop. 3(i), 7(i) (rows independent)",
        "the multipliers are unique (independent constraint rows)",
    )
    q = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 1.0], F=[0.0, 1.0])
    um = inst.unique_multipliers(q, np.zeros(2), np.array([1.0, 0.0]))
    assert _texts(um) == (
        "unique_multipliers",
        "uniqueness of the multipliers (exact)",
        "DESIGN.md §4.2 (LP + rank on the multiplier polyhedron)",
        "the multipliers are unique although the constraint rows are dependent",
    )
    q = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 0.0], F=[0.0, 1.0])
    um = inst.unique_multipliers(q, np.zeros(2), np.array([0.5, 0.5]))
    assert um.implies == (
        "the multipliers are not unique: λ* + t d solves the problem for small t > 0 along the witness d"
    )
    cc = inst.coulomb_cone_check(_sticking2d([0.5]), np.array([2.0]), np.array([[0.8]]))
    assert _texts(cc) == (
        "coulomb_cones",
        "returned multipliers in the Coulomb disks",
        "sticking (14b)(60d)(65c,d); DESIGN.md §3.2",
        "every sticking contact force lies in its cone at the returned multipliers",
    )
    cc = inst.coulomb_cone_check(_sticking2d([0.5]), np.array([2.0]), np.array([[1.5]]))
    assert cc.implies == (
        "the returned multipliers leave a Coulomb disk; this route ignores the cones and the "
        "multipliers may not be unique, so this does not refute sticking: the exact test is F4"
    )
    fe = inst.forward_error(
        uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0]), np.array([1e-3, 0.0]), np.array([1.0]), np.zeros((1, 1))
    )
    assert _texts(fe) == (
        "forward_error",
        "forward-error estimate (equilibrated KKT of the active rows)",
        "Newton/refinement estimate with the condition number of the equilibrated KKT matrix",
        "the returned a is within about 1.0e-03 (relative) of the exact "
        "acceleration and each contact's force within 1.3e-15 of its exact force (relative to that "
        "force)",
    )


def test_undecided_certificate_texts(monkeypatch):
    def boom(*a, **k):
        raise UndecidedError("test double")

    monkeypatch.setattr(inst, "cone_is_trivial", boom)
    ua = inst.unique_acceleration(_singular_two_rows(), np.zeros(3), np.array([1.0, 1.0]))
    assert _texts(ua) == (
        "unique_acceleration",
        "uniqueness of the acceleration (exact)",
        "DESIGN.md §4.2 (LP + rank); singular Prop. 5(a)",
        "undecided: test double",
    )
    q = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 0.0], F=[0.0, 1.0])
    um = inst.unique_multipliers(q, np.zeros(2), np.array([0.5, 0.5]))
    assert _texts(um) == (
        "unique_multipliers",
        "uniqueness of the multipliers (exact)",
        "DESIGN.md §4.2 (LP + rank on the multiplier polyhedron)",
        "undecided: test double",
    )


def test_finalize_residual_certificate_exact_values(monkeypatch):
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    monkeypatch.setattr(judge, "kkt_residuals", lambda *a: {"dynamics": 4e-7, "primal": 0.0})
    s = judge.finalize(sol_of(p, [0.0, 0.0], [1.0], polish=False), HIGH)
    kk = s.certificate("kkt_residuals")
    assert _texts(kk) == (
        "kkt_residuals",
        "KKT residuals recomputed in the original variables",
        "DESIGN.md §4.2 (instance)",
        "(a, λ) satisfies dynamics, constraints, signs and complementarity to 1e-06",
    )
    assert kk.holds is True and kk.margin == pytest.approx(6e-7, rel=1e-12)
    assert kk.data == {"dynamics": 4e-7, "primal": 0.0}
    monkeypatch.setattr(judge, "kkt_residuals", lambda *a: {"dynamics": 1e-6})  # at the bound: passes
    s = judge.finalize(sol_of(p, [0.0, 0.0], [1.0], polish=False), HIGH)
    assert s.status == SOLVED and s.certificate("kkt_residuals").holds is True
    monkeypatch.setattr(judge, "kkt_residuals", lambda *a: {"dynamics": 2e-6})
    s = judge.finalize(sol_of(p, [0.0, 0.0], [1.0], polish=False), HIGH)
    assert (
        s.status == INACCURATE
        and s.certificate("kkt_residuals").implies == "the returned point fails the residual check"
    )
    assert s.message == "solver claimed success but max residual 2.00e-06 > 1e-06"


def test_finalize_messages_join_prior_message(monkeypatch):
    p = ContactProblem(
        np.eye(2),
        [1.0, 1.0],
        [Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])],
        dimension=2,
    )
    s = sol_of(p, [0.0, 0.0], [1.0], lam_t=[[1.0]], cones_enforced=ConeModel("disk"), polish=False)
    s.message = "m"
    judge.finalize(s, HIGH)
    assert s.message == "m; multipliers leave the disk cones by 5.00e-01"
    assert s.certificate("coulomb_cones").implies == "the returned multipliers leave a cone"
    q = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    fake = Certificate(
        id="forward_error",
        source="x",
        holds=None,
        margin=2e-6,
        implies="x",
        data={
            "condition": 3e12,
            "acceleration": 2e-6,
            "forces": 0.0,
            "multipliers": 0.0,
            "contact_force_errors": np.zeros(1),
        },
    )
    monkeypatch.setattr(judge, "forward_error", lambda *a, **k: fake)
    s = sol_of(q, [0.0, 0.0], [1.0])
    s.message = "m"
    judge.finalize(s, HIGH)
    assert s.message.startswith("m; residuals are small but the problem is ill-conditioned (cond 3.0e+12)")


def test_finalize_sliding_enumeration_unique_reset():
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0])
    s = sol_of(p, None, None, status=INFEASIBLE)
    s.unique = {"acceleration": True}
    s.certificates.append(Certificate(id="sliding_enumeration", source="x", holds=True, margin=1.0, implies="x"))
    judge.finalize(s, HIGH)
    assert s.unique == {"acceleration": None, "generalized_force": None, "multipliers": None}
    s = sol_of(p, None, None, status=INFEASIBLE)
    s.unique = {"acceleration": True}
    s.certificates.append(Certificate(id="coulomb_farkas", source="x", holds=True, margin=0.25, implies="x"))
    judge.finalize(s, HIGH)
    assert s.unique == {"acceleration": None, "generalized_force": None, "multipliers": None}


# ================================================================= third round: survivors of the second mutation run


def test_farkas_bilateral_rows_only():
    # a = 1 and a = 2: y_E = (t, -t) with -t + 2t... e = (-1, -2): eᵀy = -t + 2t = t = -1 -> y = (-1, 1), no y_G
    p = ContactProblem(
        np.eye(1),
        [0.0],
        [Contact("bilateral", normal=[1.0], normal_drift=-1.0), Contact("bilateral", normal=[1.0], normal_drift=-2.0)],
        dimension=2,
    )
    c = inst.verify_farkas(p)
    assert c.holds is True and c.data["y_unilateral"].shape == (0,)
    np.testing.assert_allclose(c.data["y_equalities"], [-1.0, 1.0], rtol=1e-9)
    assert c.margin == pytest.approx(1.0 / 7.0, rel=1e-9)  # rows (2 + 1, 2 + 2) at the data acceleration 2


def test_farkas_sign_is_relative_to_the_vector_size(monkeypatch):
    # rows (1), (-1), (0) [a zero row], drifts (-3, -1, 0); y = (2, 2, -1e-12): |y|max = 2, sign = 0.5e-12 (holds)
    p = uni([[1.0], [-1.0], [0.0]], [-3.0, -1.0, 0.0])
    _farkas_with(monkeypatch, [2.0, 2.0, -1e-12])
    c = inst.verify_farkas(p)
    assert c.holds is True
    # margin = -bᵀy / Σ|y_i| row_i - stationarity - sign = 8 / (2·6 + 2·4 + 0) - 0 - 0.5e-12
    assert c.margin == pytest.approx(8.0 / 20.0 - 0.5e-12, rel=0, abs=1e-15)


def test_farkas_bounds_are_inclusive(monkeypatch):
    # stationarity exactly 1e-9: rows (0.5), (-0.5), (d) with y = (1, 1, 1): Jᵀy = d against 1 + d, d/(1 + d) = 1e-9
    p = uni([[0.5], [-0.5], [1.0000000010000002e-09]], [-3.0, -1.0, 0.0])
    _farkas_with(monkeypatch, [1.0, 1.0, 1.0])
    c = inst.verify_farkas(p)
    assert c.data["stationarity"] == 1e-9 and c.holds is True
    # sign exactly 1e-12 (zero third row)
    p = uni([[1.0], [-1.0], [0.0]], [-3.0, -1.0, 0.0])
    _farkas_with(monkeypatch, [1.0, 1.0, -1e-12])
    assert inst.verify_farkas(p).holds is True
    # margin exactly 1e-9 (strict): a monkeypatched data scale puts Σ|y_i| row_i at 1 and bᵀy = -1e-9
    p = uni([[1.0], [-1.0]], [-1e-9, 0.0], F=np.array([1.0]))
    ds = inst.data_scales(p)
    monkeypatch.setattr(
        inst, "data_scales", lambda q: type(ds)(**{**ds.__dict__, "inequality_row": np.array([0.5, 0.5])})
    )
    _farkas_with(monkeypatch, [1.0, 1.0])
    c = inst.verify_farkas(p)
    assert c.margin == 1e-9 and c.holds is False


def test_polish_exact_sparse_answer_is_not_marked():
    # sparse LU is exact here: the recomputed residual equals the old one (0): nothing to report
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 1.0], sparse=True)
    s = sol_of(p, [0.0, 0.0], [1.0])
    polmod.polish(s)
    assert "polished" not in s.extras


def test_polish_sparse_refuses_negative_multiplier_even_when_better():
    # a = (0, -2) violates a2 >= 0 by 2 (primal residual 2); the active-set KKT point a = 0 has λ = -1
    # (dual residual 1): lower, but the sparse path refuses a negative multiplier of a nonsingular K
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, -1.0], sparse=True)
    s = sol_of(p, [0.0, -2.0], [0.0])
    polmod.polish(s)
    assert "polished" not in s.extras and s.acceleration.tolist() == [0.0, -2.0]


def test_polish_sparse_zero_multiplier_accepted():
    # F = 0: a* = 0, λ* = 0 exactly (degenerate): a zero multiplier is not negative
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 0.0], sparse=True)
    s = sol_of(p, [0.0, 1e-6], [1e-3])
    polmod.polish(s)
    assert "polished" in s.extras and s.lambda_normal[0] == 0.0


def test_polish_keeps_min_norm_split_of_redundant_rows():
    # two identical rows (0, 1), F = (0, 1): the min-norm multipliers (1/2, 1/2) are nonnegative and kept
    p = uni([[0.0, 1.0], [0.0, 1.0]], [0.0, 0.0], F=[0.0, 1.0])
    s = sol_of(p, [0.0, 0.0], [0.4, 0.4])
    polmod.polish(s)
    assert "polished" in s.extras
    np.testing.assert_allclose(s.lambda_normal, [0.5, 0.5], rtol=1e-12)


def test_guess_active_row_scale_below_one():
    # F = (0, 0.25): accel = force = 0.25, row scale 0.25; slack 0.1 -> ĝ = 0.4; λ = 0.05 -> λ̂ = 0.2 < 0.4
    p = uni([[0.0, 1.0]], [0.0], F=[0.0, 0.25])
    assert kkt.guess_active(p, np.array([0.0, 0.1]), np.array([0.05])).tolist() == [False]
    assert kkt.guess_active(p, np.array([0.0, 0.1]), np.array([0.1])).tolist() == [True]


def test_forward_error_zero_mass_no_rows():
    # M = 0, F = 0, no rows: K̃ = 0, rank 0, condition infinite
    # (the estimate itself is then ∞ · 0 = NaN: every a solves this problem, there is no exact one to be near)
    p = ContactProblem(np.zeros((1, 1)), [0.0], [], dimension=2)
    with np.errstate(invalid="ignore"):
        c = inst.forward_error(p, np.zeros(1), np.zeros(0), np.zeros((0, 1)))
    assert c.data["condition"] == float("inf") and c.data["active_rows"] == 0


def test_forward_error_one_coordinate():
    # n = 1, M = 2, F = 4: a* = -2 exact; K̃ = [1]: condition 1, the estimate is the round-off 1 eps * 1 * zmag 2 / 2
    p = ContactProblem(np.array([[2.0]]), [4.0], [], dimension=2)
    c = inst.forward_error(p, np.array([-2.0]), np.zeros(0), np.zeros((0, 1)))
    assert c.data["condition"] == 1.0
    assert c.data["acceleration"] == pytest.approx(EPS, rel=1e-9, abs=0)


def test_zero_row_and_sparse_kkt_without_warnings():
    """Zero normal rows are valid input (planar models, issue #9) and must not raise RuntimeWarnings; the sparse
    KKT solve factors a CSC matrix (no SparseEfficiencyWarning)."""
    import warnings

    p = ContactProblem(
        np.eye(2),
        [0.0, 1.0],
        [Contact("unilateral", normal=[0.0, 1.0]), Contact("unilateral", normal=[0.0, 0.0], normal_drift=1.0)],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        active, zero, thr, lthr = inst._active_sets(p, np.zeros(2), np.array([1.0, 1e6]))
        assert np.isinf(lthr[1])
        z = kkt.sparse_kkt_solve(
            sp.identity(2, format="csr"), sp.csr_matrix(np.array([[0.0, 1.0]])), np.array([0.0, -1.0, 0.0])
        )
        np.testing.assert_allclose(z, [0.0, 0.0, 1.0], atol=1e-15)

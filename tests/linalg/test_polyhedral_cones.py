"""Polyhedral-cone decisions (gaussqp.linalg.polyhedral_cones) against closed forms, every answer re-checked in NumPy.

Each test pins a value that can be derived by hand (an LP optimum, a Farkas vector of minimal
1-norm, a ray of minimal 1-norm, σ_min of a normalized matrix) and checks the returned vectors
against their defining conditions, both for "yes" and for "no" answers.
"""

import numpy as np
import pytest

from gaussqp.linalg.dense import normalize_rows

from gaussqp.linalg.polyhedral_cones import ConeTest, cone_is_trivial, farkas_vector, min_linear_on_cone, unbounded_ray

EMPTY2 = np.zeros((0, 2))
EMPTY3 = np.zeros((0, 3))


def in_cone(E, G, v, tol=1e-9):
    return np.allclose(E @ v, 0.0, atol=tol) and (G.shape[0] == 0 or (G @ v).min() >= -tol)


# ---------------------------------------------------------------------------- cone_is_trivial
def test_kernel_of_E_is_zero():
    t = cone_is_trivial(np.eye(2), np.array([[1.0, 0.0]]), 2)
    assert t == ConeTest(True, float("inf"), None, "ker E = {0}")


def test_no_inequality_rows_leaves_a_line():
    # {v : v1 = 0} in R²: the line spanned by e2
    E = np.array([[3.0, 0.0]])
    t = cone_is_trivial(E, EMPTY2, 2)
    assert not t.trivial and t.margin == 0.0 and t.detail == "the cone contains a line (rank test)"
    np.testing.assert_allclose(np.abs(t.witness), [0.0, 1.0], atol=1e-12)
    assert np.linalg.norm(t.witness) == pytest.approx(1.0)


def test_rank_deficient_rows_leave_a_line():
    # G v >= 0 with G = [[1, 1, 0]] in R³ (E empty): ker G is 2-dimensional, a line lies in the cone
    G = np.array([[1.0, 1.0, 0.0], [2.0, 2.0, 0.0]])
    t = cone_is_trivial(EMPTY3, G, 3)
    assert not t.trivial and t.margin == 0.0 and t.detail == "the cone contains a line (rank test)"
    assert np.linalg.norm(t.witness) == pytest.approx(1.0)
    np.testing.assert_allclose(G @ t.witness, 0.0, atol=1e-12)  # both v and -v are in the cone


def test_pointed_trivial_cone_and_its_margin():
    # v1 >= 0, v2 >= 0, -(v1 + v2) >= 0  =>  v = 0; margin = σ_min of the row-normalized G
    G = np.array([[2.0, 0.0], [0.0, 5.0], [-1.0, -1.0]])
    t = cone_is_trivial(EMPTY2, G, 2)
    Gn = G / np.linalg.norm(G, axis=1)[:, None]
    assert t.trivial and t.witness is None and t.detail == "pointed and LP value 0"
    assert t.margin == pytest.approx(np.linalg.svd(Gn, compute_uv=False)[-1], rel=1e-12)
    assert t.margin == pytest.approx(1.0, rel=1e-12)  # GnᵀGn = I + ½·11ᵀ: eigenvalues 1 and 2


def test_trivial_cone_inside_a_subspace():
    # in R³: v3 = 0, then v1 >= 0, v2 >= 0, -v1 - v2 >= 0 => {0}; the margin is measured on ker E
    E = np.array([[0.0, 0.0, 4.0]])
    G = np.array([[1.0, 0.0, 7.0], [0.0, 1.0, -3.0], [-1.0, -1.0, 0.0]])
    t = cone_is_trivial(E, G, 3)
    assert t.trivial and t.witness is None
    Gn = G / np.linalg.norm(G, axis=1)[:, None]
    assert t.margin == pytest.approx(np.linalg.svd(Gn[:, :2], compute_uv=False)[-1], rel=1e-10)


def test_open_orthant_gives_a_verified_lp_witness():
    # v >= 0 in R²: the LP max 1ᵀBy s.t. 0 <= By <= 1 has value 2 (y = (1, 1)); margin = -2
    t = cone_is_trivial(EMPTY2, np.eye(2), 2)
    assert not t.trivial and t.detail == "LP found a nonzero cone element"
    assert t.margin == pytest.approx(-2.0, rel=1e-9)
    np.testing.assert_allclose(t.witness, [1 / np.sqrt(2), 1 / np.sqrt(2)], atol=1e-9)


def test_open_cone_in_a_subspace_witness_satisfies_every_row():
    # R³: v1 = v2 (E), v1 >= 0, v3 >= v1 (G): nontrivial pointed cone; the witness is re-checked here
    E = np.array([[1.0, -1.0, 0.0]])
    G = np.array([[10.0, 0.0, 0.0], [-1.0, 0.0, 1.0]])
    t = cone_is_trivial(E, G, 3)
    assert not t.trivial and t.margin < 0
    assert in_cone(E, G, t.witness) and np.linalg.norm(t.witness) == pytest.approx(1.0)
    assert np.abs(t.witness).max() > 0.1


def test_scaled_rows_decide_the_same():
    # the decision and the margin do not depend on the scale of the rows (they are normalized)
    G = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    t1 = cone_is_trivial(EMPTY2, G, 2)
    t2 = cone_is_trivial(EMPTY2, np.diag([1e-6, 1.0, 1e6]) @ G, 2)
    assert t1.trivial and t2.trivial and t2.margin == pytest.approx(t1.margin, rel=1e-9)
    E = np.array([[0.0, 1e-7]])  # a tiny but exact equality row still removes v2
    assert cone_is_trivial(E, np.array([[1.0, 0.0], [-1.0, 0.5]]), 2).trivial  # v2 = 0, v1 >= 0, -v1 >= 0
    t = cone_is_trivial(E, np.array([[1e-8, 0.0]]), 2)  # v2 = 0, v1 >= 0: the half-line of e1
    assert not t.trivial
    np.testing.assert_allclose(t.witness, [1.0, 0.0], atol=1e-9)


def test_line_inside_a_subspace_is_found_by_the_rank_test():
    # R³: v3 = 0, G = [[1, 1, 0]]: the line (1, -1, 0) is in the cone
    E = np.array([[0.0, 0.0, 1.0]])
    G = np.array([[1.0, 1.0, 0.0]])
    t = cone_is_trivial(E, G, 3)
    assert not t.trivial and t.margin == 0.0
    np.testing.assert_allclose(np.abs(t.witness), [1 / np.sqrt(2), 1 / np.sqrt(2), 0.0], atol=1e-12)


# ---------------------------------------------------------------------------- min_linear_on_cone
def test_min_linear_on_orthant_closed_form():
    # min fᵀv over v >= 0 with 1ᵀv = 1: the smallest entry of f, at the matching unit vector
    val, v = min_linear_on_cone(EMPTY2, np.eye(2), np.array([3.0, 2.0]), 2)
    assert val == pytest.approx(2.0, rel=1e-9)
    np.testing.assert_allclose(v, [0.0, 1.0], atol=1e-9)
    val, v = min_linear_on_cone(EMPTY2, np.eye(2), np.array([-1.0, 2.0]), 2)
    assert val == pytest.approx(-1.0, rel=1e-9)
    np.testing.assert_allclose(v, [1.0, 0.0], atol=1e-9)


def test_min_linear_normalization_uses_normalized_rows():
    # G rows scaled by (2, 4): after normalization the constraint is still v1 + v2 = 1
    val, v = min_linear_on_cone(EMPTY2, np.diag([2.0, 4.0]), np.array([5.0, 7.0]), 2)
    assert val == pytest.approx(5.0, rel=1e-9)
    np.testing.assert_allclose(v, [1.0, 0.0], atol=1e-9)


def test_min_linear_in_a_subspace():
    # R³, v3 = 0 (row scaled by 9), v >= 0 on the rest: min of f1, f2 with f = (4, 3, -100)
    E = np.array([[0.0, 0.0, 9.0]])
    G = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    val, v = min_linear_on_cone(E, G, np.array([4.0, 3.0, -100.0]), 3)
    assert val == pytest.approx(3.0, rel=1e-9)
    np.testing.assert_allclose(v, [0.0, 1.0, 0.0], atol=1e-9)


def test_min_linear_on_a_line_is_minus_abs():
    # no inequality rows: the cone is the line v1 = 0; fᵀv = ±2 on its unit vectors; the returned
    # direction has fᵀv <= 0
    E = np.array([[1.0, 0.0]])
    for f in (np.array([0.0, 2.0]), np.array([0.0, -2.0])):
        val, v = min_linear_on_cone(E, EMPTY2, f, 2)
        assert val == pytest.approx(-2.0, rel=1e-12)
        assert f @ v == pytest.approx(-2.0, rel=1e-12) and np.linalg.norm(v) == pytest.approx(1.0)
    val, v = min_linear_on_cone(EMPTY2, np.array([[1.0, 1.0], [2.0, 2.0]]), np.array([3.0, 1.0]), 2)
    assert val == pytest.approx(-np.sqrt(2.0), rel=1e-12) and np.array([3.0, 1.0]) @ v <= 0


def test_min_linear_with_zero_kernel():
    val, v = min_linear_on_cone(np.eye(2), np.eye(2), np.array([1.0, 1.0]), 2)
    assert val == float("inf") and v is None


# ---------------------------------------------------------------------------- farkas_vector
def test_farkas_two_opposite_inequalities():
    # a >= 1 and -a >= 1: y = (1/2, 1/2) is the Farkas vector of least 1-norm (any y has y1 = y2, y1 + y2 = 1)
    G, g = np.array([[1.0], [-1.0]]), np.array([-1.0, -1.0])
    y = farkas_vector(np.zeros((0, 1)), np.zeros(0), G, g)
    np.testing.assert_allclose(y, [0.5, 0.5], atol=1e-9)
    assert np.allclose(G.T @ y, 0) and g @ y == pytest.approx(-1.0) and y.min() >= 0


def test_farkas_two_incompatible_equalities():
    # a = 0 and a = 1: y_E = (-1, 1) (Eᵀy = 0, eᵀy = -1), of 1-norm 2; y_E is free in sign
    E, e = np.array([[1.0], [1.0]]), np.array([0.0, -1.0])
    y = farkas_vector(E, e, np.zeros((0, 1)), np.zeros(0))
    np.testing.assert_allclose(y, [-1.0, 1.0], atol=1e-9)


def test_farkas_mixed_rows():
    # a1 = 2 (E) and a1 <= 1 (G: -a1 + 1 >= 0), a2 >= -5: y_E = y_G1 (Eᵀy_E + Gᵀy_G = 0) and
    # -2 y_E + y_G1 = -1, so y = (1, 1, 0)
    E, e = np.array([[1.0, 0.0]]), np.array([-2.0])
    G, g = np.array([[-1.0, 0.0], [0.0, 1.0]]), np.array([1.0, 5.0])
    y = farkas_vector(E, e, G, g)
    np.testing.assert_allclose(y, [1.0, 1.0, 0.0], atol=1e-9)
    J, b = np.vstack([E, G]), np.concatenate([e, g])
    assert np.allclose(J.T @ y, 0.0, atol=1e-12) and b @ y == pytest.approx(-1.0) and y[1:].min() >= 0


def test_farkas_feasible_and_empty_systems_give_none():
    assert farkas_vector(np.zeros((0, 2)), np.zeros(0), np.zeros((0, 2)), np.zeros(0)) is None
    # a >= 1 and a <= 3: feasible
    assert farkas_vector(np.zeros((0, 1)), np.zeros(0), np.array([[1.0], [-1.0]]), np.array([-1.0, 3.0])) is None
    # a = 1, a >= 0: feasible
    assert farkas_vector(np.array([[1.0]]), np.array([-1.0]), np.array([[1.0]]), np.array([0.0])) is None


# ---------------------------------------------------------------------------- unbounded_ray
def test_unbounded_ray_closed_form():
    # M = diag(1, 0) (R = [[1, 0]]), F = (0, 2): the ray v = (0, -1/2) has Mv = 0, Fᵀv = -1, least 1-norm
    R, F = np.array([[1.0, 0.0]]), np.array([0.0, 2.0])
    v = unbounded_ray(R, F, EMPTY2, EMPTY2)
    np.testing.assert_allclose(v, [0.0, -0.5], atol=1e-9)
    # a unilateral row v2 >= 0 blocks it; an equality row v2 = 0 too
    assert unbounded_ray(R, F, EMPTY2, np.array([[0.0, 1.0]])) is None
    assert unbounded_ray(R, F, np.array([[0.0, 1.0]]), EMPTY2) is None
    # a unilateral row -v2 >= 0 does not
    v = unbounded_ray(R, F, EMPTY2, np.array([[0.0, -3.0]]))
    np.testing.assert_allclose(v, [0.0, -0.5], atol=1e-9)


def test_unbounded_ray_in_a_subspace():
    # R³: M = diag(1, 0, 0), bilateral v2 - v3 = 0, F = (0, 1, 1): v = (0, -1/2, -1/2)
    R, F = np.array([[1.0, 0.0, 0.0]]), np.array([0.0, 1.0, 1.0])
    v = unbounded_ray(R, F, np.array([[0.0, 1.0, -1.0]]), EMPTY3)
    np.testing.assert_allclose(v, [0.0, -0.5, -0.5], atol=1e-9)
    assert F @ v == pytest.approx(-1.0)
    # G with a row on the kernel: -v2 >= 0 keeps it; v3 >= 0 kills it
    assert unbounded_ray(R, F, np.array([[0.0, 1.0, -1.0]]), np.array([[0.0, 0.0, 1.0]])) is None


def test_unbounded_ray_none_for_definite_mass_or_orthogonal_force():
    assert unbounded_ray(np.eye(2), np.array([1.0, 1.0]), EMPTY2, EMPTY2) is None  # ker M = {0}
    # ker M = span(e2) but F ⟂ e2: no descent
    assert unbounded_ray(np.array([[1.0, 0.0]]), np.array([1.0, 0.0]), EMPTY2, EMPTY2) is None


# ---------------------------------------------------------------------------- pinned branches
def test_not_trivial_is_false_not_none():
    assert cone_is_trivial(EMPTY2, np.eye(2), 2).trivial is False
    assert cone_is_trivial(EMPTY2, np.array([[1.0, 1.0]]), 2).trivial is False
    assert cone_is_trivial(EMPTY2, -np.eye(2)[:1] + np.array([[0.0, 0.0]]), 2).trivial is False


def test_rows_that_are_round_off_on_ker_E_do_not_bound_the_cone():
    """Rows are normalized, so the rank decision on B = G Z is made at scale 1: a G row whose part on
    ker E is 1e-11 of its norm counts as zero there and the cone holds a line."""
    E = np.array([[1.0, 0.0]])
    G = np.array([[1.0, 1e-11]])
    t = cone_is_trivial(E, G, 2)
    assert t.trivial is False and t.margin == 0.0 and t.detail == "the cone contains a line (rank test)"
    np.testing.assert_allclose(np.abs(t.witness), [0.0, 1.0], atol=1e-12)
    val, v = min_linear_on_cone(E, G, np.array([0.0, 3.0]), 2)
    assert val == pytest.approx(-3.0) and v @ np.array([0.0, 3.0]) == pytest.approx(-3.0)


def test_lp_failure_raises_with_the_solver_message(monkeypatch):
    import gaussqp.linalg.polyhedral_cones as cones

    class Failed:
        status, message, fun, x = 4, "numerical difficulties", None, None

    monkeypatch.setattr("scipy.optimize.linprog", lambda *a, **k: Failed())
    with pytest.raises(RuntimeError, match=r"^cone LP failed \(undecided\): numerical difficulties$"):
        cones.cone_is_trivial(EMPTY2, np.eye(2), 2)
    with pytest.raises(RuntimeError, match=r"^cone LP failed \(undecided\): numerical difficulties$"):
        cones.min_linear_on_cone(EMPTY2, np.eye(2), np.ones(2), 2)
    # an infeasible LP in the Farkas and ray searches means "no certificate", not an error
    assert cones.farkas_vector(np.zeros((0, 1)), np.zeros(0), np.array([[1.0], [-1.0]]), np.array([-1.0, -1.0])) is None
    assert cones.unbounded_ray(np.array([[1.0, 0.0]]), np.array([0.0, 2.0]), EMPTY2, EMPTY2) is None


def test_min_linear_on_a_half_line_from_one_row():
    # v1 = 0 and v2 >= 0: the half-line of e2, normalized by v2 = 1: min fᵀv = f2 (not -|f2|)
    val, v = min_linear_on_cone(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]), np.array([5.0, 4.0]), 2)
    assert val == pytest.approx(4.0, rel=1e-9)
    np.testing.assert_allclose(v, [0.0, 1.0], atol=1e-9)


def test_min_linear_on_a_line_with_small_slope():
    val, v = min_linear_on_cone(np.array([[1.0, 0.0]]), EMPTY2, np.array([0.0, 0.5]), 2)
    assert val == pytest.approx(-0.5) and np.array([0.0, 0.5]) @ v == pytest.approx(-0.5)


def test_min_linear_optimum_with_negative_coordinates():
    # v1 <= 0, v2 >= 0, v2 - v1 >= 0 (redundant third row): extreme rays (-1, 0) and (0, 1); normalized
    # by 1ᵀG_n v = (1 + 1/√2)(v2 - v1) = 1, min (v1 + v2) is at t(-1, 0) with t = 1/(1 + 1/√2) = 2 - √2
    G = np.array([[-1.0, 0.0], [0.0, 1.0], [-1.0, 1.0]])
    val, v = min_linear_on_cone(EMPTY2, G, np.array([1.0, 1.0]), 2)
    assert val == pytest.approx(-(2 - np.sqrt(2)), rel=1e-9)
    np.testing.assert_allclose(v, [-(2 - np.sqrt(2)), 0.0], atol=1e-9)
    assert (G @ v).min() >= -1e-12


def test_farkas_one_equality_one_inequality():
    # a = 2 and a <= 1: y = (y_E, y_G) = (1, 1)
    y = farkas_vector(np.array([[1.0]]), np.array([-2.0]), np.array([[-1.0]]), np.array([1.0]))
    np.testing.assert_allclose(y, [1.0, 1.0], atol=1e-9)


def test_unbounded_ray_respects_the_sign_of_inequality_rows():
    R = np.array([[1.0, 0.0]])
    # F = (0, -2) needs v2 = +1/2, which -3 v2 >= 0 forbids
    assert unbounded_ray(R, np.array([0.0, -2.0]), EMPTY2, np.array([[0.0, -3.0]])) is None
    # two inequality rows on a one-dimensional kernel: -v2 >= 0 and v1 - v2 >= 0 allow v = (0, -1/2)
    G = np.array([[0.0, -1.0], [1.0, -1.0]])
    v = unbounded_ray(R, np.array([0.0, 2.0]), EMPTY2, G)
    np.testing.assert_allclose(v, [0.0, -0.5], atol=1e-9)
    assert (G @ v).min() >= 0


def _nearly_dependent_rows(sigma):
    """Three unit rows in R³ with singular values √2, 1 and ``sigma`` (the third row leaves the plane
    of the first two by the angle √2·sigma)."""
    eps = np.sqrt(2.0) * sigma
    return np.array(
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [np.cos(eps) / np.sqrt(2), np.cos(eps) / np.sqrt(2), np.sin(eps)]]
    )


@pytest.mark.parametrize("sigma, dependent", [(1.2e-10, True), (1.6e-10, False)])
def test_equality_rows_use_the_library_rank_rule(sigma, dependent):
    """ker E is decided by linalg's rule: a singular value counts as zero below RANK_RTOL (1e-10) times
    the spectral norm of the row-normalized E (here √2, so the cut is at 1.414e-10) — not 1e-10 itself,
    not the Frobenius norm (√3), not a floor of 2. All three cone functions decide alike."""
    E = _nearly_dependent_rows(sigma)
    assert np.linalg.svd(E, compute_uv=False)[-1] == pytest.approx(sigma, rel=1e-6)
    t = cone_is_trivial(E, EMPTY3, 3)
    assert t.trivial is (not dependent)
    val, v = min_linear_on_cone(E, EMPTY3, np.array([0.0, 0.0, 1.0]), 3)
    ray = unbounded_ray(np.zeros((0, 3)), np.array([0.0, 0.0, 1.0]), E, EMPTY3)
    if dependent:  # ker E is the line through ≈ e3
        assert t.margin == 0.0 and abs(t.witness[2]) == pytest.approx(1.0, abs=1e-9)
        assert val == pytest.approx(-1.0, abs=1e-9)
        assert ray is not None and ray @ np.array([0.0, 0.0, 1.0]) == pytest.approx(-1.0)
    else:
        assert t.margin == float("inf") and val == float("inf") and v is None and ray is None


@pytest.mark.parametrize("sigma, rank_deficient", [(0.9e-10, True), (1.7e-10, False)])
def test_inequality_rows_use_the_rank_rule_at_unit_scale(sigma, rank_deficient):
    """B = G Z is tested at scale max(1, ‖B‖₂): with two unit rows at angle √2·sigma (‖B‖₂ ≈ √2) the cut
    is 1.414e-10; far below it the two rows count as parallel (a line in the cone), above it the LP
    decides."""
    eps = np.sqrt(2.0) * sigma
    G = np.array([[1.0, 0.0], [np.cos(eps), np.sin(eps)]])
    t = cone_is_trivial(EMPTY2, G, 2)
    assert t.trivial is False
    if rank_deficient:
        assert t.detail == "the cone contains a line (rank test)" and t.margin == 0.0
        val, _ = min_linear_on_cone(EMPTY2, G, np.array([0.0, 1.0]), 2)
        assert val == pytest.approx(-1.0, abs=1e-6)
    else:
        assert t.detail == "LP found a nonzero cone element" and t.margin == pytest.approx(-2.0)
        assert (G @ t.witness).min() >= -1e-12


def test_rank_test_and_null_space_agree_between_the_two_cuts():
    """Before issue 9 matrix_rank(B, scale=1.0) cut at 1e-10·max(1, ‖B‖₂) but null_space(B, scale=1.0) at
    1e-10·1: for a singular value between the two the rank test said 'a line' and the null space was
    empty (a bare IndexError). Both now come from one SVD with one cut."""
    eps = np.sqrt(2.0) * 1.2e-10  # σ_min ≈ 1.2e-10, between 1e-10 and 1e-10·‖B‖₂ ≈ 1.414e-10
    G = np.array([[1.0, 0.0], [np.cos(eps), np.sin(eps)]])
    t = cone_is_trivial(EMPTY2, G, 2)
    assert t.trivial is False and t.detail == "the cone contains a line (rank test)" and t.margin == 0.0
    assert abs(t.witness @ np.array([1.0, 0.0])) <= 1e-9  # the (near) line is ±e2
    val, v = min_linear_on_cone(EMPTY2, G, np.array([0.0, 1.0]), 2)
    assert val == pytest.approx(-1.0, abs=1e-9) and v[1] == pytest.approx(-1.0, abs=1e-9)


def test_rank_and_null_space_one_cut():
    from gaussqp.linalg.dense import matrix_rank, rank_and_null_space

    for sigma in (0.9e-10, 1.2e-10, 1.7e-10):
        eps = np.sqrt(2.0) * sigma
        B = np.array([[1.0, 0.0], [np.cos(eps), np.sin(eps)]])
        r, N = rank_and_null_space(B, scale=1.0)
        assert r == matrix_rank(B, scale=1.0) and N.shape == (2, 2 - r)
        assert r == (2 if sigma > 1.5e-10 else 1)
        if r == 1:
            assert np.linalg.norm(B @ N) <= 2e-10 and abs(np.linalg.norm(N) - 1.0) < 1e-12
    r, N = rank_and_null_space(np.zeros((0, 3)))
    assert r == 0 and np.array_equal(N, np.eye(3))
    r, N = rank_and_null_space(np.array([[0.0, 3.0, 0.0]]))
    assert r == 1 and N.shape == (3, 2) and np.allclose(N[1], 0.0)
    r, N = rank_and_null_space(np.zeros((2, 2)))
    assert r == 0 and N.shape == (2, 2)


def test_farkas_two_equalities_and_a_slack_inequality():
    # a = 0 and a = 1 (E), a >= -5 (G, slack): y = (y_E, y_G) = (-1, 1, 0), 1-norm 2
    y = farkas_vector(np.array([[1.0], [1.0]]), np.array([0.0, -1.0]), np.array([[1.0]]), np.array([5.0]))
    np.testing.assert_allclose(y, [-1.0, 1.0, 0.0], atol=1e-9)


# ------------------------------------------------------------------ issue 9: HiGHS drops coefficients below 1e-9
def _thin_wedge(e):
    """G rows e1 and (cos e, sin e): the cone {v1 >= 0, v1 cos e + v2 sin e >= 0} with extreme rays e2 and
    (1, -cot e). HiGHS drops matrix entries below 1e-9, so on the raw LP it saw the second row as e1."""
    return np.array([[1.0, 0.0], [np.cos(e), np.sin(e)]])


def test_min_linear_on_a_thin_cone_sees_coefficients_below_1e9():
    """Before issue 9 HiGHS got B = G Z raw: with sin e = 5e-10 dropped it returned 0.5 (v = (1/2, 0)) for
    f = e1, whose minimum is 0 (on the ray e2), and raised 'unbounded' for f = e2 (minimum -cot e)."""
    e = 5e-10
    G = _thin_wedge(e)
    val, v = min_linear_on_cone(EMPTY2, G, np.array([1.0, 0.0]), 2)
    assert abs(val) <= 1e-12 and v[1] == pytest.approx(1.0 / np.sin(e), rel=1e-9)
    val, v = min_linear_on_cone(EMPTY2, G, np.array([0.0, 1.0]), 2)
    assert val == pytest.approx(-1.0 / np.tan(e), rel=1e-7)
    np.testing.assert_allclose(v, [1.0, -1.0 / np.tan(e)], rtol=1e-7)
    t = cone_is_trivial(EMPTY2, G, 2)
    assert t.trivial is False and t.margin == pytest.approx(-2.0, rel=1e-12)
    assert (G @ t.witness).min() >= 0.0


def test_a_thin_pointed_cone_is_trivial():
    """v2 >= 0, -v1 - 3e-10 v2 >= 0, v1 - 3e-10 v2 >= 0 force v = 0. Before issue 9 HiGHS dropped the 3e-10
    entries and answered 'not trivial' with the witness e2, which violates rows 2 and 3 by 100 % of their own
    scale; now the LP's value 0 is proved by a Stiemke vector λ > 0, Bᵀλ = 0, checked column by column."""
    G = np.array([[0.0, 1.0], [-1.0, -3e-10], [1.0, -3e-10]])
    t = cone_is_trivial(EMPTY2, G, 2)
    assert t.trivial is True and t.witness is None and t.detail == "pointed and LP value 0"


def test_farkas_vector_with_a_coefficient_below_1e9():
    """1e-10 a + 1 = 0 and a >= 0 is empty: y = (-1, 1e-10). Before issue 9 HiGHS dropped the 1e-10 and
    returned y = (-1, 0), with Eᵀy_E + Gᵀy_G = -1e-10: not a Farkas vector at that row's scale."""
    y = farkas_vector(np.array([[1e-10]]), np.array([1.0]), np.array([[1.0]]), np.array([0.0]))
    np.testing.assert_allclose(y, [-1.0, 1e-10], rtol=1e-9)
    # a1 >= 0, -a1 + 1e-10 a2 >= 0, -a2 - 1 >= 0 is empty; before issue 9: None (no vector found)
    G = np.array([[1.0, 0.0], [-1.0, 1e-10], [0.0, -1.0]])
    y = farkas_vector(np.zeros((0, 2)), np.zeros(0), G, np.array([0.0, 0.0, -1.0]))
    np.testing.assert_allclose(y, [1e10, 1e10, 1.0], rtol=1e-9)
    assert np.abs(G.T @ y).max() <= 1e-15 * np.abs(G.T).dot(y).max()


def test_an_lp_answer_that_fails_verification_is_undecided(monkeypatch):
    """HiGHS's answers are believed only after the NumPy check: a wrong 'optimal' answer makes the cone
    functions raise (undecided) and the Farkas search return None — never a decision."""
    import gaussqp.linalg.polyhedral_cones as cones
    from scipy.optimize import linprog as real

    def wrong(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=None, method=None):
        """HiGHS's answer, damaged: x mirrored (2 variables: its second coordinate times -1/2), duals negated."""
        res = real(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method=method)
        if res.status == 0:
            res.x = res.x * np.array([1.0, -0.5]) if res.x.size == 2 else -res.x
            for part in (res.ineqlin, res.eqlin):
                part.marginals = -np.asarray(part.marginals)
        return res

    monkeypatch.setattr("scipy.optimize.linprog", wrong)
    # cone_is_trivial falls back on the enumeration of extreme rays, which decides right
    t = cones.cone_is_trivial(EMPTY2, np.eye(2), 2)
    assert t.trivial is False and t.detail == "an extreme ray of the cone (enumeration)"
    assert t.witness.min() >= 0.0 and t.margin == pytest.approx(-1.0)
    t = cones.cone_is_trivial(EMPTY2, np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]]), 2)
    assert t.trivial is True and t.detail == "pointed, no extreme ray (enumeration)" and t.witness is None
    assert t.margin == pytest.approx(
        np.linalg.svd(normalize_rows(np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]])), compute_uv=False)[-1]
    )
    # the enumerated witness is unit, its margin -Σ B y / max B y: rows (1, 1)/√2 and e2, the first ray tried
    # is (-1, 1)/√2 with B y = (0, 1/√2): margin -1
    with monkeypatch.context() as mp:
        mp.setattr(cones, "_project_active", lambda U, x: 0.0 * x)  # the LP's witness is lost
        t = cones.cone_is_trivial(EMPTY2, np.array([[1.0, 1.0], [0.0, 1.0]]), 2)
    assert t.detail == "an extreme ray of the cone (enumeration)" and t.margin == pytest.approx(-1.0)
    np.testing.assert_allclose(t.witness, [-np.sqrt(0.5), np.sqrt(0.5)], rtol=1e-12)
    # ... unless there are too many row subsets: undecided
    monkeypatch.setattr(cones, "RAY_SUBSETS_MAX", 2)  # exactly 2 subsets are still enumerated
    assert cones.cone_is_trivial(EMPTY2, np.eye(2), 2).detail == "an extreme ray of the cone (enumeration)"
    monkeypatch.setattr(cones, "RAY_SUBSETS_MAX", 1)
    with pytest.raises(
        RuntimeError,
        match=r"^cone LP answer fails its check and 2 row subsets are too many to "
        r"enumerate \(undecided\)$",
    ):
        cones.cone_is_trivial(EMPTY2, np.eye(2), 2)
    with pytest.raises(RuntimeError, match=r"^cone LP answer fails its primal/dual verification \(undecided\)$"):
        cones.min_linear_on_cone(EMPTY2, np.eye(2), np.array([1.0, 2.0]), 2)
    assert cones.farkas_vector(np.array([[1.0]]), np.array([-2.0]), np.array([[-1.0]]), np.array([1.0])) is None


def test_equilibrate_balances_a_coefficient_small_in_its_row_and_column():
    from gaussqp.linalg.polyhedral_cones import _equilibrate

    A = np.array([[1e-10, 1.0], [1.0, 0.0]])
    r, c = _equilibrate(A)
    S = np.abs(r[:, None] * A * c[None, :])
    np.testing.assert_allclose(S[S > 0], 1.0, rtol=1e-6)
    r, c = _equilibrate(np.zeros((2, 3)))
    assert np.array_equal(r, np.ones(2)) and np.array_equal(c, np.ones(3))
    r, c = _equilibrate(np.array([[4.0, 0.0], [0.0, 0.0]]))  # a zero row and column keep 1
    assert r[1] == 1.0 and c[1] == 1.0 and abs(r[0] * 4.0 * c[0]) == pytest.approx(1.0)


def test_extreme_ray_enumeration():
    from gaussqp.linalg.polyhedral_cones import _extreme_ray

    # the thin pointed cone of test_a_thin_pointed_cone_is_trivial has no extreme ray
    assert _extreme_ray(np.array([[0.0, 1.0], [-1.0, -3e-10], [1.0, -3e-10]])) is None
    # the thin wedge: v1 >= 0 and v1 + 1e-9 v2 >= 0 with v2 <= 0: the ray (1, -1e9) (normalized)
    B = np.array([[1.0, 0.0], [1.0, 1e-9], [0.0, -1.0]])
    y = _extreme_ray(B)
    np.testing.assert_allclose(y / y[0], [1.0, -1e9], rtol=1e-9)
    # three dimensions: the first octant, rows e1, e2, e3, and a dependent pair of rows skipped
    y = _extreme_ray(np.vstack([np.eye(3), [[1.0, 1.0, 0.0]]]))
    assert y.min() >= 0 and np.count_nonzero(np.abs(y) > 1e-12) == 1
    # a zero row's subset has rank 0 and is skipped; row 1's kernel direction ±e2 is tried: e2 is a ray
    y = _extreme_ray(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    np.testing.assert_allclose(np.abs(y), [0.0, 1.0], atol=1e-15)
    assert y[1] > 0


def test_project_active_and_row_checks():
    from gaussqp.linalg.polyhedral_cones import _is_witness, _on_kernel, _project_active, _rows_nonnegative

    U = np.eye(2)
    np.testing.assert_array_equal(_project_active(U, np.array([1e-3, 2e-10])), [1e-3, 0.0])  # at 1e-6 of max
    np.testing.assert_array_equal(_project_active(U, np.array([1e-3, 1e-8])), [1e-3, 1e-8])  # above: kept
    np.testing.assert_array_equal(_project_active(U, np.array([1.0, 2.0])), [1.0, 2.0])
    # rows checked at their own norm: -1e-15 on a row of norm 1e-3 is beyond its round-off (2.2e-16)
    y = np.array([-1e-12, 1.0])
    assert _rows_nonnegative(np.array([[1e-3, 0.0]]), y) is False
    assert _rows_nonnegative(np.array([[1e-3, 0.0], [0.0, 1.0]]), y) is False
    assert _rows_nonnegative(np.array([[1e-3, 0.0]]), np.array([-1e-16, 1.0])) is True
    # a witness is not round-off: B y = 1e-6 against ‖B‖‖y‖ = 1e6 is not one
    assert _is_witness(np.array([[1.0, 0.0]]), 1e6 * np.array([1e-12, 1.0])) is False
    assert _is_witness(np.array([[1.0, 0.0]]), np.array([1e-6, 1.0])) is True
    # G Z: entries at round-off of each row's norm (2.2e-13 ‖G_i‖) are zeroed, the others kept
    B = _on_kernel(1e3 * np.array([[1.0, 1e-12, 1e-14]]), np.eye(3))
    np.testing.assert_array_equal(B, [[1e3, 1e-9, 0.0]])


def test_equilibrated_columns_have_max_one_and_round_off_is_ignored():
    from gaussqp.linalg.polyhedral_cones import _equilibrate

    A = np.array([[1.0, 2.0], [3.0, 5.0], [0.5, 0.0]])
    r, c = _equilibrate(A)
    np.testing.assert_allclose(np.abs(r[:, None] * A * c).max(axis=0), 1.0, rtol=1e-12)
    # a 1e-17 entry (round-off) does not steer the scaling: the same as without it
    A2 = np.array([[1.0, 1e-17], [1.0, 1.0]])
    r2, c2 = _equilibrate(A2)
    r3, c3 = _equilibrate(np.array([[1.0, 0.0], [1.0, 1.0]]))
    np.testing.assert_allclose(r2, r3, rtol=1e-12)
    np.testing.assert_allclose(c2, c3, rtol=1e-12)


def test_lp_falls_back_on_the_raw_lp_when_highs_fails_on_the_equilibrated_one(monkeypatch):
    import gaussqp.linalg.polyhedral_cones as cones
    from scipy.optimize import linprog as real

    calls = []

    def first_fails(c, **kw):
        calls.append(np.array(c))
        res = real(c, **kw)
        if len(calls) == 1:
            res.status, res.message = 4, "numerical difficulties"
        return res

    monkeypatch.setattr("scipy.optimize.linprog", first_fails)
    x, active, _ = cones._lp(np.array([1.0, 2.0]), -np.eye(2), np.zeros(2), np.ones((1, 2)), np.ones(1), free=True)
    np.testing.assert_allclose(x, [1.0, 0.0], atol=1e-12)
    np.testing.assert_array_equal(active, [False, True])
    np.testing.assert_array_equal(calls[1], [1.0, 2.0])  # the raw objective, unscaled


def test_polish_stiemke_rejects_nonpositive_and_singular():
    from gaussqp.linalg.polyhedral_cones import _polish_stiemke

    # the first quadrant is not trivial: Bᵀλ = 0 forces λ ∝ (-1, -1, 1)
    assert _polish_stiemke(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([0.2, 0.3, 0.5])) is None
    assert _polish_stiemke(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([0.1, 0.2, 0.7])) is None
    # a trivial cone: the two smallest entries are re-solved with the largest (0.5) fixed: λ = (0.5, 0.25, 0.25)
    B = np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]])
    lam = _polish_stiemke(B, np.array([0.5, 0.3, 0.2]))
    np.testing.assert_allclose(lam, [0.5, 0.25, 0.25], rtol=1e-15)
    assert np.abs(B.T @ lam).max() <= 1e-15


def test_min_linear_with_two_active_rows_and_a_full_rank_thin_pair():
    # the first octant, f = (1, 2, 3): the minimum 1 is at e1, where two rows (e2, e3) are active
    val, v = min_linear_on_cone(EMPTY3, np.eye(3), np.array([1.0, 2.0, 3.0]), 3)
    assert val == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(v, [1.0, 0.0, 0.0], atol=1e-12)
    # two unit rows at angle √2·1.7e-10: full rank at the cut 1e-10·max(1, ‖B‖₂) (not at 2e-10), so the LP
    # decides: the minimum of v2 is -cot e on the ray (1, -cot e), not the -1 of a line
    eps = np.sqrt(2.0) * 1.7e-10
    val, _ = min_linear_on_cone(EMPTY2, np.array([[1.0, 0.0], [np.cos(eps), np.sin(eps)]]), np.array([0.0, 1.0]), 2)
    assert val == pytest.approx(-1.0 / np.tan(eps), rel=1e-6)


def test_lp_value_one_is_an_lp_witness():
    # one variable, v >= 0: the LP value is exactly 1 (> 1e-9) and its witness is believed
    t = cone_is_trivial(np.zeros((0, 1)), np.array([[1.0]]), 1)
    assert t.trivial is False and t.detail == "LP found a nonzero cone element" and t.margin == -1.0

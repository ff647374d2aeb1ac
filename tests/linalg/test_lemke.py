"""Our Lemke against LCPs with known answers."""

import numpy as np
import pytest

from gaussqp.errors import InputError, NonFiniteError, ShapeError
from gaussqp.linalg.lemke import lemke


def check_lcp(M, q, z, tol=1e-9):
    w = M @ z + q
    assert z.min() >= -tol and w.min() >= -tol
    assert abs(z @ w) <= tol * max(1.0, np.abs(q).max())


@pytest.mark.parametrize("seed", range(25))
def test_planted_p_matrix_lcp(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 12))
    A = rng.standard_normal((k, k))
    M = A @ A.T + 0.1 * np.eye(k)
    z0 = np.where(rng.uniform(size=k) < 0.5, rng.uniform(0.1, 2, k), 0.0)
    w0 = np.where(z0 > 0, 0.0, rng.uniform(0.1, 2, k))
    q = w0 - M @ z0
    res = lemke(M, q)
    assert res.status == "solved"
    np.testing.assert_allclose(res.z, z0, atol=1e-9)  # P-matrix: unique solution


@pytest.mark.parametrize("seed", range(15))
def test_degenerate_psd_lcp_is_solved(seed):
    rng = np.random.default_rng(100 + seed)
    k, r = 8, 3
    B = rng.standard_normal((r, k))
    B = np.vstack([B, B[:2]])  # repeated rows -> degenerate, rank-deficient
    M = B.T @ B
    z0 = np.where(rng.uniform(size=k) < 0.5, rng.uniform(0.0, 1.0, k), 0.0)
    q = -M @ z0 + np.where(z0 > 0, 0.0, rng.uniform(0.0, 1.0, k) * (rng.uniform(size=k) < 0.5))
    res = lemke(M, q)
    assert res.status == "solved"
    check_lcp(M, q, res.z)


def test_ray_termination_on_infeasible_psd_lcp():
    M = np.array([[1.0, -1.0], [-1.0, 1.0]])
    q = np.array([-1.0, -1.0])  # z1 - z2 >= 1 and z2 - z1 >= 1 cannot both hold
    res = lemke(M, q)
    assert res.status == "ray" and res.z is None


def test_trivial_and_bad_covering_vector():
    assert lemke(np.eye(2), np.array([1.0, 0.0])).iterations == 0
    with pytest.raises(ValueError):
        lemke(np.eye(2), np.array([-1.0, 0.0]), d=np.array([1.0, 0.0]))


def rank_one_delassus():
    """The constrained Delassus LCP of the planted problem of seed 2910 (``A_c`` of rank 1, entries ~1e-5..1e-2, whose
    first ratio test ties three rows including z0's)."""
    from gaussqp.mechanics.delassus import constrained_delassus
    from gaussqp.problems import families

    rng = np.random.default_rng(2910)
    n = int(rng.integers(2, 8))
    m_b = min(int(rng.integers(0, 3)), n - 1)
    m_u, red = int(rng.integers(1, 6)), int(rng.integers(1, 3))
    p, _, _ = families.planted(rng, n=n, m_b=m_b, m_u=m_u, redundant=red)
    return constrained_delassus(p)


def test_regression_tie_with_z0_row_on_rank_one_delassus():
    """Planted problem (seed 2910): A_c has rank 1 and entries ~1e-5..1e-2; the first ratio test ties
    three rows including z0's. Before the fix the tie was missed by round-off, a non-z0 row left, and
    the next entering column held only round-off: a false ray on a solvable LCP."""
    cd = rank_one_delassus()
    assert np.linalg.matrix_rank(cd.A_c, tol=1e-10) == 1
    res = lemke(cd.A_c, cd.w_c)
    assert res.status == "solved"
    check_lcp(cd.A_c, cd.w_c, res.z)


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_scaling_invariance(scale):
    rng = np.random.default_rng(7)
    B = rng.standard_normal((2, 6))
    B = np.vstack([B, B[:1], 2 * B[1:2]])
    M = scale * (B.T @ B)
    z0 = np.array([0.5, 0, 0.3, 0, 0, 0.2])
    q = -M @ z0 + np.array([0, 0.1, 0, 0.4, 0, 0]) * scale
    res = lemke(M, q)
    assert res.status == "solved"
    check_lcp(M, q, res.z, tol=1e-9 * scale)


# ------------------------------------------------------------------ pinned behaviour (mutation testing)
from gaussqp.linalg.lemke import LemkeResult, _lex_min_ratio, _name, _refine, farkas_violation, lcp_violation  # noqa: E402


@pytest.mark.parametrize("c", [0.5, 1.0, 3.0])
def test_z0_leaves_on_a_tie(c):
    """Rank-one Delassus matrix of two contacts with very different scales (W = v vᵀ, w = -c v): after the
    diagonal scaling every ratio of the first test ties up to round-off, z0's row among them. Taking z0's
    row ends at a solution; without the rule the lexicographic tie-break picks another row and the next
    entering column holds only round-off: a false ray on a solvable LCP (any z >= 0 with vᵀz = c)."""
    v = np.array([8.967e-3, 5.979e-7])
    M, q = np.outer(v, v), -c * v
    res = lemke(M, q)
    assert res.status == "solved" and res.success and res.iterations == 1  # z0 leaves at the first test
    check_lcp(M, q, res.z, tol=1e-12)
    assert v @ res.z == pytest.approx(c, rel=1e-9)


def test_lex_min_ratio_prefers_z0_row_on_a_tie():
    k, Z0 = 2, 4
    T = np.zeros((3, 2 * k + 2))
    T[:, -1] = [1.0, 1.0, 2.0]
    col = np.array([1.0, 1.0, 1.0])
    rows = np.arange(3)
    # rows 0 and 1 tie at ratio 1; the tie-break on B⁻¹ (columns 0..k-1) would pick row 0
    T[:, 0] = [-1.0, 5.0, 0.0]
    assert _lex_min_ratio(T, col, rows, np.array([0, Z0, 1]), Z0, k, 1e-9) == 1  # z0 basic in row 1
    assert _lex_min_ratio(T, col, rows, np.array([0, 3, 1]), Z0, k, 1e-9) == 0  # lexicographic rule
    T[:, 0] = [5.0, -1.0, 0.0]
    assert _lex_min_ratio(T, col, rows, np.array([0, 3, 1]), Z0, k, 1e-9) == 1
    # second column breaks a tie left by the first
    T[:, 0] = [1.0, 1.0, 0.0]
    T[:, 1] = [3.0, 2.0, 0.0]
    assert _lex_min_ratio(T, col, rows, np.array([0, 3, 1]), Z0, k, 1e-9) == 1
    # ratios 1 and 1 + 1e-6 are not tied at tie_tol = 1e-9 (the smaller wins), tied at 1e-3
    T[:, -1] = [1.0 + 1e-6, 1.0, 2.0]
    T[:, 0] = [-1.0, 5.0, 0.0]
    T[:, 1] = 0.0
    assert _lex_min_ratio(T, col, rows, np.array([0, 3, 1]), Z0, k, 1e-9) == 1
    assert _lex_min_ratio(T, col, rows, np.array([0, 3, 1]), Z0, k, 1e-3) == 0
    # the pivot column divides: ratio 2/4 beats 1/1
    T[:, -1] = [1.0, 2.0, 9.0]
    assert _lex_min_ratio(T, np.array([1.0, 4.0, 1.0]), rows, np.array([0, 3, 1]), Z0, k, 1e-9) == 1


def test_variable_names():
    assert [_name(j, 3) for j in (0, 2, 3, 5, 6)] == ["w0", "w2", "z0", "z2", "z0"]
    assert _name(6, 3) == "z0" and _name(4, 2) == "z0" and _name(1, 2) == "w1"


def test_refine_resolves_the_complementary_basis_exactly():
    """The tableau's values carry round-off; z is re-solved from M_SS z_S = -q_S on the basis."""
    M = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    z_star = np.array([0.7, 0.0, 0.4])
    q = -M @ z_star + np.array([0.0, 0.9, 0.0])
    k = 3
    basis = np.array([k + 0, 1, k + 2])  # z0, w1, z2
    T = np.full((k, 2 * k + 2), 7.0)
    T[:, -1] = [0.7 + 3e-7, 0.9, 0.4 - 2e-7]
    z = _refine(M, q, basis, T, k)
    np.testing.assert_allclose(z, z_star, rtol=0, atol=1e-14)


def test_refine_keeps_the_tableau_when_the_resolve_is_not_a_solution():
    # singular M_SS: the least-squares (min-norm) z_S = (0.5, -0.5) is negative; the tableau's (1, 0) stays
    M = np.array([[1.0, -1.0], [-1.0, 1.0]])
    q = np.array([-1.0, 1.0])
    T = np.full((2, 6), 7.0)
    T[:, -1] = [1.0, 0.0]
    np.testing.assert_allclose(_refine(M, q, np.array([2, 3]), T, 2), [1.0, 0.0], atol=1e-15)
    # min-norm z_S = (0.5, 0.5) >= 0 solves M_SS z_S = -q_S but makes w_2 = -1 < 0; the tableau's
    # (1, 0, 0), even with its round-off, is the better answer and stays
    M = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [3.0, -1.0, 1.0]])
    q = np.array([-1.0, -1.0, -2.0])
    T = np.full((3, 8), 7.0)
    T[:, -1] = [1.0 + 1e-12, 0.0, 1.0]
    z = _refine(M, q, np.array([3, 4, 2]), T, 3)  # z0, z1 basic; w2 basic
    np.testing.assert_allclose(z, [1.0, 0.0, 0.0], atol=1e-11)
    check_lcp(M, q, z, tol=1e-11)
    # a negative tableau value is clipped to 0 when there is nothing to re-solve against
    T[:, -1] = [-1e-13, 0.0, 1.0]
    assert _refine(np.eye(3), np.array([0.0, 0.0, 1.0]), np.array([3, 1, 2]), T, 3)[0] == 0.0


def test_result_fields_and_trivial_cases():
    res = lemke(np.eye(2), np.array([1.0, 0.0]))
    assert res == LemkeResult(z=res.z, w=res.w, status="solved", iterations=0, message="q >= 0: z = 0")
    assert res.success and np.array_equal(res.z, [0.0, 0.0]) and np.array_equal(res.w, [1.0, 0.0])
    q = np.array([2.0, 3.0])
    res = lemke(np.eye(2), q)
    res.w[0] = -5.0
    assert q[0] == 2.0  # w is a copy
    empty = lemke(np.zeros((0, 0)), np.zeros(0))
    assert empty.status == "solved" and empty.z.shape == (0,) and empty.iterations == 0
    assert not LemkeResult(None, None, "ray", 3).success and not LemkeResult(None, None, "max_iter", 3).success
    with pytest.raises(ShapeError, match=r"^M: has shape \(2, 3\), expected \(2, 2\) for q of 2 entries; fix: "):
        lemke(np.ones((2, 3)), np.array([-1.0, 1.0]))
    with pytest.raises(ValueError, match="strictly positive"):
        lemke(np.eye(2), np.array([-1.0, 0.0]), d=np.array([1.0, -2.0]))
    # lists are accepted; q as a column is flattened
    res = lemke([[2.0, 0.0], [0.0, 1.0]], [[-4.0], [1.0]])
    np.testing.assert_allclose(res.z, [2.0, 0.0], atol=1e-14)


def test_ray_termination_pivot_sequence():
    """M = [[1,-1],[-1,1]], q = (-1,-1) (z1 - z2 >= 1 and z2 - z1 >= 1): z0 enters on row 0, z_0 enters
    and w1 leaves (ratio 0 < 1), then the column of z_1 has no positive entry: a ray on z1 at pivot 2."""
    res = lemke(np.array([[1.0, -1.0], [-1.0, 1.0]]), np.array([-1.0, -1.0]))
    assert res.status == "ray" and res.z is None and res.w is None and not res.success
    assert res.iterations == 2 and res.message == "ray termination on entering variable z1"


def test_iteration_limit():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((6, 6))
    M = A @ A.T + np.eye(6)
    q = -M @ np.ones(6)  # solution z = 1 (all six variables basic): at least six pivots
    full = lemke(M, q)
    assert full.status == "solved" and full.iterations >= 6
    np.testing.assert_allclose(full.z, np.ones(6), atol=1e-12)
    cut = lemke(M, q, max_iter=2)
    assert cut.status == "max_iter" and cut.z is None and cut.w is None and cut.iterations == 2
    assert cut.message == "no termination within 2 pivots"
    assert lemke(M, q, max_iter=full.iterations).status == "solved"
    assert lemke(M, q, max_iter=full.iterations - 1).status == "max_iter"


def test_covering_vector_and_first_pivot_row():
    """The first pivot is on argmin q_i/d_i: with d = (1, 10) and q = (-1, -5) that is row 0 (−1 < −0.5);
    a wrong row leaves the tableau infeasible. Any d > 0 gives the unique solution of a P-matrix LCP."""
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-1.0, -5.0])
    z_star = np.linalg.solve(M[1:, 1:], -q[1:])  # z = (0, 2.5): w0 = 2.5 - 1 >= 0
    for d, pivots in ((None, 1), (np.array([1.0, 10.0]), 3), (np.array([10.0, 1.0]), 1), (np.array([0.1, 3.0]), 3)):
        res = lemke(M, q, d=d)
        assert res.status == "solved" and res.iterations == pivots  # the user's d is used, in q's units
        np.testing.assert_allclose(res.z, [0.0, z_star[0]], atol=1e-13)
        np.testing.assert_allclose(res.w, M @ res.z + q, atol=1e-13)


def test_zero_diagonal_entries_are_not_scaled():
    # skew M = [[0, 1], [-1, 0]] (copositive-plus), q = (-1, 1): the unique solution is z = (1, 1), w = 0
    M = np.array([[0.0, 1.0], [-1.0, 0.0]])
    res = lemke(M, np.array([-1.0, 1.0]))
    assert res.status == "solved"
    np.testing.assert_allclose(res.z, [1.0, 1.0], atol=1e-13)
    np.testing.assert_allclose(res.w, [0.0, 0.0], atol=1e-13)
    # a zero diagonal next to a large one: the scaling must leave the zero row alone
    M = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1e6]])
    q = np.array([-1.0, 1.0, -2e6])
    res = lemke(M, q)
    assert res.status == "solved"
    np.testing.assert_allclose(res.z, [1.0, 1.0, 2.0], atol=1e-9)


def test_degenerate_tie_between_two_non_z0_rows_uses_the_lexicographic_rule():
    """M ≻ 0, q = -1: the solution z = (1/2, 0, 1/2) has w = 0 (z_1 = w_1 = 0, degenerate); on the way a
    ratio test ties two rows, neither holding z0, and the lexicographic rule on B⁻¹ decides."""
    M = np.array([[3.0, 2.0, -1.0], [2.0, 2.0, 0.0], [-1.0, 0.0, 3.0]])
    q = -np.ones(3)
    res = lemke(M, q)
    assert res.status == "solved" and res.iterations == 3
    np.testing.assert_allclose(res.z, [0.5, 0.0, 0.5], atol=1e-14)
    np.testing.assert_allclose(res.w, 0.0, atol=1e-14)


def test_lex_min_ratio_tolerances_are_relative():
    k, Z0, rows = 2, 4, np.arange(2)
    basis = np.array([0, 3])
    T = np.zeros((2, 2 * k + 2))
    T[:, 0] = [-1.0, 5.0]  # the lexicographic rule prefers row 0 when the rows tie
    col = np.ones(2)
    # exact ties count with tie_tol = 0
    T[:, -1] = [1.0, 1.0]
    assert _lex_min_ratio(T, col, rows, basis, Z0, k, 0.0) == 0
    T[:, 0] = [5.0, 5.0]
    T[:, 1] = [-1.0, 2.0]
    assert _lex_min_ratio(T, col, rows, basis, Z0, k, 0.0) == 0  # second column decides an exact tie
    T[:, 1] = 0.0
    T[:, 0] = [-1.0, 5.0]
    # large ratios: the tolerance scales with |best| (1000 and 1000 + 1e-7 tie at 1e-9 relative)
    T[:, -1] = [1000.0 + 1e-7, 1000.0]
    assert _lex_min_ratio(T, col, rows, basis, Z0, k, 1e-9) == 0
    # small ratios: the tolerance is absolute below 1 (1 and 1 + 1.5e-9 do not tie at 1e-9)
    T[:, -1] = [1.0 + 1.5e-9, 1.0]
    assert _lex_min_ratio(T, col, rows, basis, Z0, k, 1e-9) == 1
    # the tie-break values are rows of B⁻¹ divided by the pivot column: (1, 1.5)/(1, 2) = (1, 0.75)
    T[:, -1] = [1.0, 2.0]
    T[:, 0] = [1.0, 1.5]
    assert _lex_min_ratio(T, np.array([1.0, 2.0]), rows, basis, Z0, k, 1e-9) == 1
    # lexicographic values tie within the relative tolerance: the next column decides
    T[:, -1] = [1.0, 1.0]
    T[:, 0] = [1000.0, 1000.0 + 1e-7]
    T[:, 1] = [3.0, 2.0]
    assert _lex_min_ratio(T, col, rows, basis, Z0, k, 1e-9) == 1
    T[:, 0] = [1.0, 1.0 + 1.5e-9]
    assert _lex_min_ratio(T, col, rows, basis, Z0, k, 1e-9) == 0


def test_refine_with_a_degenerate_basic_variable_at_zero():
    # z* = (1, 0) with both z's basic (z_1 basic at level 0); the tableau's round-off is removed
    M, q = np.diag([2.0, 3.0]), np.array([-2.0, 0.0])
    T = np.full((2, 6), 7.0)
    T[:, -1] = [1.0 + 3e-7, 1e-7]
    np.testing.assert_allclose(_refine(M, q, np.array([2, 3]), T, 2), [1.0, 0.0], atol=1e-15)


def test_integer_data_give_float_results_and_exact_messages():
    res = lemke([[1, 0], [0, 1]], [1, 0])
    assert res.z.dtype == float and res.w.dtype == float
    res = lemke([[2, 1], [1, 2]], [-3, -3])
    assert res.z.dtype == float
    np.testing.assert_allclose(res.z, [1.0, 1.0], atol=1e-14)
    with pytest.raises(InputError, match=r"^d: the covering vector must be strictly positive; fix: "):
        lemke(np.eye(2), np.array([-1.0, 0.0]), d=np.array([1.0, 0.0]))


@pytest.mark.parametrize("scale", [1e-13, 1e-12, 1e-6, 1e-3, 1e8])
def test_tiny_delassus_entries_are_scaled_to_unit_diagonal(scale):
    """Entries at or below the pivot tolerance (1e-12) are pivoted on after the diagonal scaling: the
    LCP (M ≻ 0, so it has exactly one solution) is solved, not reported as a ray. (Before issue 9 the
    covering vector was scaled with M, d' = D d ~ 3e6 at 1e-13, the pivot tolerance grew with it and
    Lemke reported a false ray.)"""
    rng = np.random.default_rng(11)
    A = rng.standard_normal((4, 4))
    M = scale * (A @ A.T + 0.5 * np.eye(4))
    z_star = np.array([1.0, 0.0, 2.0, 0.0])
    q = -M @ z_star + scale * np.array([0.0, 0.3, 0.0, 0.7])
    res = lemke(M, q)
    assert res.status == "solved"
    np.testing.assert_allclose(res.z, z_star, atol=1e-9)


def test_small_row_is_solved_at_its_own_scale():
    """Before issue 9 the covering vector was scaled with M (d' = D d), so the scaled pivoting followed
    the unscaled path: row 2's ratio tied z0's within tie_tol and z0 left with w_2 = -1e-13, a 100 %
    violation at that row's own scale, reported as solved."""
    M = np.diag([1.0, 1e-13])
    q = np.array([-1.0, -1e-13])  # unique solution z = (1, 1), w = 0
    res = lemke(M, q)
    assert res.status == "solved"
    np.testing.assert_allclose(res.z, [1.0, 1.0], rtol=1e-9)


def test_default_pivot_limit_on_an_exponential_instance():
    """L lower triangular (1 on the diagonal, 2 below), q = -(1, ..., k): Lemke needs 1004 pivots for
    k = 16, more than the documented default limit 50 k + 100 = 900, which stops it exactly there."""
    k = 16
    L = (np.triu(2.0 * np.ones((k, k)), 1) + np.eye(k)).T
    q = -np.arange(1.0, k + 1)
    stopped = lemke(L, q)
    assert stopped.status == "max_iter" and stopped.iterations == 50 * k + 100
    full = lemke(L, q, max_iter=2000)
    assert full.status == "solved" and full.iterations == 1004
    check_lcp(L, q, full.z)


def test_small_q_row_fails_the_row_check_and_the_exact_tie_rerun_solves_it():
    """M = I, q = (-1, -1e-13): in the first run row 1's ratio 1 - 1e-13 ties z0's (1) within tie_tol, z0
    leaves and w_1 = -1e-13 — at row 1's own scale |q_1| = 1e-13 a 100 % violation. The row-wise check
    rejects it and the run with exact ties solves the LCP: z = (1, 1e-13)."""
    q = np.array([-1.0, -1e-13])
    res = lemke(np.eye(2), q)
    assert res.status == "solved" and res.iterations == 1 + 2  # z0 leaves at once; the rerun: z_0, then z_1
    np.testing.assert_allclose(res.z, [1.0, 1e-13], rtol=1e-12, atol=0)
    assert lcp_violation(np.eye(2), q, res.z) <= 1e-15
    # with tie_tol = 0 the first run is the exact one: 2 pivots, no rerun
    assert lemke(np.eye(2), q, tie_tol=0.0).iterations == 2
    # the first run's answer, z = (1, 0), is what the check rejects
    assert lcp_violation(np.eye(2), q, np.array([1.0, 0.0])) == pytest.approx(1.0)


def test_a_ray_that_is_not_a_farkas_vector_is_a_failure_not_a_ray():
    """M = [[0, 1], [2, 0]] is copositive but not copositive-plus: Lemke ends on a secondary ray although
    the LCP is solvable (z = (1/2, 1), w = 0). The ray's z part y = (1, 0) has Mᵀy = (0, 1) > 0: it proves
    nothing, and the result says so instead of "ray"."""
    M, q = np.array([[0.0, 1.0], [2.0, 0.0]]), np.array([-1.0, -1.0])
    res = lemke(M, q)
    assert res.status == "failed" and res.z is None and res.ray is None and not res.success
    assert res.message.startswith("ray termination on entering variable z0, but the ray is not a Farkas vector")
    check_lcp(M, q, np.array([0.5, 1.0]))


def test_a_verified_ray_carries_its_farkas_vector():
    M = np.array([[1.0, -1.0], [-1.0, 1.0]])
    q = np.array([-1.0, -1.0])
    for scale in (1e-13, 1.0, 1e9):
        res = lemke(scale * M, scale * q)
        assert res.status == "ray" and res.iterations == 2
        y = res.ray / res.ray.max()
        np.testing.assert_allclose(y, [1.0, 1.0], rtol=1e-12)
        assert farkas_violation(scale * M, scale * q, res.ray) <= 1e-15


def test_lcp_violation_is_row_wise():
    M, q = np.diag([1.0, 1e-13]), np.array([-1.0, -1e-13])
    assert lcp_violation(M, q, np.array([1.0, 1.0])) == 0.0
    assert lcp_violation(M, q, np.array([1.0, 0.0])) == pytest.approx(1.0)  # w_1 = -1e-13 against 1e-13
    assert lcp_violation(M, q, np.array([1.0, 1.5])) == pytest.approx(0.5e-13 / 2.5e-13)  # z_1 > 0, w_1 > 0
    assert lcp_violation(M, q, np.array([1.0, 0.5])) == pytest.approx(0.5e-13 / 1.5e-13)  # w_1 < 0
    assert lcp_violation(M, q, np.array([1.0 + 1e-9, 1.0])) == pytest.approx(1e-9 / (2 + 1e-9))
    assert lcp_violation(M, q, np.array([-1e-300, 1.0])) == float("inf")  # z < 0
    # a row of scale 0: exact zero passes, anything else is infinitely violated
    Z = np.zeros((2, 2))
    assert lcp_violation(Z, np.array([0.0, 1.0]), np.array([3.0, 0.0])) == 0.0
    assert lcp_violation(Z, np.array([0.0, 1.0]), np.array([3.0, 2.0])) == 1.0


def test_farkas_violation():
    M, q = np.array([[1.0, -1.0], [-1.0, 1.0]]), np.array([-1.0, -1.0])
    assert farkas_violation(M, q, np.array([1.0, 1.0])) == 0.0
    assert farkas_violation(M, q, np.array([1.0, 0.5])) == pytest.approx(0.5 / 1.5)  # (Mᵀy)_0 = 0.5 > 0
    for y in ([1.0, -1e-300], [0.0, 0.0], [np.nan, 1.0], [np.inf, 1.0], []):
        assert farkas_violation(M if len(y) else np.zeros((0, 0)), q if len(y) else np.zeros(0), np.array(y)) == float(
            "inf"
        )
    assert farkas_violation(M, np.array([-1.0, 1.0]), np.array([1.0, 1.0])) == float("inf")  # qᵀy = 0
    # qᵀy < 0 but within its own round-off: no proof
    assert farkas_violation(M, np.array([-1.0, 1.0 - 1e-15]), np.array([1.0, 1.0])) == float("inf")
    assert farkas_violation(M, np.array([-1.0, 1.0 - 1e-12]), np.array([1.0, 1.0])) == 0.0


def test_a_solution_failing_the_row_check_is_a_failure():
    """verify_tol < 0 makes every end fail its check: both runs (tie_tol, then exact ties) are made, their
    pivots counted, and the status is 'failed' with the reason — never 'solved'."""
    M, q = np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-1.0, -5.0])
    res = lemke(M, q, verify_tol=-1.0)
    assert res.status == "failed" and res.z is None and res.w is None and res.iterations == 1 + 1
    assert res.message == "complementary basis fails the row-wise check (violation 0.0e+00)"
    res = lemke(M, q, verify_tol=-1.0, tie_tol=0.0)
    assert res.status == "failed" and res.iterations == 1


def test_the_ray_is_mapped_back_to_the_original_units():
    """M = v vᵀ with v = (1, -2), q = (-1, -1): s = vᵀz >= 1 and -2 s >= 1 cannot both hold. The Farkas
    vector (Mᵀy <= 0 forces vᵀy = 0) is y ∝ (2, 1) in the original units — not the equilibrated (1, 1)."""
    v = np.array([1.0, -2.0])
    M, q = np.outer(v, v), np.array([-1.0, -1.0])
    res = lemke(M, q)
    assert res.status == "ray"
    np.testing.assert_allclose(res.ray / res.ray[1], [2.0, 1.0], rtol=1e-12)
    assert farkas_violation(M, q, res.ray) <= 1e-15


def test_lcp_violation_counts_a_positive_w_next_to_a_positive_z():
    M, q = np.eye(2), np.array([-1.0, -0.25])
    assert lcp_violation(M, q, np.array([1.0, 0.5])) == pytest.approx(0.25 / 0.75)  # z_1 = 0.5 > 0, w_1 = 0.25
    assert lcp_violation(M, q, np.array([1.0, 0.25])) == 0.0


def test_farkas_violation_edge_cases():
    # one variable: M = 1, y = 1 has Mᵀy = 1 > 0 (100 % of its scale)
    assert farkas_violation(np.array([[1.0]]), np.array([-1.0]), np.array([1.0])) == 1.0
    assert farkas_violation(np.array([[-1.0]]), np.array([-1.0]), np.array([1.0])) == 0.0
    # a zero entry in y is allowed; a zero column of M is no violation (0 of scale 0)
    M, q = np.diag([-1.0, 1.0]), np.array([-1.0, 1.0])
    assert farkas_violation(M, q, np.array([1.0, 0.0])) == 0.0
    M = np.array([[-1.0, 0.0], [0.0, 0.0]])
    assert farkas_violation(M, np.array([-1.0, 0.0]), np.array([1.0, 0.0])) == 0.0
    # the round-off of qᵀy is relative to |q|ᵀy, whatever the units of q
    M = np.array([[1.0, -1.0], [-1.0, 1.0]])
    assert farkas_violation(M, 1e6 * np.array([-1.0, 1.0 - 1e-15]), np.array([1.0, 1.0])) == float("inf")
    assert farkas_violation(M, 1e6 * np.array([-1.0, 1.0 - 1e-11]), np.array([1.0, 1.0])) == 0.0


def test_q_nonnegative_is_solved_whatever_m_holds_and_computed_lcps_fail_instead_of_raising():
    """z = 0 solves the LCP when q >= 0, whatever M's entries: that shortcut comes before M's check (a route's product
    that overflowed, with every contact separating, is solved as before). With some q_i < 0, a computed LCP's
    non-finite M ends the run "failed" by :func:`~gaussqp.linalg.lemke.lemke_or_failed`, the routes' call, instead of
    the input error that would name the LCP's M as if the user had given it."""
    from gaussqp.linalg.lemke import lemke_or_failed

    M = np.array([[np.inf, 1.0], [1.0, np.nan]])
    res = lemke(M, np.array([1.0, 0.0]))
    assert res.status == "solved" and np.array_equal(res.z, [0.0, 0.0]) and res.iterations == 0
    with pytest.raises(NonFiniteError, match=r"^M: "):
        lemke(M, np.array([-1.0, 0.0]))
    failed = lemke_or_failed(M, np.array([-1.0, 0.0]))
    assert failed.status == "failed" and failed.z is None and failed.w is None
    assert failed.message == "the computed LCP's M: has a NaN or an infinite entry; fix: pass finite LCP data"
    ok, ref = lemke_or_failed(np.eye(2), np.array([-1.0, 2.0])), lemke(np.eye(2), np.array([-1.0, 2.0]))
    assert ok.status == ref.status == "solved" and np.array_equal(ok.z, ref.z) and np.array_equal(ok.w, ref.w)


def test_an_impact_whose_lcp_overflows_is_solved_as_by_the_other_routes():
    """Found in review: a valid impact (every entry within the validated range) whose percussion LCP's ``A_c²``
    overflows, both contacts separating. LCP (81) gives z = 0, as Moreau's route does, instead of an input error."""
    import warnings

    from gaussqp import Contact
    from gaussqp.impacts import ROUTES
    from gaussqp.model.impact import ImpactProblem

    M = 1e-49 * np.array([[1.0, 1 - 1e-8], [1 - 1e-8, 1.0]])
    contacts = [Contact("unilateral", normal=[1e50, -1e50]), Contact("unilateral", normal=[1e50, -0.9e50])]
    p = ImpactProblem(M, [0.0, -1.0], contacts, restitution=0.5, dimension=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the overflow itself
        lcp, moreau = ROUTES["lcp81"](p), ROUTES["moreau84"](p)
    assert lcp.status == moreau.status == "solved"
    assert np.array_equal(np.abs(lcp.percussion), [0.0, 0.0]) and np.array_equal(np.abs(moreau.percussion), [0.0, 0.0])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", ["M", "q", "d"])
def test_non_finite_data_are_refused_by_name(bad, where):
    """A NaN or an infinite entry is a typed error naming the argument, whatever the path: before, a NaN in M came back
    "solved" with a NaN in w and an infinite q raised IndexError in the ratio test."""
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-1.0, -1.0])
    d = np.array([1.0, 1.0])
    {"M": M, "q": q, "d": d}[where][0 if where != "M" else 1] = bad
    with pytest.raises(NonFiniteError, match=rf"^{where}: has a NaN or an infinite entry; fix: ") as err:
        lemke(M, q, d=d if where == "d" else None)
    assert err.value.field == where
    if where == "q" and bad != -np.inf:  # the check comes before the shortcut of q >= 0 too
        with pytest.raises(NonFiniteError):
            lemke(M, np.array([bad, 1.0]))


def test_covering_vector_of_the_wrong_size_is_a_shape_error():
    with pytest.raises(ShapeError, match=r"^d: has 3 entries, expected 2") as err:
        lemke(np.eye(2), np.array([-1.0, 1.0]), d=np.ones(3))
    assert err.value.field == "d" and isinstance(err.value, ValueError)  # still a ValueError for older callers

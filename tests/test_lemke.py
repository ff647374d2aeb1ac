"""Our Lemke against LCPs with known answers."""

import numpy as np
import pytest

from gaussqp.lemke import lemke


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


def test_regression_tie_with_z0_row_on_rank_one_delassus():
    """Planted problem (seed 2910): A_c has rank 1 and entries ~1e-5..1e-2; the first ratio test ties
    three rows including z0's. Before the fix the tie was missed by round-off, a non-z0 row left, and
    the next entering column held only round-off: a false ray on a solvable LCP."""
    from gaussqp.delassus import constrained_delassus
    from gaussqp.problems import families

    rng = np.random.default_rng(2910)
    n = int(rng.integers(2, 8))
    m_b = min(int(rng.integers(0, 3)), n - 1)
    m_u, red = int(rng.integers(1, 6)), int(rng.integers(1, 3))
    p, _, _ = families.planted(rng, n=n, m_b=m_b, m_u=m_u, redundant=red)
    cd = constrained_delassus(p)
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


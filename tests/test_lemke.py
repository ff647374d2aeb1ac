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

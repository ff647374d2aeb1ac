"""``solve_mass`` (:mod:`gaussqp.linalg.mass`) calls LAPACK's Cholesky directly on a dense float64 M (``cholesky``,
``cholesky_solve``): the numbers, the layout, the checks and the errors of SciPy's ``cho_factor``/``cho_solve``, which
they replace on the hot path."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from gaussqp.linalg.mass import cholesky, cholesky_solve, solve_mass


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 40), cols=st.integers(0, 4), decades=st.floats(-6, 6))
def test_the_numbers_and_the_layout_of_scipys_cholesky(seed, n, cols, decades):
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(n, n))
    M = (R @ R.T + 1e-3 * np.eye(n)) * 10.0**decades
    B = rng.normal(size=n) if cols == 0 else rng.normal(size=(n, cols))
    ref = sla.cho_solve(sla.cho_factor(M), B)
    got = solve_mass(M, B)
    assert got.shape == ref.shape and got.tobytes() == ref.tobytes()
    assert got.flags.f_contiguous == ref.flags.f_contiguous
    kept_M, kept_B = M.copy(), np.array(B)
    solve_mass(M, B)
    assert np.array_equal(M, kept_M) and np.array_equal(B, kept_B)  # neither overwritten
    M.flags.writeable = False  # a problem's read-only mass matrix
    assert solve_mass(M, np.eye(n)).tobytes() == sla.cho_solve(sla.cho_factor(M), np.eye(n)).tobytes()


def test_the_errors_of_scipys_cholesky():
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        solve_mass(np.diag([1.0, -1.0]), np.ones(2))
    with pytest.raises(ValueError, match="infs or NaNs"):
        solve_mass(np.eye(2), np.array([1.0, np.nan]))
    with pytest.raises(ValueError):
        solve_mass(np.eye(2), np.ones(3))  # SciPy's shape error
    # SciPy's order: M factored before B is checked (found by a review: a NaN in B was reported first)
    with pytest.raises(np.linalg.LinAlgError):
        solve_mass(np.diag([1.0, -1.0, 1.0]), np.array([np.nan, 1.0, 1.0]))
    with pytest.raises(ValueError, match="infs or NaNs"):
        solve_mass(np.array([[1.0, np.inf], [np.inf, 1.0]]), np.ones(2))
    with pytest.raises(ValueError, match="could not convert"):  # B is read first (a reviewer's differential test)
        solve_mass(np.diag([1.0, -1.0]), ["a", "b"])


def test_other_inputs_keep_scipys_path():
    M = np.array([[4.0, 1.0], [1.0, 3.0]])
    single = M.astype(np.float32)  # read as float64 (as before): SciPy's double-precision numbers
    ref = sla.cho_solve(sla.cho_factor(single.astype(float)), np.ones(2))
    assert solve_mass(single, np.ones(2)).tobytes() == ref.tobytes()
    for A, B in ((sp.csr_matrix(M), np.ones(2)), (M.tolist(), [1.0, 2.0])):
        assert np.allclose(np.asarray(A if not sp.issparse(A) else A.toarray(), dtype=float) @ solve_mass(A, B), B)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 40), cols=st.integers(0, 50), decades=st.floats(-6, 6))
def test_the_factor_and_its_solves_are_scipys(seed, n, cols, decades):
    """The factor kept by the mode-free route's plan (``cholesky``, F8's ``CoulombPlan``) and its solves
    (``cholesky_solve``, the Delassus rows): ``cho_factor``'s factor and ``cho_solve``'s numbers, bit for bit."""
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(n, n))
    M = (R @ R.T + 1e-3 * np.eye(n)) * 10.0**decades
    B = rng.normal(size=n) if cols == 0 else rng.normal(size=(n, cols))
    c, lower = cholesky(M)
    ref_c, ref_lower = sla.cho_factor(M)
    assert lower == ref_lower and c.tobytes() == ref_c.tobytes()
    got, ref = cholesky_solve((c, lower), B), sla.cho_solve((ref_c, ref_lower), B)
    assert got.shape == ref.shape and got.tobytes() == ref.tobytes()
    low = sla.cho_factor(M, lower=True)  # a lower factor of SciPy's: its triangle read
    assert cholesky_solve(low, B).tobytes() == sla.cho_solve(low, B).tobytes()


def test_other_factors_and_right_hand_sides_keep_scipys_path():
    """Empty, single-precision and complex inputs, and a right-hand side without columns, answer as SciPy does."""
    empty = cholesky(np.zeros((0, 0)))
    assert (
        cholesky_solve(empty, np.zeros(0)).shape == sla.cho_solve(sla.cho_factor(np.zeros((0, 0))), np.zeros(0)).shape
    )
    M = np.array([[4.0, 1.0], [1.0, 3.0]])
    assert cholesky_solve(cholesky(M), np.zeros((2, 0))).shape == (2, 0)
    single = sla.cho_factor(M.astype(np.float32))
    B32 = np.ones(2, dtype=np.float32)
    got, ref = cholesky_solve(single, B32), sla.cho_solve(single, B32)
    assert got.dtype == ref.dtype and got.tobytes() == ref.tobytes()
    Bc = np.array([1.0 + 2.0j, -1.0j])
    assert np.array_equal(cholesky_solve(cholesky(M), Bc), sla.cho_solve(sla.cho_factor(M), Bc))


def test_the_errors_of_scipys_factor_and_solve():
    with pytest.raises(np.linalg.LinAlgError, match="2-th leading minor of the array is not positive definite"):
        cholesky(np.diag([1.0, -1.0]))
    with pytest.raises(ValueError, match="infs or NaNs"):
        cholesky(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match="infs or NaNs"):
        cholesky_solve(cholesky(np.eye(2)), np.array([1.0, np.inf]))
    with pytest.raises(ValueError):
        cholesky_solve(cholesky(np.eye(2)), np.ones(3))  # SciPy's shape error
    with pytest.raises(ValueError, match="infs or NaNs"):  # SciPy checks the factor too (its unused triangle as well)
        cholesky_solve((np.array([[1.0, 0.0], [np.nan, 1.0]]), False), np.ones(2))

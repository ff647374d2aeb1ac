"""``gaussqp.linalg.dense.lu_solver``: LAPACK's LU called directly gives scipy's ``lu_factor``/``lu_solve`` answers
bit for bit, refuses non-finite matrices, and lets an exactly singular one show in its solutions."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
from hypothesis import given, settings, strategies as st

from gaussqp.linalg.dense import lu_solver


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), fortran=st.booleans())
def test_the_same_solutions_as_scipy(seed, n, fortran):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    A = np.asfortranarray(A) if fortran else A
    b = rng.normal(size=n)
    solve = lu_solver(A)
    assert np.array_equal(solve(b), sla.lu_solve(sla.lu_factor(A), b))
    assert np.array_equal(solve(2 * b), sla.lu_solve(sla.lu_factor(A), 2 * b))  # the factors serve again


def test_a_non_finite_matrix_is_refused():
    A = np.eye(3)
    A[0, 1] = np.inf
    with pytest.raises(ValueError, match="non-finite"):
        lu_solver(A)


def test_an_exactly_singular_matrix_gives_non_finite_solutions():
    A = np.array([[1.0, 2.0], [2.0, 4.0]])
    with np.errstate(all="ignore"):
        x = lu_solver(A)(np.array([1.0, 0.0]))
    assert not np.all(np.isfinite(x))


def test_an_empty_matrix_gives_an_empty_solution():
    assert lu_solver(np.zeros((0, 0)))(np.zeros(0)).shape == (0,)

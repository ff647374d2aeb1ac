"""``row_space_by_support`` (issue #27, growth): the rank of sparse contact rows without densifying them, and the
classification of a redundant sparse problem that relies on it."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

import gaussqp
from gaussqp.linalg.dense import matrix_rank, normalize_rows, row_space_by_support, sparse_full_row_rank


def _pile_rows(rng, bodies: int) -> sp.csr_matrix:
    """Normal rows of boxes stacked in a column: each box rests on the one below on four corners (four rows on the
    same 12 columns spanning 3 directions), one of its rows with an exactly zero entry (a smaller support nested in
    the pair's), the bottom box on the ground (support of 6 columns)."""
    n = 6 * bodies
    rows = []
    for b in range(bodies):
        for _ in range(4):
            row = np.zeros(n)
            w = np.concatenate([[1.0], rng.uniform(-1, 1, 2)])  # z translation, two tilts: 3 directions per pair
            row[6 * b + np.array([2, 3, 4])] = w
            if b:
                row[6 * (b - 1) + np.array([2, 3, 4])] = -w
            rows.append(row)
        rows[-1][6 * b + 3] = 0.0  # an exact zero: a nested support
        if b:
            rows[-1][6 * (b - 1) + 3] = 0.0
    return sp.csr_matrix(np.array(rows))


def test_same_rank_as_the_dense_rule_and_fewer_rows():
    rng = np.random.default_rng(0)
    A = _pile_rows(rng, 12)
    B = row_space_by_support(A)
    dense = matrix_rank(A.toarray())
    assert dense == 3 * 12 < A.shape[0]
    assert B.shape[0] == dense  # every redundancy of this stack sits inside a pair of bodies
    assert sparse_full_row_rank(B) is not None
    # the same row space: A's rows are combinations of B's
    coef, *_ = np.linalg.lstsq(B.toarray().T, A.toarray().T, rcond=None)
    np.testing.assert_allclose(B.toarray().T @ coef, A.toarray().T, atol=1e-12)


def test_independent_rows_are_kept_and_empty_input_is_empty():
    A = sp.csr_matrix(sla.block_diag(*[np.array([[1.0, 2.0, 0.5]])] * 5))
    B = row_space_by_support(A)
    assert B.shape == A.shape and matrix_rank(B.toarray()) == 5
    assert row_space_by_support(sp.csr_matrix((0, 4))).shape == (0, 4)


def test_classify_decides_a_redundant_sparse_problem_without_densifying_its_rows(monkeypatch):
    rng = np.random.default_rng(1)
    bodies = 10
    Jn = _pile_rows(rng, bodies)
    n = Jn.shape[1]
    p = gaussqp.ContactProblem.from_blocks(
        sp.identity(n, format="csr"), np.zeros(n), Jn, np.zeros(Jn.shape[0]), "unilateral", dimension=2
    )
    import gaussqp.model.problem as problem_module

    def refuse(*args, **kwargs):
        raise AssertionError("the rows were densified")

    monkeypatch.setattr(problem_module, "as_dense", refuse)
    monkeypatch.setattr(problem_module, "CLASSIFY_SPARSE_DENSE_MAX", 0)  # the sparse path at a test's size
    c = p.classify()
    assert c.normal_rank == 3 * bodies and c.redundant


@pytest.mark.parametrize("eps, delta", [(1e-6, 1e-5), (3e-10, 1e-6)])
def test_a_near_dependence_across_groups_is_not_magnified(eps, delta):
    """A review's case: rows a and a + εb share a support, x = (b, 1) and y = e3 − δe5 are two more groups, so
    x − y = b + δe5: the four rows are numerically dependent (σ_min/σ_max ≤ 5e-12). Each group replaced by unit
    singular vectors had turned εb into a unit row and the result into a full-rank one (classify: rank 4, not
    redundant); with Σ_r V_rᵀ the rank is the dense rule's, 3."""
    a = np.array([1, 1, 1, 0, 0, 0]) / np.sqrt(3)
    b = np.array([1, -1, 0, 0, 0, 0]) / np.sqrt(2)
    x = np.r_[b[:3], 1, 0, 0]
    y = np.array([0, 0, 0, 1, 0, -delta])
    A = np.array([a, a + eps * b, x, y])
    assert matrix_rank(normalize_rows(A)) == 3
    B = row_space_by_support(sp.csr_matrix(normalize_rows(A)))
    assert matrix_rank(B.toarray()) == 3
    p = gaussqp.ContactProblem.from_blocks(sp.eye(6, format="csr"), np.zeros(6), sp.csr_matrix(A), dimension=2)
    c = p.classify()
    assert c.normal_rank == 3 and c.redundant

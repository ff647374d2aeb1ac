"""F1's equilibration ``diag(rows) A diag(cols)`` (:func:`gaussqp.formulations.gauss_qp._scale_rows_cols`): the sparse
branch scales a canonical CSR copy entry by entry (issue #15); it must equal the products with diagonal matrices,
bit for bit, whatever the input's format, and leave the input alone."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gaussqp.formulations.gauss_qp import _scale_cols, _scale_rows_cols


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_scaling_equals_the_diagonal_products(fmt):
    rng = np.random.default_rng(7)
    for _ in range(20):
        m, n = (int(x) for x in rng.integers(1, 30, 2))
        A = sp.random(m, n, density=0.3, random_state=int(rng.integers(1 << 30)), format=fmt)
        A.data *= 10.0 ** rng.uniform(-6, 6, A.data.size)  # entries over twelve decades
        before = A.toarray()
        r, c = 10.0 ** rng.uniform(-6, 6, m), 10.0 ** rng.uniform(-6, 6, n)
        got = _scale_rows_cols(A, r, c)
        assert sp.isspmatrix_csr(got) and got.has_canonical_format
        assert np.array_equal(got.toarray(), (sp.diags(r) @ sp.csr_matrix(A) @ sp.diags(c)).toarray())
        assert np.array_equal(_scale_cols(A, c).toarray(), (sp.csr_matrix(A) @ sp.diags(c)).toarray())
        assert np.array_equal(A.toarray(), before)  # the input is not scaled in place


def test_duplicate_entries_are_summed_before_scaling():
    # a COO matrix with a repeated (row, column): the entries add, then scale
    A = sp.coo_matrix((np.array([1.0, 2.0, 4.0]), (np.array([0, 0, 1]), np.array([1, 1, 0]))), shape=(2, 2))
    got = _scale_rows_cols(A, np.array([2.0, 3.0]), np.array([5.0, 7.0]))
    assert np.array_equal(got.toarray(), np.array([[0.0, 2.0 * 3.0 * 7.0], [3.0 * 4.0 * 5.0, 0.0]]))
    assert got.nnz == 2


def test_dense_scaling_unchanged():
    A = np.arange(6.0).reshape(2, 3)
    got = _scale_rows_cols(A, np.array([1.0, 2.0]), np.array([1.0, 10.0, 100.0]))
    assert np.array_equal(got, np.array([[0.0, 10.0, 200.0], [6.0, 80.0, 1000.0]]))

"""The sparse full-row-rank test's memo (issue #15) is keyed by the matrix itself: same pattern, other values, other
answer."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gaussqp.linalg import dense


def test_memo_is_keyed_by_values_not_only_the_pattern():
    A = sp.csr_matrix(np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]]))
    s = dense.sparse_full_row_rank(A)
    assert s is not None and s > 0.5
    C = sp.csr_matrix(np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 2.0]]))
    assert dense.sparse_full_row_rank(C) is None  # dependent rows (row 3 = row 1 + row 2)
    D = C.copy()
    D.data = D.data * 1.0
    D.data[-1] = 3.0  # same pattern as C, independent rows again
    assert dense.sparse_full_row_rank(D) is not None
    assert dense.sparse_full_row_rank(C) is None and dense.sparse_full_row_rank(A) == s  # answered from the memo


def test_memo_answers_equal_a_fresh_computation(monkeypatch):
    rng = np.random.default_rng(3)
    for _ in range(5):
        A = sp.random(6, 12, density=0.5, random_state=rng, format="csr") + sp.eye(6, 12, format="csr")
        first = dense.sparse_full_row_rank(A)
        monkeypatch.setattr(dense, "_FULL_ROW_RANK_MEMO", type(dense._FULL_ROW_RANK_MEMO)())
        assert dense.sparse_full_row_rank(A) == pytest.approx(first, rel=1e-12)  # ARPACK starts at random

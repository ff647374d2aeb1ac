"""The conic programs' matrices built without scipy's COO conversion (gaussqp.backends.direct.triplets and
csc_from_triplets): the same CSC matrix as ``scipy.sparse``, entry for entry and in the same storage order, whatever
the duplicates, zeros and empty columns."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gaussqp.backends.direct import csc_from_triplets, triplets

values = st.floats(-1e3, 1e3, allow_nan=False).map(lambda x: 0.0 if abs(x) < 1.0 else x)  # many exact zeros


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(0, 7), st.integers(0, 7)), elements=values))
def test_triplets_of_a_dense_array_are_scipys(A):
    r, c, v, shape = triplets(A)
    C = sp.coo_matrix(A)
    assert shape == A.shape
    assert np.array_equal(r, C.row) and np.array_equal(c, C.col) and np.array_equal(v, C.data)
    S = sp.random(5, 4, density=0.5, random_state=1, format="csr")
    r, c, v, shape = triplets(S)
    assert np.array_equal(sp.csc_matrix((v, (r, c)), shape=shape).toarray(), S.toarray())


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 6),
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), values), max_size=30),
)
def test_csc_from_triplets_is_scipys_bit_for_bit(nrows, ncols, entries):
    entries = [(i % nrows, j % ncols, x) for i, j, x in entries]
    rows = np.array([e[0] for e in entries], dtype=np.int64)
    cols = np.array([e[1] for e in entries], dtype=np.int64)
    vals = np.array([e[2] for e in entries], dtype=float)
    got = csc_from_triplets(rows, cols, vals, (nrows, ncols))
    ref = sp.csc_matrix((vals, (rows, cols)), shape=(nrows, ncols))
    ref.sort_indices()
    assert got.shape == ref.shape and got.has_sorted_indices
    assert np.array_equal(got.indptr, ref.indptr) and np.array_equal(got.indices, ref.indices)
    assert np.array_equal(got.data, ref.data)

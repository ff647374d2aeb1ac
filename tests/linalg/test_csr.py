"""gaussqp.linalg.csr: each function gives SciPy's operator's matrix bit for bit — the same pattern, the same storage
order within each row and the same values — on canonical, unsorted, repeated-entry and cancelling matrices."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from gaussqp.linalg import csr

from csr_helpers import same, with_repeats  # tests/ is on sys.path


def random_csr(rng: np.random.Generator, rows: int, cols: int, kind: str) -> sp.csr_matrix:
    """A random CSR matrix: ``canonical``; ``unsorted`` (each row reversed, as a SciPy product leaves it);
    ``repeats`` (some entries stored twice); ``zeros`` (explicit zeros and negative zeros stored)."""
    A = sp.random(rows, cols, density=float(rng.uniform(0.05, 0.9)), format="csr", random_state=rng.integers(2**31))
    A.data = rng.standard_normal(A.nnz) * 10.0 ** rng.integers(-3, 4, A.nnz)
    if kind == "unsorted":
        A = sp.csr_matrix(A @ sp.diags(np.ones(cols)))  # SciPy's product: each row in reverse
    elif kind == "repeats" and A.nnz:
        A = with_repeats(A, 3)
        assert not A.has_canonical_format
    elif kind == "zeros" and A.nnz:
        A.data[rng.integers(0, A.nnz)] = 0.0
        A.data[rng.integers(0, A.nnz)] = -0.0
    return A


KINDS = ("canonical", "unsorted", "repeats", "zeros")


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 25), st.integers(1, 25), st.integers(1, 25)),
    kinds=st.tuples(st.sampled_from(KINDS), st.sampled_from(KINDS)),
)
def test_product_transpose_plus_are_scipys(seed, shape, kinds):
    rng = np.random.default_rng(seed)
    M, K, N = shape
    A = random_csr(rng, M, K, kinds[0])
    B = random_csr(rng, K, N, kinds[1])
    C = random_csr(rng, M, K, kinds[1])
    assert same(csr.product(A, B), A @ B)
    assert same(csr.transpose(A), sp.csr_matrix(A.T))
    assert same(csr.plus(A, C), A + C)
    minus_a = sp.csr_matrix((-A.data, A.indices, A.indptr), shape=A.shape)
    assert same(csr.plus(A, minus_a), A + minus_a)  # every sum exactly zero: dropped by both


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1), shape=st.tuples(st.integers(1, 25), st.integers(1, 25)), kind=st.sampled_from(KINDS)
)
def test_matvec_is_scipys(seed, shape, kind):
    rng = np.random.default_rng(seed)
    A = random_csr(rng, *shape, kind)
    x = rng.standard_normal(shape[1])
    y = rng.standard_normal(shape[0])
    assert np.array_equal(csr.matvec(A, x), A @ x)
    assert np.array_equal(csr.matvec(A, y, transposed=True), A.T @ y)
    assert np.array_equal(csr.matvec(A, x, magnitudes=True), abs(A.copy()) @ x)
    assert np.array_equal(csr.matvec(A, y, transposed=True, magnitudes=True), abs(A.copy()).T @ y)


def test_repeats_ignores_the_order_within_rows():
    assert csr.repeats(with_repeats(sp.eye(3, format="csr"), 1))
    A = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 1]), np.array([0, 3])), shape=(1, 3))
    assert not A.has_canonical_format and not csr.repeats(A)
    B = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2]), np.array([0, 3])), shape=(1, 3))
    assert csr.repeats(B)


def test_index_arrays_are_int32_as_scipy_picks_them():
    A = csr.csr_from_arrays(np.ones(2), np.array([0, 1], dtype=np.int64), np.array([0, 1, 2], dtype=np.int64), (2, 2))
    assert A.indices.dtype == np.int32 and A.indptr.dtype == np.int32
    assert same(A, sp.eye(2, format="csr"))


def test_without_the_compiled_routines_the_operators_run(monkeypatch):
    monkeypatch.setattr(csr, "_HAVE_ROUTINES", False)
    rng = np.random.default_rng(3)
    A, B = random_csr(rng, 6, 5, "unsorted"), random_csr(rng, 5, 4, "canonical")
    assert same(csr.product(A, B), A @ B)
    assert same(csr.transpose(A), sp.csr_matrix(A.T))
    assert same(csr.plus(A, A), A + A)
    x = rng.standard_normal(4)
    assert np.array_equal(csr.matvec(B, x), B @ x)


@pytest.mark.parametrize("kind", KINDS)
def test_csr_entries_follow_the_storage_order(kind):
    A = random_csr(np.random.default_rng(5), 7, 6, kind)
    rows, cols = csr.csr_entries(A)
    dense = np.zeros(A.shape)
    np.add.at(dense, (rows, cols), A.data)
    assert np.array_equal(dense, A.toarray())
    assert np.array_equal(cols, A.indices)


def test_mismatched_shapes_are_refused_as_scipy_refuses_them():
    """SciPy's compiled routines read out of bounds on mismatched operands (a crash on large ones): the shapes are
    checked first."""
    A = sp.csr_matrix((np.ones(2), np.array([0, 3]), np.array([0, 2])), shape=(1, 4))
    with pytest.raises(ValueError, match="matvec"):
        csr.matvec(A, np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="matvec"):
        csr.matvec(A, np.ones(4), transposed=True)
    B = sp.csr_matrix(np.ones((5, 4)))
    with pytest.raises(ValueError, match="product"):
        csr.product(B, B)
    with pytest.raises(ValueError, match="plus"):
        csr.plus(B, sp.csr_matrix(B.T))
    with pytest.raises(ValueError, match="plus"):
        csr.plus(B, sp.csr_matrix(np.ones((5, 3))))
    big = sp.csr_matrix((np.ones(1), np.array([50_000_000]), np.array([0, 1])), shape=(1, 50_000_001))
    with pytest.raises(ValueError, match="matvec"):
        csr.matvec(big, np.ones(1))


def test_summed_sums_repeats_on_a_copy():
    A = with_repeats(sp.csr_matrix(np.arange(1.0, 10.0).reshape(3, 3)), 2)
    before = (A.data.copy(), A.indices.copy(), A.indptr.copy())
    S = csr.summed(A)
    assert S is not A and S.has_canonical_format and not csr.repeats(S)
    assert np.array_equal(S.toarray(), A.toarray())
    assert all(np.array_equal(x, y) for x, y in zip((A.data, A.indices, A.indptr), before))
    B = sp.csr_matrix(np.eye(3))
    assert csr.summed(B) is B


def test_canonical_sums_and_sorts_on_a_copy_and_keeps_a_canonical_matrix():
    """A matrix with repeats (CSR) or unsorted indices (CSC) comes back canonical as a copy, the given arrays left as
    they were; a canonical one comes back itself."""
    A = with_repeats(sp.csr_matrix(np.arange(1.0, 10.0).reshape(3, 3)), 2)
    before = (A.data.copy(), A.indices.copy(), A.indptr.copy())
    C = csr.canonical(A)
    assert C is not A and C.has_canonical_format and np.array_equal(C.toarray(), A.toarray())
    assert all(np.array_equal(x, y) for x, y in zip((A.data, A.indices, A.indptr), before))
    U = sp.csc_matrix((np.array([2.0, 1.0]), np.array([1, 0]), np.array([0, 2, 2])), shape=(2, 2))  # unsorted
    assert not U.has_canonical_format
    V = csr.canonical(U)
    assert isinstance(V, sp.csc_matrix) and V.has_canonical_format and np.array_equal(U.indices, [1, 0])
    assert np.array_equal(V.toarray(), U.toarray())
    B = sp.csr_matrix(np.eye(3))
    assert csr.canonical(B) is B

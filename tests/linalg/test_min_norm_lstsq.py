"""``gaussqp.linalg.dense.min_norm_lstsq``: the minimum-norm least-squares solution (the Newton steps of F9 and its
start), against numpy's SVD-based ``lstsq`` and against the definition."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from gaussqp.linalg.dense import min_norm_lstsq


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(1, 40), cols=st.integers(1, 40), rank=st.integers(0, 40))
def test_it_is_the_minimum_norm_least_squares_solution(seed, rows, cols, rank):
    rng = np.random.default_rng(seed)
    r = min(rank, rows, cols)
    A = rng.normal(size=(rows, r)) @ rng.normal(size=(r, cols)) if r else np.zeros((rows, cols))
    b = rng.normal(size=rows)
    x = min_norm_lstsq(A, b)
    ref = np.linalg.lstsq(A, b, rcond=None)[0]
    scale = max(1.0, float(np.abs(ref).max(initial=0.0)))
    assert np.allclose(x, ref, rtol=0.0, atol=1e-8 * scale)
    # the definition: the normal equations hold, and x has no component in ker A (it lies in the row space)
    assert np.allclose(A.T @ (A @ x - b), 0.0, atol=1e-8 * max(1.0, float(np.abs(A).sum())) * max(1.0, scale))
    if r:
        _, s, Vt = np.linalg.svd(A)
        kernel = Vt[int(np.sum(s > s[0] * 1e-10)) :]
        assert np.allclose(kernel @ x, 0.0, atol=1e-8 * scale)


def test_a_non_finite_system_gives_a_non_finite_answer_not_an_exception():
    A = np.eye(3)
    A[1, 2] = np.nan
    assert np.all(np.isnan(min_norm_lstsq(A, np.ones(3))))
    assert np.all(np.isnan(min_norm_lstsq(np.eye(2), np.array([np.inf, 1.0]))))


def test_an_empty_system_gives_zero():
    assert np.array_equal(min_norm_lstsq(np.zeros((0, 3)), np.zeros(0)), np.zeros(3))


def test_numpys_rank_rule_where_the_rank_is_clear():
    """Singular values two decades either side of ``max(shape) ε`` (numpy's ``rcond``): kept above, dropped below,
    as numpy's SVD decides (a looser or tighter rule fails one of the two)."""
    rng = np.random.default_rng(3)
    U, _ = np.linalg.qr(rng.normal(size=(8, 8)))
    V, _ = np.linalg.qr(rng.normal(size=(8, 8)))
    b = rng.normal(size=8)
    threshold = 8 * np.finfo(float).eps
    for small, kept in ((threshold * 100, True), (threshold / 100, False)):
        A = U @ np.diag([1.0] * 7 + [small]) @ V.T
        x, ref = min_norm_lstsq(A, b), np.linalg.lstsq(A, b, rcond=None)[0]
        if kept:  # the small direction solved for: a solution of size |b|/σ, accurate to ε cond ≈ 1e-3 here
            assert np.linalg.norm(ref) > 1e10
            assert np.allclose(x, ref, rtol=0, atol=1e-2 * np.abs(ref).max())
        else:  # dropped: the minimum-norm solution on the seven others, of size |b|
            assert np.linalg.norm(ref) < 10
            assert np.allclose(x, ref, rtol=0, atol=1e-12)

"""Shared linear algebra: the sparse rank certificate against the dense SVD rule."""

import numpy as np
import pytest
import scipy.sparse as sp

from gaussqp.linalg.dense import matrix_rank, normalize_rows, sparse_full_row_rank


@pytest.mark.parametrize("seed", range(6))
def test_sparse_full_row_rank_matches_dense_svd(seed):
    """The sparse rank certificate (shift-invert Lanczos on AAᵀ) returns σ_min of the dense SVD, and
    refuses (None) rank-deficient, nearly deficient and wide-row cases rather than guess."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(5, 120))
    n = k + int(rng.integers(0, 80))
    A = sp.random(k, n, density=0.1, random_state=seed) + sp.eye(k, n)
    s = sparse_full_row_rank(A)
    sv = np.linalg.svd(A.toarray(), compute_uv=False)
    assert s == pytest.approx(sv[-1], rel=1e-8)
    assert sparse_full_row_rank(sp.vstack([A, A[1] - 2 * A[0]])) is None
    near = sp.vstack([A[:-1], 1e-9 * A[-1] + A[0]])
    assert sparse_full_row_rank(near) is None
    assert sparse_full_row_rank(A.T) is None or n == k


def test_normalize_rows_sparse_in_sparse_out():
    A = sp.random(30, 20, density=0.2, random_state=0, format="csr")
    N = normalize_rows(A)
    assert sp.issparse(N)
    assert np.allclose(N.toarray(), normalize_rows(A.toarray()))
    assert matrix_rank(N) == matrix_rank(A)


def test_sparse_dependent_rows_reach_the_exact_uniqueness_lp():
    """Sparse rows that are dependent are not certified by the sparse test; the dense rank and the LP
    decide, as for the dense copy of the same problem (two copies of one active row: λ not unique)."""
    import gaussqp

    rows = [[1.0, 0, 0], [1.0, 0, 0], [0, 1.0, 0]]
    for J in (sp.csr_matrix(rows), np.array(rows)):
        p = gaussqp.ContactProblem.from_blocks(
            sp.diags([1.0, 2.0, 3.0]) if sp.issparse(J) else np.diag([1.0, 2.0, 3.0]),
            [1.0, -2.0, 0.5],
            J,
            [-1.0, -1.0, 0.0],
            "unilateral",
        )
        sol = gaussqp.get_formulation("gauss_qp").solve(p)
        cert = sol.certificate("unique_multipliers")
        assert sol.status == "solved" and cert.holds is False and "LP" in cert.source
        assert next(c for c in gaussqp.check(p).certificates if c.id == "C2").holds is False


def test_sparse_factor_in_batches_equals_the_dense_factor_of_each_block():
    """Issue #15: the components of a sparse M are eigendecomposed in batches of equal size; each block's factor,
    kernel, scaling and eigenvalues are those of the dense factorization of that block alone."""
    import scipy.sparse as sp

    from gaussqp.linalg.mass import _eig_factor_dense, factor_mass

    rng = np.random.default_rng(3)
    blocks = []
    for _ in range(40):
        s = int(rng.integers(1, 5))
        A = rng.standard_normal((s, s))
        B = A @ A.T if rng.uniform() > 0.25 else np.outer(A[:, 0], A[:, 0])  # some singular blocks
        blocks.append(B * 10 ** rng.uniform(-6, 6))
    perm = rng.permutation(sum(b.shape[0] for b in blocks))
    M = sp.block_diag(blocks, format="csr")[perm][:, perm]
    f = factor_mass(M)
    inv = np.argsort(perm)
    start, rank = 0, 0
    for b in blocks:
        s = b.shape[0]
        idx = inv[start : start + s]  # where block b's coordinates went
        Rb, Kb, wb, sb = _eig_factor_dense(b)
        np.testing.assert_array_equal(f.scaling[idx], sb)
        rank += Rb.shape[0]
        got = f.R.toarray()[:, idx].T @ f.R.toarray()[:, idx]
        np.testing.assert_allclose(got, Rb.T @ Rb, rtol=1e-12, atol=1e-12 * np.abs(b).max())
        start += s
    assert f.rank == rank
    assert np.abs(M @ f.kernel).max() <= 1e-9 * abs(M).max()
    assert f.kernel.shape[1] == M.shape[0] - f.rank


@pytest.mark.parametrize("shape", [(2, 1), (5, 0), (30, 27), (9, 4), (400, 300)])
def test_surplus_null_vector_is_a_unit_kernel_vector_of_the_transpose(shape):
    """More rows than columns: a unit q with Aᵀq = 0 to round-off (the last column of the complete QR), for C- and
    column-ordered input, without changing A."""
    from gaussqp.linalg.dense import surplus_null_vector

    rng = np.random.default_rng(shape[0])
    for A in (rng.normal(size=shape), np.asfortranarray(rng.normal(size=shape))):
        before = A.copy()
        q = surplus_null_vector(A)
        assert q.shape == (shape[0],) and np.linalg.norm(q) == pytest.approx(1.0)
        assert np.abs(A.T @ q).max(initial=0.0) <= 1e-13 * max(1.0, np.linalg.norm(A))
        assert np.array_equal(A, before)


def test_surplus_null_vector_refuses_a_matrix_without_surplus_rows():
    """No more rows than columns: a kernel vector is a rank decision, not a count (ValueError)."""
    from gaussqp.linalg.dense import surplus_null_vector

    with pytest.raises(ValueError, match="more rows than columns"):
        surplus_null_vector(np.eye(3))

"""The sparse set-up of the mode-free route, assembled from CSR arrays (gaussqp.linalg.csr), gives the matrices its
SciPy formulas give, bit for bit and in the same storage order: the contact blocks ``J`` (a row permutation of
``[J_n; J_t]``), M⁻¹ by blocks, ``W = J M⁻¹ Jᵀ`` symmetrized, W's diagonal blocks, and the uniqueness test's verdict.
The Newton's path depends on the order in which products add their terms, so "the same numbers" is what keeps every
answer of the study where it was."""

from __future__ import annotations

from gaussqp.model.problem import NormalRowsRank

from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from gaussqp import problems
from gaussqp.formulations.coulomb import contact_blocks
from gaussqp.friction import nonsmooth_newton as nn
from gaussqp.friction.coulomb_uniqueness import coulomb_uniqueness
from gaussqp.settings import COULOMB_NN_BLOCK_MAX

from csr_helpers import same, with_repeats  # tests/ is on sys.path


# ------------------------------------------------------------------ the SciPy formulas (the reference)
def reference_contact_blocks(p) -> sp.csr_matrix:
    m, d = p.m, p.dimension
    Jn, Jt = sp.csr_matrix(p.J_n), sp.csr_matrix(p.J_t)
    keep_t = np.repeat(np.asarray(p.has_tangent, dtype=bool), d - 1)
    tangent_pos = (np.arange(m)[:, None] * d + np.arange(1, d)[None, :]).ravel()
    stacked = sp.vstack([Jn, Jt[np.flatnonzero(keep_t)]], format="csr")
    pos = np.concatenate([np.arange(m) * d, tangent_pos[keep_t]])
    P = sp.csr_matrix((np.ones(pos.size), (pos, np.arange(pos.size))), shape=(m * d, pos.size))
    return sp.csr_matrix(P @ stacked)


def reference_small_inverse(M: sp.csr_matrix) -> sp.csr_matrix:
    from scipy.sparse.csgraph import connected_components

    M = sp.csr_matrix(M)
    n = M.shape[0]
    ncomp, label = connected_components(M, directed=False)
    rows, cols, vals = [np.zeros(0, int)], [np.zeros(0, int)], [np.zeros(0)]
    for c in range(ncomp):
        idx = np.flatnonzero(label == c)
        if idx.size > COULOMB_NN_BLOCK_MAX:
            continue
        inv = np.linalg.inv(M[idx][:, idx].toarray())
        rows.append(np.repeat(idx, idx.size))
        cols.append(np.tile(idx, idx.size))
        vals.append(inv.ravel())
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))


def reference_delassus(M, J) -> sp.csr_matrix:
    W = sp.csr_matrix(J @ reference_small_inverse(M) @ J.T)
    return sp.csr_matrix((W + W.T) / 2)


# ------------------------------------------------------------------ generated data
def block_mass(rng: np.random.Generator, sizes: list[int]) -> sp.csr_matrix:
    """A symmetric positive definite M of dense blocks (bodies), their coordinates interleaved by a permutation."""
    blocks = []
    for s in sizes:
        A = rng.standard_normal((s, s))
        blocks.append(A @ A.T + s * np.eye(s))
    M = sp.block_diag(blocks, format="csr")
    perm = rng.permutation(M.shape[0])
    return sp.csr_matrix(M[perm][:, perm])


def contact_problem(rng: np.random.Generator, m: int, d: int, n: int, unsorted: bool) -> SimpleNamespace:
    Jn = sp.random(m, n, density=float(rng.uniform(0.1, 0.6)), format="csr", random_state=rng.integers(2**31))
    Jt = sp.random(m * (d - 1), n, density=float(rng.uniform(0.1, 0.6)), format="csr", random_state=rng.integers(2**31))
    Jn.data, Jt.data = rng.standard_normal(Jn.nnz), rng.standard_normal(Jt.nnz)
    if unsorted:  # rows as a SciPy product leaves them (reversed)
        Jn, Jt = sp.csr_matrix(Jn @ sp.eye(n)), sp.csr_matrix(Jt @ sp.eye(n))
    if Jn.nnz:
        Jn.data[0] = 0.0  # explicit zeros, which the permutation's product drops
    if Jt.nnz:
        Jt.data[-1] = -0.0
    return SimpleNamespace(
        m=m,
        dimension=d,
        n=n,
        J_n=Jn,
        J_t=Jt,
        modes=np.array(["coulomb"] * m),
        friction=np.full(m, 0.5),
        has_tangent=rng.random(m) < 0.8,
        normal_drift=rng.standard_normal(m),
        tangent_drift=rng.standard_normal(m * (d - 1)),
    )


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(st.integers(1, 8), min_size=1, max_size=6),
    m=st.integers(1, 10),
    d=st.sampled_from([2, 3]),
    unsorted=st.booleans(),
)
def test_setup_matrices_are_the_scipy_formulas(seed, sizes, m, d, unsorted):
    rng = np.random.default_rng(seed)
    M = block_mass(rng, sizes)
    p = contact_problem(rng, m, d, M.shape[0], unsorted)
    J, drift, mu = contact_blocks(p)
    assert same(J, reference_contact_blocks(p))
    assert same(nn.BlockInverse(M).small, reference_small_inverse(M))
    W, _ = nn.sparse_delassus(M, J)
    assert same(W, reference_delassus(M, J))
    base = np.arange(m)[:, None, None] * d
    rows = np.broadcast_to(base + np.arange(d)[None, :, None], (m, d, d)).ravel()
    cols = np.broadcast_to(base + np.arange(d)[None, None, :], (m, d, d)).ravel()
    blocks = np.asarray(sp.csr_matrix(W)[rows, cols]).reshape(m, d, d)
    assert np.array_equal(nn.diagonal_blocks(W, m, d).view(np.int64), blocks.view(np.int64))


def test_repeated_entries_take_the_scipy_formulas():
    """Rows given with an entry stored twice (not SciPy's canonical format): the product sums them, and so does the
    path that takes the product itself."""
    rng = np.random.default_rng(11)
    p = contact_problem(rng, 4, 3, 9, unsorted=False)
    p.has_tangent = np.ones(4, dtype=bool)  # every tangent row is kept: the repeated entries reach J
    p.J_t = with_repeats(p.J_t, 3)
    assert not p.J_t.has_canonical_format
    J = contact_blocks(p)[0]
    assert same(J, reference_contact_blocks(p))
    assert J.nnz < p.J_n.nnz + p.J_t.nnz  # the repeated entries summed into one each


def test_block_inverse_sums_repeated_mass_entries():
    """A mass matrix with an entry stored twice stands for their sum (SciPy's convention): M⁻¹ by blocks is the
    inverse of that sum."""
    M = sp.csr_matrix((np.array([1.0, 1.0, 3.0]), np.array([0, 0, 1]), np.array([0, 2, 3])), shape=(2, 2))
    assert np.allclose(nn.BlockInverse(M) @ np.ones(2), [0.5, 1.0 / 3.0], rtol=0, atol=1e-15)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 8),
    d=st.sampled_from([2, 3]),
    kind=st.sampled_from(["canonical", "unsorted", "repeats"]),
    scale=st.sampled_from([0.0, 0.05, 0.3, 1.0]),
)
def test_uniqueness_necessary_condition_is_the_scipy_formula(seed, m, d, kind, scale):
    """On random W (symmetric positive definite, unsorted or with repeated entries): the uniqueness test's verdict is
    the one its exact necessary condition gives when computed with SciPy's operators, whenever that condition decides
    (and, with repeated entries, SciPy's operators are what run)."""
    rng = np.random.default_rng(seed)
    N = m * d
    A = rng.standard_normal((N, N))
    Wd = A @ A.T + N * np.eye(N)
    Wd[np.abs(Wd) < 0.5] = 0.0
    Wd = (Wd + Wd.T) / 2
    W = sp.csr_matrix(Wd)
    if kind == "unsorted":
        W = sp.csr_matrix(W @ sp.eye(N))
    elif kind == "repeats":
        W = with_repeats(W, 2)
    mu = np.full(m, scale)
    got = coulomb_uniqueness(W, mu, d)
    want = _reference_uniqueness_shortcut(W.copy(), mu, d)
    if want is not None:
        assert got == want
    else:
        assert "too large for the strong-monotonicity test (μ_max times a tangential row" not in got[1]


def test_setup_of_the_shipped_generated_problems():
    """On every shipped generated FCLIB problem in the global form: the contact blocks, W and W's diagonal blocks are
    the SciPy formulas' arrays, and the uniqueness test's verdict at the problem's μ, at μ/100 and at 0 is the one its
    exact necessary condition gives when computed with SciPy's operators."""
    checked = 0
    for name in problems.generated_names():
        p = problems.load(name)
        if p.form != "global" or not sp.issparse(p.M):
            continue
        J, _, mu = contact_blocks(p)
        assert same(J, reference_contact_blocks(p)), name
        W, _ = nn.sparse_delassus(p.M, J)
        assert same(W, reference_delassus(p.M, J)), name
        for scale in (1.0, 0.01, 0.0):
            got = coulomb_uniqueness(W, mu * scale, p.dimension)
            want = _reference_uniqueness_shortcut(W, mu * scale, p.dimension)
            if want is not None:
                assert got[0] is want[0] and got[1] == want[1], name
        checked += 1
    assert checked >= 10


def _reference_uniqueness_shortcut(W, mu, d):
    """The verdict of the uniqueness test's exact necessary condition computed with SciPy's operators, or None when
    that condition does not decide (then the dense factorization does, on the same numbers in both)."""
    m = mu.size
    N = m * d
    base = np.arange(m)[:, None, None] * d
    rows = np.broadcast_to(base + np.arange(d)[None, :, None], (m, d, d)).ravel()
    cols = np.broadcast_to(base + np.arange(d)[None, None, :], (m, d, d)).ravel()
    nrm = np.linalg.norm(np.asarray(sp.csr_matrix(W)[rows, cols]).reshape(m, -1), axis=1)
    if not np.all(nrm > 0):
        return None
    s = np.repeat(1.0 / np.sqrt(nrm), d)
    Wt = sp.csr_matrix(sp.diags(s) @ W @ sp.diags(s))
    T = Wt[np.flatnonzero(np.arange(N) % d)]
    row_norms = np.sqrt(np.asarray(T.multiply(T).sum(axis=1)).ravel())
    mu_max = float(mu.max(initial=0.0))
    if mu_max * float(row_norms.max(initial=0.0)) >= float(np.asarray(Wt.diagonal()).min()):
        return None, (
            f"μ_max = {mu_max:.3g} is too large for the strong-monotonicity test (μ_max times a tangential row of W̃ "
            "exceeds a diagonal entry of W̃_s): uniqueness is not decided"
        )
    return None


def reference_dynamics_residual(problem, a, lam_n, lam_t) -> float:
    """The answer's dynamics residual as SciPy's operators computed it (the formula of ``global_solution``, in its
    order: SciPy's ``abs`` of a block not in canonical format sorts that block in place before the products)."""
    from gaussqp.settings import COULOMB_DYNAMICS_FLOOR

    F = np.asarray(problem.F, dtype=float)
    Ma = np.asarray(problem.M @ a).ravel()
    Jn_abs, Jt_abs = abs(sp.csr_matrix(problem.J_n)), abs(sp.csr_matrix(problem.J_t))
    gen = np.asarray(problem.J_n.T @ lam_n).ravel() + np.asarray(problem.J_t.T @ lam_t.ravel()).ravel()
    scale = (
        np.asarray(abs(problem.M) @ np.abs(a)).ravel()
        + np.abs(F)
        + np.asarray(Jn_abs.T @ np.abs(lam_n)).ravel()
        + np.asarray(Jt_abs.T @ np.abs(lam_t.ravel())).ravel()
    )
    scale = np.maximum(scale, COULOMB_DYNAMICS_FLOOR * float(scale.max(initial=0.0)))
    return float(np.max(np.abs(Ma + F - gen) / np.where(scale > 0, scale, 1.0), initial=0.0))


def test_dynamics_residual_is_the_scipy_formula_on_every_kind_of_block():
    """The mode-free answer's dynamics residual (``global_solution``) equals, bit for bit, the one SciPy's operators
    give on the same answer, for blocks in canonical format, unsorted and with repeated entries (two copies of each
    problem: the SciPy path sorts such blocks in place)."""
    import gaussqp

    base = problems.load("fclib_generated/quadruped-s0-i0007-m12")
    variants = {
        "canonical": (base.J_n, base.J_t),
        "unsorted": (sp.csr_matrix(base.J_n @ sp.eye(base.n)), sp.csr_matrix(base.J_t @ sp.eye(base.n))),
        "repeats": (with_repeats(base.J_n, 2), with_repeats(sp.csr_matrix(base.J_t @ sp.eye(base.n)), 3)),
    }
    for kind, (Jn, Jt) in variants.items():
        mine = base.with_blocks(J_n=Jn.copy(), J_t=Jt.copy())
        theirs = base.with_blocks(J_n=Jn.copy(), J_t=Jt.copy())
        sol = gaussqp.solve(mine, crosscheck=False)
        assert sol.acceleration is not None, kind
        want = reference_dynamics_residual(theirs, sol.acceleration, sol.lambda_normal, sol.lambda_tangent)
        assert sol.residuals["dynamics"] == want, kind


def test_equilibrated_normals_for_the_rank_from_the_stored_entries():
    """The system class's dense rank input, ``J_n S`` with unit rows, from a sparse ``J_n``'s stored entries equals
    SciPy's sparse formula to round-off (canonical, unsorted and repeated-entry rows), and gives its rank."""
    from gaussqp.linalg.dense import as_dense, matrix_rank, normalize_rows

    base = problems.load("fclib_generated/quadruped-s0-i0007-m12")
    for kind, Jn in {
        "canonical": base.J_n,
        "unsorted": sp.csr_matrix(base.J_n @ sp.eye(base.n)),
        "repeats": with_repeats(base.J_n, 3),
    }.items():
        p = base.with_blocks(J_n=Jn.copy())
        s = p.mass_factor.scaling
        want = as_dense(normalize_rows(sp.csr_matrix(Jn.copy() @ sp.diags(s))))
        got = NormalRowsRank(p.J_n, p.mass_factor.scaling, p.n).equilibrated(dense=True)
        assert np.allclose(got, want, rtol=0, atol=4 * np.finfo(float).eps), kind
        assert matrix_rank(got) == matrix_rank(want) == p.classify().normal_rank, kind


def test_inputs_left_as_given_and_zero_rows_ranked():
    """The rank input and M⁻¹ by blocks sum repeated entries on copies (a problem's own arrays are not sorted or summed
    in place), and a normal row whose stored entries are zeros or cancel counts as a zero row, not as a NaN."""
    import gaussqp

    Jn = sp.csr_matrix(
        (np.array([1.0, 0.0, 3.0, -3.0, 2.0]), np.array([0, 1, 2, 2, 3]), np.array([0, 1, 2, 4, 5])), shape=(4, 4)
    )
    M = sp.csr_matrix(
        (np.array([1.0, 1.0, 2.0, 3.0, 4.0]), np.array([0, 0, 1, 2, 3]), np.array([0, 2, 3, 4, 5])), shape=(4, 4)
    )
    p = gaussqp.ContactProblem.from_blocks(M=M, F=np.ones(4), J_n=Jn, dimension=2)
    before = [(A.data.copy(), A.indices.copy(), A.indptr.copy()) for A in (p.J_n, p.M)]
    assert p.classify().normal_rank == 2  # rows 1 and 2 are zero: the zero entry, and 3 − 3
    nn.BlockInverse(p.M)
    for A, (data, indices, indptr) in zip((p.J_n, p.M), before):
        assert np.array_equal(A.data, data) and np.array_equal(A.indices, indices) and np.array_equal(A.indptr, indptr)

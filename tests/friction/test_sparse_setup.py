"""The sparse set-up of the mode-free route, assembled from CSR arrays (gaussqp.linalg.csr), gives the matrices its
SciPy formulas give, bit for bit and in the same storage order: the contact blocks ``J`` (a row permutation of
``[J_n; J_t]``), M⁻¹ by blocks, ``W = J M⁻¹ Jᵀ`` symmetrized, W's diagonal blocks, and the uniqueness test's verdict.
The Newton's path depends on the order in which products add their terms, so "the same numbers" is what keeps every
answer of the study where it was."""

from __future__ import annotations

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
        Jn.data[0] = 0.0  # an explicit zero, which the permutation's product drops
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
    p.J_t = with_repeats(p.J_t)
    assert not p.J_t.has_canonical_format
    assert same(contact_blocks(p)[0], reference_contact_blocks(p))


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

"""The system class is decided once per problem, and the same whether the rows are stored dense or sparse."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

import gaussqp
from gaussqp.model.problem import ContactProblem
from gaussqp.problems import families


def _stored(p: ContactProblem, sparse: bool) -> ContactProblem:
    conv = sp.csr_matrix if sparse else (lambda A: np.asarray(A.toarray() if sp.issparse(A) else A))
    return p.with_blocks(M=conv(p.M), J_n=conv(p.J_n), J_t=conv(p.J_t))


def test_classified_once_per_problem():
    """The dispatcher, the formulation's ``accepts`` and the reports ask the class again: the same object each time."""
    big = _stored(families.chain(6, lift=1.5, duplicate_every=2), sparse=True)
    first = big.classify()
    assert big.classify() is first
    gaussqp.solve(big, crosscheck=False)
    assert big.classify() is first


def test_dense_and_sparse_storage_classify_alike():
    for p in (families.chain(8, lift=1.5, duplicate_every=2), families.chain(5, lift=1.0, duplicate_every=0)):
        dense, sparse = _stored(p, sparse=False), _stored(p, sparse=True)
        a, b = dense.classify(), sparse.classify()
        assert a.normal_rank == b.normal_rank and a.redundant == b.redundant and a.key == b.key

"""``ContactProblem.with_blocks``: a copy with some blocks replaced, the others (and the dimension, name and
description) kept, every replaced block validated as ``from_blocks`` validates it."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gaussqp import problems
from gaussqp.errors import NegativeFrictionError, NonFiniteError, ShapeError


def test_the_blocks_given_are_replaced_and_the_others_kept():
    p = problems.load("real/humanoid_lying")
    F = np.asarray(p.F) * 2.0
    modes = ["coulomb" if str(m) == "sticking" else str(m) for m in p.modes]
    q = p.with_blocks(F=F, modes=modes, name="other")
    assert np.array_equal(q.F, F) and list(map(str, q.modes)) == modes and q.name == "other"
    assert "coulomb" in modes and modes != list(map(str, p.modes))
    for attr in ("M", "J_n", "J_t", "normal_drift", "tangent_drift", "friction", "slip", "has_tangent"):
        a, b = getattr(p, attr), getattr(q, attr)
        a, b = (a.toarray(), b.toarray()) if sp.issparse(a) else (a, b)
        assert np.array_equal(np.asarray(a), np.asarray(b)), attr
    assert (q.dimension, q.description) == (p.dimension, p.description)
    sparse = p.with_blocks(J_n=sp.csr_matrix(p.J_n), J_t=sp.csr_matrix(p.J_t))
    assert sparse.sparse and np.array_equal(sparse.J_n.toarray(), np.asarray(p.J_n))


def test_a_replaced_block_is_validated():
    p = problems.load("real/humanoid_lying")
    with pytest.raises(ShapeError):
        p.with_blocks(J_n=np.zeros((p.m, p.n + 1)))
    with pytest.raises(NonFiniteError):
        p.with_blocks(F=np.full(p.n, np.nan))
    with pytest.raises(NegativeFrictionError):
        p.with_blocks(friction=-np.ones(p.m))

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


@pytest.mark.parametrize("sliding", [False, True])
def test_mode_free_frees_the_told_unilateral_contacts_and_keeps_a_bilateral_ones_told_mode(sliding):
    """``coulomb`` is for unilateral contacts: a bilateral frictional constraint told sticking or sliding keeps its mode
    (re-posing it raised an UnknownValueError before); the told unilateral ones are freed as asked."""
    from gaussqp import Contact, ContactProblem

    n = 6
    rows = np.eye(n)
    contacts = [
        Contact("bilateral", rows[0], friction=0.5, mode="sticking", tangent=rows[[1]]),
        Contact("bilateral", rows[2], friction=0.5, mode="sliding", tangent=rows[[3]], slip=np.array([1.0])),
        Contact("unilateral", rows[4], friction=0.5, mode="sticking", tangent=rows[[5]]),
        Contact("unilateral", rows[5], friction=0.5, mode="sliding", tangent=rows[[4]], slip=np.array([-1.0])),
    ]
    p = ContactProblem(np.eye(n), np.zeros(n), contacts, dimension=2)
    free = p.mode_free(sliding=sliding)
    assert [str(m) for m in free.modes] == ["sticking", "sliding", "coulomb", "coulomb" if sliding else "sliding"]

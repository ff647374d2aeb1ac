"""The system class is decided once per problem, and the same whether the rows are stored dense or sparse."""

from __future__ import annotations

from gaussqp.model.problem import NormalRowsRank

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


def test_the_rank_of_the_normal_rows_is_computed_when_first_read():
    """No route keys on the rank: a solve leaves it undecided; reading it, or the solution's record of the class,
    decides it once, with the value and notes an eager computation gives."""
    p = _stored(families.chain(8, lift=1.5, duplicate_every=2), sparse=True)
    sol = gaussqp.solve(p, crosscheck=False)
    c = p.classify()
    assert not c.rank_decided
    record = sol.extras["system_class"]
    assert record["mass"] == c.mass and record["friction"] == c.modes and not c.rank_decided
    assert record["normal_rank"] == NormalRowsRank(p.J_n, p.mass_factor.scaling, p.n)() < p.m and c.rank_decided
    assert c.redundant and c.notes[0] == f"normal rows redundant: rank {c.normal_rank} < {p.m} contacts"
    assert record == c.as_dict() and dict(record) == c.as_dict()


def test_a_system_class_is_an_immutable_record_whatever_its_rank_source():
    import copy
    import pickle
    from dataclasses import FrozenInstanceError

    import pytest

    from gaussqp.model.system_class import SystemClass

    fields = dict(
        n=4, mass="singular", mass_rank=3, constraints="unilateral", modes="frictionless", m_bilateral=0, m_unilateral=3
    )
    calls = []
    lazy = SystemClass(**fields, normal_rank=lambda: calls.append(1) or 2, dimension=3)
    eager = SystemClass(**fields, normal_rank=2, dimension=3)
    assert not calls and lazy.key == eager.key and not calls
    assert lazy == eager and hash(lazy) == hash(eager) and len(calls) == 1
    assert lazy.notes == ("normal rows redundant: rank 2 < 3 contacts", "mass matrix singular: rank 3 < n = 4")
    assert lazy.redundant and repr(lazy) == repr(eager) and len(calls) == 1
    for other in (copy.deepcopy(lazy), pickle.loads(pickle.dumps(lazy)), pickle.loads(pickle.dumps(lazy.record()))):
        assert other == eager or dict(other) == eager.as_dict()
    with pytest.raises(FrozenInstanceError):
        lazy.n = 5  # type: ignore[misc]
    given = SystemClass(**fields, normal_rank=2, redundant=False, dimension=3, notes=("given",))
    assert not given.redundant and given.notes == ("given",)  # as given, although rank 2 < 3 rows
    assert (
        list(lazy.as_dict())
        == list(lazy.record())
        == [
            "n",
            "mass",
            "mass_rank",
            "constraints",
            "friction",
            "m_bilateral",
            "m_unilateral",
            "normal_rank",
            "redundant",
            "dimension",
            "notes",
        ]
    )
    with pytest.raises(TypeError, match="dimension"):
        SystemClass(**fields, normal_rank=3)


def test_a_copy_or_a_pickle_leaves_the_rank_to_its_first_read_and_the_record_is_json():
    """Copying or pickling a solution does not compute the rank (on a pile of 2,199 contacts a dense QR of seconds);
    the copy computes the same rank when read. The solution's record is JSON through ``to_jsonable``, as the dict."""
    import copy
    import json
    import pickle

    from gaussqp.jsonable import to_jsonable

    p = _stored(families.chain(8, lift=1.5, duplicate_every=2), sparse=True)
    sol = gaussqp.solve(p, crosscheck=False)
    c = p.classify()
    for other in (pickle.loads(pickle.dumps(sol)), copy.deepcopy(sol)):
        assert not c.rank_decided and not other.extras["system_class"]._cls.rank_decided
        assert other.extras["system_class"]["normal_rank"] == NormalRowsRank(p.J_n, p.mass_factor.scaling, p.n)() < p.m
    assert not c.rank_decided
    text = json.dumps(to_jsonable({"system_class": sol.extras["system_class"]}))
    assert json.loads(text)["system_class"] == c.as_dict() and c.rank_decided


def test_printing_a_solution_or_its_class_computes_only_a_cheap_rank(monkeypatch):
    """The printed forms compute the rank when it is a small dense SVD (a robot, the guide's examples), and otherwise
    show ``<not computed>`` for it and what follows from it (on a pile of 2,199 contacts the rank is seconds of QR,
    and beyond the entry limit a refusal): a solution printed stays as cheap as solved."""
    from gaussqp.model import problem as problem_module

    small = _stored(families.chain(8, lift=1.5, duplicate_every=2), sparse=True)
    gaussqp.solve(small, crosscheck=False)
    assert not small.classify().rank_decided
    assert "normal_rank=15" in repr(small.classify()) and small.classify().rank_decided
    monkeypatch.setattr(problem_module, "CLASSIFY_SPARSE_DENSE_MAX", 0)  # the sparse path at a test's size
    p = _stored(families.chain(8, lift=1.5, duplicate_every=2), sparse=True)
    sol = gaussqp.solve(p, crosscheck=False)
    c = p.classify()
    text = repr(sol.extras) + repr(c) + str(sol.extras["system_class"])
    assert not c.rank_decided and text.count("<not computed>") == 9
    assert "normal_rank=<not computed>" in repr(c) and "'normal_rank': <not computed>" in repr(sol.extras)
    rank = c.normal_rank
    assert f"normal_rank={rank}" in repr(c) and f"'normal_rank': {rank}" in repr(sol.extras)
    assert "<not computed>" not in repr(c) + repr(sol.extras)


def test_a_dropped_problem_is_freed_without_the_cyclic_collector():
    """The class's rank callable holds the rows, not the problem (which holds the class): a problem dropped after a
    solve is freed by reference counting, with its arrays, not at the next cyclic collection."""
    import gc
    import weakref

    was = gc.isenabled()
    gc.disable()
    try:
        p = _stored(families.chain(8, lift=1.5, duplicate_every=2), sparse=True)
        sol = gaussqp.solve(p, crosscheck=False)
        assert not p.classify().rank_decided
        ref = weakref.ref(p)
        del p, sol
        assert ref() is None
    finally:
        if was:
            gc.enable()

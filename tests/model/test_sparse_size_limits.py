"""Size limits that depend on the storage (issue #15): dense normal rows are bounded by m × n entries at
construction; sparse rows by their stored entries, and by m × n only where the classification would have to
densify them (the sparse test could not prove full row rank)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp
from gaussqp import ContactProblem
from gaussqp.jsonable import to_jsonable
from gaussqp.errors import InputTooLargeError
from gaussqp.model import problem as problem_module
from gaussqp.problems import families


def _sparse(m: int, n: int, duplicate: bool) -> ContactProblem:
    rows = sp.eye(m, n, format="csr")
    if duplicate:
        rows = sp.vstack([rows, rows[:1]], format="csr")
    k = rows.shape[0]
    return ContactProblem.from_blocks(sp.eye(n, format="csr"), np.zeros(n), rows, np.ones(k), "unilateral")


def test_dense_rows_beyond_the_entry_limit_are_refused_at_construction(monkeypatch):
    monkeypatch.setattr(problem_module, "ENTRIES_MAX", 50)
    with pytest.raises(InputTooLargeError, match="J_n"):
        ContactProblem.from_blocks(np.eye(10), np.zeros(10), np.eye(6, 10), np.ones(6), "unilateral")


def test_sparse_rows_beyond_m_times_n_are_accepted_when_their_rank_is_proven(monkeypatch):
    monkeypatch.setattr(problem_module, "ENTRIES_MAX", 50)
    p = _sparse(20, 30, duplicate=False)  # m × n = 600 > 50, 20 stored entries
    c = p.classify()
    assert c.normal_rank == 20 and not c.redundant


def _cycle(m: int, n: int) -> ContactProblem:
    """m independent rows on the columns 4 … m+3, and four rows on columns 0-3 that close a cycle
    (e0+e1, e1+e2, e2+e3, e0+e3: dependent, though no row's support holds another's)."""
    rows = sp.hstack([sp.csr_matrix((m, 4)), sp.eye(m, n - 4)], format="csr")
    cycle = sp.csr_matrix(np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1], [1, 0, 0, 1]], dtype=float))
    rows = sp.vstack([rows, sp.hstack([cycle, sp.csr_matrix((4, n - 4))])], format="csr")
    k = rows.shape[0]
    return ContactProblem.from_blocks(sp.eye(n, format="csr"), np.zeros(n), rows, np.ones(k), "unilateral")


def test_sparse_rows_whose_rank_needs_densifying_are_refused_by_name(monkeypatch):
    monkeypatch.setattr(problem_module, "CLASSIFY_SPARSE_DENSE_MAX", 0)  # the sparse path at a test's size
    monkeypatch.setattr(problem_module, "ENTRIES_MAX", 50)
    p = _cycle(20, 30)  # a dependency across rows of different supports: full rank cannot be proven sparsely
    c = p.classify()  # the rank is computed when first read (no route keys on it): the refusal comes then
    with pytest.raises(InputTooLargeError, match="J_n.*densify"):
        c.normal_rank
    with pytest.raises(InputTooLargeError, match="J_n.*densify"):
        c.normal_rank  # a refused computation stays to be done: every read of the rank gets the refusal
    # the whole record (a solution's JSON, a report) says it instead of raising, after the problem was solved
    record = c.as_dict()
    assert record["normal_rank"] is None and record["redundant"] is None
    assert record["notes"][0].startswith("normal rows' rank not computed:") and "J_n" in record["notes"][0]
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.status == "solved" and json.loads(json.dumps(to_jsonable(sol.extras)))["system_class"] == record
    assert "<not computed>" in repr(sol.extras) and "<not computed>" in repr(c)  # printing never computes it
    monkeypatch.setattr(problem_module, "ENTRIES_MAX", 10_000)
    assert c.normal_rank == 23 and c.redundant  # within the limit the dense QR decides it
    assert c.as_dict()["normal_rank"] == 23 and "<not computed>" not in repr(c)


def test_a_refused_rank_is_decided_once_per_limit_and_the_cli_reports_it(monkeypatch, tmp_path, capsys):
    """The record's three keys that need the rank ask it in turn: a refusal is raised again at once while the entry
    limit is the one it was decided under (the sparse tests and the grouping by support took 1.4 s a time on 6,000
    rows), decided again under another limit; ``gaussqp check`` prints it as not computed, with and without --json."""
    from gaussqp.cli import main
    from gaussqp.io.gaussqp_format import dump

    monkeypatch.setattr(problem_module, "CLASSIFY_SPARSE_DENSE_MAX", 0)
    monkeypatch.setattr(problem_module, "ENTRIES_MAX", 50)
    grouped = []
    real = problem_module.row_space_by_support
    monkeypatch.setattr(problem_module, "row_space_by_support", lambda A: grouped.append(1) or real(A))
    p = _cycle(20, 30)
    record = p.classify().as_dict()
    assert record["normal_rank"] is None and len(grouped) == 1  # three keys, one computation
    for _ in range(2):
        with pytest.raises(InputTooLargeError, match="J_n.*densify"):
            p.classify().normal_rank
    assert len(grouped) == 1
    monkeypatch.setattr(problem_module, "ENTRIES_MAX", 60)  # another limit: decided again (refused again)
    assert p.classify().as_dict()["normal_rank"] is None and len(grouped) == 2
    path = tmp_path / "cycle.npz"
    dump(p, path)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "normal rank not computed (J_n: has 720 rows" in out
    assert main(["check", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["system_class"]["normal_rank"] is None


def test_a_repeated_sparse_row_is_decided_without_densifying(monkeypatch):
    """Rows of nested supports (a repeated row, the contacts between two bodies) are reduced group by group
    (:func:`gaussqp.linalg.dense.row_space_by_support`) and the rest proven sparsely (issue #27, growth)."""
    monkeypatch.setattr(problem_module, "CLASSIFY_SPARSE_DENSE_MAX", 0)  # the sparse path at a test's size
    monkeypatch.setattr(problem_module, "ENTRIES_MAX", 50)
    c = _sparse(20, 30, duplicate=True).classify()
    assert c.normal_rank == 20 and c.redundant


def test_a_chain_of_12000_coordinates_is_built_and_classified():
    p = families.chain(6000, lift=1.5)  # m × n ≈ 1.4e8 > ENTRIES_MAX = 2.5e7, sparse
    assert p.n == 12000 and p.sparse
    assert not p.classify().redundant

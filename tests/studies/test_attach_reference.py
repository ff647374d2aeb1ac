"""``attach_reference`` is the one way a study's rows get their reference columns (issue #26 item 8): the runner
calls it (it re-implemented it before), over a mapping or a lazily read iterable of problems alike."""

from __future__ import annotations

import math

import gaussqp
from gaussqp.studies import attach_reference, runner
from gaussqp.studies.reference import answer_json


def _row(set_name, pid, sol, formulation, **over):
    row = {
        "set": set_name,
        "problem": pid,
        "formulation": formulation,
        "solver": "direct",
        "tolerance": "high",
        "status": str(sol.status),
        "certified": bool(sol.certified),
        "claimed_success": True,
        "answer": answer_json(sol),
        "reference": "none",
        "agrees_with_reference": None,
        "acceleration_gap": math.nan,
        "generalized_force_gap": math.nan,
    }
    row.update(over)
    return row


def test_one_implementation_for_mappings_iterables_and_the_runner(monkeypatch):
    p = gaussqp.problems.load("rod_wall_guide")
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.certified
    rows = [
        _row("lib", "rod", sol, "gauss_qp"),
        _row("lib", "rod", sol, "lcp_lemke"),
        _row("other", "kept", sol, "gauss_qp", reference="exact:lcp_lemke", agrees_with_reference=True),
    ]
    by_map = attach_reference(rows, {("lib", "rod"): p})
    by_iter = attach_reference(rows, iter([(("lib", "rod"), p)]))
    assert (
        [r["reference"] for r in by_map]
        == [r["reference"] for r in by_iter]
        == ["exact:lcp_lemke"] * 2 + ["exact:lcp_lemke"]
    )  # the orphan (another set's row) keeps the columns it has
    assert [r["agrees_with_reference"] for r in by_map] == [True, True, True]
    assert all(r["correct"] for r in by_map)
    assert rows[0]["reference"] == "none"  # the input rows are not changed

    class OneProblemSet:
        name = "lib"

        def __iter__(self):
            yield "rod", p

    calls = []
    real = runner.attach_reference
    monkeypatch.setattr(runner, "attach_reference", lambda r, probs: calls.append(1) or real(r, probs))
    table = runner._judge(OneProblemSet(), rows)
    assert calls == [1]
    assert [r["reference"] for r in table] == [r["reference"] for r in by_map]
    assert set(table[0]) == set(runner.COLUMNS)

"""Smoke test of ``benchmarks/coulomb_schedule.py`` (issue #27): an order's cost is its pairs' times up to the first that
converges, the convex program's (or the sweeps') time charged once when a pair from it is reached; the script runs on a shipped
generated quadruped and prints one row per order."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmark_scripts import load_benchmark

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("h5py", reason="FCLIB files need the optional extra gaussqp[fclib] (h5py)")


schedule = load_benchmark("coulomb_schedule")


def _pair(t: float, ok: bool) -> dict:
    return {"theta": 0.01, "start": "starts", "t": t, "it": 1, "res": 0.0 if ok else 1.0, "ok": ok}


def test_an_order_costs_its_pairs_up_to_the_first_that_converges():
    rec = {
        "convex": 10.0,
        "sweeps": 100.0,
        "attempts": [_pair(1.0, False), _pair(2.0, False), _pair(4.0, True), None, _pair(8.0, True), _pair(16.0, True)],
    }
    computed = {3: "convex", 4: "convex", 5: "sweeps"}
    assert schedule.order_cost(rec, [0, 1, 2, 3, 4, 5], computed) == (7.0, 2)
    assert schedule.order_cost(rec, [0, 3, 4, 1, 2, 5], computed) == (19.0, 4)  # the convex program once, pair 3 empty
    assert schedule.order_cost(rec, [0, 1], computed) == (3.0, None)
    assert schedule.order_cost(rec, [5, 0], computed) == (116.0, 5)  # the sweeps' time charged with their pair


def test_the_script_compares_orders_on_a_shipped_quadruped(tmp_path, capsys):
    path = ROOT / "tests" / "data" / "generated" / "quadruped-s1-i0214-m10.hdf5"
    out = tmp_path / "schedule.md"
    assert schedule.main([str(path), "--order", "3,0,1,2,4,5,6,7,8", "--markdown", str(out)]) == 0
    table = out.read_text()
    assert "| current |" in table and "| 3,0,1,2,4,5,6,7,8 |" in table and table.startswith("1 problems")
    assert "6 = (θ 0.01, sweeps)" in table
    with pytest.raises(SystemExit):
        schedule.main([str(path), "--order", "0,0,1,2,4,5,6,7,8"])  # not a permutation

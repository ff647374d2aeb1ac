"""Smoke test of ``benchmarks/coulomb_schedule.py`` (issue #27): an order's cost is its pairs' times up to the first that
converges, the convex program's time charged once when a convex pair is reached; the script runs on a shipped
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
    rec = {"convex": 10.0, "attempts": [_pair(1.0, False), _pair(2.0, False), _pair(4.0, True), None, _pair(8.0, True)]}
    convex = {3, 4}
    assert schedule.order_cost(rec, [0, 1, 2, 3, 4], convex) == (7.0, 2)
    assert schedule.order_cost(rec, [0, 3, 4, 1, 2], convex) == (19.0, 4)  # the convex program once, pair 3 empty
    assert schedule.order_cost(rec, [0, 1], convex) == (3.0, None)


def test_the_script_compares_orders_on_a_shipped_quadruped(tmp_path, capsys):
    path = ROOT / "tests" / "data" / "generated" / "quadruped-s1-i0214-m10.hdf5"
    out = tmp_path / "schedule.md"
    assert schedule.main([str(path), "--order", "3,0,1,2,4,5", "--markdown", str(out)]) == 0
    table = out.read_text()
    assert "| current |" in table and "| 3,0,1,2,4,5 |" in table and table.startswith("1 problems")
    with pytest.raises(SystemExit):
        schedule.main([str(path), "--order", "0,0,1,2,4,5"])  # not a permutation

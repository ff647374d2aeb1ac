"""Smoke test of ``benchmarks/dense_newton_loop.py`` (issue #27): on shipped generated problems the script times the
dense Newton's iterations, lists a file answered another way with the reason, and prints the table by size; with
``--before`` it compares only files solved with the same iterations on both sides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmark_scripts import load_benchmark

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("h5py", reason="FCLIB files need the optional extra gaussqp[fclib] (h5py)")

bench = load_benchmark("dense_newton_loop")
DATA = ROOT / "problems" / "data" / "fclib_generated"


def test_the_script_times_the_dense_iterations_and_compares_with_a_before(tmp_path, capsys):
    dense, sparse = DATA / "quadruped-s0-i0007-m12.hdf5", DATA / "sphere_pile-s0-i0001-m98.hdf5"
    out_json = tmp_path / "rows.json"
    assert bench.main([str(dense), str(sparse), "--repeat", "1", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("quadruped-s0-i0007-m12"))
    assert " 36 unknowns" in row and " us/it." in row
    assert "sphere_pile-s0-i0001-m98.hdf5" in out and "not timed: path newton, sparse linear algebra" in out
    rows = json.loads(out_json.read_text())
    its = rows["quadruped-s0-i0007-m12.hdf5"]["iterations"]
    assert its > 0 and rows["quadruped-s0-i0007-m12.hdf5"]["seconds"] > 0
    assert f"| 0–59 | 1 | {its} |" in out
    # a "before" twice as slow per iteration, and one whose iterations differ (not the same work: left out)
    before = {k: dict(v) for k, v in rows.items()}
    before["quadruped-s0-i0007-m12.hdf5"]["seconds"] *= 2.0
    (tmp_path / "before.json").write_text(json.dumps(before))
    assert bench.main([str(dense), "--repeat", "1", "--before", str(tmp_path / "before.json")]) == 0
    table = capsys.readouterr().out.split("| unknowns")[1]
    assert "| 0–59 | 1 |" in table and "before, µs per iteration" in table
    before["quadruped-s0-i0007-m12.hdf5"]["iterations"] = its + 1
    (tmp_path / "before.json").write_text(json.dumps(before))
    assert bench.main([str(dense), "--repeat", "1", "--before", str(tmp_path / "before.json")]) == 0
    assert "| 0–59 |" not in capsys.readouterr().out

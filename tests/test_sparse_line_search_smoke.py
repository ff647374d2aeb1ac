"""Smoke test of ``benchmarks/sparse_line_search.py`` (issue #27): on a shipped generated quadruped whose route runs
sparse Newton iterations, the script captures them, checks the compiled search against ``_search`` bit for bit and
prints a row; a problem solved without a sparse iteration is listed as such."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmark_scripts import load_benchmark

from gaussqp.friction.compiled import kernels

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("h5py", reason="FCLIB files need the optional extra gaussqp[fclib] (h5py)")
pytestmark = pytest.mark.skipif(kernels() is None, reason="numba is not installed: pip install 'gaussqp[fast]'")

bench = load_benchmark("sparse_line_search")
DATA = ROOT / "problems" / "data" / "fclib_generated"


def test_the_script_times_the_captured_searches_of_a_sparse_route(capsys):
    sparse, dense = DATA / "quadruped-s0-i0016-m77.hdf5", DATA / "quadruped-s0-i0007-m12.hdf5"
    assert bench.main([str(sparse), str(dense), "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("quadruped-s0-i0016-m77"))
    unknowns, searches = (int(x) for x in row.split()[1:3])
    assert unknowns == 231 and searches > 0 and " us " in row
    assert "quadruped-s0-i0007-m12.hdf5" in out and "no sparse Newton iteration" in out


def test_a_compiled_search_that_differs_stops_the_script(monkeypatch):
    """The bit-for-bit check is real: a compiled search moved by one ulp in its step length is refused."""
    import numpy as np

    from gaussqp.friction import nonsmooth_newton as nn

    real = nn._compiled_sparse_search
    calls = bench.capture(str(DATA / "quadruped-s0-i0016-m77.hdf5"))
    assert calls
    monkeypatch.setattr(
        nn, "_compiled_sparse_search", lambda *a: (lambda o: (*o[:2], np.nextafter(o[2], 2.0), *o[3:]))(real(*a))
    )
    with pytest.raises(SystemExit, match="differs"):
        bench.main([str(DATA / "quadruped-s0-i0016-m77.hdf5"), "--rounds", "1"])

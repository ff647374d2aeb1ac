"""Smoke test of ``benchmarks/forward_error_ab.py`` (issue #28): both sides run on a few humanoid states, every answer
solved, the two sides give the same certificate, the "before" side really takes the NumPy steps, and the compiled
steps are switched back on afterwards."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_benchmark

from gaussqp import problems
from gaussqp.certificates import compiled, instance

pytestmark = pytest.mark.skipif(
    compiled.kernels() is None, reason="numba is not installed: pip install 'gaussqp[fast]'"
)

bench = load_benchmark("forward_error_ab")


def test_both_sides_run_and_the_kernel_is_switched_back(capsys):
    real = instance._compiled_steps
    bench.switch(False)
    assert instance._compiled_steps(None, None, None, None, 0.0) is None  # the NumPy steps answer
    bench.switch(True)
    assert instance._compiled_steps is real
    assert bench.same_certificates(bench.frictionless(problems.load("real/humanoid_lying")))
    assert bench.main(["--states", "2"]) == 0
    out = capsys.readouterr().out
    assert "paired ratio" in out and "| False |" not in out
    assert instance._compiled_steps is real

"""Smoke test of ``benchmarks/polish_skip_ab.py`` (issue #28): both variants run on a few humanoid states, every answer
certified, and the "polished" variant does polish (the skip is what differs), then the threshold is restored."""

from __future__ import annotations

import numpy as np
import pytest
from benchmark_scripts import load_benchmark

from gaussqp.backends import fast_backend
from gaussqp.certificates import polish as polish_module
from gaussqp.settings import FAST_QP_BACKENDS

pytestmark = pytest.mark.skipif(
    fast_backend(None, FAST_QP_BACKENDS) is None, reason="DAQP is not installed: pip install 'gaussqp[fast]'"
)

bench = load_benchmark("polish_skip_ab")


def test_both_variants_run_and_the_threshold_is_restored(capsys):
    threshold = polish_module.POLISH_SKIP_RESIDUAL
    on, off, ratio, polished = bench.paired(4, False, np.random.default_rng(0))
    assert on > 0 and off > 0 and ratio > 0 and polished >= 1
    assert polish_module.POLISH_SKIP_RESIDUAL == threshold
    assert bench.main(["--states", "2"]) == 0
    assert "per-state ratio" in capsys.readouterr().out

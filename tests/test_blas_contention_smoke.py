"""``benchmarks/blas_contention.py`` runs: a few states of one row, with a busy core and without, its table printed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("threadpoolctl", reason="threadpoolctl is not installed: pip install threadpoolctl")


def test_the_contention_benchmark_prints_its_table():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "blas_contention.py"), "--states", "3", "--rows", "frictionless"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line for line in out.stdout.splitlines() if line.startswith("| frictionless |")]
    assert len(rows) == 2 and "busy" in rows[0] and "quiet" in rows[1]

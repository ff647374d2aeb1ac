"""Issue #28 (a benchmark, not a test): the judge's compiled checks (:mod:`gaussqp.certificates.compiled`) and data
scales (:func:`gaussqp.model.compiled_kernels.row_scales`), one switch, against their NumPy code, paired in one process
on the shipped humanoid. Every state is solved twice in a row, once with ``settings.CERTIFICATES_COMPILED`` on and once
off (the order alternating), each time as a fresh problem object, so the machine's drift over the run (another job on
the core) weighs on both alike; the medians and the median of the per-state ratios are printed. Everything else (the routes, Lemke's and the Newton method's kernels, loaded first) is
the same on both sides. CPU time, BLAS on one thread.

    python benchmarks/compiled_checks_ab.py [--states 150]
"""

from __future__ import annotations

import argparse
import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402

import gaussqp.settings as gsettings  # noqa: E402
from gaussqp import problems  # noqa: E402

from speed import frictionless, paired_switch, states  # noqa: E402
from steady import load_compiled_kernels  # noqa: E402


def paired(p, crosscheck: bool, count: int, rng) -> tuple[float, float, float]:
    """(median ms with the NumPy checks, median ms compiled, median per-state ratio) over ``count`` states of ``p``."""

    def switch(flag: bool) -> None:
        gsettings.CERTIFICATES_COMPILED = flag

    return paired_switch(states(p, count + 1, rng), crosscheck, switch)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--states", type=int, default=150)
    args = ap.parse_args(argv)
    print(load_compiled_kernels())
    base = problems.load("real/humanoid_lying")
    rows = {
        "frictionless, cross-check on": (frictionless(base), True),
        "frictionless, cross-check off": (frictionless(base), False),
        "all sticking, cross-check on": (base, True),
        "mode-free, cross-check off": (base.mode_free(), False),
        "mode-free, cross-check on": (base.mode_free(), True),
    }
    rng = np.random.default_rng(0)
    print(f"humanoid lying (n = {base.n}, {base.m} contacts), {args.states} states, CPU ms per solve (medians)")
    print("| row | NumPy checks | compiled checks | paired ratio |\n|---|---:|---:|---:|")
    for name, (p, crosscheck) in rows.items():
        slow, fast, ratio = paired(p, crosscheck, args.states, rng)
        print(f"| {name} | {slow:.3f} | {fast:.3f} | {ratio:.2f}× |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

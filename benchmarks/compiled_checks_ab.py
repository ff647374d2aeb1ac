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
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402

import gaussqp  # noqa: E402
import gaussqp.settings as gsettings  # noqa: E402
from gaussqp import problems  # noqa: E402

from speed import frictionless, states  # noqa: E402
from steady import load_compiled_kernels  # noqa: E402


def paired(p, crosscheck: bool, count: int, rng) -> tuple[float, float, float]:
    """(median ms with the NumPy checks, median ms compiled, median per-state ratio) over ``count`` states of ``p``."""
    sts = states(p, count + 1, rng)
    for flag in (True, False):  # warm-up: kernels compiled or loaded, routes' imports done
        gsettings.CERTIFICATES_COMPILED = flag
        gaussqp.solve(sts[0].with_force(sts[0].F), crosscheck=crosscheck)
    on, off = [], []
    for i, s in enumerate(sts[1:]):
        for flag in (True, False) if i % 2 == 0 else (False, True):
            gsettings.CERTIFICATES_COMPILED = flag
            q = s.with_force(s.F)
            t = time.process_time()
            sol = gaussqp.solve(q, crosscheck=crosscheck)
            (on if flag else off).append(time.process_time() - t)
            if sol.status != "solved":
                raise SystemExit(f"state {i}: {sol.status} ({sol.message})")
    gsettings.CERTIFICATES_COMPILED = True
    return float(np.median(off)) * 1e3, float(np.median(on)) * 1e3, float(np.median(np.array(off) / np.array(on)))


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

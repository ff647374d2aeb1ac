"""Issue #28 (a benchmark, not a test): the polish of an active-set answer at round-off skipped
(:func:`gaussqp.certificates.polish.polish`: DAQP's answer within ``settings.POLISH_SKIP_RESIDUAL``) against polished
as before, paired in one process on the shipped humanoid made frictionless (DAQP's small dense path). Every state is
solved twice in a row, once each way (the order alternating), each time as a fresh problem object, so the machine's
drift weighs on both alike; the medians and the median of the per-state ratios are printed, and every answer must be
certified both ways. "Polished" is the skip's threshold set below any residual (the polish then runs as before the
skip). CPU time, BLAS on one thread, the compiled kernels loaded.

    python benchmarks/polish_skip_ab.py [--states 300]
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
from gaussqp import problems  # noqa: E402
from gaussqp.certificates import polish as polish_module  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the benchmarks' helpers, also when imported
from speed import frictionless, states  # noqa: E402
from steady import load_compiled_kernels  # noqa: E402


def paired(count: int, crosscheck: bool, rng) -> tuple[float, float, float, int]:
    """(median ms skipped, median ms polished, median per-state ratio skipped/polished, states polished when asked)."""
    threshold = polish_module.POLISH_SKIP_RESIDUAL
    sts = states(frictionless(problems.load("real/humanoid_lying")), count + 1, rng)
    times: dict[bool, list[float]] = {True: [], False: []}
    polished = 0
    try:
        for i, s in enumerate(sts):
            for skip in (True, False) if i % 2 == 0 else (False, True):
                polish_module.POLISH_SKIP_RESIDUAL = threshold if skip else -1.0
                q = s.with_force(s.F)  # a fresh problem object: nothing memoized is shared
                t = time.process_time()
                sol = gaussqp.solve(q, crosscheck=crosscheck)
                dt = time.process_time() - t
                if sol.status != "solved" or not sol.certified:
                    raise SystemExit(f"state {i}: {sol.status} ({sol.message})")
                if i:  # the first state is a warm-up
                    times[skip].append(dt)
                    polished += not skip and "polished" in sol.extras
    finally:
        polish_module.POLISH_SKIP_RESIDUAL = threshold
    on, off = np.array(times[True]), np.array(times[False])
    return float(np.median(on)) * 1e3, float(np.median(off)) * 1e3, float(np.median(on / off)), polished


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--states", type=int, default=300)
    args = ap.parse_args(argv)
    print(load_compiled_kernels())
    print("humanoid lying, frictionless (DAQP), CPU ms per certified solve, paired state by state:")
    for crosscheck in (False, True):
        on, off, ratio, polished = paired(args.states, crosscheck, np.random.default_rng(0))
        print(
            f"  crosscheck={crosscheck!s:5}  polished {off:.3f}  skipped {on:.3f}  per-state ratio {ratio:.3f}"
            f"  ({polished} of {args.states} answers polished when asked)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

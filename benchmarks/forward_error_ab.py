"""Issue #28 (a benchmark, not a test): the forward error's Newton steps whole in one compiled kernel
(:func:`gaussqp.model.compiled_kernels.forward_error`) against its NumPy steps with the compiled errors
(:func:`gaussqp.certificates.instance._numpy_steps`, the code before the kernel), paired in one process on the shipped
humanoid. Every state is solved twice in a row, once each way (the order alternating), each time as a fresh problem
object (:func:`speed.paired_switch`); the medians and the median of the per-state ratios are printed, every answer must
be solved both ways, and the two certificates must be the same, number for number. Everything else (the routes, the
other compiled checks, Lemke's and the Newton method's kernels, loaded first) is the same on both sides. CPU time,
BLAS on one thread.

    python benchmarks/forward_error_ab.py [--states 200]
"""

from __future__ import annotations

import argparse
import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402

import gaussqp  # noqa: E402
from gaussqp import problems  # noqa: E402
from gaussqp.certificates import instance  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the benchmarks' helpers, also when imported
from speed import frictionless, paired_switch, states  # noqa: E402
from steady import load_compiled_kernels  # noqa: E402

_COMPILED_STEPS = instance._compiled_steps


def switch(flag: bool) -> None:
    """The compiled steps on (as shipped) or off (the NumPy steps answer)."""
    instance._compiled_steps = _COMPILED_STEPS if flag else (lambda *args: None)


def same_certificates(p) -> bool:
    """Whether the forward error of ``p``'s answer is the same certificate both ways (a check of the benchmark's
    premise: the two sides do the same work)."""
    sol = gaussqp.solve(p.with_force(p.F), crosscheck=False)
    out = []
    for flag in (True, False):
        switch(flag)
        fe = instance.forward_error(p.with_force(p.F), sol.acceleration, sol.lambda_normal, sol.lambda_tangent)
        out.append(fe)
    switch(True)
    a, b = out
    return a.margin == b.margin and all(
        np.array_equal(np.asarray(a.data[k]), np.asarray(b.data[k])) for k in a.data if a.data[k] is not None
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--states", type=int, default=200)
    args = ap.parse_args(argv)
    print(load_compiled_kernels())
    base = problems.load("real/humanoid_lying")
    rows = {
        "frictionless, cross-check off": (frictionless(base), False),
        "frictionless, cross-check on": (frictionless(base), True),
        "all sticking, cross-check on": (base, True),
    }
    rng = np.random.default_rng(0)
    print(f"humanoid lying (n = {base.n}, {base.m} contacts), {args.states} states, CPU ms per solve (medians)")
    print("| row | NumPy steps (before) | compiled steps | paired ratio | same certificate |\n|---|---:|---:|---:|---|")
    for name, (p, crosscheck) in rows.items():
        slow, fast, ratio = paired_switch(states(p, args.states + 1, rng), crosscheck, switch)
        print(f"| {name} | {slow:.3f} | {fast:.3f} | {ratio:.2f}× | {same_certificates(p)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

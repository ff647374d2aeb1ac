"""Where the all-sticking humanoid's certified solve spends its time (a benchmark, not a test): CPU ms per solve of
each stage of ``gaussqp.solve`` with defaults, over ``--states`` perturbed states of ``real/humanoid_lying``
(:func:`speed.states`, one warm-up first), and μ_min's programs and proven bracket per state.

    cd benchmarks && OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=..:. python sticking_stages.py [--states 10]

Each stage is timed by wrapping the function that runs it (``time.process_time``). A stage whose function the code under
test does not have is left out, so that the same script times an older commit (``PYTHONPATH=/path/to/old/tree:.``).
Python's garbage collector pauses (a few ms) land in whichever stage allocates when one triggers: ``--freeze-gc``
moves what the warm-up allocated out of its reach (``gc.freeze``), which makes the per-stage figures steadier.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import os
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import gaussqp  # noqa: E402
from gaussqp import problems  # noqa: E402

from speed import states  # noqa: E402

#: (module, function, label): the stages of an all-sticking solve
STAGES = (
    ("gaussqp.formulations.sticking_conic", "StickingConic._solve", "F4 program and its polish"),
    ("gaussqp.friction.sticking_analysis", "mu_min_bracket", "verdict: μ_min (ratio steps, lower end)"),
    ("gaussqp.friction.sticking_analysis", "margin", "verdict: the margin program"),
    ("gaussqp.dispatch", "structural_certificates", "structural certificates C1–C8"),
    ("gaussqp.dispatch", "friction_bounds", "friction bounds C7"),
    ("gaussqp.crosscheck", "sticking_crosscheck", "cross-check (MLCP route; F5 bracket when asked)"),
)


def _wrap(acc: dict, module: str, name: str, label: str) -> None:
    mod = importlib.import_module(module)
    owner, attr = mod, name
    if "." in name:
        cls, attr = name.split(".")
        owner = getattr(mod, cls, None)
    if owner is None or not hasattr(owner, attr):
        return
    f = getattr(owner, attr)

    @functools.wraps(f)
    def timed(*args, **kwargs):
        t = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            acc[label] = acc.get(label, 0.0) + time.process_time() - t

    setattr(owner, attr, timed)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--states", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--freeze-gc", action="store_true", help="gc.collect() and gc.freeze() after the warm-up")
    args = ap.parse_args()
    acc: dict = {}
    for module, name, label in STAGES:
        _wrap(acc, module, name, label)
    hum = problems.load("real/humanoid_lying")
    runs = states(hum, args.states + 1, np.random.default_rng(args.seed))
    gaussqp.solve(runs[0])
    if args.freeze_gc:
        gc.collect()
        gc.freeze()
    acc.clear()
    total, rows = 0.0, []
    for x in runs[1:]:
        t = time.process_time()
        sol = gaussqp.solve(x)
        total += time.process_time() - t
        v = sol.sticking
        lo, hi = (v.mu_min_lower, v.mu_min) if v is not None else (None, None)
        width = (hi - lo) / hi if lo is not None and hi else float("nan")
        rows.append(
            f"  {sol.status.value} certified={sol.certified} mu_min in [{lo:.9g}, {hi:.9g}] (width {width:.1e})"
        )
    k = len(runs) - 1
    print(f"all-sticking humanoid, {k} states: {1e3 * total / k:.1f} ms CPU per certified solve")
    for label, v in sorted(acc.items(), key=lambda kv: -kv[1]):
        print(f"  {label}: {1e3 * v / k:.1f}")
    print("per state:")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

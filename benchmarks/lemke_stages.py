"""Where Lemke's time goes on the shipped humanoid's contact LCPs (issue #28, part 5): CPU µs per ``lemke`` call and
per stage, with the compiled pivoting and without it (a benchmark, not a test).

    python benchmarks/lemke_stages.py [--states 100] [--rounds 5]

The LCPs are those the LCP route solves on ``real/humanoid_lying``: the constrained Delassus LCP of the frictionless
humanoid (k = 14) and the MLCP of the all-sticking one (sticking tangents eliminated), each on ``--states`` perturbed
states (:func:`speed.states`). Every call is timed with ``time.process_time`` (BLAS pinned to one thread); medians
over ``--rounds`` passes. The stages are the functions ``lemke`` calls, timed by wrapping them: the pivoting
(``_pivot``), the final basis (``_refined``, or ``_refine`` in a checkout before part 5), the answer's check
(``_verified``, or ``lcp_violation``); the rest is ``lemke``'s own code (input checks, equilibration, the result).
Run against an older checkout with ``PYTHONPATH=<checkout>:.`` from ``benchmarks/``: without
``settings.LEMKE_COMPILED`` there, the two rows are the same code.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402

import gaussqp  # noqa: E402
import gaussqp.linalg.lemke as L  # noqa: E402
from gaussqp import problems  # noqa: E402
from gaussqp.mechanics.delassus import constrained_delassus  # noqa: E402

from speed import fresh, frictionless, states  # noqa: E402

CLOCK = time.process_time


def lcps(p, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    runs = fresh(states(p, count, np.random.default_rng(1)))
    return [(cd.A_c, cd.w_c) for cd in (constrained_delassus(x) for x in runs)]


def measure(data, rounds: int) -> tuple[float, dict[str, float], list[str]]:
    """Median µs per ``lemke`` call, mean µs per call of each stage, and the statuses."""
    names = [n for n in ("_pivot", "_refined", "_verified") if hasattr(L, n)]
    names += [] if hasattr(L, "_refined") else ["_refine"]
    names += [] if hasattr(L, "_verified") else ["lcp_violation"]
    acc = dict.fromkeys(names, 0.0)
    saved = {n: getattr(L, n) for n in names}

    def wrap(name):
        real = saved[name]

        def timed(*a, **k):
            t = CLOCK()
            out = real(*a, **k)
            acc[name] += CLOCK() - t
            return out

        return timed

    statuses = [L.lemke(A, w).status for A, w in data]  # warm-up (and numba's load)
    ts = []
    for _ in range(rounds):
        for A, w in data:
            t = CLOCK()
            L.lemke(A, w)
            ts.append(CLOCK() - t)
    for n in names:
        setattr(L, n, wrap(n))
    try:
        for _ in range(rounds):
            for A, w in data:
                L.lemke(A, w)
    finally:
        for n in names:
            setattr(L, n, saved[n])
    calls = rounds * len(data)
    return float(np.median(ts)) * 1e6, {n: v / calls * 1e6 for n, v in acc.items()}, statuses


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    hum = problems.load("real/humanoid_lying")
    cases = {
        "frictionless contact LCP": lcps(frictionless(hum), args.states),
        "all-sticking MLCP": lcps(hum, args.states),
    }
    has_switch = hasattr(gaussqp.settings, "LEMKE_COMPILED")
    if hasattr(L, "compiled_pivots"):
        L.compiled_pivots()  # loaded now (lemke itself loads them only once the NumPy pivoting has cost the load)
    print(f"gaussqp {os.path.dirname(gaussqp.__file__)}; switch LEMKE_COMPILED {'present' if has_switch else 'absent'}")
    for label, data in cases.items():
        k = data[0][1].size
        for compiled in (True, False):
            if has_switch:
                gaussqp.settings.LEMKE_COMPILED = compiled
            med, stages, statuses = measure(data, args.rounds)
            kinds = {s: statuses.count(s) for s in sorted(set(statuses))}
            row = ", ".join(f"{n} {v:.1f}" for n, v in stages.items())
            print(
                f"{label} (k = {k}), compiled {compiled if has_switch else 'n/a'}: {med:7.1f} µs per call "
                f"(median); stages, mean µs: {row}; statuses {kinds}",
                flush=True,
            )
    if has_switch:
        gaussqp.settings.LEMKE_COMPILED = True
    return 0


if __name__ == "__main__":
    sys.exit(main())

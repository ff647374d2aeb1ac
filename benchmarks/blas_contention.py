"""A small problem's solve while the machine's other cores are busy, with BLAS's threads as the libraries have them and
with one BLAS thread for small problems (``settings.BLAS_ONE_THREAD_SIZE_MAX``), side by side in one run (a
benchmark, not a test).

    PYTHONPATH=. python benchmarks/blas_contention.py [--states 60] [--busy N] [--rows frictionless,mode_free]

A controller beside a simulator, or a study's workers, leave no core idle. Here ``--busy`` processes (default: one
fewer than the machine's cores) spin in pure Python, and this process solves ``--states`` states of the shipped
humanoid (``speed.states``: rows and force within 1 %), each row once with the limit off
(``BLAS_ONE_THREAD_SIZE_MAX = 0``: the libraries' own threads, gaussqp before the limit) and once with the shipped
limit, alternating state by state; then the same without the busy processes. BLAS threads are NOT pinned here (the
point is the libraries' defaults: ``OPENBLAS_NUM_THREADS`` and ``OMP_NUM_THREADS`` are removed from this process's
environment before NumPy is imported). Wall time per solve (a user waits for it; OpenBLAS's waiting threads spin, so
CPU time would count them), medians; every answer must be certified.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.pop(_var, None)

import numpy as np  # noqa: E402
import scipy.linalg  # noqa: E402, F401  (SciPy's BLAS loaded now, with its default threads)

import gaussqp  # noqa: E402
import gaussqp.settings as settings  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import humanoid_kinds, states  # noqa: E402  (it pins the environment's threads: after the libraries)
from steady import load_compiled_kernels  # noqa: E402


def _spin() -> None:  # a busy core: pure Python, no BLAS
    while True:
        pass


def timed(rows: dict, count: int) -> dict:
    """Median wall ms per solve of each row's ``count`` states, limit off and on, alternating state by state."""
    shipped = settings.BLAS_ONE_THREAD_SIZE_MAX
    out = {}
    for row, p in rows.items():
        times: dict = {"off": [], "on": []}
        for i, s in enumerate(states(p, count, np.random.default_rng(0))):
            order = ("off", "on") if i % 2 else ("on", "off")
            for side in order:
                settings.BLAS_ONE_THREAD_SIZE_MAX = 0 if side == "off" else shipped
                fresh = s.with_force(s.F)  # nothing memoized shared between the two sides
                t0 = time.perf_counter()
                sol = gaussqp.solve(fresh)
                times[side].append(time.perf_counter() - t0)
                if not sol.certified:
                    raise SystemExit(f"blas_contention: {row} state {i} ({side}) is {sol.status}, not certified")
        settings.BLAS_ONE_THREAD_SIZE_MAX = shipped
        out[row] = {k: 1e3 * float(np.median(v[1:])) for k, v in times.items()}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--states", type=int, default=60)
    ap.add_argument("--busy", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    ap.add_argument("--rows", default="frictionless,mode_free")
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_info

    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    libs = ", ".join(f"{i['internal_api']} ({Path(i['filepath']).name}) {i['num_threads']} threads" for i in blas)
    _, kinds = humanoid_kinds()
    rows = {r: kinds[r] for r in args.rows.split(",")}
    load_compiled_kernels()
    for p in rows.values():  # warm-up: kernels, memos, the BLAS libraries found
        gaussqp.solve(p.with_force(p.F))
    ctx = mp.get_context("spawn")
    busy = [ctx.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for b in busy:
        b.start()
    time.sleep(0.5)
    try:
        loaded = timed(rows, args.states)
    finally:
        for b in busy:
            b.terminate()
    quiet = timed(rows, args.states)
    print(f"gaussqp {gaussqp.__file__}; {os.cpu_count()} cores; BLAS: {libs}; {args.states} states, wall ms per solve")
    print(f"| row | machine | libraries' threads (limit off) | one thread up to {settings.BLAS_ONE_THREAD_SIZE_MAX} "
          "unknowns (shipped) | off / on |")  # fmt: skip
    print("|---|---|---:|---:|---:|")
    for label, res in ((f"{args.busy} other core(s) busy", loaded), ("quiet", quiet)):
        for row, t in res.items():
            print(f"| {row} | {label} | {t['off']:.3f} | {t['on']:.3f} | {t['off'] / t['on']:.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

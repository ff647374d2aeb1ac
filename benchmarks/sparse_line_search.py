"""Issue #27 (a benchmark, not a test): the sparse Newton's backtracking compiled (``compiled_kernels.line_search_csr``
through ``nonsmooth_newton._compiled_sparse_search``) against its NumPy/SciPy reference (``nonsmooth_newton._search``)
on the iterations of the route's own runs.

Each file is solved once mode-free (``gaussqp.solve(crosscheck=False)``) with every sparse line search captured (its
system, point, merit, reference, Newton blocks and step); the captured searches are then run again by both, alternated
``--rounds`` times in this process, and the smallest of the rounds' means is printed per search and per evaluation of
the map (``_System.evaluate``: the compiled ``csr_velocity`` against SciPy's product). Both give the same numbers bit for
bit (checked here on every captured search). Files whose route runs no sparse Newton iteration (dense W, or below
``COULOMB_NN_DENSE_MAX`` unknowns) are listed as such. CPU time, BLAS on one thread, the compiled kernels loaded.

    python benchmarks/sparse_line_search.py [FILE.hdf5 ...] [--rounds 5]

Without files: the shipped generated FCLIB problems (``problems/data/fclib_generated``).
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402

import gaussqp  # noqa: E402
from gaussqp import problems  # noqa: E402
from gaussqp.friction import nonsmooth_newton as nn  # noqa: E402
from gaussqp.io import fclib  # noqa: E402
from gaussqp.linalg.dense import plain  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the benchmarks' helpers, also when imported
from steady import load_compiled_kernels  # noqa: E402

#: captured searches per file (the first ones of the route's runs)
CAPTURE_MAX = 400


def scipy_evaluate(sysm, r: np.ndarray) -> tuple:
    """``_System.evaluate`` of a sparse system with W's product by SciPy (before ``csr_velocity``)."""
    u = sysm.velocity(r)
    phi, z, phi1 = sysm.fast.maps_at(u, plain(r), sysm.mu, sysm.rho, sysm.d)
    return phi, u, z, float(np.sqrt(phi1 @ phi1)) / (sysm.qn if sysm.qn > 0 else 1.0)


def capture(path: str) -> list[tuple]:
    """The arguments of every sparse compiled line search of the route's solve of ``path`` (at most CAPTURE_MAX)."""
    calls: list[tuple] = []
    real = nn._compiled_sparse_search

    def spy(*args):
        if len(calls) < CAPTURE_MAX:
            calls.append(args)
        return real(*args)

    nn._compiled_sparse_search = spy
    try:
        gaussqp.solve(fclib.load(path), crosscheck=False)
    finally:
        nn._compiled_sparse_search = real
    return calls


def same(a, b) -> bool:
    """Equal outcomes, arrays bit for bit."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b, equal_nan=True)
    return a == b


def per_call_us(fn, calls: list[tuple], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        for c in calls:
            fn(c)
        best = min(best, (time.process_time() - t) / len(calls))
    return best * 1e6


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    files = args.files or sorted(
        f for f in glob.glob(os.path.join(problems.DATA, "fclib_generated", "*.hdf5")) if not f.endswith("-local.hdf5")
    )
    print(load_compiled_kernels())
    print(f"{'problem':36s} {'unknowns':>8s} {'searches':>8s} {'search NumPy':>13s} {'compiled':>9s} {'ratio':>6s}"
          f" {'map SciPy':>10s} {'compiled':>9s} {'ratio':>6s}")  # fmt: skip
    for path in files:
        name = os.path.basename(path)[:36]
        calls = capture(path)
        if not calls:
            print(f"{name:36s} no sparse Newton iteration")
            continue
        for c in calls:  # the same outcome, bit for bit
            got, ref = nn._compiled_sparse_search(*c), nn._search(*c, nn._DIRECTIONS)
            if not all(same(x, y) for x, y in zip(got, ref)):
                raise SystemExit(f"{name}: the compiled search differs from _search")
        old = per_call_us(lambda c: nn._search(*c, nn._DIRECTIONS), calls, args.rounds)
        new = per_call_us(lambda c: nn._compiled_sparse_search(*c), calls, args.rounds)
        map_old = per_call_us(lambda c: scipy_evaluate(c[0], c[1]), calls, args.rounds)
        map_new = per_call_us(lambda c: c[0].evaluate(c[1]), calls, args.rounds)
        print(f"{name:36s} {calls[0][1].size:8d} {len(calls):8d} {old:10.1f} us {new:6.1f} us {new / old:6.2f}"
              f" {map_old:7.1f} us {map_new:6.1f} us {map_new / map_old:6.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

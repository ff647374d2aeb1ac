"""Issue #27 (a benchmark, not a test): the dense Newton method's time per iteration, by problem size.

For each file whose mode-free route answers by the dense Newton method (``solve_mode_free`` on the condensed problem,
W of at most ``COULOMB_NN_DENSE_MAX`` unknowns or dense-ish: LAPACK's LU a step), the damping schedule's runs are
timed alone, on the condensed ``(W, q)`` (condensing not charged), ``--repeat`` times; the smallest time divided by the
schedule's Newton iterations is the time per iteration (the starts and, where the schedule reaches it, the convex
start are in it too). Files answered another way (the sparse Newton, the proximal rounds, the convex iteration) are
listed as such. CPU time, BLAS on one thread, the compiled kernels loaded.

    python benchmarks/dense_newton_loop.py [FILE.hdf5 ...] [--repeat 7] [--json OUT.json] [--before BEFORE.json]

Without files: the shipped generated FCLIB problems (``problems/data/fclib_generated``). For a before/after, run it
first with another checkout on ``PYTHONPATH`` and ``--json before.json``, then with this one and ``--before
before.json``: the table by size gives both sides' time per iteration over the files both answered by the dense Newton
with the same iterations (the same iterates: the comparison is of the same work).
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

from gaussqp.formulations import coulomb  # noqa: E402
from gaussqp.io import fclib  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the benchmarks' helpers, also when imported
from coulomb_schedule import local_form  # noqa: E402
from steady import load_compiled_kernels  # noqa: E402

#: the table's rows: unknowns m·d from the first bound to below the next
SIZES = (0, 60, 100, 151, 1000)


def measure(path: str, repeat: int) -> dict:
    """One file's row: unknowns, the schedule's Newton iterations and its smallest time, or why it is not timed."""
    W, q, mu, d = local_form(fclib.load(path))  # condensed as the route condenses it
    ans = coulomb.solve_mode_free(W, q, mu, d)
    info = ans.newton_kernel or {}
    if ans.path != "newton" or info.get("linear_algebra") != "dense":
        return {"unknowns": int(q.size), "why": f"path {ans.path}, {info.get('linear_algebra', '-')} linear algebra"}
    times = []
    for _ in range(repeat):
        t = time.process_time()
        coulomb.solve_mode_free(W, q, mu, d)
        times.append(time.process_time() - t)
    return {"unknowns": int(q.size), "iterations": int(info["iterations"]), "seconds": min(times)}


def size_table(rows: dict, before: dict | None) -> list[str]:
    """Markdown rows by size: problems, iterations, µs per iteration (summed time over summed iterations), and with
    ``before`` its µs per iteration and the geometric mean of the per-problem ratios after / before."""
    out = []
    for lo, hi in zip(SIZES, SIZES[1:]):
        keys = [
            k
            for k, r in rows.items()
            if "seconds" in r
            and r["iterations"] > 0
            and lo <= r["unknowns"] < hi
            and (before is None or before.get(k, {}).get("iterations") == r["iterations"])
        ]
        if not keys:
            continue
        its = sum(rows[k]["iterations"] for k in keys)
        after = sum(rows[k]["seconds"] for k in keys) / its * 1e6
        line = f"| {lo}–{hi - 1} | {len(keys)} | {its} |"
        if before is not None:
            then = sum(before[k]["seconds"] for k in keys) / its * 1e6
            ratio = math.exp(sum(math.log(rows[k]["seconds"] / before[k]["seconds"]) for k in keys) / len(keys))
            line += f" {then:.0f} | {after:.0f} | {ratio:.2f} |"
        else:
            line += f" {after:.0f} |"
        out.append(line)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", help="write the rows here (for a later --before)")
    ap.add_argument("--before", help="rows of another checkout (its --json): print both sides")
    args = ap.parse_args(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    files = args.files or sorted(glob.glob(os.path.join(here, "..", "problems", "data", "fclib_generated", "*.hdf5")))
    import gaussqp

    print(f"gaussqp {gaussqp.__file__}; {load_compiled_kernels()}; CPU time, smallest of {args.repeat}")
    rows = {}
    for path in files:
        name = os.path.basename(path)
        rows[name] = r = measure(path, args.repeat)
        if "seconds" in r:
            per = r["seconds"] / r["iterations"] * 1e6 if r["iterations"] else float("nan")
            print(
                f"{name:40s} {r['unknowns']:5d} unknowns {r['iterations']:4d} it. {r['seconds'] * 1e3:9.2f} ms {per:8.0f} us/it."
            )
        else:
            print(f"{name:40s} {r['unknowns']:5d} unknowns  not timed: {r['why']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    before = None
    if args.before:
        with open(args.before) as f:
            before = json.load(f)
    head = "| unknowns m·d | problems | Newton iterations |"
    head += (
        " before, µs per iteration | after | per-problem ratio (geometric mean) |" if before else " µs per iteration |"
    )
    print()
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for line in size_table(rows, before):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

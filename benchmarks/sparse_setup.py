"""Issue #27: the set-up of a sparse mode-free solve, stage by stage, against another checkout (a benchmark, not a test).

    python benchmarks/sparse_setup.py FILE... [--before CHECKOUT] [--rounds 3] [--repeat 20]

For each FCLIB file (global form, sparse M), CPU time (``time.process_time``, BLAS on one thread) of the stages of
``gaussqp.solve(problem, crosscheck=False)`` that do not iterate — the contact blocks (``contact_blocks``), M⁻¹ by
blocks and ``W = J M⁻¹ Jᵀ`` (``sparse_delassus``), the uniqueness test (``coulomb_uniqueness``), the system class
(``classify`` on a fresh problem) — and of the whole call. Each stage is timed on its own problem objects (nothing
memoized is reused), the median of ``--repeat`` calls. With ``--before``, the same measurement runs in a child process
on that checkout (``PYTHONPATH``), the two alternated ``--rounds`` times; each cell is the smallest of its rounds'
medians (a shared machine's CPU time is only ever inflated). Reading the file is not charged.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402

STAGES = ("contact_blocks", "sparse_delassus", "coulomb_uniqueness", "classify", "whole call")


def measure(paths: list[str], repeat: int) -> dict:
    """``{file: {stage: seconds}}`` in this process (the gaussqp on ``sys.path``)."""
    import gaussqp
    from gaussqp import problems
    from gaussqp.formulations.coulomb import contact_blocks
    from gaussqp.friction.coulomb_uniqueness import coulomb_uniqueness
    from gaussqp.friction.nonsmooth_newton import sparse_delassus
    from gaussqp.io import fclib

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from steady import load_compiled_kernels

    load_compiled_kernels()
    gaussqp.solve(problems.load("real/humanoid_lying").mode_free(), crosscheck=False)  # a process's one-time loads
    out: dict = {}
    for path in paths:
        p = fclib.load(path)
        J, _, mu = contact_blocks(p)
        W, _ = sparse_delassus(p.M, J)
        stages = {
            "contact_blocks": lambda q: contact_blocks(q),
            "sparse_delassus": lambda q: sparse_delassus(q.M, J),
            "coulomb_uniqueness": lambda q: coulomb_uniqueness(W, mu, q.dimension, q.n),
            "classify": lambda q: q.classify(),
            "whole call": lambda q: gaussqp.solve(q, crosscheck=False),
        }
        row = {}
        for name, run in stages.items():
            objs = [fclib.load(path) for _ in range(repeat + 1)]
            run(objs[0])  # warm-up
            ts = []
            for q in objs[1:]:
                t = time.process_time()
                run(q)
                ts.append(time.process_time() - t)
            row[name] = float(np.median(ts))
        out[os.path.basename(path)] = row
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--before", help="another checkout, timed in a child process on the same files")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.files, args.repeat)))
        return 0
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sides = {"after": here} if not args.before else {"before": os.path.abspath(args.before), "after": here}
    runs: dict = {side: [] for side in sides}
    for _ in range(args.rounds if args.before else 1):
        for side, root in sides.items():
            env = dict(os.environ, PYTHONPATH=root)
            cmd = [sys.executable, os.path.abspath(__file__), *args.files, "--repeat", str(args.repeat), "--child"]
            done = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if done.returncode:
                sys.exit(f"the measurement on {root} failed:\n{done.stderr.strip()}")
            runs[side].append(json.loads(done.stdout.strip().splitlines()[-1]))
    best = {side: {f: {s: min(r[f][s] for r in rs) for s in STAGES} for f in rs[0]} for side, rs in runs.items()}
    print(f"CPU ms, medians of {args.repeat} calls, smallest of {len(runs['after'])} rounds; BLAS on one thread")
    for f in best["after"]:
        print(f)
        for s in STAGES:
            after = best["after"][f][s] * 1e3
            if "before" in best:
                before = best["before"][f][s] * 1e3
                print(f"  {s:20s} {before:9.3f} -> {after:9.3f}  ({before / after:4.2f}x)")
            else:
                print(f"  {s:20s} {after:9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Issue #27: how much of a mode-free solve's time on a pile is decided by round-off (a benchmark, not a test).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/coulomb_roundoff.py \
        FILE... [--seeds 5] [--eps 1e-15] [--write benchmarks/results/coulomb_roundoff.md]

Each FCLIB ``FILE`` is condensed (``condense_sparse``) and its kernel (``solve_mode_free``) run on the file's own
data and on copies whose free velocity is perturbed entry by entry, ``q_i (1 + ε ξ_i)`` with ``ξ`` standard normal
(seeds 0 … ``--seeds`` − 1): a change at the level of the round-off of any other linear algebra, which leaves the
problem the same to every digit that matters. Reported per run, in CPU time with BLAS on one thread: the time, the
path (``newton`` or ``proximal newton``), our natural-map residual ÷‖q‖ (on the perturbed data), the Newton's
iterations over its damping schedule and each proximal round's start, iterations and residual. The spread of the times
over the copies is the spread a change of round-off alone (another ordering, another BLAS, an inexact step) can move
a measured time by.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def run(path: str, seeds: int, eps: float) -> list[dict]:
    """The kernel on the file's data (seed None) and on ``seeds`` perturbed copies (module docstring)."""
    from gaussqp.formulations.coulomb import condense_sparse, solve_mode_free
    from gaussqp.friction.coulomb_law import natural_map
    from gaussqp.io import fclib

    problem = fclib.load(path)
    cd = condense_sparse(problem)
    d = problem.dimension
    rows = []
    for seed in [None, *range(seeds)]:
        q = cd.q if seed is None else cd.q * (1 + eps * np.random.default_rng(seed).standard_normal(cd.q.size))
        t0 = time.process_time()
        ans = solve_mode_free(cd.W, q, cd.mu, d)
        t = time.process_time() - t0
        u = np.asarray(cd.W @ ans.r).ravel() + q
        residual = float(np.linalg.norm(natural_map(ans.r, u, cd.mu, d)) / np.linalg.norm(q))
        rounds = [
            f"{a['start']}: {a['iterations']} it. → {a['residual']:.0e}"
            for a in (ans.proximal or {}).get("attempts", [])
        ]
        rows.append(
            dict(
                file=Path(path).name,
                m=int(cd.mu.size),
                seed="data" if seed is None else str(seed),
                time=t,
                path=ans.path,
                residual=residual,
                newton=int((ans.newton_kernel or {}).get("iterations", 0)),
                rounds="; ".join(rounds) or "—",
            )
        )
        print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--eps", type=float, default=1e-15)
    ap.add_argument("--write", default=None, help="write the results as Markdown to this file")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from steady import load_compiled_kernels

    print(load_compiled_kernels())  # loaded before anything is timed: every run uses them
    load = os.getloadavg()
    rows = [row for path in args.files for row in run(path, args.seeds, args.eps)]
    end = os.getloadavg()
    command = "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/coulomb_roundoff.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    lines = [
        "# Round-off and the time of a mode-free solve on a pile (issue #27)",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; load average at "
        f"start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}, at the end {end[0]:.2f} / {end[1]:.2f} / {end[2]:.2f}. "
        f"CPU time (`time.process_time`) of `solve_mode_free` alone, one process, BLAS on one thread; ε = {args.eps:g}.",
        "",
        "| file | m | q | time s | path | res/‖q‖ | Newton it. | rounds (start: iterations → residual) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['file']} | {r['m']} | {r['seed']} | {r['time']:.2f} | {r['path']} | {r['residual']:.1e} | "
            f"{r['newton']} | {r['rounds']} |"
        )
    for name in dict.fromkeys(r["file"] for r in rows):
        times = [r["time"] for r in rows if r["file"] == name]
        lines.append("")
        lines.append(
            f"{name}: {min(times):.2f}–{max(times):.2f} s over {len(times)} runs (median {np.median(times):.2f} s)."
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        Path(args.write).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A one-shot solve in a fresh process, as a command line run or a notebook's first cell pays it (a benchmark, not a
test): the CPU time of ``gaussqp.solve`` alone (imports and loading the problem not charged), and whether numba was
loaded by it, for shipped problems solved mode-free, side by side with another checkout.

    python benchmarks/first_solve.py [--before /path/to/old/checkout] [--rounds 3] [--problems a,b,c]

Each (problem, cross-check on/off, checkout) runs in a process of its own, the checkouts alternated round by round (a
shared core costs CPU time too); the table gives the smallest and the median of the rounds. A problem whose modes are
given (a stored all-sticking robot) is made mode-free first (``mode_free(sliding=True)``), as issue #27's table has it.
``--before`` runs the same children with ``PYTHONPATH`` at that checkout. BLAS threads are pinned to one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

#: issue #27's robots and FCLIB files (shipped), mode-free
PROBLEMS = (
    "real/humanoid_lying",
    "real/quadruped_standing",
    "real/ant_standing",
    "real/fclib_Box_Stacks-i0035-31-0",
    "fclib_generated/quadruped-s0-i0016-m77",
    "fclib_generated/chain-s0-i0015-m47",
)

CHILD = """
import json, sys, time
import gaussqp
assert gaussqp.__file__.startswith({root!r}), gaussqp.__file__
from gaussqp import problems
p = problems.load({name!r})
if "coulomb" not in set(map(str, p.modes)):
    p = p.mode_free(sliding=True)
t = time.process_time()
s = gaussqp.solve(p, crosscheck={crosscheck})
print(json.dumps({{"seconds": time.process_time() - t, "status": str(s.status.value), "solver": s.solver,
                  "numba": "numba" in sys.modules}}))
"""


def child(name: str, crosscheck: bool, checkout: str | None) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if checkout:
        env["PYTHONPATH"] = checkout + os.pathsep + env.get("PYTHONPATH", "")
    root = checkout or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = CHILD.format(name=name, crosscheck=crosscheck, root=os.path.realpath(root))
    # run outside any checkout: ``python -c`` puts its working directory first on the path
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tempfile.gettempdir()
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=None, help="another checkout (its root), timed alternately")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--problems", default=",".join(PROBLEMS))
    args = ap.parse_args(argv)
    sides = [("before", args.before)] if args.before else []
    sides.append(("after", None))
    names = [n for n in args.problems.split(",") if n]
    print(f"one-shot gaussqp.solve in a fresh process, CPU s (smallest / median of {args.rounds} rounds), mode-free")
    print(
        f"| problem | cross-check | {' | '.join(s for s, _ in sides)} | numba loaded ({', '.join(s for s, _ in sides)}) |"
    )
    print("|---|---|" + "---:|" * len(sides) + "---|")
    for name in names:
        for cc in (False, True):
            runs: dict = {s: [] for s, _ in sides}
            for _ in range(args.rounds):
                for side, checkout in sides:
                    runs[side].append(child(name, cc, checkout))
            cells, flags = [], []
            for side, _ in sides:
                ok = [r for r in runs[side] if "seconds" in r]
                if not ok:
                    cells.append(runs[side][0].get("error", "failed")[:60])
                    flags.append("—")
                    continue
                t = [r["seconds"] for r in ok]
                cells.append(f"{min(t):.3f} / {float(np.median(t)):.3f} ({ok[0]['status']})")
                flags.append("yes" if ok[0]["numba"] else "no")
            print(f"| {name} | {'on' if cc else 'off'} | {' | '.join(cells)} | {', '.join(flags)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

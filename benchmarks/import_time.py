"""Benchmark (not a test): the cold-start time of ``import gaussqp`` against the floor it cannot go under (issue #15).

Each measurement is a fresh interpreter (``sys.executable -c ...``) that times its own import with
``time.perf_counter`` around the import statement, so the interpreter's start-up is left out and every run is cold
for the module cache (the operating system's file cache stays warm, as it is for a user who runs the command twice).
Bytecode caches are what an installed package has (pip compiles them on install): the children run without
``PYTHONDONTWRITEBYTECODE`` and one untimed run of each statement writes the caches first; with that variable set
and no ``__pycache__``, every import would compile gaussqp's sixty modules from source (about 0.1 s more) and
measure the compiler, not the imports.
Printed: the median of ``--runs`` (default 5) runs for

- ``import gaussqp``;
- the floor, ``import numpy, scipy.sparse, clarabel`` (what gaussqp's core cannot avoid: its arrays, its sparse
  matrices, and the default backend's package);
- ``gaussqp --help`` (``python -m gaussqp.cli --help``: the interpreter, the package and its argument parser)
  timed end to end by the wall clock, beside a bare ``python -c pass``;

and the ratio gaussqp / floor. ``python -X importtime -c "import gaussqp"`` shows where the time goes.

Run: ``python benchmarks/import_time.py [--runs N]``. To time another checkout, run it outside the source tree
(``cd /tmp && PYTHONPATH=/path/to/checkout python /path/to/benchmarks/import_time.py``): a child's working directory
comes first on its ``sys.path``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

#: the statement whose own duration a child interpreter prints
TIMED = "import time; t = time.perf_counter(); {stmt}; print(time.perf_counter() - t)"

#: the children's environment: bytecode caches written and read, as in an installed package
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def import_seconds(stmt: str, runs: int) -> list[float]:
    """Seconds of ``stmt`` in ``runs`` fresh interpreters, each timing only the statement."""
    out = []
    for _ in range(runs):
        res = subprocess.run(
            [sys.executable, "-c", TIMED.format(stmt=stmt)], capture_output=True, text=True, check=True, env=ENV
        )
        out.append(float(res.stdout.strip().splitlines()[-1]))
    return out


def wall_seconds(args: list[str], runs: int) -> list[float]:
    """Wall-clock seconds of ``python ARGS`` (interpreter start-up included), ``runs`` times."""
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, *args], capture_output=True, check=True, env=ENV)
        out.append(time.perf_counter() - t)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="cold runs per measurement (default 5); the median is printed")
    args = ap.parse_args(argv)
    import_seconds("import gaussqp, gaussqp.cli; import numpy, scipy.sparse, clarabel", 1)  # writes the caches
    # interleaved so that a change of the machine's load hits both alike
    ours, floor = [], []
    for _ in range(args.runs):
        ours += import_seconds("import gaussqp", 1)
        floor += import_seconds("import numpy, scipy.sparse, clarabel", 1)
    cli = statistics.median(wall_seconds(["-m", "gaussqp.cli", "--help"], args.runs))
    bare = statistics.median(wall_seconds(["-c", "pass"], args.runs))
    g, f = statistics.median(ours), statistics.median(floor)
    print(f"median of {args.runs} cold runs")
    print(f"  import gaussqp                        {g:7.3f} s")
    print(f"  import numpy, scipy.sparse, clarabel  {f:7.3f} s")
    print(f"  ratio gaussqp / floor                 {g / f:7.2f}")
    print(f"  gaussqp --help (wall clock)           {cli:7.3f} s   (python -c pass: {bare:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A change measured against the code it replaced, paired in one process (a benchmark, not a test): named functions or
classes of gaussqp as they were at an earlier git revision, swapped in for the current ones, on the shipped humanoid.

    python benchmarks/revision_ab.py --before REV --swap MODULE:NAME [--swap MODULE:NAME ...] [--states 60]
        [--rows frictionless,sticking,mode_free] [--crosscheck off,on]

For each ``--swap``, the module's source at ``REV`` (``git show REV:path``) is loaded as a module of its own (its
relative imports resolve to today's package, so only that module's code is old) and its ``NAME`` is taken; "before"
puts that object in place of today's ``MODULE.NAME`` in every loaded gaussqp module that holds today's object (so a
``from .module import NAME`` elsewhere is swapped too), "after" puts today's back. Each state is then solved twice in a
row, once each way, the order alternating, each time as a fresh problem object (:func:`speed.paired_switch`); the
medians and the median of the per-state ratios are printed. CPU time, BLAS on one thread, every kernel loaded first.
The sixteenth session's figures, for example::

    python benchmarks/revision_ab.py --before eb15fb4 --rows sticking \\
        --swap gaussqp.certificates.instance:unique_multipliers
    python benchmarks/revision_ab.py --before 5ffa10d --rows sticking \\
        --swap gaussqp.friction.multiplier_conic:MultiplierSetConic

A swapped module's other top-level code runs again when its old source is loaded (definitions, tables): swap objects
of modules without import-time side effects (registries are not).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the benchmarks' helpers, also when imported
from speed import humanoid_kinds, paired_switch, states  # noqa: E402
from steady import load_compiled_kernels  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def old_object(revision: str, module: str, name: str):
    """``module.name`` as it was at ``revision``: the module's source at that revision loaded as
    ``<module>._at_<revision>`` (a sibling of today's module, so its relative imports find today's package)."""
    path = Path(*module.split(".")).with_suffix(".py")
    got = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{revision}:{path.as_posix()}"], capture_output=True, text=True
    )
    if got.returncode:
        raise SystemExit(f"revision_ab: no {path.as_posix()} at {revision!r} in {ROOT}: {got.stderr.strip()}")
    source = got.stdout
    label = f"{module}._at_{revision}".replace("-", "_")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(label, f.name)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = module.rpartition(".")[0]
    sys.modules[label] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    os.unlink(f.name)
    return getattr(mod, name)


def holders(current) -> list[tuple[object, str]]:
    """Every (loaded gaussqp module, attribute name) whose value is ``current``."""
    out = []
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("gaussqp") and "._at_" not in mod.__name__:
            for attr, value in list(vars(mod).items()):
                if value is current:
                    out.append((mod, attr))
    return out


def make_switch(revision: str, swaps: list[str]):
    """The switch of :func:`speed.paired_switch`: ``True`` today's objects, ``False`` those of ``revision``. Only the
    named objects are old: every other name of an old module's namespace is rebound to today's object of that name
    (its helpers, and their per-problem memos, are today's, so the old side does no work today's caches saved it
    only because it calls separately loaded copies); swap a helper too to measure it."""
    pairs, spaces = [], []
    named = {tuple(spec.partition(":")[::2]) for spec in swaps}
    for spec in swaps:
        module, _, name = spec.partition(":")
        today = vars(importlib.import_module(module))
        current = today[name]
        old = old_object(revision, module, name)
        pairs.append((holders(current), current, old))
        space = old.__globals__ if hasattr(old, "__globals__") else vars(sys.modules[old.__module__])
        spaces.append((module, today, space))
    for module, today, space in spaces:
        for attr in list(space):
            if attr in today and (module, attr) not in named and not attr.startswith("__"):
                space[attr] = today[attr]

    def switch(flag: bool) -> None:
        for places, current, old in pairs:
            for mod, attr in places:
                setattr(mod, attr, current if flag else old)

    return switch, pairs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True, help="the git revision whose objects are 'before'")
    ap.add_argument(
        "--swap",
        action="append",
        required=True,
        help="MODULE:NAME, e.g. gaussqp.certificates.instance:unique_multipliers",
    )
    ap.add_argument("--states", type=int, default=60)
    ap.add_argument("--rows", default="frictionless,sticking")
    ap.add_argument("--crosscheck", default="off,on")
    args = ap.parse_args(argv)
    print(load_compiled_kernels())
    switch, pairs = make_switch(args.before, args.swap)
    for spec, (places, _, _) in zip(args.swap, pairs):
        print(f"{spec}: swapped in {len(places)} place(s): " + ", ".join(f"{m.__name__}.{a}" for m, a in places))
    base, kinds = humanoid_kinds()
    print(f"humanoid lying (n = {base.n}, {base.m} contacts), {args.states} states, CPU ms per solve (medians)")
    print(f"| row | before ({args.before}) | after | paired ratio |\n|---|---:|---:|---:|")
    for row in args.rows.split(","):
        for cc in args.crosscheck.split(","):
            rng = np.random.default_rng(0)
            slow, fast, ratio = paired_switch(states(kinds[row], args.states + 1, rng), cc == "on", switch)
            print(f"| {row}, cross-check {cc} | {slow:.3f} | {fast:.3f} | {ratio:.3f}× |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

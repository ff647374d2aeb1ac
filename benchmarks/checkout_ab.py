"""The whole package at an earlier git revision against today's, paired in one process (a benchmark, not a test): a
state's construction from its arrays (``ContactProblem.from_blocks``) and its solve, on the shipped humanoid.

    python benchmarks/checkout_ab.py --before REV [--states 100]
        [--rows frictionless,sticking,mode_free,mujoco_humanoid,mujoco_quadruped] [--crosscheck off,on] [--no-kernels]

``benchmarks/revision_ab.py`` swaps named objects; a change spread over many modules (the validation, the problem's
fields, the judge's helpers) is measured here instead. The package as it was at ``REV`` (``git archive``) is unpacked
into a temporary directory under another name, ``gaussqp_at_<rev>``, every ``gaussqp`` of its Python files renamed
so that it imports itself and not today's package, and imported beside today's. Each state's arrays are then built
into a problem and solved by both packages in turn, the order alternating from state to state, each time as a fresh
problem (nothing memoized is shared: the two packages hold separate memos); the medians and the median of the
per-state ratios (before / after) are printed as a Markdown table, for the construction, the solve and the two
together, with the means (a rollout's tail is in its mean). Every answer must be certified on both sides, else the run
stops. The rows ``frictionless``, ``sticking`` and ``mode_free`` are perturbed copies of the shipped humanoid
(:func:`speed.states`); ``mujoco_humanoid`` and ``mujoco_quadruped`` the states of a MuJoCo rollout of dm_control's
robot, every frictional contact mode-free (``benchmarks/mujoco_replay.py``'s rollout, seed 0: the contact set
changes along it; needs ``mujoco`` and ``dm_control``).

CPU time, BLAS on one thread. Both packages' compiled kernels are loaded first (numba compiles the earlier revision's
on its first run, a minute or two, then reads its on-disk cache; the temporary directory is the same for a revision);
``--no-kernels`` runs the NumPy code on both sides (``GAUSSQP_COMPILED=0``).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402

import gaussqp  # noqa: E402
from gaussqp.model.problem import ContactProblem  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the benchmarks' helpers, also when imported
from speed import humanoid_kinds, state_arrays, states  # noqa: E402
from steady import load_compiled_kernels  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
_WORD = re.compile(r"\bgaussqp\b")
#: the version of the renaming rule (part of the unpacked copy's directory: a copy made by another rule is not reused)
_RULES_VERSION = 1


def package_at(revision: str) -> str:
    """The name under which the package as it was at ``revision`` is importable (unpacked, renamed, put on
    ``sys.path`` on the first call for that revision)."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", revision], capture_output=True, text=True)
    if sha.returncode:
        raise SystemExit(f"checkout_ab: no revision {revision!r} in {ROOT}: {sha.stderr.strip()}")
    name = f"gaussqp_at_{sha.stdout.strip()}"
    home = Path(tempfile.gettempdir()) / "gaussqp_checkout_ab" / f"{name}-v{_RULES_VERSION}"
    if not (home / name).is_dir():
        tree = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "gaussqp"], capture_output=True)
        if tree.returncode:
            raise SystemExit(f"checkout_ab: git archive {revision} failed: {tree.stderr.decode().strip()}")
        # unpacked and renamed beside, then moved into place whole: an interrupted or concurrent run never leaves a
        # half-renamed copy where a later run would take it as done
        home.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=home.parent))
        with tarfile.open(fileobj=io.BytesIO(tree.stdout)) as tar:
            tar.extractall(work, filter="data")
        for path in (work / "gaussqp").rglob("*.py"):
            path.write_text(_WORD.sub(name, path.read_text()))
        home.mkdir(exist_ok=True)
        try:
            (work / "gaussqp").rename(home / name)
        except OSError:  # another run moved its copy into place first: the same files
            pass
        shutil.rmtree(work, ignore_errors=True)
    if str(home) not in sys.path:
        sys.path.insert(0, str(home))
    return name


def paired(sides: dict, states_: list[dict], crosscheck: bool) -> dict:
    """Per side, per stage (``build``, ``solve``, ``both``): the list of CPU seconds, state by state, the order of the
    sides alternating (the first state of ``states_`` warms both up)."""
    names = list(sides)
    times: dict = {k: {"build": [], "solve": [], "both": []} for k in names}
    for i, arrays in enumerate(states_):
        for k in names if i % 2 == 0 else names[::-1]:
            cls, solve = sides[k]
            t0 = time.process_time()
            p = cls.from_blocks(**arrays)
            t1 = time.process_time()
            sol = solve(p, crosscheck=crosscheck)
            t2 = time.process_time()
            if str(sol.status) != "solved" or not sol.certified:
                raise SystemExit(f"checkout_ab: {k}'s answer of state {i} is {sol.status}, certified {sol.certified}")
            if i:
                times[k]["build"].append(t1 - t0)
                times[k]["solve"].append(t2 - t1)
                times[k]["both"].append(t2 - t0)
    return times


def row_states(row: str, kinds: dict, count: int) -> list[dict]:
    """The arrays of ``count`` states of ``row`` (module docstring)."""
    if row.startswith("mujoco_"):
        import mujoco_replay as replay
        from gaussqp.io.mujoco import import_mujoco

        model, data = replay.scene(row.removeprefix("mujoco_"))
        out = []
        for state in replay.rollout(model, data, count, np.random.default_rng(0)):
            replay.at(model, data, state)
            out.append(state_arrays(replay.in_mode(import_mujoco(model, data).problem, "mode_free")))
        return out
    return [state_arrays(s) for s in states(kinds[row], count, np.random.default_rng(0))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True, help="the git revision whose package is 'before'")
    ap.add_argument("--states", type=int, default=100)
    ap.add_argument("--rows", default="frictionless,sticking")
    ap.add_argument("--crosscheck", default="off,on")
    ap.add_argument("--no-kernels", action="store_true", help="the NumPy code on both sides (GAUSSQP_COMPILED=0)")
    args = ap.parse_args(argv)
    if args.no_kernels:  # read at each call, by both packages
        os.environ["GAUSSQP_COMPILED"] = "0"
    old = package_at(args.before)
    __import__(old)
    before = sys.modules[old]
    print(f"before: {args.before} ({before.__file__}); after: {gaussqp.__file__}")
    print(f"before's {load_compiled_kernels(old)}; after's {load_compiled_kernels()}")
    old_problem = __import__(f"{old}.model.problem", fromlist=["ContactProblem"]).ContactProblem
    sides = {"before": (old_problem, before.solve), "after": (ContactProblem, gaussqp.solve)}
    base, kinds = humanoid_kinds()
    print(
        f"humanoid lying (n = {base.n}, {base.m} contacts) or a MuJoCo rollout, {args.states} states, CPU ms per state"
    )
    print(
        f"| row | stage | before ({args.before}): median | after: median | before: mean | after: mean | paired ratio |"
        "\n|---|---|---:|---:|---:|---:|---:|"
    )
    for row in args.rows.split(","):
        data = row_states(row, kinds, args.states + 1)
        for cc in args.crosscheck.split(","):
            times = paired(sides, data, cc == "on")
            for stage, label in (("build", "from_blocks"), ("solve", "solve"), ("both", "from_blocks + solve")):
                b, a = np.array(times["before"][stage]), np.array(times["after"][stage])
                ratio = float(np.median(b / np.maximum(a, 1e-9)))
                print(
                    f"| {row}, cross-check {cc} | {label} | {np.median(b) * 1e3:.3f} | {np.median(a) * 1e3:.3f} "
                    f"| {b.mean() * 1e3:.3f} | {a.mean() * 1e3:.3f} | {ratio:.3f}× |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())

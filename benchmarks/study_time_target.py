"""Issue #27's per-problem time target, read off a study's results table (a benchmark report, not a test).

    python benchmarks/study_time_target.py RESULTS.parquet [--ours coulomb_fixed_point] [--floor 0.010]
        [--none-limit 5] [--markdown out.md] [--whole-call SET_DIR [--max-contacts 160]]

The target, problem by problem: gaussqp's route certified at ≤ 1e-8 of ‖q‖ by our recomputed residual (the study's
``right``: correct and not contradicted) in at most twice the time of the fastest Siconos solver that is right on that
problem, or ``--floor`` (10 ms) where that is longer; where no Siconos solver is right, certified in at most
``--none-limit`` (5 s). Times are the study's own (each route's solve alone: Siconos's timer inside its process,
gaussqp's route solve), judged by :func:`gaussqp.studies.metrics.classify`. Prints the count that meets it, the
misses by reason (not certified; certified but slower than the target) and by family (the name before ``-s``), and
the slowest misses with their ratio to the target.

``--whole-call SET_DIR``: our side is instead the whole call ``gaussqp.solve(problem, crosscheck=False)`` (reading the
file not charged), timed in this process (CPU time, BLAS on one thread, after warm-up solves of the shipped humanoid
made mode-free and of three files: imports and the compiled kernels are a process's, not a problem's) on the study's files found in ``SET_DIR`` with at most
``--max-contacts`` contacts; certified means ``status == "solved"`` (our judge: the natural map at ≤ 1e-8 of ‖q‖).
The peers' times are still the study's. Run it with another checkout first on ``PYTHONPATH`` for a before/after.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from gaussqp.studies.metrics import classify  # noqa: E402


def family(problem: str) -> str:
    name = str(problem).rsplit("/", 1)[-1]
    return name.split("-s")[0] if "-s" in name else "fclib"


def targets(frame, ours: str, floor: float, none_limit: float):
    """One row per problem: our time and verdict, the fastest right Siconos time, the target and whether it is met."""
    import pandas as pd

    rows = []
    for key, runs in frame.groupby("problem_key"):
        mine = runs[runs["formulation"] == ours]
        if mine.empty:
            continue
        peers = runs[(runs["formulation"] != ours) & runs["right"].astype(bool)]
        fastest = float(peers["time"].min()) if len(peers) else float("nan")
        target = max(2.0 * fastest, floor) if len(peers) else none_limit
        right = bool(mine["right"].iloc[0])
        t = float(mine["time"].iloc[0])
        rows.append(
            {
                "problem": key,
                "family": family(key),
                "ours_right": right,
                "ours_time": t,
                "fastest_peer": fastest,
                "fastest_peer_route": peers.loc[peers["time"].idxmin(), "formulation"] if len(peers) else "",
                "target": target,
                "met": right and t <= target,
                "reason": "" if right and t <= target else ("not certified" if not right else "slower"),
            }
        )
    return pd.DataFrame(rows)


def whole_call(t, set_dir: str, max_contacts: int):
    """``t`` (:func:`targets`) restricted to the problems of ``set_dir`` with at most ``max_contacts`` contacts, our
    side replaced by the whole ``gaussqp.solve(problem, crosscheck=False)`` call timed here."""
    import gaussqp
    from gaussqp.io import fclib

    def contacts(path: str) -> int:
        return int(path.rsplit("-m", 1)[1].split(".")[0]) if "-m" in path else 0

    paths = {name: os.path.join(set_dir, name) for name in os.listdir(set_dir) if name.endswith(".hdf5")}
    t = t.assign(file=[str(k).rsplit("/", 1)[-1] for k in t["problem"]])
    t = t[t["file"].isin(paths) & (t["file"].map(lambda f: contacts(f)) <= max_contacts)].copy()
    from gaussqp import problems
    from steady import load_compiled_kernels

    # a process's one-time loads: the compiled kernels (a study's loop loads them), imports (a small dense mode-free
    # problem: the humanoid)
    print(load_compiled_kernels())
    gaussqp.solve(problems.load("real/humanoid_lying").mode_free(), crosscheck=False)
    for f in sorted(t["file"])[:3]:
        gaussqp.solve(fclib.load(paths[f]), crosscheck=False)
    for i, row in t.iterrows():
        p = fclib.load(paths[row["file"]])
        c = time.process_time()
        status = gaussqp.solve(p, crosscheck=False).status
        dt = time.process_time() - c
        met = status == "solved" and dt <= row["target"]
        t.loc[i, ["ours_right", "ours_time", "met"]] = [status == "solved", dt, met]
        t.loc[i, "reason"] = "" if met else ("not certified" if status != "solved" else "slower")
    return t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--ours", default="coulomb_fixed_point")
    ap.add_argument("--floor", type=float, default=0.010)
    ap.add_argument("--none-limit", type=float, default=5.0)
    ap.add_argument("--markdown", default="")
    ap.add_argument("--whole-call", default="", help="a directory of the study's files: time the whole call here")
    ap.add_argument("--max-contacts", type=int, default=160)
    args = ap.parse_args(argv)
    import pandas as pd

    frame = classify(pd.read_parquet(args.results))
    t = targets(frame, args.ours, args.floor, args.none_limit)
    ours = "the study's route times"
    if args.whole_call:
        import gaussqp

        t = whole_call(t, args.whole_call, args.max_contacts)
        ours = (
            f"the whole gaussqp.solve(crosscheck=False) call timed here ({gaussqp.__file__}; problems of ≤ "
            f"{args.max_contacts} contacts; {t['ours_time'].sum():.1f} s in all)"
        )
    lines = [
        f"{int(t['met'].sum())} of {len(t)} problems meet the target (certified, ≤ 2× the fastest right Siconos "
        f"solver or ≤ {args.floor * 1e3:g} ms; ≤ {args.none_limit:g} s where no Siconos solver is right); ours: "
        f"{ours}.",
        "",
        "| family | problems | met | not certified | certified, slower | median ours / target (slower ones) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for fam, g in t.groupby("family"):
        slow = g[g["reason"] == "slower"]
        ratio = float(np.median(slow["ours_time"] / slow["target"])) if len(slow) else float("nan")
        lines.append(
            f"| {fam} | {len(g)} | {int(g['met'].sum())} | {int((g['reason'] == 'not certified').sum())} | "
            f"{len(slow)} | {'' if np.isnan(ratio) else f'{ratio:.1f}×'} |"
        )
    slow = t[t["reason"] == "slower"].assign(ratio=lambda d: d["ours_time"] / d["target"])
    lines += [
        "",
        "The ten slowest against their target:",
        "",
        "| problem | ours (s) | target (s) | fastest right peer |",
    ]
    lines.append("|---|---:|---:|---|")
    for _, r in slow.sort_values("ratio", ascending=False).head(10).iterrows():
        peer = f"{r['fastest_peer_route']} {r['fastest_peer']:.4f} s" if r["fastest_peer_route"] else "none"
        lines.append(f"| {r['problem']} | {r['ours_time']:.4f} | {r['target']:.4f} | {peer} |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

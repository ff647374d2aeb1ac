"""Issue #15's table, measured side by side in one run (a benchmark, not a test): each row prints gaussqp's time,
the reference's time (MuJoCo ``mj_forward``, a direct Clarabel call, Siconos) and their ratio.

    python benchmarks/speed.py [--quick] [--rows 1,2,3] [--threads default|1]

BLAS threads are pinned to one (``--threads 1``, the default: small dense kernels oversubscribe a loaded
machine) through ``threadpoolctl`` when installed, else the environment before numpy is imported; ``--threads
default`` leaves them. Times are medians of ``--repeat`` (≥ 5) paired runs after one warm-up run; every timed run
solves a problem object of its own (a copy, or for the re-solve rows another state: rows of ``J_n`` and the force
scaled within 1 %; each series on copies of its own), so that nothing cached on a problem or memoized by its matrices
is reused between runs. Rows:

1. humanoid lying (``real/humanoid_lying``, n = 27, its contacts made frictionless), ``gaussqp.solve`` with
   defaults vs MuJoCo ``mj_forward`` on dm_control's humanoid at the stored state (needs ``mujoco`` and
   ``dm_control``; skipped without);
2. the same with every contact sticking (the stored problem), and whether the answer is certified;
3. re-solve of a same-structure frictionless problem, ``crosscheck=False`` vs a direct Clarabel call on the same QP
   (n = 6, 30, 300 dense planted; 3000, 12 000 sparse chains), by ``gaussqp.solve`` and by a ``gaussqp.Solver`` built
   on the other state with the same options;
4. the same with defaults (certificates, cross-check) at n = 3000;
5. ``sticking_stack`` with 1,000 / 2,500 / 5,000 / 10,000 contacts: build + ``solve`` with defaults, the growth exponent
   and the peak memory (a fresh process per size, its own ``VmHWM``);
6. Lemke vs Siconos and 7. ``import gaussqp``: ``benchmarks/lemke_siconos.py`` and ``benchmarks/import_time.py``.

Run it from another checkout (``PYTHONPATH=/path/to/old/checkout python benchmarks/speed.py``) for the figures
of another commit: it uses only the public API.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

if "--threads" not in sys.argv or sys.argv[sys.argv.index("--threads") + 1] != "default":
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import gaussqp  # noqa: E402
import gaussqp.errors  # noqa: E402
from gaussqp import problems  # noqa: E402
from gaussqp.model.problem import ContactProblem  # noqa: E402
from gaussqp.problems import families  # noqa: E402

from bench import direct_clarabel  # noqa: E402  (benchmarks/bench.py: F1's data straight to Clarabel)


def median_time(fn, repeat: int, inputs: list | None = None) -> tuple[float, object]:
    """Median seconds of ``fn()`` (or of ``fn(inputs[k])``, a distinct input per run: nothing a problem object caches,
    its mass factorization or a memo keyed by its matrices, is reused from one timed run to the next)."""
    if inputs is not None and len(inputs) < repeat + 1:
        raise ValueError("one input per run and one for the warm-up")
    call = (lambda k: fn()) if inputs is None else (lambda k: fn(inputs[k]))
    out = call(0)  # warm-up (compiles, caches)
    ts = []
    for k in range(1, repeat + 1):
        t = time.perf_counter()
        out = call(k)
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)), out


def paired_switch(sts: list, crosscheck: bool, switch) -> tuple[float, float, float]:
    """``(median ms off, median ms on, median per-state ratio off/on)``: each state of ``sts[1:]`` solved twice in a
    row, with ``switch(True)`` and ``switch(False)`` (the order alternating), each time as a fresh problem object, so the
    machine's drift over the run weighs on both sides alike (``sts[0]`` warms both up). CPU time; every answer must be
    solved, else the run stops. The switch is left on."""
    for flag in (True, False):
        switch(flag)
        gaussqp.solve(sts[0].with_force(sts[0].F), crosscheck=crosscheck)
    on, off = [], []
    try:
        for i, s in enumerate(sts[1:]):
            for flag in (True, False) if i % 2 == 0 else (False, True):
                switch(flag)
                q = s.with_force(s.F)
                t = time.process_time()
                sol = gaussqp.solve(q, crosscheck=crosscheck)
                (on if flag else off).append(time.process_time() - t)
                if sol.status != "solved":
                    raise SystemExit(f"state {i}: {sol.status} ({sol.message})")
    finally:
        switch(True)
    return float(np.median(off)) * 1e3, float(np.median(on)) * 1e3, float(np.median(np.array(off) / np.array(on)))


def copies(p: ContactProblem, count: int) -> list[ContactProblem]:
    """``count`` new problem objects with the data of ``p`` (its cached factorizations are not carried over)."""
    return fresh([p] * count)


def states(p: ContactProblem, count: int, rng) -> list[ContactProblem]:
    """``count`` other states of the structure of ``p``: each normal row and the force scaled by factors within 1 %
    (same sparsity pattern, new numbers), as another configuration of the same robot would give."""
    out = []
    for _ in range(count):
        rows = 1.0 + 0.01 * rng.uniform(-1.0, 1.0, p.m)
        Jn = sp.csr_matrix(sp.diags(rows) @ p.J_n) if sp.issparse(p.J_n) else np.asarray(p.J_n) * rows[:, None]
        F = np.asarray(p.F) * (1.0 + 0.01 * rng.uniform(-1.0, 1.0, p.n))
        out.append(
            ContactProblem.from_blocks(
                p.M,
                F,
                Jn,
                p.normal_drift,
                list(p.types),
                p.J_t,
                p.tangent_drift,
                p.friction,
                list(p.modes),
                p.slip,
                list(p.has_tangent),
                p.dimension,
                name=p.name,
            )
        )
    return out


def fresh(problems_: list[ContactProblem]) -> list[ContactProblem]:
    """New problem objects with the data of ``problems_``: what one timed series memoized on its problems (mass
    factorization, data scales, the certificates' shared factorizations) is not there for the next series."""
    return [p.with_force(p.F) for p in problems_]  # with_force builds a new problem from the same blocks


def state_arrays(p: ContactProblem) -> dict:
    """The arguments of ``ContactProblem.from_blocks`` that build a problem with the data of ``p``, as fresh arrays: a
    state as a simulator hands it over (``benchmarks/control_rates.py``'s construction rows, ``checkout_ab.py``)."""
    return dict(
        M=np.array(p.M), F=np.array(p.F), J_n=np.array(p.J_n), normal_drift=np.array(p.normal_drift),
        types=list(p.types), J_t=np.array(p.J_t), tangent_drift=np.array(p.tangent_drift),
        friction=np.array(p.friction), modes=list(p.modes), dimension=p.dimension,
    )  # fmt: skip


def humanoid_kinds() -> tuple[ContactProblem, dict[str, ContactProblem]]:
    """The shipped humanoid (``real/humanoid_lying``) and the rows of the paired benchmarks: ``"frictionless"`` (its
    contacts made frictionless), ``"sticking"`` (as stored) and ``"mode_free"`` (every contact ``"coulomb"``: stick
    or slip left to the solver, issue #27)."""
    from gaussqp import problems

    base = problems.load("real/humanoid_lying")
    mode_free = base.mode_free(name=base.name + " (mode-free)")
    return base, {"frictionless": frictionless(base), "sticking": base, "mode_free": mode_free}


def frictionless(p: ContactProblem) -> ContactProblem:
    k = p.m * (p.dimension - 1)
    return ContactProblem.from_blocks(
        p.M,
        p.F,
        p.J_n,
        p.normal_drift,
        list(p.types),
        np.zeros((k, p.n)),
        np.zeros(k),
        np.zeros(p.m),
        ["frictionless"] * p.m,
        None,
        [False] * p.m,
        p.dimension,
        name=p.name + " (frictionless)",
    )


def mujoco_forward(repeat: int):
    """(median seconds of mj_forward at the stored humanoid state, or None with the reason)."""
    try:
        import mujoco
        import dm_control
    except ImportError as e:
        return None, f"needs mujoco and dm_control ({e.name})"
    path = os.path.join(os.path.dirname(dm_control.__file__), "suite", "humanoid.xml")
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    with open(os.path.join(os.path.dirname(problems.__file__), "data", "real", "humanoid_lying.json")) as f:
        state = json.load(f)["parameters"]["state"]  # where the library scene recorded MuJoCo's state
    d.qpos[:] = state["qpos"]
    d.qvel[:] = state["qvel"]
    t, _ = median_time(lambda: mujoco.mj_forward(m, d), max(repeat, 50))
    return t, ""


def same_structure(n: int, rng) -> tuple[ContactProblem, ContactProblem]:
    """Two problems of one structure (another force): dense planted below 3000 coordinates, a sparse chain above."""
    if n < 3000:
        p, *_ = families.planted(rng, n=n, m_b=max(1, n // 10), m_u=max(2, n // 3), max_active=n // 3)
    else:
        p = families.chain(n // 2, lift=1.5, duplicate_every=0)
    return p, p.with_force(np.asarray(p.F) * 1.01)


def row(label: str, ours: float, ref: float, ref_name: str, extra: str = "") -> None:
    print(
        f"{label:<58} {ours * 1e3:>11.2f} ms {ref * 1e3:>11.3f} ms {ours / ref:>9.1f}×  vs {ref_name}"
        + (f"  {extra}" if extra else ""),
        flush=True,
    )


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB: Linux's ``VmHWM`` (the high-water mark of this program's own
    memory, new at ``exec``), else ``ru_maxrss``, which on Linux keeps the parent's size at ``fork`` across ``exec``
    (a child of a large benchmark process would report the parent's peak)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return float(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stack_child(bodies: int) -> None:
    """One sticking_stack run in this (fresh) process: prints JSON with build, solve times and peak RSS."""
    t0 = time.perf_counter()
    p, *_ = families.sticking_stack(np.random.default_rng(0), bodies)
    t1 = time.perf_counter()
    sol = gaussqp.solve(p)
    t2 = time.perf_counter()
    print(
        json.dumps(
            {
                "build": t1 - t0,
                "solve": t2 - t1,
                "status": str(getattr(sol.status, "value", sol.status)),
                "certified": bool(sol.certified),
                "peak_mb": peak_rss_mb(),
            }
        )
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes")
    ap.add_argument("--rows", default="1,2,3,4,5")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", choices=["1", "default"], default="1")
    ap.add_argument("--stack-child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.stack_child is not None:
        stack_child(args.stack_child)
        return 0
    rows = {int(r) for r in args.rows.split(",")}
    try:
        from threadpoolctl import threadpool_limits

        limiter = threadpool_limits(1) if args.threads == "1" else None
    except ImportError:
        limiter = None
    print(f"gaussqp {gaussqp.__file__}; BLAS threads: {args.threads}; medians of {args.repeat} runs")
    rng = np.random.default_rng(0)
    if rows & {1, 2}:
        tm, why = mujoco_forward(args.repeat)
        hum = problems.load("real/humanoid_lying")
        for r, p, label in (
            (1, frictionless(hum), "1. humanoid lying, frictionless, solve (defaults)"),
            (2, hum, "2. humanoid lying, all sticking, solve (defaults)"),
        ):
            if r not in rows:
                continue
            t, sol = median_time(gaussqp.solve, args.repeat, copies(p, args.repeat + 1))
            extra = f"status {sol.status}, certified {sol.certified}"
            if tm is None:
                print(f"{label:<58} {t * 1e3:>11.2f} ms   (MuJoCo row skipped: {why})  {extra}")
            else:
                row(label, t, tm, "mj_forward", extra)
    if 3 in rows:
        for n in (6, 30, 300) if args.quick else (6, 30, 300, 3000, 12000):
            try:
                p, q = same_structure(n, rng)
            except gaussqp.errors.GaussQPError as e:  # an older commit may refuse the size
                print(f"3. re-solve, n = {n}: refused: {e}")
                continue
            runs = states(q, args.repeat + 1, rng)  # another state per run: nothing is re-solved from a memo
            t, sol = median_time(
                lambda x: gaussqp.solve(x, formulation="gauss_qp", crosscheck=False), args.repeat, runs
            )
            td, x = median_time(direct_clarabel, args.repeat, fresh(runs))
            gap = float(np.abs(sol.acceleration - x).max() / max(1.0, np.abs(x).max()))
            row(f"3. re-solve, crosscheck=False, n = {q.n}", t, td, "direct Clarabel", f"gap {gap:.1e}")
            if hasattr(gaussqp, "Solver"):  # the batch API (issue #15); an older commit has none
                solver = gaussqp.Solver(p, formulation="gauss_qp", crosscheck=False)
                ts, _ = median_time(solver.solve, args.repeat, fresh(runs))
                row(f"   Solver.solve (built on the other state), n = {q.n}", ts, td, "direct Clarabel")
    if 4 in rows:
        p, q = same_structure(3000, rng)
        k = max(3, args.repeat // 2)
        runs = states(q, max(k, args.repeat) + 1, rng)
        t, sol = median_time(gaussqp.solve, k, runs)
        td, x = median_time(direct_clarabel, args.repeat, fresh(runs))
        row(f"4. solve with defaults, n = {q.n}", t, td, "direct Clarabel", f"certified {sol.certified}")
    if 5 in rows:
        sizes = (1000, 2500) if args.quick else (1000, 2500, 5000, 10000)
        got = []
        for b in sizes:
            out = subprocess.run(
                [sys.executable, __file__, "--stack-child", str(b), "--threads", args.threads],
                capture_output=True,
                text=True,
            )
            if out.returncode != 0:
                print(f"5. sticking_stack {b}: failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            got.append((b, r["build"] + r["solve"]))
            print(
                f"5. sticking_stack, {b:>6} contacts: build {r['build']:.2f} s + solve {r['solve']:.2f} s, "
                f"peak {r['peak_mb']:.0f} MB, {r['status']}, certified {r['certified']}",
                flush=True,
            )
        if len(got) >= 2:
            x, y = np.log([g[0] for g in got]), np.log([g[1] for g in got])
            print(f"   growth exponent (least squares on log time vs log contacts): {np.polyfit(x, y, 1)[0]:.2f}")
    if limiter is not None:
        limiter.unregister() if hasattr(limiter, "unregister") else None
    return 0


if __name__ == "__main__":
    sys.exit(main())

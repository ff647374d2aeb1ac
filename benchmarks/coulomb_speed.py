"""Issue #27's speed table for mode-free Coulomb friction, side by side in one run (a benchmark, not a test).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/coulomb_speed.py \
        [DIR] [--no-before] [--no-siconos] [--states 200] [--json OUT.json]

DIR defaults to ``../shared/data/fclib`` next to the checkout (the workplace's FCLIB files). For each file, and
for the shipped humanoid ``real/humanoid_lying`` made mode-free (its "sticking" contacts given the mode
"coulomb"; the frictionless ones stay frictionless), it prints:

- **before**: today's convex iteration + polish alone (:func:`gaussqp.formulations.coulomb.solve_local` on the
  dense condensed ``(W, q)``; condensing included), the route as it was before issue #27;
- **after, kernel**: what the new route computes, timed alone: the local form (``condense_sparse`` for a sparse M,
  ``condense`` for a dense one; nothing for a local file) + :func:`~gaussqp.formulations.coulomb.solve_mode_free`
  (the nonsmooth Newton, the convex iteration if it falls back);
- **after, route**: ``gaussqp.solve(problem, crosscheck=False)`` (the same + recovery, our certificate, the
  friction verdict; the dispatcher's optional cross-check with another Coulomb route is off);
- **Siconos** NSGS / PROX / NSN-AC at tolerance 1e-8, each timed *inside* the Siconos process around
  ``fc3d_driver`` only (no interpreter start, no file I/O), on the same condensed ``(W, q)`` (dense, as Siconos
  takes it), from r = 0.

Every answer, ours and Siconos's, is judged by **our** natural-map residual ÷‖q‖ recomputed here from ``W r + q``;
"ok" means ≤ 1e-8. The target column is ``min(2 × fastest Siconos solver reaching 1e-8, max(that, 10 ms))`` as the
issue states it (≤ 2× the fastest, or ≤ 10 ms where that is longer; 5 s where no Siconos solver reaches 1e-8).
Times are the median of ``--repeat`` runs (1 for "before": minutes).

The humanoid's rollout (issue #27 item 3; ``--rollout-only`` runs it alone) re-solves ``--states`` nearby states
(force and normal rows drifting ~1 % per state) and reports the median time per state of: ``gaussqp.solve`` of the
checkout ``--before`` (e.g. ``/work/main``: today's code, timed in a child process alternated with this process over
``--rounds`` rounds), ``gaussqp.solve`` here and ``gaussqp.Solver.solve`` (warm-started from the last certified
answer), with the cross-check off; the cross-check's own cost (on minus off, ``--cc-states`` states); building a
state (``ContactProblem.from_blocks``, the caller's cost); Siconos PROX and NSGS on the condensed problem of
``--siconos-states`` states (from r = 0, the solve alone); ``mujoco.mj_forward`` on the humanoid model when
dm_control (which ships it) is installed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import gaussqp  # noqa: E402
from gaussqp import problems  # noqa: E402
from gaussqp.errors import GaussQPError  # noqa: E402
from gaussqp.formulations.coulomb import condense, solve_local, solve_mode_free  # noqa: E402
from gaussqp.friction.coulomb_law import natural_map_residual  # noqa: E402
from gaussqp.model.problem import ContactProblem  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # problems.real.mujoco_scenes (after gaussqp's import)
from friction_fclib import run_siconos, siconos_available  # noqa: E402
from coulomb_schedule import local_form  # noqa: E402
from steady import load_compiled_kernels  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-8


def dense_data(p):
    """(W, q, mu, d) dense: today's condensation (what the convex iteration and Siconos get)."""
    if isinstance(p, gaussqp.LocalContactProblem):
        return (p.W.toarray() if sp.issparse(p.W) else np.asarray(p.W)), np.asarray(p.q), np.asarray(p.mu), p.dimension
    cd = condense(p)
    return cd.W, cd.q, cd.mu, p.dimension


def our_residual(W, q, mu, d, r) -> float:
    return natural_map_residual(r, np.asarray(W @ r).ravel() + q, q, mu, d).relative


def median(fn, repeat: int):
    ts, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)), out


def reaction(sol) -> np.ndarray:
    return np.hstack([sol.lambda_normal[:, None], sol.lambda_tangent]).ravel()


def mode_free(p: ContactProblem) -> ContactProblem:
    """The problem with every told "sticking" contact given the mode "coulomb" (stick/slip left to the solver)."""
    return p.mode_free(name=p.name + " (mode-free)")


def states(p: ContactProblem, k: int, rng) -> list:
    """A rollout of ``k`` nearby states: the force and the contact rows drift within 1 % (same structure)."""
    out = [p]
    for _ in range(k - 1):
        prev = out[-1]
        s = 1 + 0.002 * rng.standard_normal()
        F = np.asarray(prev.F) * (1 + 0.002 * rng.standard_normal(prev.n))
        out.append(
            ContactProblem.from_blocks(
                prev.M,
                F,
                np.asarray(prev.J_n) * s,
                prev.normal_drift,
                [str(t) for t in prev.types],
                prev.J_t,
                prev.tangent_drift,
                prev.friction,
                [str(m) for m in prev.modes],
                prev.slip,
                prev.has_tangent,
                prev.dimension,
                prev.name,
            )
        )
    return out


def print_row(name, label, ok, res, t, extra=""):
    ts = "—" if t is None else (f"{t * 1e3:10.2f}")
    rs = "—" if res is None else f"{res:9.1e}"
    print(
        f"{name:<34} {label:<26} {('yes' if ok else 'no') if ok is not None else '—':<4} {rs:>9} {ts:>10}  {extra}",
        flush=True,
    )


def per_state(fn, roll, rounds: int = 1) -> float:
    """Median over states of the per-state time of ``fn(state)`` (each state timed alone), median over ``rounds``."""
    meds = []
    for _ in range(rounds):
        ts = []
        for s in roll:
            t0 = time.perf_counter()
            fn(s)
            ts.append(time.perf_counter() - t0)
        meds.append(float(np.median(ts)))
    return float(np.median(meds))


def child_times(hum, args) -> dict:
    """This script's rollout timings of ``gaussqp.solve`` with whatever gaussqp is on the path (``--child``: run by
    the parent with PYTHONPATH at the checkout to compare with)."""
    roll = states(hum, args.states, np.random.default_rng(0))
    load_compiled_kernels()  # a rollout's steady state
    for s in roll[:3]:
        gaussqp.solve(s, crosscheck=False)
    out = {
        "solve": per_state(lambda s: gaussqp.solve(s, crosscheck=False), roll),
        "solve_cc": per_state(lambda s: gaussqp.solve(s), roll[: args.cc_states]),
    }
    return out


def rollout_rows(hum, args, record, use_siconos) -> None:
    """The humanoid's rollout: ``--states`` nearby states (force and normal rows drifting within ~1 % per state),
    per state: before (``gaussqp.solve`` of the checkout ``--before``, in a child process, alternated with this
    process's timings over ``--rounds`` rounds), ``gaussqp.solve`` here, ``Solver.solve`` (warm-started, certified),
    each with the cross-check off and on; building a state (``ContactProblem.from_blocks``, the user's cost);
    Siconos PROX on the condensed problem of a few states (from r = 0, its solve alone); ``mj_forward``."""
    import subprocess

    roll = states(hum, args.states, np.random.default_rng(0))
    name = "humanoid rollout, per state"
    before = []

    def run_before():
        if not args.before:
            return
        env = dict(os.environ, PYTHONPATH=args.before)
        out = subprocess.run(
            [sys.executable, __file__, "--child", "--states", str(args.states), "--cc-states", str(args.cc_states)],
            env=env,
            capture_output=True,
            text=True,
        )
        if out.returncode == 0:
            before.append(json.loads(out.stdout.strip().splitlines()[-1]))
        else:
            print(out.stderr[-2000:], file=sys.stderr)

    here = {"solve": [], "solver": [], "solve_cc": [], "solver_cc": []}
    worst, warm, status = 0.0, 0, set()
    for _ in range(args.rounds):
        run_before()
        here["solve"].append(per_state(lambda s: gaussqp.solve(s, crosscheck=False), roll))
        solver = gaussqp.Solver(roll[0], crosscheck=False)
        sols = []
        here["solver"].append(per_state(lambda s: sols.append(solver.solve(s)), roll))
        for s, sol in zip(roll, sols):
            status.add(str(sol.status))
            warm += bool(sol.extras.get("warm_start"))
            worst = max(worst, sol.natural_map_residual.relative)
        here["solve_cc"].append(per_state(lambda s: gaussqp.solve(s), roll[: args.cc_states]))
        solver_cc = gaussqp.Solver(roll[0])
        here["solver_cc"].append(per_state(lambda s: solver_cc.solve(s), roll[: args.cc_states]))
    med = {k: float(np.median(v)) for k, v in here.items()}
    ok = status == {"solved"}
    if before:
        b = float(np.median([x["solve"] for x in before]))
        bcc = float(np.median([x["solve_cc"] for x in before]))
        record(name, "before: gaussqp.solve", None, None, b, f"checkout {args.before}, crosscheck off")
        record(
            name,
            "before: cross-check alone",
            None,
            None,
            bcc - b,
            f"gaussqp.solve with the cross-check {bcc * 1e3:.2f} ms minus without ({args.cc_states} states)",
        )
    record(name, "after: gaussqp.solve", None, None, med["solve"], "cold, crosscheck off, certified")
    record(
        name,
        "after: Solver.solve",
        ok,
        worst,
        med["solver"],
        f"warm-started ({warm // args.rounds} of {len(roll)} states), certified; crosscheck off; statuses {sorted(status)}",
    )
    record(
        name,
        "after: cross-check alone",
        None,
        None,
        med["solve_cc"] - med["solve"],
        f"gaussqp.solve with the cross-check {med['solve_cc'] * 1e3:.2f} ms minus without ({args.cc_states} states, "
        f"as 'before'); Solver.solve with it {med['solver_cc'] * 1e3:.2f} ms",
    )
    t = per_state(
        lambda s: ContactProblem.from_blocks(
            s.M,
            s.F,
            s.J_n,
            s.normal_drift,
            [str(x) for x in s.types],
            s.J_t,
            s.tangent_drift,
            s.friction,
            [str(m) for m in s.modes],
            s.slip,
            s.has_tangent,
            s.dimension,
        ),
        roll[:50],
    )
    record(
        name,
        "building a state",
        None,
        None,
        t,
        "ContactProblem.from_blocks (validation, M's factorization): the caller's cost, not in the rows above",
    )
    if use_siconos:
        for sname in ("SICONOS_FRICTION_3D_PROX", "SICONOS_FRICTION_3D_NSGS"):
            ts, res = [], []
            for s in roll[: args.siconos_states]:
                cd = condense(s)
                out = run_siconos(cd.W, cd.q, cd.mu, s.dimension).get(sname, {})
                if "time" in out:
                    ts.append(out["time"])
                    res.append(our_residual(cd.W, cd.q, cd.mu, s.dimension, np.array(out["r"])))
            if ts:
                record(
                    name,
                    sname.replace("SICONOS_FRICTION_3D_", "siconos "),
                    max(res) <= TOL,
                    max(res),
                    float(np.median(ts)),
                    f"condensed problem, from r = 0, its solve alone, {len(ts)} states",
                )
    try:
        import mujoco  # noqa: F401
        from problems.real.mujoco_scenes import humanoid_lying

        m, d, *_ = humanoid_lying()
        import mujoco as mj

        t = per_state(lambda _: mj.mj_forward(m, d), range(200))
        record(name, "mujoco mj_forward", None, None, t, "the humanoid model (soft contacts)")
    except Exception as exc:  # the model ships with dm_control
        record(name, "mujoco mj_forward", None, None, None, f"not measured: {type(exc).__name__}: {exc}"[:90])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", default=str(ROOT.parent / "shared" / "data" / "fclib"))
    ap.add_argument("--no-before", action="store_true", help="skip today's convex iteration (minutes)")
    ap.add_argument("--no-siconos", action="store_true")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--states", type=int, default=200)
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--before",
        default=None,
        help="a checkout (its root) whose gaussqp.solve is timed on the same "
        "rollout in a child process, alternated with this one's (e.g. /work/main)",
    )
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cc-states", type=int, default=10, help="states timed with the cross-check on")
    ap.add_argument("--siconos-states", type=int, default=5)
    ap.add_argument("--rollout-only", action="store_true", help="only the humanoid's rollout")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child_times(mode_free(problems.load("real/humanoid_lying")), args)))
        return 0
    use_siconos = not args.no_siconos and siconos_available()
    print(
        f"gaussqp {gaussqp.__file__}; BLAS threads {os.environ.get('OPENBLAS_NUM_THREADS')}; Siconos "
        f"{'on' if use_siconos else 'off'}; times in ms (median of {args.repeat}; 'before' once)"
    )
    print(load_compiled_kernels())
    print(f"{'problem':<34} {'route':<26} {'ok':<4} {'res/‖q‖':>9} {'ms':>10}  notes")
    rows = []

    def record(name, label, ok, res, t, extra=""):
        print_row(name, label, ok, res, t, extra)
        rows.append({"problem": name, "route": label, "ok": ok, "residual": res, "time": t, "notes": extra})

    cases = []
    for f in [] if args.rollout_only else sorted(Path(args.dir).glob("*.hdf5")):
        from gaussqp.io import fclib

        try:
            cases.append((f.stem, fclib.load(f)))
        except GaussQPError as exc:
            record(f.stem, "refused by the reader", None, None, None, str(exc).splitlines()[0][:70])
    if not args.no_before:  # import cvxpy and compile once, so that no row is charged the import (~1 s)
        solve_local(np.eye(3), np.array([-1.0, 0.5, 0.0]), np.array([0.3]), 3)
    hum = mode_free(problems.load("real/humanoid_lying"))
    if not args.rollout_only:
        cases.append(("humanoid_lying (mode-free)", hum))
    for name, p in cases:
        Wd, qd, mud, d = dense_data(p)

        # ---- after: kernel, then route
        def kernel():
            W, q, mu, dd = local_form(p)
            return W, q, mu, solve_mode_free(W, q, mu, dd)

        t, (W, q, mu, ans) = median(kernel, args.repeat)
        kinfo = ans.newton_kernel
        record(
            name,
            "after: kernel",
            our_residual(Wd, qd, mud, d, ans.r) <= TOL,
            our_residual(Wd, qd, mud, d, ans.r),
            t,
            f"path {ans.path}, Newton {kinfo.get('iterations')} it. ({kinfo.get('reason')}, start "
            f"{kinfo.get('start')}, {kinfo.get('linear_algebra')})",
        )
        t, sol = median(lambda: gaussqp.solve(p, crosscheck=False), args.repeat)
        r = reaction(sol)
        record(
            name,
            "after: gaussqp.solve",
            str(sol.status) == "solved",
            our_residual(Wd, qd, mud, d, r),
            t,
            f"status {sol.status}, path {sol.extras.get('path')}",
        )
        # ---- Siconos
        fastest = None
        if use_siconos:
            for sname, out in run_siconos(Wd, qd, mud, d).items():
                label = sname.replace("SICONOS_FRICTION_3D_", "siconos ")
                if "error" in out:
                    record(name, label, False, None, None, str(out["error"])[:60])
                    continue
                res = our_residual(Wd, qd, mud, d, np.array(out["r"]))
                ok = bool(np.isfinite(res) and res <= TOL)
                record(name, label, ok, res, out["time"], f"info {out['info']}, {out['iterations']} it.")
                if ok and (fastest is None or out["time"] < fastest):
                    fastest = out["time"]
        if use_siconos:
            target = 5.0 if fastest is None else max(2 * fastest, 0.010)
            print(
                f"{'':<34} {'target (issue #27)':<26} {'':<4} {'':>9} {target * 1e3:>10.2f}  "
                + ("no Siconos solver reaches 1e-8: 5 s" if fastest is None else "max(2× fastest Siconos, 10 ms)")
            )
        # ---- before
        if not args.no_before:
            t0 = time.perf_counter()
            Wb, qb, mub, _ = dense_data(p)
            old = solve_local(Wb, qb, mub, d)
            t = time.perf_counter() - t0
            res = our_residual(Wd, qd, mud, d, old.r)
            record(
                name,
                "before: convex iteration",
                res <= TOL,
                res,
                t,
                f"{old.fixed_point_iterations} SOCPs + {old.newton_iterations} Newton",
            )
    # ---- the humanoid's rollout (issue #27 item 3)
    rollout_rows(hum, args, record, use_siconos)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Issue #28's table, measured side by side in one run on one core (a benchmark, not a test): certified answers on
the shipped humanoid at control rates, next to the direct solver calls and MuJoCo's ``mj_forward``.

    python benchmarks/control_rates.py [--repeat 30] [--states 1000] [--profile] [--threads 1|default]

BLAS threads are pinned to one (the environment before numpy is imported, and ``threadpoolctl`` when installed).
Times are this process's CPU time (``time.process_time``; ``--clock wall`` for wall time): on a machine shared with
other jobs, wall times come in stretches ~3× slower whenever another process takes the core, which made medians
bimodal. Every timed run solves a problem object of its own (another state: the rows of ``J_n`` and the force scaled
within 1 %, :func:`speed.states`; the same states, as fresh objects, for every row), so nothing memoized on a problem
is reused between runs; times are medians after one warm-up. Rows (``real/humanoid_lying``, n = 27, 14 contacts):

- frictionless (the contacts made frictionless): ``gaussqp.solve`` with defaults (certificates + cross-check), the
  same with the structural certificates read, ``crosscheck=False``, a ``gaussqp.Solver`` re-solving other states (both settings), the same QP straight to
  Clarabel, to DAQP and to ProxQP (dense) — each row says when its package is absent;
- all sticking (the stored problem): ``gaussqp.solve`` with defaults, with its status and certification, once as a
  control loop reads it (the status and the uniqueness decisions: the margin's and μ_min's programs run only when
  they are read, the structural certificates and friction bounds only when they are read), once with the margin read,
  once with μ_min read and once with everything read;
- a rollout of ``--states`` states of one structure re-solved by a ``Solver`` (defaults): the mean per state and
  whether every state was certified, on the perturbed states above (a MuJoCo rollout, whose contact set changes, is
  ``benchmarks/mujoco_replay.py``'s);
- in both parts, the problem's construction from a state's arrays (``ContactProblem.from_blocks``: validated, M
  factored), which a control loop pays at every state before its solve, alone and followed by ``gaussqp.solve``;
- MuJoCo ``mj_forward`` on dm_control's humanoid at the stored state (skipped, with the reason, without
  ``mujoco`` and ``dm_control``).

``--profile`` prints cProfile's top entries of the defaults row (where a certified answer's time goes); ``--stages``
prints the CPU time per stage of a frictionless solve, with and without the cross-check (the route's solve, the judge
of each answer, the structural certificates, the cross-check stage), measured by wrapping those functions.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

if "--threads" not in sys.argv or sys.argv[sys.argv.index("--threads") + 1] != "default":
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"

import numpy as np  # noqa: E402

import gaussqp  # noqa: E402
from gaussqp import problems  # noqa: E402
from gaussqp.results import format_value  # noqa: E402

from bench import direct_clarabel  # noqa: E402
from speed import fresh, frictionless, mujoco_forward, state_arrays, states  # noqa: E402
from steady import load_compiled_kernels  # noqa: E402


CLOCK = time.process_time


def median(fn, inputs: list) -> tuple[float, object]:
    """Median seconds of ``fn(x)`` over ``inputs[1:]`` after a warm-up on ``inputs[0]``."""
    out = fn(inputs[0])
    ts = []
    for x in inputs[1:]:
        t = CLOCK()
        out = fn(x)
        ts.append(CLOCK() - t)
    return float(np.median(ts)), out


def qp_data(p):
    """F1's data as dense arrays: ``min ½aᵀMa + Fᵀa`` s.t. ``E a + e = 0``, ``G a + g >= 0``."""
    E, e = p.equalities
    G, g = p.inequalities

    def dense(A):  # writable copies (DAQP refuses read-only buffers)
        return np.array(A.toarray() if hasattr(A, "toarray") else A, dtype=float)

    return dense(p.M), np.array(p.F, dtype=float), dense(E).reshape(-1, p.n), e, dense(G).reshape(-1, p.n), g


def direct_daqp(p):
    import daqp

    M, F, E, e, G, g = qp_data(p)
    A = np.vstack([E, G])
    hi = np.concatenate([-e, np.full(G.shape[0], 1e30)])
    lo = np.concatenate([-e, -g])
    sense = np.concatenate([np.full(E.shape[0], 5), np.zeros(G.shape[0])]).astype(np.int32)
    x, _, flag, _ = daqp.solve(M, F, A, hi, lo, sense)
    assert flag == 1, flag
    return np.asarray(x)


def direct_proxqp(p):
    import proxsuite

    M, F, E, e, G, g = qp_data(p)
    qp = proxsuite.proxqp.dense.QP(p.n, E.shape[0], G.shape[0])
    qp.settings.eps_abs = 1e-9
    qp.settings.eps_rel = 0.0
    qp.settings.verbose = False
    qp.init(M, F, E if E.shape[0] else None, -e if E.shape[0] else None, G, -g, np.full(G.shape[0], 1e30))
    qp.solve()
    assert qp.results.info.status == proxsuite.proxqp.QPSolverOutput.PROXQP_SOLVED, qp.results.info.status
    return np.asarray(qp.results.x)


def stages(fl, repeat: int, crosscheck: bool) -> None:
    """CPU ms per stage of ``gaussqp.solve(state, crosscheck=...)``, summed over ``repeat`` fresh states and divided
    by ``repeat``: the route's ``_solve`` (F1 through DAQP; Lemke when it cross-checks), the judge of each answer
    (``finalize``, by formulation), the structural certificates and the cross-check stage (route + judge)."""
    from collections import defaultdict

    from gaussqp import dispatch
    from gaussqp.formulations import base
    from gaussqp.formulations.delassus import LCPLemke
    from gaussqp.formulations.gauss_qp import GaussQP

    acc: dict = defaultdict(float)
    saved = []

    def wrap(owner, name, key):
        real = getattr(owner, name)
        saved.append((owner, name, real))

        def timed(*a, **k):
            t = CLOCK()
            out = real(*a, **k)
            acc[key(a) if callable(key) else key] += CLOCK() - t
            return out

        setattr(owner, name, timed)

    wrap(base, "finalize", lambda a: f"judge of the {a[0].formulation} answer")
    wrap(GaussQP, "_solve", "route gauss_qp (DAQP), its solve")
    wrap(LCPLemke, "_solve", "route lcp_lemke (cross-check), its solve")
    wrap(dispatch, "structural_certificates", "structural certificates C1-C6")
    wrap(dispatch, "cross_check", "cross-check stage (route + its judge)")
    runs = fresh(states(fl, repeat + 1, np.random.default_rng(1)))
    try:
        gaussqp.solve(runs[0], crosscheck=crosscheck)
        acc.clear()
        t0 = CLOCK()
        for x in runs[1:]:
            gaussqp.solve(x, crosscheck=crosscheck)
        total = (CLOCK() - t0) / repeat
    finally:
        for owner, name, real in reversed(saved):
            setattr(owner, name, real)
    print(f"stages of gaussqp.solve(crosscheck={crosscheck}), CPU ms per solve (total {total * 1e3:.3f}):")
    for k, v in sorted(acc.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<50} {v / repeat * 1e3:8.3f}")


def construction_rows(runs: list, tm: float | None) -> None:
    """The rows of a problem's construction from a state's arrays, alone and followed by a solve with defaults."""
    from gaussqp.model.problem import ContactProblem

    t, p = median(lambda a: ContactProblem.from_blocks(**a), [state_arrays(x) for x in runs])
    line("  ContactProblem.from_blocks (validated, M factored)", t, tm, f"a state's arrays: n = {p.n}, m = {p.m}")
    t, sol = median(lambda a: gaussqp.solve(ContactProblem.from_blocks(**a)), [state_arrays(x) for x in runs])
    line("  from_blocks + gaussqp.solve (defaults)", t, tm, f"{sol.status}, certified {sol.certified}")


def line(label: str, t: float | None, ref: float | None, extra: str = "") -> None:
    if t is None:
        print(f"{label:<62} {'—':>10}     {extra}", flush=True)
        return
    ratio = f"{t / ref:>8.1f}× mj_forward" if ref else ""
    print(f"{label:<62} {t * 1e3:>9.3f} ms {ratio}  {extra}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--states", type=int, default=1000)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--stages", action="store_true")
    ap.add_argument("--threads", choices=["1", "default"], default="1")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    try:
        from threadpoolctl import threadpool_limits

        if args.threads == "1":
            threadpool_limits(1)
    except ImportError:
        pass
    rng = np.random.default_rng(0)
    hum = problems.load("real/humanoid_lying")
    fl = frictionless(hum)
    k = args.repeat + 1
    print(
        f"gaussqp {gaussqp.__file__}; BLAS threads: {args.threads}; {args.clock} time; medians of {args.repeat} runs, "
        f"each on another state; humanoid lying n = {hum.n}, {hum.m} contacts"
    )
    tm, why = mujoco_forward(args.repeat)
    # a control loop's steady state: the compiled kernels loaded (a Solver's rollout loads them from its second problem)
    print(load_compiled_kernels())
    print("frictionless:")
    runs = states(fl, k, rng)  # the same states for every row, as fresh objects (fresh())
    t, sol = median(gaussqp.solve, fresh(runs))
    single = t
    line(
        "  gaussqp.solve (defaults: certificates + cross-check)",
        t,
        tm,
        f"{sol.status}, certified {sol.certified}, solver {sol.solver}",
    )

    def with_structural(x):  # the structural certificates are computed when first read (Solution.defer)
        s = gaussqp.solve(x)
        _ = s.certificates
        return s

    t, sol = median(with_structural, fresh(runs))
    line("  gaussqp.solve (defaults), structural certificates read", t, tm, f"{len(sol.certificates)} certificates")
    t, sol = median(lambda x: gaussqp.solve(x, crosscheck=False), fresh(runs))
    line("  gaussqp.solve(crosscheck=False)", t, tm, f"{sol.status}, certified {sol.certified}, solver {sol.solver}")
    for cc in (True, False):
        s = gaussqp.Solver(fl, crosscheck=cc)
        t, sol = median(s.solve, fresh(runs))
        line(f"  Solver.solve re-solve (crosscheck={cc})", t, tm, f"{sol.status}, certified {sol.certified}")
    for name, fn in (
        ("direct Clarabel (1e-9)", direct_clarabel),
        ("DAQP (dual active set, C)", direct_daqp),
        ("ProxQP (proxsuite, dense)", direct_proxqp),
    ):
        try:
            t, x = median(fn, fresh(runs))
        except ImportError as e:
            line(f"  {name}", None, None, f"skipped: needs {e.name} (pip install daqp)")
            continue
        ref = gaussqp.solve(runs[-1], crosscheck=False).acceleration
        gap = float(np.abs(x - ref).max() / max(1.0, np.abs(ref).max()))
        line(f"  {name}", t, tm, f"gap to the certified answer {gap:.1e}")
    construction_rows(runs, tm)
    print("all sticking:")
    sticking_states = states(hum, max(6, k // 5), rng)
    construction_rows(sticking_states, tm)
    t, sol = median(gaussqp.solve, fresh(sticking_states))
    line(
        "  gaussqp.solve (defaults)",
        t,
        tm,
        f"{sol.status}, certified {sol.certified}, multipliers unique: {sol.unique['multipliers']} "
        f"(margin_lower {format_value(sol.sticking.margin_lower)}; neither margin nor μ_min read)",
    )

    def with_margin(x):  # the margin's programs run when it is first read (StickingVerdict)
        s = gaussqp.solve(x)
        _ = s.sticking.margin
        return s

    t, sol = median(with_margin, fresh(sticking_states))
    line("  gaussqp.solve (defaults), margin read", t, tm, f"margin {sol.sticking.margin:.3g}")

    def with_mu_min(x):  # μ_min's programs run when it is first read (StickingVerdict)
        s = gaussqp.solve(x)
        _ = s.sticking.mu_min
        return s

    t, sol = median(with_mu_min, fresh(sticking_states))
    line(
        "  gaussqp.solve (defaults), μ_min read",
        t,
        tm,
        f"μ_min in [{sol.sticking.mu_min_lower:.6g}, {sol.sticking.mu_min:.6g}]",
    )

    def with_everything(x):  # μ_min, the structural certificates and the friction bounds: all a report shows
        s = gaussqp.solve(x)
        _ = s.sticking.mu_min, s.certificates, s.friction_bounds
        return s

    t, sol = median(with_everything, fresh(sticking_states))
    line("  gaussqp.solve (defaults), everything read", t, tm, "μ_min, C1–C8 and the friction bounds C7")
    print(
        f"rollout of {args.states} perturbed states of one structure (a MuJoCo rollout of the humanoid and the "
        "quadruped, contact sets changing, is replayed by benchmarks/mujoco_replay.py):"
    )
    s = gaussqp.Solver(fl)
    roll = states(fl, args.states, rng)
    s.solve(roll[0])
    t0 = CLOCK()
    sols = [s.solve(x) for x in roll]
    mean = (CLOCK() - t0) / len(roll)
    bad = sum(1 for x in sols if not x.certified or x.status != "solved")
    line(
        "  Solver.solve mean per state (defaults)",
        mean,
        tm,
        f"{len(roll) - bad}/{len(roll)} certified, {mean / single:.2f}× the single-state median",
    )
    if tm is None:
        line("MuJoCo mj_forward", None, None, f"skipped: {why}")
    else:
        line("MuJoCo mj_forward", tm, tm)
    if args.stages:
        for cc in (True, False):
            stages(fl, args.repeat, cc)
    if args.profile:
        import cProfile
        import pstats

        runs = states(fl, 40, rng)
        gaussqp.solve(runs[0])
        pr = cProfile.Profile()
        pr.enable()
        for x in runs[1:]:
            gaussqp.solve(x)
        pr.disable()
        pstats.Stats(pr).sort_stats("cumulative").print_stats(40)
    return 0


if __name__ == "__main__":
    sys.exit(main())

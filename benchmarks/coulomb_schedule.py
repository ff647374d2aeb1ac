"""Issue #27: the mode-free route's damping schedule, attempt by attempt, and what other orders would cost (a benchmark).

    python benchmarks/coulomb_schedule.py FILE... [--order 0,3,1,2,4,5,6,7,8 ...] [--proximal] [--json OUT] [--markdown OUT]

The route (:func:`gaussqp.formulations.coulomb.solve_mode_free`) runs the (θ, start) pairs of
:data:`gaussqp.settings.COULOMB_NN_SCHEDULE` in turn until one reaches :data:`~gaussqp.settings.COULOMB_NN_ACCEPT_RTOL`
or ends within :data:`~gaussqp.settings.COULOMB_PROX_FALLBACK_SKIP_RTOL` (then short proximal rounds,
:data:`~gaussqp.settings.COULOMB_PROX_NEAR_WORK_MAX` inner iterations, go on from its point, and the pairs resume only
when they do not converge: with ``--proximal`` this benchmark times them from every such attempt and charges them where
an order reaches it; without, an order ends there, the short rounds not charged),
the convex program's start computed once when a "convex" pair is first reached, the proximal rounds after the last
pair that is not a "sweeps" pair, then the "sweeps" pairs from the Gauss–Seidel sweeps' start
(:func:`gaussqp.friction.splitting_start.sweep_start`, computed once) only when the rounds did not converge; this
benchmark's orders do not model the rounds between them: its "current order" is the route's only where the rounds do
not converge (``--proximal`` says where they do), and an order's cost counts the sweeps' pairs wherever the pairs
before them stall (on a connected component of at least :data:`~gaussqp.settings.COULOMB_CONVEX_FIRST_UNKNOWNS_MIN` unknowns
solved without a guess, the same pairs with the first convex one first, which this benchmark's "current order" does
not model: give it as ``--order``). Each attempt depends only on its (θ, start), so running every pair on its own, once per problem, gives the
cost and the outcome of any order of the same pairs: the cost of an order is the sum of its attempts' CPU times up to
the first that converges (plus the convex program's, or the sweeps', when a pair from it is first reached), and the
attempt that answers
says whether the answer would change. ``--proximal`` also times the proximal rounds
(``coulomb._proximal_rounds``) from the first pair's best point where that pair does not converge, against what the
current order spends after it.

Each FCLIB file is condensed as the route condenses it (``condense_sparse`` for a sparse M, ``condense`` for a dense
one, the stored W and q for a local problem); problems of more than ``--max-contacts`` contacts are skipped. CPU time
(``time.process_time``), BLAS on one thread, the compiled kernels loaded, after one warm-up solve.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402


def local_form(problem) -> tuple:
    """``(W, q, mu, d)`` as the route builds them."""
    import scipy.sparse as sp

    from gaussqp.formulations.coulomb import condense, condense_sparse

    if problem.form == "local":
        return problem.W, np.asarray(problem.q, dtype=float), np.asarray(problem.mu, dtype=float), problem.dimension
    cd = condense_sparse(problem) if sp.issparse(problem.M) else condense(problem)
    return cd.W, cd.q, cd.mu, problem.dimension


#: the starts the route computes once, when a pair from them is first reached (their CPU seconds are ``rec[start]``)
COMPUTED_STARTS = ("convex", "sweeps")


def attempts(W, q: np.ndarray, mu: np.ndarray, d: int, proximal: bool) -> dict:
    """Every pair of the schedule run alone: ``{"convex": s, "sweeps": s, "attempts": [{theta, start, t, it, res, ok}
    | None]}`` (None: the convex program, or the sweeps, gave no point), and with ``proximal`` the rounds after the
    first pair."""
    from gaussqp.formulations.coulomb import _proximal_rounds
    from gaussqp.friction.convex_start import convex_start
    from gaussqp.friction.nonsmooth_newton import solve_newton
    from gaussqp.friction.splitting_start import sweep_start
    from gaussqp.settings import (
        COULOMB_NN_ACCEPT_RTOL,
        COULOMB_NN_ITER_MAX,
        COULOMB_NN_SCHEDULE,
        COULOMB_PROX_FALLBACK_SKIP_RTOL,
        COULOMB_PROX_NEAR_WORK_MAX,
        COULOMB_PROX_SIGMA_PER_RESIDUAL,
    )

    out: dict = {"attempts": []}
    points = {}
    for start, compute in (("convex", convex_start), ("sweeps", lambda *a: sweep_start(*a)[0])):
        t = time.process_time()
        points[start] = compute(W, q, mu, d)
        out[start] = time.process_time() - t
    first = None
    for k, (theta, start) in enumerate(COULOMB_NN_SCHEDULE):
        if start in points and points[start] is None:
            out["attempts"].append(None)
            continue
        t = time.process_time()
        if start in points:
            run = solve_newton(
                W,
                q,
                mu,
                d,
                r0=points[start],
                max_iter=COULOMB_NN_ITER_MAX,
                reg_theta=theta,
                guess_only=True,
                stop_cycles=True,
            )
        else:
            run = solve_newton(W, q, mu, d, max_iter=COULOMB_NN_ITER_MAX, reg_theta=theta, stop_cycles=True)
        ok = run.residual <= COULOMB_NN_ACCEPT_RTOL
        out["attempts"].append(
            {
                "theta": theta,
                "start": start,
                "t": time.process_time() - t,
                "it": run.iterations,
                "res": run.residual,
                "ok": bool(ok),
            }
        )
        first = first if first is not None else run
        if proximal and not ok and start != "sweeps" and run.residual <= COULOMB_PROX_FALLBACK_SKIP_RTOL:
            # the route's short rounds (never after a sweeps' pair: those run after the rounds)
            t = time.process_time()
            near, report = _proximal_rounds(W, q, mu, d, (("run within reach", run.r),), COULOMB_PROX_NEAR_WORK_MAX)
            out["attempts"][-1]["short_rounds"] = {
                "t": time.process_time() - t,
                "it": report["iterations"],
                "ok": bool(near is not None and near.residual <= COULOMB_NN_ACCEPT_RTOL),
            }
    if proximal and first is not None and first.residual > COULOMB_NN_ACCEPT_RTOL:
        t = time.process_time()
        px, report = _proximal_rounds(
            W,
            q,
            mu,
            d,
            (
                ("newton best", first.r),
                ("zero", None),
                ("zero, σ from the residual", None, COULOMB_PROX_SIGMA_PER_RESIDUAL),
            ),
        )
        out["proximal_after_first"] = {
            "t": time.process_time() - t,
            "it": report.get("iterations"),
            "ok": bool(px is not None and px.residual <= COULOMB_NN_ACCEPT_RTOL),
        }
    return out


def order_cost(rec: dict, order: list[int], computed: dict[int, str]) -> tuple[float, int | None]:
    """CPU seconds of the pairs of ``order`` up to the first that converges, and that pair (None: none did; the cost is
    then every pair's, before the rounds, which any order then runs alike). The first pair that ends within the skip
    bound (not a sweeps' pair: those run after the rounds) hands its point to the short rounds: with their record
    (``--proximal``) their time is charged and the pairs go on only when they did not converge (the pair is returned
    when they did); without it the order ends there (that pair returned, the rounds not charged). ``computed`` maps the
    index of each pair whose start is computed (:data:`COMPUTED_STARTS`) to that start: its time ``rec[start]`` is
    charged once, when the first of its pairs is reached."""
    from gaussqp.settings import COULOMB_PROX_FALLBACK_SKIP_RTOL

    t, paid, near = 0.0, set(), False
    for k in order:
        if k in computed and computed[k] not in paid:
            t += rec[computed[k]]
            paid.add(computed[k])
        a = rec["attempts"][k]
        if a is None:
            continue
        t += a["t"]
        if a["ok"]:
            return t, k
        if not near and a["start"] != "sweeps" and a["res"] <= COULOMB_PROX_FALLBACK_SKIP_RTOL:
            near = True
            if "short_rounds" not in a:
                return t, k
            t += a["short_rounds"]["t"]
            if a["short_rounds"]["ok"]:
                return t, k
    return t, None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--order", action="append", default=[], help="a permutation of the schedule's pair indices")
    ap.add_argument("--proximal", action="store_true")
    ap.add_argument("--max-contacts", type=int, default=300)
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    args = ap.parse_args(argv)

    import gaussqp
    from gaussqp import problems
    from gaussqp.io import fclib
    from gaussqp.settings import COULOMB_NN_SCHEDULE

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from steady import load_compiled_kernels

    load_compiled_kernels()
    gaussqp.solve(problems.load("real/humanoid_lying").mode_free(), crosscheck=False)  # a process's one-time loads
    pairs = len(COULOMB_NN_SCHEDULE)
    orders = {"current": list(range(pairs))}
    for text in args.order:
        order = [int(k) for k in text.split(",")]
        if sorted(order) != list(range(pairs)):
            ap.error(f"--order {text}: give a permutation of 0..{pairs - 1}")
        orders[text] = order
    computed = {k: start for k, (_, start) in enumerate(COULOMB_NN_SCHEDULE) if start in COMPUTED_STARTS}
    records: dict = {}
    for path in args.files:
        try:
            p = fclib.load(path)
        except gaussqp.errors.GaussQPError as exc:
            print(f"{os.path.basename(path)}: skipped ({exc})", file=sys.stderr)
            continue
        if p.m > args.max_contacts:
            continue
        rec = attempts(*local_form(p), args.proximal)
        records[os.path.basename(path)] = rec
        cells = [
            "—" if a is None else f"{'ok' if a['ok'] else 'stall'} {a['it']} it {a['t'] * 1e3:.1f} ms"
            for a in rec["attempts"]
        ]
        print(
            f"{os.path.basename(path)}: convex {rec['convex'] * 1e3:.1f} ms, sweeps {rec['sweeps'] * 1e3:.1f} ms; "
            + "; ".join(cells),
            flush=True,
        )

    def family(name: str) -> str:
        return name.split("-s")[0] if "-s" in name else "fclib"

    lines = [
        f"{len(records)} problems; pairs: "
        + ", ".join(f"{k} = (θ {th:g}, {start})" for k, (th, start) in enumerate(COULOMB_NN_SCHEDULE)),
        "",
        "| order | Newton stage, total CPU s | problems no pair converges | answers from another pair | by family (ms) |",
        "|---|---:|---:|---:|---|",
    ]
    for label, order in orders.items():
        total, none, moved, by = 0.0, 0, 0, {}
        for name, rec in records.items():
            t, k = order_cost(rec, order, computed)
            _, k0 = order_cost(rec, orders["current"], computed)
            total += t
            none += k is None
            moved += k != k0
            by[family(name)] = by.get(family(name), 0.0) + t
        fam = ", ".join(f"{f} {v * 1e3:.0f}" for f, v in sorted(by.items()))
        lines.append(f"| {label} | {total:.2f} | {none} | {moved} | {fam} |")
    if args.proximal:
        after = [(n, r) for n, r in records.items() if "proximal_after_first" in r]
        rounds = sum(r["proximal_after_first"]["t"] for _, r in after)
        rest = sum(order_cost(r, orders["current"][1:], computed)[0] for _, r in after)
        ok_rounds = sum(r["proximal_after_first"]["ok"] for _, r in after)
        ok_rest = sum(order_cost(r, orders["current"][1:], computed)[1] is not None for _, r in after)
        lines += [
            "",
            f"Where the first pair does not converge ({len(after)} problems): the proximal rounds from its best point "
            f"{rounds:.2f} s, {ok_rounds} converged; the current pairs after it {rest:.2f} s, {ok_rest} converged "
            f"(the pairs alone: not the rounds the route then runs where none of them converges).",
        ]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(text + "\n")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(records, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())

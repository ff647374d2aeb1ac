"""Sweep of badly scaled frictionless problems, judged by an exact oracle (issue #9).

Each problem has a definite mass matrix ``M = D M0 D`` (M0 a random SPD matrix, D a
diagonal of masses/lever arms over up to six decades: cond(M) up to ~1e12 and beyond),
constraint rows scaled over 1e±6, optional redundant rows (positive multiples of others),
degenerate activity (active rows with zero multiplier), and an integer-data family. The
reference is :func:`tests.exact_oracle.exact_frictionless`: exact rational arithmetic on
the data as stored, independent of gaussqp.

An answer is *wrong* when it is ``solved`` and its acceleration or generalized force is
farther than ``GAP`` (1e-5; "edge" between 1e-6 and 1e-5) from the exact one, in the unit-invariant energy norms
``‖·‖_M`` / ``‖·‖_{M⁻¹}`` relative to ``max(‖a*‖_M, ‖F‖_{M⁻¹})``; an ``infeasible`` verdict on a
feasible problem, or any ``unbounded`` verdict (M ≻ 0), is wrong too.

Usage::

    python benchmarks/scaled_sweep.py --count 10000 --seed 0 [--workers 2] [--json out.json]

Families: ``units`` (rows in the coordinates' units: well conditioned once equilibrated), ``stress``
(rows unrelated to the mass scaling: ill-conditioned in every scaling), ``integer``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from exact_oracle import dual_energy_gap, energy_gap, energy_scale, exact_frictionless  # noqa: E402

import gaussqp  # noqa: E402
from gaussqp import ContactProblem  # noqa: E402

#: relative energy-norm distance above which a ``solved`` answer counts as wrong: ten times the "high"
#: preset's tolerance (1e-6), because gaussqp's forward-error certificate is a first-order estimate in
#: the ∞-norm of equilibrated coordinates while this judge measures energy norms (they differ by up to
#: √n · cond(S M S)); answers between the two are reported in the sweep as "edge"
GAP = 1e-5
EDGE = 1e-6


def _spd(rng, n, cond):
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    ev = np.exp(rng.uniform(0.0, np.log(cond), n))
    M = (Q * ev) @ Q.T
    return 0.5 * (M + M.T)


def scaled_problem(rng: np.random.Generator, units: bool | None = None) -> ContactProblem:
    """A planted frictionless problem with M = D M0 D and rows scaled over 1e±6.

    ``units=True``: the rows are in the coordinates' units (``J = S J0 D``: the problem is well
    conditioned once equilibrated, as a real robot's is); ``units=False``: rows ``J0`` or ``J0 D⁻¹``
    unrelated to D (a stress test: genuinely ill-conditioned in every scaling, cond up to 1e12+);
    None draws one of the two."""
    n = int(rng.integers(2, 6))
    M0 = _spd(rng, n, 10 ** rng.uniform(0, 4))
    D = 10 ** rng.uniform(-3, 3, n) if rng.uniform() < 0.8 else np.ones(n)
    M = D[:, None] * M0 * D[None, :]
    M = 0.5 * (M + M.T)
    m_b, m_u = int(rng.integers(0, 3)), int(rng.integers(0, 5))
    if m_b + m_u == 0:
        m_u = 1
    J0 = rng.standard_normal((m_b + m_u, n))
    units = bool(rng.uniform() < 0.5) if units is None else units
    if units:
        J0 = J0 * D[None, :]  # rows in the coordinates' units: J a = J0 (D a), D a ~ the equilibrated coordinates
    elif rng.uniform() < 0.5:
        J0 = J0 / D[None, :]
    S = 10 ** rng.uniform(-6, 6, m_b + m_u) if rng.uniform() < 0.8 else np.ones(m_b + m_u)
    J = S[:, None] * J0
    a0 = rng.standard_normal(n) / D
    types = ["bilateral"] * m_b + ["unilateral"] * m_u
    active = np.array([t == "bilateral" or rng.uniform() < 0.6 for t in types])
    # at most n independent active rows: more would make the planted point feasible only up to the
    # round-off of b = -J a0, i.e. exactly infeasible as stored (the oracle would rightly say so)
    active[np.flatnonzero(active)[n:]] = False
    slack = np.where(active, 0.0, np.abs(J @ a0) * rng.uniform(0.1, 2.0, len(types)) + S * rng.uniform(0.1, 1.0))
    lam = np.where(active, rng.uniform(0.0, 3.0, len(types)) / S, 0.0)
    lam[(np.array(types) == "unilateral") & active & (rng.uniform(size=len(types)) < 0.2)] = 0.0
    lam[:m_b] *= rng.choice([-1.0, 1.0], m_b)
    if rng.uniform() < 0.3:  # a redundant row: a positive multiple of another, same type and activity
        k = int(rng.integers(0, len(types)))
        c = 2.0 ** int(rng.integers(-10, 11))  # a power of two: the copy is exactly parallel in floating point
        J = np.vstack([J, c * J[k]])
        slack = np.append(slack, c * slack[k])
        lam = np.append(lam, 0.0)
        types.append(types[k])
    b = -J @ a0 + slack
    F = J.T @ lam - M @ a0
    return ContactProblem.from_blocks(M, F, J, b, types, name="scaled")


def integer_problem(rng: np.random.Generator) -> ContactProblem:
    """Small-integer data: diagonal-dominant integer M, rows in {-2..2} with duplicates, integer drifts/forces."""
    n = int(rng.integers(2, 6))
    L = rng.integers(-2, 3, (n, n)).astype(float)
    M = L @ L.T + np.diag(rng.integers(1, 5, n).astype(float))
    m = int(rng.integers(1, 6))
    J = rng.integers(-2, 3, (m, n)).astype(float)
    if rng.uniform() < 0.5 and m > 1:
        J[-1] = J[0] * rng.integers(1, 3)
    types = [str(t) for t in rng.choice(["bilateral", "unilateral"], m, p=[0.3, 0.7])]
    b = rng.integers(-3, 4, m).astype(float)
    F = rng.integers(-5, 6, n).astype(float)
    return ContactProblem.from_blocks(M, F, J, b, types, name="integer")


FAMILIES = {
    "units": lambda rng: scaled_problem(rng, units=True),
    "stress": lambda rng: scaled_problem(rng, units=False),
    "integer": integer_problem,
}


def judge(p: ContactProblem, sol) -> str:
    """One of: right, wrong, honest (inaccurate/failed), and the verdict kinds."""
    E, e = p.equalities
    G, g = p.inequalities
    ref = exact_frictionless(p.M, p.F, E, e, G, g)
    if sol.status == "unbounded":
        return "wrong"  # M ≻ 0: the problem is never unbounded
    if ref is None:
        if sol.status == "solved":
            return "wrong"
        return "right" if sol.status == "infeasible" else "honest"
    if sol.status == "infeasible":
        return "wrong"
    if sol.status != "solved":
        return "honest"
    a_ref, f_ref = ref
    scale = energy_scale(p.M, p.F, a_ref)
    gap = max(energy_gap(p.M, a_ref, sol.acceleration), dual_energy_gap(p.M, f_ref, sol.generalized_force)) / scale
    return "right" if gap <= EDGE else ("edge" if gap <= GAP else "wrong")


def run_one(args):
    family, seed = args
    rng = np.random.default_rng(seed)
    p = FAMILIES[family](rng)
    try:
        sol = gaussqp.solve(p)
    except Exception as exc:  # a valid problem must never raise
        return family, seed, "raised", False, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"
    verdict = judge(p, sol)
    return family, seed, verdict, bool(sol.certified), sol.status


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    jobs = [
        (fam, args.seed * 1_000_003 + i)
        for i in range(args.count)
        for fam in FAMILIES
        if fam != "integer" or i % 4 == 0
    ]
    t0 = time.perf_counter()
    if args.workers > 1:
        from multiprocessing import Pool

        with Pool(args.workers) as pool:
            out = pool.map(run_one, jobs, chunksize=20)
    else:
        out = []
        for k, j in enumerate(jobs):
            out.append(run_one(j))
            if (k + 1) % 500 == 0:
                print(f"  {k + 1}/{len(jobs)} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    counts = Counter((f, v, c) for f, _, v, c, _ in out)
    print(f"{len(out)} problems in {time.perf_counter() - t0:.0f} s")
    print(f"{'family':8} {'verdict':8} {'certified':9} count")
    for (f, v, c), k in sorted(counts.items()):
        print(f"{f:8} {v:8} {str(c):9} {k}")
    bad = [o for o in out if o[2] in ("wrong", "raised")]
    cert_wrong = [o for o in bad if o[3] or o[2] == "raised"]
    print(
        f"wrong or raised: {len(bad)}; certified wrong: {sum(1 for o in bad if o[3])}; raised: "
        f"{sum(1 for o in bad if o[2] == 'raised')}"
    )
    for o in cert_wrong[:10]:
        print("  ", o[0], o[1], o[2], o[4][:300])
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"counts": {f"{f}/{v}/{c}": k for (f, v, c), k in counts.items()}, "bad": [list(o) for o in bad]},
                indent=1,
            )
        )
    return 1 if any(o[3] for o in bad) or any(o[2] == "raised" for o in bad) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Grasp analysis at a planner's speed (issue #30): verdicts per second, one grasp at a time against
:func:`gaussqp.grasp.analyze_many`, side by side with a Dex-Net-style pyramid + qhull baseline, on one core.

The grasps: 3–5 contacts at random on the unit sphere, inward normals tilted at random, μ in [0.2, 1], 30 % of the
grasps with soft fingers (μ_t 0.05) — the generator of ``tests/grasp/test_batch.py``. Rates are CPU seconds of this
process (BLAS threads pinned to 1 before NumPy loads), so another job on the machine does not count against them.

- force closure, one at a time: :func:`gaussqp.grasp.force_closure` (cvxpy → Clarabel), on ``--single`` grasps;
- force closure, batch: :func:`gaussqp.grasp.force_closures` on all ``--count`` grasps, its verdicts compared with the
  one-at-a-time ones (all of them with ``--single`` = ``--count``): same verdict and certificate id;
- baseline verdict: pyramid cones (8 edges; soft fingers as hard ones), qhull of the edge wrenches, closure iff the
  origin is strictly inside (no certificate; −1 when qhull fails);
- ε bracket at 8 and 16 facets: :func:`gaussqp.grasp.epsilon` as the one-at-a-time report runs it (with the local
  exact search) and as the batch runs it (``exact=False``: the same bracket), on ``--eps`` grasps; the baseline ε
  is the pyramid + qhull ε at 8 edges.

- ``--compare N``: the ε bracket of the batch against the one-at-a-time report's (with its local exact search) on the
  first ``N`` grasps at ``--compare-facets`` (16): same verdict, certified alike, ``lower`` and ``upper`` to 1e-9
  (all 10,000 take a few minutes).

Run: ``python benchmarks/grasp_batch.py [--count 10000] [--single 1000] [--eps 200] [--compare 10000]``
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from gaussqp.grasp import Grasp, GraspContact, analyze_many, epsilon, force_closure, force_closures  # noqa: E402
from gaussqp.problems import grasps as shipped  # noqa: E402

from grasp_quality import baseline_epsilon  # noqa: E402


def random_grasps(count: int, seed: int = 30) -> list[Grasp]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        m = int(rng.integers(3, 6))
        kind = "soft" if rng.random() < 0.3 else "hard"
        cs = []
        for _ in range(m):
            p = rng.normal(size=3)
            p /= np.linalg.norm(p)
            n = -p + 0.4 * rng.normal(size=3)
            n /= np.linalg.norm(n)
            cs.append(GraspContact(p, n, float(rng.uniform(0.2, 1.0)), kind, 0.05))
        out.append(Grasp(cs))
    return out


def cpu(f, *a, **k):
    t = time.process_time()
    r = f(*a, **k)
    return r, time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--single", type=int, default=1000)
    ap.add_argument("--eps", type=int, default=200)
    ap.add_argument("--compare", type=int, default=0)
    ap.add_argument("--compare-facets", type=int, default=16)
    a = ap.parse_args()
    gs = random_grasps(a.count)
    rows = []

    single, t1 = cpu(lambda: [force_closure(g) for g in gs[: a.single]])
    batch, tb = cpu(force_closures, gs)
    same = sum(b.holds == s.holds and b.certificate.id == s.certificate.id for b, s in zip(batch, single))
    how: dict = {}
    for c in batch:
        how[c.value["decided_by"]] = how.get(c.value["decided_by"], 0) + 1
    base, t0 = cpu(lambda: [baseline_epsilon(g, 8) for g in gs[: a.single]])
    rows.append(
        (
            "force-closure verdict",
            f"{a.single / t1:.0f}/s ({a.single})",
            f"{a.count / tb:.0f}/s ({a.count})",
            f"{a.single / t0:.0f}/s (pyramid 8 + qhull)",
            f"{same}/{len(single)} same verdict and certificate; all certified: "
            f"{all(c.certified for c in batch)}; decided by " + ", ".join(f"{k} {v}" for k, v in sorted(how.items())),
        )
    )
    agree = sum((b > 0) == bool(c.holds) for b, c in zip(base, batch))
    rows.append(
        (
            "baseline vs exact verdict",
            "",
            "",
            f"{agree}/{len(base)} agree",
            "pyramid: soft as hard, inscribed pyramid (under-reports closure)",
        )
    )
    sub = gs[: a.eps]
    for facets in (8, 16):
        one, te1 = cpu(lambda: [epsilon(g, facets=facets) for g in sub])
        many, teb = cpu(lambda: analyze_many(sub, checks="epsilon", facets=facets))
        diff = max(
            max(abs(r.checks["epsilon"].value[k] - o.value[k]) for k in ("lower", "upper")) for r, o in zip(many, one)
        )
        width = float(np.median([o.value["upper"] - o.value["lower"] for o in one if o.holds]))
        be, tbe = cpu(lambda: [baseline_epsilon(g, 8) for g in sub])
        rows.append(
            (
                f"ε bracket, {facets} facets",
                f"{len(sub) / te1:.1f}/s",
                f"{len(sub) / teb:.1f}/s",
                f"{len(sub) / tbe:.1f}/s (pyramid 8 + qhull)",
                f"max Δ bracket {diff:.1e}; median width {width:.3g} (closure grasps)",
            )
        )
    if a.compare:
        sub = gs[: a.compare]
        many, tm = cpu(lambda: analyze_many(sub, checks="epsilon", facets=a.compare_facets))
        one, to = cpu(lambda: [epsilon(g, facets=a.compare_facets) for g in sub])
        diff, verdicts, certified = 0.0, 0, 0
        for r, o in zip(many, one):
            b = r.checks["epsilon"]
            verdicts += b.holds == o.holds
            certified += b.certified == o.certified
            diff = max(diff, *(abs(b.value[k] - o.value[k]) for k in ("lower", "upper")))
        rows.append(
            (
                f"ε batch = single, {a.compare_facets} facets",
                f"{len(sub) / to:.1f}/s",
                f"{len(sub) / tm:.1f}/s",
                "",
                f"{verdicts}/{len(sub)} same verdict, {certified}/{len(sub)} certified alike, "
                f"max Δ bracket {diff:.1e} (to 1e-9: {diff <= 1e-9})",
            )
        )
    names = shipped.names()
    sh = [shipped.load(n) for n in names]
    res = analyze_many(sh, checks=("force_closure", "epsilon"), facets=8)
    ok = all(
        r.checks["force_closure"].holds == force_closure(g).holds
        and abs(r.checks["epsilon"].value["lower"] - epsilon(g, facets=8).value["lower"]) <= 1e-9
        and abs(r.checks["epsilon"].value["upper"] - epsilon(g, facets=8).value["upper"]) <= 1e-9
        for r, g in zip(res, sh)
    )
    rows.append(("shipped grasps", "", f"{len(sh)} grasps", "", f"batch = single (verdicts, brackets to 1e-9): {ok}"))
    head = ("check", "one at a time", "batch (analyze_many)", "baseline", "notes")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
